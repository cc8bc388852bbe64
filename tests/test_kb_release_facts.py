"""Issue 24: advice that keeps the call's meaning at the release the user runs. Each fact names the release branch
and path it was read from (Ascend/pytorch release branches, Ascend/op-plugin release-line branches)."""

from __future__ import annotations

import pytest
from ascend_feasibility.knowledge import availability, load_knowledge

from tests.helpers import analyze_snippet_project, scan

KB = load_knowledge()


def _render(snippet: str, rule: str, target: str = "2.12.0"):
    return next(f for f in scan(snippet, torch_npu=target).findings if f.rule == rule)


def test_1_mstx_ranges_are_gated_by_release():
    """Ascend/pytorch torch_npu/npu/mstx.py: range_push/range_pop on v2.12.0-26.1.0 (every 26.1.0 branch), absent
    on v2.9.0-26.0.0 and v2.9.0-7.3.0; range_start/range_end from v2.1.0-6.0.rc3; v2.1.0-6.0.rc2 has only an
    instance method mark(self, message)."""
    by = {r.torch_npu: r for r in KB.releases}
    assert availability.has(KB, "torch_npu.npu.mstx.range_push", by["2.12.0"])
    assert not availability.has(KB, "torch_npu.npu.mstx.range_push", by["2.9.0"])
    assert availability.has(KB, "torch_npu.npu.mstx.range_start", by["2.1.0.post8"])
    assert not availability.has(KB, "torch_npu.npu.mstx.range_start", by["2.1.0.post6"])
    assert not availability.has(KB, "torch_npu.npu.mstx.mark", by["2.1.0.post6"])
    assert not availability.has(KB, "torch_npu.npu.mstx.no_such_member", by["2.12.0"])  # a chain nobody listed
    snippet = "import torch\ntorch.cuda.nvtx.range_push('fwd')"
    at_2_9 = _render(snippet, "DEV130", "2.9.0")
    assert "`torch_npu.npu.mstx.range_push` (from torch_npu 2.9.0.post6, branch v2.9.0-26.1.0)" in at_2_9.message.en
    assert "range_start" in at_2_9.replacement.en and "range_start" in at_2_9.replacement.zh
    assert at_2_9.replacement.code is None
    assert _render(snippet, "DEV130").replacement.code == "torch_npu.npu.mstx.range_push('fwd')"
    assert "26.1.0" in KB.packages["nvtx"].replacement.en and "26.1.0" in KB.packages["nvtx"].replacement.zh


def test_2_causal_conv1d_call_keeps_activation_and_weight_shape():
    """Dao-AILab/causal-conv1d causal_conv1d_interface.py: weight (dim, width), activation None/silu/swish;
    torch.nn.functional.conv1d needs a (dim, 1, width) weight for groups=dim."""
    snippet = "from causal_conv1d import causal_conv1d_fn\ny = causal_conv1d_fn(x, weight, bias, activation='silu')"
    result = analyze_snippet_project(snippet, "python")
    finding = next(f for f in result.findings if f.rule == "DEP030")
    assert finding.line == 2
    assert finding.replacement.code == (
        "torch.nn.functional.silu(torch.nn.functional.conv1d(torch.nn.functional.pad(x, (weight.shape[-1] - 1, 0)), "
        "weight.unsqueeze(1), bias, groups=weight.shape[0]))"
    )
    for text in (KB.packages["causal-conv1d"].replacement.en, KB.packages["causal-conv1d"].replacement.zh):
        assert "weight.unsqueeze(1)" in text and "silu" in text


def test_2_calls_into_any_replaced_package_are_flagged_from_the_packages_table():
    """Not one package: a call into any needs_replacement module (mamba_ssm here) is a DEP030 finding."""
    assert KB.packages["mamba-ssm"].classification == "needs_replacement"
    result = analyze_snippet_project("from mamba_ssm.ops.selective_scan_interface import selective_scan_fn\ny = selective_scan_fn(u, d)", "python")
    assert [f.line for f in result.findings if f.rule == "DEP030"] == [2]


