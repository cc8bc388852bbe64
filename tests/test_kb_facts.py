"""Facts of the knowledge base checked against the release data it carries: every torch.npu name and torch_npu
operator a replacement proposes exists (and its gaps are reported), replacement code parses, inference replacements
name no training-only operator. Also pins the corrections of issue 13, each against the fact that shows it."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import availability, load_knowledge

from tests.helpers import scan

KB = load_knowledge()
DEFAULT = next(r for r in KB.releases if r.torch_npu == KB.default_release)
SAMPLE_NPU = "torch.npu.synchronize"


def _proposing_texts():
    """(where, text) for every knowledge text that proposes a replacement."""
    for rule in KB.rules.values():
        for label, replacement in (("replacement", rule.replacement), ("replacement_inference", rule.replacement_inference)):
            if replacement is not None:
                yield f"{rule.code} {label}", replacement.en
                yield f"{rule.code} {label}", replacement.zh
                if replacement.code:
                    yield f"{rule.code} {label}.code", replacement.code
                for shape in replacement.shapes:
                    if shape.code:
                        yield f"{rule.code} {label}.shapes[{shape.names[0]}].code", shape.code
        yield f"{rule.code} message", rule.message.en
    for name, entry in KB.torch_cuda_api.items():
        if entry.npu:
            yield f"torch_cuda_api {name}", entry.npu
    for kernel in KB.kernel_classes:
        yield f"kernel class {kernel.name}", kernel.replacement.en
    for package in KB.packages.values():
        if package.replacement is not None:
            yield f"package {package.name}", package.replacement.en
        yield f"package {package.name} note", package.note.en
        for call in package.calls:
            yield f"package {package.name} call", " ".join(filter(None, (call.en, call.code)))


PROPOSED = sorted({(name, where) for where, text in _proposing_texts() for name in availability.proposed_names(text)})
NOT_OPERATORS = {entry.name for entry in KB.operators.not_operator}


@pytest.mark.parametrize("name, where", [p for p in PROPOSED if p[0] not in NOT_OPERATORS])
def test_every_proposed_name_exists_at_the_default_release(name, where):
    if where.endswith("message") and availability.is_env_name(name):
        return  # a message may name the spelling no release reads (TORCH_HCCL_DESYNC_DEBUG), to say so
    assert availability.has(KB, name, DEFAULT), f"{where} proposes {name}, which torch_npu {DEFAULT.torch_npu} lacks"


VARIANT_NAMES = sorted({
    (rule.code, index, name)
    for rule in KB.rules.values()
    for index, variant in enumerate(rule.at_release)
    for replacement in (variant.replacement, variant.replacement_inference) if replacement is not None
    for text in (replacement.en, replacement.code, *(s.code for s in replacement.shapes))
    for name in availability.proposed_names(text)
})


@pytest.mark.parametrize("code, index, name", VARIANT_NAMES)
def test_every_name_a_release_variant_proposes_exists_inside_its_range(code, index, name):
    from ascend_feasibility.analyzer.core.findings import in_range

    variant = KB.rules[code].at_release[index]
    inside = [r for r in KB.releases if in_range(variant, r)]
    assert any(availability.has(KB, name, r) for r in inside), f"{code} at_release[{index}] proposes {name}, absent in its range"


def test_the_proposed_names_are_found():
    names = {name for name, _ in PROPOSED}
    assert {"npu_fusion_attention", "npu_fused_infer_attention_score", "torch.npu.NPUGraph"} <= names
    assert "torch_npu.npu.use_compatible_impl" in names


def test_not_operator_words_are_in_no_release_of_the_table():
    assert NOT_OPERATORS and all(availability.releases_with(KB, name) == [] for name in NOT_OPERATORS)


def test_names_that_exist_nowhere_are_caught():
    assert availability.releases_with(KB, "torch.npu.ExternalStream") == []
    assert availability.releases_with(KB, "torch.npu.streams.ExternalStream") == []
    assert availability.releases_with(KB, "npu_flash_attention") == []


def test_gaps_are_release_data_not_guesses():
    """The issue's counts: names missing on older releases, read from each release's torch_npu.npu.__all__."""
    by_torch_npu = {r.torch_npu: r for r in KB.releases}
    assert not availability.has(KB, "torch.npu.NPUGraph", by_torch_npu["2.1.0.post10"])  # 6.0.0 line
    assert availability.has(KB, "torch.npu.NPUGraph", by_torch_npu["2.1.0.post12"])  # 7.0.0 line
    assert availability.first_line(KB, "torch.npu.graphs") == "7.0.0"
    assert availability.first_line(KB, "npu_scatter_pa_kv_cache") == "7.2.0"


def _filled(code: str) -> bytes:
    code = code.replace("{npu}", SAMPLE_NPU).replace("{symbol}", "x")
    return ("x" + code if code.startswith(".") else code).encode("utf-8")


PYTHON_CODES = [
    (rule.code, replacement.code)
    for rule in KB.rules.values()
    for replacement in (rule.replacement, rule.replacement_inference)
    if replacement is not None and replacement.code and not replacement.uses_site() and rule.examples[0].language == "python"
]  # codes rendered from a site's arguments are parsed as rendered, in tests/test_replacement_code.py


@pytest.mark.parametrize("code, text", PYTHON_CODES)
def test_replacement_code_parses(code, text):
    root = parsing.parse("python", _filled(text))
    assert not root.has_error, f"{code}: replacement code does not parse: {text}"


def test_the_parse_check_can_fail():
    assert parsing.parse("python", _filled("torch_npu.npu_fusion_attention(q, k, v,, 'BSND')")).has_error


TRAINING_ONLY = {entry.name for entry in KB.operators.training_only}


def _inference_replacements(rule):
    return [r for r in [rule.replacement_inference, *(v.replacement_inference for v in rule.at_release)] if r is not None]


@pytest.mark.parametrize("rule", [r for r in KB.rules.values() if _inference_replacements(r)], ids=lambda r: r.code)
def test_inference_replacements_name_no_training_only_operator(rule):
    for inference in _inference_replacements(rule):
        for text in (inference.en, inference.zh, inference.code, *(s.code for s in inference.shapes)):
            assert not TRAINING_ONLY & set(availability.proposed_names(text)), f"{rule.code}: {text}"


def test_training_only_operators_are_operators():
    assert TRAINING_ONLY and TRAINING_ONLY <= set(KB.operators.op)


# --- Version-gating texts in findings ---------------------------------------------------------------------


def _finding(snippet: str, rule: str, torch_npu: str):
    return next(f for f in scan(snippet, torch_npu=torch_npu).findings if f.rule == rule)


def test_a_replacement_missing_at_the_target_says_from_which_release_in_both_languages():
    finding = _finding("import torch\ng = torch.cuda.CUDAGraph()", "DEV111", "2.1.0.post10")
    assert "Not in torch_npu 2.1.0.post10: `torch.npu.NPUGraph` (from torch_npu 2.1.0.post12, branch v2.1.0-7.0.0)" in finding.message.en
    assert "torch_npu 2.1.0.post12 起提供" in finding.message.zh
    assert "Not in torch_npu" not in _finding("import torch\ng = torch.cuda.CUDAGraph()", "DEV111", "2.12.0").message.en


def test_use_compatible_impl_is_gated_to_the_7_3_line():
    snippet = "import torch.distributed as dist\ndist.all_to_all(outs, ins)"
    assert availability.first_line(KB, "torch_npu.npu.use_compatible_impl") == "7.3.0"
    assert "`torch_npu.npu.use_compatible_impl` (from torch_npu 2.6.0.post5" in _finding(snippet, "DST022", "2.6.0.post3").message.en
    assert "Not in torch_npu" not in _finding(snippet, "DST022", "2.6.0.post5").message.en


def test_an_operator_missing_at_the_target_is_reported():
    snippet = "from flash_attn import flash_attn_func\nimport torch\nwith torch.no_grad():\n    o = flash_attn_func(q, k, v)"
    finding = _finding(snippet, "ATT001", "2.1.0")  # v2.1.0-5.0.0: op-plugin 5.0.0 registers no fused infer attention
    assert finding.replacement.code.startswith("torch_npu.npu_fused_infer_attention_score(")
    # op-plugin 6.0.rc1 (v2r1/op_plugin_functions.yaml) registers it: torch_npu 2.1.0.post4 is the first release with it
    assert "`npu_fused_infer_attention_score` (from torch_npu 2.1.0.post4, branch v2.1.0-6.0.rc1)" in finding.message.en
    assert "Not in torch_npu" not in _finding(snippet, "ATT001", "2.1.0.post6").message.en


# --- Issue 13 corrections, each pinned to the fact that shows it ---------------------------------------------


def _call_keyword(code: str, keyword: str):
    root = parsing.parse("python", code.encode("utf-8"))
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "keyword_argument" and parsing.text(node.child_by_field_name("name")) == keyword:
            return node.child_by_field_name("value")
        stack.extend(node.children)
    return None


@pytest.mark.parametrize("code", ["ATT001", "ATT002", "ATT010"])
def test_1_fused_attention_scale_is_computed_explicitly(code):
    """npu_fusion_attention's scale is a float defaulting to 1.0 (op_plugin_functions.yaml `float scale=1.`): the
    rendered code passes 1/sqrt(head_dim) where the call leaves the scale to the library, the call's own otherwise."""
    call = {"ATT001": "flash_attn_func(q, k, v{})", "ATT002": "flash_attn_varlen_func(q, k, v, cq, ck, mq, mk{})",
            "ATT010": "memory_efficient_attention(q, k, v{})"}[code]
    keyword = "scale" if code == "ATT010" else "softmax_scale"
    module = "xformers.ops" if code == "ATT010" else "flash_attn"
    for extra, expected in (("", "1.0 / math.sqrt(q.shape[-1])"), (f", {keyword}=s", "s or 1.0 / math.sqrt(q.shape[-1])")):
        snippet = f"from {module} import {call.split('(')[0]}\nout = {call.format(extra)}"
        scale = _call_keyword(_finding(snippet, code, "2.12.0").replacement.code, "scale")
        assert scale is not None and parsing.text(scale) == expected
    assert "1.0" in KB.rules[code].message.en or "1.0" in KB.rules[code].replacement.en


