"""A function named as a condition without a call (analyzer/context/function_objects.py): `if is_x_available:` is
always true, so the arms after it never run and its own arm runs wherever the code does; `if not f:` never runs.
A name the unit binds otherwise (assigned the call's result, a parameter, an upper-case constant) decides nothing."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.function_objects import function_names, may_be_function
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import scan

CHAIN = '''import torch.nn.functional as F
from somelib.utils import is_xformers_available
def attn(q, k, v):
    if {test}:
        import xformers.ops
        return xformers.ops.memory_efficient_attention(q, k, v)
    elif hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v)
    else:
        return F.scaled_dot_product_attention(q, k, v)
'''


def _reaches(code: str) -> dict[int, str]:
    return {f.line: f.reach for f in scan(code, "python").findings if f.rule in {"ATT010", "ATT020"}}


def test_uncalled_imported_helper_kills_the_later_arms_and_its_arm_runs():
    findings = [f for f in scan(CHAIN.format(test="is_xformers_available"), "python").findings
                if f.rule in {"ATT010", "ATT020"}]
    reaches = {f.line: f.reach for f in findings}
    assert reaches == {6: "runs", 8: "dead-at-target", 10: "dead-at-target"}
    assert all("names a function and is not called" in f.reach_reason for f in findings if f.line != 6)


def test_negated_uncalled_helper_kills_its_own_arm():
    reaches = _reaches(CHAIN.format(test="not is_xformers_available"))
    assert reaches[6] == "dead-at-target" and reaches[8] == "runs" and reaches[10] == "runs"


def test_uncalled_module_level_function_of_the_unit():
    code = CHAIN.replace("from somelib.utils import is_xformers_available\n",
                         "def xformers_ok():\n    return False\n").format(test="(xformers_ok)")
    reaches = _reaches(code)
    assert reaches[7] == "runs" and reaches[9] == "dead-at-target" and reaches[11] == "dead-at-target"


@pytest.mark.parametrize("code", [
    CHAIN.format(test="is_xformers_available()"),  # called: an ordinary availability gate
    CHAIN.replace("def attn", "is_xformers_available = is_xformers_available()\ndef attn").format(
        test="is_xformers_available"),  # rebound to the call's result: a boolean
    CHAIN.replace("def attn(q, k, v)", "def attn(q, k, v, is_xformers_available=False)").format(
        test="is_xformers_available"),  # a parameter shadows the import
    CHAIN.replace("is_xformers_available", "XFORMERS_IS_AVAILABLE").format(test="XFORMERS_IS_AVAILABLE"),  # a constant
    CHAIN.replace("is_xformers_available", "xformers_enabled").format(test="xformers_enabled"),  # no helper's shape
])
def test_names_bound_otherwise_decide_nothing_here(code):
    reaches = _reaches(code)
    assert "dead-at-target" not in reaches.values(), reaches
    assert reaches[max(reaches)] == "runs"


@pytest.mark.parametrize("source, expected", [
    (b"def   helper():\n    pass\nif helper:\n    pass\n", True),  # blanks between `def` and the name
    (b"async def helper():\n    pass\n", True),
    (b"def \\\n  helper():\n    pass\n", True),  # a line continuation
    (b"helper = None\nif helper:\n    pass\n", False),  # named, never defined by `def`
    (b"undef helper\n", True),  # a loose test: the walk decides
])
def test_may_be_function_is_false_only_where_no_def_can_define_the_name(source, expected):
    assert may_be_function("helper", source, frozenset({"is_"}), frozenset({"_available"})) is expected
    assert may_be_function("is_x_available", b"", frozenset({"is_"}), frozenset({"_available"}))  # helper-shaped


def test_may_be_function_keeps_every_name_function_names_finds():
    source = b"def a():\n    pass\nasync def  b():\n    pass\nfrom m import is_c_available\nif a:\n    pass\n"
    prefixes, suffixes = frozenset({"is_"}), frozenset({"_available"})
    names = function_names(parsing.parse("python", source), prefixes, suffixes)
    assert names == {"a", "b", "is_c_available"}
    assert all(may_be_function(name, source, prefixes, suffixes) for name in names)
