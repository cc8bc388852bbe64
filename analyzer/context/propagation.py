"""Reach that only the whole project shows.

- Native sources that only another backend's builders compile: DeepSpeed's CUDA op builders (op_builder/fused_adam.py,
  other-backend beside op_builder/npu/) name 'csrc/adam/multi_tensor_adam.cu'; when every file that names a source
  (or a folder holding it) is other-backend code, so is the source: Ascend builds what the NPU builders name instead.
- Modules of the project's packages that nothing the product runs loads (only tests import them): unloaded.py.
- Module-level functions and classes nothing in the project names: unreferenced.py.
- A script's module-level functions nothing calls (only comments name them): uncalled_functions.py; what only they
  call is unreached too (unreferenced.py takes them as unreached callers).
- A vendored copy's functions and classes nothing the host, or copy code it reaches, names: copy_reach.py.
- Private methods no file names (no `.name` call, getattr string or config entry): uncalled_methods.py.
- Extension loaders called only in comments, and the native sources only they build: unhooked_loaders.py.
- Native sources no build names: unbuilt.py; modules loading a compiled extension nothing builds: unbuilt_extensions.py.
- Vendored copies of another project's package whose own absolute imports cannot resolve here: vendored.py.
- Shell launchers whose every launch names a script or project module the tree does not have: stale_launchers.py.
- Modules that only other backends' branches import (the except arm of `try: import torch_npu`): all their code is
  other-backend.
- Modules of CUDA-only features that the project imports only behind guards: whisper imports its Triton kernels
  (triton_ops.py) only `if x.is_cuda:` inside a try with a fallback, so those kernels never run on Ascend; the other
  findings of such a kernel module (a Triton autotune hook's capability query) go with them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.argv_opt_outs import passed_opt_out_arms
from ascend_feasibility.analyzer.context.backend_selectors import selector_tests
from ascend_feasibility.analyzer.context.bundled_projects import (
    BundledCopies,
    bundled_copies,
    host_imports,
    unimported_projects,
    unlaunched_scripts,
    unrun_package_scripts,
)
from ascend_feasibility.analyzer.context.config_defaults import assigns_config_default, default_valued_switches
from ascend_feasibility.analyzer.context.copy_reach import unreached_copy_definitions
from ascend_feasibility.analyzer.context.cuda_arms import gate_reason
from ascend_feasibility.analyzer.context.cudnn_ops import idle_switches
from ascend_feasibility.analyzer.context.dict_built import dict_built_ranges
from ascend_feasibility.analyzer.context.env_switches import table_arms_off
from ascend_feasibility.analyzer.context.fallback_copies import required_fallback_ranges
from ascend_feasibility.analyzer.context.guards import library_class_of, public_callers_name
from ascend_feasibility.analyzer.context.host_exports import host_exports
from ascend_feasibility.analyzer.context.importing_writers import importing_writers
from ascend_feasibility.analyzer.context.launch_variants import opt_in_configs
from ascend_feasibility.analyzer.context.library_hooks import hooked_methods, hooked_reason
from ascend_feasibility.analyzer.context.literal_flags import written_elsewhere_name
from ascend_feasibility.analyzer.context.missing_modules import missing_module_importers
from ascend_feasibility.analyzer.context.module_copies import loaded_copy, module_copies, shadowed_copies
from ascend_feasibility.analyzer.context.opt_in import opt_in_modules, rejected_arms, switched_options
from ascend_feasibility.analyzer.context.pasted_notes import notes
from ascend_feasibility.analyzer.context.path_imports import sys_path_importers
from ascend_feasibility.analyzer.context.platform_selectors import imported_reason, is_unselected, platform_choice
from ascend_feasibility.analyzer.context.process_groups import never_initialised
from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.shell_opt_ins import opt_in_arms
from ascend_feasibility.analyzer.context.stale_launchers import stale_launchers
from ascend_feasibility.analyzer.context.switched_builds import switched_sources
from ascend_feasibility.analyzer.context.switched_on import on_reason, turned_on
from ascend_feasibility.analyzer.context.switches import switch_rule
from ascend_feasibility.analyzer.context.test_launchers import test_launchers
from ascend_feasibility.analyzer.context.unbuilt import unbuilt_sources
from ascend_feasibility.analyzer.context.unbuilt_extensions import unbuildable_extension_calls, unbuilt_extension_modules
from ascend_feasibility.analyzer.context.uncalled_functions import uncalled_ranges, uncalled_script_functions
from ascend_feasibility.analyzer.context.uncalled_methods import method_ranges, uncalled_methods
from ascend_feasibility.analyzer.context.unhooked_loaders import unhooked_loaders, unhooked_ranges, unhooked_sources
from ascend_feasibility.analyzer.context.unloaded import (
    config_named_modules,
    import_names,
    package_folders,
    unloaded_modules,
)
from ascend_feasibility.analyzer.context.unpassed_defaults import (
    METHOD_VALUE,
    OWN,
    default_path,
    re_exported,
    unpassed_defaults,
)
from ascend_feasibility.analyzer.context.unread_attributes import unread_attribute_stores
from ascend_feasibility.analyzer.context.unread_keys import unread as unread_key_lines
from ascend_feasibility.analyzer.context.unread_settings import unread as unread_config_settings
from ascend_feasibility.analyzer.context.unread_settings import unread_reason
from ascend_feasibility.analyzer.context.unreferenced import reexporters_of, unreferenced_symbols
from ascend_feasibility.analyzer.context.vendored import unimportable_modules
from ascend_feasibility.analyzer.context.wrapped_extensions import unreached_wrapped_extensions
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers, writes_any, writes_word
from ascend_feasibility.analyzer.core.findings import FindingFactory, Place
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.knowledge import load_context_conventions, load_cuda_features

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


DOCUMENT_SUFFIXES = (".md", ".rst")


def _as_copy_document(finding: Finding, why: str, factory: FindingFactory) -> Finding:
    """A finding in a bundled copy's README (or another document of it): the copy's documentation, `optional`."""
    if finding.reach == "runs":
        finding = factory.relocate(finding, Place(finding.role, "optional", why))
    return finding.model_copy(update={"role": "docs"})


def propagate_reach(findings: list[Finding], facts: list[ModuleFacts], context: ProjectContext,
                    factory: FindingFactory, feature_domains: frozenset[str],
                    guarded: dict[str, tuple[str, str]] | None = None, distribution: str = "",
                    declared: frozenset[str] = frozenset(), packages: set[str] | None = None,
                    unreached: dict[str, list[tuple[int, int, str]]] | None = None,
                    copies: BundledCopies | None = None, required: frozenset[str] = frozenset()) -> list[Finding]:
    """`guarded`: guarded_modules(facts, context) when the caller has it already; `distribution`: the name the
    project publishes (pyproject's [project] name); `declared`: the distributions it declares or imports;
    `packages`: unloaded.package_folders(facts), likewise; `unreached`: path → (first line, last line, why) of code
    the rooms found nothing reaches (native code only uncalled bindings reach: custom_ops/binding_reach.py);
    `copies`: bundled_projects.bundled_copies(facts, packages, context.readme_folders), likewise; `required`: the
    distributions the project declares (a dependency matrix row with sources)."""
    packages = package_folders(facts, context.source_roots) if packages is None else packages
    copies = bundled_copies(facts, packages, context.readme_folders) if copies is None else copies
    referrers: dict[str, set[str]] = defaultdict(set)  # a named source or folder → the files that name it
    for f in facts:
        for ref in f.source_refs:
            referrers[ref.strip("/")].add(f.path)
    if guarded is None:
        guarded = guarded_modules(facts, context, packages=packages, copies=copies)
    # the native sources of a bundled project nothing of the host reaches (bundled_projects.py): they have no facts
    native = {f.path for f in findings if f.path.endswith(NATIVE_SUFFIXES)}
    bundled_native = unimported_projects(facts, others=native, documented=context.readme_launches) if native else {}
    if bundled_native:
        guarded = dict(guarded) | {path: ("optional", why) for path, why in bundled_native.items() if path in native}
    # a bundled copy's README and environment files (bundled_projects.py): the upstream's, not the host's; no facts
    with_facts = {f.path for f in facts}
    loose = {f.path for f in findings if f.path not in with_facts}
    bundled_loose = unlaunched_scripts(facts, copies, others=loose, documented=context.readme_launches) if loose else {}
    if bundled_loose:
        guarded = dict(guarded) | {path: ("optional", why) for path, why in bundled_loose.items() if path in loose}
        # its README and other documents are the upstream's documentation: role docs, never counted
        findings = [_as_copy_document(f, bundled_loose[f.path], factory) if f.path in loose and f.path in bundled_loose
                    and PurePosixPath(f.path).suffix.lower() in DOCUMENT_SUFFIXES else f for f in findings]
    test_only = test_only_functions(facts, context)
    self_tests = self_test_blocks(facts, context)
    for path, ranges in self_tests.items():
        test_only.setdefault(path, []).extend(ranges)
    for path, ranges in test_scripts(facts, context).items():
        test_only.setdefault(path, []).extend(ranges)
    for path, ranges in test_launchers(facts, context).items():
        test_only.setdefault(path, []).extend(ranges)
    tools = diagnostic_scripts(facts, context)
    scratch = notes(facts)  # a launch line beside pasted output: documentation
    example_only = test_only_functions(facts, context, "example")
    uninstalled = uninstalled_patches(facts, context)
    demos = {path: ranges[0][2] for path, ranges in self_tests.items()}
    uncalled = uncalled_script_functions(facts, context, distribution, packages)  # a script's functions nothing calls
    silent = uncalled_methods(facts, context, packages, distribution)  # private methods nothing names
    # extension loaders called only in comments: that reason before "named nowhere", which the comment no longer
    # counts against since comments are prose (domains/phases/prose.py)
    unhooked = unhooked_loaders(facts)
    for path, ranges in unhooked_ranges(unhooked).items():
        uninstalled.setdefault(path, []).extend(ranges)
    for path, ranges in unreferenced_symbols(facts, context, distribution, packages, demos, set(uncalled),
                                             set(silent)).items():
        uninstalled.setdefault(path, []).extend(ranges)
    for path, ranges in (unreached or {}).items():
        uninstalled.setdefault(path, []).extend(ranges)
    # definitions only a failed import of a declared requirement defines (fallback_copies.py)
    for path, ranges in required_fallback_ranges(facts, required).items():
        uninstalled.setdefault(path, []).extend(ranges)
    # a vendored copy's functions and classes nothing the host reaches names (copy_reach.py)
    for path, ranges in unreached_copy_definitions(facts, context).items():
        uninstalled.setdefault(path, []).extend(ranges)
    for path, ranges in uncalled_ranges(uncalled).items():
        uninstalled.setdefault(path, []).extend(ranges)
    for path, ranges in dict_built_ranges(facts, context).items():  # classes built by name from a shipped dict
        uninstalled.setdefault(path, []).extend(ranges)
    for path, ranges in method_ranges(silent).items():
        uninstalled.setdefault(path, []).extend(ranges)
    for path, ranges in rejected_arms(facts, context).items():  # a value the option's choices reject: never taken
        uninstalled.setdefault(path, []).extend(ranges)
    for path, ranges in opt_in_configs(facts, context).items():  # a config only an opt-in launch variant names
        uninstalled.setdefault(path, []).extend(ranges)
    for f in facts:
        if f.dead_stores:  # a value bound again before anything reads it
            uninstalled.setdefault(f.path, []).extend(f.dead_stores)
        if f.unbuildable_classes:  # a class whose constructor raises NameError: nothing builds it
            uninstalled.setdefault(f.path, []).extend(f.unbuildable_classes)
        if f.overwritten_arguments:  # a string the callee overwrites before reading it
            uninstalled.setdefault(f.path, []).extend(f.overwritten_arguments)
    for path, ranges in unread_attribute_stores(facts, packages).items():  # stored, never read
        uninstalled.setdefault(path, []).extend(ranges)
    # native code of an extension only unreached wrapper definitions use (wrapped_extensions.py)
    for path, ranges in unreached_wrapped_extensions(facts, context, native, uninstalled).items():
        uninstalled.setdefault(path, []).extend(ranges)
    unpassed = unpassed_defaults(facts, context)
    for path, arms in opt_in_arms(facts, context).items():  # `if [ "$resume" = true ]`: a shell option's arm
        unpassed.setdefault(path, []).extend(arms)
    ungrouped = never_initialised(facts)  # arms needing a process group nothing starts
    on_default = default_path(facts, context)
    switches_on = turned_on(facts, context)
    switched = switched_options(facts, context, switches_on, with_choices=True)
    for path, arms in passed_opt_out_arms(facts, switches_on).items():  # `else` of `'--no_cuda_ext' in sys.argv`
        unpassed.setdefault(path, []).extend(arms)
    for path, arms in table_arms_off(facts, context, switches_on).items():  # `if envs.NVTX_PROFILE:`, off in its table
        switched.setdefault(path, []).extend((*arm, False) for arm in arms)
    if switched:
        conventions = load_context_conventions()
        # as OptInReader.guard: torch.compile and bitsandbytes' route gaps, not TF32
        switch_rules = frozenset(conventions.guards.flag_rules) | frozenset(conventions.opt_in.switch_feature_rules)
        switch_takes = switch_rule(conventions.opt_in)
    unbuilt = unbuilt_sources({f.path for f in findings if f.reach == "runs" and f.role in COUNTED_ROLES}, facts,
                              set(referrers))
    unbuildable = unbuildable_extension_calls(facts, context, frozenset({f.path for f in facts}
                                                                      | {f.path for f in findings}))
    switched_built = switched_sources({f.path for f in findings if f.reach == "runs" and f.role in COUNTED_ROLES}, facts,
                                      switches_on)
    unhooked_built = unhooked_sources({f.path for f in findings if f.reach == "runs" and f.role in COUNTED_ROLES},
                                      facts, unhooked)
    stale = stale_launchers(facts, declared, distribution)
    overridden = overridden_defaults(facts)
    if overridden:
        findings = [f for f in findings if (f.path, f.line) not in overridden or not f.rule.startswith("DEV")]
    unused_defaults = project_overridden_defaults(facts, overridden)
    unread = unread_key_lines(facts)  # `"dist_backend": "nccl"` where nothing reads the key
    unread_settings = unread_config_settings(facts)  # a config's `dist_params = dict(backend="nccl")` nothing reads
    flag_defaults = load_cuda_features().flag_defaults
    default_switches = default_valued_switches(facts, flag_defaults)  # `= cfg.CUDNN.DETERMINISTIC`, False by default
    findings = host_exports(idle_switches(selector_tests(findings, facts, factory), facts), facts)
    in_function = any(f.reach == "optional" and written_elsewhere_name(f.reach_reason) for f in findings)
    reaching = importing_writers(facts, packages)
    called_elsewhere = _called_elsewhere(findings, facts, reaching)
    hooked = hooked_methods(findings, load_context_conventions().opt_in.library_hooks)
    if not (referrers or guarded or test_only or example_only or switched or uninstalled or tools or scratch or unpassed
            or unbuilt or unbuildable
            or switched_built or unhooked_built or stale
            or on_default or unused_defaults or unread or unread_settings or default_switches or switches_on or in_function or called_elsewhere or ungrouped
            or hooked):
        return findings
    decided: dict[str, Place | None] = {}
    reexports = None  # unreferenced.reexporters_of(facts), read at the first constant a reason names
    # A kernel module (a file with CUDA-only features of its own) imported only behind guards: all its code is the
    # kernel's (autotune prune hooks, capability queries), so its other findings take the same reach.
    kernel_modules = {f.path for f in findings if f.domain in feature_domains and f.path in guarded}
    result = []
    for finding in findings:
        place = None
        if on_default and finding.reach == "optional" and finding.role in COUNTED_ROLES \
                and library_class_of(finding.reach_reason) in on_default:
            # a class named for a library that a parameter's default builds (unpassed_defaults.default_path): it runs
            finding = factory.restore(finding)
        if finding.reach == "optional" and finding.role in COUNTED_ROLES:
            constant = written_elsewhere_name(finding.reach_reason)
            if constant is not None:
                if reexports is None:
                    reexports = reexporters_of(facts)
                others = reaching(finding.path, constant) - reexports(finding.path, constant)
                if any(context.of(other).role != "test" for other in others):
                    # another file binds the module's constant: it may set it before the call (a test's setting runs
                    # no product)
                    finding = factory.restore(finding)
        if called_elsewhere and finding.reach != "runs" and finding.role in COUNTED_ROLES \
                and (finding.path, public_callers_name(finding.reach_reason)) in called_elsewhere:
            finding = factory.restore(finding)  # its file's callers check a gate; another file's may call it bare
        why = hooked_reason(finding, hooked) if hooked else None
        if why is not None:  # a method a library hook the project calls reaches by name (diffusers' enable_xformers_...):
            # reached, yet the hook call's own finding (ATT012) is the fix, so the site stays uncounted, priced there
            finding = finding.model_copy(update={"reach_reason": why})
        if switches_on and finding.reach == "optional" and finding.role in COUNTED_ROLES:
            why = on_reason(finding.reach_reason, switches_on)
            if why is not None:  # a switch the project's own configs, launchers or code turn on: its default use
                finding = factory.restore(finding).model_copy(update={"reach_reason": why})
        if finding.reach == "runs" and finding.path.endswith(NATIVE_SUFFIXES) and referrers:
            if finding.path not in decided:
                decided[finding.path] = _built_only_by_other_backends(finding.path, referrers, context)
            place = decided[finding.path]
        if place is None and finding.reach == "runs" and finding.rule.startswith("DEV") and unused_defaults:
            why = unused_defaults.get((finding.path, finding.line))
            if why is not None:  # a default no call leaves in place changes nothing that runs
                result.append(factory.relocate(finding, Place(finding.role, "cosmetic", why)).model_copy(
                    update={"severity": "info"}))
                continue
        if place is None and finding.reach == "runs" and default_switches and (finding.path, finding.line) in default_switches:
            value, why = default_switches[(finding.path, finding.line)]
            if assigns_config_default(finding.symbol or "", value, flag_defaults):
                result.append(factory.relocate(finding, Place(finding.role, "cosmetic", why)).model_copy(
                    update={"severity": "info"}))
                continue
        if place is None and finding.reach == "runs" and finding.rule.startswith(("DEV", "DST")) and unread:
            why = unread.get((finding.path, finding.line))
            if why is not None:  # a literal under a key nothing reads changes nothing that runs
                result.append(factory.relocate(finding, Place(finding.role, "cosmetic", why)).model_copy(
                    update={"severity": "info"}))
                continue
        if place is None and finding.reach == "runs" and finding.rule.startswith("DST") and finding.path in unread_settings:
            why = unread_reason(unread_settings[finding.path], finding.line)
            if why is not None:  # a backend a config sets and no launcher reads: the launcher's own backend is reported
                result.append(factory.relocate(finding, Place(finding.role, "cosmetic", why)).model_copy(
                    update={"severity": "info"}))
                continue
        if place is None and finding.reach == "runs" and finding.path in stale:
            place = Place(finding.role, "optional", stale[finding.path])
        if place is None and finding.reach == "runs" and finding.role in COUNTED_ROLES and finding.path in unbuilt:
            place = Place(finding.role, "optional", unbuilt[finding.path])
        if place is None and finding.reach == "runs" and finding.role in COUNTED_ROLES and finding.path in switched_built:
            place = Place(finding.role, "optional", switched_built[finding.path])
        if place is None and finding.reach == "runs" and finding.role in COUNTED_ROLES and finding.path in unhooked_built:
            place = Place(finding.role, "optional", unhooked_built[finding.path])
        if place is None and finding.path in unbuildable and finding.role in COUNTED_ROLES and (
                finding.reach == "runs" or finding.path in guarded):
            # a call through a swallowed `from . import x_ext` nothing holds or builds: its own reason, before the
            # module's (an importer's reach says nothing of a call that cannot run anywhere)
            reason = next((r for start, end, r in unbuildable[finding.path] if start <= finding.line <= end), None)
            if reason is not None:
                place = Place(finding.role, "optional", reason)
        if place is None and finding.reach == "runs" and finding.path in guarded and (
                finding.domain in feature_domains or finding.path in kernel_modules
                or guarded[finding.path][0] in {"optional", "other-backend"}):  # loaded only so: all of it is
            reach, reason = guarded[finding.path]
            if is_unselected(reason):  # a feature the project's NPU platform leaves out, not a porting item
                result.append(factory.relocate(finding, Place(finding.role, reach, reason)).model_copy(
                    update={"severity": "info"}))
                continue
            place = Place(finding.role, reach, reason)
        if place is None and finding.reach == "runs" and finding.role in COUNTED_ROLES and finding.path in switched:
            # an off switch makes a feature's site optional; a non-default argparse choice any site it alone reaches
            reason = next((r for start, end, dest, r, chosen in switched[finding.path] if start <= finding.line <= end
                           and switch_takes(dest, chosen or finding.domain in feature_domains
                                            or finding.rule in switch_rules)), None)
            if reason is not None:
                place = Place(finding.role, "optional", reason)
        if place is None and finding.reach == "runs" and finding.role in COUNTED_ROLES and finding.path in ungrouped \
                and finding.domain == "distributed":
            reason = next((r for start, end, r in ungrouped[finding.path] if start <= finding.line <= end), None)
            if reason is not None:  # a collective behind dist.is_initialized() where nothing initialises it
                place = Place(finding.role, "optional", reason)
        if place is None and finding.reach == "runs" and finding.path in uninstalled:
            reason = next((r for start, end, r in uninstalled[finding.path] if start <= finding.line <= end), None)
            if reason is not None:
                place = Place(finding.role, "optional", reason)
        if place is None and finding.reach == "runs" and finding.role in COUNTED_ROLES and finding.path in unpassed:
            arm = next(((r, a) for start, end, r, a in unpassed[finding.path] if start <= finding.line <= end), None)
            if arm is not None:  # an assert the default passes is no concern at all: info
                relocated = factory.relocate(finding, Place(finding.role, "cosmetic" if arm[1] else "optional", arm[0]))
                result.append(relocated.model_copy(update={"severity": "info"}) if arm[1] else relocated)
                continue
        if place is None and finding.role in COUNTED_ROLES and finding.path in test_only:
            for start, end, reason in test_only[finding.path]:
                if start <= finding.line <= end:
                    place = Place("test", finding.reach, reason)
                    break
        if place is None and finding.role in COUNTED_ROLES and finding.path in example_only:
            place = next((Place("example", finding.reach, reason) for start, end, reason in example_only[finding.path]
                          if start <= finding.line <= end), None)
        if place is None and finding.role in COUNTED_ROLES and finding.path in tools:
            place = Place("example", finding.reach, tools[finding.path])
        if place is None and finding.role in COUNTED_ROLES and finding.path in scratch:
            place = Place("docs", finding.reach, scratch[finding.path])
        result.append(finding if place is None else factory.relocate(finding, place))
    return result


UNUSED_DEFAULT = "the default is never used"  # the end of project_overridden_defaults' reasons


def _called_elsewhere(findings: list[Finding], facts: list[ModuleFacts],
                      reaching: Callable[[str, str], set[str]]) -> set[tuple[str, str]]:
    """(path, name) of the public functions whose callers in their own file all check a gate (guards.py's
    CALLED_ONLY_UNDER reason) that another file importing their module names, beyond re-exporting it: those callers
    may call it with no gate (Wan2.1's model calls `flash_attention()` directly), so the site is back in code that
    runs. `reaching`: importing_writers.importing_writers (a same-named method of another module is no caller)."""
    asked = {(f.path, name) for f in findings if f.reach != "runs" and f.role in COUNTED_ROLES
             for name in (public_callers_name(f.reach_reason),) if name is not None}
    if not asked:
        return set()
    reexporters = reexporters_of(facts)
    return {(path, name) for path, name in asked if reaching(path, name) - reexporters(path, name)}


def never_used_default(reason: str | None) -> bool:
    """Is this the reach reason of a default every call overrides (project_overridden_defaults)? Such a site is
    `cosmetic` for the report and no change for port: nothing that runs reads the default."""
    return reason is not None and reason.endswith(UNUSED_DEFAULT)


def overridden_defaults(facts: list[ModuleFacts]) -> set[tuple[str, int]]:
    """Device defaults ("cuda") that every call in their file passes explicitly, of methods and of module-level
    functions no other file imports by name: (path, line). Nothing runs with them, so they are no finding."""
    imported = {name for f in facts for name in f.imports}
    result = set()
    for f in facts:
        for line, function, module_level in f.overridden_defaults:
            if module_level and f.module and f"{f.module}.{function}" in imported:
                continue  # another file may call it without the argument
            result.add((f.path, line))
    return result


def project_overridden_defaults(facts: list[ModuleFacts], decided: set[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """Device defaults ("cuda") of module-level functions and classes' __init__ that every call in the project passes
    (audiocraft's `NoiseSchedule(**cfg.schedule, device=device)` in two other modules, `NoiseSchedule(device='cpu')`
    in a test): (path, line) → why the default is never used. Not decided where it may be called out of sight, as
    unpassed_defaults.py judges (passed as a value, subclassed, exported through `__all__` or a star import, a
    position after `*args`), or where a file that neither defines nor calls it writes its name: ControlNet's
    cldm_v15.yaml builds `target: ldm.modules.encoders.modules.FrozenCLIPEmbedder` with the default device. A
    package __init__.py that only re-exports it (unreferenced.reexporters_of) calls nothing: its users' calls decide
    (round 28 A1 row 30: `face_detection.FaceAlignment(..., device=device)` in every caller).
    The same holds for the arm a None default takes to pick the device (`if device is None: self.device =
    torch.device('cuda' ...)` in an __init__ every construction of which passes `device=`): each line of the arm is
    keyed. There every call must pass the parameter by keyword, none the literal None, none a command-line option
    (None unless given) and none the caller's own parameter defaulting to None (`device=device`)."""
    candidates = [(f, entry) for f in facts for entry in f.device_defaults if (f.path, entry[0]) not in decided]
    arms = [(f, entry) for f in facts for entry in f.default_none_arms]
    methods = [(f, entry) for f in facts for entry in f.method_defaults if (f.path, entry[0]) not in decided]
    if not candidates and not arms and not methods:
        return {}
    passed: dict[str, list[tuple[str, tuple[int, list[str]]]]] = defaultdict(list)
    for f in facts:
        for name, record in f.default_passed.items():
            passed[name].append((f.path, record))
    escaped = {name for f in facts for name in f.default_escaped}
    starred = {module for f in facts for module in f.star_imports}
    written = writers({callee for _, (_, callee, _, _) in candidates} | {callee for _, (_, _, callee, _, _) in arms},
                      facts)
    reexporters = reexporters_of(facts)  # `from .api import FaceAlignment` in the package's __init__.py

    def callers(f: ModuleFacts, callee: str) -> list[tuple[str, tuple[int, list[str]]]] | None:
        """The calls that decide `callee`'s default, or None where one may be out of sight."""
        others = _other_bindings(facts, f, callee)  # files whose `callee` is another module's definition
        calls = [(path, record) for path, record in passed.get(callee, []) if path not in others]
        if not calls or callee in escaped or re_exported(f.module, starred) or len(callee) < MIN_NAME:
            return None  # (a name too short for the words is not looked for where it is written)
        if written.get(callee, set()) - {path for path, _ in calls} - {f.path} - others - reexporters(f.path, callee):
            return None  # named where it is not called: a config, a registry, a string (a package re-export is none)
        return calls

    def reason(callee: str, parameter: str, calls) -> str:
        return _never_used(f"{callee}()", parameter, calls)

    result = {}
    for f, (line, callee, parameter, index) in candidates:
        calls = callers(f, callee)
        if calls is not None and all(parameter in keywords or fewest > index for _, (fewest, keywords) in calls):
            result[(f.path, line)] = reason(callee, parameter, calls)
    if methods:
        result.update(_methods_passed(facts, methods, escaped))
    if arms:
        maybe_none = _none_passing(facts)
        for f, (first, last, callee, parameter, condition) in arms:
            calls = callers(f, callee)
            if calls is None or (callee, parameter) in maybe_none \
                    or not all(parameter in keywords for _, (_, keywords) in calls):
                continue
            why = f"{condition}, taken only by the default; {reason(callee, parameter, calls)}"
            for row in range(first, last + 1):
                result.setdefault((f.path, row), why)
    return result


def _methods_passed(facts: list[ModuleFacts], methods: list[tuple[ModuleFacts, tuple[int, str, str, int]]],
                    escaped: set[str]) -> dict[tuple[str, int], str]:
    """The method defaults of `methods` that every `x.method(...)` call in the project passes, by keyword or by
    position (mmrotate's `get_anchors(self, featmap_sizes, img_metas, device='cuda')`, each refine head's override
    called only as `self.get_anchors(featmap_sizes, img_metas, device=device)`: round 40 A2 class 1). A call of the
    name is one of any class's method of that name: an override's calls count for the base's default, and the other
    way round. Not decided where no call is in sight (a library's entry for callers outside the project), or where
    the method is used as a value or looked up by name (`fn=self.get_anchors`, `getattr(head, "get_anchors")`)."""
    passed: dict[str, list[tuple[str, tuple[int, list[str]]]]] = defaultdict(list)
    for f in facts:
        for name, record in f.method_passed.items():
            passed[name].append((f.path, record))
    result = {}
    for f, (line, method, parameter, index) in methods:
        calls = passed.get(method, [])
        if not calls or {method, METHOD_VALUE + method} & escaped:
            continue
        if all(parameter in keywords or fewest > index for _, (fewest, keywords) in calls):
            result[(f.path, line)] = _never_used(f".{method}()", parameter, calls)
    return result


def _never_used(called: str, parameter: str, calls: list[tuple[str, tuple[int, list[str]]]]) -> str:
    where = sorted({path for path, _ in calls})
    more = f" and {len(where) - 1} more files" if len(where) > 1 else ""
    return f"every call of {called} in the project passes {parameter} ({where[0]}{more}): {UNUSED_DEFAULT}"


def _none_passing(facts: list[ModuleFacts]) -> set[tuple[str, str]]:
    """(callee, keyword) of the calls that may pass None: the literal (`device=None`), a command-line option's value
    (`device=args.device`), or the caller's own parameter whose default is None (`device=device`)."""
    result = {(name.removeprefix(OWN), keyword.partition("=")[0]) for f in facts
              for name, (_, _, keywords, _) in f.default_calls.items()
              for keyword in keywords if keyword.partition("=")[2] == "None"}
    for f in facts:
        result.update((key.removeprefix(OWN), keyword) for key, keyword, _ in f.default_option_keywords)
        result.update((key.removeprefix(OWN), keyword) for key, keyword, _, _, _, default in f.default_forwards
                      if default == "None")
    return result


def _other_bindings(facts: list[ModuleFacts], owner: ModuleFacts, name: str) -> set[str]:
    """The files (other than `owner`'s) whose `name` is another definition than `owner`'s: files that define a `name`
    of their own (a call of it, or a device default of it, recorded there), and files that import `name` from such a
    file's module and not from `owner`'s (Amphion's two `Inference` classes, one built only with `device=device`, the
    other by an app that passes no device: round 26 A1 5). Their calls and words are not those of `owner`'s
    definition. A file importing `name` from a module that defines none (a package re-exporting it) stays a caller."""
    if not owner.module:
        return set()
    defining = {g.path: g.module for g in facts if g.path != owner.path and (
        f"{OWN}{name}" in g.default_calls or any(entry[1] == name for entry in g.device_defaults))}
    if not defining:
        return set()
    elsewhere = {f"{module}.{name}" for module in defining.values() if module}
    own = f"{owner.module}.{name}"
    return set(defining) | {g.path for g in facts if g.path != owner.path and own not in g.imports
                            and elsewhere.intersection(g.imports)}


def test_only_functions(facts: list[ModuleFacts], context: ProjectContext,
                        role: str = "test") -> dict[str, list[tuple[int, int, str]]]:
    """Module-level functions of product code that only tests import by name and their own file never calls
    (diffusers' utils/torch_utils.py `enable_full_determinism`, imported only by testing_utils.py): path → line ranges
    with the reason. Their findings are test code's. With `role="example"`, those only example scripts import
    (BasicSR's basicsr/metrics/fid.py `load_patched_inception_v3`, imported only by scripts/metrics/*): theirs."""
    importers: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        for name in f.imports:
            importers[name].add(f.path)
    result: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for f in facts:
        if not f.exported_functions or not f.module or context.of(f.path).role not in COUNTED_ROLES:
            continue
        for name, start, end in f.exported_functions:
            users = importers.get(f"{f.module}.{name}", set()) - {f.path}
            if users and all(context.of(user).role == role for user in users):
                first = sorted(users)[0]
                more = f" and {len(users) - 1} more" if len(users) > 1 else ""
                whom = "tests" if role == "test" else f"{role} scripts"
                result[f.path].append((start, end, f"{name}() is imported only by {whom}: {first}{more}"))
    return result


def uninstalled_patches(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """Monkey-patch installers nothing in the project calls (InternVL's `replace_llama_attn_with_flash_attn`, only
    re-exported by internvl/patch/__init__.py, its callers commented out): the installer and the functions only it
    installs (`forward`) never run, though the module is imported. path → line ranges with the reason.
    An installer stays reached when any file but its own module and the package __init__.py files re-exporting it
    imports it by name, or imports its module, or names the module in a string."""
    importers: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        for name in f.imports:
            importers[name].add(f.path)
    modules = {f.path: f.module for f in facts if f.module}
    named = {text for f in facts for text, _ in f.module_strings}
    result: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for f in facts:
        if not f.patch_installers or not f.module or f.module in named or context.of(f.path).role not in COUNTED_ROLES:
            continue
        for installer, start, end, installed in f.patch_installers:
            names, reexports = {f"{f.module}.{installer}"}, set()
            while True:  # `from .llama_patch import replace_x` in pkg/__init__.py makes it pkg.replace_x too
                more = {p for n in names for p in importers.get(n, ()) if p.endswith("__init__.py") and p in modules} - reexports
                if not more:
                    break
                reexports |= more
                names |= {f"{modules[p]}.{installer}" for p in more}
            users = set().union(*(importers.get(n, set()) for n in names | {f.module})) - reexports - {f.path}
            if users:
                continue
            where = f"{installer}() ({f.path}:{start}), which nothing in the project calls"
            result[f.path].append((start, end, f"{installer}() installs a patch, and nothing in the project calls it"))
            for name, first, last in installed:
                result[f.path].append((first, last, f"{name}() is installed only by {where}"))
    return result


def test_scripts(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """A product-role module named like a test script (`test.py` beside a kernel) that imports a testing module
    (gradcheck, pytest, unittest), or that nothing in the project imports and whose `__main__` block calls check
    functions comparing with a reference (reference_checks.py): all of it is test code. One with neither (mm*'s
    tools/test.py evaluates a model) is not."""
    roles = load_context_conventions().roles
    stems, testing = set(roles.test_script_stems), tuple(roles.testing_modules)
    result: dict[str, list[tuple[int, int, str]]] = {}
    imported: set[str] | None = None
    for f in facts:
        if PurePosixPath(f.path).stem.lower() not in stems or context.of(f.path).role not in COUNTED_ROLES:
            continue
        used = next((name for name in f.imports if name in testing or name.startswith(tuple(f"{t}." for t in testing))), None)
        if used is not None:
            result[f.path] = [(1, 10**9, f"a test script: {PurePosixPath(f.path).name} imports {used}")]
        elif f.reference_checks and f.module:
            if imported is None:
                imported = {name for g in facts for name in g.imports}
            parts = f.module.split(".")
            if any(".".join(parts[i:]) in imported for i in range(len(parts))):
                continue  # a module the project imports (by its path or as a sibling) is no script
            result[f.path] = [(1, 10**9, f"a test script: nothing imports {PurePosixPath(f.path).name}, and its "
                                         f"__main__ block runs {f.reference_checks[0]}(), which compares with a "
                                         "reference")]
    return result


def diagnostic_scripts(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, str]:
    """A product-role script (a __main__ guard or top-level code) that no module of the project imports, with no
    training in it, built around a model-complexity counter (InternVL's classification/gflops.py): it prints FLOPs,
    parameters or timings of a model it builds, a developer's diagnostic like an environment report. Path → reason."""
    counters = tuple(load_context_conventions().roles.complexity_counters)
    if not counters:
        return {}
    imported = {name for f in facts for name in f.imports}
    result: dict[str, str] = {}
    for f in facts:
        if not (f.main_guard or f.top_level_code) or context.of(f.path).role not in COUNTED_ROLES:
            continue
        if f.evidence.get("training", 0) or (f.module and any(n == f.module or n.startswith(f.module + ".") for n in imported)):
            continue
        used = next((name for name in f.imports if name.startswith(counters) and
                     any(name == c or name.startswith(c + ".") for c in counters)), None)
        if used is not None:
            result[f.path] = f"a diagnostic script: it imports the complexity counter {used} and trains nothing"
    return result


def self_test_blocks(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """The `if __name__ == "__main__":` block of a package's module that the project's product code imports (sd-scripts'
    library/sdxl_original_unet.py), or that a config file of the project builds by its dotted name (`flow: !new:
    pkg.flow.flow.MaskedDiff` in a HyperPyYAML config, with nothing importing it): the module is a library, the block
    its self-test or demo; so is a module of a plain folder that a product file imports by its stem after putting the
    folder on sys.path (votenet's models/voting_module.py, round 42 A1 C6). A script nothing imports, or one a launch script or the root README's command runs
    (`python basicsr/train.py -opt x.yml`: context.readme_launches), keeps its block as product code."""
    packages = {f.path[: -len("__init__.py")] for f in facts if f.path.endswith("__init__.py")}
    launched = {PurePosixPath(s).name for f in facts for s in f.launched_scripts}
    importers: dict[str, set[str]] = defaultdict(set)  # a module (or a name in it) → the product files importing it
    name_importers: dict[str, set[str]] = defaultdict(set)  # a module → the product files importing a name from it
    for f in facts:
        if context.of(f.path).role in COUNTED_ROLES:
            for name in f.imports:
                parts = name.split(".")
                for end in range(1, len(parts) + 1):
                    importers[".".join(parts[:end])].add(f.path)
                name_importers[".".join(parts[:-1])].add(f.path)
    result: dict[str, list[tuple[int, int, str]]] = {}
    beside: dict[str, set[str]] | None = None
    on_path: dict[str, set[str]] | None = None
    configured: dict[str, str] | None = None
    for f in facts:
        if f.main_block is None or not f.module or context.of(f.path).role not in COUNTED_ROLES:
            continue
        folder = f.path[: f.path.rfind("/") + 1]
        if not folder or PurePosixPath(f.path).name in launched or f.path in context.readme_launches:
            continue  # a launch script or the README runs it: its block is the command, not a self-test
        # a package's module, or one of a namespace package (no __init__.py) a file imports a name from by its full
        # dotted name (`from latentsync.utils.image_processor import ImageProcessor`); importing the namespace
        # module itself may be for its path (`from xtuner.tools import mmbench; return mmbench.__file__`, a CLI that
        # runs it as a script), so that alone makes it no library
        # by its dotted name, or by a tail of its path of two parts or more that a script putting a folder on
        # sys.path imports it by (`from tracker.model.transformer.positional_encoding import PositionalEncoding` for
        # web-demos/hugging_face/tracker/..., a folder no dotted name reaches; round 31 A2 C3)
        names = {f.module, *_path_tails(f.path)}
        if folder in packages:
            users = sorted(set().union(*(importers.get(name, set()) for name in names)) - {f.path})
        else:
            users = sorted(set().union(*(name_importers.get(name, set()) for name in names if "." in name))
                           - {f.path})
        if not users and folder in packages:  # a package module a config builds by its dotted name is a library too
            if configured is None:
                configured = config_named_modules(facts, context)
            users = [configured[f.module]] if f.module in configured else []
        if not users:  # a module of a plain folder that a script beside the folder imports by its own path
            if beside is None:
                beside = _imported_beside(facts, context)
            users = sorted(beside.get(f.path, set()) - {f.path})
        if not users:  # a module found through a folder its importer puts on sys.path (path_imports.py)
            if on_path is None:
                on_path = sys_path_importers(facts, lambda path: context.of(path).role in COUNTED_ROLES)
            users = sorted(on_path.get(f.path, set()) - {f.path})
        if users:
            start, end = f.main_block
            result[f.path] = [(start, end, f"line {start}: the self-test under `if __name__ == \"__main__\":` of a "
                                           f"module the project imports ({users[0]})")]
    return result


def _path_tails(path: str) -> list[str]:
    """The dotted names of a Python file's path tails of two parts or more (`a/b/c.py` → b.c, a.b.c); none holding a
    part that is no identifier (`web-demos`)."""
    parts = path.removesuffix(".py").split("/")
    if not parts[-1].isidentifier():
        return []
    tails = []
    for start in range(len(parts) - 2, -1, -1):
        if not parts[start].isidentifier():
            break
        tails.append(".".join(parts[start:]))
    return tails


def _imported_beside(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, set[str]]:
    """path → the product files that import it by its path from their own folder (`from utils.video_evaluator import
    score` in video_caption/caption.py names video_caption/utils/video_evaluator.py): Python finds it there when
    the script runs, with or without an __init__.py in the folder. Only modules in a folder below the importer's: a
    script beside it (`from unet import block`) may be run itself, as its peer is."""
    paths = {f.path for f in facts}
    result: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        if not f.imports or context.of(f.path).role not in COUNTED_ROLES:
            continue
        folder = f.path[: f.path.rfind("/") + 1]
        for name in f.imports:
            parts = name.split(".")
            for end in range(2, len(parts) + 1):  # in a folder below it: a script beside it is its peer
                candidate = folder + "/".join(parts[:end]) + ".py"
                if candidate in paths:
                    result[candidate].add(f.path)
    return result


def guarded_modules(facts: list[ModuleFacts], context: ProjectContext, console_modules: tuple[str, ...] = (),
                    distribution: str = "", packages: set[str] | None = None,
                    deployments: dict[str, str] | None = None,
                    copies: BundledCopies | None = None) -> dict[str, tuple[str, str]]:
    """Python files that the project's product code imports, and only behind guards or from files that are themselves
    imported only behind guards or opt-in modules (deepspeed.ops...triton/__init__.py imported where HAS_TRITON is checked): path →
    (reach, why). Imports in tests, examples and other backends' code do not count. `packages`:
    unloaded.package_folders(facts) when the caller has it already. `deployments`: path → why of the files a hosted
    platform's manifest names as its predictor (hosted_predictors.py): optional where no product code imports them.
    `copies`: bundled_projects.bundled_copies(facts, packages, context.readme_folders), likewise."""
    packages = package_folders(facts, context.source_roots) if packages is None else packages
    copies = bundled_copies(facts, packages, context.readme_folders) if copies is None else copies
    by_module = modules_by_name(facts)
    twins = module_copies(facts)  # path → (name, copies): which copy an import loads (module_copies.py)
    # backends only the other platforms of the project select by name (platform_selectors.py)
    choice = platform_choice(facts, by_module, context)
    imports: dict[str, list[tuple[str, str]]] = defaultdict(list)  # path → (importer, reach) of each import
    loaded: dict[str, list[str]] = {}  # module → _loaded_by(module): files import the same modules
    copies_loaded: set[str] = set()  # copies of a twice-held module some file (of any role) loads
    for f in facts:
        importer = context.of(f.path)
        if importer.role not in COUNTED_ROLES or importer.reach not in {"runs", "other-backend"}:
            copies_loaded |= {_copy_of(path, module, f.path, twins) for module in f.imports
                              for path in loaded.setdefault(module, _loaded_by(module, by_module)) if path in twins}
            continue  # tests, examples and guarded code do not make product code run on Ascend
        # what another backend's module imports (flash_attn_triton.py, imported only by the ROCm attention backend
        # rocm.py) is loaded only where that backend is: other-backend unless something that runs imports it too.
        # So is what a backend only other platforms select imports (its kernels), even where other code imports
        # the backend's module for a helper: the kernels run where the backend is selected
        backend_only = importer.reach == "other-backend" or f.path in choice.unselected
        for module in f.imports:
            reach = "other-backend" if backend_only else f.guarded_imports.get(module, "runs")
            paths = loaded.get(module)
            if paths is None:
                paths = loaded[module] = _loaded_by(module, by_module)
            for path in paths:  # the module and the packages Python initialises for it
                if path in twins:
                    path = _copy_of(path, module, f.path, twins)
                    copies_loaded.add(path)
                if path != f.path and not _inside_package(f.path, path):
                    imports[path].append((f.path, reach))
    # the host's imports of a bundled copy through its namespace folders (bundled_projects.py): they load the module
    for path, importers in host_imports(facts, copies).items():
        imports[path] += [(importer, "runs") for importer in importers if context.of(importer).role in COUNTED_ROLES
                          and context.of(importer).reach == "runs"]
    for path, platform in choice.selectors.items():  # the platform's selection is a load of the module by name
        imports[path].append((platform, "other-backend"))
    # modules that configuration selects or names (analyzer/context/opt_in.py) are optional, and so is what only they load
    result: dict[str, tuple[str, str]] = {path: ("other-backend", why) for path, why in choice.unselected.items()
                                          if all(reach == "other-backend" for _, reach in imports[path])}
    # a copy of a twice-held module that no import loads, while another copy is imported (module_copies.py)
    entries = {f.path for f in facts if f.main_guard} | _launched(facts, console_modules, by_module)
    for path, why in shadowed_copies(twins, imports, copies_loaded, entries).items():
        result.setdefault(path, ("optional", why))
    for path, opted in opt_in_modules(facts, context, load_context_conventions().opt_in).items():
        if path not in choice.npu_only:  # the NPU platform's one choice runs on Ascend, whatever else names it
            result.setdefault(path, opted)
    apart = {path: why for path, why in (deployments or {}).items() if not imports.get(path)}
    for path, why in apart.items():  # a hosted predictor nothing of the product imports: a deployment of its own
        result.setdefault(path, ("optional", why))
    unrun: set[str] = set()  # files no entry's import chain reaches (unloaded.py), and what only they load
    for path, unloaded in unloaded_modules(facts, context, console_modules, distribution, packages).items():  # and modules nothing running loads
        result.setdefault(path, unloaded)
        unrun.add(path)
    # modules needing a compiled extension nothing provides, that no entry point needs (unbuilt_extensions.py)
    for path, why in unbuilt_extension_modules(facts, context, console_modules).items():
        result.setdefault(path, ("optional", why))
    # modules whose top-level import names a module of their own package that the project lacks (missing_modules.py)
    for path, why in missing_module_importers(facts, context, packages).items():
        result.setdefault(path, ("optional", why))
    # vendored copies that cannot be imported (vendored.py), where nothing outside the copy imports them
    unimportable = unimportable_modules(facts, context)
    for path, why in unimportable.items():
        if all(importer in unimportable for importer, _ in imports.get(path, ())):
            result.setdefault(path, ("optional", why))
    # the scripts of another project's recipe bundled inside a package, which nothing of the host launches
    # (bundled_projects.py): optional, and so is what only they import
    for path, why in unlaunched_scripts(facts, copies, console_modules, documented=context.readme_launches).items():
        if path not in result:
            result[path] = ("optional", why)
            unrun.add(path)  # what only they import is no entry's either
    # the scripts of a copied model package the host uses only as a library (bundled_projects.py): optional, and so
    # is what only they import
    for path, why in unrun_package_scripts(facts, packages, console_modules, context.readme_launches,
                                           distribution).items():
        if path not in result:
            result[path] = ("optional", why)
            unrun.add(path)
    # a project with its own manifest bundled below the host's code that nothing of the host reaches: all of it
    bundled = dict(unimported_projects(facts, console_modules, documented=context.readme_launches))
    for path, why in bundled.items():
        result.setdefault(path, ("optional", why))
    behind_guards: set[str] = set()  # modules found optional below because their imports are guarded
    changed = True
    while changed:
        changed = False
        for path, sites in imports.items():
            if path in result:
                continue
            reaches = {result[importer][0] if reach == "runs" and importer in result else reach for importer, reach in sites}
            if "runs" in reaches:
                continue
            reach = reaches.pop() if len(reaches) == 1 else "optional"
            importers = ", ".join(sorted({importer for importer, _ in sites})[:3])
            # opensora/utils/communications.py, imported only in the except arm of `try: import torch_npu`
            # behind guards: an import of it is guarded, or an importer is itself imported only behind guards
            guarded = any(reach != "runs" or importer in behind_guards for importer, reach in sites)
            why = (f"imported only in other backends' branches (never on Ascend): {importers}" if reach == "other-backend"
                   else f"imported only behind guards with a fallback: {importers}" if guarded
                   # no guard on the way: its importers are optional for reasons of their own (OneFormer's package,
                   # launched only by scripts of role example)
                   else f"imported only by modules that are optional themselves: {importers}")
            if reach == "other-backend" and any(importer in choice.unselected for importer, _ in sites):
                why = imported_reason(importers)
            elif all(importer in apart for importer, _ in sites):
                why = f"imported only by a separate deployment: {importers}"
            elif all(importer in bundled for importer, _ in sites):
                why = f"imported only by a bundled project the host never imports: {importers}"
                bundled[path] = why  # and so is what only it imports
            elif reach == "optional" and all(importer in unrun or importer in bundled for importer, _ in sites):
                why = f"imported only by modules no entry's import chain reaches: {importers}"
                unrun.add(path)  # and so is what only they import
            elif reach != "other-backend" and guarded:
                behind_guards.add(path)
            result[path] = (reach, why)
            changed = True
    return result


class ImportIndex:
    """The imports of `facts`, indexed once for extension_fallback's callers (which ask it of every extension the
    project builds): `modules`, module → the positions of the files importing it; `importers(path)`, the (position,
    module) of every import that loads the file (the module itself or a package above it), in the files' order, built
    on first use (_fallback_of walked every import of the project for each guarded importer)."""

    def __init__(self, facts: list[ModuleFacts]) -> None:
        self.facts = facts
        self.modules: dict[str, list[int]] = defaultdict(list)
        for position, f in enumerate(facts):
            for module in dict.fromkeys(f.imports):
                self.modules[module].append(position)
        self._importers: dict[str, list[tuple[int, str]]] | None = None

    def importers(self, path: str) -> list[tuple[int, str]]:
        if self._importers is None:
            by_module = modules_by_name(self.facts)
            self._importers = defaultdict(list)
            for position, f in enumerate(self.facts):
                for module in f.imports:
                    for loaded in _loaded_by(module, by_module):
                        self._importers[loaded].append((position, module))
        return self._importers.get(path, [])


def import_index(facts: list[ModuleFacts]) -> ImportIndex:
    return ImportIndex(facts)


def extension_fallback(names: set[str], facts: list[ModuleFacts], context: ProjectContext,
                       guarded: dict[str, tuple[str, str]], index: ImportIndex | None = None) -> str | None:
    """Why a native extension imported as one of `names` ("lightconv_cuda", "fairseq.libnat_cuda") never has to run:
    every product import of it falls back where it fails, directly (load_libnat's `except ImportError:` imports the CPU
    libnat), through modules imported only so (lightconv_layer.py, imported only by LightweightConv's guarded try), or
    through the callers of the helper that imports it, each of which catches the failure and skips the step (sam2's
    get_connected_components, called only in trys that warn and carry on), or in modules only backends the project's
    NPU platform never selects load (platform_selectors.py), or only in product modules the report already rates
    optional (Swin's window_process.py, behind the model's guarded import). None when nothing imports it, or an import
    runs with no fallback: the extension is then required. `index`: import_index(facts), where it is at hand."""
    fallback = None
    skipped: list[tuple[str, int]] = []
    helpers: list[str] = []
    gates: list[tuple[str, tuple]] = []
    unselected: list[str] = []  # importers only backends the NPU platform never selects load
    optional: list[tuple[str, str]] = []  # importers the report already rates optional, and why
    imported = False
    # the module, a module inside it, or it inside a package: str's endswith/startswith take a tuple (one C call each)
    suffixes, prefixes = tuple(f".{n}" for n in names), tuple(f"{n}." for n in names)
    index = import_index(facts) if index is None else index
    matched = [m for m in index.modules if m in names or m.endswith(suffixes) or m.startswith(prefixes)]
    for f in [facts[position] for position in sorted({p for m in matched for p in index.modules[m]})]:  # files' order
        importer = context.of(f.path)
        if importer.role not in COUNTED_ROLES or importer.reach != "runs":
            if importer.role in COUNTED_ROLES and importer.reach == "optional":
                optional.append((f.path, importer.reason or ""))
            continue
        for module in f.imports:
            if not (module in names or module.endswith(suffixes) or module.startswith(prefixes)):
                continue
            imported = True
            if f.path in guarded and is_unselected(guarded[f.path][1]):
                unselected.append(f.path)  # loaded only where a backend the NPU platform never selects is
                continue
            found = f.import_fallbacks.get(module)
            if found is not None:
                found = (f.path, *found)
            elif f.path in guarded:
                found = _fallback_of(f.path, facts, guarded, 0, index)
            if found is not None:
                fallback = fallback or found
                continue
            if f.path in guarded and guarded[f.path][0] == "optional":  # behind a guard with no named fallback
                optional.append((f.path, guarded[f.path][1]))
                continue
            gate = gated_handle(f, module, facts, context)
            if gate is not None:
                gates.append((f.path, gate))
                continue
            helper = f.helper_imports.get(module)
            sites = _caught_everywhere(helper, f, facts, context) if helper else None
            if sites is None:
                return None
            skipped += sites
            helpers.append(helper)
    if not imported:
        return _optional_importers_reason(optional) if optional else None
    if fallback is not None:
        path, line, name = fallback
        return f"the project falls back to {name} ({path}:{line}) where the extension does not import"
    if gates:
        return gate_reason(*min(gates, key=lambda g: (g[0], g[1][5])))
    if not skipped:
        if optional:
            return _optional_importers_reason(optional)
        return imported_reason(", ".join(sorted(set(unselected))[:3])) if unselected else None
    where = ", ".join(f"{path}:{line}" for path, line in sorted(set(skipped))[:4])
    called = ", ".join(f"{name}()" for name in sorted(set(helpers)))
    return (f"every call of {called}, which imports the extension, sits in a try whose handler carries on without it "
            f"({where}): where the extension is absent that step is skipped")


def gated_handle(owner: ModuleFacts, module: str, facts: list[ModuleFacts], context: ProjectContext) -> tuple | None:
    """`owner`'s handle bound by importing `module` (or, with `module` "", the one at that index of its handles) that
    only CUDA arms with a PyTorch other arm reach (cuda_arms.py), where no other product file names the definitions
    using it (a call from there is not behind the test: conservative, read from the files' words)."""
    handle = next((h for h in owner.gated_handles if h[1] == module), None)
    if handle is None:
        return None
    return handle if not named_elsewhere(owner, [name for name, _, _ in handle[4]], facts, context) else None


def named_elsewhere(owner: ModuleFacts, names: list[str], facts: list[ModuleFacts], context: ProjectContext) -> bool:
    """Does another product file name one of `owner`'s module-level definitions: by its word, or, for a private
    `_name` (which every sibling module may define for itself: stylegan3's ops each have `_init`), by importing it?"""
    public = [name for name in names if not name.startswith("_")]
    private = {f"{owner.module}.{name}" for name in names if name.startswith("_")} if owner.module else set()
    for f in facts:
        if f is owner or not (writes_any(f.words, public) or private.intersection(f.imports)):
            continue
        place = context.of(f.path)
        if place.role in COUNTED_ROLES and place.reach == "runs":
            return True
    return False


def _caught_everywhere(helper: str, owner: ModuleFacts, facts: list[ModuleFacts],
                       context: ProjectContext) -> list[tuple[str, int]] | None:
    """The handlers (path, line) around every call of `owner`'s module-level function `helper` in the project's
    product code, where each call is caught (import_fallbacks.caught_calls); None where some file calls it, or names
    it (an attribute call, a reference passed on), outside such a try, and where nothing calls it."""
    sites = []
    if helper in owner.caught_calls:
        sites.append((owner.path, owner.caught_calls[helper]))
    elif helper not in {name for name, _, _ in owner.exported_functions}:
        return None  # called in its own file outside a catching try
    for f in facts:
        if f is owner or not writes_word(f.words, helper):
            continue
        place = context.of(f.path)
        if place.role not in COUNTED_ROLES or place.reach != "runs":
            continue
        if helper not in f.caught_calls:
            return None
        sites.append((f.path, f.caught_calls[helper]))
    return sites or None


def _optional_importers_reason(importers: list[tuple[str, str]]) -> str:
    """Why an extension only optional modules import need not run: theirs (Swin's window_process.py, imported only
    behind the model's guarded import, is the only product module importing swin_window_process)."""
    shown = ", ".join(path for path, _ in importers[:3]) + (f" and {len(importers) - 3} more" if len(importers) > 3 else "")
    why = importers[0][1] or "optional"
    return f"imported only by {shown}, itself optional ({why}): the project runs without the extension"


def _fallback_of(path: str, facts: list[ModuleFacts], guarded: dict[str, tuple[str, str]],
                 depth: int, index: ImportIndex) -> tuple[str, int, str] | None:
    """The fallback of a guarded module's nearest guarded import (following importers that are guarded themselves).
    Modules go by every name imports use (src/pkg/mod.py is also pkg.mod: TGI's server/text_generation_server)."""
    if depth > 6:
        return None
    for position, module in index.importers(path):
        f = facts[position]
        if f.path == path:
            continue
        if module in f.import_fallbacks:
            return (f.path, *f.import_fallbacks[module])
        if f.path in guarded and not _inside_package(f.path, path):
            found = _fallback_of(f.path, facts, guarded, depth + 1, index)
            if found is not None:
                return found
    return None


def _inside_package(importer: str, target: str) -> bool:
    """A package's own modules do not load its __init__.py: whoever imports the package from outside does."""
    if target == "__init__.py":
        return True  # a package at the analyzed root holds every file
    # project paths are normalised POSIX strings: string tests, not pathlib (this runs for every import edge)
    return target.endswith("/__init__.py") and importer.startswith(target[: -len("__init__.py")])


def modules_by_name(facts: list[ModuleFacts]) -> dict[str, str]:
    """Dotted name → path, by the name from the analysed root and by the one from the topmost package folder
    (src/flux/trt/trt_manager.py is also `flux.trt.trt_manager`, the name flux's own imports use)."""
    packages = {path_view(f.path).parent for f in facts if f.module and path_view(f.path).name == "__init__.py"}
    by_module = {f.module: f.path for f in facts if f.module}
    for f in facts:
        if f.module:
            for name in import_names(f.path, f.module, packages):
                by_module.setdefault(name, f.path)
    return by_module


def _copy_of(path: str, module: str, importer: str, twins: dict[str, tuple[str, list[str]]]) -> str:
    """The copy of a twice-held module (`path`, one of them) that `importer`'s import of `module` loads."""
    name, paths = twins[path]
    return loaded_copy(name, paths, module, importer) or path


def _launched(facts: list[ModuleFacts], console_modules: tuple[str, ...], by_module: dict[str, str]) -> set[str]:
    """Python files a shell launcher runs (by file name) or a console entry names."""
    names = {path_view(s).name for f in facts for s in f.launched_scripts}
    return ({f.path for f in facts if f.module and path_view(f.path).name in names}
            | {by_module[m] for m in console_modules if m in by_module})



def _loaded_by(module: str, by_module: dict[str, str]) -> list[str]:
    parts = module.split(".")
    target = _local_path(module, by_module)
    packages = [by_module[".".join(parts[:end])] for end in range(1, len(parts)) if ".".join(parts[:end]) in by_module]
    return [p for p in dict.fromkeys([*packages, target]) if p is not None]


def _local_path(module: str, by_module: dict[str, str]) -> str | None:
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        path = by_module.get(".".join(parts[:end]))
        if path is not None:
            return path
    return None


def _built_only_by_other_backends(path: str, referrers: dict[str, set[str]], context: ProjectContext) -> Place | None:
    builders = set().union(*(referrers.get(name, set()) for name in _names_of(path)))
    if not builders or any(context.of(b).reach != "other-backend" for b in builders):
        return None
    first = sorted(builders)[0]
    more = f" and {len(builders) - 1} more" if len(builders) > 1 else ""
    return Place(context.of(path).role, "other-backend", f"built only by other backends' builders: {first}{more}")


def _names_of(path: str) -> list[str]:
    """What a builder may call this file: its path or a folder holding it, from the root or relative to a folder
    (builders often name sources relative to their package: 'inference/v2/kernels/...'), two parts at least."""
    parts = PurePosixPath(path).parts
    names = []
    for end in range(2, len(parts) + 1):
        for start in range(0, end - 1):
            names.append("/".join(parts[start:end]))
    return names
