"""A cuda/mps/cpu device pick that transfer_to_npu covers (analyzer/context/shim_chains.py; round 33 A1 13, B1 5,
B2 class 3): arms that assign device-name strings and an MPS arm and-ed with a host-platform test are the same pick as
the torch.device one, DEV104 info auto at the probe, not DEV220; and the CUDA arm's "cuda" is the arm the NPU takes
under the shim, so its reach is `runs`, not `other-backend`."""

from __future__ import annotations

from tests.helpers import scan

STRING_PICK = """import sys
import torch
try:
    if torch.cuda.is_available():
        device = "cuda"
    elif sys.platform == "darwin" and torch.backends.mps.is_available():
        device = "mps"
    else:
        device = "cpu"
except:
    device = "cpu"
model = torch.nn.Linear(2, 2).to(device)
"""


def rows(code: str, rule: str) -> list[tuple[int, str, str, str]]:
    return [(f.line, f.severity, f.migration, f.reach) for f in scan(code).findings if f.rule == rule]


def test_a_string_device_pick_with_a_platform_conjunct_is_dev104_auto_and_its_cuda_arm_runs():
    assert rows(STRING_PICK, "DEV220") == []
    assert rows(STRING_PICK, "DEV104") == [(4, "info", "auto", "runs")]
    assert [(line, reach) for line, _s, _m, reach in rows(STRING_PICK, "DEV001")] == [(5, "runs")]


def test_platform_helpers_and_indexed_names_are_the_same_pick():
    code = STRING_PICK.replace('sys.platform == "darwin"', 'platform.system() == "Darwin"').replace(
        "import sys", "import platform").replace('"cuda"', '"cuda:0"')
    assert rows(code, "DEV220") == []
    assert rows(code, "DEV104") == [(4, "info", "auto", "runs")]


def test_a_conjunct_that_is_no_platform_test_keeps_dev220_and_the_cuda_arm_other_backend():
    code = STRING_PICK.replace('sys.platform == "darwin"', "args.use_mps")
    assert rows(code, "DEV220") == [(4, "medium", "rewrite", "runs")]
    assert [(line, reach) for line, _s, _m, reach in rows(code, "DEV001")] == [(5, "other-backend")]


def test_an_arm_that_also_sets_something_else_or_a_returned_string_keeps_dev220():
    more = STRING_PICK.replace('        device = "cuda"\n', '        device = "cuda"\n        workers = 4\n')
    assert [line for line, *_ in rows(more, "DEV220")] == [4]
    returned = """import torch
def get_device_type():
    if torch.cuda.is_available():
        return "cuda"
    elif torch.backends.mps.is_available():
        return "mps"
    return "cpu"
"""
    assert [line for line, *_ in rows(returned, "DEV220")] == [3]
    formatted = STRING_PICK.replace('device = "cuda"', 'device = f"cuda:{rank}"')
    assert [line for line, *_ in rows(formatted, "DEV220")] == [4]
