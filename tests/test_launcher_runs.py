"""Tool-folder scripts a shipped shell launcher runs keep the product role (analyzer/context/launcher_runs.py; round 28
verdicts V1, W4): `python -m scripts.inference` in inference.sh, `$(dirname "$0")/train.py` in tools/dist_train.sh.
Not so for a script that imports none of the project's code, a launcher that is a test, or a script nothing runs.
And the `__main__` self-test of a namespace package's module (no __init__.py) that such a script imports by its
dotted name is no code a user runs (round 28 A1/A2 C3)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.launcher_runs import entry_imported_tools, launcher_run_tools
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.knowledge import load_context_conventions

from tests.helpers import write_tree

ROLES = load_context_conventions().roles
INFERENCE = "import torch\nfrom mypkg.pipeline import Pipeline\n\n\ndef main():\n    Pipeline()\n\n\nif __name__ == '__main__':\n    main()\n"
DOWNLOAD = "import urllib.request\n\nif __name__ == '__main__':\n    urllib.request.urlretrieve('x', 'y')\n"


def promoted(files: dict[str, str]) -> list[str]:
    return launcher_run_tools(list(files), ROLES, None, files.get)


def tree(**launchers: str) -> dict[str, str]:
    files = {"mypkg/pipeline.py": "class Pipeline:\n    pass\n", "scripts/inference.py": INFERENCE,
             "tools/train.py": INFERENCE, "scripts/download.py": DOWNLOAD}
    return files | {name.replace("__", "/") + ".sh": text for name, text in launchers.items()}


def test_a_script_a_shipped_launcher_runs_is_product():
    assert promoted(tree(inference="#!/bin/bash\npython -m scripts.inference \\\n    --steps 20\n")) == ["scripts/inference.py"]
    assert promoted(tree(train="torchrun --nnodes=1 --nproc_per_node=1 -m scripts.inference --x 1\n")) == ["scripts/inference.py"]
    assert promoted(tree(tools__dist_train='python -m torch.distributed.launch --nproc_per_node=$GPUS \\\n'
                         '    $(dirname "$0")/train.py $CONFIG\n')) == ["tools/train.py"]
    assert promoted(tree(run="python scripts/inference.py --x 1\n")) == ["scripts/inference.py"]


def test_a_helper_a_test_launcher_or_no_launcher_promotes_nothing():
    assert promoted(tree(get="python scripts/download.py\n")) == []  # imports none of the project's code
    assert promoted(tree(tests__run_inference="python -m scripts.inference\n")) == []  # a test launcher
    assert promoted(tree()) == []
    assert promoted(tree(run="echo python -m scripts.inference\n")) == []  # no runner command


def imported(files: dict[str, str], promoted: tuple[str, ...] = ()) -> list[str]:
    return entry_imported_tools(list(files), ROLES, None, files.get, promoted)


HELPERS = {"utils/__init__.py": "", "utils/misc.py": "import torch\nfrom utils.dist import rank\n",
           "utils/dist.py": "import torch\n\n\ndef rank():\n    return 0\n", "utils/print_env.py": "import torch\n"}


def test_a_tool_folder_module_a_root_product_script_imports_is_product():
    train = "import torch\nfrom utils import misc\n\nif __name__ == '__main__':\n    misc.run()\n"
    assert sorted(imported(HELPERS | {"train.py": train})) == ["utils/dist.py", "utils/misc.py"]  # and what it imports
    app = "from scripts.inference import main\n\nmain()\n"
    assert imported({"app.py": app, "scripts/inference.py": INFERENCE}) == ["scripts/inference.py"]
    launched = "from utils.misc import step\n"  # a promoted script's own imports count too
    assert sorted(imported(HELPERS | {"scripts/train.py": launched}, ("scripts/train.py",))) == ["utils/dist.py", "utils/misc.py"]


def test_a_tool_module_only_a_tool_a_test_or_setup_imports_stays_a_tool():
    assert imported(HELPERS | {"utils/report.py": "from utils import print_env\n"}) == []
    assert imported(HELPERS | {"tests/test_misc.py": "from utils import misc\n"}) == []
    assert imported(HELPERS | {"setup.py": "from utils.misc import version\n"}) == []  # a build file
    assert imported(HELPERS | {"train.py": "import torch\n"}) == []


LOSS = """import torch


