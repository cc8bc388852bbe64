"""DEP017 on an install document's example Python (`conda create -n x python=3.7` in a fenced block) where the same
document states a floor admitting the target ("* Python>=3.7"): info, naming the floor. An environment file's pin
keeps the rule's severity, and so does an example in a document that states no floor, or an exact one."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.install_docs import stated_python_floors

from tests.helpers import write_tree

README = "# App\n\n## Requirements\n\n* Linux, CUDA>=9.2\n* Python>=3.7\n\n```bash\nconda create -n app python=3.7 pip\n```\n"


@pytest.mark.parametrize(("text", "expected"), [
    ("* Python>=3.7\n", [(1, ">=3.7")]),
    ("Requires python 3.8+ and CUDA\n", [(1, ">=3.8")]),
    ("x\npython ≥ 3.9.1\n", [(2, ">=3.9.1")]),
    ("tested on Pytorch 1.12.1 with python 3.9.\n", []),  # a version it was tested on, no floor
    ("- Python 3.8.13\n", []),
])
def test_stated_python_floors(text, expected):
    assert stated_python_floors(text) == expected


def _dep017(tmp_path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    write_tree(tmp_path, {**files, "train.py": "import torch\n", "requirements.txt": "numpy\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return sorted((f.path, f.line, f.severity) for f in report.findings if f.rule == "DEP017")


def test_readme_example_under_an_admitting_floor_is_info(tmp_path):
    assert _dep017(tmp_path, {"README.md": README}) == [("README.md", 9, "info")]


def test_readme_example_without_a_floor_stays_high(tmp_path):
    assert _dep017(tmp_path, {"README.md": README.replace("* Python>=3.7\n", "* Python 3.7\n")}) == [
        ("README.md", 9, "high")]


def test_environment_file_pin_keeps_its_severity_beside_the_floor(tmp_path):
    files = {"README.md": README, "environment.yml": "name: app\ndependencies:\n  - python=3.7.13\n  - pip\n"}
    assert _dep017(tmp_path, files) == [("README.md", 9, "info"), ("environment.yml", 3, "high")]
