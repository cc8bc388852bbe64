"""The generated operator table (knowledge/torch_npu/ops.toml) and the generator that reads op-plugin's yaml."""

import pytest
from ascend_feasibility.knowledge import availability, load_knowledge
from ascend_feasibility.knowledge.generate_ops import (
    OpFacts,
    collapse,
    op_params,
    ops_of_per_version,
    ops_of_unified,
    param_since,
    parse_spec,
    release_lines,
)

KB = load_knowledge()
ALL = ["v2.1", "v2.2", "v2.3", "v2.4", "v2.5"]

UNIFIED = """
all_version: [v2.1, v2.2, v2.3, v2.4, v2.5]
official:
  - func: abs(Tensor self) -> Tensor
    op_api: all_version
custom:
  - func: npu_new_op(Tensor self, int[]? sizes=None, *, str mode='half') -> Tensor
    op_api: [v2.3, newest]
  - func: npu_new_op.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
    op_api: [v2.3, newest]
  - func: npu_gap(Tensor self) -> Tensor
    acl_op: v2.1, v2.2
    op_api: [v2.4, v2.5]
  - func: _npu_private(Tensor self) -> Tensor
    op_api: all_version
quant:
  - func: npu_quant_thing(Tensor self) -> Tensor
    op_api: [v2.1, v2.2]
"""


@pytest.mark.parametrize(
    "spec, versions",
    [
        ("all_version", ["2.1", "2.2", "2.3", "2.4", "2.5"]),
        (["v2.3", "newest"], ["2.3", "2.4", "2.5"]),
        (["v2.1", "v2.2"], ["2.1", "2.2"]),
        ("v2.1, v2.4", ["2.1", "2.4"]),
        (None, []),
    ],
)
def test_version_specs(spec, versions):
    assert parse_spec(spec, ALL) == versions


def test_a_spec_naming_an_unknown_version_is_refused():
    with pytest.raises(ValueError):
        parse_spec("v1.5", ALL)


def test_unified_yaml_custom_and_quant_sections_without_private_or_official_ops():
    ops = ops_of_unified(UNIFIED)
    assert {name: facts.versions for name, facts in ops.items()} == {
        "npu_new_op": {"2.3", "2.4", "2.5"}, "npu_gap": {"2.1", "2.2", "2.4", "2.5"}, "npu_quant_thing": {"2.1", "2.2"},
    }
    assert ops["npu_new_op"].params == {"self", "sizes", "mode"}  # the .out overload adds nothing
    assert collapse(ops["npu_gap"].versions, ["2.1", "2.2", "2.3", "2.4", "2.5"]) == "2.1-2.2,2.4-2.5"


def test_parameter_names_of_a_schema():
    schema = "npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str rotary_mode='half', int[2] pair=[1, 2]) -> Tensor"
    assert op_params(schema) == {"self", "r1", "r2", "rotary_mode", "pair"}


def test_a_parameter_is_dated_from_the_line_after_which_every_line_has_it():
    old, new = OpFacts({"2.1"}, {"self", "r1"}), OpFacts({"2.1"}, {"self", "r1", "rotary_mode"})
    assert param_since([old, None, new, new], ["6.0.0", "6.0.rc3", "7.0.0", "7.1.0"]) == {"rotary_mode": "7.0.0"}
    assert param_since([new, old], ["7.0.0", "7.1.0"]) == {}  # dropped again: the newest signature leaves it out


def test_per_version_folders_of_the_old_lines():
    files = {"v2r1": "custom:\n  - func: npu_a(Tensor self) -> Tensor\n", "v2r2": "custom:\n  - func: npu_b(Tensor self) -> Tensor\n"}
    assert {name: facts.versions for name, facts in ops_of_per_version(files).items()} == {"npu_a": {"2.1"}, "npu_b": {"2.2"}}


def test_the_table_covers_every_release_line():
    assert set(KB.operators.line_commit) == set(release_lines())
    assert len(release_lines()) == len({availability.line_of(r.branch) for r in KB.releases})


def test_a_release_has_an_operator_only_for_its_own_torch_version():
    by_torch_npu = {r.torch_npu: r for r in KB.releases}
    # op-plugin 6.0.rc2 ships npu_fused_infer_attention_score in its v2r1 folder only
    assert availability.has(KB, "npu_fused_infer_attention_score", by_torch_npu["2.1.0.post6"])
    assert not availability.has(KB, "npu_fused_infer_attention_score", by_torch_npu["2.3.1"])
    assert not availability.has(KB, "npu_no_such_operator", by_torch_npu["2.12.0"])


def test_keyword_arguments_are_dated_by_line():
    by_torch_npu = {r.torch_npu: r for r in KB.releases}
    name = "npu_rotary_mul(rotary_mode=…)"
    assert not availability.has(KB, name, by_torch_npu["2.1.0.post10"])  # 6.0.0: npu_rotary_mul(self, r1, r2)
    assert availability.has(KB, name, by_torch_npu["2.1.0.post12"])  # 7.0.0 adds rotary_mode
    assert not availability.has(KB, "npu_rotary_mul(no_such_keyword=…)", by_torch_npu["2.12.0"])


def test_the_aten_table_reads_the_fused_optimizer_kernels_of_the_official_section():
    text = UNIFIED.replace(
        "official:\n",
        "official:\n  - func: _fused_adamw_(Tensor(a!)[] self, Tensor(b!)[] grads) -> ()\n    op_api: v2.1, v2.2\n"
        "  - func: _fused_moving_avg_obs_fq_helper(Tensor self) -> (Tensor output, Tensor mask)\n    op_api: all_version\n",
    )
    assert {name: facts.versions for name, facts in ops_of_unified(text, aten=True).items()} == {"_fused_adamw_": {"2.1", "2.2"}}
    assert "_fused_adamw_" not in ops_of_unified(text)  # the operator table keeps custom and quant only
    files = {"v2r1": "official:\n - func: _fused_adamw_(Tensor(a!)[] self) -> ()\n", "v2r3": "official:\n - func: abs(Tensor self) -> Tensor\n"}
    assert {name: facts.versions for name, facts in ops_of_per_version(files, aten=True).items()} == {"_fused_adamw_": {"2.1"}}


def test_fused_adamw_is_registered_by_release_line_and_torch_version():
    by_torch_npu = {r.torch_npu: r for r in KB.releases}
    # op-plugin 6.0.rc3 registers _fused_adamw_ with `op_api: v2.1, v2.2`; 6.0.0 and later with all_version
    assert availability.has_kernel(KB, "_fused_adamw_", by_torch_npu["2.1.0.post8"])  # v2.1.0-6.0.rc3
    assert not availability.has_kernel(KB, "_fused_adamw_", by_torch_npu["2.3.1.post2"])  # v2.3.1-6.0.rc3
    assert not availability.has_kernel(KB, "_fused_adamw_", by_torch_npu["2.4.0"])  # v2.4.0-6.0.rc3
    assert availability.has_kernel(KB, "_fused_adamw_", by_torch_npu["2.12.0"])
    assert availability.kernel_releases(KB, "_fused_adam_") == []  # no line registers it
    assert availability.kernel_releases(KB, "_fused_sgd_") == []  # op-plugin master only, no release line yet
