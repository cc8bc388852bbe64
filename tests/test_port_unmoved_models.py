"""A `torch.cuda.is_available()` choosing the device id of a class whose exported model (torch.jit.load, no
map_location) is never moved stays for CUDA (analyzer/port/unmoved_models.py; FunASR's libtorch demo, port round 25
hunk 12): on the NPU only the inputs would move, to a CPU-traced model."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port

from tests.helpers import write_tree

RUNTIME = (
    "import torch\n\n\n"
    "class Paraformer:\n"
    "    def __init__(self, model_dir, device_id=-1):\n"
    "        self.device_id = device_id\n"
    "        self.model = {load}\n"
    "{move}"
    "\n"
    "    def __call__(self, feats):\n"
    "        if self.device_id != -1:\n"
    "            feats = feats.cuda()\n"
    "        return self.model(feats)\n"
)
DEMO = (
    "import torch\n"
    "from funasr_torch import Paraformer\n\n"
    "device_id = 0 if torch.cuda.is_available() else -1\n"
    "model = Paraformer('exported', device_id=device_id)\n"
    "print(model(torch.zeros(1, 80)))\n"
)
CHECK_LINE = 4


@pytest.mark.parametrize("load, move, demo, held", [
    ("torch.jit.load(model_dir + '/model.pt')", "", DEMO, True),  # never moved: the check stays
    ("ort.InferenceSession(model_dir + '/model.onnx')", "", DEMO, True),  # an ONNX runtime session
    # the model is moved where the inputs go, or loaded onto the current device: the check goes to the NPU
    ("torch.jit.load(model_dir + '/model.pt')", "        self.model.to(torch.device('cuda', device_id))\n", DEMO, False),
    ("torch.jit.load(model_dir + '/model.pt', map_location='cuda')", "", DEMO, False),
    # the value is not handed to the class: nothing to re-export
    ("torch.jit.load(model_dir + '/model.pt')", "", DEMO.replace("device_id=device_id", "device_id=-1"), False),
])
def test_a_check_picking_the_device_of_an_unmoved_exported_model_stays(tmp_path, load, move, demo, held):
    files = {"runtime/funasr_torch/__init__.py": "from .paraformer_bin import Paraformer\n",
             "runtime/funasr_torch/paraformer_bin.py": RUNTIME.format(load=load, move=move),
             "runtime/demo.py": demo}
    root = write_tree(tmp_path, files)
    report = analyze(root, AnalyzeOptions(jobs=1))
    result = port(root, report, PortOptions(unsafe=True))
    check = next(o for o in result.outcomes if o.finding.path == "runtime/demo.py" and o.finding.line == CHECK_LINE
                 and o.finding.symbol == "torch.cuda.is_available")
    assert (not check.rewritten) == held, check.reason
    demo_rewrite = next((r for r in result.rewrites if r.path == "runtime/demo.py"), None)
    if held:
        assert "Re-export the model for the NPU first" in check.reason
        assert demo_rewrite is None or "torch.cuda.is_available()" in demo_rewrite.new
    else:
        assert demo_rewrite is not None and "torch.cuda.is_available()" not in demo_rewrite.new
