"""DEP017 on an install document's example Python (`conda create -n x python=3.7` in a fenced block) where the same
document states a floor admitting the target ("* Python>=3.7"): info, naming the floor. An environment file's pin
keeps the rule's severity; an example in a document that states no floor, or an exact one, is a documented install
line (round 38): medium, one finding for the line's copies in translated documents, and the advice about conda build
strings only where the pin carries one."""

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


def test_readme_example_without_a_floor_is_a_documented_line(tmp_path):
    assert _dep017(tmp_path, {"README.md": README.replace("* Python>=3.7\n", "* Python 3.7\n")}) == [
        ("README.md", 9, "medium")]


MMOCR_LINE = "```shell\nconda create -n open-mmlab python=3.8 pytorch=1.10 cudatoolkit=11.3 torchvision -c pytorch -y\n```\n"


def _dep017_findings(tmp_path, files: dict[str, str]):
    write_tree(tmp_path, {**files, "train.py": "import torch\n", "requirements.txt": "numpy\n"})
    return [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP017"]


def test_a_readme_line_and_its_translation_are_one_finding(tmp_path):
    """mmocr's README.md:112 and README_zh-CN.md:111 (round 38 A1 rows 8, 16): one documented line to update."""
    (found,) = _dep017_findings(tmp_path, {"README.md": "# App\n\n" + MMOCR_LINE,
                                            "README_zh-CN.md": "# 应用\n" + MMOCR_LINE})
    assert (found.path, found.line, found.severity) == ("README.md", 4, "medium")
    assert found.sites == ["README.md:4", "README_zh-CN.md:3"]
    assert "documented install line" in found.replacement.en and "build string" not in found.replacement.en


def test_an_environment_file_keeps_its_own_finding_and_the_build_string_advice_only_where_one_is(tmp_path):
    found = _dep017_findings(tmp_path, {"README.md": "# App\n\n" + MMOCR_LINE,
                                        "environment.yml": "name: app\ndependencies:\n  - python=3.7.13=h12debd9_0\n"})
    by_path = {f.path: f for f in found}
    assert set(by_path) == {"README.md", "environment.yml"} and by_path["environment.yml"].severity == "high"
    assert not by_path["environment.yml"].sites
    assert "drop conda build strings" in by_path["environment.yml"].replacement.en
    assert "build string" not in by_path["README.md"].replacement.en
    (plain,) = _dep017_findings(tmp_path / "b", {"environment.yml": "name: app\ndependencies:\n  - python=3.7.13\n"})
    assert plain.severity == "high" and "build string" not in plain.replacement.en


def test_environment_file_pin_keeps_its_severity_beside_the_floor(tmp_path):
    files = {"README.md": README, "environment.yml": "name: app\ndependencies:\n  - python=3.7.13\n  - pip\n"}
    assert _dep017(tmp_path, files) == [("README.md", 9, "info"), ("environment.yml", 3, "high")]
