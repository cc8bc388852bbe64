"""A parameter's device-string default that the function never uses as a device is no device string to port
(domains/device/unread_parameters.py): lmms-eval's model constructors default `device_map="cuda:0"`, test it only
with `device_map == "auto"` and build their own `f"cuda:{i}"` in every arm (round 24 A1 C2, A2 C1)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

WRAPPER = (
    "import torch\n\n\n"
    "class Model:\n"
    '    def __init__(self, rank, ranks,\n'
    '                 device="cuda:0",\n'  # line 6
    '                 device_map="cuda:0"):\n'  # line 7
    "        if ranks > 1:\n"
    '            self._device = torch.device(f"cuda:{rank}")\n'
    '        elif device_map == "auto":\n'
    "            self._device = torch.device(device)\n"
    "        else:\n"
    '            self._device = torch.device(f"cuda:{rank}")\n'
)


def _dev001(tmp_path, source: str) -> set[int]:
    root = write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/model.py": source})
    return {f.line for f in analyze(root, AnalyzeOptions(jobs=1)).findings
            if f.rule == "DEV001" and f.path == "pkg/model.py" and f.line < 8}


def test_a_default_only_compared_with_a_sentinel_is_no_device_string(tmp_path):
    # device_map's default only picks the else arm; device is handed to torch.device in the "auto" arm: it stays
    assert _dev001(tmp_path, WRAPPER) == {6}


@pytest.mark.parametrize("test, dropped", [
    ('device_map in ("auto", "balanced_low_0")', True),
    ("device_map is None", True),
    ('device_map != ""', True),
    ('"cuda" in device_map', False),  # the value itself is tested: "npu:0" takes the other arm
    ('device_map == "cuda:0"', False),
    ("device_map == DEFAULT", False),
    ('device_map.startswith("auto")', False),
])
def test_which_comparisons_leave_the_default_unused(tmp_path, test, dropped):
    found = _dev001(tmp_path, WRAPPER.replace('device_map == "auto"', test))
    assert (7 not in found) is dropped
    assert 6 in found


def test_a_line_with_a_used_default_keeps_its_finding(tmp_path):
    # findings are placed by line, one a rule: the unused device_map must not take the used device's finding along
    one_line = WRAPPER.replace(",\n                 device=", ", device=").replace(",\n                 device_map=",
                                                                                  ", device_map=")
    assert _dev001(tmp_path, one_line) == {5}


@pytest.mark.parametrize("body, dropped", [
    ("        return rank\n", True),  # never read
    ("        device = pick(rank)\n        return torch.device(device)\n", True),  # rebound before any read
    ("        return torch.device(device)\n", False),
    ("        if rank:\n            device = pick(rank)\n        return torch.device(device)\n", False),  # not on every path
    ("        device = device or pick(rank)\n        return device\n", False),  # the rebinding reads it
    ("        return dict(locals())\n", False),  # every parameter read by name
    ("        return lambda: device\n", False),
    ('        return f"{device}"\n', False),
])
def test_a_default_never_read_or_rebound_first(tmp_path, body, dropped):
    source = 'import torch\n\n\ndef place(rank, device: str = "cuda:0"):\n' + body
    root = write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/model.py": source})
    found = [f for f in analyze(root, AnalyzeOptions(jobs=1)).findings if f.rule == "DEV001" and f.line == 4]
    assert (not found) is dropped
