"""knowledge/availability.py against a small knowledge base written here, so that each answer follows from the rules
in its docstrings and not from the shipped tables (tests/test_kb_facts.py checks those)."""

from types import SimpleNamespace as NS

import pytest
from ascend_feasibility.knowledge import availability as av


def release(torch, torch_npu, line, profile="p"):
    return NS(torch=torch, torch_npu=torch_npu, branch=f"v{torch}-{line}", profile=profile)


R_OLD = release("2.1.0", "2.1.0.post3", "6.0.rc1")
R_MID = release("2.1.0", "2.1.0.post8", "6.0.0")
R_NEW = release("2.4.0", "2.4.0", "6.0.0")
R_LAST = release("2.5.1", "2.5.1", "7.0.0")


def kb(**operators):
    defaults = dict(op={}, aten={}, env_name=[], module_name=[], param_since={}, signature={})
    profile = NS(amp_all=["autocast"], random_all=["manual_seed"], npu_all=["synchronize", "memory_allocated"])
    return NS(operators=NS(**{**defaults, **operators}), profiles={"p": profile}, releases=[R_OLD, R_MID, R_NEW, R_LAST])


def test_release_lines_and_torch_minors():
    assert av.line_of("v2.1.0-6.0.rc2") == "6.0.rc2"
    assert av.line_of("v2.6.0-7.2.0-hotfix") == "7.2.0-hotfix"  # everything after the first dash
    assert av.torch_minor("v2.7.1") == "2.7"
    assert av.torch_minor("2.10.0") == "2.10"
    lines = ["7.0.0", "6.0.0", "6.0.rc3", "26.0.0", "6.0.rc2", "6.0.alpha"]
    # a part that is not a number (rc, alpha) sorts below every number of its place
    assert sorted(lines, key=av.line_key) == ["6.0.alpha", "6.0.rc2", "6.0.rc3", "6.0.0", "7.0.0", "26.0.0"]


def test_proposed_names_in_order_with_environment_names_and_operator_keywords():
    text = ("export HCCL_CONNECT_TIMEOUT=1200, then call torch_npu.npu_rotary_mul(q, cos, rotary_mode=mode) "
            "and torch.npu.synchronize()")
    assert av.proposed_names(text) == ["HCCL_CONNECT_TIMEOUT", "npu_rotary_mul", "npu_rotary_mul(rotary_mode=…)",
                                       "torch.npu.synchronize"]
    assert av.proposed_names("") == []
    assert av.proposed_names("use npu_fusion_attention") == ["npu_fusion_attention"]  # the name ends the text


@pytest.mark.parametrize(("text", "keywords"), [
    ("npu_x and y(a=1)", []),  # no call follows the operator
    ("see f(v) and npu_x(q, k=1)", ["k"]),  # parentheses before the operator are not its call
    ("npu_x(f(a=1), [b], k=2)", ["k"]),  # keywords of nested calls are not the operator's
    ("npu_x(q) if ready, k=2", []),  # the call ends at its closing parenthesis
    ("npu_x(a == b, c != d, e <= f, k=1)", ["k"]),  # comparisons are not keywords
    ("npu_x(X, sizeX=2)", ["sizeX"]),
    ("npu_x(k=<value>)", ["k"]),
])
def test_operator_keywords_are_the_calls_own(text, keywords):
    assert av.proposed_names(text) == ["npu_x", *(f"npu_x({k}=…)" for k in keywords)]


def test_operators_and_their_keywords_by_line_and_torch():
    base = kb(op={"npu_x": {"6.0.0": "2.1,2.4-2.5"}, "npu_y": {"6.0.0": "2.1-2.5"}},
              signature={"npu_x": ["mode", "scale"]}, param_since={"npu_x": {"scale": "7.0.0"}})
    assert av.has(base, "npu_x", R_MID) and av.has(base, "torch_npu.npu_x", R_NEW)
    assert not av.has(base, "npu_x", R_OLD)  # no ranges on its line
    assert av.has(base, "npu_x(mode=…)", R_NEW)
    assert not av.has(base, "npu_x(scale=…)", R_NEW)  # a parameter its line lacks
    assert not av.has(base, "npu_y(mode=…)", R_NEW)  # an operator without a known signature
    assert not av.has(base, "npu_x(other=…)", R_NEW)
    assert av.missing_at(base, ["npu_x(mode=…)", "npu_x", "torch.npu.synchronize"], R_OLD) == ["npu_x"]


