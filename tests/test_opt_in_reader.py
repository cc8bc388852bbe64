"""Opt-in code (analyzer/context/opt_in.py) read directly: OptInReader on small parsed snippets (alternatives,
profilers, library functions, feature helpers, integrations, type checks) and the per-module passes on plain facts
(modules a configuration selects or names, options declared off). Each expectation is read from the module's
docstrings; tests/test_opt_in.py runs the same readers through whole analyses."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.context import opt_in as oi
from ascend_feasibility.analyzer.context.guards import GuardReader
from ascend_feasibility.analyzer.context.opt_in import OptInReader
from ascend_feasibility.analyzer.context.project import FileContext, ProjectContext
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()
OPT_IN = CONVENTIONS.opt_in


def reader() -> OptInReader:
    guards = GuardReader(CONVENTIONS.guards, CONVENTIONS.backends, tuple(OPT_IN.disabled_values))
    read = OptInReader(OPT_IN, guards)
    guards.start_unit()
    return read


def opt(code: str, needle: str, domain: str = "attention", symbol: str = "", rule: str = ""):
    """(the deciding node's first line, the reason) when the site is optional, else None."""
    found = reader().guard(node_at(code, needle), domain, symbol, rule)
    if found is None:
        return None
    assert found.reach == "optional"
    return parsing.text(found.node).splitlines()[0], found.reason()


def test_the_conventions_are_read():
    read = reader()
    assert read.packages == tuple(OPT_IN.integration_packages) and read.class_words == tuple(OPT_IN.integration_class_words)
    assert read.type_checks == frozenset(OPT_IN.type_check_calls)
    assert read.type_check_domains == frozenset(OPT_IN.type_check_domains)
    assert read.fa3 == tuple(OPT_IN.flash_attn_3_packages) and read.fa2 == tuple(OPT_IN.flash_attn_2_packages)
    assert read.sdpa_calls == tuple(OPT_IN.sdpa_calls) and read.profiler_tokens == tuple(OPT_IN.profiler_name_tokens)
    assert read.conventions is OPT_IN and read._offers is None
    assert read.switches.argument_objects == frozenset(OPT_IN.argument_objects)
    assert read.switches.mainstream == frozenset(OPT_IN.mainstream_switch_tokens)
    assert read.switches.feature_tokens == frozenset(OPT_IN.feature_switch_tokens)
    assert read._forget_unit in read.guards.unit_resets


# FlashAttention-3 beside FA2 or SDPA ---------------------------------------------------------------------------
FA3 = "flash_attn_func_v3(q, k, v)"
WHY_FA3 = "a FlashAttention-3 alternative to the FA2/SDPA path the file also offers"


@pytest.mark.parametrize("offer, line", [
    ("import flash_attn", "import flash_attn"),
    ("from flash_attn import flash_attn_func", "from flash_attn import flash_attn_func"),
    ("import os, flash_attn.ops as ops", "import os, flash_attn.ops as ops"),
    ("import flash_attn.ops as ops", "import flash_attn.ops as ops"),
    ("from .kernels import flash_attn", "from .kernels import flash_attn"),  # the names a `from` import brings in
])
def test_flash_attention_3_beside_a_flash_attention_2_import_is_an_alternative(offer, line):
    code = f"{offer}\nfrom flash_attn_interface import flash_attn_func as flash_attn_func_v3\n{FA3}\n"
    assert opt(code, FA3, symbol="flash_attn_interface.flash_attn_func") == (line, f"{WHY_FA3}; line 1: {line}")


def test_flash_attention_3_beside_an_sdpa_call_is_an_alternative():
    code = f"import hopper\n{FA3}\nout = F.scaled_dot_product_attention(q, k, v)\n"
    assert opt(code, FA3, symbol="hopper.flash_attn_func") == (
        "scaled_dot_product_attention", f"{WHY_FA3}; line 3: scaled_dot_product_attention")


@pytest.mark.parametrize("code, symbol", [
    (f"import flash_attn_interface\n{FA3}\n", "flash_attn_interface.flash_attn_func"),  # no FA2, no SDPA
    (f"import flash_attn\n{FA3}\n", "flash_attn.flash_attn_func"),  # FA2 itself
    (f"import flash_attn_3_cuda\n{FA3}\n", "flash_attn_interface.f"),  # `flash_attn_3_cuda` is not `flash_attn`
])
def test_no_alternative(code, symbol):
    assert opt(code, FA3, symbol=symbol) is None


def test_imports_are_read_up_to_two_thousand():
    def code(before: int) -> str:
        return "import os\n" * before + f"import flash_attn\n{FA3}\n"
    assert opt(code(1999), FA3, symbol="flash_attn_3.f") is not None
    assert opt(code(2000), FA3, symbol="flash_attn_3.f") is None


def test_the_offer_is_read_once_per_unit():
    read = reader()
    code = f"import flash_attn\n{FA3}\n"
    assert read.guard(node_at(code, FA3), "attention", "flash_attn_3.f") is not None
    other = f"import os\n{FA3}\n"
    # the unit has not changed for the reader: the remembered offer answers
    assert read.guard(node_at(other, FA3), "attention", "flash_attn_3.f") is not None
    read.guards.start_unit()
    assert read._offers is None
    assert read.guard(node_at(other, FA3), "attention", "flash_attn_3.f") is None


# profilers ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("code, name", [
    ("class NsysProfiler:\n    def start(self):\n        torch.cuda.synchronize()\n", "NsysProfiler"),
    ("def start_profiling():\n    torch.cuda.synchronize()\n", "start_profiling"),
    ("class Tools:\n    def nsight_range(self):\n        def inner():\n            torch.cuda.synchronize()\n", "nsight_range"),
])
def test_a_site_inside_a_profiler_is_optional(code, name):
    line = next(i for i, text in enumerate(code.splitlines()) if name in text) + 1
    assert opt(code, "torch.cuda.synchronize()", domain="device") == (
        name, f"inside the profiler {name}: it runs only when profiling is switched on; line {line}: {name}")


def test_a_site_outside_any_profiler_is_not():
    assert opt("class Trainer:\n    def step(self):\n        torch.cuda.synchronize()\n", "torch.cuda.synchronize()",
               domain="device") is None


# functions named for a CUDA-only library ------------------------------------------------------------------------
LIBRARY = "def replace_vae_attn_to_xformers():\n    xformers.ops.memory_efficient_attention(q, k, v)\n"
WHY_LIBRARY = ("inside replace_vae_attn_to_xformers(), named for xformers and called nowhere in this file: an "
               "alternative a user opts into")