def test_3_sdpa_runs_unfused_before_the_6_0_rc1_line():
    """Ascend/op-plugin op_plugin/config/v2r1/op_plugin_functions.yaml: branch 5.0.0 has no
    scaled_dot_product_attention entry; branch 6.0.rc1 registers it (impl_ns: op_api)."""
    snippet = "import torch.nn.functional as F\ny = F.scaled_dot_product_attention(q, k, v, is_causal=True)"
    old = _render(snippet, "ATT020", "2.1.0")
    assert "unfused" in old.message.en and "未融合" in old.message.zh
    assert old.replacement.code.startswith("torch_npu.npu_fusion_attention(q, k, v, q.shape[1], \"BNSD\"")
    assert "sparse_mode=2" in old.replacement.code
    new = _render(snippet, "ATT020", "2.1.0.post4")
    assert "fused attention kernel" in new.message.en and new.replacement.code is None
    inference = _render("import torch\nimport torch.nn.functional as F\nwith torch.no_grad():\n    y = F.scaled_dot_product_attention(q, k, v)", "ATT020")
    assert "npu_fusion_attention" not in availability.proposed_names(inference.replacement.en)


def test_4_xformers_bias_is_carried_and_no_variable_is_invented():
    """op-plugin torch_npu-npu_fusion_attention.md: attention_out = Softmax(scale*(pse + q*kᵀ)); the inference
    operator's doc: softmax(scale*(q*kᵀ) + pse_shift)."""
    snippet = "import xformers.ops as xops\nout = xops.memory_efficient_attention(q, k, v, attn_bias=bias)"
    code = _render(snippet, "ATT010").replacement.code
    assert "pse=bias / (1.0 / math.sqrt(q.shape[-1]))" in code and "keep_prob=1.0" in code
    inference = _render("import torch\nimport xformers.ops as xops\nwith torch.no_grad():\n    o = xops.memory_efficient_attention(q, k, v, attn_bias=bias, scale=s)", "ATT010")
    assert "pse_shift=bias," in inference.replacement.code and "scale=s or" in inference.replacement.code


@pytest.mark.parametrize("snippet, rule", [
    ("import torch\nwith torch.autocast('cuda', dtype=torch.bfloat16):\n    pass", "DEV301"),
    ("import torch\nwith torch.cuda.amp.autocast(dtype=torch.bfloat16):\n    pass", "DEV140"),
])
def test_5_autocast_keeps_bfloat16(snippet, rule):
    assert "dtype=torch.bfloat16" in _render(snippet, rule).replacement.code


def test_6_the_flag_value_is_carried_and_advice_already_followed_is_not_repeated():
    assert _render("import torch\ntorch.backends.cudnn.deterministic = True", "DEV402").replacement.code == (
        "torch.use_deterministic_algorithms(True, warn_only=True)  # on the NPU path only; the cuDNN line stays for CUDA"
    )  # round 25 B1 C6: a global, raising use_deterministic_algorithms(True) asks more than the cuDNN flag did
    # False is PyTorch's own default: nothing to carry (round 21, prec24c)
    kept_default = _render("import torch\ntorch.backends.cudnn.deterministic = False", "DEV402")
    assert kept_default.replacement.code is None and kept_default.severity == "info"
    assert _render("import os\nos.environ['CUDA_LAUNCH_BLOCKING'] = '0'", "DEV202").replacement.code == "ASCEND_LAUNCH_BLOCKING=0"
    assert "=1" not in KB.rules["DEV202"].replacement.en
    both = "import torch\ntorch.use_deterministic_algorithms(True)\ntorch.backends.cudnn.deterministic = False"
    assert "DEV402" not in [f.rule for f in scan(both).findings]