def test_fused_kernels_by_the_aten_table():
    base = kb(aten={"_fused_adamw_": {"6.0.0": "2.4"}})
    assert av.kernel_releases(base, "_fused_adamw_") == [R_NEW]
    assert not av.has_kernel(base, "_fused_sgd_", R_NEW)


def test_first_release_prefers_the_same_torch_then_the_oldest_newer_one():
    base = kb(op={"npu_a": {"6.0.rc1": "2.1", "6.0.0": "2.1"}, "npu_b": {"6.0.0": "2.4", "7.0.0": "2.5"},
                  "npu_c": {"6.0.rc1": "2.1"}, "npu_d": {"6.0.rc1": "2.1", "6.0.0": "2.4"}})
    assert av.first_release(base, "npu_a", "2.1.0") is R_OLD
    assert av.first_release(base, "npu_b", "2.1.0") is R_NEW
    assert av.first_release(base, "npu_d", "2.4.0") is R_NEW  # the same torch before an older torch's release
    assert av.first_release(base, "npu_d", "2.1") is R_NEW  # newer than 2.1: 2.4.0, not the version-equal 2.1.0
    assert av.first_release(base, "npu_c", "2.5.1") is R_OLD  # none newer: the oldest that has it
    assert av.first_release(base, "npu_none", "2.1.0") is None


def test_first_line_only_when_every_later_release_has_the_name_and_no_earlier_one():
    base = kb(op={"npu_all": {line: "2.1-2.5" for line in ("6.0.rc1", "6.0.0", "7.0.0")},
                  "npu_late": {"7.0.0": "2.5"}, "npu_gap": {"6.0.rc1": "2.1", "7.0.0": "2.5"}})
    assert av.first_line(base, "npu_late") == "7.0.0"
    assert av.first_line(base, "npu_all") is None  # every release has it: no line to name
    assert av.first_line(base, "npu_gap") is None  # an earlier release has it too


def test_npu_names_by_listing_and_profile():
    base = kb(module_name=[NS(name="torch.npu.mstx", since_line="6.0.0"),
                           NS(name="torch.npu.mstx.range_push", since_line="6.0.rc1"),
                           NS(name="torch.npu.mstx.domain", since_line="7.0.0"),
                           NS(name="torch.npu.mstx.domain.push", since_line="6.0.0")])
    assert not av.has(base, "torch.npu.mstx.range_push", R_OLD)  # listed, but its module comes later
    assert av.has(base, "torch_npu.npu.mstx.range_push", R_MID)  # on the module's own first line
    assert not av.has(base, "torch.npu.mstx.domain.push", R_NEW)  # a deeper prefix comes later still
    assert av.has(base, "torch.npu.mstx.domain.push", R_LAST)
    assert av.has(base, "torch.npu.amp.autocast", R_OLD) and av.has(base, "torch.npu.amp", R_OLD)
    assert not av.has(base, "torch.npu.amp.autocast.cache", R_OLD)
    assert av.has(base, "torch.npu.random.manual_seed", R_OLD)
    assert not av.has(base, "torch.npu.random.manual_seed.x", R_OLD)
    assert av.has(base, "torch.npu.memory.memory_allocated", R_OLD)
    assert not av.has(base, "torch.npu.memory.missing", R_OLD)
    assert av.has(base, "torch.npu.synchronize", R_OLD) and not av.has(base, "torch.npu.synchronize.x", R_OLD)


def test_environment_names_by_their_first_line():
    base = kb(env_name=[NS(name="TORCH_NPU_X", since_line="7.0.0"), NS(name="HCCL_Y", since_line="")])
    assert av.has(base, "TORCH_NPU_X", R_LAST) and not av.has(base, "TORCH_NPU_X", R_NEW)
    assert not av.has(base, "HCCL_Y", R_LAST)  # listed without a line: no release reads it
    assert av.has(base, "HCCL_SOCKET_IFNAME", R_OLD)  # read by CANN itself