def test_a_function_named_for_a_library_that_nothing_calls_is_optional():
    assert opt(LIBRARY, "xformers.ops.memory_efficient_attention") == (
        "replace_vae_attn_to_xformers", f"{WHY_LIBRARY}; line 1: replace_vae_attn_to_xformers")


def test_the_outermost_function_names_it():
    code = "def use_flash_path():\n    def inner():\n        flash_attn_func(q)\n    return inner\n"
    found = opt(code, "flash_attn_func(q)")
    assert found is not None and found[0] == "use_flash_path"


@pytest.mark.parametrize("code", [
    LIBRARY + "replace_vae_attn_to_xformers()\n",  # called
    LIBRARY.replace("replace_vae_attn_to_xformers", "replace_vae_attn_npu_xformers"),  # an NPU function
    LIBRARY.replace("replace_vae_attn_to_xformers", "test_xformers"),  # a test
    LIBRARY.replace("replace_vae_attn_to_xformers", "replace_vae_attn"),  # named for nothing
    "xformers.ops.memory_efficient_attention(q, k, v)\n",  # in no function
])
def test_other_functions_are_not_optional(code):
    assert opt(code, "xformers.ops.memory_efficient_attention") is None


def test_only_cuda_only_features_are_read_in_library_functions():
    assert opt(LIBRARY, "xformers.ops.memory_efficient_attention", domain="device") is None


def test_library_function_walk_is_bounded():
    def code(m: int) -> str:
        return "def use_xformers_path():\n    return " + "(" * m + "xf(q)" + ")" * m + "\n"
    # xf(q), m parentheses, the return, the block, the function: the (m + 3)-th ancestor, read while m + 2 < 400
    assert opt(code(oi.MAX_DEPTH - 3), "xf(q)") is not None
    assert opt(code(oi.MAX_DEPTH - 2), "xf(q)") is None


# helpers named for the feature ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["compile_regions", "maybe_torch_compile", "use_triton_kernels", "__compiled__"])
def test_a_helper_named_for_the_opt_in_feature_is_optional(name):
    code = f"def {name}(module):\n    return torch.compile(module)\n"
    assert opt(code, "torch.compile(module)", domain="graph", rule="DEV501") == (name, f"line 1: {name}")


def test_a_helper_named_otherwise_or_another_rule_is_not():
    code = "def build(module):\n    return torch.compile(module)\n"
    assert opt(code, "torch.compile(module)", domain="graph", rule="DEV501") is None
    code = "def compile_regions(module):\n    return torch.compile(module)\n"
    assert opt(code, "torch.compile(module)", domain="graph", rule="DEV004") is None


def test_the_nearest_function_named_for_the_feature_decides():
    code = "def compile_all(model):\n    def inner(m):\n        return torch.compile(m)\n    return inner\n"
    assert opt(code, "torch.compile(m)", domain="graph", rule="DEV501") == ("compile_all", "line 1: compile_all")


# integrations ---------------------------------------------------------------------------------------------------
def test_a_package_is_the_symbols_root():
    read = reader()
    assert read._package("deepspeed.initialize") == "deepspeed"
    assert read._package("DeepSpeed.zero.Init") == "deepspeed"
    assert read._package("transformer_engine_torch.fp8") == "transformer_engine"
    assert read._package("deepspeed") == "deepspeed"
    assert read._package("deepspeedx.init") is None and read._package("torch.cuda") is None
    assert read._package("") is None


@pytest.mark.parametrize("cls", ["DeepSpeedPlugin", "Deep_Speed_Config", "MyDeepSpeedEngineWrapper"])
def test_a_site_in_a_class_named_for_the_integration_is_optional(cls):
    code = f"class {cls}:\n    def setup(self):\n        deepspeed.initialize(model)\n"
    assert opt(code, "deepspeed.initialize(model)", domain="distributed", symbol="deepspeed.initialize") == (
        cls, f"line 1: {cls}")


@pytest.mark.parametrize("cls", ["DeepSpeedThing", "MegatronPlugin"])
def test_a_class_needs_the_framework_and_an_integration_word(cls):
    code = f"class {cls}:\n    def setup(self):\n        deepspeed.initialize(model)\n"
    assert opt(code, "deepspeed.initialize(model)", domain="device", symbol="deepspeed.initialize") is None


def test_a_transformer_engine_class_is_matched_without_underscores():
    code = "class TransformerEngineBackend:\n    def f(self):\n        te.fp8_autocast()\n"
    assert opt(code, "te.fp8_autocast()", domain="device", symbol="transformer_engine.pytorch.fp8_autocast") == (
        "TransformerEngineBackend", "line 1: TransformerEngineBackend")


ACCELERATE = ("class Accelerator:\n"
              "    def _prepare_deepspeed(self, model):\n        return deepspeed.initialize(model)\n"
              "    def prepare(self, model):\n"
              "        if self.distributed_type == DistributedType.DEEPSPEED:\n            return self._prepare_deepspeed(model)\n"
              "        return model\n")


def ds(code: str):
    return opt(code, "deepspeed.initialize(model)", domain="device", symbol="deepspeed.initialize")


def test_a_function_every_call_of_which_is_under_a_condition_naming_the_framework_is_optional():
    assert ds(ACCELERATE) == ("self.distributed_type == DistributedType.DEEPSPEED",
                              "line 5: self.distributed_type == DistributedType.DEEPSPEED")


@pytest.mark.parametrize("condition", ["is_deep_speed_available()", "self.use_deepspeed and x", "backend == 'DeepSpeed'"])
def test_the_condition_may_name_it_in_any_spelling(condition):
    assert ds(ACCELERATE.replace("self.distributed_type == DistributedType.DEEPSPEED", condition)) is not None


def test_one_call_not_under_such_a_condition_keeps_it():
    code = ACCELERATE + "    def other(self, model):\n        return self._prepare_deepspeed(model)\n"
    assert ds(code) is None
    code = ACCELERATE.replace("DistributedType.DEEPSPEED", "DistributedType.FSDP")
    assert ds(code) is None


def test_a_call_in_an_elif_arm_naming_it_is_switched():
    code = ACCELERATE.replace("        if self.distributed_type == DistributedType.DEEPSPEED:\n",
                              "        if x:\n            pass\n        elif self.distributed_type == DistributedType.DEEPSPEED:\n")
    assert ds(code)[0] == "self.distributed_type == DistributedType.DEEPSPEED"