def test_7_rope_says_the_tables_are_cast_to_the_input_dtype():
    """Ascend/op-plugin op_plugin/ops/opapi/RotaryMulKernelNpuOpApi.cpp (26.1.0, also 7.0.0): with mixed dtypes r1
    and r2 are cast to self.scalar_type()."""
    rule = KB.rules["PRC030"]
    assert "keeping the tables float32" not in rule.replacement.en
    assert "casts cos and sin to the input's dtype" in rule.replacement.en and ".type_as(x)" in rule.replacement.en
    assert "转成输入的 dtype" in rule.replacement.zh


def test_8_the_6_0_rc1_releases_are_in_the_table():
    """Ascend/pytorch COMPATIBILITY.en.md (master): 2.2.0 / v2.2.0-6.0.rc1 and 2.1.0.post4 / v2.1.0-6.0.rc1,
    CANN 8.0.RC1."""
    by = {r.torch_npu: r for r in KB.releases}
    assert (by["2.2.0"].branch, by["2.2.0"].cann) == ("v2.2.0-6.0.rc1", "8.0.RC1")
    assert (by["2.1.0.post4"].branch, by["2.1.0.post4"].cann) == ("v2.1.0-6.0.rc1", "8.0.RC1")
    assert "6.0.rc1" in KB.operators.line_commit
    assert KB.resolve_target("2.2.0").note is None


@pytest.mark.parametrize("code", ["DST031", "DST032", "DST033"])
def test_9_examples_show_spellings_a_release_reads(code):
    """Ascend/pytorch torch_npu/csrc on every release branch reads HCCL_*; TORCH_HCCL_BLOCKING_WAIT only from the
    v*-26.1.0 branches, the other two TORCH_HCCL_ spellings on no release branch."""
    for group in KB.rules[code].examples:
        for snippet in (case.code for case in group.valid + group.invalid):
            for name in availability.ENV_NAME.findall(snippet):
                assert all(availability.has(KB, name, r) for r in KB.releases), f"{code}: {name} in {snippet!r}"
    by = {r.torch_npu: r for r in KB.releases}
    assert availability.has(KB, "TORCH_HCCL_BLOCKING_WAIT", by["2.12.0"])
    assert not availability.has(KB, "TORCH_HCCL_BLOCKING_WAIT", by["2.10.0.post2"])
    assert availability.releases_with(KB, "TORCH_HCCL_DESYNC_DEBUG") == []


def test_sample_p2p_buffer_size_is_gated_from_the_6_0_rc2_line():
    """Found while checking DST023 in the fact sample: Ascend/pytorch torch_npu/csrc/core/npu/register/
    OptionsManager.cpp reads P2P_HCCL_BUFFSIZE from v2.1.0-6.0.rc2 on, not on v2.1.0-6.0.rc1 or v2.1.0-5.0.0."""
    snippet = "import torch.distributed as dist\nreqs = dist.batch_isend_irecv(ops)"
    assert "`P2P_HCCL_BUFFSIZE` (from torch_npu 2.1.0.post6, branch v2.1.0-6.0.rc2)" in _render(snippet, "DST023", "2.1.0").message.en
    assert "Not in torch_npu" not in _render(snippet, "DST023", "2.1.0.post6").message.en