@pytest.mark.parametrize("code", ["ATT001", "ATT002", "ATT004", "ATT010"])
def test_2_inference_replacements_use_the_inference_operator(code):
    inference = KB.rules[code].replacement_inference
    assert "npu_fused_infer_attention_score" in availability.proposed_names(inference.en)


def test_2_flash_attn_package_row_splits_training_and_inference():
    text = KB.package("flash-attn").replacement.en
    assert "for training" in text and "npu_fused_infer_attention_score for inference" in text


def test_3_autocast_keeps_float16_and_bf16_needs_910b():
    dev140 = KB.rules["DEV140"]
    code = _finding("import torch\nwith torch.cuda.amp.autocast():\n    pass", "DEV140", "2.12.0").replacement.code
    assert code == 'torch.autocast("npu", dtype=torch.float16)'
    for rule in (dev140, KB.rules["DEV301"]):
        assert "910B" in rule.message.en and "310P" in rule.message.en and "910B" in rule.message.zh


# the rotation that makes a complex view RoPE (domains/precision/rotary_use.py)
ROTATION = "\nout = torch.view_as_real(x * freqs_cis)"


def test_4_interleave_mode_is_gated_to_the_7_0_line():
    finding = _finding(f"import torch\nx = torch.view_as_complex(y){ROTATION}", "PRC030", "2.1.0.post10")
    assert "`npu_rotary_mul(rotary_mode=…)` (from torch_npu 2.1.0.post12, branch v2.1.0-7.0.0)" in finding.message.en