def test_a_call_in_the_else_arm_or_in_the_condition_is_not_switched_by_it():
    code = ACCELERATE.replace("            return self._prepare_deepspeed(model)\n",
                              "            pass\n        else:\n            return self._prepare_deepspeed(model)\n")
    assert ds(code) is None
    code = ACCELERATE.replace("self.distributed_type == DistributedType.DEEPSPEED",
                              "self._prepare_deepspeed(model) and DEEPSPEED")
    assert ds(code) is None
    code = ACCELERATE.replace("        if self.distributed_type == DistributedType.DEEPSPEED:\n            return self._prepare_deepspeed(model)\n",
                        "        if x:\n            pass\n        elif self._prepare_deepspeed(model):\n            pass\n")
    assert ds(code) is None


def test_the_nearest_condition_decides():
    code = ACCELERATE.replace("            return self._prepare_deepspeed(model)\n",
                              "            if other:\n                return self._prepare_deepspeed(model)\n")
    assert ds(code) is None


def test_a_function_nobody_calls_or_only_calls_itself_is_no_integration():
    code = "def _prepare_deepspeed(model):\n    return deepspeed.initialize(model)\n"
    assert ds(code) is None
    code = "def _prepare_deepspeed(model):\n    if DEEPSPEED:\n        _prepare_deepspeed(model)\n    return deepspeed.initialize(model)\n"
    assert ds(code) is None


def test_at_most_fifty_calls_are_read():
    def code(calls: int) -> str:
        return ("def _prepare_deepspeed(model):\n    return deepspeed.initialize(model)\n"
                "def prepare(model):\n" + "    if use_deepspeed:\n        _prepare_deepspeed(model)\n" * calls)
    assert ds(code(oi.MAX_CALLS)) is not None
    assert ds(code(oi.MAX_CALLS + 1)) is None


def test_switch_above_stops_at_the_function():
    code = "if DEEPSPEED:\n    def g():\n        _prepare(model)\n"
    assert OptInReader._switch_above(node_at(code, "_prepare(model)"), "deepspeed") is None
    code = "if DEEPSPEED:\n    _prepare(model)\n"
    assert parsing.text(OptInReader._switch_above(node_at(code, "_prepare(model)"), "deepspeed")) == "DEEPSPEED"


def test_switch_above_walk_is_bounded():
    def code(m: int) -> str:
        return "if DEEPSPEED:\n    x = " + "(" * m + "_prepare(model)" + ")" * m + "\n"
    # the call, m parentheses, the assignment, the statement, the block: the if is the (m + 4)-th ancestor
    assert OptInReader._switch_above(node_at(code(oi.MAX_DEPTH - 4), "_prepare(model)"), "deepspeed") is not None
    assert OptInReader._switch_above(node_at(code(oi.MAX_DEPTH - 3), "_prepare(model)"), "deepspeed") is None


def test_the_integration_walk_reads_the_innermost_function_first():
    code = ("class DeepSpeedPlugin:\n    def setup(self, model):\n        return deepspeed.initialize(model)\n")
    assert ds(code) == ("DeepSpeedPlugin", "line 1: DeepSpeedPlugin")


# type checks ----------------------------------------------------------------------------------------------------
def tc(code: str, needle: str = "DistributedDataParallel"):
    return opt(code, needle, domain="distributed")


@pytest.mark.parametrize("code, line", [
    ("isinstance(model, DistributedDataParallel)", "isinstance(model, DistributedDataParallel)"),
    ("ok = isinstance(model, (DistributedDataParallel, DataParallel))", "isinstance(model, (DistributedDataParallel, DataParallel))"),
    ("ok = issubclass(cls, [nn.parallel.DistributedDataParallel])", "issubclass(cls, [nn.parallel.DistributedDataParallel])"),
])
def test_a_class_named_only_as_a_type_to_test_against_is_no_use(code, line):
    assert tc(code + "\n") == (line, f"line 1: {line}")


@pytest.mark.parametrize("code", [
    "model = DistributedDataParallel(model)\n",
    "wrap(model, DistributedDataParallel)\n",
    "isinstance(DistributedDataParallel(model), nn.Module)\n",
    "type(model) is DistributedDataParallel\n",
])
def test_other_uses_of_a_class_are_uses(code):
    assert tc(code) is None


def test_a_type_check_is_read_only_in_its_domains():
    assert opt("isinstance(model, DistributedDataParallel)\n", "DistributedDataParallel", domain="device") is None


def test_a_tuple_bound_to_a_name_only_type_checked_is_no_use():
    code = "WRAPPERS = (DistributedDataParallel, DataParallel)\nif isinstance(model, WRAPPERS):\n    model = model.module\n"
    assert tc(code) == ("WRAPPERS = (DistributedDataParallel, DataParallel)",
                        "line 1: WRAPPERS = (DistributedDataParallel, DataParallel)")
    grown = code + "WRAPPERS += (DeepSpeedEngine,)\n"
    assert tc(grown) is not None


@pytest.mark.parametrize("more", [
    "WRAPPERS[0](model)\n",  # used as a class
    "wrap(model, WRAPPERS)\n",  # passed to another call
    "x += WRAPPERS\n",  # added to something else
    "def f():\n    global WRAPPERS\n",
])
def test_a_tuple_used_otherwise_is_a_use(more):
    code = "WRAPPERS = (DistributedDataParallel, DataParallel)\nif isinstance(model, WRAPPERS):\n    pass\n" + more
    assert tc(code) is None


def test_a_tuple_never_type_checked_is_a_use():
    assert tc("WRAPPERS = (DistributedDataParallel, DataParallel)\nWRAPPERS += (X,)\n") is None
    assert tc("WRAPPERS = (DistributedDataParallel, DataParallel)\n") is None
    assert tc("self.w = (DistributedDataParallel, DataParallel)\nisinstance(m, self.w)\n") is None
    assert tc("a, b = (DistributedDataParallel, DataParallel)\nisinstance(m, a)\n") is None


def test_the_tuple_is_read_in_its_function():
    code = ("def f(model):\n    w = (DistributedDataParallel,)\n    return isinstance(model, w)\n"
            "def g():\n    return w[0](1)\n")
    assert tc(code) == ("w = (DistributedDataParallel,)", "line 2: w = (DistributedDataParallel,)")


def test_the_site_is_the_assigned_value_not_its_target():
    code = "DistributedDataParallel = (A, B)\nisinstance(m, DistributedDataParallel)\n"
    assert tc(code) is None


