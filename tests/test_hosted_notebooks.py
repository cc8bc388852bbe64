"""A hosted notebook (analyzer/context/hosted_notebooks.py): a notebook that imports a module only a hosted notebook
service provides (Google Colab's google.colab) runs only there, so its `!pip install` pins are the demo's setup, not
the project's dependencies: its sites are optional, listed, not counted (round 22 A1 21, B1 13/18, B2 26/34:
nerfstudio colab/demo.ipynb, `torch==2.0.1+cu118 torchvision==0.15.2+cu118` counted four times)."""

from __future__ import annotations

import json

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

REASON = ("a Google Colab notebook (imports google.colab): a hosted demo, not the project's setup; its installs are not "
          "the project's dependencies")


def _notebook(*cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": c.splitlines(keepends=True),
                                  "outputs": [], "execution_count": None} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


INSTALL = ("%cd /content/\n!pip install torch==2.0.1+cu118 torchvision==0.15.2+cu118 "
           "--extra-index-url https://download.pytorch.org/whl/cu118\n")
PROJECT = {
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1"\ndependencies = ["torch>=2.1"]\n',
    "demo/__init__.py": "",
    "demo/model.py": "import torch\n\n\ndef load():\n    return torch.nn.Linear(2, 2).cuda()\n",
}


def _tree(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return analyze(tmp_path, AnalyzeOptions(jobs=1))


def _pins(report, path):
    return [f for f in report.findings if f.path == path and f.rule.startswith("DEP")]


def test_a_colab_notebooks_install_cell_is_listed_not_counted(tmp_path):
    notebook = _notebook(INSTALL, "from google.colab import files\nfrom demo.model import load\nmodel = load()\n")
    report = _tree(tmp_path / "proj", {**PROJECT, "colab/demo.ipynb": notebook})
    pins = _pins(report, "colab/demo.ipynb")
    assert pins and all(f.reach == "optional" and f.reach_reason == REASON and not f.counted for f in pins)
    assert "colab/demo.ipynb" in report.project.deployments
    # the location names the install cell (its first cell), the line being the cell's, as for the notebook's other
    # findings (round 22 A1 21: `:5` with `cell: null` pointed nowhere in the file)
    assert all(f.cell == 1 and f.line == 2 for f in pins)


def test_a_notebook_without_a_hosted_services_module_keeps_its_pins(tmp_path):
    # the same install cell in a notebook that runs anywhere (no google.colab): its pins count as before
    notebook = _notebook(INSTALL, "from demo.model import load\nmodel = load()\n")
    report = _tree(tmp_path / "proj", {**PROJECT, "colab/demo.ipynb": notebook})
    pins = _pins(report, "colab/demo.ipynb")
    assert pins and any(f.counted for f in pins) and all(f.reach_reason != REASON for f in pins)
    assert "colab/demo.ipynb" not in report.project.deployments