def test_multi_processor_count_is_filled_from_the_26_0_0_line():
    """Ascend/pytorch torch_npu/csrc/npu/Module.cpp: initDeviceProperty sets multi_processor_count = vector_core_num
    (cube_core_num where that is 0) on every v*-26.0.0 and v*-26.1.0 branch (v2.12.0-26.1.0:253-263,
    v2.7.1-26.0.0:226-231); v*-7.2.0 and v*-7.3.0 bind it but never set it (None); before 7.2.0 _NPUDeviceProperties
    binds only name and total_memory (v2.6.0-7.1.0:53-68), so the attribute does not exist."""
    snippet = "import torch\nsms = torch.cuda.get_device_properties(0).multi_processor_count"
    by_line = {"2.12.0": "v2.12.0-26.1.0", "2.7.1.post4": "v2.7.1-26.0.0", "2.9.0": "v2.9.0-7.3.0",
               "2.1.0.post17": "v2.1.0-7.2.0", "2.6.0": "v2.6.0-7.1.0"}
    assert {target: KB.resolve_target(target).release.branch for target in by_line} == by_line
    filled = [_render(snippet, "DEV122", target) for target in ("2.12.0", "2.7.1.post4")]
    for finding in filled:
        assert (finding.severity, finding.migration) == ("info", "auto")
        assert "vector-core count" in finding.message.en and "vector core 数" in finding.message.zh
        assert "cube_core_num" in finding.replacement.en and "No change" in finding.replacement.en
    empty = _render(snippet, "DEV122", "2.9.0")
    assert (empty.severity, empty.migration) == ("high", "rewrite")
    assert "is None" in empty.message.en and "vector_core_num" in empty.replacement.en
    assert _render(snippet, "DEV122", "2.1.0.post17").message.en == empty.message.en
    missing = _render(snippet, "DEV122", "2.6.0")
    assert (missing.severity, missing.migration) == ("high", "rewrite") and "AttributeError" in missing.message.en
    assert "7.2.0 line or later" in missing.replacement.en
    # the properties call on its own line: DEV121's list of filled fields follows the line too
    call = "import torch\nprops = torch.cuda.get_device_properties(0)"
    assert "multi_processor_count (set to the vector-core count)" in _render(call, "DEV121", "2.12.0").message.en
    assert "major, minor and multi_processor_count come back None" in _render(call, "DEV121", "2.9.0").message.en
    assert "only name and total_memory" in _render(call, "DEV121", "2.6.0").message.en
    # name and total_memory are filled on every release: the filled-fields variant holds at every line
    memory = "import torch\ntotal = torch.cuda.get_device_properties(0).total_memory"
    assert {_render(memory, "DEV121", target).severity for target in by_line} == {"info"}


def _rule_texts(rule):
    texts = [rule.message]
    if rule.replacement is not None:
        texts.append(rule.replacement)
    texts += [v.message for v in (rule.at_release or []) if getattr(v, "message", None)]
    texts += [v.replacement for v in (rule.at_release or []) if getattr(v, "replacement", None)]
    return texts


def test_float64_on_the_npu_is_told_one_way_in_every_rule():
    """Ascend/pytorch torch_npu/csrc/aten/common/ToKernelNpu.cpp (v2.1.0-6.0.rc2 :127-145, v2.9.0-7.3.0 :153-170,
    v2.12.0-26.1.0 :35-45): only a dtype-only cast of an NPU tensor to double is replaced by float; factories
    and moves keep float64 (OpPreparation.cpp makes double tensors in the base format; torch.npu exports
    DoubleTensor). ProcessGroupHCCL.cpp checkSupportedDataType (every branch): reductions reject float64,
    broadcast and all_gather carry it. A rule that says float64 becomes float32, or that the NPU has none, must
    say it is the dtype-only cast."""
    said = []
    for code, rule in KB.rules.items():
        for text in _rule_texts(rule):
            en = text.en.lower()
            if any(k in en for k in ("replaced by float32", "becomes float32", "gives float32", "no float64")):
                said.append(code)
                assert "dtype-only" in en, (code, text.en)
                assert "只指定 dtype" in text.zh, (code, text.zh)
    assert {"PRC001", "PRC006", "PRC040", "PRC041"} <= set(said)
    for code in ("PRC001", "PRC040"):
        en = KB.rules[code].message.en
        assert "made with it on the device" in en and "reject float64" in en
        assert "HCCL" in KB.rules[code].message.zh
    assert "rejects float64 in its reducing collectives" in KB.rules["PRC043"].message.en
    assert "broadcast and all_gather accept float64" in KB.rules["PRC043"].replacement.en
    assert all("DoubleTensor" in KB.profiles[r.profile].npu_all for r in KB.releases)