def test_at_most_two_hundred_uses_are_read():
    def code(checks: int) -> str:
        return "w = (DistributedDataParallel,)\n" + "isinstance(m, w)\n" * checks
    # the assignment's own `w` is one of the uses counted
    assert tc(code(oi.MAX_NAME_USES - 1)) is not None
    assert tc(code(oi.MAX_NAME_USES)) is None


def test_type_check_helpers():
    read = reader()
    assert not read._is_type_check(None)
    assert not read._is_type_check(node_at("x = [1]\n", "[1]"))
    assert read._is_type_check(node_at("isinstance(a, b)\n", "isinstance(a, b)"))
    assert not read._is_type_check(node_at("builtins.isinstance(a, b)\n", "builtins.isinstance(a, b)"))
    root = parsing.parse("python", b"x\n")
    assert not read._type_check_use(root)  # no parent
    assert read._type_check(root) is None
    assert not read._only_type_checked(root, "x")


def test_a_type_check_node_without_a_parent_is_none():
    read = reader()
    root = parsing.parse("python", b"(a, b)\n")
    tuple_ = root.named_children[0].named_children[0]
    assert read._type_check(tuple_) is None  # its parents: a statement, then the module


# modules a configuration selects or names ----------------------------------------------------------------------
def facts(path: str, module: str | None = None, **more):
    values = dict(path=path, module=module if module is not None else path[:-3].replace("/", "."), choices=[],
                  imports=[], module_strings=[], main_guard=False, options=[], launch_flags=[], option_arms=[],
                  option_values=[], option_value_arms=[], option_else_arms=[], marker_arms=[], launch_values=[],
                  registrations=[], words="", dotted_words=[], true_keys=[], true_literals=[], env_carriers=[], option_choices=[],
                  parameter_arms=[], option_keywords=[], enum_members=[], option_literals=[], path_writes=[])
    values.update(more)
    return SimpleNamespace(**values)


CHOICE = ("minimal_async_ep", 12, "line 12: elif comm_backend == 'minimal_async_ep':", True)


def test_a_module_named_like_a_configuration_choice_is_optional():
    chooser = facts("pkg/config.py", choices=[CHOICE])
    module = facts("pkg/distributed/minimal_async_ep/__init__.py", "pkg.distributed.minimal_async_ep")
    found = oi.opt_in_modules([chooser, module], ProjectContext(), OPT_IN)
    assert found == {module.path: ("optional", "selected by configuration: `line 12: elif comm_backend == "
                                              "'minimal_async_ep':` (pkg/config.py:12)")}


def test_the_most_specific_part_of_the_path_is_matched_first():
    chooser = facts("pkg/config.py", choices=[("deepep", 3, "a", True), ("hybridep", 4, "b", True)])
    module = facts("pkg/deepep/hybridep.py")
    assert oi.opt_in_modules([chooser, module], ProjectContext(), OPT_IN)[module.path][1].startswith(
        "selected by configuration: `b`")
    # the first part of the path (the package) is never matched
    top = facts("hybridep/models.py")
    assert oi.opt_in_modules([chooser, top], ProjectContext(), OPT_IN) == {}


@pytest.mark.parametrize("choice", [
    ("minimal_async_ep", 12, "c", False),  # the chain has no default arm
    ("standard", 12, "c", True), ("Default", 12, "c", True), ("train", 12, "c", True),  # a default or a mode
    ("fa3", 12, "c", True),  # shorter than four letters
    ("my-backend", 12, "c", True),  # no identifier
])
def test_other_choices_select_no_module(choice):
    value = choice[0].lower()
    chooser = facts("pkg/config.py", choices=[choice])
    module = facts(f"pkg/{value}.py")
    assert oi.opt_in_modules([chooser, module], ProjectContext(), OPT_IN) == {}


def test_a_choice_made_in_the_modules_own_file_selects_nothing():
    module = facts("pkg/minimal_async_ep.py", choices=[CHOICE])
    assert oi.opt_in_modules([module], ProjectContext(), OPT_IN) == {}


def test_the_first_file_naming_a_choice_is_its_reason_and_case_is_ignored():
    first = facts("pkg/a.py", choices=[("Minimal_Async_EP", 1, "first", True)])
    second = facts("pkg/b.py", choices=[("minimal_async_ep", 2, "second", True)])
    module = facts("pkg/Minimal_Async_EP.py")
    assert oi.opt_in_modules([first, second, module], ProjectContext(), OPT_IN)[module.path] == (
        "optional", "selected by configuration: `first` (pkg/a.py:1)")


def test_only_counted_running_files_choose_or_are_chosen():
    chooser = facts("tests/conf.py", choices=[CHOICE])
    module = facts("pkg/minimal_async_ep.py")
    context = ProjectContext(files={"tests/conf.py": FileContext(role="test")})
    assert oi.opt_in_modules([chooser, module], context, OPT_IN) == {}
    chooser = facts("pkg/config.py", choices=[CHOICE])
    context = ProjectContext(files={module.path: FileContext(reach="optional")})
    assert oi.opt_in_modules([chooser, module], context, OPT_IN) == {}
    context = ProjectContext(files={module.path: FileContext(role="build")})
    assert module.path in oi.opt_in_modules([chooser, module], context, OPT_IN)
    assert oi.opt_in_modules([chooser, facts("pkg/minimal_async_ep.py", module="")], ProjectContext(), OPT_IN) == {}


# modules loaded by name -----------------------------------------------------------------------------------------
def test_a_module_no_product_code_imports_that_a_string_names_is_optional():
    override = facts("pkg/overrides/fused_swiglu.py")
    preset = facts("pkg/presets.py", module_strings=[("pkg.overrides.fused_swiglu.fused_swiglu", 7)])
    found = oi.opt_in_modules([override, preset], ProjectContext(), OPT_IN)
    assert found == {override.path: ("optional", "loaded by name only, when a configuration lists it: "
                                                 "'pkg.overrides.fused_swiglu' is named at pkg/presets.py:7; no product "
                                                 "code imports it")}


@pytest.mark.parametrize("change", [
    {"imports": ["pkg.overrides.fused_swiglu"]},  # imported by product code
    {"imports": ["pkg.overrides.fused_swiglu.helper"]},  # a name inside it is imported
])
def test_an_imported_module_is_not_loaded_by_name_only(change):
    override = facts("pkg/overrides/fused_swiglu.py")
    preset = facts("pkg/presets.py", module_strings=[("pkg.overrides.fused_swiglu", 7)], **change)
    assert oi.opt_in_modules([override, preset], ProjectContext(), OPT_IN) == {}