def test_4_complex_rope_keeps_the_pairing_its_reshape_makes():
    """reshape(..., -1, 2) pairs neighbours (interleave); reshape(..., 2, -1).transpose(-2, -1) pairs halves (llm-awq's
    tinychat qwen2.py: half mode, which every release has); a layout not read names both and how to tell them apart."""
    adjacent = _finding(f"import torch\nx = torch.view_as_complex(y.float().reshape(*y.shape[:-1], -1, 2)){ROTATION}", "PRC030",
                        "2.12.0")
    assert 'npu_rotary_mul(x, cos, sin, rotary_mode="interleave")' in adjacent.replacement.en
    assert "Wq/Wk" in adjacent.replacement.en and "adjacent" in adjacent.message.en
    halves = _finding(f"import torch\nx = torch.view_as_complex(y.float().reshape(*y.shape[:-1], 2, -1).transpose(-2, -1)){ROTATION}",
                      "PRC030", "2.1.0.post10")
    assert "torch.cat((freqs, freqs), -1)" in halves.replacement.en and "two halves" in halves.message.en
    assert 'rotary_mode="interleave")' not in halves.replacement.en and "repeat_interleave(2" not in halves.replacement.en
    assert "rotary_mode=…" not in halves.message.en  # half mode needs no release gate
    unread = _finding(f"import torch\nx = torch.view_as_complex(y){ROTATION}", "PRC030", "2.12.0")
    assert "repeat_interleave(2, -1)" in unread.replacement.en and "torch.cat((freqs, freqs), -1)" in unread.replacement.en
    assert "adjacent elements (x[..., 0::2]" not in unread.message.en


