"""The device room's dispatch-chain scan (domains/device/dispatch.py) reads a chain only from an `if` that can hold
two arms: one with an `elif`, or the first of a run of separate backend `if`s. A lone `if`, or an `if ... else`, has
one condition, and a chain needs two arms that name a backend."""

from __future__ import annotations

from ascend_feasibility.domains.device import dispatch

from tests.helpers import scan

CODE = '''import torch
if torch.xpu.is_available():
    device = "xpu"
if torch.backends.mps.is_available():
    device = "mps"
else:
    device = "cpu"
if torch.cuda.is_available():
    stream = torch.cuda.Stream()
elif torch.xpu.is_available():
    stream = torch.xpu.Stream()
def pick():
    if torch.cuda.is_available():
        return "cuda"
    if torch.xpu.is_available():
        return "xpu"
'''


def test_only_ifs_that_can_hold_two_arms_are_read_as_chains(monkeypatch):
    read, original = [], dispatch.dispatch_chain

    def recording(statement, backends):
        read.append(statement.start_point.row + 1)
        return original(statement, backends)

    monkeypatch.setattr(dispatch, "dispatch_chain", recording)
    found = sorted(f.line for f in scan(CODE).findings if f.rule == "DEV220")
    assert read == [8, 13]  # the if/elif chain, and the run of two separate ifs from its first member
    assert found == [8, 13]


def test_a_lone_backend_if_and_an_if_else_are_no_chain():
    lone = 'import torch\nif torch.xpu.is_available():\n    device = "xpu"\n'
    with_else = 'import torch\nif torch.cuda.is_available():\n    device = "cuda"\nelse:\n    device = "xpu"\n'
    assert "DEV220" not in [f.rule for f in scan(lone).findings]
    assert "DEV220" not in [f.rule for f in scan(with_else).findings]