def test_a_modules_imports_of_its_own_names_do_not_count():
    override = facts("pkg/overrides/fused_swiglu.py", imports=["pkg.overrides.fused_swiglu.inner"])
    preset = facts("pkg/presets.py", module_strings=[("pkg.overrides.fused_swiglu", 7)])
    assert override.path in oi.opt_in_modules([override, preset], ProjectContext(), OPT_IN)
    # a module importing a name of its own package's parent still imports it
    sibling = facts("pkg/overrides/other.py", imports=["pkg.overrides.fused_swiglu"])
    assert oi.opt_in_modules([override, preset, sibling], ProjectContext(), OPT_IN) == {}


def test_imports_of_test_files_do_not_count_but_their_strings_do():
    override = facts("pkg/overrides/fused_swiglu.py")
    test = facts("tests/test_x.py", imports=["pkg.overrides.fused_swiglu"],
                 module_strings=[("pkg.overrides.fused_swiglu", 3)])
    context = ProjectContext(files={"tests/test_x.py": FileContext(role="test")})
    assert oi.opt_in_modules([override, test], context, OPT_IN)[override.path][1].endswith(
        "named at tests/test_x.py:3; no product code imports it")


@pytest.mark.parametrize("override", [
    facts("pkg/overrides/__init__.py", "pkg.overrides"),  # a package's __init__
    facts("pkg/overrides/fused_swiglu.py", main_guard=True),  # a script
    facts("pkg/overrides/fused_swiglu.py", module=""),
    facts("pkg/overrides/other.py"),  # not named
])
def test_other_modules_are_not_loaded_by_name(override):
    preset = facts("pkg/presets.py", module_strings=[("pkg.overrides.fused_swiglu", 7), ("pkg.overrides", 8)])
    assert oi.opt_in_modules([override, preset], ProjectContext(), OPT_IN).get(override.path) is None


def test_a_module_named_only_in_its_own_file_or_by_its_top_level_name_is_not():
    override = facts("pkg/overrides/fused_swiglu.py", module_strings=[("pkg.overrides.fused_swiglu", 1)])
    assert oi.opt_in_modules([override], ProjectContext(), OPT_IN) == {}
    # the prefixes of a named string are read from two parts up: a one-part module name is no dotted name
    top = facts("fused_swiglu.py")
    preset = facts("pkg/presets.py", module_strings=[("fused_swiglu.run", 1)])
    assert oi.opt_in_modules([top, preset], ProjectContext(), OPT_IN) == {}
    two = facts("pkg/fused.py")
    preset = facts("pkg/presets.py", module_strings=[("pkg.fused", 1)])
    assert two.path in oi.opt_in_modules([two, preset], ProjectContext(), OPT_IN)


def test_a_chosen_module_keeps_its_configuration_reason():
    module = facts("pkg/minimal_async_ep.py")
    chooser = facts("pkg/config.py", choices=[CHOICE], module_strings=[("pkg.minimal_async_ep", 2)])
    assert oi.opt_in_modules([module, chooser], ProjectContext(), OPT_IN)[module.path][1].startswith("selected by")


def test_no_strings_no_named_modules():
    assert oi._named_only([facts("a/b.py")], [facts("a/b.py")], ProjectContext()) == {}


# command-line options declared off ------------------------------------------------------------------------------
def test_an_arm_of_an_option_declared_off_everywhere_is_switched():
    declare = facts("library/train_util.py", options=[("fp8_base", True, "--fp8_base", 40)])
    use = facts("sd3_train.py", option_arms=[(10, 12, "fp8_base", "line 10: if args.fp8_base:")])
    assert oi.switched_options([declare, use], ProjectContext()) == {"sd3_train.py": [
        (10, 12, "fp8_base", "`--fp8_base` is off unless given (library/train_util.py:40); line 10: if args.fp8_base:")]}


def test_an_option_declared_on_anywhere_or_passed_by_a_launch_script_is_not():
    use = facts("train.py", option_arms=[(10, 12, "fp8_base", "c")])
    off, on = facts("a.py", options=[("fp8_base", True, "--fp8_base", 1)]), facts("b.py", options=[("fp8_base", False, "--fp8_base", 2)])
    assert oi.switched_options([off, on, use], ProjectContext()) == {}
    assert oi.switched_options([on, off, use], ProjectContext()) == {}
    launch = facts("run.sh", launch_flags=["--fp8-base"])
    assert oi.switched_options([off, use, launch], ProjectContext()) == {}
    config = facts("configs/sd3.yaml", true_keys=["fp8_base"])  # a config of the project turns it on too
    assert oi.switched_options([off, use, config], ProjectContext()) == {}
    assert oi.switched_options([off, use, facts("configs/sd3.yaml", true_keys=["fp8"])], ProjectContext())


def test_the_first_declaration_is_the_reason():
    first = facts("a.py", options=[("fp8_base", True, "--fp8_base", 1)])
    second = facts("b.py", options=[("fp8_base", True, "--fp8-base", 2)])
    use = facts("train.py", option_arms=[(10, 12, "fp8_base", "c")])
    assert oi.switched_options([first, second, use], ProjectContext())["train.py"][0][3] == (
        "`--fp8-base` is off unless given (a.py:1); c")


def test_arms_of_undeclared_options_or_in_files_not_counted_are_not():
    declare = facts("a.py", options=[("fp8_base", True, "--fp8_base", 1)])
    use = facts("train.py", option_arms=[(10, 12, "other", "c")])
    assert oi.switched_options([declare, use], ProjectContext()) == {}
    use = facts("tests/t.py", option_arms=[(10, 12, "fp8_base", "c")])
    context = ProjectContext(files={"tests/t.py": FileContext(role="test")})
    assert oi.switched_options([declare, use], context) == {}
    assert oi.switched_options([facts("x.py", option_arms=[(1, 2, "fp8_base", "c")])], ProjectContext()) == {}


# answers the first mutation run left open ------------------------------------------------------------------------------
def test_code_for_another_inference_runtime_is_read_through_the_runtime_reader():
    code = "if engine:\n    import tensorrt as trt\n    device = torch.device('cuda:0')\n"
    found = reader().guard(node_at(code, "torch.device('cuda:0')"), "device", "torch.device", "DEV001")
    assert found is not None and found.reach == "other-backend" and found.runtime == "TensorRT"


