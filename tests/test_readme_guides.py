"""What the root README (and the guides it hands its usage to) tells a user to run or install is the product's,
whatever its folder or name prefix (round 34 verdicts V2, class 2): OneFormer's GETTING_STARTED.md runs `python
train_net.py`, BrushNet's README runs `python examples/brushnet/test_brushnet.py` and installs
examples/brushnet/requirements.txt after a `cd`. A pytest file the README runs stays a test."""

from __future__ import annotations

import json

from ascend_feasibility.analyzer.context.readme_runs import installed_files, readme_run_examples
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.install_docs import installed_requirements, linked_usage_docs
from ascend_feasibility.knowledge import load_context_conventions

from tests.helpers import write_tree

ROLES = load_context_conventions().roles


def test_the_guides_a_readme_links_for_install_and_getting_started():
    readme = ("See [INSTALL.md](INSTALL.md), [Getting Started](GETTING_STARTED.md), [start](docs/get_started.md#train),"
              " [demo](demo/README.md), [FAQ](docs/faq.md), [up](../GETTING_STARTED.md), [web](https://x.org/INSTALL.md)")
    assert linked_usage_docs(readme) == {"INSTALL.md", "GETTING_STARTED.md", "docs/get_started.md"}


def test_installed_requirements_read_the_folder_the_document_cds_into():
    text = ("```\ncd examples/brushnet/\npip install -r requirements.txt\n```\n"
            "Or `pip3 install --requirement=../../extra.txt`.\n```\npython -m pip install -rdev.txt torch\n```\n")
    assert installed_requirements(text) == [("examples/brushnet", "requirements.txt"),
                                            ("examples/brushnet", "../../extra.txt"), ("examples/brushnet", "dev.txt")]
    assert installed_requirements("```\npip install torch\npip download -r x.txt\n```\n") == []


def test_an_installed_requirements_file_kept_out_by_its_folder_is_named_the_root_one_is_the_builds_already():
    paths = ["requirements.txt", "examples/brushnet/requirements.txt", "examples/other/requirements.txt"]
    text = "```\npip install -r requirements.txt\ncd examples/brushnet/\npip install -r requirements.txt\n```\n"
    assert installed_files([text], paths, ROLES, None) == ["examples/brushnet/requirements.txt"]


COLAB = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                "source": ["from google.colab import files\n", "from mypkg.model import Net\n", "Net()\n"]}],
                     "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
SCRIPT = "import torch\ngen = torch.Generator('cuda')\n\ndef run():\n    return gen\n"
SUITE = "import torch\n\ndef test_gen():\n    assert torch.Generator('cuda')\n"
CASES = "import unittest\n\nclass TestGen(unittest.TestCase):\n    pass\n"


def test_a_test_named_script_the_readme_runs_is_promoted_a_test_suite_is_not():
    files = {"examples/x/test_infer.py": SCRIPT, "examples/x/test_suite.py": SUITE, "examples/x/test_cases.py": CASES,
             "tests/test_run.py": SCRIPT, "lib/__init__.py": ""}
    readme = "```bash\n" + "".join(f"python {path}\n" for path in files if path.endswith(".py")) + "```\n"
    found = readme_run_examples(readme, list(files), ROLES, None, read=files.get)
    assert found == ["examples/x/test_infer.py"]
    assert readme_run_examples(readme, list(files), ROLES, None) == []  # unread: kept as it is


def test_a_package_launched_only_through_a_getting_started_guide_runs_and_its_findings_count(tmp_path):
    # OneFormer: train_net.py beside oneformer/ (no manifest), run only by GETTING_STARTED.md
    write_tree(tmp_path, {
        "README.md": "# x\nSee [Getting Started](GETTING_STARTED.md) for training commands.\n",
        "GETTING_STARTED.md": "```bash\npython train_net.py --num-gpus 8 --config-file configs/x.yaml\n```\n",
        "train_net.py": "import torch\nfrom mypkg.model import Net\n\nif __name__ == '__main__':\n    Net()\n",
        "mypkg/__init__.py": "from .model import Net\n",
        "mypkg/model.py": "import torch\n\nclass Net:\n    def __init__(self):\n        self.w = torch.ones(2).cuda()\n",
        "colab/demo_colab.ipynb": COLAB,  # a hosted demo: optional, so what only it imports was optional too
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    model = [f for f in report.findings if f.path == "mypkg/model.py"]
    assert model and all(f.role == "product" and f.reach == "runs" for f in model)
    (tmp_path / "GETTING_STARTED.md").write_text("Train as you like.\n")
    unlaunched = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.path == "mypkg/model.py"]
    # nothing guards its imports: its importers are optional (the notebook, and the package's __init__.py)
    assert unlaunched and {(f.reach, f.reach_reason) for f in unlaunched} == {
        ("optional", "imported only by modules that are optional themselves: colab/demo_colab.ipynb, mypkg/__init__.py")}


def test_a_requirements_file_the_readme_installs_after_a_cd_is_the_products(tmp_path):
    # BrushNet: `cd examples/brushnet/; pip install -r requirements.txt` pins accelerate 0.20.3
    tree = {"README.md": "```\ncd examples/brushnet/\npip install -r requirements.txt\n```\n",
            "examples/brushnet/requirements.txt": "accelerate==0.20.3\n",
            "examples/brushnet/train.py": "import accelerate\n"}
    write_tree(tmp_path / "installed", tree)
    write_tree(tmp_path / "unnamed", {**tree, "README.md": "# x\n"})
    roles = {f.role for f in analyze(tmp_path / "installed", AnalyzeOptions(jobs=1)).findings
             if f.path == "examples/brushnet/requirements.txt"}
    unnamed = {f.role for f in analyze(tmp_path / "unnamed", AnalyzeOptions(jobs=1)).findings
               if f.path == "examples/brushnet/requirements.txt"}
    assert roles == {"product"} and unnamed == {"example"}
