"""The guard reader on small parsed snippets (analyzer/context/guards.py): for a site, which statement around it
decides its reach, and what reach. Each expectation is read from the module's docstrings; tests/test_context.py runs
the same reader through whole analyses."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import guards as g
from ascend_feasibility.analyzer.context.guards import GuardReader
from ascend_feasibility.analyzer.context.versions import VersionReader
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()


def reader(torch: str | None = None) -> GuardReader:
    guards = GuardReader(CONVENTIONS.guards, CONVENTIONS.backends, tuple(CONVENTIONS.opt_in.disabled_values))
    if torch is not None:
        guards.versions = VersionReader(torch, CONVENTIONS.versions.torch_features,
                                        CONVENTIONS.versions.torch_version_helpers)
    guards.start_unit()
    return guards


def guard(code: str, needle: str, domain: str = "attention", rule: str = "", occurrence: int = 0, torch=None):
    return reader(torch).guard_of(node_at(code, needle, occurrence), domain, rule)


def reach(code: str, needle: str, domain: str = "attention", rule: str = "", occurrence: int = 0, torch=None) -> str:
    """The reach the guard gives, `runs` when nothing decides."""
    found = guard(code, needle, domain, rule, occurrence, torch)
    return found.reach if found is not None else "runs"


FLASH = "flash_attn_func(q, k, v)"


# if / elif / else --------------------------------------------------------------------------------------------
def test_a_cuda_check_around_a_cuda_only_feature_with_a_fallback_after_it_is_cuda_only_guarded():
    code = f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n    return sdpa(q, k, v)\n"
    found = guard(code, FLASH)
    assert found.reach == "cuda-only-guarded" and found.reason() == "line 2: if q.is_cuda:"


@pytest.mark.parametrize("code", [
    f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n    raise RuntimeError('CUDA only')\n",
    f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n    else:\n        raise RuntimeError('CUDA only')\n",
    f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n    else:\n        # no fallback\n        raise RuntimeError('x')\n",
    f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n    elif q.is_cpu:\n        raise RuntimeError('no')\n",
    f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n",  # nothing after the check: no fallback either
])
def test_a_cuda_check_whose_other_branch_only_raises_guards_nothing(code):
    # Ascend takes the raise: the feature still has to be ported, so the site runs (counted, full severity)
    assert reach(code, FLASH) == "runs"


@pytest.mark.parametrize("code", [
    f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n    else:\n        return sdpa(q, k, v)\n",
    f"def f(q, k, v):\n    if q.is_cuda:\n        return {FLASH}\n    elif q.is_cpu:\n        return sdpa(q, k, v)\n",
    f"def f(q, k, v):\n    if torch.cuda.is_available():\n        o = {FLASH}\n    else:\n        o = sdpa(q, k, v)\n",
    f"def f(q, k, v):\n    if q.device.type == 'cuda':\n        return {FLASH}\n    return sdpa(q, k, v)\n",
])
def test_a_cuda_check_with_a_fallback_branch_guards_the_feature(code):
    assert reach(code, FLASH) == "cuda-only-guarded"


def test_a_cuda_check_guards_only_cuda_only_features_not_device_code():
    code = "import torch\nif torch.cuda.is_available():\n    model.cuda()\nelse:\n    model.cpu()\n"
    assert reach(code, "model.cuda()", domain="device", rule="DEV004") == "runs"  # placement still needs porting
    assert reach(code, "model.cuda()", domain="device", rule="DEV111") == "cuda-only-guarded"  # a CUDA-only thing
    assert reach(code, "model.cuda()", domain="custom_ops") == "cuda-only-guarded"


def test_the_else_branch_of_a_check_decides_nothing():
    code = f"def f(q, k, v):\n    if q.is_cuda:\n        return sdpa(q, k, v)\n    else:\n        return {FLASH}\n"
    assert reach(code, FLASH) == "runs"
    hip = "if torch.version.hip:\n    torch.cuda.synchronize()\nelse:\n    torch.cuda.empty_cache()\n"
    assert reach(hip, "torch.cuda.synchronize()", "device") == "other-backend"
    assert reach(hip, "torch.cuda.empty_cache()", "device") == "runs"


def test_a_site_in_the_condition_itself_is_not_guarded_by_it():
    code = f"def f(q):\n    if {FLASH}:\n        return 1\n    return 2\n"
    assert reach(code, FLASH) == "runs"


@pytest.mark.parametrize("arm", [0, 1, 2])
def test_any_arm_of_a_chain_with_an_npu_check_is_the_npu_path(arm):
    code = ("if q.is_npu:\n    o = npu_fusion_attention(q)\nelif q.is_cuda:\n    o = flash_attn_func(q, k, v)\n"
            "else:\n    o = flash_attn_func(q, k, v)\n")
    found = guard(code, FLASH, occurrence=min(arm, 1)) if arm < 2 else guard(code, FLASH, occurrence=1)
    assert found.reach == "npu-path" and found.reason() == "line 1: if q.is_npu:"
    chained = "if device == 'cuda':\n    torch.cuda.synchronize()\nelif device == 'npu':\n    torch.npu.synchronize()\n"
    assert reach(chained, "torch.cuda.synchronize()", "device") == "npu-path"


@pytest.mark.parametrize("condition", [
    "torch.version.hip", "x.device.type == 'mps'", "is_xpu_available()", "torch.version.cuda",
    "torch.backends.cudnn.is_available()",
])
def test_a_check_for_another_accelerator_or_a_cuda_build_is_another_backend(condition):
    code = f"if {condition}:\n    torch.cuda.synchronize()\n"
    assert reach(code, "torch.cuda.synchronize()", "device") == "other-backend"


def test_a_negated_check_guards_nothing_in_its_body_but_its_else_is_the_guarded_branch():
    body = f"if not q.is_cuda:\n    o = sdpa(q, k, v)\nelse:\n    o = {FLASH}\n"
    assert reach(body, "sdpa(q, k, v)", "custom_ops") == "runs"
    assert reach(body, FLASH) == "cuda-only-guarded"
    raising = f"if not q.is_cuda:\n    raise RuntimeError('cuda')\nelse:\n    o = {FLASH}\n"
    assert reach(raising, FLASH) == "runs"  # the if-branch is the fallback, and it only raises
    inequality = f"if q.device.type != 'cuda':\n    o = sdpa(q, k, v)\nelse:\n    o = {FLASH}\n"
    assert reach(inequality, FLASH) == "cuda-only-guarded"


def test_availability_gates_and_opt_in_flags_make_optional_code():
    gate = f"if is_flash_attn_2_available():\n    o = {FLASH}\n"
    assert reach(gate, FLASH) == "optional"
    assert reach(f"if HAS_TRITON:\n    o = {FLASH}\n", FLASH) == "optional"
    assert reach(f"if FLASH_ATTN_AVAILABLE:\n    o = {FLASH}\n", FLASH) == "optional"
    assert reach(f"if is_torch_available():\n    o = {FLASH}\n", FLASH) == "runs"  # always available: not a gate
    assert reach(f"if is_flash_attn_2_available():\n    o = {FLASH}\n", FLASH, "device", "DEV004") == "optional"
    flag = f"if config.use_triton:\n    o = {FLASH}\n"
    assert reach(flag, FLASH) == "optional"
    assert reach(flag, FLASH, "device", "DEV004") == "runs"  # a flag such as use_amp guards mainstream code
    assert reach(flag, FLASH, "device", "DEV501") == "optional"  # flag_rules
    assert reach(f"if args.compile:\n    o = {FLASH}\n", FLASH) == "optional"
    assert reach(f"if HAS_TRITON and q.is_cuda:\n    o = {FLASH}\n", FLASH) == "runs"  # a gate with a CUDA check,
    # no fallback: the CUDA check decides
    assert reach(f"if comm_backend == 'deepep':\n    o = {FLASH}\n", FLASH, "device") == "optional"
    assert reach(f"if impl in ('fa3', 'flash_attention_3'):\n    o = {FLASH}\n", FLASH, "device") == "optional"
    assert reach(f"if impl in ('fa3', 'sdpa'):\n    o = {FLASH}\n", FLASH, "device") == "runs"  # not all CUDA-only
    assert reach(f"if impl != 'fa3':\n    o = {FLASH}\n", FLASH, "device") == "runs"


def test_a_setting_compared_with_its_off_value_is_an_opt_in_flag():
    reader_ = reader()
    switched = reader_.condition(node_at("if plugin.backend != DynamoBackend.NO:\n    pass\n",
                                         "plugin.backend != DynamoBackend.NO"))
    assert switched.flag and not switched.negated
    both = reader_.condition(node_at("if ready and mode != 'off':\n    pass\n", "ready and mode != 'off'"))
    assert both.flag
    either = reader_.condition(node_at("if ready or mode != 'off':\n    pass\n", "ready or mode != 'off'"))
    assert not either.flag  # only a term of an `and` switches it on
    other = reader_.condition(node_at("if mode != 'fast':\n    pass\n", "mode != 'fast'"))
    assert other.negated and not other.flag
    three = reader_.condition(node_at("if a != b != NO:\n    pass\n", "a != b != NO"))
    assert not three.flag


@pytest.mark.parametrize("text, expected", [
    ("q.is_cuda", dict(cuda=True)),
    ("not q.is_cuda", dict(cuda=True, negated=True)),
    ("not not q.is_cuda", dict(cuda=True)),
    ("(not (q.is_cuda))", dict(cuda=True, negated=True)),
    ("not (q.device.type == 'cuda')", dict(cuda=True, negated=True)),
    ("q.device.type != 'cuda'", dict(cuda=True, negated=True)),
    ("not q.device.type != 'cuda'", dict(cuda=True)),  # `not` binds looser than `!=`: not (x != 'cuda')
    ("'cuda' not in devices", dict(cuda=True, negated=True)),
    ("q.device is not cuda_device", dict(cuda=True, negated=True)),
    ("torch.version.cuda", dict(other=True)),
    ("torch.version.cuda and q.is_cuda", dict(other=True)),
    ("isinstance(t, torch.cuda.BoolTensor)", dict()),
    ("isinstance(t, torch.cuda.FloatStorage)", dict()),
    ("device.type == 'npu:0'", dict(npu=True)),
    ("is_torch_npu_available()", dict(npu=True, gate=True)),
    ("xops is not None", dict(negated=True)),  # no import handler binds xops to None here: a negated test
    ("xops is None", dict()),
])
def test_what_a_condition_checks(text, expected):
    condition = reader().condition(node_at(f"if {text}:\n    pass\n", text))
    fields = {**dict(npu=False, other=False, cuda=False, gate=False, flag=False, negated=False), **expected}
    assert condition == g.Condition(**fields)


def test_a_name_an_import_handler_binds_to_none_is_the_import_availability():
    code = ("try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n"
            f"def f(q, k, v):\n    if xops is not None:\n        return {FLASH}\n    return sdpa(q)\n")
    assert reach(code, FLASH) == "optional"
    truthy = code.replace("if xops is not None:", "if xops:")
    assert reach(truthy, FLASH) == "optional"
    missing = code.replace("if xops is not None:", "if not (xops is not None):")
    assert reach(missing, FLASH) == "runs"  # the branch taken when the import failed
    both = code.replace("if xops is not None:", "if ready and xops is not None:")
    assert reach(both, FLASH) == "optional"
    reraised = code.replace("    xops = None\n", "    xops = None\n    raise\n")
    assert reach(reraised, FLASH) == "runs"  # the failure goes on: nothing falls back
    other_error = code.replace("except ImportError:", "except KeyError:")
    assert reach(other_error, FLASH) == "runs"
    not_imported = code.replace("    xops = None\n", "    yops = None\n").replace("if xops is not None:", "if yops is not None:")
    assert reach(not_imported, FLASH) == "runs"
    compared = code.replace("if xops is not None:", "if xops is not 3:")
    assert reach(compared, FLASH) == "runs"  # only a comparison with None


def test_import_fallback_names_binds_and_redefinitions():
    code = ("try:\n    from apex.normalization import FusedRMSNorm as RMSNorm\n    import flash_attn\n"
            "    from a import b, c\nexcept (ImportError, KeyError):\n    flash_attn = None\n"
            "    class RMSNorm:\n        pass\n    def b():\n        pass\n    c = fallback_c\n    d = None\n"
            "    unrelated = 1\n")
    root = parsing.parse("python", code.encode())
    to_none, redefined, _, _ = g._import_fallback_names(root, frozenset({"ImportError"}))
    assert to_none == {"flash_attn"} and set(redefined) == {"RMSNorm", "b", "c"}
    assert all(handler.type == "except_clause" for handler in redefined.values())
    bare = code.replace("except (ImportError, KeyError):", "except:")
    assert g._import_fallback_names(parsing.parse("python", bare.encode()), frozenset({"ImportError"}))[0] == {"flash_attn"}
    decorated = ("try:\n    from a import k\nexcept ImportError:\n    @cache\n    def k():\n        pass\n")
    assert set(g._import_fallback_names(parsing.parse("python", decorated.encode()), frozenset({"ImportError"}))[1]) == {"k"}


def test_a_use_of_a_name_whose_import_falls_back_to_a_local_definition_is_optional():
    code = ("try:\n    from apex.normalization import FusedRMSNorm as RMSNorm\nexcept ImportError:\n"
            "    class RMSNorm:\n        pass\nnorm = RMSNorm(4).cuda()\nother = Other(4)\n")
    reader_ = reader()
    found = reader_.fallback_definition(node_at(code, "RMSNorm(4).cuda()"))
    assert found.reach == "optional" and found.reason() == "line 3: except ImportError:"
    assert reader_.fallback_definition(node_at(code, "Other(4)")) is None
    assert reader_.fallback_definition(node_at(code, "(4)")) is None  # not a name


def test_bound_names_of_imports():
    def bound(code):
        statement = parsing.parse("python", code.encode()).named_children[0]
        return [parsing.import_bound_name(statement, n) for n in statement.children_by_field_name("name")]
    assert bound("import a.b.c\n") == ["a"]
    assert bound("import a.b as ab\n") == ["ab"]
    assert bound("from m.n import a, b as c\n") == ["a", "c"]


# conditional expressions, tables, classes, early exits -------------------------------------------------------------
def test_conditional_expressions():
    code = "o = flash_attn_func(q) if q.is_cuda else sdpa(q)\n"
    assert reach(code, "flash_attn_func(q)") == "cuda-only-guarded"
    assert reach(code, "sdpa(q)") == "runs"
    flipped = "o = sdpa(q) if not q.is_cuda else flash_attn_func(q)\n"
    assert reach(flipped, "flash_attn_func(q)") == "cuda-only-guarded"
    assert reach(flipped, "sdpa(q)") == "runs"
    device = 'device = "npu" if on_ascend() else torch.cuda.current_device()\n'
    assert reach(device, "torch.cuda.current_device()", "device") == "npu-path"
    assert reach("d = 'cuda' if q.is_npu else 'cpu'\n", "'cuda'", "device") == "npu-path"
    assert reach("o = flash(q) if HAS_FLASH else sdpa(q)\n", "flash(q)") == "optional"
    assert reach("o = f(flash(q) if HAS_FLASH else sdpa(q))\n", "HAS_FLASH") == "runs"  # the condition itself


def test_the_cuda_row_of_a_per_backend_table_is_another_backend():
    code = 'table = {"cuda": torch.cuda.synchronize, "xpu": torch.xpu.synchronize}\n'
    found = guard(code, "torch.cuda.synchronize", "device")
    assert found.reach == "other-backend" and found.node.type == "pair"
    assert reach(code, '"cuda"', "device") == "runs"  # the key itself
    assert reach('t = {"cuda": torch.cuda.synchronize}\n', "torch.cuda.synchronize", "device") == "runs"  # one row
    assert reach('t = {"cuda": torch.cuda.synchronize, "fast": g}\n', "torch.cuda.synchronize", "device") == "runs"
    assert reach('t = {"xpu": torch.cuda.synchronize, "cpu": g}\n', "torch.cuda.synchronize", "device") == "runs"
    assert reach('t = {"CUDA": torch.cuda.synchronize, "npu:0": g}\n', "torch.cuda.synchronize", "device") == "other-backend"
    assert reach('t = {name: torch.cuda.synchronize, "xpu": g}\n', "torch.cuda.synchronize", "device") == "runs"
    assert reach('t = f(cuda=torch.cuda.synchronize, xpu=g)\n', "torch.cuda.synchronize", "device") == "runs"


def test_a_cuda_only_feature_in_a_library_class_is_optional():
    code = f"class FlashAttention2(Attention):\n    def forward(self, q, k, v):\n        return {FLASH}\n"
    found = guard(code, FLASH)
    assert found.reach == "optional" and found.reason() == "line 1: FlashAttention2"
    assert reach(code.replace("FlashAttention2", "NpuFlashAttention"), FLASH) == "runs"
    assert reach(code.replace("FlashAttention2", "Attention2"), FLASH) == "runs"
    assert reach(code, FLASH, "device", "DEV004") == "runs"  # only for CUDA-only features


def test_an_early_return_for_non_cuda_devices_guards_what_follows():
    code = f"def f(q, k, v):\n    if not q.is_cuda:\n        return sdpa(q, k, v)\n    x = 1\n    return {FLASH}\n"
    found = guard(code, FLASH)
    assert found.reach == "cuda-only-guarded" and found.reason() == "line 2: if not q.is_cuda:"
    npu = f"def f(q, k, v):\n    if q.is_npu:\n        return npu_attention(q)\n    return {FLASH}\n"
    assert reach(npu, FLASH) == "npu-path"
    raises = f"def f(q, k, v):\n    if not q.is_cuda:\n        raise RuntimeError('x')\n    return {FLASH}\n"
    assert reach(raises, FLASH) == "runs"
    positive = f"def f(q, k, v):\n    if q.is_cuda:\n        return sdpa(q, k, v)\n    return {FLASH}\n"
    assert reach(positive, FLASH) == "runs"
    with_else = f"def f(q, k, v):\n    if not q.is_cuda:\n        return sdpa(q)\n    else:\n        pass\n    return {FLASH}\n"
    assert reach(with_else, FLASH) == "runs"
    assert reach(code, FLASH, "device", "DEV004") == "runs"  # only for CUDA-only features


def test_an_if_for_cuda_followed_by_one_for_npu_is_the_npu_path():
    code = ("if device_type == 'cuda':\n    torch.cuda.set_device(rank)\nx = 1\n"
            "if device_type == 'npu':\n    torch.npu.set_device(rank)\n")
    found = guard(code, "torch.cuda.set_device(rank)", "device")
    assert found.reach == "npu-path" and found.reason() == "line 4: if device_type == 'npu':"
    reversed_operands = code.replace("device_type == 'npu'", "'npu' == device_type")
    assert reach(reversed_operands, "torch.cuda.set_device(rank)", "device") == "npu-path"
    other_subject = code.replace("if device_type == 'npu'", "if other == 'npu'")
    assert reach(other_subject, "torch.cuda.set_device(rank)", "device") == "runs"
    far = code.replace("x = 1\n", "x = 1\ny = 2\nz = 3\n")
    assert reach(far, "torch.cuda.set_device(rank)", "device") == "runs"  # at most three statements on
    with_else = code.replace("    torch.cuda.set_device(rank)\n", "    torch.cuda.set_device(rank)\nelse:\n    pass\n")
    assert reach(with_else, "torch.cuda.set_device(rank)", "device") == "runs"


# try / except ------------------------------------------------------------------------------------------------
def test_an_import_or_a_feature_in_a_try_whose_handler_falls_back_is_optional():
    imported = "def f():\n    try:\n        import flash_attn\n    except ImportError:\n        flash_attn = None\n"
    found = guard(imported, "import flash_attn", "device")
    assert found.reach == "optional" and found.reason() == "line 4: except ImportError:"
    assert reach(imported.replace("ImportError", "KeyError"), "import flash_attn", "device") == "runs"
    assert reach(imported.replace("except ImportError:", "except:"), "import flash_attn", "device") == "optional"
    reraised = imported.replace("flash_attn = None", "raise")
    assert reach(reraised, "import flash_attn", "device") == "runs"
    feature = f"try:\n    o = {FLASH}\nexcept RuntimeError:\n    o = sdpa(q, k, v)\n"
    assert reach(feature, FLASH) == "optional"
    assert reach(feature, FLASH, "device", "DEV004") == "runs"
    assert reach(feature.replace("o = sdpa(q, k, v)", "raise"), FLASH) == "runs"
    in_handler = f"try:\n    o = sdpa(q)\nexcept RuntimeError:\n    o = {FLASH}\n"
    assert reach(in_handler, FLASH) == "runs"  # the handler is not the try's body


def test_import_is_caught():
    code = ("def f():\n    try:\n        import xformers.ops as xops\n    except ImportError:\n        xops = None\n"
            "    try:\n        import a\n    except ImportError:\n        raise\n"
            "    try:\n        import b\n    except KeyError:\n        pass\n"
            "    try:\n        import c\n    except:\n        pass\n"
            "    try:\n        x = 1\n    except ImportError:\n        pass\n    finally:\n        import d\n")
    errors = frozenset(CONVENTIONS.guards.import_errors)

    def caught(needle):
        return g.import_is_caught(node_at(code, needle).parent, errors)
    assert caught("xformers.ops")
    assert not caught("import a")
    assert not caught("import b")
    assert caught("import c")
    assert not caught("import d")


# decorators ------------------------------------------------------------------------------------------------
def test_test_skips_that_need_cuda_guard_the_test():
    code = ("@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')\n"
            "def test_kernel():\n    torch.cuda.synchronize()\n")
    found = guard(code, "torch.cuda.synchronize()", "device")
    assert found.reach == "cuda-only-guarded" and found.reason().startswith("line 1: @pytest.mark.skipif")
    assert reach("@require_torch_gpu\ndef test_k():\n    torch.cuda.synchronize()\n", "torch.cuda.synchronize()",
                 "device") == "runs"  # a skip without a CUDA word
    assert reach(code.replace("skipif", "parametrize"), "torch.cuda.synchronize()", "device") == "runs"
    other = "@pytest.mark.skipif(not has_xpu(), reason='x')\ndef test_k():\n    torch.cuda.synchronize()\n"
    assert reach(other, "torch.cuda.synchronize()", "device") == "runs"


def test_a_registration_beside_an_npu_registration_is_the_npu_path():
    code = ("@register_backend('flash')\ndef _flash(q):\n    return flash_attn_func(q)\n\n"
            "@register_backend('_native_npu')\ndef _npu(q):\n    return npu_fusion_attention(q)\n")
    assert reach(code, "flash_attn_func(q)") == "npu-path"
    alone = code.split("\n\n")[0] + "\n"
    assert reach(alone, "flash_attn_func(q)") == "runs"
    assert reach(code.replace("@register_backend('flash')", "@cache"), "flash_attn_func(q)") == "runs"
    reader_ = reader()  # remembered per tree: another unit asks again
    assert reader_.guard_of(node_at(code, "flash_attn_func(q)"), "attention").reach == "npu-path"
    assert reader_.guard_of(node_at(alone, "flash_attn_func(q)"), "attention") is None


# helpers and imports in functions -------------------------------------------------------------------------------
def test_a_private_helper_called_only_under_one_kind_of_guard_takes_it():
    code = (f"def _kernel(q, k, v):\n    return {FLASH}\n\n"
            "def f(q, k, v):\n    if HAS_TRITON:\n        return _kernel(q, k, v)\n    return sdpa(q)\n")
    reader_ = reader()
    site = node_at(code, FLASH)
    assert reader_.guard_of(site, "attention") is None
    assert reader_.guard_of_callers(site, "attention").reach == "optional"
    public = code.replace("_kernel", "kernel")
    assert reader().guard_of_callers(node_at(public, FLASH), "attention") is None  # called from anywhere
    dunder = code.replace("_kernel", "__kernel__")
    assert reader().guard_of_callers(node_at(dunder, FLASH), "attention") is None
    unguarded = code + "\n\ndef g(q, k, v):\n    return _kernel(q, k, v)\n"
    assert reader().guard_of_callers(node_at(unguarded, FLASH), "attention") is None
    mixed = code + "\n\ndef g(q, k, v):\n    if q.is_cuda:\n        return _kernel(q, k, v)\n    return sdpa(q)\n"
    assert reader().guard_of_callers(node_at(mixed, FLASH), "attention") is None  # two kinds of guard
    uncalled = f"def _kernel(q, k, v):\n    return {FLASH}\n"
    assert reader().guard_of_callers(node_at(uncalled, FLASH), "attention") is None
    recursive = f"def _kernel(q, k, v):\n    return _kernel({FLASH})\n"
    assert reader().guard_of_callers(node_at(recursive, FLASH), "attention") is None  # its own calls do not count
    assert reader().guard_of_callers(node_at(f"x = {FLASH}\n", FLASH), "attention") is None  # not in a function


def test_a_helper_decorator_argument_belongs_to_its_function():
    code = ("@triton.autotune(configs=make_configs())\ndef _kernel(x):\n    pass\n\n"
            "def f(x):\n    if HAS_TRITON:\n        _kernel(x)\n")
    assert reader().guard_of_callers(node_at(code, "make_configs()"), "custom_ops").reach == "optional"


def test_too_many_callers_decide_nothing():
    calls = "".join(f"    if HAS_TRITON:\n        _kernel(x{i})\n" for i in range(51))
    code = f"def _kernel(q):\n    return {FLASH}\n\ndef f():\n{calls}"
    assert reader().guard_of_callers(node_at(code, FLASH), "attention") is None
    fifty = f"def _kernel(q):\n    return {FLASH}\n\ndef f():\n" + "".join(
        f"    if HAS_TRITON:\n        _kernel(x{i})\n" for i in range(50))
    assert reader().guard_of_callers(node_at(fifty, FLASH), "attention").reach == "optional"


def test_an_import_in_a_helper_every_call_of_which_is_guarded():
    code = ("def dtw_cuda(x):\n    from .triton_ops import dtw_kernel\n    return dtw_kernel(x)\n\n"
            "def dtw(x):\n    if x.is_cuda:\n        try:\n            return dtw_cuda(x)\n"
            "        except RuntimeError:\n            warnings.warn('falling back')\n    return dtw_cpu(x)\n")
    statement = node_at(code, "from .triton_ops import dtw_kernel")
    assert statement.type == "import_from_statement"
    found = reader().guard_of_import(statement)
    assert found is not None and found.reach in {"optional", "cuda-only-guarded"}
    unguarded = code + "\ny = dtw_cuda(z)\n"
    assert reader().guard_of_import(node_at(unguarded, "from .triton_ops import dtw_kernel")) is None
    module_level = "from .triton_ops import dtw_kernel\n"
    assert reader().guard_of_import(node_at(module_level, module_level.strip())) is None
    uncalled = "def dtw_cuda(x):\n    from .triton_ops import dtw_kernel\n"
    assert reader().guard_of_import(node_at(uncalled, "from .triton_ops import dtw_kernel")) is None
    in_class = "class K:\n    from .triton_ops import dtw_kernel\n"
    assert reader().guard_of_import(node_at(in_class, "from .triton_ops import dtw_kernel")) is None
    guarded_here = "def f():\n    if HAS_TRITON:\n        from .triton_ops import dtw_kernel\n"
    assert reader().guard_of_import(node_at(guarded_here, "from .triton_ops import dtw_kernel")).reach == "optional"


def test_checked_body_is_the_if_statement_whose_cuda_condition_holds_the_site():
    code = "if torch.cuda.is_available():\n    x = 1\n"
    root = parsing.parse("python", code.encode())
    site = node_at(code, "torch.cuda.is_available()")
    body = reader().checked_body(root, site.start_point, site.end_point)
    assert body is not None and body.type == "if_statement"
    assert reader().checked_body(root, (1, 4), (1, 9)) is None  # in the body, not the condition
    negated = "if x.device.type != 'cuda':\n    raise ValueError('needs CUDA')\n"
    site = node_at(negated, "x.device.type")
    assert reader().checked_body(parsing.parse("python", negated.encode()), site.start_point, site.end_point) is not None
    doing = "if x.device.type != 'cuda':\n    x = x.cuda()\n"
    site = node_at(doing, "x.device.type")
    assert reader().checked_body(parsing.parse("python", doing.encode()), site.start_point, site.end_point) is None
    passthrough = "def w(fn):\n    if not torch.cuda.is_available():\n        logger.warning('eager')\n        return fn\n"
    site = node_at(passthrough, "torch.cuda.is_available()")
    assert reader().checked_body(parsing.parse("python", passthrough.encode()), site.start_point, site.end_point) is not None
    npu = "if torch.cuda.is_available() or torch.npu.is_available():\n    x = 1\n"
    site = node_at(npu, "torch.cuda.is_available()")
    assert reader().checked_body(parsing.parse("python", npu.encode()), site.start_point, site.end_point) is None
    elif_ = "if a:\n    pass\nelif torch.cuda.is_available():\n    x = 1\n"
    site = node_at(elif_, "torch.cuda.is_available()")
    found = reader().checked_body(parsing.parse("python", elif_.encode()), site.start_point, site.end_point)
    assert found is not None and found.type == "elif_clause"
    plain = "if ready:\n    x = 1\n"
    site = node_at(plain, "ready")
    assert reader().checked_body(parsing.parse("python", plain.encode()), site.start_point, site.end_point) is None


# version gating --------------------------------------------------------------------------------------------
def test_an_arm_that_cannot_run_at_the_target_torch_is_dead():
    code = ("if torch.__version__ >= '2.3':\n    new_api(x)\nelse:\n    old_api(x)\n")
    assert reach(code, "old_api(x)", "device", torch="2.5.0") == "dead-at-target"
    assert reach(code, "new_api(x)", "device", torch="2.5.0") == "runs"
    assert reach(code, "new_api(x)", "device", torch="2.1.0") == "dead-at-target"
    assert reach(code, "old_api(x)", "device", torch="2.1.0") == "runs"
    assert reach(code, "old_api(x)", "device") == "runs"  # no target torch: nothing is dead
    unknown = "if ready:\n    a(x)\nelif torch.__version__ >= '2.3':\n    new_api(x)\n"
    assert reach(unknown, "new_api(x)", "device", torch="2.5.0") == "runs"
    in_condition = "if torch.__version__ >= '2.3' and f(x):\n    pass\n"
    assert reach(in_condition, "f(x)", "device", torch="2.1.0") == "runs"
    expression = "y = new_api(x) if torch.__version__ >= '2.3' else old_api(x)\n"
    assert reach(expression, "old_api(x)", "device", torch="2.5.0") == "dead-at-target"
    assert reach(expression, "new_api(x)", "device", torch="2.1.0") == "dead-at-target"
    assert reach(expression, "new_api(x)", "device", torch="2.5.0") == "runs"


def test_an_arm_a_prefix_predicate_of_old_torch_opens_is_dead():
    """StyleGAN2-ADA's grid_sample_gradfix (round 28 B1 class 6, V2 W6): the custom path runs only where
    `_should_use_custom_op()` holds, which needs a torch whose version starts with 1.5.-1.10.; the plain path runs."""
    code = ("enabled = True\n"
            "def _should_use_custom_op():\n    if not enabled:\n        return False\n"
            "    if any(torch.__version__.startswith(x) for x in ['1.5.', '1.10.']):\n        return True\n"
            "    return False\n"
            "def grid_sample(x, g):\n    if _should_use_custom_op():\n        return custom(x.cuda(), g)\n"
            "    return plain(x, g)\n")
    assert reach(code, "custom(x.cuda(), g)", "device", torch="2.12.0") == "dead-at-target"
    assert reach(code, "plain(x, g)", "device", torch="2.12.0") == "runs"
    assert reach(code.replace("'1.10.'", "'2.12.'"), "custom(x.cuda(), g)", "device", torch="2.12.0") == "runs"


# small helpers ----------------------------------------------------------------------------------------------
def _block(code: str):
    statement = parsing.parse("python", code.encode()).named_children[0]
    return statement.child_by_field_name("consequence")


@pytest.mark.parametrize("body, expected", [
    ("raise ValueError()", True), ("# why\n    raise ValueError()", True), ("pass", True),
    ("warnings.warn('x')", True), ("logger.warning_once('x')", True), ("print('x')", True),
    ("x = 1", False), ("f(x)", False),
    ("if a:\n        raise ValueError()\n    else:\n        logger.info('x')", True),
    ("if a:\n        raise ValueError()\n    elif b:\n        x = 1", False),
])
def test_only_raises_or_warns(body, expected):
    assert g.only_raises_or_warns(_block(f"if c:\n    {body}\n")) is expected


def test_only_raises():
    root = parsing.parse("python", b"try:\n    a()\nexcept E:\n    # x\n    raise\nexcept F:\n    pass\n")
    first, second = [c for c in root.named_children[0].children if c.type == "except_clause"]
    assert g.only_raises(first) and not g.only_raises(second)
    assert g.only_raises(_block("if c:\n    raise E()\n    raise F()\n"))
    assert not g.only_raises(_block("if c:\n    raise E()\n    f()\n"))
    assert not g.only_raises(_block("if c:\n    # only a comment\n    pass\n"))


def test_returns_input_unchanged():
    def body(code):
        function = parsing.parse("python", code.encode()).named_children[0]
        return function.child_by_field_name("body").named_children[0].child_by_field_name("consequence")
    assert g.returns_input_unchanged(body("def w(fn, x=1):\n    if c:\n        logger.warning('e')\n        return fn\n"))
    assert g.returns_input_unchanged(body("def w(fn, x=1):\n    if c:\n        return x\n"))
    assert g.returns_input_unchanged(body("def w(*, fn: int):\n    if c:\n        return fn\n"))
    assert not g.returns_input_unchanged(body("def w(fn):\n    if c:\n        return other\n"))
    assert not g.returns_input_unchanged(body("def w(fn):\n    if c:\n        return fn()\n"))
    assert not g.returns_input_unchanged(body("def w(fn):\n    if c:\n        f(fn)\n        return fn\n"))
    assert not g.returns_input_unchanged(body("def w(fn):\n    if c:\n        return\n"))
    assert not g.returns_input_unchanged(body("def w(fn):\n    if c:\n        return fn\n        x = 1\n"))
    assert not g.returns_input_unchanged(_block("if c:\n    return fn\n"))  # not in a function


def test_tries_with_fallback():
    def block(body):
        return _block(f"if x.is_cuda:\n{body}")
    warn = "    try:\n        return dtw_cuda(x)\n    except (RuntimeError, ValueError):\n        warnings.warn('fall back')\n"
    assert g.tries_with_fallback(block(warn))
    assert g.tries_with_fallback(block(warn.replace("warnings.warn('fall back')", "pass")))
    assert not g.tries_with_fallback(block(warn.replace("warnings.warn('fall back')", "raise")))
    assert not g.tries_with_fallback(block(warn.replace("warnings.warn('fall back')", "return slow(x)")))
    assert not g.tries_with_fallback(block(warn + "    y = 1\n"))
    assert not g.tries_with_fallback(block(warn + "    finally:\n        pass\n"))
    assert not g.tries_with_fallback(block("    y = dtw_cuda(x)\n"))
    assert not g.tries_with_fallback(block("    try:\n        y = 1\n    finally:\n        pass\n"))


def test_test_function_is_the_outermost_module_level_test():
    code = "def test_a():\n    def inner():\n        f(x)\n\ndef helper():\n    g(x)\n\nclass T:\n    def test_b(self):\n        h(x)\n"
    found = g.test_function(node_at(code, "f(x)"))
    assert found is not None and parsing.text(found.child_by_field_name("name")) == "test_a"
    assert g.test_function(node_at(code, "g(x)")) is None
    assert g.test_function(node_at(code, "h(x)")) is None  # a test method: a test file's business
    assert g.test_function(node_at("k(x)\n", "k(x)")) is None


def test_a_guard_reason_is_its_first_line_cut_at_a_hundred_characters():
    long_condition = "a" * 120
    code = f"if {long_condition}:\n    pass\n"
    statement = parsing.parse("python", code.encode()).named_children[0]
    reason = g.Guard("optional", statement).reason()
    assert reason == f"line 1: if {'a' * 94}..." and len(reason) == len("line 1: ") + 100
    short = parsing.parse("python", b"if b:\n    pass\n").named_children[0]
    assert g.Guard("optional", short).reason() == "line 1: if b:"


def test_tokens_and_words():
    assert g._tokens_of(["is_torch_npu_available", "npu:0", "flash-attn", "__x__"]) == {
        "is", "torch", "npu", "available", "0", "flash", "attn", "x"}
    words = g._words(node_at("f(a.b, 'c-d', x=1)\n", "f(a.b, 'c-d', x=1)"))
    assert words == ["f", "a", "b", "c-d", "x"]
    assert g._legacy_types_dropped(["torch", "cuda", "BoolTensor", "cuda", "is_available"]) == [
        "torch", "BoolTensor", "cuda", "is_available"]


def test_a_too_deep_nesting_is_read_as_ordinary_code():
    depth = g.MAX_DEPTH + 5
    code = "if HAS_TRITON:\n    y = " + "(" * depth + "flash(q)" + ")" * depth + "\n"
    assert reach(code, "flash(q)") == "runs"
    shallow = "if HAS_TRITON:\n    y = " + "(" * 10 + "flash(q)" + ")" * 10 + "\n"
    assert reach(shallow, "flash(q)") == "optional"


def test_sites_in_one_statement_share_the_walk_and_get_the_same_answer():
    code = f"def f(q, k, v):\n    if HAS_TRITON:\n        o = {FLASH} + flash_attn_func(k, q, v)\n"
    reader_ = reader()
    root = parsing.parse("python", code.encode())  # one tree: the second walk meets the first one's memory
    sites = [root.descendant_for_byte_range(code.index(s), code.index(s) + len(s)) for s in (FLASH, "flash_attn_func(k, q, v)")]
    first = reader_.guard_of(sites[0], "attention")
    second = reader_.guard_of(sites[1], "attention")
    assert first.reach == second.reach == "optional" and first.reason() == second.reason() == "line 2: if HAS_TRITON:"
    assert reader_.guard_of(node_at(code, FLASH), "device", "DEV004").reach == "optional"  # a gate guards any domain
    unguarded = "def f(q):\n    o = a(q) + b(q)\n"
    reader_ = reader()
    assert reader_.guard_of(node_at(unguarded, "a(q)"), "attention") is None
    assert reader_.guard_of(node_at(unguarded, "b(q)"), "attention") is None


# from the mutation run's survivors --------------------------------------------------------------------------------
def deep(expression: str, levels: int) -> str:
    return "(" * levels + expression + ")" * levels


def test_a_reason_of_exactly_a_hundred_characters_is_not_cut():
    for length, cut in ((100, False), (101, True)):
        text = "if " + "a" * (length - 4) + ":"
        statement = parsing.parse("python", f"{text}\n    pass\n".encode()).named_children[0]
        reason = g.Guard("optional", statement).reason()
        assert reason.endswith("...") is cut and (reason == f"line 1: {text}") is not cut


def test_guards_name_the_statement_that_decided():
    dead = "if torch.__version__ >= '2.3':\n    new_api(x)\nelse:\n    old_api(x)\n"
    assert guard(dead, "old_api(x)", "device", torch="2.5.0").reason() == (
        "line 1: torch.__version__ >= '2.3' (true at the target torch 2.5.0, so this later arm never runs)")
    assert guard(dead, "new_api(x)", "device", torch="2.1.0").reason() == (
        "line 1: torch.__version__ >= '2.3' (false at the target torch 2.1.0)")
    expression = "y = (new_api(x)\n     if torch.__version__ >= '2.3'\n     else old_api(x))\n"
    found = guard(expression, "old_api(x)", "device", torch="2.5.0")
    assert found.node.type != "call" and parsing.text(found.node) == "torch.__version__ >= '2.3'"
    assert found.reason() == ("line 2: torch.__version__ >= '2.3' (true at the target torch 2.5.0, so the value after "
                              "`else` is never taken)")
    assert guard(expression, "new_api(x)", "device", torch="2.1.0").reason().endswith(
        "(false at the target torch 2.1.0, so the value before `if` is never taken)")
    npu = "d = 'npu' if flag else torch.cuda.current_device()\n"
    assert guard(npu, "torch.cuda.current_device()", "device").node.type == "conditional_expression"
    cuda = "o = flash_attn_func(q) if q.is_cuda else sdpa(q)\n"
    assert guard(cuda, "flash_attn_func(q)").node.type == "conditional_expression"
    flipped = "o = sdpa(q) if not q.is_cuda else flash_attn_func(q)\n"
    assert guard(flipped, "flash_attn_func(q)").node.type == "conditional_expression"
    feature = f"try:\n    o = {FLASH}\nexcept RuntimeError:\n    o = sdpa(q, k, v)\n"
    assert guard(feature, FLASH).reason() == "line 3: except RuntimeError:"


GRADFIX = (
    "_new_api = parse_version(torch.__version__) >= parse_version('1.11.0a')\n"
    "def conv2d(x, w):\n"
    "    if _use_custom(x):\n"
    "        return _gradfix(w.shape).apply(x, w)\n"
    "    return F.conv2d(x, w)\n"
    "def _use_custom(x):\n"
    "    if not enabled:\n"
    "        return False\n"
    "    if _new_api:\n"
    "        return False\n"
    "    if x.device.type != 'cuda':\n"
    "        return False\n"
    "    return True\n"
    "def _gradfix(shape):\n"
    "    class GradWeight(torch.autograd.Function):\n"
    "        @staticmethod\n"
    "        def forward(ctx, g, x):\n"
    "            flags = [torch.backends.cudnn.benchmark]\n"
    "            return g\n"
    "        def backward(ctx, g):\n"
    "            return _gradfix(shape).apply(g)\n"
    "    return GradWeight\n"
)


def test_code_after_a_return_taken_at_the_target_torch_is_dead():
    found = guard(GRADFIX, "x.device.type", "device", torch="2.12.0")
    assert found.reach == "dead-at-target"
    assert found.reason() == "line 9: if _new_api: (true at the target torch 2.12.0, and the block is left there first)"
    assert reach(GRADFIX, "x.device.type", "device", torch="1.9.1") == "runs"  # the custom op's own torch
    assert reach(GRADFIX, "not enabled", "device", torch="2.12.0") == "runs"  # before the return
    for body in ("raise RuntimeError('old')", "continue", "break"):
        code = f"for x in xs:\n    if torch.__version__ >= '2':\n        {body}\n    torch.cuda.synchronize()\n"
        assert reach(code, "torch.cuda.synchronize()", "device", torch="2.12.0") == "dead-at-target"
    kept = [
        "def f(x):\n    if torch.__version__ < '2':\n        return x\n    torch.cuda.synchronize()\n",  # false there
        "def f(x):\n    if torch.__version__ >= '2':\n        log(x)\n    torch.cuda.synchronize()\n",  # stays
        "def f(x):\n    if torch.__version__ >= '2':\n        return x\n    else:\n        pass\n    torch.cuda.synchronize()\n",
        "def f(x):\n    if ready:\n        return x\n    torch.cuda.synchronize()\n",  # not about the version
        "def f(x):\n    torch.cuda.synchronize()\n    if torch.__version__ >= '2':\n        return x\n",  # before it
        "def f(x):\n    if torch.__version__ >= '2':\n        if ready:\n            return x\n    torch.cuda.synchronize()\n",
    ]
    for code in kept:
        assert reach(code, "torch.cuda.synchronize()", "device", torch="2.12.0") == "runs", code


def test_a_call_of_a_function_that_returns_false_at_the_target_is_a_dead_arm():
    found = guard(GRADFIX, "_gradfix(w.shape)", "device", torch="2.12.0")
    assert found.reach == "dead-at-target"
    assert found.reason() == ("line 3: _use_custom(x) (false at the target torch 2.12.0: _use_custom() returns False there "
                              "(line 9: if _new_api:))")
    assert reach(GRADFIX, "F.conv2d(x, w)", "device", torch="2.12.0") == "runs"
    assert reach(GRADFIX, "_gradfix(w.shape)", "device", torch="1.9.1") == "runs"


def test_what_a_private_helper_defines_runs_only_where_its_callers_do():
    # the class built inside _gradfix: the helper is called only in the dead arm (and from itself)
    site = node_at(GRADFIX, "torch.backends.cudnn.benchmark")
    guards = reader("2.12.0")
    assert guards.guard_of(site, "device") is None  # nothing around the site itself decides
    found = guards.guard_of_callers(site, "device")
    assert found is not None and found.reach == "dead-at-target"
    assert reader("1.9.1").guard_of_callers(node_at(GRADFIX, "torch.backends.cudnn.benchmark"), "device") is None
    public = GRADFIX.replace("_gradfix", "gradfix")  # a public helper may be called from anywhere
    assert reader("2.12.0").guard_of_callers(node_at(public, "torch.backends.cudnn.benchmark"), "device") is None
    called = GRADFIX + "def other(x):\n    return _gradfix(x.shape)\n"  # also called where nothing decides
    assert reader("2.12.0").guard_of_callers(node_at(called, "torch.backends.cudnn.benchmark"), "device") is None


def test_an_arm_is_dead_when_a_later_known_arm_is_true_too():
    code = "if torch.__version__ < '2.0':\n    a(x)\nelif torch.__version__ >= '2.3':\n    b(x)\nelse:\n    c(x)\n"
    assert reach(code, "c(x)", "device", torch="2.5.0") == "dead-at-target"
    assert reach(code, "b(x)", "device", torch="2.5.0") == "runs"
    assert reach(code, "a(x)", "device", torch="2.5.0") == "dead-at-target"


def test_an_npu_literal_in_either_branch_of_a_conditional_is_the_npu_path():
    assert reach("dev = 'npu' if flag else torch.cuda.current_device()\n", "torch.cuda.current_device()", "device") == "npu-path"
    assert reach("dev = 'npu:0' if flag else torch.cuda.current_device()\n", "torch.cuda.current_device()", "device") == "npu-path"
    assert reach("dev = torch.cuda.current_device() if flag else 'NPU'\n", "torch.cuda.current_device()", "device") == "npu-path"
    assert reach("dev = 'cuda' if flag else 'cpu'\n", "'cuda'", "device") == "runs"
    assert reach("dev = torch.cuda.current_device() if flag else npu_device\n", "torch.cuda.current_device()", "device") == "runs"


def test_the_else_side_of_a_negated_conditional_takes_the_positive_reading():
    hip = "a = cpu_path() if not torch.version.hip else torch.cuda.synchronize()\n"
    assert reach(hip, "torch.cuda.synchronize()", "device") == "other-backend"
    assert reach("o = sdpa(q) if not HAS_FLASH else flash(q)\n", "flash(q)") == "optional"
    assert reach("o = slow(q) if not config.use_triton else flash(q)\n", "flash(q)") == "optional"


def test_an_import_in_a_cuda_branch_with_a_fallback_is_guarded_as_a_cuda_only_feature():
    code = "def f(x):\n    if x.is_cuda:\n        from .kernels import kern\n    else:\n        kern = None\n"
    found = reader().guard_of_import(node_at(code, "from .kernels import kern"))
    assert found is not None and found.reach == "cuda-only-guarded"


def test_a_private_helper_takes_the_guard_its_domain_and_rule_give_at_its_callers():
    cuda = (f"def _kernel(q, k, v):\n    return {FLASH}\n\n"
            "def f(q, k, v):\n    if q.is_cuda:\n        return _kernel(q, k, v)\n    return sdpa(q)\n")
    assert reader().guard_of_callers(node_at(cuda, FLASH), "attention").reach == "cuda-only-guarded"
    assert reader().guard_of_callers(node_at(cuda, FLASH), "device", "DEV004") is None
    flag = ("def _compiled(x):\n    return torch.compile(x)\n\n"
            "def f(x):\n    if config.use_triton:\n        return _compiled(x)\n    return x\n")
    assert reader().guard_of_callers(node_at(flag, "torch.compile(x)"), "device", "DEV501").reach == "optional"
    assert reader().guard_of_callers(node_at(flag, "torch.compile(x)"), "device", "DEV004") is None


def test_an_npu_if_two_statements_after_a_cuda_if_is_its_twin():
    code = ("if device_type == 'cuda':\n    torch.cuda.set_device(rank)\nx = 1\ny = 2\n"
            "if device_type == 'npu':\n    torch.npu.set_device(rank)\n")
    assert reach(code, "torch.cuda.set_device(rank)", "device") == "npu-path"
    attribute = code.replace("device_type", "args.device")
    assert reach(attribute, "torch.cuda.set_device(rank)", "device") == "npu-path"
    reversed_attribute = attribute.replace("args.device == 'npu'", "'npu' == args.device")
    assert reach(reversed_attribute, "torch.cuda.set_device(rank)", "device") == "npu-path"
    two_strings = code.replace("device_type == 'npu'", "'npu' == 'npu'")
    assert reach(two_strings, "torch.cuda.set_device(rank)", "device") == "runs"
    chained = code.replace("device_type == 'cuda'", "device_type == 'cuda' == other")
    assert reach(chained, "torch.cuda.set_device(rank)", "device") == "runs"  # not a plain equality test
    called = code.replace("device_type == 'cuda'", "is_cuda(device_type)")
    assert reach(called, "torch.cuda.set_device(rank)", "device") == "runs"


def test_an_early_exit_is_looked_for_fifty_statements_back():
    def code(fillers):
        return ("def f(q, k, v):\n    if not q.is_cuda:\n        return sdpa(q, k, v)\n"
                + "".join(f"    x{n} = {n}\n" for n in range(fillers)) + f"    return {FLASH}\n")
    assert reach(code(49), FLASH) == "cuda-only-guarded"
    assert reach(code(50), FLASH) == "runs"
    elif_ = f"def f(q, k, v):\n    if not q.is_cuda:\n        return sdpa(q)\n    elif ready:\n        pass\n    return {FLASH}\n"
    assert reach(elif_, FLASH) == "runs"
    commented = f"def f(q, k, v):\n    if not q.is_cuda:\n        return sdpa(q)\n        # done\n    return {FLASH}\n"
    assert reach(commented, FLASH) == "cuda-only-guarded"


def test_per_backend_table_keys_are_read_whole():
    def table(keys):
        rows = ", ".join(f"{k}: f{n}" for n, k in enumerate(keys))
        return reach(f"t = {{{rows}}}\n", "f0", "device")
    assert table(['"cuda"', '"cpu"']) == "other-backend"
    assert table(['"cuda"', '"meta"']) == "other-backend"
    assert table(['"cudaX"', '"xpu"']) == "runs"
    assert table(['"cuda"', '"xpuX"']) == "runs"
    assert table(["cuda", '"xpu"']) == "runs"  # a name, not the string "cuda"


def test_a_comment_between_decorators_does_not_hide_a_skip():
    code = ("@pytest.mark.slow\n# needs a GPU\n@pytest.mark.skipif(not torch.cuda.is_available(), reason='x')\n"
            "def test_k():\n    torch.cuda.synchronize()\n")
    assert reach(code, "torch.cuda.synchronize()", "device") == "cuda-only-guarded"


def test_config_values_in_lists_and_sets_choose_cuda_only_libraries():
    assert reach(f"if impl in ['fa3', 'flash_attention_3']:\n    o = {FLASH}\n", FLASH, "device") == "optional"
    assert reach(f"if impl in {{'fa3', 'xformers'}}:\n    o = {FLASH}\n", FLASH, "device") == "optional"
    assert reach(f"if impl in ('fa3', 'sdpa'):\n    o = {FLASH}\n", FLASH, "device") == "runs"
    assert reach(f"if impl == 'fa3X':\n    o = {FLASH}\n", FLASH, "device") == "runs"


def test_import_fallbacks_read_every_try_and_every_handler():
    code = ("import os\n"
            "try:\n    import flash_attn\n    import xformers\n    from a import b, c, k\n"
            "except ModuleNotFoundError:\n    raise\n"
            "except ImportError:\n    pass\n    print('no flash')\n    d = None\n    flash_attn = None\n"
            "    xformers: object\n    def other():\n        pass\n    def k():\n        pass\n    c = fallback_c\n")
    errors = frozenset(CONVENTIONS.guards.import_errors)  # ModuleNotFoundError among them: its handler re-raises
    to_none, redefined, _, _ = g._import_fallback_names(parsing.parse("python", code.encode()), errors)
    assert to_none == {"flash_attn"} and set(redefined) == {"k", "c"}


def test_an_import_in_a_function_or_class_inside_a_try_is_not_caught_by_it():
    errors = frozenset(CONVENTIONS.guards.import_errors)
    for wrapper in ("def f():\n", "class F:\n"):
        code = f"try:\n    {wrapper}        import x\nexcept ImportError:\n    pass\n"
        assert not g.import_is_caught(node_at(code, "import x"), errors)


def test_comments_are_not_statements():
    assert g.only_raises(_block("if c:\n    raise E()\n    # why\n    raise F()\n"))
    assert g.tries_with_fallback(_block("if x.is_cuda:\n    # the kernel, else the slow path\n    try:\n        return k(x)\n"
                                        "    except RuntimeError:\n        pass\n"))

    def body(code):
        function = parsing.parse("python", code.encode()).named_children[0]
        return function.child_by_field_name("body").named_children[0].child_by_field_name("consequence")
    assert g.returns_input_unchanged(body("def w(fn):\n    if c:\n        return fn\n        # eager\n"))
    assert not g.returns_input_unchanged(body("def w(fn):\n    if c:\n        fn\n"))
    assert not g.returns_input_unchanged(body("def w(fn):\n    if c:\n        pass\n        return fn\n"))
    assert g.returns_input_unchanged(body("def w(fn):\n    if c:\n        self.logger.warning('x')\n        return fn\n"))


def test_walks_up_stop_at_their_bound():
    for levels, found in ((250, True), (g.MAX_DEPTH + 5, False)):  # 250: within the bound, not within half of it
        test = f"def test_a():\n    y = {deep('f(x)', levels)}\n"
        assert (g.test_function(node_at(test, "f(x)")) is not None) is found
        condition = f"if {deep('torch.cuda.is_available()', levels)}:\n    x = 1\n"
        site = node_at(condition, "torch.cuda.is_available()")
        root = parsing.parse("python", condition.encode())
        assert (reader().checked_body(root, site.start_point, site.end_point) is not None) is found
        helper = f"def _k(q):\n    return {deep('flash(q)', levels)}\n\ndef f(q):\n    if HAS_TRITON:\n        _k(q)\n"
        assert (reader().guard_of_callers(node_at(helper, "flash(q)"), "attention") is not None) is found


@pytest.mark.parametrize("body, expected", [
    ("if a:\n        raise ValueError()\n    elif b:\n        raise TypeError()", True),
    ("if a:\n        raise ValueError()\n    elif b:\n        warnings.warn('x')\n    else:\n        pass", True),
    ("if a:\n        raise ValueError()\n    else:\n        x = 1", False),
    ("if a:\n        raise ValueError()\n    x = 1", False),
    ("pass\n    x = 1", False),
    ("if a:\n        if b:\n            raise ValueError()\n        else:\n            logger.info('x')", True),
    ("self.logger.warning('x')", True),
    ("# misuse\n    raise ValueError()", True),
])
def test_only_raises_or_warns_nested_and_sequenced(body, expected):
    assert g.only_raises_or_warns(_block(f"if c:\n    {body}\n")) is expected


def test_the_else_of_a_negated_check_takes_each_kind_of_positive_reading():
    hip = "if not torch.version.hip:\n    cpu_path()\nelse:\n    torch.cuda.synchronize()\n"
    found = guard(hip, "torch.cuda.synchronize()", "device")
    assert found.reach == "other-backend" and found.reason() == "line 1: if not torch.version.hip:"
    assert reach(f"if not HAS_TRITON:\n    o = sdpa(q)\nelse:\n    o = {FLASH}\n", FLASH) == "optional"
    assert reach(f"if not config.use_triton:\n    o = sdpa(q)\nelse:\n    o = {FLASH}\n", FLASH) == "optional"


def test_a_site_in_a_later_arm_takes_that_arms_guard():
    code = f"if q.is_cpu:\n    o = sdpa(q)\nelif q.is_cuda:\n    o = {FLASH}\nelse:\n    o = sdpa(q)\n"
    assert reach(code, FLASH) == "cuda-only-guarded"
    assert guard("if torch.version.hip:\n    torch.cuda.synchronize()\n", "torch.cuda.synchronize()",
                 "device").reason() == "line 1: if torch.version.hip:"
    npu = f"def f(q, k, v):\n    if q.is_npu:\n        return npu_attention(q)\n    return {FLASH}\n"
    assert guard(npu, FLASH).reason() == "line 2: if q.is_npu:"


def test_a_plain_call_in_a_try_is_not_an_import():
    code = "try:\n    torch.cuda.synchronize()\nexcept ImportError:\n    pass\n"
    assert reach(code, "torch.cuda.synchronize()", "device", "DEV004") == "runs"


def test_more_condition_readings():
    fallback = "try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n"
    assert reach(fallback + f"if ready or xops:\n    o = {FLASH}\n", FLASH) == "runs"  # only as a term of an `and`
    assert reach(fallback + f"if xops == None:\n    o = {FLASH}\n", FLASH) == "runs"  # `is` / `is not` only
    assert reach(f"if flash_available:\n    o = {FLASH}\n", FLASH) == "runs"  # a lower-case gate needs is_/has_
    read = reader().condition
    assert read(node_at("if ((not q.is_cuda)):\n    pass\n", "((not q.is_cuda))")).negated
    assert read(node_at("if mode != 'off' and ready:\n    pass\n", "mode != 'off' and ready")).flag
    assert read(node_at("if a and b and mode != 'off':\n    pass\n", "a and b and mode != 'off'")).flag
    assert not read(node_at("if mode == 'off':\n    pass\n", "mode == 'off'")).flag
    assert not read(node_at("if mode != 'Xoff':\n    pass\n", "mode != 'Xoff'")).flag


def test_a_condition_is_read_up_to_its_node_budget():
    def cuda_after(terms):
        text = " or ".join(f"a{n}" for n in range(terms)) + " or q.is_cuda"
        return reader().condition(node_at(f"if {text}:\n    pass\n", text)).cuda
    assert cuda_after(100)  # about 300 nodes: inside MAX_CONDITION_NODES
    assert not cuda_after(300)  # past it: the rest of the condition is not read


def test_trailing_comments_in_a_block_are_not_statements():
    root = parsing.parse("python", b"try:\n    a()\nexcept E:\n    raise\n    # then\n    raise\n")
    assert g.only_raises([c for c in root.named_children[0].children if c.type == "except_clause"][0])
    assert g.only_raises_or_warns(_block("if c:\n    raise ValueError()\n    # misuse\n"))
    assert g.tries_with_fallback(_block("if x.is_cuda:\n    try:\n        return k(x)\n    except RuntimeError:\n"
                                        "        pass\n    # fall through to the slow path\n"))


# the project's own NPU split: try: import torch_npu ... except ImportError: ... ----------------------------------
NPU_SPLIT = ("try:\n"
             "    import torch_npu\n"
             "    from torch_npu.contrib import transfer_to_npu\n"
             "except ImportError:\n"
             "    from .comm import flash_attn_func\n"
             f"    out = {FLASH}\n")


def test_the_import_error_arm_of_a_torch_npu_try_is_another_backend():
    found = guard(NPU_SPLIT, FLASH)
    assert found.reach == "other-backend" and found.node.type == "except_clause"
    assert found.note == "taken only where torch_npu does not import; on Ascend the NPU arm at line 2 runs"
    assert reach(NPU_SPLIT, "from .comm import flash_attn_func", "device") == "other-backend"


@pytest.mark.parametrize("clause", ["except (ImportError, ModuleNotFoundError):", "except ModuleNotFoundError as e:",
                                    "except:", "except Exception:"])
def test_any_handler_that_catches_the_failed_import_is_the_other_arm(clause):
    assert reach(NPU_SPLIT.replace("except ImportError:", clause), FLASH) == "other-backend"


@pytest.mark.parametrize("clause", ["except RuntimeError:", "except (KeyError, ValueError):"])
def test_a_handler_that_cannot_catch_the_import_decides_nothing(clause):
    assert reach(NPU_SPLIT.replace("except ImportError:", clause), FLASH) == "runs"


@pytest.mark.parametrize(("body", "line"), [
    ("    import torch_npu as tn\n", 2),
    ("    import os, torch_npu\n", 2),
    ("    import torch_npu.npu\n", 2),
    ("    from torch_npu.contrib import transfer_to_npu\n", 2),
    ("    x = 1\n    import torch_npu\n", 3),  # not the first statement
])
def test_the_npu_import_is_found_in_any_spelling_and_its_line_is_named(body, line):
    code = f"try:\n{body}except ImportError:\n    out = {FLASH}\n"
    found = guard(code, FLASH)
    assert found.reach == "other-backend" and found.note.endswith(f"the NPU arm at line {line} runs")


@pytest.mark.parametrize("body", [
    "    import torch_npu_helpers\n",  # another package
    "    import npu_tools\n",
    "    if ok:\n        import torch_npu\n",  # not directly in the try body
    "    x = torch_npu\n",  # no import
    "    import flash_attn\n",
])
def test_a_try_without_a_torch_npu_import_is_no_npu_split(body):
    code = f"try:\n{body}except ImportError:\n    out = {FLASH}\n"
    assert reach(code, FLASH) == "runs"


def test_the_npu_package_is_named_among_other_imports():
    code = f"try:\n    import abc, torch_npu, zlib\nexcept ImportError:\n    out = {FLASH}\n"
    assert guard(code, FLASH).note.startswith("taken only where torch_npu does not import")


def test_a_torch_npu_import_spelled_with_a_tab_is_the_npu_split():
    code = f"try:\n    import torch_npu\tas tn\nexcept ImportError:\n    out = {FLASH}\n"
    assert reach(code, FLASH) == "other-backend"


def test_imports_in_the_try_body_of_a_torch_npu_try_run():
    plain = "try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n"
    assert reach(plain, "import flash_attn", "device") == "optional"
    split = "try:\n    import torch_npu\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n"
    assert reach(split, "import flash_attn", "device") == "runs"
    assert reach(split, "import torch_npu", "device") == "runs"


@pytest.mark.parametrize(("code", "roots"), [
    ("import torch_npu as tn\n", {"torch_npu"}),
    ("import a.b, c as d\n", {"a", "c"}),
    ("from torch_npu.contrib import x\n", {"torch_npu"}),
    ("from torch_npu import x as y\n", {"torch_npu"}),
    ("from .utils import x\n", {""}),
    ("from . import x\n", {""}),
    ("import torch_npu\tas tn\n", {"torch_npu"}),  # spacing Python accepts
    ("import torch_npu .npu\n", {"torch_npu"}),
    ("from torch_npu . contrib import x\n", {"torch_npu"}),
])
def test_imported_roots(code, roots):
    assert g._imported_roots(parsing.parse("python", code.encode()).named_children[0]) == roots


def test_npu_import_reads_only_a_try_body():
    r = reader()
    code = "try:\n    import os\n    import torch_npu\nexcept ImportError:\n    pass\n"
    assert parsing.text(r._npu_import(node_at(code, "try:"))) == "import torch_npu"
    assert r._npu_import(node_at("try:\n    import os\nexcept ImportError:\n    pass\n", "try:")) is None


# a CUDA error handler beside a broader one doing the same ---------------------------------------------------------
CUDA_ERROR = ("def f():\n"
              "    try:\n"
              "        run()\n"
              "    except torch.cuda.CudaError as e:\n"
              "        logger.error(f'CUDA failed: {e}')\n"
              "        return None\n"
              "    except Exception as err:\n"
              "        logger.error(f'failed: {err}')\n"
              "        return None\n")
CUDA_TYPE = "torch.cuda.CudaError"


def test_a_cuda_error_handler_a_broader_one_repeats_needs_no_change():
    found = guard(CUDA_ERROR, CUDA_TYPE, "device")
    assert found.reach == "cuda-only-guarded" and found.node.type == "except_clause"
    assert found.note == "never matches on NPU; the handler at line 7 does the same"


@pytest.mark.parametrize("broad", ["except:", "except BaseException as err:", "except RuntimeError as err:",
                                   "except (ValueError, Exception) as err:"])
def test_any_broad_handler_repeats_it(broad):
    code = CUDA_ERROR.replace("except Exception as err:", broad)
    code = code.replace("{err}", "{e}") if broad == "except:" else code
    assert reach(code.replace("{e}')", "')") if broad == "except:" else code, CUDA_TYPE, "device") == \
        "cuda-only-guarded"


@pytest.mark.parametrize(("old", "new"), [
    ("except Exception as err:", "except ValueError as err:"),  # narrower: does not catch what CudaError is
    ("        logger.error(f'failed: {err}')\n        return None\n",
     "        logger.error(f'failed: {err}')\n        return 1\n"),  # another result
    ("        logger.error(f'failed: {err}')\n        return None\n",
     "        logger.error(f'failed: {err}')\n        raise\n"),  # raises again
])
def test_a_handler_that_differs_or_catches_less_repeats_nothing(old, new):
    code = CUDA_ERROR.replace(old, new)
    assert code != CUDA_ERROR
    assert reach(code, CUDA_TYPE, "device") == "runs"


@pytest.mark.parametrize(("old", "new"), [
    ("        logger.error(f'failed: {err}')\n", "        logger.warning(f'failed: {err}')\n"),  # another level
    ("        logger.error(f'failed: {err}')\n", "        logger.error(f'failed: {err}')\n        traceback.print_exc()\n"),
    ("        logger.error(f'failed: {err}')\n", ""),  # no message at all
])
def test_handlers_that_differ_only_in_their_messages_repeat_it(old, new):
    """Round 26 verdict V5 (B2 row 46): a CudaError handler and the `except Exception` after it give the same reply;
    the broad one also prints a traceback. What they print or log is no result: on NPU the broad one does the same."""
    code = CUDA_ERROR.replace(old, new)
    assert code != CUDA_ERROR
    assert reach(code, CUDA_TYPE, "device") == "cuda-only-guarded"


def test_the_same_handler_with_the_same_name_bound_repeats_it():
    code = CUDA_ERROR.replace("{err}", "{e}").replace("as err", "as e").replace("f'CUDA failed: {e}'", "e")
    code = code.replace("f'failed: {e}'", "e")
    assert reach(code, CUDA_TYPE, "device") == "cuda-only-guarded"


def test_a_later_handler_after_a_different_one_is_found():
    code = CUDA_ERROR.replace("    except Exception as err:\n",
                              "    except ValueError:\n        raise\n    except Exception as err:\n")
    assert guard(code, CUDA_TYPE, "device").note == "never matches on NPU; the handler at line 9 does the same"


def test_a_non_cuda_handler_is_no_cuda_error_clause():
    code = CUDA_ERROR.replace("torch.cuda.CudaError", "torch.xpu.XpuError")
    assert reach(code, "torch.xpu.XpuError", "device") == "runs"
    clause = node_at(CUDA_ERROR, "except torch.cuda.CudaError")
    assert clause.type == "except_clause"
    assert reader()._cuda_error_clause(clause).reach == "cuda-only-guarded"
    assert reader()._cuda_error_clause(clause.next_named_sibling) is None  # `except Exception` itself


def test_a_site_in_the_cuda_handler_body_is_not_decided_by_it():
    code = CUDA_ERROR.replace("        return None\n    except Exception", "        torch.cuda.empty_cache()\n"
                              "        return None\n    except Exception")
    assert reach(code, "torch.cuda.empty_cache()", "device") == "runs"


def test_alias_of_an_except_clause():
    def alias(code):
        return g._alias(node_at(code, "except").parent)
    assert alias("try:\n    x\nexcept E as e:\n    pass\n") == "e"
    assert alias("try:\n    x\nexcept (A, B) as err:\n    pass\n") == "err"
    assert alias("try:\n    x\nexcept E:\n    pass\n") == ""
    assert alias("try:\n    x\nexcept:\n    with a as b:\n        pass\n") == ""


def test_shape_blanks_strings_and_the_bound_name():
    def body(code):
        return node_at(code, "except").parent.named_children[-1]
    code = "try:\n    x\nexcept E as e:\n    log('a', e)\n    return None\n"
    assert g._shape(body(code), "e") == [("identifier", "log"), ("(", "("), ("string", ""), (",", ","),
                                         ("identifier", ""), (")", ")"), ("return", "return"), ("none", "None")]
    assert g._shape(body(code), "") == g._shape(body(code.replace("'a'", "'b'")), "e")[:4] + \
        [("identifier", "e"), (")", ")"), ("return", "return"), ("none", "None")]


def test_shape_reads_at_most_4000_nodes():
    # the block is node 1; each `x = 1` 5 nodes (statement, assignment, x, =, 1), 3 of them leaves: node 4000 is the
    # `=` of the 800th statement
    code = "try:\n    x\nexcept E:\n" + "    x = 1\n" * 900
    block = node_at(code, "except").parent.named_children[-1]
    assert len(g._shape(block, "")) == 799 * 3 + 2


# availability flags set True in the try body, and names derived from them -----------------------------------------
FLAG_CODE = ("try:\n"
             "    from flash_attn import flash_attn_func\n"
             "    has_flash_attn = True\n"
             "except ImportError:\n"
             "    has_flash_attn = False\n\n"
             "class A:\n"
             "    def __init__(self, config):\n"
             "        self.use_flash_attn = config.use_flash_attn and has_flash_attn\n\n"
             "    def forward(self, q, k, v):\n"
             "        if self.use_flash_attn:\n"
             f"            return {FLASH}\n"
             "        return sdpa(q)\n")


def test_a_flag_set_true_after_the_import_and_false_in_the_handler_is_a_gate():
    names, _, gated, marks = g._import_fallback_names(parsing.parse("python", FLAG_CODE.encode()), frozenset(["ImportError"]))
    assert marks == {"has_flash_attn": "True"}  # the value a test of the mark compares with
    assert names == {"has_flash_attn"}
    assert gated == {"flash_attn_func"}  # what the try imports is missing where the flag is False
    none = FLAG_CODE.replace("has_flash_attn = False", "has_flash_attn = None")
    assert g._import_fallback_names(parsing.parse("python", none.encode()), frozenset(["ImportError"]))[0] == \
        {"has_flash_attn"}


@pytest.mark.parametrize(("old", "new"), [
    ("    has_flash_attn = True\n", ""),  # never set True: a plain assignment in the handler
    ("    has_flash_attn = False\n", "    has_flash_attn = 0\n"),
    ("    has_flash_attn = False\n", "    has_flash_attn = True\n"),  # the handler keeps the mark
    ("    from flash_attn import flash_attn_func\n", "    x = 1\n"),  # no import in the try
])
def test_what_is_no_availability_flag(old, new):
    code = FLAG_CODE.replace(old, new)
    assert g._import_fallback_names(parsing.parse("python", code.encode()), frozenset(["ImportError"]))[0] == set()


def test_a_mark_of_any_literal_unset_by_the_handler_is_a_flag():
    # round 17 (Wan2.1 prompt_extend.py:16-21): `FLASH_VER = 2` after the import, `FLASH_VER = None` in the handler
    code = FLAG_CODE.replace("has_flash_attn = True", "has_flash_attn = 2").replace("has_flash_attn = False", "has_flash_attn = None")
    names, _, _, marks = g._import_fallback_names(parsing.parse("python", code.encode()), frozenset(["ImportError"]))
    assert names == {"has_flash_attn"} and marks == {"has_flash_attn": "2"}


def test_every_flag_of_a_handler_is_read():
    code = FLAG_CODE.replace("has_flash_attn = True\n", "has_flash_attn = True\n    has_x = True\n").replace(
        "has_flash_attn = False\n", "has_flash_attn = False\n    has_x = False\n")
    assert g._import_fallback_names(parsing.parse("python", code.encode()), frozenset(["ImportError"]))[0] == \
        {"has_flash_attn", "has_x"}


def test_constant_assignments():
    code = "try:\n    a = True\n    b = False\n    c = None\n    d = 1\n    e.f = True\n    g: bool = True\n    pass\n" \
           "    h, i = True, False\n    j = k = True\nexcept ImportError:\n    pass\n"
    block = node_at(code, "a = True").parent.parent
    assert g._constant_assignments(block) == [("a", "true", "True"), ("b", "false", "False"), ("c", "none", "None"),
                                              ("d", "integer", "1"), ("g", "true", "True")]


def test_a_name_every_assignment_of_which_ands_the_flag_is_a_gate():
    assert reach(FLAG_CODE, FLASH) == "optional"
    condition = node_at(FLAG_CODE, "self.use_flash_attn", 1)
    assert reader().availability_flag(condition) == "has_flash_attn"
    assert reader()._requires_fallback(condition) == {"self.use_flash_attn": "has_flash_attn"}


@pytest.mark.parametrize("condition", ["has_flash_attn", "not has_flash_attn", "ok and has_flash_attn",
                                       "(self.use_flash_attn)", "self.use_flash_attn and ok"])
def test_availability_flag_of_a_condition(condition):
    code = FLAG_CODE.replace("if self.use_flash_attn:", f"if {condition}:")
    found = node_at(code, f"if {condition}:").child_by_field_name("condition")
    assert reader().availability_flag(found) == "has_flash_attn"


@pytest.mark.parametrize("condition", ["self.other", "use_flash_attn", "config.has_flash_attn", "has_flash_attn()"])
def test_a_condition_naming_no_flag_has_none(condition):
    code = FLAG_CODE.replace("if self.use_flash_attn:", f"if {condition}:")
    found = node_at(code, f"if {condition}:").child_by_field_name("condition")
    expected = "has_flash_attn" if condition == "has_flash_attn()" else None  # the name inside the call is the flag
    assert reader().availability_flag(found) == expected


def test_availability_flag_reads_at_most_400_nodes():
    # `has_flash_attn and x1 and ... and xn`: the flag is popped at step 2n + 1
    def flag(n):
        condition = " and ".join(["has_flash_attn"] + [f"x{i}" for i in range(1, n + 1)])
        code = FLAG_CODE.replace("if self.use_flash_attn:", f"if {condition}:")
        return reader().availability_flag(node_at(code, condition))
    assert flag(199) == "has_flash_attn"
    assert flag(200) is None

    def parenthesized(n):  # one node more: the flag is popped at step 2n + 2
        condition = "(" + " and ".join(["has_flash_attn"] + [f"x{i}" for i in range(1, n + 1)]) + ")"
        code = FLAG_CODE.replace("if self.use_flash_attn:", f"if {condition}:")
        return reader().availability_flag(node_at(code, condition))
    assert parenthesized(199) == "has_flash_attn"
    assert parenthesized(200) is None


@pytest.mark.parametrize(("assignments", "derived"), [
    ("        self.use_flash_attn = config.use_flash_attn and has_flash_attn\n", {"self.use_flash_attn": "has_flash_attn"}),
    ("        self.use_flash_attn = has_flash_attn and config.x\n", {"self.use_flash_attn": "has_flash_attn"}),
    ("        use = a and b and has_flash_attn\n", {"use": "has_flash_attn"}),
    ("        self.use_flash_attn = config.use_flash_attn or has_flash_attn\n", {}),
    ("        self.use_flash_attn = config.use_flash_attn\n", {}),
    ("        self.use_flash_attn = config.x and other\n", {}),
    ("        self.use_flash_attn = config.x and has_flash_attn\n        self.use_flash_attn = False\n", {}),
    ("        self.use_flash_attn = config.x and has_flash_attn\n"
     "        self.use_flash_attn = config.y and has_flash_attn\n", {"self.use_flash_attn": "has_flash_attn"}),
    ("        d[0] = config.x and has_flash_attn\n", {}),
    ("        d[0] = 1\n        self.use_flash_attn = config.x and has_flash_attn\n",
     {"self.use_flash_attn": "has_flash_attn"}),  # read past an assignment to something else
    ("        self.use_flash_attn: bool\n        self.use_flash_attn = config.x and has_flash_attn\n",
     {"self.use_flash_attn": "has_flash_attn"}),  # a declaration without a value assigns nothing
    ("        a, b = config.x and has_flash_attn, 1\n", {}),
])
def test_requires_fallback(assignments, derived):
    code = FLAG_CODE.replace("        self.use_flash_attn = config.use_flash_attn and has_flash_attn\n", assignments)
    assert reader()._requires_fallback(node_at(code, "class A")) == derived


def test_two_flags_for_one_name_decide_nothing():
    code = FLAG_CODE.replace("has_flash_attn = True\n", "has_flash_attn = True\n    has_x = True\n").replace(
        "has_flash_attn = False\n", "has_flash_attn = False\n    has_x = False\n")
    code = code.replace("        self.use_flash_attn = config.use_flash_attn and has_flash_attn\n",
                        "        self.use_flash_attn = config.a and has_flash_attn\n"
                        "        self.use_flash_attn = config.b and has_x\n")
    assert reader()._requires_fallback(node_at(code, "class A")) == {}


def test_no_flag_in_the_unit_derives_nothing():
    code = FLAG_CODE.replace("    has_flash_attn = False\n", "    raise\n")
    assert reader()._requires_fallback(node_at(code, "class A")) == {}


def test_only_the_first_5000_assignments_are_read():
    def derived(fillers):
        code = FLAG_CODE.replace("class A:\n", "x = 0\n" * fillers + "class A:\n")
        return reader()._requires_fallback(node_at(code, "class A"))
    # the try's own two assignments come first: the derived one is assignment number fillers + 3
    assert derived(4997) == {"self.use_flash_attn": "has_flash_attn"}
    assert derived(4998) == {}


def test_a_derived_name_compared_with_none_or_in_an_and_is_a_gate():
    code = FLAG_CODE.replace("self.use_flash_attn", "self.ready")  # a name that is no opt-in flag of its own
    for condition in ("self.ready", "self.ready is not None", "ok and self.ready"):
        assert reach(code.replace("if self.ready:", f"if {condition}:"), FLASH) == "optional"
    assert reach(code.replace("and has_flash_attn", "and other"), FLASH) == "runs"
    assert reach(code.replace("self.ready = config.use_flash_attn and has_flash_attn", "ready = ok and has_flash_attn")
                 .replace("if self.ready:", "if ready:"), FLASH) == "optional"


def test_the_derived_names_are_read_again_for_each_unit():
    r = reader()
    assert r.availability_flag(node_at(FLAG_CODE, "self.use_flash_attn", 1)) == "has_flash_attn"
    r.start_unit()
    other = FLAG_CODE.replace("and has_flash_attn", "and other")
    assert r.availability_flag(node_at(other, "self.use_flash_attn", 1)) is None


def test_the_method_bindings_and_the_derived_names_share_one_query_of_the_units_assignments(monkeypatch):
    """method_bindings and _requires_fallback read the same first 5000 assignments of the unit: queried once per unit
    (GuardReader._assignments), each reading what it read from a query of its own; a new unit queries again."""
    code = FLAG_CODE + "class B:\n    def __init__(self):\n        self.forward = self._fast\n"
    queried = []
    original = parsing.captures

    def counting(query, node):
        queried.append(query)
        return original(query, node)

    monkeypatch.setattr(parsing, "captures", counting)
    guards = reader()
    site = node_at(code, "class A")
    assert guards._requires_fallback(site) == {"self.use_flash_attn": "has_flash_attn"}
    assert [parsing.text(n) for n in guards.method_bindings(site)["_fast"]] == ["self._fast"]
    assignments = parsing.query("python", g.ASSIGNMENTS)
    assert queried.count(assignments) == 1
    guards.start_unit()
    assert [parsing.text(n) for n in guards.method_bindings(site)["_fast"]] == ["self._fast"]
    assert queried.count(assignments) == 2


def test_the_units_assignments_come_from_its_combined_query_where_the_core_gives_them(monkeypatch):
    """The core hands the reader the unit's tree and its assignments from the unit's combined query
    (filework.ASSIGNMENTS_QUERY): no query of the reader's own then, the same answers; a node of another tree is read
    with the reader's own query."""
    from ascend_feasibility.analyzer.core.filework import ASSIGNMENTS_QUERY
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit

    code = FLAG_CODE + "class B:\n    def __init__(self):\n        self.forward = self._fast\n"
    unit = Unit("m.py", "python", SourceText.from_text(code))
    queried = []
    original = parsing.captures

    def counting(query, node):
        queried.append(query)
        return original(query, node)

    guards = reader()
    guards.unit_assignments = lambda: (unit.tree(), unit.captures(ASSIGNMENTS_QUERY).get("assignment", []))
    site = unit.tree().descendant_for_point_range(node_at(code, "class A").start_point, node_at(code, "class A").end_point)
    unit.captures(ASSIGNMENTS_QUERY)  # the combined query, as the core has run it by then
    monkeypatch.setattr(parsing, "captures", counting)
    assert guards._requires_fallback(site) == {"self.use_flash_attn": "has_flash_attn"}
    assert [parsing.text(n) for n in guards.method_bindings(site)["_fast"]] == ["self._fast"]
    assert queried == []
    guards.start_unit()
    guards.unit_assignments = lambda: (unit.tree(), unit.captures(ASSIGNMENTS_QUERY).get("assignment", []))
    assert [parsing.text(n) for n in guards.method_bindings(node_at(code, "class A"))["_fast"]] == ["self._fast"]
    assert queried == [parsing.query("python", g.ASSIGNMENTS)]  # another tree than the unit's: its own query