def test_a_switch_naming_no_feature_makes_only_a_cuda_only_feature_optional():
    code = "def attend(q, use_stream=False):\n    if use_stream:\n        flash_attn_func(q)\n"
    assert opt(code, "flash_attn_func(q)", domain="attention") == (
        "if use_stream:", "`use_stream=False` by default (attend()); line 2: if use_stream:")
    assert opt(code, "flash_attn_func(q)", domain="device") is None
    assert opt(code, "flash_attn_func(q)", domain="device", rule="DEV501") is not None  # a flag rule is a feature


def test_the_fa3_package_is_the_symbols_first_part():
    code = f"import flash_attn\n{FA3}\n"
    assert opt(code, FA3, symbol="hopper.flash_attn_interface.f") is not None
    assert opt(code, FA3, symbol="x.hopper.f") is None


def test_an_sdpa_call_in_a_file_without_imports_is_an_offer():
    code = f"{FA3}\nout = scaled_dot_product_attention(q, k, v)\n"
    assert opt(code, FA3, symbol="hopper.f") is not None


def test_an_aliased_flash_attention_2_import_is_an_offer():
    assert opt(f"import flash_attn as fa\n{FA3}\n", FA3, symbol="hopper.f") is not None


def _deep(header: str, m: int) -> str:
    return header + "\n    x = " + "(" * m + "site(q)" + ")" * m + "\n"


# the definition is the site's (m + 4)-th ancestor: the site, m parentheses, the assignment, the statement, the block
@pytest.mark.parametrize("header, domain, symbol, rule", [
    ("def start_profiling():", "device", "", ""),
    ("def compile_regions(module):", "graph", "", "DEV501"),
    ("class DeepSpeedPlugin:", "device", "deepspeed.initialize", ""),
])
def test_the_walks_up_to_the_definition_read_max_depth_ancestors(header, domain, symbol, rule):
    assert opt(_deep(header, oi.MAX_DEPTH - 4), "site(q)", domain, symbol, rule) is not None
    assert opt(_deep(header, oi.MAX_DEPTH - 3), "site(q)", domain, symbol, rule) is None


def test_a_file_without_a_module_name_does_not_end_the_choice_pass():
    chooser = facts("pkg/config.py", choices=[CHOICE])
    nameless = facts("notebook.py", module="")
    module = facts("pkg/minimal_async_ep.py")
    assert module.path in oi.opt_in_modules([chooser, nameless, module], ProjectContext(), OPT_IN)


def test_a_four_letter_choice_selects_a_module():
    chooser = facts("pkg/config.py", choices=[("flux", 3, "c", True)])
    module = facts("pkg/flux.py")
    assert module.path in oi.opt_in_modules([chooser, module], ProjectContext(), OPT_IN)


def test_skipped_modules_do_not_end_the_named_pass():
    init = facts("pkg/overrides/__init__.py", "pkg.overrides")
    own = facts("pkg/overrides/own.py", module_strings=[("pkg.overrides.own", 1)])
    override = facts("pkg/overrides/fused_swiglu.py")
    preset = facts("pkg/presets.py", module_strings=[("pkg.overrides.fused_swiglu", 7), ("pkg.overrides", 8)])
    found = oi.opt_in_modules([init, own, override, preset], ProjectContext(), OPT_IN)
    assert list(found) == [override.path]


def test_every_file_and_arm_is_read_for_switched_options():
    declare = facts("a.py", options=[("fp8_base", True, "--fp8_base", 1)])
    test = facts("tests/t.py", option_arms=[(1, 2, "fp8_base", "c")])
    product = facts("train.py", option_arms=[(3, 4, "other", "c"), (10, 12, "fp8_base", "c")])
    context = ProjectContext(files={"tests/t.py": FileContext(role="test")})
    assert [arm[:3] for arm in oi.switched_options([declare, test, product], context)["train.py"]] == [(10, 12, "fp8_base")]


def test_uses_are_looked_for_among_the_first_twenty_thousand_nodes_of_the_scope():
    # The walk pops the last child first and counts every node, anonymous tokens included: the module (1),
    # `isinstance(m, w)` (9 nodes), K `pass` statements of two nodes each, a comment when there is one, then
    # `w[0](m)`, whose `w` (a use that is no type check) is its 11th node: node 2K + 21, or 2K + 22 after a comment.
    def only_checked(passes: int, comment: bool) -> bool:
        code = ("w = (DistributedDataParallel,)\nw[0](m)\n" + ("# c\n" if comment else "") + "pass\n" * passes
                + "isinstance(m, w)\n")
        assignment = node_at(code, "w = (DistributedDataParallel,)")
        while assignment.type != "assignment":
            assignment = assignment.parent
        return reader()._only_type_checked(assignment, "w")
    assert not only_checked(9989, comment=True)  # node 20,000: the use as a class is read
    assert only_checked(9990, comment=False)  # node 20,001: past the budget, only the type check is read


# dataclass fields and string-valued options (issue 28, round 8: VILA's `--quantize_model`, transformers' `--optim`) ----
def test_an_arm_needing_a_string_the_option_does_not_default_to_is_switched_unless_a_launcher_passes_it():
    declare = facts("train/args.py", option_values=[("optim", "adamw_torch", 12)])
    use = facts("trainer.py", option_value_arms=[(30, 33, "optim", ("adamw_bnb_8bit",), "line 29: if args.optim == ...")])
    found = oi.switched_options([declare, use], ProjectContext())["trainer.py"]
    assert found == [(30, 33, "optim_adamw_bnb_8bit", '`--optim` is "adamw_torch" unless given (train/args.py:12), and '
                      'no launch script passes "adamw_bnb_8bit"; line 29: if args.optim == ...')]
    other = facts("sft.sh", launch_values=[("--optim", "adamw_torch_fused")])
    assert oi.switched_options([declare, use, other], ProjectContext())["trainer.py"]  # another value: still off
    for value in ("adamw_bnb_8bit", "ADAMW_BNB_8BIT", "$OPTIM"):  # the arm's value, or one only the shell knows
        launch = facts("sft.sh", launch_values=[("--optim", value)])
        assert oi.switched_options([declare, use, launch], ProjectContext()) == {}


