"""Chinese for the plain-text strings the analysis composes in English (entry-point evidence, architecture family
and evidence, effort scaling notes, custom-op classes and features). The report model carries them as text, so
the reports translate them here: fixed terms through the `term.*` UI strings, composed phrases through the
patterns below, which mirror the wording in domains/phases/plan.py (a test checks every phrase the samples
produce is recognised). Anything unrecognised is shown as it is."""

from __future__ import annotations

import re

from ascend_feasibility.analyzer.reporting.ui_strings import load_strings, ui_text

_PHASE_COUNT = re.compile(r"\b(training|inference|evaluation|data|export)\b")
_PATTERNS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), key) for p, key in (
    (r"^name suggests (?P<phases>.+)$", "evidence.name_suggests"),
    (r"^signals in the entry: (?P<signals>.+)$", "evidence.entry_signals"),
    (r"^signals in the modules it imports: (?P<signals>.+)$", "evidence.import_signals"),
    (r"^(?P<count>\d+) class, layer or model names mention: (?P<names>.+)$", "evidence.class_names"),
    (r"^models loaded from libraries: (?P<names>.+)$", "evidence.library_models"),
    (r"^layers: (?P<layers>.+)$", "evidence.layers"),
    (r"^no entry point in product code: a library, not a model$", "evidence.library_no_model"),
    (r"^defines a backward pass \(torch\.autograd\.Function\): the library's training path$", "evidence.library_backward"),
    (r"^runs on (?P<devices>[a-z/]+) only$", "evidence.runs_only_on"),
    (r"^needs (?P<needed>\d+) devices, (?P<count>\d+) (?P<device>\w+) device\(s\) here$", "evidence.needs_devices"),
    (r"^(?P<name>\S+) is not available in this installation$", "evidence.not_available"),
    (r"^CPU fallback$", "evidence.cpu_fallback"),
    # why a finding's code does not count (reach reasons, analyzer/context); the generic `line N: code` comes last
    (r"^(?P<path>\S+): NPU code by its name$", "reason.npu_by_name"),
    (r"^(?P<path>\S+): (?P<backend>\S+) code by its name$", "reason.backend_by_name"),
    (r"^(?P<path>\S+): runs as (?P<twin>\S+) on Ascend$", "reason.npu_twin"),
    (r"^(?P<path>\S+): the default \(CUDA\) variant beside (?P<folder>\S+)/, which Ascend uses$", "reason.dispatch_folder"),
    (r"^(?P<path>\S+): an NVIDIA-only engine beside (?P<engine>\S+), the engine to choose on Ascend$", "reason.engine"),
    (r"^(?P<path>\S+): integration of the CUDA-only (?P<library>\S+) library, used only when it is chosen$",
     "reason.library_folder"),
    (r"^imported only behind guards with a fallback: (?P<importers>.+)$", "reason.guarded_import"),
    (r"^imported only by modules that are optional themselves: (?P<importers>.+)$", "reason.optional_importers"),
    (r"^built only by other backends' builders: (?P<first>\S+?)(?: and (?P<more>\d+) more)?$", "reason.other_builders"),
    (r"^(?P<name>\S+)\(\) is imported only by tests: (?P<first>\S+?)(?: and (?P<more>\d+) more)?$", "reason.test_only"),
    (r"^imported only by tests \((?P<first>\S+)\): no product code loads it$", "reason.tests_only_module"),
    (r"^in (?P<folder>\S+)/, a package imported only by tests \((?P<first>\S+)\): no product code loads it$",
     "reason.package_tests_only_module"),
    (r"^imported by nothing the scripts beside (?P<package>\S+)/ load: no product code loads it$", "reason.unreached_module"),
    (r"^a file of definitions only \(no `if __name__ == \"__main__\":` block, no top-level code\) outside the packages, "
     r"that nothing imports, launches or names: no entry's import chain reaches it$", "reason.unrun_definitions"),
    (r"^imported only by modules no entry's import chain reaches: (?P<importers>.+)$", "reason.unreached_importers"),
    (r"^imported only by (?P<importers>.+?), itself optional \((?P<why>.+)\): the project runs without the extension$",
     "reason.optional_extension_importers"),
    (r"^installed on its own by (?P<builder>\S+) as (?P<packages>.+?), which the project imports only behind guards "
     r"\((?P<importers>.+)\): the project runs without the extension$", "reason.guarded_extension_package"),
    (r"^taken only without `(?P<flag>[^`]+)` \(sys\.argv, line (?P<line>\d+)\), and the project installs with it: "
     r"(?P<where>.+)$", "reason.argv_opt_out"),
    (r"^built only when (?P<builder>\S+) is imported \(its build of (?P<name>.+?) at line (?P<line>\d+)\), and that "
     r"module is optional: (?P<why>.+)$", "reason.unreached_build"),
    (r"^no build of the project names it \(setup\.py or load\(\) sources, CMakeLists, Makefile, shell\): it is not "
     r"compiled$", "reason.unbuilt_source"),
    (r"^cannot be imported: it imports `(?P<name>[^`]+)`, and no import root of the project holds the package "
     r"`(?P<top>[^`]+)` \(only (?P<copy>\S+)/, a copy vendored inside the package (?P<holder>\S+)/\)$",
     "reason.vendored_copy"),
    (r"^cannot be imported: its package (?P<package>\S+) cannot be$", "reason.vendored_package"),
    (r"^cannot be imported: it imports (?P<target>\S+) at its top level, which cannot be$", "reason.vendored_importer"),
    (r"^it launches only what the project does not have \(launch commands: (?P<count>\d+)\), first `-m "
     r"(?P<module>[^`]+)`: the project has no (?P<target>\S+); no code of the project runs through it$",
     "reason.stale_module_launcher"),
    (r"^it launches only what the project does not have \(launch commands: (?P<count>\d+)\), first (?P<script>\S+): "
     r"not in the project; no code of the project runs through it$", "reason.stale_script_launcher"),
    (r"^it launches only what the project does not have \(launch commands: (?P<count>\d+)\), first `-m "
     r"(?P<module>[^`]+)`: no such module in the project or its dependencies, though the options it is given are the "
     r"project's \((?P<options>[^)]+)\); no code of the project runs through it$", "reason.stale_unknown_launcher"),
    (r"^line (?P<line>\d+): stored in self\.(?P<name>\w+), which nothing in the project reads$", "reason.unread_store"),
    (r"^built only when one process sees more than one device; the launcher pins one \((?P<pin>\S+), DEV703\), so with "
     r"that pin carried over to ASCEND_RT_VISIBLE_DEVICES it never runs$", "reason.pinned_data_parallel"),
    (r"^every call of (?P<callee>\S+)\(\) in the project passes (?P<parameter>\w+) \((?P<where>\S+)(?: and "
     r"(?P<more>\d+) more files)?\): the default is never used$", "reason.overridden_default"),
    (r"^line (?P<line>\d+): (?P<kind>function|class) (?P<name>\S+) is named only in an arm that never runs \(line "
     r"(?P<test>\d+): `(?P<tested>[^`]+)` names a function and is not called: the test is always (?P<value>true|false), "
     r"so (?:the later arms never run|this arm never runs)\)$", "reason.dead_arm_symbol"),
    (r"^line (?P<line>\d+): (?P<code>.+), taken only by the default; every call of (?P<callee>\S+)\(\) in the project "
     r"passes (?P<parameter>\w+) \((?P<where>\S+)(?: and (?P<more>\d+) more files)?\): the default is never used$",
     "reason.overridden_default_arm"),
    (r"^needs the compiled extension `(?P<extension>[^`]+)` when it loads, which the project neither builds nor "
     r"declares; no entry point of the project imports it unconditionally$", "reason.unbuilt_extension"),
    (r"^imports (?P<through>\S+) at its top level, which needs the compiled extension `(?P<extension>[^`]+)` when it "
     r"loads, which the project neither builds nor declares; no entry point of the project imports it "
     r"unconditionally$", "reason.unbuilt_extension_importer"),
    (r"^line (?P<line>\d+): calls through `(?P<extension>[^`]+)`, which the module imports in a `try:` that ignores "
     r"its ImportError; the project holds no `(?P=extension)` module, no native source beside it and no extension "
     r"build: the call fails on every device$", "reason.unbuildable_extension_call"),
    (r"^line (?P<line>\d+): (?P<kind>function|class|entry) (?P<name>\S+) is named nowhere else in the project \(no call, "
     r"reference, export or config entry\): nothing reaches it$", "reason.unnamed_symbol"),
    (r"^line (?P<line>\d+): (?P<kind>function|class|entry) (?P<name>\S+) is named nowhere else in the project \(no call, "
     r"reference, export or config entry\) \(only re-exported by (?P<reexporter>\S+)\): nothing reaches it$",
     "reason.unnamed_symbol_reexported"),
    (r"^line (?P<line>\d+): (?P<kind>function|class|entry) (?P<name>\S+) is named nowhere else in the project \(no call, "
     r"reference, export or config entry\) \(named only by tests: (?P<test>\S+?)(?: and (?P<more>\d+) more)?\): nothing "
     r"reaches it$", "reason.unnamed_symbol_tested"),
    (r"^line (?P<line>\d+): (?P<kind>function|class|entry) (?P<name>\S+) is named nowhere else in the project \(no call, "
     r"reference, export or config entry\) \(only re-exported by (?P<reexporter>\S+)\) \(named only by tests: "
     r"(?P<test>\S+?)(?: and (?P<more>\d+) more)?\): nothing reaches it$", "reason.unnamed_symbol_reexported_tested"),
    (r"^line (?P<line>\d+): (?P<kind>function|class|entry) (?P<name>\S+) is named nowhere else in the project \(no call, "
     r"reference, export or config entry\) \(named only by configs nothing the project runs loads: (?P<config>\S+?)"
     r"(?: and (?P<more>\d+) more)?\): nothing reaches it$", "reason.unnamed_symbol_unloaded_configs"),
    (r"^only re-exported; no project code or config calls it: the extension is used only in (?P<users>.+), which "
     r"nothing the project runs reaches; importing the package still needs it built \(the build and import "
     r"findings\)$", "reason.wrapped_extension_unreached"),
    (r"^(?P<why>line \d+: .+) \(registered in (?P<registry>\S+), which builds it only from a config's `type=` or a "
     r"string that names it\)$", "reason.registered_symbol"),
    (r"^line (?P<line>\d+): (?P<name>\S+) is defined only where `from (?P<module>[^`]+) import \.\.\.` fails, and the "
     r"project declares (?P<distribution>\S+), whose installed release provides it: a fallback copy that does not run$",
     "reason.fallback_copy"),
    (r"^line (?P<line>\d+): (?P<owner>[^.\s]+)\.(?P<attribute>\S+) is stored and never read: no code of its module "
     r"reads it, and no file naming (?P<cls>\S+) or importing its module names (?P<name>\S+)$", "reason.unread_attribute"),
    (r"^line (?P<line>\d+): (?P<name>\S+) is bound to a value that nothing reads: its module names it nowhere else, "
     r"and no module importing it names it$", "reason.unread_value"),
    (r"^line (?P<line>\d+): class (?P<name>\S+)'s constructor reads (?P<names>.+) \(line (?P<read>\d+)\), which the "
     r"module neither imports nor defines: building it raises NameError, so nothing builds it$",
     "reason.unbuildable_class"),
    (r"^line (?P<line>\d+): (?P<callee>\S+) stores `(?P<parameter>[^`]+)` in `(?P<attribute>[^`]+)` \(line "
     r"(?P<store>\d+)\) and sets `(?P=attribute)` again at line (?P<again>\d+) before anything reads it: the value "
     r"passed here is never used$", "reason.overwritten_attribute_argument"),
    (r"^line (?P<line>\d+): (?P<callee>\S+) binds its parameter `(?P<parameter>[^`]+)` again at line (?P<again>\d+) "
     r"before reading it: the value passed here is never used$", "reason.overwritten_argument"),
    (r"^its only import, (?P<where>\S+), is commented out: nothing imports it$", "reason.commented_import"),
    (r"^in (?P<folder>\S+)/, whose only import, (?P<where>\S+), is commented out: nothing imports it$",
     "reason.commented_import_folder"),
    (r"^loaded only through (?P<module>\S+), whose only import, (?P<where>\S+), is commented out: nothing imports it$",
     "reason.commented_import_loader"),
    (r"^imported by nothing the launchers and entry points of the application package (?P<package>\S+)/ load: no "
     r"product code loads it$", "reason.unreached_application_module"),
    (r"^in (?P<folder>\S+)/, a folder without __init__.py that the build \(find_packages\) leaves out of the package and "
     r"no file outside it imports: nothing installs or loads it$", "reason.unshipped_namespace_module"),
    (r"^a module of (?P<package>\S+)/, a library the project forked whose `_LazyModule` tables load a module only for "
     r"the names asked of it, that no import of the scripts the README runs reaches \(their names read through those "
     r"tables\): no product code loads it$", "reason.unreached_fork_module"),
    (r"^not in the plugin table of (?P<table>\S+) that loads the modules of (?P<folder>\S+)/ by name, and imported by "
     r"nothing the program (?P<package>\S+)/ runs: no product code loads it$", "reason.unregistered_plugin_module"),
    (r"^a side script of the program (?P<package>\S+)/: its own `if __name__ == \"__main__\":` block, run by hand; "
     r"nothing the program's entries run imports or launches it$", "reason.program_side_script"),
    (r"^a test launcher: every command it runs is a test \((?P<tests>[^)]+)\)$", "reason.test_launcher"),
    (r"^a note, not a script: (?P<unparsed>\d+) of its (?P<lines>\d+) lines are not shell \(pasted output or prose "
     r"beside its launch line\); nobody runs it$", "reason.pasted_note"),
    (r"^selected by configuration: `(?P<condition>.+)` \((?P<where>\S+)\)$", "reason.selected_by_configuration"),
    (r"^loaded by name only, when a configuration lists it: '(?P<module>\S+)' is named at (?P<where>\S+); no product "
     r"code imports it$", "reason.loaded_by_name"),
    (r"^line (?P<line>\d+): the check's value gates only a CUDA-only feature$", "reason.gates_cuda_only"),
    (r"^line (?P<line>\d+): guards only CUDA-only code \((?P<rules>[^)]+)\)$", "reason.guards_cuda_only_code"),
    (r"^line (?P<line>\d+): the release runs only where the device compares equal to CUDA's \(an NPU device does "
     r"not; a \"cuda\" string under transfer_to_npu reaches the shim's release\)$", "reason.release_device_test"),
    (r"^line (?P<line>\d+): the check only raises or warns \(a CUDA-only feature's gate\)$", "reason.only_raises"),
    (r"^line (?P<line>\d+): guards a CUDA-only package or function$", "reason.guards_cuda_only_package"),
    (r"^line (?P<line>\d+): inside the test function (?P<name>\S+)\(\)$", "reason.test_function"),
    (r"^line (?P<line>\d+): inside (?P<name>\S+), an NVIDIA-only feature$", "reason.nvidia_only_feature"),
    (r"^line (?P<line>\d+): the check only guards a message$", "reason.guards_message"),
    (r"^line (?P<line>\d+): the check only looks for one NVIDIA card model \((?P<card>.+)\) to work around it; no "
     r"Ascend NPU is that card$", "reason.card_model"),
    (r"^(?P<folder>\S+)/ is an NVIDIA-only accelerator kit: its modules import (?P<runtime>\S+(?:, \S+)*), which has no Ascend "
     r"build, nothing outside the folder imports them, and the project's PyTorch code runs beside it$",
     "reason.nvidia_kit"),
    (r"^line (?P<line>\d+): the variable is set for (?P<program>\S+), an NVIDIA-only program with no Ascend build$",
     "reason.nvidia_command"),
    (r"^line (?P<line>\d+): the check only tries a CUDA path and falls back when it fails$", "reason.tries_cuda_path"),
    (r"^line (?P<line>\d+): off CUDA the function returns its input unchanged \(the eager path\)$", "reason.eager_path"),
    (r"^line (?P<line>\d+): the self-test under `if __name__ == \"__main__\":` of a module the project imports "
     r"\((?P<user>\S+)\)$", "reason.self_test"),
    (r"^a diagnostic script: it imports the complexity counter (?P<counter>\S+) and trains nothing$",
     "reason.diagnostic_script"),
    (r"^(?P<where>\S+:\d+): imported inside a function, class or try block, where an optional feature loads it$",
     "reason.lazy_import"),
    (r"^all (?P<count>\d+) Triton kernels of this file take \*\*meta \(Triton 1\.x\); the Triton of torch 2\.x "
     r"rejects them$", "reason.triton_1"),
    (r"^syntax error at line (?P<line>\d+): analysed partially$", "reason.syntax_error"),
    (r"^imported only in optional, guarded, test or other backends' code: (?P<where>.+)$", "reason.optional_imports"),
    (r"^(?P<where>\S+): declared in the optional group '(?P<group>[^']+)'$", "reason.optional_group"),
    (r"^(?P<where>\S+): an optional requirements file \((?P<extra>[^)]+)\)$", "reason.optional_requirements"),
    (r"^symbolic link to a folder \(not followed\)$", "reason.symlink_folder"),
    (r"^folder not read: a git submodule \(\.gitmodules\) not checked out, so its code was not scanned$", "reason.submodule_absent"),
    (r"^symbolic link that leaves the project$", "reason.symlink_outside"),
    # effort items that are not a rule's (domains/phases/plan.py TRANSFER_TO_NPU_ITEM), and a rule's kernels of one
    # class (domains/phases/estimate.py: `OPS030 triton-kernel [scan]`)
    (r"^transfer_to_npu \(informational auto sites\)$", "item.transfer_to_npu_info"),
    (r"^(?P<rule>[A-Z]{3}\d{3} [a-z0-9-]+) \[(?P<kind>[a-z_]+)\]$", "item.kernel_class"),
    (r"^(?P<rule>[A-Z]{3}\d{3} [a-z0-9-]+) \[(?P<kind>[a-z_]+)\] \((?P<count>\d+)×\)$", "item.kernel_class_count"),
    (r"^line (?P<line>\d+): (?P<code>.*)$", "reason.line"),
    (r"^(?P<probe>[a-z0-9-]+): (?P<candidate>.+) (?P<verdict>good|slower|fallback|wrong|error|missing) on "
     r"(?P<device>cpu|cuda|npu) \((?P<dtypes>[^;]+); (?P<sizes>[^)]+)\)$", "evidence.measured"),
))


