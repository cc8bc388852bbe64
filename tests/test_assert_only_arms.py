"""A device test whose arm only asserts is a sanity check: with "npu:0" the test is false and the assert is skipped,
which is harmless (the model then goes `.to(device)` and fails loudly if the NPU is missing). OpenVoice's api.py:
`if 'cuda' in device: assert torch.cuda.is_available()` (round 24 B2 C6): DEV007 is `cuda-only-guarded`, not high."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

API = ("import torch\n\n\n"
       "class Api:\n"
       '    def __init__(self, model, device="cuda:0"):\n'
       '        if "cuda" in device:\n'  # line 6
       "            {arm}\n"
       "        self.model = model.to(device)\n")


@pytest.mark.parametrize("arm, guarded", [
    ("assert torch.cuda.is_available()", True),
    ('assert torch.cuda.is_available(), "CUDA is not available"', True),
    ("torch.cuda.set_device(device)", False),
    ("assert abs(model.total() - 171.59) < 1e-2", False),
    ("assert torch.equal(model.a, model.b)", False),  # an expected value on CUDA: which arm runs matters  # device work: skipped for "npu:0", the port must widen the test
    ("assert torch.cuda.is_available()\n            torch.backends.cudnn.benchmark = True", False),
])
def test_an_arm_that_only_asserts_is_a_message(tmp_path, arm, guarded):
    root = write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/api.py": API.format(arm=arm)})
    found = [f for f in analyze(root, AnalyzeOptions(jobs=1)).findings if f.rule == "DEV007" and f.line == 6]
    assert len(found) == 1
    assert (found[0].reach == "cuda-only-guarded") is guarded
    if guarded:
        assert found[0].reach_reason == "line 6: the check only guards a message"