def test_an_arm_taking_the_default_string_or_of_an_undeclared_option_is_not_switched():
    declare = facts("args.py", option_values=[("quantize_model", "false", 3)])
    default = facts("train.py", option_value_arms=[(5, 6, "quantize_model", ("false", "fp8"), "c")])
    assert oi.switched_options([declare, default], ProjectContext()) == {}
    undeclared = facts("train.py", option_value_arms=[(5, 6, "other", ("fp8",), "c")])
    assert oi.switched_options([declare, undeclared], ProjectContext()) == {}


# known frameworks' options, else arms and markers (issue 28, round 12: a copied HF Trainer's apex and bnb arms) ------
HF = facts("trainer.py", imports=["transformers.training_args.TrainingArguments"])


def test_a_known_frameworks_option_has_its_default_from_knowledge_when_the_project_imports_its_class():
    use = facts("trainer.py", imports=["transformers.training_args.TrainingArguments"],
                option_value_arms=[(30, 33, "optim", ("OptimizerNames.ADAMW_BNB",), "line 29: elif args.optim == ...")])
    found = oi.switched_options([use], ProjectContext())["trainer.py"]
    assert [(a, b, name) for a, b, name, _ in found] == [(30, 33, "optim_adamw_bnb")]
    assert "transformers TrainingArguments" in found[0][3] and "OptimizerNames.ADAMW_BNB" in found[0][3]
    default = facts("trainer.py", imports=["transformers.TrainingArguments"],
                    option_value_arms=[(30, 33, "optim", ("OptimizerNames.ADAMW_TORCH",), "c")])
    assert oi.switched_options([default], ProjectContext()) == {}  # the member named like a default
    unread = facts("trainer.py", imports=["mytrainer.TrainingArguments"], option_value_arms=use.option_value_arms)
    assert oi.switched_options([unread], ProjectContext()) == {}  # no known framework: its default is unknown
    for value in ("adamw_bnb_8bit", "lion_8bit"):  # an enum's string is out of sight: any value but a default may be it
        launch = facts("run.sh", launch_values=[("--optim", value)])
        assert oi.switched_options([use, launch], ProjectContext()) == {}
    launch = facts("run.sh", launch_values=[("--optim", "adamw_torch")])
    assert oi.switched_options([use, launch], ProjectContext())


def test_the_else_of_a_chain_on_an_option_needs_the_choices_its_arms_leave():
    otherwise = facts("trainer.py", imports=["transformers.TrainingArguments"],
                      option_else_arms=[(20, 21, "half_precision_backend", ("cuda_amp", "cpu_amp"), "line 19: else of if ...")])
    found = oi.switched_options([otherwise], ProjectContext())["trainer.py"]
    assert [(a, b, name) for a, b, name, _ in found] == [(20, 21, "apex")]  # named by the value: the option is mainstream
    assert '"apex"' in found[0][3]
    taken = facts("trainer.py", imports=["transformers.TrainingArguments"],
                  option_else_arms=[(20, 21, "half_precision_backend", ("cuda_amp",), "c")])
    assert oi.switched_options([taken], ProjectContext()) == {}  # cpu_amp, a default path's value, takes it too
    launch = facts("run.sh", launch_values=[("--half_precision_backend", "apex")])
    assert oi.switched_options([otherwise, launch], ProjectContext()) == {}
    config = facts("configs/train_args.json", words=" apex  half_precision_backend ")  # a Trainer's JSON arguments
    assert oi.switched_options([otherwise, config], ProjectContext()) == {}
    no_choices = facts("trainer.py", imports=["transformers.TrainingArguments"],
                       option_else_arms=[(20, 21, "optim", ("adamw_hf",), "c")])
    assert oi.switched_options([no_choices], ProjectContext()) == {}  # its values are not all known


def test_an_arm_a_marker_decides_follows_the_option_arms_that_set_the_marker():
    arms = dict(imports=["transformers.TrainingArguments"],
                option_else_arms=[(20, 21, "half_precision_backend", ("cuda_amp", "cpu_amp"), "line 19: else of if ...")])
    inside = facts("trainer.py", marker_arms=[(50, 52, (21,), "line 49: elif self.use_apex:")], **arms)
    found = oi.switched_options([inside], ProjectContext())["trainer.py"]
    assert found[1][:3] == (50, 52, "apex") and found[1][3].startswith("line 49: elif self.use_apex:, set only at line 21")
    outside = facts("trainer.py", marker_arms=[(50, 52, (21, 40), "line 49: elif self.use_apex:")], **arms)
    assert len(oi.switched_options([outside], ProjectContext())["trainer.py"]) == 1  # set at line 40 too


def test_markers_are_values_only_option_arms_set():
    from ascend_feasibility.analyzer.context.option_markers import marker_arms

    code = (b"from x import y\n"                                           # 1
            b"class T:\n"                                                 # 2
            b"    def __init__(self, args):\n"                            # 3
            b"        self.use_apex = False\n"                            # 4
            b"        self.on = True\n"                                   # 5
            b"        if args.backend == 'apex':\n"                       # 6
            b"            self.use_apex = True\n"                         # 7
            b"            from bitsandbytes.optim import Adam8bit\n"      # 8
            b"    def step(self, loss, cls):\n"                           # 9
            b"        if self.use_apex and loss:\n"                       # 10
            b"            a()\n"                                          # 11
            b"        b = c() if self.use_apex else d()\n"                # 12
            b"        if not self.use_apex:\n"                            # 13
            b"            e()\n"                                          # 14
            b"        if self.on:\n"                                      # 15
            b"            f()\n"                                          # 16
            b"        if cls.__name__ == 'Adam8bit':\n"                   # 17
            b"            g()\n"                                          # 18
            b"        if self.use_apex or loss:\n"                        # 19
            b"            h()\n")                                         # 20
    root = parsing.parse("python", code)
    arms = {(first, lines) for first, _, lines, _ in marker_arms(root, code, [(7, 8)])}
    assert arms == {(11, (7,)), (12, (7,)), (18, (8,))}  # not the `not`, the `or`, nor a flag set outside the arm
    assert marker_arms(root, code, [(20, 20)]) == []
    # each kind of marker alone passes the byte test before the walk: the flag set in the arm, the name its import binds
    only_flag = {(first, lines) for first, _, lines, _ in marker_arms(root, code, [(7, 7)])}
    assert only_flag == {(11, (7,)), (12, (7,))}
    only_import = {(first, lines) for first, _, lines, _ in marker_arms(root, code, [(8, 8)])}
    assert only_import == {(18, (8,))}


