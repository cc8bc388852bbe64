"""Reach that only the whole project shows (analyzer/context/propagation.py), on plain facts and findings: native
sources only other backends' builders name, modules imported only behind guards, product functions only tests import,
test scripts, self-test blocks, overridden defaults, off-by-default options and extension fallbacks. Each expectation
is read from the module's docstrings."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from ascend_feasibility.analyzer.context import propagation as pr
from ascend_feasibility.analyzer.context.project import FileContext, ProjectContext
from ascend_feasibility.analyzer.core.findings import Place
from ascend_feasibility.analyzer.core.models import EffortHours, Finding, ReplacementText, Text
from ascend_feasibility.analyzer.reporting.localize import phrase
from ascend_feasibility.domains.phases.facts import module_name

FEATURES = frozenset({"attention"})


@dataclass
class Facts:
    path: str
    imports: list[str] = field(default_factory=list)
    nested_imports: list[str] = field(default_factory=list)
    plain_imports: list[str] = field(default_factory=list)
    extension_loads: list[str] = field(default_factory=list)
    helper_imports: dict[str, str] = field(default_factory=dict)
    caught_calls: dict[str, int] = field(default_factory=dict)
    guarded_imports: dict[str, str] = field(default_factory=dict)
    import_fallbacks: dict[str, tuple[int, str]] = field(default_factory=dict)
    exported_functions: list[tuple[str, int, int]] = field(default_factory=list)
    overridden_defaults: list[tuple[int, str, bool]] = field(default_factory=list)
    device_defaults: list = field(default_factory=list)
    method_defaults: list = field(default_factory=list)
    method_passed: dict = field(default_factory=dict)
    default_none_arms: list = field(default_factory=list)
    default_passed: dict = field(default_factory=dict)
    source_refs: list[str] = field(default_factory=list)
    switched_source_refs: dict[str, str] = field(default_factory=dict)
    unhooked_loaders: list = field(default_factory=list)
    uncalled_functions: list = field(default_factory=list)
    dict_built: list = field(default_factory=list)
    main_guard: bool = False
    top_level_code: bool = True  # a file outside the packages is read as a script unless a test says otherwise
    main_block: tuple[int, int] | None = None
    main_demo: bool = False
    reference_checks: list[str] = field(default_factory=list)
    launched_scripts: list[str] = field(default_factory=list)
    launches: list[tuple[str, str]] = field(default_factory=list)
    unparsed_lines: list = field(default_factory=list)
    choices: list = field(default_factory=list)
    module_strings: list = field(default_factory=list)
    options: list = field(default_factory=list)
    option_arms: list = field(default_factory=list)
    launch_flags: list = field(default_factory=list)
    shell_opt_in_arms: list = field(default_factory=list)
    argv_opt_out_arms: list = field(default_factory=list)
    script_flags: list = field(default_factory=list)
    unread_keys: list = field(default_factory=list)
    config_module: bool = False
    settings_only: bool = False
    config_bases: list = field(default_factory=list)
    config_settings: list = field(default_factory=list)
    option_values: list = field(default_factory=list)
    option_choices: list = field(default_factory=list)
    dead_stores: list = field(default_factory=list)
    unbuildable_classes: list = field(default_factory=list)
    unread_stores: list = field(default_factory=list)
    kept_instances: list = field(default_factory=list)
    option_value_arms: list = field(default_factory=list)
    option_else_arms: list = field(default_factory=list)
    option_literals: list = field(default_factory=list)
    path_writes: list = field(default_factory=list)
    path_reads: list = field(default_factory=list)
    marker_arms: list = field(default_factory=list)
    launch_values: list = field(default_factory=list)
    launch_commands: list = field(default_factory=list)
    config_refs: list = field(default_factory=list)
    true_keys: list = field(default_factory=list)
    true_literals: list = field(default_factory=list)
    backend_selectors: dict = field(default_factory=dict)
    platform_methods: list = field(default_factory=list)
    lazy_submodules: list = field(default_factory=list)
    lazy_names: list = field(default_factory=list)
    plugin_tables: list = field(default_factory=list)
    loads_by_name: bool = False
    commented_imports: list = field(default_factory=list)
    parameter_arms: list = field(default_factory=list)
    option_keywords: list = field(default_factory=list)
    enum_members: list = field(default_factory=list)
    starts_process_group: bool = False
    process_arms: list = field(default_factory=list)
    registrations: list = field(default_factory=list)
    top_level_code: bool = False
    evidence: dict = field(default_factory=dict)
    patch_installers: list = field(default_factory=list)
    default_arms: list = field(default_factory=list)
    default_taken: list = field(default_factory=list)
    default_arm_calls: list = field(default_factory=list)
    default_registered: list = field(default_factory=list)
    default_recorded: list = field(default_factory=list)
    default_reads: list = field(default_factory=list)
    default_hops: list = field(default_factory=list)
    default_foreign: list = field(default_factory=list)
    default_option_keywords: list = field(default_factory=list)
    default_forwards: list = field(default_factory=list)
    option_nones: list = field(default_factory=list)
    default_calls: dict = field(default_factory=dict)
    gated_handles: list = field(default_factory=list)
    default_escaped: list = field(default_factory=list)
    star_imports: list = field(default_factory=list)
    unnamed_symbols: list = field(default_factory=list)
    inner_named: list = field(default_factory=list)
    registered_symbols: list = field(default_factory=list)
    fallback_definitions: list = field(default_factory=list)
    reexports: list = field(default_factory=list)
    extension_users: list = field(default_factory=list)
    overwritten_arguments: list = field(default_factory=list)
    imported_users: list = field(default_factory=list)
    method_users: list = field(default_factory=list)
    class_shapes: list = field(default_factory=list)
    base_only: list = field(default_factory=list)
    uses_later: bool = False  # method_users and base_only are here (no file is read again)
    uncalled_methods: list = field(default_factory=list)
    builds_attribute_names: bool = False
    words: str = ""
    dotted_words: list = field(default_factory=list)
    env_carriers: list = field(default_factory=list)
    env_table_off: list = field(default_factory=list)
    env_table_arms: list = field(default_factory=list)
    cudnn_ops: bool = False
    edited_names: list = field(default_factory=list)
    dynamic_lookups: list = field(default_factory=list)
    module: str | None = None

    def __post_init__(self):
        if self.module is None:
            self.module = module_name(self.path) if self.path.endswith(".py") else ""


def context(roles: dict[str, str] | None = None, reach: dict[str, str] | None = None) -> ProjectContext:
    files = {}
    for path in {*(roles or {}), *(reach or {})}:
        files[path] = FileContext((roles or {}).get(path, "product"), (reach or {}).get(path, "runs"))
    return ProjectContext(files=files)


def finding(path: str, line: int = 1, rule: str = "DEV101", domain: str = "device", reach: str = "runs",
            role: str = "product") -> Finding:
    return Finding(
        rule=rule, name="some-rule", domain=domain, path=path, line=line, column=1, end_line=line, end_column=2,
        snippet="x", symbol="x", severity="low", migration="auto", confidence="high",
        message=Text(en="m", zh="m"), replacement=ReplacementText(en="r", zh="r", code=None),
        effort_hours=EffortHours(low=0.0, high=0.25), references=[], fingerprint=f"{rule}{path}{line}",
        suppressed=False, role=role, reach=reach)


class Factory:
    def relocate(self, f: Finding, place: Place) -> Finding:
        return f.model_copy(update={"role": place.role, "reach": place.reach, "reach_reason": place.reason})


def places(findings: list[Finding]) -> list[tuple[str, int, str, str, str | None]]:
    return [(f.path, f.line, f.role, f.reach, f.reach_reason) for f in findings]


def propagate(findings, facts, ctx=None, guarded=None):
    return pr.propagate_reach(findings, facts, ctx or context(), Factory(), FEATURES, guarded)


# overridden defaults ---------------------------------------------------------------------------------------------
def test_overridden_defaults():
    facts = [Facts("pkg/m.py", overridden_defaults=[(5, "fn", True), (9, "method", False), (12, "other", True)]),
             Facts("b.py", imports=["pkg.m.fn"]),
             Facts("c.py", overridden_defaults=[(3, "g", True)], module="")]
    assert pr.overridden_defaults(facts) == {("pkg/m.py", 9), ("pkg/m.py", 12), ("c.py", 3)}


def test_overridden_device_defaults_are_dropped_for_device_rules_only():
    facts = [Facts("m.py", overridden_defaults=[(5, "fn", False)])]
    findings = [finding("m.py", 5), finding("m.py", 5, rule="ATT101", domain="attention"), finding("m.py", 6),
                finding("n.py", 5)]
    assert [(f.rule, f.path, f.line) for f in propagate(findings, facts)] == [
        ("ATT101", "m.py", 5), ("DEV101", "m.py", 6), ("DEV101", "n.py", 5)]


# test-only functions -----------------------------------------------------------------------------------------------
def test_a_product_function_only_tests_import_is_test_code():
    facts = [Facts("pkg/utils.py", exported_functions=[("enable", 3, 9), ("used", 11, 20), ("alone", 21, 30)]),
             Facts("tests/b.py", imports=["pkg.utils.enable"]), Facts("tests/a.py", imports=["pkg.utils.enable"]),
             Facts("tests/c.py", imports=["pkg.utils.used"]), Facts("train.py", imports=["pkg.utils.used"])]
    ctx = context({"tests/a.py": "test", "tests/b.py": "test", "tests/c.py": "test"})
    assert pr.test_only_functions(facts, ctx) == {
        "pkg/utils.py": [(3, 9, "enable() is imported only by tests: tests/a.py and 1 more")]}
    one = facts[:2]
    assert pr.test_only_functions(one, ctx) == {"pkg/utils.py": [(3, 9, "enable() is imported only by tests: tests/b.py")]}


def test_what_makes_no_test_only_function():
    facts = [Facts("pkg/utils.py", exported_functions=[("enable", 3, 9)], imports=["pkg.utils.enable"]),
             Facts("tests/a.py", imports=["pkg.utils.enable"])]
    ctx = context({"tests/a.py": "test"})
    assert pr.test_only_functions(facts, ctx) == {"pkg/utils.py": [(3, 9, "enable() is imported only by tests: tests/a.py")]}
    assert pr.test_only_functions(facts, context({"tests/a.py": "test", "pkg/utils.py": "example"})) == {}
    assert pr.test_only_functions(facts, context({"tests/a.py": "example"})) == {}
    assert pr.test_only_functions(facts, context({"tests/a.py": "test", "pkg/utils.py": "build"})) != {}
    no_module = [Facts("pkg/utils.py", exported_functions=[("enable", 3, 9)], module=""), facts[1]]
    assert pr.test_only_functions(no_module, ctx) == {}
    assert pr.test_only_functions([facts[0]], ctx) == {}  # only itself


def test_findings_in_a_test_only_function_are_test_code():
    facts = [Facts("pkg/utils.py", exported_functions=[("enable", 3, 9)]), Facts("tests/a.py", imports=["pkg.utils.enable"])]
    ctx = context({"tests/a.py": "test"})
    findings = [finding("pkg/utils.py", 2), finding("pkg/utils.py", 3), finding("pkg/utils.py", 9),
                finding("pkg/utils.py", 10), finding("pkg/utils.py", 5, role="example"),
                finding("pkg/utils.py", 5, reach="optional")]
    reason = "enable() is imported only by tests: tests/a.py"
    assert places(propagate(findings, facts, ctx)) == [
        ("pkg/utils.py", 2, "product", "runs", None), ("pkg/utils.py", 3, "test", "runs", reason),
        ("pkg/utils.py", 9, "test", "runs", reason), ("pkg/utils.py", 10, "product", "runs", None),
        ("pkg/utils.py", 5, "example", "runs", None), ("pkg/utils.py", 5, "test", "optional", reason)]


def test_findings_in_a_function_only_example_scripts_import_are_example_code():
    """Round 23 BasicSR (B2 row 34): basicsr/metrics/fid.py's `load_patched_inception_v3`, whose DataParallel is the
    finding, is imported only by scripts/metrics/*.py (example role), which the report already rates as examples. A
    function product code imports too, or one tests import (test code's), is not an example's."""
    facts = [Facts("pkg/fid.py", exported_functions=[("load", 3, 9), ("fid", 11, 20)]),
             Facts("scripts/a.py", imports=["pkg.fid.load", "pkg.fid.fid"]), Facts("train.py", imports=["pkg.fid.fid"])]
    ctx = context({"scripts/a.py": "example"})
    assert pr.test_only_functions(facts, ctx, "example") == {
        "pkg/fid.py": [(3, 9, "load() is imported only by example scripts: scripts/a.py")]}
    assert pr.test_only_functions(facts, ctx) == {}
    findings = [finding("pkg/fid.py", 5), finding("pkg/fid.py", 12)]
    reason = "load() is imported only by example scripts: scripts/a.py"
    assert places(propagate(findings, facts, ctx)) == [
        ("pkg/fid.py", 5, "example", "runs", reason), ("pkg/fid.py", 12, "product", "runs", None)]


# test scripts and self-test blocks ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path, imports, expected", [
    ("kernels/test.py", ["torch.autograd.gradcheck"], "a test script: test.py imports torch.autograd.gradcheck"),
    ("kernels/Tests.py", ["os", "pytest.mark"], "a test script: Tests.py imports pytest.mark"),
    ("kernels/test.py", ["unittest"], "a test script: test.py imports unittest"),
    ("tools/test.py", ["mmcv"], None),
    ("tools/test.py", ["unittestx", "pytestx.y"], None),
    ("tools/test_x.py", ["pytest"], None),
])
def test_test_scripts(path, imports, expected):
    found = pr.test_scripts([Facts(path, imports=imports)], context())
    assert found == ({path: [(1, 10**9, expected)]} if expected else {})


def test_a_test_script_of_another_role_is_left_alone():
    assert pr.test_scripts([Facts("kernels/test.py", imports=["pytest"])], context({"kernels/test.py": "example"})) == {}


def test_findings_in_a_test_script_are_test_code():
    findings = [finding("kernels/test.py", 500)]
    assert places(propagate(findings, [Facts("kernels/test.py", imports=["pytest"])])) == [
        ("kernels/test.py", 500, "test", "runs", "a test script: test.py imports pytest")]


SELF_TEST = 'line 40: the self-test under `if __name__ == "__main__":` of a module the project imports ({})'


def test_the_self_test_block_of_an_imported_package_module():
    facts = [Facts("pkg/__init__.py"), Facts("pkg/unet.py", main_block=(40, 50)),
             Facts("train.py", imports=["pkg.unet.UNet"]), Facts("a_first.py", imports=["pkg.unet"])]
    assert pr.self_test_blocks(facts, context()) == {"pkg/unet.py": [(40, 50, SELF_TEST.format("a_first.py"))]}
    findings = [finding("pkg/unet.py", 39), finding("pkg/unet.py", 40), finding("pkg/unet.py", 50),
                finding("pkg/unet.py", 51)]
    assert [f.role for f in propagate(findings, facts)] == ["product", "test", "test", "product"]


@pytest.mark.parametrize("change", ["launched", "no package", "top level", "test importer", "no block", "no module",
                                    "example", "imports the package only", "self"])
def test_what_keeps_a_main_block_product_code(change):
    facts = [Facts("pkg/__init__.py"), Facts("pkg/unet.py", main_block=(40, 50)),
             Facts("train.py", imports=["pkg.unet.UNet"])]
    ctx = context()
    if change == "launched":
        facts.append(Facts("run.sh", launched_scripts=["scripts/unet.py"]))
    elif change == "no package":  # a plain folder's module no importer names by its dotted name or its path
        facts[0] = Facts("other/__init__.py")
        facts[2] = Facts("scripts/train.py", imports=["unet.UNet"])
    elif change == "top level":
        facts = [Facts("unet.py", main_block=(40, 50)), Facts("train.py", imports=["unet.UNet"]), Facts("__init__.py")]
    elif change == "test importer":
        ctx = context({"train.py": "test"})
    elif change == "no block":
        facts[1].main_block = None
    elif change == "no module":
        facts[1].module = ""
    elif change == "example":
        ctx = context({"pkg/unet.py": "example"})
    elif change == "imports the package only":
        facts[2].imports = ["pkg"]
    elif change == "self":
        facts[2].imports = []
        facts[1].imports = ["pkg.unet"]
    assert pr.self_test_blocks(facts, ctx) == {}


def test_the_self_test_block_of_a_plain_folder_module_imported_from_above():
    """No __init__.py: `from pkg.unet import UNet` in train.py finds pkg/unet.py below train.py's own folder."""
    facts = [Facts("pkg/unet.py", main_block=(40, 50)), Facts("train.py", imports=["pkg.unet.UNet"])]
    assert pr.self_test_blocks(facts, context()) == {"pkg/unet.py": [(40, 50, SELF_TEST.format("train.py"))]}


# guarded modules ---------------------------------------------------------------------------------------------------
def kernels(first_reach: str = "cuda-only-guarded") -> list[Facts]:
    return [Facts("pkg/kernels.py", imports=["pkg.helper.fn"]), Facts("pkg/helper.py"), Facts("pkg/__init__.py"),
            Facts("model.py", imports=["pkg.kernels"], guarded_imports={"pkg.kernels": first_reach})]


def test_modules_imported_only_behind_guards_and_what_only_they_load():
    why = "imported only behind guards with a fallback: "
    assert pr.guarded_modules(kernels(), context()) == {
        "pkg/kernels.py": ("cuda-only-guarded", why + "model.py"),
        "pkg/__init__.py": ("cuda-only-guarded", why + "model.py"),
        "pkg/helper.py": ("cuda-only-guarded", why + "pkg/kernels.py")}


def test_a_plain_import_anywhere_keeps_the_module_running():
    facts = kernels() + [Facts("train.py", imports=["pkg.helper"])]
    result = pr.guarded_modules(facts, context())
    assert "pkg/helper.py" not in result and "pkg/__init__.py" not in result and "pkg/kernels.py" in result


@pytest.mark.parametrize("roles, reach", [({"train.py": "test"}, {}), ({"train.py": "example"}, {}),
                                          ({}, {"train.py": "other-backend"}), ({}, {"train.py": "optional"})])
def test_imports_in_tests_examples_and_other_backends_do_not_count(roles, reach):
    facts = kernels() + [Facts("train.py", imports=["pkg.helper"])]
    assert "pkg/helper.py" in pr.guarded_modules(facts, context(roles, reach))


def test_mixed_guards_make_a_module_optional_and_importers_are_listed_sorted_three_at_most():
    facts = kernels() + [Facts(f"{name}.py", imports=["pkg.kernels"], guarded_imports={"pkg.kernels": "optional"})
                         for name in ("e", "d", "c", "b")]
    reach, why = pr.guarded_modules(facts, context())["pkg/kernels.py"]
    assert reach == "optional" and why == "imported only behind guards with a fallback: b.py, c.py, d.py"


def test_an_import_guarded_the_same_way_everywhere_keeps_that_reach():
    facts = kernels("optional") + [Facts("b.py", imports=["pkg.kernels"], guarded_imports={"pkg.kernels": "optional"})]
    assert pr.guarded_modules(facts, context())["pkg/kernels.py"][0] == "optional"


def test_a_package_importing_itself_does_not_guard_it():
    facts = [Facts("pkg/__init__.py", imports=["pkg.kernels"], guarded_imports={"pkg.kernels": "optional"}),
             Facts("pkg/kernels.py"), Facts("train.py", imports=["pkg"])]
    # pkg/__init__.py's import of its own package module does not load the package again
    assert pr.guarded_modules(facts, context()) == {
        "pkg/kernels.py": ("optional", "imported only behind guards with a fallback: pkg/__init__.py")}
    lone = [Facts("m.py", imports=["m.x"], guarded_imports={"m.x": "optional"})]
    assert pr.guarded_modules(lone, context()) == {}


def test_unloaded_modules_count_as_guarded():
    facts = [Facts("run.py", imports=["app.core"]), Facts("app/__init__.py"), Facts("app/core.py"),
             Facts("app/only_tests.py"), Facts("tests/t.py", imports=["app.only_tests"])]
    result = pr.guarded_modules(facts, context({"tests/t.py": "test"}))
    assert result == {"app/only_tests.py": ("optional", "imported only by tests (tests/t.py): no product code loads it")}


def test_console_modules_are_entries():
    facts = [Facts("run.py", imports=["app.core"]), Facts("app/__init__.py"), Facts("app/core.py"),
             Facts("app/cli.py"), Facts("tests/t.py", imports=["app.cli"])]
    assert "app/cli.py" in pr.guarded_modules(facts, context({"tests/t.py": "test"}))
    assert pr.guarded_modules(facts, context({"tests/t.py": "test"}), ("app.cli",)) == {}


def test_findings_in_guarded_modules_take_their_reach():
    guarded = {"k.py": ("cuda-only-guarded", "why k"), "o.py": ("optional", "why o"), "d.py": ("cuda-only-guarded", "why d")}
    findings = [finding("k.py", 1, "ATT101", "attention"), finding("k.py", 2), finding("o.py", 3),
                finding("d.py", 4), finding("k.py", 5, "ATT101", "attention", reach="npu-path"), finding("x.py", 6)]
    # k.py holds a CUDA-only feature: all its findings go with it; d.py does not, and is not optional
    assert places(propagate(findings, [], guarded=guarded)) == [
        ("k.py", 1, "product", "cuda-only-guarded", "why k"), ("k.py", 2, "product", "cuda-only-guarded", "why k"),
        ("o.py", 3, "product", "optional", "why o"), ("d.py", 4, "product", "runs", None),
        ("k.py", 5, "product", "npu-path", None), ("x.py", 6, "product", "runs", None)]
    # a feature finding that no longer runs still marks its module as a kernel module
    marked = [finding("d.py", 4), finding("d.py", 5, "ATT101", "attention", reach="npu-path")]
    assert [f.reach for f in propagate(marked, [], guarded=guarded)] == ["cuda-only-guarded", "npu-path"]


def test_guarded_modules_are_worked_out_when_not_given():
    findings = [finding("pkg/kernels.py", 1, "ATT101", "attention")]
    assert places(propagate(findings, kernels())) == [
        ("pkg/kernels.py", 1, "product", "cuda-only-guarded", "imported only behind guards with a fallback: model.py")]


def test_a_test_file_is_kept_as_found():
    findings = [finding("tests/t.py", 1, "ATT101", "attention", role="test")]
    guarded = {"tests/t.py": ("optional", "why")}
    assert places(propagate(findings, [], guarded=guarded)) == [("tests/t.py", 1, "test", "optional", "why")]


# native sources ----------------------------------------------------------------------------------------------------
def test_a_native_source_only_other_backends_build_is_other_backend():
    facts = [Facts("op_builder/fused_adam.py", source_refs=["csrc/adam/"]),
             Facts("op_builder/cpu_adam.py", source_refs=["csrc/adam/multi_tensor_adam.cu"])]
    ctx = context(reach={"op_builder/fused_adam.py": "other-backend", "op_builder/cpu_adam.py": "other-backend"})
    findings = [finding("csrc/adam/multi_tensor_adam.cu", 3), finding("csrc/adam/multi_tensor_adam.cu", 4),
                finding("csrc/adam/fused.cu", 5), finding("csrc/other/k.cu", 6), finding("csrc/adam/x.py", 7),
                finding("csrc/adam/m.cu", 8, reach="optional")]
    both = "built only by other backends' builders: op_builder/cpu_adam.py and 1 more"
    one = "built only by other backends' builders: op_builder/fused_adam.py"
    assert places(propagate(findings, facts, ctx)) == [
        ("csrc/adam/multi_tensor_adam.cu", 3, "product", "other-backend", both),
        ("csrc/adam/multi_tensor_adam.cu", 4, "product", "other-backend", both),
        ("csrc/adam/fused.cu", 5, "product", "other-backend", one),
        ("csrc/other/k.cu", 6, "product", "runs", None), ("csrc/adam/x.py", 7, "product", "runs", None),
        ("csrc/adam/m.cu", 8, "product", "optional", None)]


def test_a_source_one_running_builder_names_runs():
    facts = [Facts("op_builder/fused_adam.py", source_refs=["csrc/adam"]), Facts("setup.py", source_refs=["csrc/adam"])]
    ctx = context(reach={"op_builder/fused_adam.py": "other-backend"})
    assert places(propagate([finding("csrc/adam/k.cu", 1)], facts, ctx)) == [("csrc/adam/k.cu", 1, "product", "runs", None)]


def test_the_source_keeps_its_own_role():
    facts = [Facts("op_builder/fused_adam.py", source_refs=["tests/k.cu"])]
    ctx = context({"tests/k.cu": "test"}, {"op_builder/fused_adam.py": "other-backend"})
    result = propagate([finding("tests/k.cu", 1, role="test")], facts, ctx)
    assert places(result) == [("tests/k.cu", 1, "test", "other-backend",
                               "built only by other backends' builders: op_builder/fused_adam.py")]


def test_names_of_a_source():
    assert pr._names_of("a/b/c.cu") == ["a/b", "a/b/c.cu", "b/c.cu"]
    assert pr._names_of("k.cu") == []
    assert pr._names_of("a/k.cu") == ["a/k.cu"]


# off-by-default options --------------------------------------------------------------------------------------------
def options(flag: str = "--fp8", launched: tuple[str, ...] = ()) -> list[Facts]:
    dest = flag.lstrip("-").replace("-", "_")
    return [Facts("train_util.py", options=[(dest, True, flag, 3)]),
            Facts("train.py", option_arms=[(10, 20, dest, "if args.x:")]),
            Facts("run.sh", launch_flags=list(launched))]


def test_a_site_in_an_arm_of_an_off_by_default_feature_option_is_optional():
    findings = [finding("train.py", 9), finding("train.py", 10), finding("train.py", 20), finding("train.py", 21),
                finding("train.py", 15, role="example"), finding("train.py", 15, reach="npu-path")]
    reason = "`--fp8` is off unless given (train_util.py:3); if args.x:"
    assert places(propagate(findings, options())) == [
        ("train.py", 9, "product", "runs", None), ("train.py", 10, "product", "optional", reason),
        ("train.py", 20, "product", "optional", reason), ("train.py", 21, "product", "runs", None),
        ("train.py", 15, "example", "runs", None), ("train.py", 15, "product", "npu-path", None)]


def test_which_options_make_which_sites_optional():
    assert propagate([finding("train.py", 15)], options("--fp8", ("--fp8",)))[0].reach == "runs"  # launched
    assert propagate([finding("train.py", 15)], options("--use-cuda"))[0].reach == "runs"  # a mainstream switch
    assert propagate([finding("train.py", 15)], options("--foo"))[0].reach == "runs"  # no feature named
    feature = finding("train.py", 15, "ATT101", "attention")
    assert propagate([feature], options("--foo"))[0].reach == "optional"  # a feature's site
    flagged = finding("train.py", 15, "DEV501")
    assert propagate([flagged], options("--foo"))[0].reach == "optional"  # a flag rule's site


# extension fallbacks -----------------------------------------------------------------------------------------------
def test_an_extension_every_import_of_which_falls_back():
    facts = [Facts("pkg/libnat.py", imports=["fairseq.libnat_cuda"],
                   import_fallbacks={"fairseq.libnat_cuda": (12, "libnat")}),
             Facts("pkg/other.py", imports=["libnat_cuda.ops"], import_fallbacks={"libnat_cuda.ops": (3, "cpu_ops")})]
    assert pr.extension_fallback({"libnat_cuda"}, facts, context(), {}) == (
        "the project falls back to libnat (pkg/libnat.py:12) where the extension does not import")


@pytest.mark.parametrize("extra, roles, expected", [
    (Facts("pkg/plain.py", imports=["libnat_cuda"]), {}, None),  # one import without a fallback
    (Facts("pkg/plain.py", imports=["libnat_cuda"]), {"pkg/plain.py": "test"}, "libnat"),
    (Facts("pkg/plain.py", imports=["libnat_cuda"]), {"pkg/plain.py": "example"}, "libnat"),
    (Facts("pkg/plain.py", imports=["libnat_cudax", "xlibnat_cuda"]), {}, "libnat"),  # other names
])
def test_what_an_extension_fallback_depends_on(extra, roles, expected):
    facts = [Facts("pkg/libnat.py", imports=["libnat_cuda"], import_fallbacks={"libnat_cuda": (12, "libnat")}), extra]
    found = pr.extension_fallback({"libnat_cuda"}, facts, context(roles), {})
    assert (found is not None and f"falls back to {expected} " in found) if expected else found is None


def test_the_import_index_keeps_each_importer_once_and_the_files_order():
    facts = [Facts("b.py", imports=["x_cuda", "torch", "x_cuda"], import_fallbacks={"x_cuda": (4, "cpu_b")}),
             Facts("a.py", imports=["pkg.x_cuda"], import_fallbacks={"pkg.x_cuda": (2, "cpu_a")})]
    index = pr.import_index(facts)
    assert index.modules == {"x_cuda": [0], "torch": [0], "pkg.x_cuda": [1]}
    reason = "the project falls back to cpu_b (b.py:4) where the extension does not import"  # the first file's
    assert pr.extension_fallback({"x_cuda"}, facts, context(), {}, index) == reason
    assert pr.extension_fallback({"x_cuda"}, facts, context(), {}) == reason


def test_an_extension_nothing_imports_has_no_fallback():
    assert pr.extension_fallback({"x_cuda"}, [Facts("a.py", imports=["torch"])], context(), {}) is None
    other_backend = [Facts("a.py", imports=["x_cuda"], import_fallbacks={"x_cuda": (1, "cpu")})]
    assert pr.extension_fallback({"x_cuda"}, other_backend, context(reach={"a.py": "other-backend"}), {}) is None


def test_an_extension_imported_by_a_guarded_module_falls_back_with_its_importer():
    facts = [Facts("pkg/lightweight.py", imports=["pkg.layer"], import_fallbacks={"pkg.layer": (5, "LightweightConv1dTBC")}),
             Facts("pkg/__init__.py"), Facts("pkg/layer.py", imports=["lightconv_cuda"])]
    guarded = {"pkg/layer.py": ("cuda-only-guarded", "why")}
    assert pr.extension_fallback({"lightconv_cuda"}, facts, context(), guarded) == (
        "the project falls back to LightweightConv1dTBC (pkg/lightweight.py:5) where the extension does not import")
    assert pr.extension_fallback({"lightconv_cuda"}, facts, context(), {}) is None  # not guarded: required


def test_an_extension_only_optional_modules_import_takes_their_reach():
    # Swin: window_process.py imports swin_window_process; the model imports window_process.py in a try whose
    # handler sets None, so the importer is guarded optional with no named fallback; unit_test.py is a test
    facts = [Facts("models/swin.py", imports=["kernels.window_process.window_process"]),
             Facts("kernels/window_process/window_process.py", imports=["torch", "swin_window_process"]),
             Facts("kernels/window_process/unit_test.py", imports=["swin_window_process"])]
    roles = {"kernels/window_process/unit_test.py": "test"}
    guarded = {"kernels/window_process/window_process.py": ("optional", "imported only behind guards with a fallback: "
                                                            "models/swin.py")}
    assert pr.extension_fallback({"swin_window_process"}, facts, context(roles), guarded) == (
        "imported only by kernels/window_process/window_process.py, itself optional (imported only behind guards "
        "with a fallback: models/swin.py): the project runs without the extension")
    # the same importer rated optional by the context (an unloaded module) rather than by a guard
    optional = context({**roles, "kernels/window_process/window_process.py": "product"},
                       {"kernels/window_process/window_process.py": "optional"})
    assert pr.extension_fallback({"swin_window_process"}, facts, optional, {}).startswith(
        "imported only by kernels/window_process/window_process.py, itself optional")
    why = pr.extension_fallback({"swin_window_process"}, facts, context(roles), guarded)
    zh = phrase("zh", why)
    assert "itself optional" not in zh and "仅在带回退的保护条件下导入" in zh  # and the reason inside it


@pytest.mark.parametrize("extra, guarded_reach, required", [
    (Facts("train.py", imports=["swin_window_process"]), "optional", True),  # another importer runs without fallback
    (None, "cuda-only-guarded", True),  # a guard of another kind is not an optional importer
    (None, "optional", False),
])
def test_what_an_optional_importer_depends_on(extra, guarded_reach, required):
    facts = [Facts("kernels/window_process.py", imports=["swin_window_process"]), *([extra] if extra else [])]
    found = pr.extension_fallback({"swin_window_process"}, facts, context(),
                                  {"kernels/window_process.py": (guarded_reach, "why")})
    assert (found is None) == required


def _fallback_of(path, facts, guarded):
    return pr._fallback_of(path, facts, guarded, 0, pr.import_index(facts))


def test_the_importers_of_a_file_are_every_import_loading_it_in_the_files_order():
    facts = [Facts("b.py", imports=["pkg.k", "torch"]), Facts("pkg/__init__.py"), Facts("pkg/k.py"),
             Facts("a.py", imports=["pkg"])]
    index = pr.import_index(facts)
    assert index.importers("pkg/k.py") == [(0, "pkg.k")]
    assert index.importers("pkg/__init__.py") == [(0, "pkg.k"), (3, "pkg")]  # a package loads with its modules
    assert index.importers("c.py") == []


def test_fallback_of_follows_guarded_importers_six_levels_deep():
    def chain(length: int) -> list[Facts]:
        facts = [Facts("m0.py", imports=["m1"], import_fallbacks={"m1": (7, "slow")})]
        facts += [Facts(f"m{i}.py", imports=[f"m{i + 1}"]) for i in range(1, length)]
        return facts + [Facts(f"m{length}.py")]
    guarded = {f"m{i}.py": ("optional", "why") for i in range(1, 20)}
    assert _fallback_of("m1.py", chain(1), guarded) == ("m0.py", 7, "slow")
    assert _fallback_of("m7.py", chain(7), guarded) == ("m0.py", 7, "slow")
    assert _fallback_of("m8.py", chain(8), guarded) is None
    assert _fallback_of("m3.py", chain(3), {"m3.py": ("optional", "")}) is None  # m2 is not guarded
    assert _fallback_of("m1.py", [Facts("m1.py", imports=["m1"], import_fallbacks={"m1": (1, "x")})], guarded) is None


def test_fallback_of_skips_a_package_loading_its_own_module():
    facts = [Facts("pkg/__init__.py", imports=["pkg.k"]), Facts("pkg/k.py"),
             Facts("use.py", imports=["pkg.k"], import_fallbacks={"pkg.k": (2, "slow")})]
    guarded = {"pkg/__init__.py": ("optional", ""), "pkg/k.py": ("optional", "")}
    assert _fallback_of("pkg/k.py", facts, guarded) == ("use.py", 2, "slow")


# small helpers -----------------------------------------------------------------------------------------------------
def test_inside_package():
    assert pr._inside_package("a/b.py", "__init__.py") is True
    assert pr._inside_package("pkg/x.py", "pkg/__init__.py") is True
    assert pr._inside_package("pkg/sub/x.py", "pkg/__init__.py") is True
    assert pr._inside_package("pkgx/y.py", "pkg/__init__.py") is False
    assert pr._inside_package("pkg/x.py", "pkg/m.py") is False
    assert pr._inside_package("other.py", "pkg/__init__.py") is False


def test_loaded_by_and_local_path():
    by_module = {"a": "a/__init__.py", "a.b": "a/b/__init__.py", "a.b.c": "a/b/c.py", "x": "x.py"}
    assert pr._loaded_by("a.b.c.fn", by_module) == ["a/__init__.py", "a/b/__init__.py", "a/b/c.py"]
    assert pr._loaded_by("a.b", by_module) == ["a/__init__.py", "a/b/__init__.py"]
    assert pr._loaded_by("a.zz.q", by_module) == ["a/__init__.py"]
    assert pr._loaded_by("zz", by_module) == []
    assert pr._local_path("a.b.zz", by_module) == "a/b/__init__.py"
    assert pr._local_path("x", by_module) == "x.py" and pr._local_path("y.x", by_module) is None


def test_nothing_to_propagate_returns_the_findings():
    findings = [finding("a.py", 1)]
    assert propagate(findings, [], guarded={}) is findings


def test_a_source_reference_is_read_without_its_slashes_only():
    facts = [Facts("op_builder/x.py", source_refs=["/csrc/kernelX/"])]
    ctx = context(reach={"op_builder/x.py": "other-backend"})
    assert propagate([finding("csrc/kernelX/a.cu", 1)], facts, ctx)[0].reach == "other-backend"


def test_files_without_exports_or_tests_before_others_do_not_stop_the_readers():
    facts = [Facts("0.py"), Facts("pkg/utils.py", exported_functions=[("enable", 3, 9)]),
             Facts("tests/a.py", imports=["pkg.utils.enable"])]
    assert pr.test_only_functions(facts, context({"tests/a.py": "test"})) != {}
    scripts = [Facts("kernels/other.py"), Facts("kernels/test.py", imports=["pytest"])]
    assert pr.test_scripts(scripts, context()) != {}


def test_a_self_test_of_a_module_imported_by_a_name_inside_it():
    facts = [Facts("script.py", main_block=(1, 2)), Facts("pkg/__init__.py"), Facts("pkg/unet.py", main_block=(40, 50)),
             Facts("train.py", imports=["pkg.unet.UNet"])]
    assert pr.self_test_blocks(facts, context()) == {"pkg/unet.py": [(40, 50, SELF_TEST.format("train.py"))]}


def test_a_self_test_in_a_folder_that_is_not_a_package():
    """pkg/sub has no __init__.py: imported by its path from train.py's folder it is still a library's module (round
    18 A27). Imported by its full dotted name from another folder (scripts/train.py, run as `python -m
    scripts.train` from the root: a namespace package) it is one too when a name is imported from it (round 28
    A1/A2 C3: LatentSync-style `from pkg.sub.unet import UNet`); importing the module itself by that name may be for
    its path (xtuner's CLI: `from xtuner.tools import mmbench; return mmbench.__file__`, then runs it as a script), so
    its block stays the command; a one-part name that is not its own (`import unet` in scripts/) is no import of it."""
    facts = [Facts("pkg/__init__.py"), Facts("pkg/sub/unet.py", main_block=(40, 50)),
             Facts("train.py", imports=["pkg.sub.unet"])]
    assert pr.self_test_blocks(facts, context()) == {"pkg/sub/unet.py": [(40, 50, SELF_TEST.format("train.py"))]}
    facts[2] = Facts("scripts/train.py", imports=["pkg.sub.unet.UNet"])
    assert pr.self_test_blocks(facts, context()) == {"pkg/sub/unet.py": [(40, 50, SELF_TEST.format("scripts/train.py"))]}
    facts[2] = Facts("scripts/cli.py", imports=["pkg.sub.unet"])
    assert pr.self_test_blocks(facts, context()) == {}
    facts[2] = Facts("scripts/train.py", imports=["unet"])
    assert pr.self_test_blocks(facts, context()) == {}


PATH_EDIT = ["sys.path.append"]


def test_a_self_test_of_a_module_found_through_a_folder_put_on_sys_path():
    """votenet (round 42 A1 C6, A2 C4): train.py writes `sys.path.append(os.path.join(ROOT_DIR, 'models'))` and imports
    `from backbone_module import ...`; models/ has no __init__.py, so only the path edit names models/backbone_module.py.
    A file putting its own folder on sys.path (`sys.path.append(BASE_DIR)`) imports its siblings by their stems."""
    facts = [Facts("models/backbone_module.py", main_block=(40, 50)),
             Facts("train.py", imports=["backbone_module.Backbone"], words=" ROOT_DIR models ", dotted_words=PATH_EDIT)]
    assert pr.self_test_blocks(facts, context()) == {
        "models/backbone_module.py": [(40, 50, SELF_TEST.format("train.py"))]}
    facts[1] = Facts("models/votenet.py", imports=["backbone_module.Backbone"], words=" BASE_DIR ",
                     dotted_words=PATH_EDIT)
    assert pr.self_test_blocks(facts, context()) == {
        "models/backbone_module.py": [(40, 50, SELF_TEST.format("models/votenet.py"))]}


@pytest.mark.parametrize("change", ["no path edit", "other folder", "test importer", "launched", "readme"])
def test_what_keeps_a_block_of_a_module_on_sys_path_product_code(change):
    """Without the path edit a bare stem names no file of another folder; a folder the importer does not name is not
    on its path; a test's import is no product use; a launcher or the README running the module keeps its block the
    command."""
    facts = [Facts("models/backbone_module.py", main_block=(40, 50)),
             Facts("train.py", imports=["backbone_module.Backbone"], words=" models ", dotted_words=PATH_EDIT)]
    ctx = context()
    if change == "no path edit":
        facts[1].dotted_words = []
    elif change == "other folder":
        facts[1].words = " utils "
    elif change == "test importer":
        ctx = context({"train.py": "test"})
    elif change == "launched":
        facts.append(Facts("run.sh", launched_scripts=["models/backbone_module.py"]))
    elif change == "readme":
        ctx = ProjectContext(files={}, readme_launches=("models/backbone_module.py",))
    assert pr.self_test_blocks(facts, ctx) == {}


def test_a_test_importer_listed_first_does_not_stop_the_guarded_reading():
    facts = [Facts("tests/t.py", imports=["pkg.helper"])] + kernels()
    assert "pkg/kernels.py" in pr.guarded_modules(facts, context({"tests/t.py": "test"}))


def test_a_module_already_known_does_not_stop_the_others():
    facts = [Facts("app/only_tests.py", imports=["app.helper2"]), Facts("app/helper2.py"), Facts("app/__init__.py"),
             Facts("run.py", imports=["app.core"]), Facts("app/core.py"),
             Facts("tests/t.py", imports=["app.only_tests"])] + kernels()
    result = pr.guarded_modules(facts, context({"tests/t.py": "test"}))
    assert result["app/helper2.py"][0] == "optional" and result["pkg/kernels.py"][0] == "cuda-only-guarded"


def test_extension_importers_and_modules_listed_first_do_not_stop_the_search():
    facts = [Facts("tests/t.py", imports=["libnat_cuda"]),
             Facts("pkg/libnat.py", imports=["torch", "libnat_cuda"], import_fallbacks={"libnat_cuda": (12, "libnat")})]
    found = pr.extension_fallback({"libnat_cuda"}, facts, context({"tests/t.py": "test"}), {})
    assert found == "the project falls back to libnat (pkg/libnat.py:12) where the extension does not import"


def test_an_extension_fallback_found_through_two_guarded_modules():
    facts = [Facts("use.py", imports=["pkg.mid"], import_fallbacks={"pkg.mid": (4, "slow")}),
             Facts("pkg/mid.py", imports=["pkg.layer"]), Facts("pkg/layer.py", imports=["ext_cuda"])]
    guarded = {"pkg/mid.py": ("optional", ""), "pkg/layer.py": ("optional", "")}
    assert pr.extension_fallback({"ext_cuda"}, facts, context(), guarded) == (
        "the project falls back to slow (use.py:4) where the extension does not import")


def test_an_extension_fallback_six_guarded_modules_up():
    facts = [Facts("m0.py", imports=["os", "m1"], import_fallbacks={"m1": (7, "slow")})]
    facts += [Facts(f"m{i}.py", imports=[f"m{i + 1}"]) for i in range(1, 7)] + [Facts("m7.py", imports=["x_cuda"])]
    guarded = {f"m{i}.py": ("optional", "") for i in range(1, 8)}
    assert pr.extension_fallback({"x_cuda"}, facts, context(), guarded) == (
        "the project falls back to slow (m0.py:7) where the extension does not import")


def test_fallback_of_a_guarded_package_through_an_outside_importer():
    facts = [Facts("pkg/__init__.py"), Facts("outer.py", imports=["pkg"]),
             Facts("use.py", imports=["outer"], import_fallbacks={"outer": (2, "slow")})]
    guarded = {"pkg/__init__.py": ("optional", ""), "outer.py": ("optional", "")}
    assert _fallback_of("pkg/__init__.py", facts, guarded) == ("use.py", 2, "slow")


# modules only other backends' branches import ------------------------------------------------------------------------
def test_a_module_imported_only_in_other_backends_branches_is_other_backend():
    reason = "imported only in other backends' branches (never on Ascend): model.py"
    assert pr.guarded_modules(kernels("other-backend"), context())["pkg/kernels.py"] == ("other-backend", reason)
    guarded = {"o.py": ("other-backend", "why o")}
    # not a kernel module and no feature: its findings still go with it
    assert places(propagate([finding("o.py", 3)], [], guarded=guarded)) == [("o.py", 3, "product", "other-backend",
                                                                             "why o")]


# monkey-patch installers nothing calls ------------------------------------------------------------------------------
PATCH = "pkg/patch/llama_patch.py"


def patch_facts(*users: Facts) -> list[Facts]:
    return [Facts(PATCH, patch_installers=[("replace_attn", 10, 20, [("forward", 30, 40), ("helper", 50, 52)])]),
            Facts("pkg/patch/__init__.py", imports=["pkg.patch.llama_patch.replace_attn"]),
            Facts("pkg/__init__.py"), *users]


def test_a_patch_installer_nothing_calls_and_what_it_installs_never_run():
    where = f"replace_attn() ({PATCH}:10), which nothing in the project calls"
    assert pr.uninstalled_patches(patch_facts(), context()) == {PATCH: [
        (10, 20, "replace_attn() installs a patch, and nothing in the project calls it"),
        (30, 40, f"forward() is installed only by {where}"), (50, 52, f"helper() is installed only by {where}")]}


@pytest.mark.parametrize("user", [
    Facts("train.py", imports=["pkg.patch.replace_attn"]),  # through the package's re-export
    Facts("train.py", imports=["pkg.patch.llama_patch.replace_attn"]),
    Facts("train.py", imports=["pkg.patch.llama_patch"]),  # the module itself
    Facts("pkg/patch/other.py", imports=["pkg.patch.replace_attn"]),
    Facts("train.py", module_strings=[("pkg.patch.llama_patch", 3)]),  # named in a string
])
def test_an_installer_anything_imports_or_names_may_run(user):
    assert pr.uninstalled_patches(patch_facts(user), context()) == {}


def test_re_exports_are_followed_through_every_package():
    facts = patch_facts(Facts("train.py", imports=["pkg.replace_attn"]))
    facts[2].imports = ["pkg.patch.replace_attn"]  # pkg/__init__.py re-exports pkg.patch's re-export
    assert pr.uninstalled_patches(facts, context()) == {}
    facts[3].imports = []
    assert list(pr.uninstalled_patches(facts, context())) == [PATCH]


def test_an_init_outside_the_packages_is_a_user():
    facts = patch_facts(Facts("__init__.py", module="", imports=["pkg.patch.replace_attn"]))
    assert pr.uninstalled_patches(facts, context()) == {}


def test_the_installer_s_own_file_is_no_user():
    facts = patch_facts()
    facts[0].imports = ["pkg.patch.llama_patch.replace_attn", "pkg.patch.llama_patch"]
    assert list(pr.uninstalled_patches(facts, context())) == [PATCH]


@pytest.mark.parametrize("change", ["test role", "no module", "no installers"])
def test_what_has_no_uninstalled_patch(change):
    facts = patch_facts()
    roles = {PATCH: "test"} if change == "test role" else None
    if change == "no module":
        facts[0].module = ""
    if change == "no installers":
        facts[0].patch_installers = []
    assert pr.uninstalled_patches(facts, context(roles)) == {}


def test_each_installer_of_a_file_is_read():
    facts = patch_facts(Facts("train.py", imports=["pkg.patch.llama_patch.replace_attn"]))
    facts[0].patch_installers.insert(0, ("replace_attn", 10, 20, []))
    facts[0].patch_installers.append(("replace_mlp", 60, 70, []))
    assert pr.uninstalled_patches(facts, context()) == {PATCH: [
        (60, 70, "replace_mlp() installs a patch, and nothing in the project calls it")]}


def test_findings_in_an_uninstalled_patch_are_optional():
    findings = [finding(PATCH, 12), finding(PATCH, 35), finding(PATCH, 45), finding(PATCH, 36, reach="npu-path")]
    assert places(propagate(findings, patch_facts())) == [
        (PATCH, 12, "product", "optional", "replace_attn() installs a patch, and nothing in the project calls it"),
        (PATCH, 35, "product", "optional",
         f"forward() is installed only by replace_attn() ({PATCH}:10), which nothing in the project calls"),
        (PATCH, 45, "product", "runs", None), (PATCH, 36, "product", "npu-path", None)]


# diagnostic scripts ---------------------------------------------------------------------------------------------
GFLOPS = "classification/gflops.py"
DIAGNOSTIC = "a diagnostic script: it imports the complexity counter {} and trains nothing"


@pytest.mark.parametrize(("facts", "used"), [
    (Facts(GFLOPS, imports=["torch", "fvcore.nn.FlopCountAnalysis"], main_guard=True), "fvcore.nn.FlopCountAnalysis"),
    (Facts(GFLOPS, imports=["thop"], top_level_code=True), "thop"),
    (Facts(GFLOPS, imports=["thop.profile"], main_guard=True), "thop.profile"),
    (Facts(GFLOPS, imports=["mmcv.cnn.get_model_complexity_info"], main_guard=True, evidence={"inference": 2}),
     "mmcv.cnn.get_model_complexity_info"),
])
def test_a_script_built_around_a_complexity_counter_is_a_diagnostic(facts, used):
    assert pr.diagnostic_scripts([facts], context()) == {GFLOPS: DIAGNOSTIC.format(used)}


@pytest.mark.parametrize("change", [
    {"main_guard": False},  # a library module
    {"evidence": {"training": 1}},
    {"imports": ["thopx", "fvcore.nn"]},  # no counter: a longer name, a parent package
    {"role": "test"},
    {"imported": "classification.gflops"},  # another module imports it
    {"imported": "classification.gflops.main"},
])
def test_what_is_no_diagnostic_script(change):
    script = Facts(GFLOPS, imports=change.get("imports", ["thop"]), main_guard=change.get("main_guard", True),
                   evidence=change.get("evidence", {}))
    facts = [script] + ([Facts("run.py", imports=[change["imported"]])] if "imported" in change else [])
    roles = {GFLOPS: change["role"]} if "role" in change else None
    assert pr.diagnostic_scripts(facts, context(roles)) == {}


def test_a_script_imported_under_a_longer_name_is_still_a_diagnostic():
    facts = [Facts(GFLOPS, imports=["thop"], main_guard=True), Facts("run.py", imports=["classification.gflops_x"])]
    assert list(pr.diagnostic_scripts(facts, context())) == [GFLOPS]


def test_a_script_without_a_module_name_is_read():
    facts = [Facts("gflops.ipynb", imports=["thop"], top_level_code=True), Facts("run.py", imports=["x"])]
    assert list(pr.diagnostic_scripts(facts, context())) == ["gflops.ipynb"]


def test_findings_in_a_diagnostic_script_are_example_code():
    findings = [finding(GFLOPS, 3), finding(GFLOPS, 4, reach="optional"), finding(GFLOPS, 5, role="test")]
    assert places(propagate(findings, [Facts(GFLOPS, imports=["thop"], main_guard=True)])) == [
        (GFLOPS, 3, "example", "runs", DIAGNOSTIC.format("thop")),
        (GFLOPS, 4, "example", "optional", DIAGNOSTIC.format("thop")), (GFLOPS, 5, "test", "runs", None)]


# arms a parameter's default decides (analyzer/context/unpassed_defaults.py) -----------------------------------------
def test_findings_in_an_arm_no_caller_takes_are_optional_and_in_a_passing_assert_info():
    arm = (9, 10, "Model", "local_rank", 0, "-1", "line 8: if local_rank != -1:", False)
    check = (12, 12, "Model", "backend", 1, '"nccl"', 'line 12: assert backend == "nccl"', True)
    facts = [Facts("pkg/model.py", default_arms=[arm, check]),
             Facts("pkg/app.py", default_calls={"Model": (1, 0, [], False)})]
    findings = [finding("pkg/model.py", 8), finding("pkg/model.py", 9), finding("pkg/model.py", 10),
                finding("pkg/model.py", 12), finding("pkg/model.py", 11, reach="npu-path"),
                finding("pkg/model.py", 9, reach="optional"), finding("pkg/model.py", 10, role="test")]
    result = propagate(findings, facts)
    assert [(f.line, f.role, f.reach, f.severity) for f in result] == [
        (8, "product", "runs", "low"), (9, "product", "optional", "low"), (10, "product", "optional", "low"),
        (12, "product", "cosmetic", "info"), (11, "product", "npu-path", "low"), (9, "product", "optional", "low"),
        (10, "test", "runs", "low")]
    assert result[1].reach_reason.startswith("`local_rank=-1` by default (Model())")
    assert result[3].reach_reason.startswith('`backend="nccl"` by default (Model())')
    assert result[5].reach_reason is None


def test_a_module_some_import_other_backend_and_some_cuda_only_guarded_is_optional():
    facts = kernels("other-backend") + [Facts("b.py", imports=["pkg.kernels"],
                                              guarded_imports={"pkg.kernels": "cuda-only-guarded"})]
    assert pr.guarded_modules(facts, context())["pkg/kernels.py"][0] == "optional"


def test_the_first_and_last_lines_of_an_uninstalled_range_are_in_it():
    findings = [finding(PATCH, 10), finding(PATCH, 20), finding(PATCH, 30), finding(PATCH, 40), finding(PATCH, 41)]
    assert [f.reach for f in propagate(findings, patch_facts())] == ["optional"] * 4 + ["runs"]


def test_files_left_out_before_the_installer_do_not_stop_the_reading():
    facts = [Facts("pkg/plain.py"), Facts("tests/t.py", patch_installers=[("p", 1, 2, [])])] + patch_facts()
    assert list(pr.uninstalled_patches(facts, context({"tests/t.py": "test"}))) == [PATCH]


def test_files_left_out_before_the_diagnostic_script_do_not_stop_the_reading():
    facts = [Facts("lib.py", imports=["thop"]), Facts("train.py", imports=["thop"], main_guard=True,
                                                      evidence={"training": 3}),
             Facts(GFLOPS, imports=["thop"], main_guard=True)]
    assert list(pr.diagnostic_scripts(facts, context())) == [GFLOPS]


def test_a_self_test_of_a_module_imported_by_a_tail_of_its_path():
    """Round 31 A2 C3: a demo's package below a folder no dotted name reaches (`web-demos/`), imported by the tail a
    script puts on sys.path (`from tracker.model.pe import PE`): the module is a library, its block a self-test. A
    tail of one part (`import pe` from elsewhere) or another file's path is no import of it."""
    facts = [Facts("web-demos/app/tracker/model/__init__.py"), Facts("web-demos/app/tracker/model/pe.py", main_block=(40, 50)),
             Facts("web-demos/app/tracker/model/ot.py", imports=["tracker.model.pe.PE"])]
    assert pr.self_test_blocks(facts, context()) == {
        "web-demos/app/tracker/model/pe.py": [(40, 50, SELF_TEST.format("web-demos/app/tracker/model/ot.py"))]}
    facts[2] = Facts("web-demos/app/tracker/model/ot.py", imports=["other.model.pe.PE"])
    assert pr.self_test_blocks(facts, context()) == {}


def test_a_module_whose_importers_are_optional_for_reasons_of_their_own_is_not_said_to_be_guarded():
    """OneFormer (round 34 verdicts V2): no import of pkg/b.py is guarded; its one importer is optional because it
    cannot be imported. The reason says that, not "behind guards with a fallback"; a module below a guarded one
    still says guards (test_modules_imported_only_behind_guards_and_what_only_they_load)."""
    facts = [Facts("pkg/__init__.py"), Facts("pkg/a.py", imports=["pkg.missing.x", "pkg.b"]), Facts("pkg/b.py"),
             Facts("run.py", imports=["pkg.a"], main_guard=True)]
    assert pr.guarded_modules(facts, context())["pkg/b.py"] == (
        "optional", "imported only by modules that are optional themselves: pkg/a.py")