class PerceptualLoss(torch.nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device


if __name__ == "__main__":
    videos = torch.randn(2, 3, 16, 64, 64).to(device="cuda")
    loss = PerceptualLoss(device="cuda")
"""
TRAIN = """import torch
from mypkg.losses.loss import PerceptualLoss


def main():
    device = torch.device("npu")
    PerceptualLoss(device=device)
    torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
"""


def _counted_at(report, path: str) -> set[int]:
    """The lines of the file's findings that count: code a user runs, in product code (not a self-test: role test)."""
    return {f.line for f in report.findings if f.path == path and f.reach == "runs" and f.role == "product"}


def test_a_launched_scripts_sites_count_and_its_imported_modules_self_test_does_not(tmp_path):
    root = write_tree(tmp_path, {"mypkg/losses/loss.py": LOSS, "scripts/train.py": TRAIN,
                                 "train.sh": "#!/bin/bash\ntorchrun --nproc_per_node=1 -m scripts.train --lr 1\n"})
    report = analyze(root, AnalyzeOptions(jobs=1))
    roles = {f.path: f.role for f in report.findings}
    assert roles.get("scripts/train.py") == "product"
    assert not _counted_at(report, "mypkg/losses/loss.py") & set(range(10, 13))  # the self-test block's lines


def test_the_self_test_of_a_module_nothing_imports_still_runs(tmp_path):
    root = write_tree(tmp_path, {"mypkg/losses/loss.py": LOSS, "scripts/train.py": TRAIN.replace(
        "from mypkg.losses.loss import PerceptualLoss\n", "").replace("    PerceptualLoss(device=device)\n", ""),
        "train.sh": "#!/bin/bash\ntorchrun --nproc_per_node=1 -m scripts.train --lr 1\n"})
    report = analyze(root, AnalyzeOptions(jobs=1))
    assert _counted_at(report, "mypkg/losses/loss.py") & set(range(10, 13))


def test_a_root_training_scripts_tool_folder_helper_has_the_product_role(tmp_path):
    misc = "import torch\n\n\ndef metric(x):\n    return torch.tensor(x, dtype=torch.float64, device='cuda')\n"
    train = "import torch\nfrom utils import misc\n\nif __name__ == '__main__':\n    misc.metric(1.0)\n"
    report = analyze(write_tree(tmp_path, {"utils/misc.py": misc, "train.py": train}), AnalyzeOptions(jobs=1))
    assert {f.role for f in report.findings if f.path == "utils/misc.py"} == {"product"}


RUNNER_TRAIN = ("from mmengine.config import Config\nfrom mmengine.runner import Runner\n\n\ndef main():\n"
                "    runner = Runner.from_cfg(Config.fromfile('c.py'))\n    runner.train()\n\n\n"
                "if __name__ == '__main__':\n    main()\n")
DIST_TRAIN = 'python -m torch.distributed.launch --nproc_per_node=$GPUS $(dirname "$0")/train.py $CONFIG\n'


def test_a_launched_tool_script_running_a_config_driven_runner_drives_the_project():
    """mmocr's tools/train.py imports only mmengine: `Runner.from_cfg(cfg)` builds the project's registered modules from
    the config, so tools/dist_train.sh runs the project's training (round 38 verdicts V-5). A script that only reads
    the config (a config printer) still drives nothing."""
    files = tree(tools__dist_train=DIST_TRAIN) | {"tools/train.py": RUNNER_TRAIN}
    assert promoted(files) == ["tools/train.py"]
    printer = "from mmengine.config import Config\n\nif __name__ == '__main__':\n    print(Config.fromfile('c.py'))\n"
    assert promoted(files | {"tools/train.py": printer}) == []


def test_a_launcher_run_through_a_placeholder_folder_promotes_each_fitting_tool_script():
    files = tree(run='TASK=inference\npython scripts/$TASK/main.py --x 1\n') | {
        "scripts/inference/main.py": INFERENCE, "scripts/get/main.py": DOWNLOAD}
    assert promoted(files) == ["scripts/inference/main.py"]  # the download helper imports none of the project