def test_marker_nodes_come_in_the_walks_order_and_a_tree_past_the_limit_is_walked():
    from ascend_feasibility.analyzer.context import option_markers as om

    code = (b"import a\n"
            b"class T:\n"
            b"    def f(self):\n"
            b"        x = y = 1 if a else (2 if b else 3)\n"
            b"        if x:\n"
            b"            from m import n\n"
            b"        elif y:\n"
            b"            self.z = True\n"
            b"def g():\n"
            b"    return 1 if c else 2\n")
    root = parsing.parse("python", code)
    walked = [(node.type, node.start_byte) for node in parsing.walk(root) if node.type in om.READ]
    assert len(walked) == 13
    assert [(node.type, node.start_byte) for node in om._nodes_read(root)] == walked  # a later sibling, an outer node first
    limited = [(node.type, node.start_byte) for node in parsing.walk(root, limit=20) if node.type in om.READ]
    assert limited != walked  # the limit stops the walk part way: so it stays for a tree that large
    om.MAX_NODES, kept = 20, om.MAX_NODES
    try:
        assert [(node.type, node.start_byte) for node in om._nodes_read(root)] == limited
    finally:
        om.MAX_NODES = kept


def test_marker_byte_test_reads_the_option_arms_lines():
    from ascend_feasibility.analyzer.context.option_markers import _may_mark

    code = (b"import os\n"                              # 1
            b"x = __name__\n"                           # 2
            b"if args.a:\n"                              # 3
            b"    self.flag = True\n"                    # 4
            b"if args.b:\n"                              # 5
            b"    from m import C\n"                     # 6
            b"if args.c:\n"                              # 7
            b"    run(True)\n")                          # 8
    assert _may_mark(code, [(4, 4)]) and _may_mark(code, [(6, 6)])
    assert not _may_mark(code, [(8, 8)])  # `True` but no `self`: no flag assignment
    assert not _may_mark(code.replace(b"__name__", b"__file__"), [(6, 6)])  # no `__name__` test can use the name
    assert not _may_mark(code, [(2, 3)])  # the file's `import` and `True` outside the arms do not count


# options carried in environment variables, substring tests (issue 28, round 13 B row 41: RWKV's `'r4' in
# os.environ["RWKV_MY_TESTING"]`, set from `--my_testing` in train.py) ------------------------------------------------
def test_an_arm_testing_an_environment_variable_an_option_sets_is_that_options_arm():
    declare = facts("train.py", option_values=[("my_testing", "x052", 74)], env_carriers=[("MY_TESTING", "@my_testing")])
    use = facts("src/model.py", option_value_arms=[(316, 330, "$MY_TESTING", ("*r4",), "line 315: if 'r4' in ...")])
    found = oi.switched_options([declare, use], ProjectContext())["src/model.py"]
    assert found == [(316, 330, "my_testing_r4", '`--my_testing` is "x052" unless given (train.py:74), carried in '
                      '$MY_TESTING (train.py), and no launch script passes a value holding "r4"; line 315: if \'r4\' in ...')]
    for launched in ("xr4", "$TYPE"):  # a value holding it, or one only the shell knows
        launch = facts("run.sh", launch_values=[("--my_testing", launched)])
        assert oi.switched_options([declare, use, launch], ProjectContext()) == {}
    assert oi.switched_options([declare, use, facts("run.sh", launch_values=[("--my_testing", "x070")])], ProjectContext())
    default = facts("src/model.py", option_value_arms=[(316, 330, "$MY_TESTING", ("*x05",), "c")])
    assert oi.switched_options([declare, default], ProjectContext()) == {}  # the default holds it
    # a variable also set from something else, or written by a shell script: its values are out of sight
    for more in (facts("other.py", env_carriers=[("MY_TESTING", "?")]), facts("env.sh", words=" MY_TESTING ")):
        assert oi.switched_options([declare, use, more], ProjectContext()) == {}
    literal = facts("other.py", env_carriers=[("MY_TESTING", "=r4")])  # code of the project sets a value holding it
    assert oi.switched_options([declare, use, literal], ProjectContext()) == {}
    unset = facts("src/model.py", option_value_arms=[(316, 330, "$OTHER", ("*r4",), "c")])
    assert oi.switched_options([declare, unset], ProjectContext()) == {}  # no option sets it: the user's variable


def test_an_argparse_option_with_a_string_default_is_no_switch_and_its_value_arms_are_opt_in():
    # `parser.add_argument("--ds_optimizer", default="cpu-adam")`: declared (not an off switch) and string-valued
    declare = facts("train.py", options=[("ds_optimizer", False, "--ds_optimizer", 19)],
                    option_values=[("ds_optimizer", "cpu-adam", 19)])
    use = facts("train.py", option_value_arms=[(34, 34, "ds_optimizer", ("lamb",), "line 33: if args.ds_optimizer == ...")])
    assert oi.switched_options([declare, use], ProjectContext())["train.py"]
    switch = facts("train.py", options=[("ds_optimizer", True, "--ds_optimizer", 19)],  # declared an off switch
                   option_values=[("ds_optimizer", "cpu-adam", 19)])
    assert oi.switched_options([switch, use], ProjectContext()) == {}


def test_a_numeric_bound_the_default_and_launches_stay_under_is_opt_in():
    # `--head_chunk` default=0; `if int(os.environ["RWKV_HEAD_L2WRAP_CE_CHUNK"]) > 0:` loads the chunked kernel
    declare = facts("train.py", option_values=[("head_chunk", "0", 53)],
                    env_carriers=[("RWKV_HEAD_L2WRAP_CE_CHUNK", "@head_chunk")])
    use = facts("src/model.py", option_value_arms=[(463, 470, "$RWKV_HEAD_L2WRAP_CE_CHUNK", (">0",), "line 462: if ...")])
    found = oi.switched_options([declare, use, facts("run.sh", launch_values=[("--head_chunk", "0")])], ProjectContext())
    assert [(a, b, name) for a, b, name, _ in found["src/model.py"]] == [(463, 470, "head_chunk")]
    assert "a value > 0" in found["src/model.py"][0][3]
    for launched in ("4096", "$CHUNK"):  # a launch past the bound, or a value only the shell knows
        launch = facts("run.sh", launch_values=[("--head_chunk", launched)])
        assert oi.switched_options([declare, use, launch], ProjectContext()) == {}
    config = facts("conf.yaml", path_words=None, words=" head_chunk ")  # a config naming the option may set it
    config.path = "conf.yaml"
    assert oi.switched_options([declare, use, config], ProjectContext()) == {}