@pytest.mark.parametrize("code, variable", [("DST031", "HCCL_ASYNC_ERROR_HANDLING"), ("DST032", "HCCL_BLOCKING_WAIT"), ("DST033", "HCCL_DESYNC_DEBUG")])
def test_5_released_torch_npu_reads_the_hccl_spellings(code, variable):
    """OptionsManager.cpp on every release branch reads HCCL_*; TORCH_HCCL_* of these three are master-only
    (BLOCKING_WAIT from 26.1.0)."""
    finding = _finding(f"import os\nos.environ['{KB.rules[code].match.env_vars[0]}'] = '1'", code, "2.12.0")
    assert finding.replacement.code == f"{variable}=1"


def test_5_torch_hccl_twins_are_gated():
    rule = KB.rules["DST035"]
    assert "7.1.0" in rule.message.en and "ENABLE_TIMING" in rule.replacement.en


def test_6_streams_and_events_work_on_950dt_except_four_methods():
    message = KB.rules["DEV110"].message.en
    for method in ("wait_stream", "elapsed_time", "ipc_handle", "from_ipc_handle"):
        assert method in message
    assert "not supported on Ascend 950DT" not in message


def test_7_external_stream_has_no_npu_counterpart():
    for name in ("torch.cuda.ExternalStream", "torch.cuda.streams.ExternalStream"):
        entry = KB.cuda_api(name)
        assert entry.npu is None and entry.rule == "DEV135"


def test_8_causal_conv1d_goes_through_conv1d_on_a2_a3():
    text = KB.package("causal-conv1d").replacement.en
    assert text.startswith("A depthwise torch.nn.functional.conv1d") and "950PR/950DT" in text
    assert availability.first_line(KB, "npu_fused_causal_conv1d") == "26.0.0"


def test_9_device_mesh_constructor_is_auto_only_from_7_2():
    snippet = 'from torch.distributed.device_mesh import DeviceMesh, init_device_mesh\nm = init_device_mesh("cuda", (2,))\nd = DeviceMesh("cuda", [0, 1])'
    at_7_1 = [f.migration for f in scan(snippet, torch_npu="2.6.0").findings if f.rule == "DST006"]
    at_7_2 = [f.migration for f in scan(snippet, torch_npu="2.6.0.post3").findings if f.rule == "DST006"]
    assert at_7_1 == ["auto", "rewrite"] and at_7_2 == ["auto", "auto"]
    assert [f.migration for f in scan(snippet, torch_npu="2.1.0.post13").findings if f.rule == "DST006"] == ["rewrite", "rewrite"]


def test_11_mindspeed_keeps_cuda_device_max_connections():
    rule = KB.rules["DEV209"]
    assert "CUDA_DEVICE_MAX_CONNECTIONS" in rule.message.en and "MindSpeed" in rule.replacement.en


def test_12_torch_load_is_not_rewritten_on_2_1_0():
    snippet = 'import torch\ns = torch.load(p, map_location="cuda")'
    assert [f.migration for f in scan(snippet, torch_npu="2.1.0").findings if f.rule == "DEV001"] == ["rewrite"]
    assert "2.1.0" in KB.rules["DEV001"].message.en


