"""The classes whose flags switch off outside CUDA (analyzer/context/device_off_switches.py), on parsed snippets: a
class is walked only when it assigns False or None to a `self.<name>`, which every gate and every value `__init__`
leaves a flag at is."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import device_off_switches as dos
from ascend_feasibility.analyzer.reading import parsing

GATED = '''class Snapshot:
    def init(self, device):
        if device.type != "cuda":
            warnings.warn("snapshots need CUDA")
            self._enabled = False
'''


def cls(code: str):
    root = parsing.parse("python", code.encode())
    return next(node for node in root.named_children if node.type == "class_definition")


def cuda_only(condition, negated):
    return True  # every test excludes the NPU here: what is read is the walk, not the test


@pytest.mark.parametrize("code", [
    "class A:\n    def f(self):\n        self.x = 1\n        y = None\n",  # no self flag set off
    "class A:\n    def f(self):\n        self.a.b = None\n        self.c = True\n",  # an attribute's attribute
    "class A:\n    def f(self, x=None):\n        if x is None:\n            self.x = x\n",  # None read, never assigned
])
def test_a_class_that_sets_no_flag_off_is_not_walked(monkeypatch, code):
    def fail(*args, **kwargs):
        raise AssertionError("walked")

    monkeypatch.setattr(parsing, "walk", fail)
    assert dos._device_off_switches(cls(code), cuda_only) == {}


def test_a_class_that_sets_a_flag_off_is_read():
    found = dos._device_off_switches(cls(GATED), cuda_only)
    assert list(found) == ["_enabled"] and found["_enabled"][2] == "False"
    assert dos._sets_off(cls(GATED.replace("= False", ": bool = False")))  # annotated
    assert not dos._sets_off(cls(GATED.replace("= False", "= 0")))
