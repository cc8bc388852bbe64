"""A finding inside the CUDA arm of a device-type test (`if self.device.type == "cuda":`) is part of that test's edit,
not a second counted item: on Ascend the type is "npu", with transfer_to_npu or without, so the arm never runs
there (analyzer/core/filework.py, analyzer/context/guards.device_type_is_cuda; round 24 A1 C5, lmms-eval's mmada.py:
`torch.autocast("cuda")` under the test). A setting compared with "cuda" stays "cuda" under the shim: its arm runs."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

MODEL = ("import torch\n\n\n"
         "class Model:\n"
         "    def __init__(self, model, device):\n"
         "        self.device = device\n"
         "        self.model = model\n\n"
         "    def generate(self, x, flag=True):\n"
         "        if {test}:\n"  # line 10
         '            with torch.autocast("cuda", dtype=torch.bfloat16):\n'  # line 11
         "                return self.model(x)\n"
         "        return self.model(x)\n")


def _autocast(tmp_path, test):
    root = write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/model.py": MODEL.format(test=test)})
    found = [f for f in analyze(root, AnalyzeOptions(jobs=1)).findings if f.path == "pkg/model.py" and f.line == 11]
    assert found
    return found


@pytest.mark.parametrize("test", ['self.device.type == "cuda"', '"cuda" == x.device.type',
                                  'flag and self.device.type == "cuda"'])
def test_the_cuda_arm_of_a_device_type_test_is_the_tests_edit(tmp_path, test):
    for finding in _autocast(tmp_path, test):
        assert finding.reach == "cuda-only-guarded"
        assert finding.reach_reason.startswith("line 10: inside the CUDA arm of a device-type test (DEV")
        assert "CUDA 分支" in phrase("zh", finding.reach_reason)


@pytest.mark.parametrize("test", ['self.device == "cuda"',  # a setting: "cuda" under the shim, the arm runs
                                  'self.device.type != "cuda"', 'flag or self.device.type == "cuda"'])
def test_other_arms_keep_their_findings(tmp_path, test):
    assert all(f.reach == "runs" for f in _autocast(tmp_path, test))