def test_13_ascend_c_kernels_need_the_bisheng_build():
    assert "bisheng" in KB.rules["OPS010"].replacement.en and "bisheng" in KB.rules["OPS010"].replacement.zh


def test_14_fast_gelu_is_for_gelu_only():
    text = KB.kernel_class("gelu").replacement.en
    assert "for GELU only" in text and "no replacement for silu or relu" in text


def test_15_references():
    assert "assume_constant_result ✔" in " ".join(KB.rules["DEV502"].references)
    assert KB.package("colossalai").references == ["hpcaitech/ColossalAI:extensions/pybind/flash_attention/flash_attention_npu.py"]
    assert "optionally --transformer-impl local" in KB.rules["DST015"].replacement.en
    cited = [ref for rule in KB.rules.values() for ref in rule.references if ref.startswith("Ascend/MindSpeed:README.md")]
    assert all("feature" not in ref and "operator" not in ref and "parallelism" not in ref for ref in cited)


def test_16_release_2_10_0_post2_and_eol_wording():
    release = KB.resolve_target("2.10.0.post2").release
    assert (release.torch_npu, release.branch, release.cann) == ("2.10.0.post2", "v2.10.0-26.0.0", "9.0.0")
    assert "end-of-life" in KB.rules["DEP012"].message.en and "EOL" in KB.rules["DEP012"].message.zh


def test_device_advice_reads_as_one_plan():
    """DEV001 and DEV007 both recommend the device chosen once; the auto note presents transfer_to_npu as opt-in."""
    assert "torch.accelerator" in KB.rules["DEV001"].replacement.en and "torch.accelerator" in KB.rules["DEV007"].replacement.en
    finding = _finding("import torch\ntorch.cuda.synchronize()", "DEV101", "2.12.0")
    assert "opt in" in finding.message.en and "torch.jit.script" in finding.message.en


def test_a_missing_operator_is_reported_once_not_per_keyword():
    by_torch_npu = {r.torch_npu: r for r in KB.releases}
    names = ["npu_swiglu", "npu_swiglu(dim=…)", "npu_rotary_mul", "npu_rotary_mul(rotary_mode=…)"]
    assert availability.missing_at(KB, names, by_torch_npu["2.1.0"]) == ["npu_swiglu", "npu_rotary_mul(rotary_mode=…)"]


def test_explain_shows_the_release_range_of_each_replacement():
    from ascend_feasibility.analyzer.reporting.rule_docs import render_rule

    english = render_rule(KB.rules["DST022"], "en", KB)
    assert "`torch_npu.npu.use_compatible_impl`: from the 7.3.0 line on (13 of 36 releases)" in english
    assert "`torch_npu.npu.use_compatible_impl`：从 7.3.0 版本线起" in render_rule(KB.rules["DST022"], "zh", KB)
    attention = render_rule(KB.rules["ATT002"], "en", KB)
    assert "`npu_fusion_attention`: every release of the table" in attention
    assert "`npu_fusion_attention(actual_seq_qlen=…)`: from the 6.0.rc1 line on" in attention


def test_a_cuda_device_test_is_widened_to_the_accelerators_it_was_written_for():
    """Round 5 (sd-scripts custom_offloading_utils.py): `!= "cpu"` sends MPS and XPU tensors into a branch of
    torch.cuda calls; the advice names CUDA and NPU, and says why not `!= "cpu"`, in both languages."""
    replacement = KB.rules["DEV007"].replacement
    for text in (replacement.en, replacement.zh):
        assert '("cuda", "npu")' in text and 'MPS' in text
    assert "Not device.type != \"cpu\"" in replacement.en


def test_a_package_the_catalog_calls_pure_python_installs_anywhere():
    """DEP015's low form says the declaration fails to install on Ascend; a package to replace whose own note says it
    is pure Python installs on any host, so its record must say so (round 19 B1 rows 6, 10: lightning)."""
    unmarked = [r.name for r in KB.packages.values() if "pure python" in r.note.en.lower()
                and r.classification in {"needs_replacement", "unsupported"} and r.install != "anywhere"]
    assert not unmarked