def term(language: str, value: str) -> str:
    """A fixed term (model family, kernel class, kernel feature) in `language`; unknown terms unchanged."""
    return load_strings(language).get(f"term.{value}", value)


def titled(language: str, text) -> str:
    """A bilingual title composed in a room (a bottleneck's `OPS001 cuda-kernel [rms_norm] (1×)`): its English read
    as a phrase where a pattern knows it (the room cannot reach the report's terms), else the room's own text."""
    if language == "en":
        return text.en
    localized = phrase(language, text.en)
    return localized if localized != text.en else getattr(text, language)


def phrase(language: str, text: str) -> str:
    """A composed English phrase in `language`; unrecognised phrases unchanged."""
    if language == "en":
        return text
    for pattern, key in _PATTERNS:
        match = pattern.match(text)
        if match:
            values = {name: _phases_in(language, value) if name in ("phases", "signals")
                      else term(language, value) if name == "kind"
                      else phrase(language, value) if name == "why" else value  # a reason inside a reason
                      for name, value in match.groupdict().items()}
            if "more" in values:  # "and N more", when there are more
                values["more"] = ui_text(language, "reason.more", count=values["more"]) if values["more"] else ""
            if "verdict" in values:
                values["verdict"] = ui_text(language, f"verdict.{values['verdict']}")
            return ui_text(language, key, **values)
    return text


def recognised(text: str) -> bool:
    return any(pattern.match(text) for pattern, _ in _PATTERNS)


def _phases_in(language: str, text: str) -> str:
    translated = _PHASE_COUNT.sub(lambda m: ui_text(language, f"phase.{m.group(1)}"), text)
    return translated.replace(", ", ui_text(language, "report.list_separator"))
