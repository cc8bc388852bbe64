"""transformers routes attn_implementation="flash_attention_2" to npu_fusion_attention from 4.51.0 (packages.toml
npu_routes; round 18 Qwen2.5-VL cookbooks, B1 row 7 and B2 row 40): where the transformers requirement that governs
the file installs such a release (the notebook's own `!pip install` cell, else the manifests, else the install
documents), ATT030 is info with the integration's caveats; below it, unpinned or unknown, the rewrite advice stays."""

import json

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.governing import governing, routes
from ascend_feasibility.knowledge import load_knowledge

from tests.helpers import write_tree

LOAD = (
    "from transformers import AutoModelForCausalLM\n\n"
    "model = AutoModelForCausalLM.from_pretrained(\"x\", attn_implementation=\"flash_attention_2\")\n"
)
LEGACY = (
    "from transformers import AutoModel\n\n"
    "model = AutoModel.from_pretrained(\"x\", use_flash_attention_2=True)\n"
)


def _notebook(install: str) -> str:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": [install]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": LOAD}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _att030(tmp_path, files):
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    return [(f.path, f.severity, f.message.en) for f in report.findings if f.rule == "ATT030"]


def test_a_notebook_installing_transformers_from_git_main_runs_flash_attention_2_as_written(tmp_path):
    (path, severity, message), = _att030(tmp_path, {
        "cookbooks/demo.ipynb": _notebook("!pip install git+https://github.com/huggingface/transformers accelerate\n")})
    assert (path, severity) == ("cookbooks/demo.ipynb", "info")
    assert "npu_fusion_attention" in message and "sliding-window" in message


def test_a_notebook_installing_an_old_transformers_keeps_the_advice_though_the_manifest_is_new(tmp_path):
    # the notebook's own cell governs it, not the project's requirements
    (_, severity, message), = _att030(tmp_path, {"requirements.txt": "transformers>=4.53\n",
                                                 "demo.ipynb": _notebook("!pip install transformers==4.45.2\n")})
    assert severity == "medium" and "runs on Ascend as written" not in message


@pytest.mark.parametrize(("requirement", "severity"), [
    ("transformers>=4.51.0\n", "info"),
    ("transformers==4.56.1\n", "info"),
    ("transformers>=4.40,<5\n", "medium"),  # admits releases without the route
    ("transformers\n", "medium"),  # unpinned: unknown
    ("transformers==4.55.2\n", "medium"),  # the 4.55 line reported to have lost the route (#39844, #40262)
])
def test_the_manifest_floor_decides_for_code_files(tmp_path, requirement, severity):
    found = _att030(tmp_path, {"requirements.txt": requirement, "load.py": LOAD, "legacy.py": LEGACY})
    assert [(p, s) for p, s, _ in found] == [("legacy.py", severity), ("load.py", severity)]


def test_a_readme_pin_governs_only_where_no_manifest_does(tmp_path):
    readme = "# Setup\n\n```bash\npip install transformers==4.57.0\n```\n"
    assert [s for _, s, _ in _att030(tmp_path, {"README.md": readme, "load.py": LOAD})] == ["info"]
    assert [s for _, s, _ in _att030(tmp_path / "b", {"README.md": readme, "requirements.txt": "transformers==4.44.0\n",
                                                      "load.py": LOAD})] == ["medium"]


def _line(text, specifier="", path="requirements.txt", source="requirements"):
    return Declaration("transformers", specifier, path, 1, source, text=text)


def test_git_references_route_only_at_the_default_branch_or_a_routed_tag():
    route = load_knowledge().package("transformers").npu_routes[0]
    assert routes([_line("git+https://github.com/huggingface/transformers")], route)
    assert routes([_line("git+https://github.com/huggingface/transformers@main")], route)
    assert routes([_line("git+https://github.com/huggingface/transformers@v4.52.4")], route)
    assert not routes([_line("git+https://github.com/huggingface/transformers@v4.49.0")], route)
    assert not routes([_line("git+https://github.com/huggingface/transformers@1a2b3c4d")], route)  # a commit: unknown
    assert not routes([], route)


def test_a_files_own_install_line_governs_it_before_the_manifests():
    own = _line("transformers==4.45.2", "==4.45.2", path="demo.ipynb", source="pip-install")
    manifest = _line("transformers>=4.53", ">=4.53")
    assert governing([own, manifest], "transformers", "demo.ipynb") == [own]
    assert governing([own, manifest], "transformers", "load.py") == [manifest]
