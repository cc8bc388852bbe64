"""A module-level name bound to an effect-free value (`DEVICE = torch.device("cuda:0") if torch.cuda.is_available()
else torch.device("cpu")`) that its module reads nowhere and no module importing it names is a value nothing uses: its
findings are `optional` (domains/phases/symbols.py kind "value", analyzer/context/unreferenced.py). Another script's own
`DEVICE` does not read it; an importer naming it, a read in its own module, or a call with effects keeps it counted."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

DEVICE = 'DEVICE = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")\n'
EVAL = ("from experiments.robot.bridge.bridgev2_utils import get_next_task_label\n"
        "from experiments.robot.openvla_utils import get_vla\n"
        "if __name__ == '__main__':\n    get_vla(get_next_task_label(1))\n")


def _reach(root, utils: str = "import torch\n" + DEVICE + "def get_next_task_label(x):\n    return x\n",
           script: str = EVAL) -> dict[tuple[str, int], tuple[str, str | None]]:
    write_tree(root, {
        "experiments/robot/bridge/bridgev2_utils.py": utils,
        "experiments/robot/bridge/run_bridgev2_eval.py": script,
        # the device the scripts use: another module's own DEVICE, which get_vla reads
        "experiments/robot/openvla_utils.py": "import torch\n" + DEVICE + "def get_vla(x):\n    return x.to(DEVICE)\n",
    })
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {(f.path, f.line): (f.reach, f.reach_reason) for f in report.findings if f.rule == "DEV104"}


def test_a_device_constant_nothing_reads_is_optional(tmp_path):
    reach = _reach(tmp_path)
    why = ("line 2: DEVICE is bound to a value that nothing reads: its module names it nowhere else, and no module "
           "importing it names it")
    assert reach[("experiments/robot/bridge/bridgev2_utils.py", 2)] == ("optional", why)
    assert reach[("experiments/robot/openvla_utils.py", 2)] == ("runs", None)  # read by get_vla, which the script calls
    assert phrase("zh", why) != why


def test_an_importer_naming_it_keeps_it(tmp_path):
    script = ("from experiments.robot.bridge.bridgev2_utils import DEVICE, get_next_task_label\n"
              "if __name__ == '__main__':\n    get_next_task_label(DEVICE)\n")
    assert _reach(tmp_path, script=script)[("experiments/robot/bridge/bridgev2_utils.py", 2)] == ("runs", None)


def test_a_module_importer_reading_it_by_attribute_keeps_it(tmp_path):
    script = ("import experiments.robot.bridge.bridgev2_utils as utils\n"
              "if __name__ == '__main__':\n    utils.get_next_task_label(utils.DEVICE)\n")
    assert _reach(tmp_path, script=script)[("experiments/robot/bridge/bridgev2_utils.py", 2)] == ("runs", None)


def test_a_read_in_its_own_module_keeps_it(tmp_path):
    utils = "import torch\n" + DEVICE + "def get_next_task_label(x):\n    return x.to(DEVICE)\n"
    assert _reach(tmp_path, utils=utils)[("experiments/robot/bridge/bridgev2_utils.py", 2)] == ("runs", None)


def test_a_value_whose_call_has_effects_keeps_it(tmp_path):
    utils = ("import torch\nDEVICE = setup_device() if torch.cuda.is_available() else torch.device('cpu')\n"
             "def get_next_task_label(x):\n    return x\n")
    assert _reach(tmp_path, utils=utils)[("experiments/robot/bridge/bridgev2_utils.py", 2)] == ("runs", None)
