"""What one file says about the phase it serves and the model it defines: its module name and local imports,
whether it is an entry point, the evidence for each phase, the nn.Module classes with their layers, and (for
shell scripts) the Python scripts it launches."""

from __future__ import annotations

import functools
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import ClassVar

from ascend_feasibility.analyzer.context import (
    cudnn_ops,
    env_options,
    env_switches,
    host_exports,
    literal_flags,
    pasted_notes,
    plugin_registries,
    process_groups,
    shell_opt_ins,
    switched_on,
    unpassed_defaults,
    unread_keys,
    unread_settings,
    version_arms,
)
from ascend_feasibility.analyzer.context.argv_switches import opt_out_arms
from ascend_feasibility.analyzer.context.backend_selectors import file_selectors
from ascend_feasibility.analyzer.context.commented_imports import commented_imports
from ascend_feasibility.analyzer.context.copy_reach import copy_folder, library_folder
from ascend_feasibility.analyzer.context.cuda_arms import Handle as GatedHandle
from ascend_feasibility.analyzer.context.cuda_arms import gated_handles
from ascend_feasibility.analyzer.context.dead_stores import dead_stores
from ascend_feasibility.analyzer.context.env_switches import env_arm
from ascend_feasibility.analyzer.context.library_trainers import ROOTS as TRAINER_ROOTS
from ascend_feasibility.analyzer.context.library_trainers import RUN_PHASES, TRAINING_RUNS, library_trainer, trainer_runs
from ascend_feasibility.analyzer.context.overwritten_arguments import overwritten_arguments
from ascend_feasibility.analyzer.context.platform_selectors import PlatformMethod, platform_methods
from ascend_feasibility.analyzer.context.reference_checks import reference_checks
from ascend_feasibility.analyzer.context.switches import module_callee, parameter_value_arm
from ascend_feasibility.analyzer.context.unbuildable import unbuildable_classes
from ascend_feasibility.analyzer.context.unread_attributes import kept_instances, stored_unread
from ascend_feasibility.analyzer.context.versions import VersionReader
from ascend_feasibility.analyzer.context.written_names import word_set, word_string
from ascend_feasibility.analyzer.core.models import PHASES
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import CALLS_BY_NAME_QUERY, DEFINITIONS_QUERY, Unit
from ascend_feasibility.domains.metric_classes import mentions_metric, metric_class_lines, metric_function_lines
from ascend_feasibility.domains.phases import lazy_tables, symbols
from ascend_feasibility.domains.phases.class_uses import class_shapes, class_uses, later_uses
from ascend_feasibility.domains.phases.command_strings import command_words
from ascend_feasibility.domains.phases.config_modules import config_bases, is_config_module
from ascend_feasibility.domains.phases.dict_built_classes import dict_built_classes
from ascend_feasibility.domains.phases.extension_users import caught_import_users, extension_users, imported_name_lines
from ascend_feasibility.domains.phases.fallback_definitions import fallback_definitions
from ascend_feasibility.domains.phases.joined_paths import joined_path
from ascend_feasibility.domains.phases.main_demos import runs_demo
from ascend_feasibility.domains.phases.prose import PROSE_KEY, without_prose
from ascend_feasibility.domains.phases.uncalled_functions import uncalled_functions
from ascend_feasibility.domains.phases.uncalled_methods import builds_attribute_names, uncalled_methods
from ascend_feasibility.domains.phases.unhooked_loaders import unhooked_loaders
from ascend_feasibility.domains.phases.walked_folders import walked_folders, within_root
from ascend_feasibility.domains.python_refs import unit_references
from ascend_feasibility.knowledge import load_phase_signals
from tree_sitter import Node

QUERY = r"""
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
(import_from_statement module_name: (_) @from_module)
(if_statement condition: (comparison_operator) @condition)
(elif_clause condition: (comparison_operator) @condition)
(keyword_argument value: (comparison_operator) @keyword_test)
(keyword_argument value: [(call) (attribute)] @keyword_value)
(if_statement condition: [(attribute) (boolean_operator)] @switch)
(elif_clause condition: [(attribute) (boolean_operator)] @switch)
(if_statement condition: (call) @read_switch)
(elif_clause condition: (call) @read_switch)
(if_statement condition: [(identifier) (not_operator)] @truth)
(elif_clause condition: [(identifier) (not_operator)] @truth)
(if_statement condition: (parenthesized_expression) @grouped)
(default_parameter value: [(string) (call) (conditional_expression)] @device_default)
(typed_default_parameter value: [(string) (call) (conditional_expression)] @device_default)
(class_definition body: (block (expression_statement (assignment left: (identifier) type: (type)) @device_field)))
(decorated_definition definition: (class_definition) @decorated_class)
(assignment left: (attribute) right: (identifier) @patched)
(assignment left: [(attribute) (pattern_list (attribute))] @attribute_store)
(augmented_assignment left: (attribute) @attribute_store)
(assert_statement (comparison_operator) @assert)
(string_content) @string
(assignment left: (identifier) @built_variable right: (call function: (identifier) @built_class))
"""
# attrs' class decorators (attrs 20.1+ `define`/`frozen`/`mutable` read annotations, as `attr.s(auto_attribs=True)`)
ATTRS_DECORATORS = frozenset({"attr.s", "attr.attrs", "attrs.attrs"})
ATTRS_AUTO_DECORATORS = frozenset({"attr.define", "attr.frozen", "attr.mutable", "attrs.define", "attrs.frozen",
                                   "attrs.mutable", "attr.dataclass"})
ATTRS_EXPLICIT, ATTRS_AUTO = "attrs", "attrs-auto"
# calls a parameter's default may make and still be inert (_inert_default): a device built, the availability asked
INERT_CALLS = frozenset({"device", "is_available"})
# methods called with arguments no call of their name shows: torch.nn.Module.__call__ hands its own to forward
IMPLICIT_METHODS = frozenset({"forward"})
FIELD_CALLS = frozenset({"field", "ib", "attrib"})  # dataclasses.field, attr.ib, attr.attrib, attrs.field
MAX_FIELDS = 10**6  # the position of a field after a base class's: never passed by position in what is read
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".cfg")
NATIVE_FOLDER_HINTS = ("csrc", "src", "include", "kernels")  # a string naming a folder of native sources
# Tests of a string's text (query_set filters; as #match? predicates they cost more than the rest of the query). Each
# regular expression decides; the str tests before it only skip texts it cannot match: a dotted module path has two
# dots, a config or native path ends with its suffix (`$` also matches before a final newline) or starts with its folder.
_DOTTED = re.compile(rb"^[A-Za-z_][A-Za-z0-9_]*([.][A-Za-z_][A-Za-z0-9_]*){2,}$")
_PATH_SUFFIXES = tuple(suffix.encode() for suffix in CONFIG_SUFFIXES + NATIVE_SUFFIXES)
_PATH_ENDS = _PATH_SUFFIXES + tuple(suffix + b"\n" for suffix in _PATH_SUFFIXES)
_FOLDERS = tuple(f"{folder}/".encode() for folder in NATIVE_FOLDER_HINTS)
_PATH = re.compile(("[.](" + "|".join(s[1:] for s in CONFIG_SUFFIXES + NATIVE_SUFFIXES) + ")$|^("
                    + "|".join(NATIVE_FOLDER_HINTS) + ")/").encode())


def _dotted(text: bytes) -> bool:
    return text.count(b".") >= 2 and _DOTTED.search(text) is not None


def _names_path(text: bytes) -> bool:
    return (text.endswith(_PATH_ENDS) or text.startswith(_FOLDERS)) and _PATH.search(text) is not None


QUERY_KEY = query_set.register("phase_facts", QUERY, filters={"dotted": ("string", _dotted),
                                                               "string_content": ("string", _names_path),
                                                               "class_string": ("string", unpassed_defaults.class_named)})
# Calls by plain name (called): of module-level functions (exported_functions), overriding a "cuda" default
# (overridden_defaults), of the names the file binds (the unpassed-default reading, which reads every file's); and by
# method name (method): phase evidence (`backward`, `step`), add_argument declarations, registrations.
CALLS_KEY = CALLS_BY_NAME_QUERY
ESCAPES_KEY = query_set.register("phase_escapes", unpassed_defaults.ESCAPES)  # names passed as values
ATTRIBUTE_CALLS_KEY = query_set.register("phase_attribute_calls", unpassed_defaults.ATTRIBUTE_CALLS)  # `torch.randn(...)`
FORWARDED_KEY = query_set.register("phase_forwarded", unpassed_defaults.FORWARDED)  # `load_in_8bit=load_in_8bit`


def query_keys(unit: Unit) -> set[str]:
    """The keys of the combined Python query (domains.query_set) collect_python reads from this unit."""
    return {QUERY_KEY, CALLS_KEY, DEFINITIONS_QUERY, PROSE_KEY}


def _calls(unit: Unit) -> list[Node]:
    return query_set.unit_captures(unit, CALLS_KEY).get("called", [])


def _methods(unit: Unit) -> list[Node]:
    return query_set.unit_captures(unit, CALLS_KEY).get("method", [])

# What shows a phase, from knowledge/phases/signals.toml.
SIGNALS = load_phase_signals()
PHASE_NAMES = {phase: tuple(prefixes) for phase, prefixes in SIGNALS.names.items()}
PHASE_OF_METHOD = {method: phase for phase, methods in SIGNALS.methods.items() for method in methods}
NAME_HINTS = {phase: tuple(hints) for phase, hints in SIGNALS.name_hints.items()}
LAYER_PREFIX = "torch.nn."
LIBRARY_MODELS = tuple(SIGNALS.models.library)
MODULE_BASES = {"torch.nn.Module", "torch.nn.modules.module.Module"}
AUTOGRAD_FUNCTION = "torch.autograd.Function"
SIGNAL_ROOTS = {
    name.split(".")[0]
    for names in (*PHASE_NAMES.values(), LIBRARY_MODELS, (LAYER_PREFIX, AUTOGRAD_FUNCTION))
    for name in names
}


@dataclass
class ModelClass:
    name: str
    path: str
    line: int
    bases: list[str]  # qualified where resolvable, else as written
    layers: dict[str, int] = field(default_factory=dict)  # torch.nn layer type → uses in the class
    forward_line: int | None = None
    backward: bool = False  # defines backward (autograd Functions)


@dataclass
class PhaseFacts:
    path: str = ""
    module: str = ""  # dotted module name of a Python file
    imports: list[str] = field(default_factory=list)  # absolute dotted names imported (relative ones resolved)
    # those of them no unconditional module-level statement imports (inside a function, a try, an if): a module whose
    # import fails there still loads (analyzer/context/vendored.py)
    nested_imports: list[str] = field(default_factory=list)
    main_guard: bool = False
    main_block: tuple[int, int] | None = None  # 1-based first and last line of the `if __name__ == "__main__":` block
    main_demo: bool = False  # that block runs a demo or a self-test of the module (main_demos.py)
    # check functions comparing with a reference that a test-script-named module's main block calls (reference_checks.py)
    reference_checks: list[str] = field(default_factory=list)
    top_level_code: bool = False  # runs work at import time (a script without a __main__ guard)
    config_module: bool = False  # its top level only imports and binds settings (config_modules.py): no entry
    config_bases: list[str] = field(default_factory=list)  # a config module's `_base_` entries (config_modules.py)
    settings_only: bool = False  # its top level only imports and binds settings, run or not (config_modules.py)
    evidence: dict[str, int] = field(default_factory=dict)  # phase → signals
    training_loop: bool = False  # runs a training step itself (knowledge/phases/signals.toml [training_loop])
    calls_backward: bool = False  # calls a `.backward(...)` (a loss's, torch.autograd's): gradients are taken here
    models: list[ModelClass] = field(default_factory=list)
    launched_scripts: list[str] = field(default_factory=list)  # shell: python/torchrun ... SCRIPT.py
    # compiled extensions the module loads by name at its top level (`load_ext('_ext', ...)`: unbuilt_extensions.py)
    extension_loads: list[str] = field(default_factory=list)
    # shell: each launch command's (module after -m, first .py word), "" where it has none (stale_launchers.py)
    launches: list[tuple[str, str]] = field(default_factory=list)
    # shell: (lines bash cannot read, non-blank lines), for notes of pasted output (analyzer/context/pasted_notes.py)
    unparsed_lines: list[int] = field(default_factory=list)
    notebook: bool = False
    model_refs: list[str] = field(default_factory=list)  # models loaded from libraries (transformers Auto classes ...)
    # builds an operator cuDNN runs (a convolution, an RNN, a CTC loss) or loads a hub model: read only in a file whose
    # bytes name one (analyzer/context/cudnn_ops.py)
    cudnn_ops: bool = False
    # its code names a device (a cuda/npu/device word in a name or string, a `.to(...)` or `.cuda()` call):
    # analyzer/context/host_exports.py; None: its bytes may, read at project time only if a DEV503 asks (device_choice)
    selects_device: bool | None = False
    config_refs: list[str] = field(default_factory=list)  # config files named in strings or launch arguments
    source_refs: list[str] = field(default_factory=list)  # native sources or their folders named in strings (builders)
    # those of them every string naming which sits in an arm an unset environment variable leaves off → why
    # (env_switches.env_arm: BasicSR's `if BASICSR_EXT == 'True':` build and `if BASICSR_JIT == 'True':` load)
    switched_source_refs: dict[str, str] = field(default_factory=dict)
    # module-level functions building an extension (cpp_extension.load) that the file calls only in comments: (name,
    # first line, last line, the source refs only such functions name, the autograd Functions reading a kernel handle
    # only it binds) (unhooked_loaders.py)
    unhooked_loaders: list[tuple[str, int, int, tuple[str, ...], tuple[tuple[str, int, int], ...]]] = field(default_factory=list)
    # a script's module-level functions its own code names nowhere but in them (comments aside): (name, first line,
    # last line) (uncalled_functions.py)
    uncalled_functions: list[tuple[str, int, int]] = field(default_factory=list)
    # module-level classes only `globals()[key](...)` over a shipped dict's keys builds, which no shipped dict names:
    # (class, first line, last line, why, builder) (dict_built_classes.py)
    dict_built: list[tuple[str, int, int, str, str]] = field(default_factory=list)
    # modules every import of which in this file is guarded (reach other than runs: optional, cuda-only-guarded ...)
    guarded_imports: dict[str, str] = field(default_factory=dict)
    # module-level backend selectors (SYSTEM = "rocm"/"cuda"/.../"cpu" by build probes): name → (value on Ascend, line)
    backend_selectors: dict[str, tuple[str, int]] = field(default_factory=dict)
    platform_methods: list[PlatformMethod] = field(default_factory=list)  # platform classes' methods (platform_selectors.py)
    # guarded imports with a fallback where they fail: module → (the guard's first line, what the code falls back to)
    import_fallbacks: dict[str, tuple[int, str]] = field(default_factory=dict)
    # modules every import of which here sits in one module-level function: module → that function (a helper that
    # loads an extension where it is called: sam2's get_connected_components imports sam2._C)
    helper_imports: dict[str, str] = field(default_factory=dict)
    # names (imported by name or defined here) every call of which here is inside a try whose handler catches an
    # import error and carries on: name → the handler's line (read only in files with an `except`; not in notebooks)
    caught_calls: dict[str, int] = field(default_factory=dict)
    # names bound to a native extension that only CUDA arms with a PyTorch other arm reach (analyzer/context/cuda_arms.py;
    # read only in files with a CUDA test and a try or a global; not in notebooks)
    gated_handles: list[GatedHandle] = field(default_factory=list)
    # module-level functions this file defines and does not call itself: (name, first line, last line)
    exported_functions: list[tuple[str, int, int]] = field(default_factory=list)
    # monkey-patch installers: module-level functions that assign another module-level function of this file to an
    # attribute (`LlamaAttention.forward = forward`), with the functions they install that nothing else in this file
    # calls (outside the installer, the main block and functions only the main block calls):
    # (installer, first line, last line, ((function, first line, last line), ...))
    patch_installers: list[tuple[str, int, int, tuple[tuple[str, int, int], ...]]] = field(default_factory=list)
    # string defaults naming a device ("cuda") that every call in this file overrides: (line, function, module-level)
    overridden_defaults: list[tuple[int, str, bool]] = field(default_factory=list)
    # such defaults of module-level functions and classes' __init__, for every call in the project (the unpassed-
    # default reading's default_passed): (line, function or class, parameter, position in a call)
    device_defaults: list[tuple[int, str, str, int]] = field(default_factory=list)
    # such defaults of methods (undecided by this file's calls), for the calls of the method's name in the project
    # (propagation.project_overridden_defaults): (line, method, parameter, position in a call after the object)
    method_defaults: list[tuple[int, str, str, int]] = field(default_factory=list)
    # method name → (fewest positional arguments of a `x.name(...)` call, keywords every such call passes)
    method_passed: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    # string values compared with == in if/elif chains: (value, line, condition, whether the chain has a default arm)
    choices: list[tuple[str, int, str, bool]] = field(default_factory=list)
    # strings that look like dotted module names ("pkg.overrides.fused_swiglu.fused_swiglu"): (text, line)
    module_strings: list[tuple[str, int]] = field(default_factory=list)
    # command-line options the file declares: (dest, off by default, flag, line)
    options: list[tuple[str, bool, str, int]] = field(default_factory=list)
    # if/elif arms taken only while a command-line option is on (`if args.fp8_base:`): (first line, last line, dest,
    # the condition as "line N: ...")
    option_arms: list[tuple[int, int, str, str]] = field(default_factory=list)
    # options whose default is a string: (dest, the default, line) (`--optim` default "adamw_torch", a dataclass field
    # `quantize_model: str = field(default="false")`)
    option_values: list[tuple[str, str, int]] = field(default_factory=list)
    option_choices: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    dead_stores: list[tuple[int, int, str]] = field(default_factory=list)  # module bindings bound again unread
    unbuildable_classes: list[tuple[int, int, str]] = field(default_factory=list)  # NameError at construction
    overwritten_arguments: list[tuple[int, int, str]] = field(default_factory=list)  # strings the callee overwrites
    unread_stores: list[tuple[str, str, int, int]] = field(default_factory=list)  # self.<attr> = value the file never reads
    kept_instances: list[str] = field(default_factory=list)  # classes whose instances never leave the file
    # if/elif arms taken only while an option holds one of some strings (`if args.optim == "adamw_bnb_8bit":`,
    # `model_args.quantize_model in ["fp8Activation_qwen2", ...]`): (first line, last line, dest, the strings, the
    # condition as "line N: ...")
    option_value_arms: list[tuple[int, int, str, tuple[str, ...], str]] = field(default_factory=list)
    # arms testing a parameter of a module-level function (or class) for strings: (first line, last line, parameter,
    # the strings, condition, the name its calls use, its position in a call) (switches.parameter_value_arm)
    parameter_arms: list[tuple[int, int, str, tuple[str, ...], str, str, int]] = field(default_factory=list)
    # calls handing an option on under its own name (`f(attn_variant=getattr(args, "attn_variant", "default"))`):
    # (callee, keyword) (analyzer/context/option_reads.passed_option)
    option_keywords: list[tuple[str, str]] = field(default_factory=list)
    # module-level enums' string members: (class, member, value) (option_reads.enum_members)
    enum_members: list[tuple[str, str, str]] = field(default_factory=list)
    # the else of a chain every arm of which tests one option for strings: (first, last, dest, the strings the arms
    # before take, condition)
    option_else_arms: list[tuple[int, int, str, tuple[str, ...], str]] = field(default_factory=list)
    # (dest, literal): a local an option arm tests is also bound to the literal (`optimizer_type = "AdamW8bit"`;
    # switches.option_value_test via option_locals)
    option_literals: list[tuple[str, str]] = field(default_factory=list)
    # assignments to a config's attribute path (`_C.TRAIN.OPTIMIZER.NAME = 'adamw'`): (path, what it is set to, line)
    # (analyzer/context/config_paths.py)
    path_writes: list[tuple[str, str, int]] = field(default_factory=list)
    # assignments of a config's attribute path (`cudnn.deterministic = cfg.CUDNN.DETERMINISTIC`): (line, path)
    path_reads: list[tuple[int, str]] = field(default_factory=list)
    # arms decided by a value only option arms set (`elif self.use_apex:`): (first, last, the lines setting it,
    # condition); read only in a file with option arms (analyzer/context/option_markers.py)
    marker_arms: list[tuple[int, int, tuple[int, ...], str]] = field(default_factory=list)
    # shell: the options a launch command passes (`--xformers`): the project's own launch sets them on
    launch_flags: list[str] = field(default_factory=list)
    # environment variables the file sets: (name, `@dest` of an option, `=value` of a literal, `?`) (env_options.py)
    env_carriers: list[tuple[str, str]] = field(default_factory=list)
    # the keys of a table of environment variables whose lambda is false while unset (env_switches.table_off)
    env_table_off: list[str] = field(default_factory=list)
    # arms a test of such a table's entry decides: (first, last, module as imported, key, condition) (env_switches.py)
    env_table_arms: list[tuple[int, int, str, str, str]] = field(default_factory=list)
    # shell: the values a launch command passes them (`--optim adamw_bnb_8bit`, `--trt=True`): (flag, value)
    launch_values: list[tuple[str, str]] = field(default_factory=list)
    # shell: hydra-style overrides a launch command passes (`++train_conf.use_deepspeed=false`): (last key, value)
    launch_overrides: list[tuple[str, str]] = field(default_factory=list)
    # shell: `if [ "$resume" = true ]` arms of a variable only the option parser turns on: (first, last, variable,
    # flag or "", condition); and the (flag, value) pairs each command running a shell script passes (shell_opt_ins.py)
    shell_opt_in_arms: list[tuple[int, int, str, str, str]] = field(default_factory=list)
    script_flags: list[tuple[str, str]] = field(default_factory=list)
    # Python build script: arms taken only while a flag is not given (`else` of `if '--no_cuda_ext' in sys.argv:`) and
    # the functions only they call: (first, last, flag, line of the test) (argv_switches.opt_out_arms)
    argv_opt_out_arms: list[tuple[int, int, str, int]] = field(default_factory=list)
    # Python: (line, key) of string-valued dict entries whose key the file spells nowhere else (unread_keys.py)
    unread_keys: list[tuple[int, str]] = field(default_factory=list)
    # a config module's (first, last line, name) of top-level `name = dict(...)` settings (unread_settings.py)
    config_settings: list[tuple[int, int, str]] = field(default_factory=list)
    # shell: each launch command as (the script or module it runs, the flags it passes without a value, the config
    # files it names) (analyzer/context/launch_variants.py)
    launch_commands: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    # configs: the keys set to true (`memory_efficient: true`); Python: `S=True` passed to a call, `'S': True` in a
    # dict, as (callee, S, line): what turns a switch on (analyzer/context/switched_on.py)
    true_keys: list[str] = field(default_factory=list)
    true_literals: list[tuple[str, str, int]] = field(default_factory=list)
    # a package __init__.py that loads submodules lazily by name: the dotted modules its strings may name
    lazy_submodules: list[str] = field(default_factory=list)
    # its `_LazyModule` table: (exported name, submodule relative to the package) (lazy_tables.py)
    lazy_names: list[tuple[str, str]] = field(default_factory=list)
    # the keys of string-to-string dict literals in a file that imports modules by name: plugin tables
    # (analyzer/context/plugin_registries.py)
    plugin_tables: list[list[str]] = field(default_factory=list)
    loads_by_name: bool = False  # calls import_module( or __import__( (plugin_registries.py)
    # classes registered under a string key (`callbacks.register('env_logging', func=EnvironmentLoggingCallback)`),
    # imported by name from another module: (key, class, its module, every name that import takes from the module,
    # line, registry); only where the file writes the key once (analyzer/context/opt_in.py)
    registrations: list[tuple[str, str, str, tuple[str, ...], int, str]] = field(default_factory=list)
    # functions whose name says one phase (`_forward_inference`, `_forward_training`): (phase, first line, last line)
    phase_functions: list[tuple[str, int, int]] = field(default_factory=list)
    # arms a parameter's default decides, the file's calls of the names it binds, the names it passes as values
    # (analyzer/context/unpassed_defaults.py)
    default_arms: list[tuple[int, int, str, str, int, str, str, bool]] = field(default_factory=list)
    default_taken: list[tuple[str, str, int, str, str, tuple[str, ...]]] = field(default_factory=list)
    # arms spelling "cuda" that a parameter's None default takes (`if device is None: device = torch.device("cuda")`):
    # (first line, last line, function or class, parameter, condition) (propagation.project_overridden_defaults)
    default_none_arms: list[tuple[int, int, str, str, str]] = field(default_factory=list)
    default_calls: dict[str, tuple[int, int, list[str], bool]] = field(default_factory=dict)
    default_escaped: list[str] = field(default_factory=list)
    default_passed: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    # calls in those arms of the file's own functions (unpassed_defaults.DefaultFacts.arm_calls)
    default_arm_calls: list[tuple[int, int, str, int, int, int]] = field(default_factory=list)
    default_registered: list[str] = field(default_factory=list)  # classes registered under a string key
    default_recorded: list[str] = field(default_factory=list)  # classes whose __init__ a config recorder decorates
    default_reads: list[tuple[str, str, int, tuple[int, ...]]] = field(default_factory=list)  # string defaults' reads
    default_hops: list[tuple[int, int, str, str]] = field(default_factory=list)  # arms read through self.<attribute>
    default_foreign: list[str] = field(default_factory=list)  # attributes stored or called on other objects
    option_nones: list[tuple[str, str]] = field(default_factory=list)  # options None unless given: (dest, flag)
    # keywords calls pass as a command-line option's value: (callee record, keyword, dest) (`gpu_id=args.gpu_id`)
    default_option_keywords: list[tuple[str, str, str]] = field(default_factory=list)
    # keywords calls pass as the caller's own defaulted parameter (`GPT(use_vllm=use_vllm)`): (callee record, keyword,
    # the caller as a function, class or "Class.method", its parameter, position, default; "" where not such a value)
    default_forwards: list[tuple[str, str, str, str, int, str]] = field(default_factory=list)
    star_imports: list[str] = field(default_factory=list)  # modules imported with `from module import *`
    # modules an `import m` / `import m as a` statement names: they bind `m` (`a`) even where `from m import X` also
    # lists `m` as a source (analyzer/context/import_reach.py)
    plain_imports: list[str] = field(default_factory=list)
    # starts a process group; the if-arms that need one (analyzer/context/process_groups.py)
    starts_process_group: bool = False
    process_arms: list[tuple[int, int, str]] = field(default_factory=list)
    # modules named by commented-out import lines (`# from .modeling_llama import X`): (module, line)
    commented_imports: list[tuple[str, int]] = field(default_factory=list)
    # module-level functions and classes the file never names again: (name, first, last, kind) (symbols.py)
    unnamed_symbols: list[tuple[str, int, int, str]] = field(default_factory=list)
    # those it names only inside other module-level definitions: (name, first, last, kind, those definitions) (symbols.py)
    inner_named: list[tuple[str, int, int, str, list[str]]] = field(default_factory=list)
    # those a registry decorator registers: (name, registry, the other names it is built by) (symbols.py)
    registered_symbols: list[tuple[str, str, list[str]]] = field(default_factory=list)
    # (module, first, last, name) of definitions only a failed `from module import ...` defines (fallback_definitions.py)
    fallback_definitions: list[tuple[str, int, int, str]] = field(default_factory=list)
    reexports: list[str] = field(default_factory=list)  # names a package __init__.py only re-exports (symbols.py)
    # (extension, first, last) of definitions calling through `from . import x_ext` whose ImportError is swallowed
    # (extension_users.py, analyzer/context/unbuilt_extensions.py)
    extension_users: list[tuple[str, int, int]] = field(default_factory=list)
    # (module, line, definitions) of a caught top-level `import name` and the definitions only it reaches, and (module,
    # name, lines) of each `from m import name` (extension_users.py, analyzer/context/arm_selected.py)
    caught_import_users: list[tuple[str, int, tuple[str, ...]]] = field(default_factory=list)
    imported_name_lines: list[tuple[str, str, tuple[int, ...]]] = field(default_factory=list)
    # names it imports and writes only inside its own module-level definitions: (name, those definitions) (symbols.py)
    imported_users: list[tuple[str, list[str]]] = field(default_factory=list)
    # a vendored copy's module: (name, first, last, kind, pinned, words) of its definitions, its `__main__` block and
    # its other module-level code (symbols.copy_units, analyzer/context/copy_reach.py)
    copy_units: list[tuple[str, int, int, str, bool, str]] = field(default_factory=list)
    dynamic_lookups: list[str] = field(default_factory=list)  # objects of `getattr(obj, name)` with a non-literal name
    # (name, class, methods) for names a module-level class writes only in those methods (class_uses.py)
    method_users: list[tuple[str, str, list[str]]] = field(default_factory=list)
    # (class, bases' last names, the methods it defines calling neither super nor a base) (class_uses.py)
    class_shapes: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    base_only: list[str] = field(default_factory=list)  # names it writes only as base classes (class_uses.py)
    # method_users and base_only were left out by the scan, to be read at project time for the files the project
    # pass asks about (class_uses(); a Python module with a module-level class)
    uses_later: bool = False
    # (class, method, first, last) of private methods the file names only in their def (uncalled_methods.py)
    uncalled_methods: list[tuple[str, str, int, int]] = field(default_factory=list)
    builds_attribute_names: bool = False  # a module-level class beside a getattr(obj, built name) (uncalled_methods.py)
    # names written only in arms a literal constant rules out (or imported for them): (name, the arm's line, the
    # constant when the `if` is in a function, why) (analyzer/context/literal_flags.py)
    edited_names: list[tuple[str, int, str, str]] = field(default_factory=list)
    words: str = ""  # the identifier-like words the file writes, each between spaces (symbols.py, written_names.py)
    dotted_words: list[str] = field(default_factory=list)  # the dotted names of 3+ parts it writes (symbols.py)


    # the bytes the scan read, by path (Domain.read_later): set on the facts that hold back records (uses_later)
    source: ClassVar[Callable[[str], bytes | None] | None] = None

    def device_choice(self) -> bool:
        """selects_device, read from the file again, once, where the scan left it open (None). A file that cannot
        be read as scanned counts as choosing a device: nothing is decided on it."""
        if self.selects_device is None:
            data = self.source(self.path) if self.source is not None else None
            self.selects_device = True if data is None else host_exports.selects_device(parsing.parse("python", data), data)
        return self.selects_device

    def class_uses(self) -> tuple[list[tuple[str, str, list[str]]], list[str]]:
        """(method_users, base_only), read from the file again, once, where the scan held them back."""
        if self.uses_later:
            self.method_users, self.base_only = later_uses(self.path, self.source)
            self.uses_later = False
        return self.method_users, self.base_only

    def absorb(self, other: PhaseFacts) -> None:
        """Add another unit's facts of the same file (a notebook's next cell)."""
        self.imports += other.imports
        self.nested_imports += other.nested_imports
        self.plain_imports += other.plain_imports
        self.extension_loads += other.extension_loads
        self.models += other.models
        self.launched_scripts += other.launched_scripts
        self.launches += other.launches
        self.unnamed_symbols += other.unnamed_symbols
        self.inner_named += other.inner_named
        self.registered_symbols += other.registered_symbols
        self.fallback_definitions += other.fallback_definitions
        self.reexports += other.reexports
        self.extension_users += other.extension_users
        self.caught_import_users += other.caught_import_users
        self.imported_name_lines += other.imported_name_lines
        self.imported_users += other.imported_users
        self.copy_units += other.copy_units
        self.dynamic_lookups += other.dynamic_lookups
        self.method_users += other.method_users
        self.class_shapes += other.class_shapes
        self.uncalled_methods += other.uncalled_methods
        self.builds_attribute_names |= other.builds_attribute_names
        self.base_only = sorted(set(self.base_only) & set(other.base_only))  # a cell may create what another subclasses
        self.edited_names += other.edited_names
        self.words = word_string(word_set(self.words) | word_set(other.words))
        self.dotted_words = sorted(set(self.dotted_words) | set(other.dotted_words))
        self.model_refs += other.model_refs
        self.cudnn_ops |= other.cudnn_ops
        self.selects_device = True if True in (self.selects_device, other.selects_device) else \
            None if None in (self.selects_device, other.selects_device) else False
        self.config_refs += other.config_refs
        self.source_refs += other.source_refs
        self.choices += other.choices
        self.module_strings += other.module_strings
        self.lazy_submodules += other.lazy_submodules
        self.lazy_names += other.lazy_names
        self.plugin_tables += other.plugin_tables
        self.loads_by_name |= other.loads_by_name
        self.registrations += other.registrations
        self.phase_functions += other.phase_functions
        self.options += other.options
        self.option_arms += other.option_arms
        self.option_values += other.option_values
        self.option_choices += other.option_choices
        self.dead_stores += other.dead_stores
        self.unbuildable_classes += other.unbuildable_classes
        self.overwritten_arguments += other.overwritten_arguments
        self.unread_stores += other.unread_stores
        self.kept_instances += other.kept_instances
        self.option_value_arms += other.option_value_arms
        self.parameter_arms += other.parameter_arms
        self.option_keywords += other.option_keywords
        self.enum_members += other.enum_members
        self.option_else_arms += other.option_else_arms
        self.option_literals += other.option_literals
        self.path_writes += other.path_writes
        self.path_reads += other.path_reads
        self.marker_arms += other.marker_arms
        self.launch_flags += other.launch_flags
        self.launch_values += other.launch_values
        self.launch_overrides += other.launch_overrides
        self.shell_opt_in_arms += other.shell_opt_in_arms
        self.script_flags += other.script_flags
        self.argv_opt_out_arms += other.argv_opt_out_arms
        self.unread_keys += other.unread_keys
        self.config_settings += other.config_settings
        self.env_carriers += other.env_carriers
        self.launch_commands += other.launch_commands
        self.env_table_off += other.env_table_off
        self.env_table_arms += other.env_table_arms
        self.true_literals += other.true_literals
        self.default_arms += other.default_arms
        self.default_taken += other.default_taken
        self.default_none_arms += other.default_none_arms
        self.default_arm_calls += other.default_arm_calls
        self.default_registered += other.default_registered
        self.default_recorded += other.default_recorded
        self.default_reads += other.default_reads
        self.default_hops += other.default_hops
        self.default_foreign += other.default_foreign
        self.option_nones += other.option_nones
        self.default_option_keywords += other.default_option_keywords
        self.default_forwards += other.default_forwards
        self.default_escaped += other.default_escaped
        self.star_imports += other.star_imports
        self.starts_process_group |= other.starts_process_group
        self.process_arms += other.process_arms
        self.commented_imports += other.commented_imports
        self.device_defaults += other.device_defaults
        self.method_defaults += other.method_defaults
        for name, (fewest, keywords) in other.method_passed.items():
            before = self.method_passed.get(name)
            self.method_passed[name] = (fewest, keywords) if before is None else (
                min(before[0], fewest), sorted(set(before[1]) & set(keywords)))
        for name, (fewest, keywords) in other.default_passed.items():
            before = self.default_passed.get(name)
            self.default_passed[name] = (fewest, keywords) if before is None else (
                min(before[0], fewest), sorted(set(before[1]) & set(keywords)))
        for name, (count, most, keywords, splat) in other.default_calls.items():
            before = self.default_calls.get(name, (0, 0, [], False))
            self.default_calls[name] = (before[0] + count, max(before[1], most), sorted({*before[2], *keywords}),
                                        before[3] or splat)
        for module, reach in other.guarded_imports.items():
            if module in self.imports and module not in self.guarded_imports:
                continue  # imported plainly in an earlier cell
            self.guarded_imports.setdefault(module, reach)
        for module, fallback in other.import_fallbacks.items():
            if module in self.guarded_imports:
                self.import_fallbacks.setdefault(module, fallback)
        self.main_guard |= other.main_guard
        self.main_block = self.main_block or other.main_block
        self.main_demo |= other.main_demo
        self.top_level_code |= other.top_level_code
        self.config_module &= other.config_module  # every part a config (a notebook of cells: code)
        self.config_bases += other.config_bases
        self.settings_only &= other.settings_only
        self.training_loop |= other.training_loop
        self.calls_backward |= other.calls_backward
        for phase, count in other.evidence.items():
            self.evidence[phase] = self.evidence.get(phase, 0) + count


ImportReach = Callable[[Unit, Node], str]  # the reach of an import statement (runs, optional, cuda-only-guarded ...)


def collect(path: str, kind: str, units: list[Unit], import_reach: ImportReach | None = None,
            versions: VersionReader | None = None) -> PhaseFacts | None:
    """One PhaseFacts per file: Python (a notebook's cells merged), shell and Dockerfiles, and YAML/JSON configs
    (which take the phases of what names them)."""
    merged = None
    for unit in units:
        if unit.kind == "python":
            facts = collect_python(unit, import_reach, versions)
        elif unit.kind in {"shell", "dockerfile"}:
            facts = collect_shell(unit)
        else:
            continue
        if unit.kind == "python":
            facts.unnamed_symbols, facts.inner_named = symbols.module_symbols(unit)
            facts.registered_symbols = symbols.registered_symbols(unit)
            facts.fallback_definitions = fallback_definitions(unit)
            facts.reexports = symbols.reexported_names(unit)
            facts.extension_users = extension_users(unit)
            facts.caught_import_users = caught_import_users(unit)
            facts.imported_name_lines = imported_name_lines(unit)
            facts.imported_users = symbols.imported_users(unit)
            # the units of a vendored copy's module, or of a candidate copy of a library (analyzer/context/copy_reach.py)
            if copy_folder(unit.path) is not None or library_folder(unit.path) is not None:
                facts.copy_units = symbols.copy_units(unit)
            facts.dynamic_lookups = symbols.dynamic_lookups(unit)
            if kind == "python":  # a module: its classes' uses are read at project time, for the files asked
                facts.class_shapes = class_shapes(unit)
                facts.uses_later = bool(facts.class_shapes)  # no module-level class: it has none to read
            else:  # a notebook's cells, merged here
                facts.method_users, facts.class_shapes, facts.base_only = class_uses(unit)
            facts.uncalled_methods = uncalled_methods(unit)
            facts.builds_attribute_names = bool(symbols.unit_statements(unit).classes) and builds_attribute_names(unit)
            facts.true_literals = switched_on.true_literals(unit)
        # a file's words leave out what it only ships (package_data): a kernel named there is not built by it
        # and its prose (comments, docstrings, shown sentences: prose.py): a name written there reaches nothing
        data = _unshipped_bytes(without_prose(unit), shipped_strings(unit)) if unit.kind == "python" else unit.source.data
        facts.words, dotted = symbols.read_words(data)
        facts.dotted_words = sorted(dotted)
        if merged is None:
            merged = facts
        else:
            merged.absorb(facts)
    if merged is not None and kind == "notebook":
        merged.module, merged.notebook, merged.path = "", True, path
    if merged is None and kind in {"yaml", "json", "build"}:  # configs and build files name symbols too
        read = [symbols.read_words(u.source.data) for u in units]
        merged = PhaseFacts(path=path, words=word_string(set().union(*(word_set(w) for w, _ in read))),
                            dotted_words=sorted(set().union(*(d for _, d in read))))
        if kind in {"yaml", "json"}:
            merged.true_keys = sorted({k for u in units  # the documents the config scanner composed, if it did
                                       for k in switched_on.true_keys(u.source.data, kind == "json", u.yaml_documents)})
    return merged


MAX_SHIPPING_NODES = 200000  # a walk of a file that writes a shipping keyword (setup.py is small)


def shipped_strings(unit: Unit) -> list[Node]:
    """The string parts that list files the package ships, never builds: inside the value of a keyword argument of
    the conventions' shipping_keywords (`setup(package_data={"pkg": ["kernels/*.cu"]})`) or of a name or key bound
    for one (`package_data = {...}`, `kwargs["data_files"] = [...]`, `{"package_data": {...}}`)."""
    from ascend_feasibility.knowledge import load_context_conventions

    keywords = frozenset(load_context_conventions().opt_in.shipping_keywords)
    if not any(keyword in unit.source.text for keyword in keywords):
        return []
    values = []
    for node in parsing.walk(unit.tree(), limit=MAX_SHIPPING_NODES):
        if node.type == "keyword_argument":
            name = node.child_by_field_name("name")
            if name is not None and parsing.text(name) in keywords:
                values.append(node.child_by_field_name("value"))
        elif node.type == "assignment" and _bound_name(node.child_by_field_name("left")) in keywords:
            values.append(node.child_by_field_name("right"))
        elif node.type == "pair":
            key = node.child_by_field_name("key")
            if key is not None and key.type == "string" and _string_text(key) in keywords:
                values.append(node.child_by_field_name("value"))
    return [part for value in values if value is not None
            for part in parsing.walk(value, limit=MAX_SHIPPING_NODES) if part.type == "string_content"]


def _unshipped_bytes(data: bytes, shipped: list[Node]) -> bytes:
    """The text with the shipped strings blanked: a file's words leave out what it only lists as package data."""
    return parsing.blanked(data, shipped)


def _bound_name(left: Node | None) -> str:
    """The name an assignment binds: `x`, `self.x`, `kwargs["x"]`."""
    if left is None:
        return ""
    if left.type == "identifier":
        return parsing.text(left)
    if left.type == "attribute":
        attribute = left.child_by_field_name("attribute")
        return parsing.text(attribute) if attribute is not None else ""
    if left.type == "subscript":
        index = left.child_by_field_name("subscript")
        return _string_text(index) if index is not None and index.type == "string" else ""
    return ""


def _string_text(node: Node) -> str:
    return "".join(parsing.text(part) for part in node.named_children if part.type == "string_content")


def _extension_loads(unit: Unit) -> list[str]:
    """The names a module-level `load_ext('_ext', [...])` (an extension loader of the conventions) imports when the
    module loads: a plain call or the value of an assignment, not one inside a function, an if or a try."""
    from ascend_feasibility.knowledge import load_context_conventions

    loaders = load_context_conventions().opt_in.extension_loaders
    if not any(loader in unit.source.text for loader in loaders):
        return []
    found = []
    for statement in unit.tree().named_children:
        value = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if value is not None and value.type == "assignment":
            value = value.child_by_field_name("right")
        function = value.child_by_field_name("function") if value is not None and value.type == "call" else None
        if function is None or parsing.text(function).rsplit(".", 1)[-1] not in loaders:
            continue
        arguments = value.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        content = [c for c in first.named_children if c.type == "string_content"] if first is not None else []
        if first is not None and first.type == "string" and len(content) == 1:
            found.append(parsing.text(content[0]))
    return found


MAX_LAZY_NAMES = 20000
STRINGS = "(string_content) @string"


def _lazy_submodules(unit: Unit, package: str) -> list[str]:
    """The submodules a package's __init__.py may load by name (`_import_structure = {"models.unet_2d": [...]}` for
    `_LazyModule`): every string of it that is a dotted name, read from the package. Only when the file has a lazy
    loader (knowledge/context/conventions.toml, opt_in.lazy_loader_markers)."""
    from ascend_feasibility.knowledge import load_context_conventions

    text = unit.source.text
    if not any(marker in text for marker in load_context_conventions().opt_in.lazy_loader_markers):
        return []
    names = set()
    for node in parsing.captures(parsing.query("python", STRINGS), unit.tree()).get("string", [])[:MAX_LAZY_NAMES]:
        value = parsing.text(node).lstrip(".")
        if value and all(part.isidentifier() for part in value.split(".")):
            names.add(f"{package}.{value}" if package else value)
    return sorted(names)


def compact(facts: PhaseFacts) -> PhaseFacts:
    """Share the strings many files repeat (`torch`, `torch.nn`, ...): the main process keeps every file's facts."""
    facts.imports = sorted({sys.intern(name) for name in facts.imports})
    facts.nested_imports = [sys.intern(name) for name in facts.nested_imports]
    facts.plain_imports = [sys.intern(name) for name in facts.plain_imports]
    facts.model_refs = [sys.intern(name) for name in facts.model_refs]
    for model in facts.models:
        model.bases = [sys.intern(b) for b in model.bases]
        model.layers = {sys.intern(k): v for k, v in model.layers.items()}
    facts.default_calls = {sys.intern(k): (n, most, [sys.intern(w) for w in words], splat)
                           for k, (n, most, words, splat) in facts.default_calls.items()}
    return facts


MAX_MODULE_STRINGS = 200
MAX_CHOICES = 200


def _options(calls: list[Node], switches: list[Node]) -> tuple[list[tuple[str, bool, str, int]], list[tuple[int, int, str, str]]]:
    """Command-line options the file declares (`parser.add_argument("--xformers", action="store_true")`) and the
    arms a command-line option turns on (`if args.fp8_base:`), for the project's switch pass."""
    from ascend_feasibility.analyzer.context.switches import argument_switch, declared_option
    from ascend_feasibility.knowledge import load_context_conventions

    options = []
    for call in calls:
        declared = declared_option(call)
        if declared is not None:
            options.append((*declared, call.start_point.row + 1))
    arms = []
    if switches:
        conventions = load_context_conventions().opt_in
        objects, mainstream = frozenset(conventions.argument_objects), frozenset(conventions.mainstream_switch_tokens)
        for condition in switches[:MAX_CHOICES]:
            dest = argument_switch(condition, objects, mainstream)
            body = condition.parent.child_by_field_name("consequence") if condition.parent is not None else None
            if dest is not None and body is not None:
                first = " ".join(parsing.text(condition.parent).splitlines()[0].split())[:100]
                arms.append((body.start_point.row + 1, body.end_point.row + 1, dest,
                             f"line {condition.start_point.row + 1}: {first}"))
    return options, arms


def _string_options(calls: list[Node]) -> list[tuple[str, str, int]]:
    """`parser.add_argument("--optim", default="adamw_torch")`: (dest, "adamw_torch", line)."""
    from ascend_feasibility.analyzer.context.switches import option_string_default

    found = []
    for call in calls:
        declared = option_string_default(call)
        if declared is not None:
            found.append((*declared, call.start_point.row + 1))
    return found


def _registrations(text: str, methods: list[Node], sites: list[tuple[str, Node | None]]
                   ) -> list[tuple[str, str, str, tuple[str, ...], int, str]]:
    """`registry.register("key", func=Class)` / `registry.register("key", Class)` calls whose class this file imports
    at its top level with `from module import Class`, whose key it writes once and whose class it names nowhere else."""
    imported: dict[str, tuple[str, tuple[str, ...]]] = {}  # name → (its module, the names that statement imports)
    for module, statement in sites:
        if statement is None or statement.type != "import_from_statement" or statement.parent is None \
                or statement.parent.type != "module":
            continue
        names = tuple(parsing.text(n) for n in statement.children_by_field_name("name"))
        if all(n.isidentifier() for n in names):  # no `as` aliases
            for name in names:
                imported.setdefault(name, (module.rsplit(".", 1)[0] if module.endswith("." + name) else module, names))
    found = []
    for method in methods:
        call = method.parent.parent if method.parent is not None else None
        if call is None or call.type != "call" or parsing.text(method) != "register":
            continue
        arguments = call.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
        if not args or args[0].type != "string" or any(c.type == "interpolation" for c in args[0].children):
            continue
        key = "".join(parsing.text(c) for c in args[0].children if c.type == "string_content")
        classes = [a for a in args[1:] if a.type == "identifier"]
        classes += [a.child_by_field_name("value") for a in args[1:] if a.type == "keyword_argument"]
        classes = [c for c in classes if c is not None and c.type == "identifier"]
        if len(classes) != 1 or not key.isidentifier() or text.count(f"'{key}'") + text.count(f'"{key}"') != 1:
            continue
        name = parsing.text(classes[0])
        # the import and this call are its only uses here (a string in `__all__` aside): no default list holds it
        if name in imported and text.count(name) - text.count(f"'{name}'") - text.count(f'"{name}"') == 2:
            module, names = imported[name]
            registry = parsing.text(method.parent.child_by_field_name("object"))
            found.append((key, name, module, names, call.start_point.row + 1, registry))
    return found


def _add_argument_calls(methods: list[Node]) -> list[Node]:
    """The `parser.add_argument(...)` calls among the unit's method names."""
    calls = []
    for method in methods:
        call = method.parent.parent if method.parent is not None else None
        if call is not None and call.type == "call" and parsing.text(method) == "add_argument":
            calls.append(call)
    return calls


def dataclass_options(cls: Node) -> tuple[list[tuple[str, bool, str, int]], list[tuple[str, str, int]]]:
    """The fields of a `@dataclass` class, read as the command-line options HfArgumentParser makes of them
    (`quantize_model: str = field(default="false")` is `--quantize_model`): switches (dest, off by default, flag, line)
    from False/None/True defaults, and string or number defaults (dest, value, line; `bits: int = 16` is "16")."""
    from ascend_feasibility.analyzer.context.switches import dataclass_field

    decorated = cls.parent
    decorators = [parsing.text(d).lstrip("@").split("(")[0].strip() for d in decorated.children
                  if d.type == "decorator"] if decorated is not None else []
    if not any(d.rsplit(".", 1)[-1] == "dataclass" for d in decorators):
        return [], []
    body = cls.child_by_field_name("body")
    switches, values = [], []
    for statement in (body.named_children if body is not None else [])[:MAX_CHOICES]:
        assignment = parsing.statement_assignment(statement)
        read = dataclass_field(assignment) if assignment is not None else None
        if read is None:
            continue
        name, default, line = read
        if default in {"False", "None", "True"}:
            switches.append((name, default != "True", f"--{name}", line))
        else:
            values.append((name, default.strip("'\""), line))
    return switches, values


def _option_value_arms(conditions: list[Node]) -> tuple[list[tuple[int, int, str, tuple[str, ...], str]],
                                                        list[tuple[int, int, str, tuple[str, ...], str]],
                                                        list[tuple[str, str]]]:
    """Arms of `if args.optim == "adamw_bnb_8bit":` / `elif model_args.quantize_model in ["a", "b"]:`, the `else`
    of a chain all of whose arms test one option so, and (dest, literal) for the literals a local the arms test as
    the option is also bound to."""
    from ascend_feasibility.analyzer.context.switches import (
        PARAMETER_PREFIX,
        config_value_test,
        option_else_arm,
        option_value_test,
    )
    from ascend_feasibility.knowledge import load_context_conventions

    if not conditions:
        return [], [], []
    objects = frozenset(load_context_conventions().opt_in.argument_objects)
    arms, others, literals = [], [], set()
    tested_config = [config_value_test(condition) for condition in conditions[:MAX_CHOICES]]
    source = _root_text(conditions[0]) if any(tested_config) else ""
    for condition, config in zip(conditions[:MAX_CHOICES], tested_config):
        bound: list[str] = []
        tested = option_value_test(condition, objects, bound)
        if tested is not None:
            literals.update((tested[0], literal) for literal in bound)
        if tested is not None and tested[0].startswith(PARAMETER_PREFIX):  # a value the file writes once, in this test
            source = source or _root_text(condition)
            tested = tested if _only_tested(tested[1], [tested], source) else None
        if tested is None and config is not None and _only_tested(config[1], tested_config, source):
            tested = config  # a config key's value (switched_options asks the project's config files)
        holder = condition.parent
        if holder is not None and holder.type == "keyword_argument":  # `load_in_8bit=training_args.bits == 8`
            body = holder if _own_lines(holder) else None
        else:
            body = holder.child_by_field_name("consequence") if holder is not None else None
        if tested is None or body is None:
            continue
        first = " ".join(parsing.text(holder).splitlines()[0].split())[:100]
        arms.append((body.start_point.row + 1, body.end_point.row + 1, tested[0], tested[1],
                     f"line {condition.start_point.row + 1}: {first}"))
        otherwise = option_else_arm(condition, objects)
        if otherwise is not None:
            others.append((*otherwise[:4], f"line {otherwise[4]}: else of {first}"))
    return arms, others, sorted(literals)


def _parameter_arms(conditions: list[Node]) -> list[tuple[int, int, str, tuple[str, ...], str, str, int]]:
    """The if/elif bodies whose whole condition tests a parameter for strings (switches.parameter_value_arm)."""
    arms = []
    for condition in conditions[:MAX_CHOICES]:
        holder = condition.parent
        body = holder.child_by_field_name("consequence") if holder is not None and holder.type in {
            "if_statement", "elif_clause"} else None
        tested = parameter_value_arm(condition) if body is not None else None
        if tested is not None:
            first = " ".join(parsing.text(holder).splitlines()[0].split())[:100]
            arms.append((body.start_point.row + 1, body.end_point.row + 1, tested[0], tested[1],
                         f"line {condition.start_point.row + 1}: {first}", tested[2], tested[3]))
    return arms


def _option_keywords(values: list[Node]) -> list[tuple[str, str]]:
    """(callee, keyword) of the calls handing an option on under its own name (option_reads.passed_option)."""
    from ascend_feasibility.analyzer.context.option_reads import passed_option
    from ascend_feasibility.knowledge import load_context_conventions

    if not values:
        return []
    objects = frozenset(load_context_conventions().opt_in.argument_objects)
    return sorted({found for found in (passed_option(v, objects) for v in values[:MAX_CHOICES]) if found is not None})


def _own_lines(node: Node) -> bool:
    """Does nothing but `node` (and a comma) stand on its lines? A keyword argument that does is an arm of its own:
    a finding on those lines is about its value, not about the call around it."""
    before, after = node.prev_sibling, node.next_sibling
    while after is not None and after.type in {",", "comment"}:
        after = after.next_sibling
    return (before is None or before.end_point.row < node.start_point.row) and (
        after is None or after.start_point.row > node.end_point.row)


def _root_text(node: Node) -> str:
    while node.parent is not None:
        node = node.parent
    return parsing.text(node)


def _only_tested(values: tuple[str, ...], tests: list, source: str) -> bool:
    """Is each value written in the file only in the config tests that name it? A value the file also writes elsewhere
    (a defaults dict, `cfg.setdefault('type', 'adam8bit')`, a choices list) may be the one a run takes."""
    for value in values:
        written = source.count(f"'{value}'") + source.count(f'"{value}"')
        if written != sum(value in test[1] for test in tests if test is not None):
            return False
    return True


def _launch_values(words: list[str]) -> list[tuple[str, str]]:
    """`--optim adamw_bnb_8bit` and `--optim=adamw_bnb_8bit`: (flag, value); a flag followed by another flag has none."""
    found = []
    for index, word in enumerate(words):
        if not word.startswith("--"):
            continue
        if "=" in word:
            flag, value = word.split("=", 1)
            found.append((flag, value))
        elif index + 1 < len(words) and not words[index + 1].startswith("-"):
            found.append((word, words[index + 1]))
    return found


def _launch_overrides(words: list[str]) -> list[tuple[str, str]]:
    """`++train_conf.use_deepspeed=false`, `+model.dtype=bf16`, `epochs=3`: (the key's last dotted part, value)."""
    found = []
    for word in words:
        if word.startswith("-") or "=" not in word:
            continue
        key, value = word.lstrip("+~").split("=", 1)
        key = key.rsplit(".", 1)[-1]
        if key.isidentifier():
            found.append((key, value.strip("'\"")))
    return found


def _choices(conditions: list[Node]) -> list[tuple[str, int, str, bool]]:
    """`x == "value"` conditions of if/elif chains, with whether their chain has a default arm (a value such as
    "standard", or an else that does more than raise): what picks one of several implementations by configuration."""
    from ascend_feasibility.analyzer.context.guards import only_raises
    from ascend_feasibility.knowledge import load_context_conventions

    defaults = {d.lower() for d in load_context_conventions().opt_in.default_choices}
    chains: dict[int, list[tuple[str, int, str]]] = defaultdict(list)
    statements: dict[int, Node] = {}
    for condition in conditions[:MAX_CHOICES]:
        if not any(child.type == "==" for child in condition.children):
            continue
        strings = [c for c in condition.named_children if c.type == "string"]
        if len(strings) != 1 or len(condition.named_children) != 2:
            continue
        content = [c for c in strings[0].named_children if c.type == "string_content"]
        if len(content) != 1:
            continue
        statement = condition.parent if condition.parent.type == "if_statement" else condition.parent.parent
        if statement is None or statement.type != "if_statement":
            continue
        statements[statement.id] = statement
        text = " ".join(parsing.text(condition).split())
        chains[statement.id].append((parsing.text(content[0]), condition.start_point.row + 1, text[:120]))
    result = []
    for key, arms in chains.items():
        statement = statements[key]
        others = [c for c in statement.children if c.type == "else_clause"]
        has_default = any(v.lower() in defaults for v, _, _ in arms) or any(not only_raises(e) for e in others)
        result += [(value, line, text, has_default) for value, line, text in arms]
    return result


# A metric class's or function's code serves evaluation (domains/metric_classes.py), whichever entry imports its file.
METRIC_PHASE = "evaluation"
FUNCTION_PHASE = {word: phase for phase, words in SIGNALS.function_phases.items() for word in words}


def _defines_training_step(found: dict[str, list[Node]]) -> bool:
    """A function named for a training step, or a class derived from a trainer (`class Seq2SeqTrainer(Trainer):`)."""
    loop = SIGNALS.training_loop
    if any(parsing.text(name) in loop.defines for name in found.get("function_name", [])):
        return True
    for cls in found.get("class", []):
        bases = cls.child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None else []:
            if base.type in {"identifier", "attribute"} and parsing.text(base).rsplit(".", 1)[-1].endswith(
                    tuple(loop.base_suffixes)):
                return True
    return False


def _phase_functions(names: list[Node]) -> list[tuple[str, int, int]]:
    """(phase, first line, last line) of each function whose name ends with a word of a phase (`_forward_inference`,
    `generate`, `train`): a word inside the name says less (`infer_init_method`, `add_distributed_training_args`)."""
    result = []
    for name in names:
        last = parsing.text(name).lower().rstrip("_").rsplit("_", 1)[-1]  # the last word of the name
        phase = FUNCTION_PHASE.get(last) if last else None
        if phase is not None:
            definition = name.parent
            result.append((phase, definition.start_point.row + 1, definition.end_point.row + 1))
    return result


def module_name(path: str) -> str:
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def collect_python(unit: Unit, import_reach: ImportReach | None = None,
                   versions: VersionReader | None = None) -> PhaseFacts:
    facts = PhaseFacts(path=unit.path, module=module_name(unit.path), notebook=unit.cell is not None)
    found = query_set.unit_captures(unit, QUERY_KEY)
    definitions = query_set.unit_captures(unit, DEFINITIONS_QUERY)
    package = facts.module.rsplit(".", 1)[0] if "." in facts.module else ""
    if PurePosixPath(unit.path).name == "__init__.py":
        package = facts.module
    sites: list[tuple[str, Node | None]] = []  # (module, the statement importing it)
    for node in found.get("import", []):
        sites.append(("".join(parsing.text(node).split()), _statement(node)))
    facts.plain_imports = sorted({module for module, _ in sites})
    for node in found.get("from_module", []):
        text = "".join(parsing.text(node).split())
        module = _absolute(text, package)
        statement = node.parent  # `from pkg import sub` may import the submodule pkg.sub
        sites.append((module, statement))
        if statement is not None and b"*" in statement.text and any(c.type == "wildcard_import" for c in statement.children):
            facts.star_imports.append(module)
        for name in statement.children_by_field_name("name") if statement is not None else []:
            sites.append((f"{module}.{parsing.text(name).split(' as ')[0].strip()}".strip("."), statement))
    facts.imports = [module for module, _ in sites]
    # A module imported at the module's top level runs wherever this file does: no guard to read for it.
    top = {m for m, statement in sites if statement is not None and statement.parent is not None
           and statement.parent.type == "module"}
    facts.nested_imports = sorted({m for m, _ in sites if m not in top})
    reaches: dict[str, set[str]] = defaultdict(set)
    if import_reach is not None:
        statement_reach: dict[int, str] = {}  # a statement importing several names is read once
        for module, statement in sites:
            if module in top or statement is None:
                continue
            reach = statement_reach.get(statement.id)
            if reach is None:
                reach = statement_reach[statement.id] = import_reach(unit, statement)
            reaches[module].add(reach)
    facts.guarded_imports = {m: min(r) for m, r in reaches.items() if "runs" not in r}
    if facts.guarded_imports:
        facts.import_fallbacks = _import_fallbacks(sites, facts.guarded_imports)
    if unit.cell is None:  # a notebook's cells share their names: read per file, not per cell
        facts.helper_imports = _helper_imports(sites, top)
        if "except" in unit.source.text:
            facts.caught_calls = _caught_calls(unit, sites)
        facts.gated_handles = gated_handles(unit.tree(), unit.source.text)
        facts.backend_selectors = file_selectors(unit.tree(), unit.source.text)
        facts.platform_methods = platform_methods(unit.tree(), unit.source.text)
    if "sys.argv" in unit.source.text:  # a build script's arms a plain install takes, unless a flag is given
        facts.argv_opt_out_arms = opt_out_arms(unit.tree())
    if "cuda" in unit.source.text or "nccl" in unit.source.text:  # dict entries whose key nothing else spells
        facts.unread_keys = unread_keys.entries(unit.tree(), unit.source.text)
    defaults = [d for d in found.get("device_default", []) if "cuda" in parsing.text(d)]
    if defaults:
        facts.overridden_defaults, facts.device_defaults, facts.method_defaults = _overridden_defaults(
            defaults, _calls(unit) + _methods(unit))
    facts.method_passed = _method_passed(_methods(unit))
    facts.starts_process_group = process_groups.starts_group(
        lambda: (parsing.text(c) for c in _calls(unit) + _methods(unit)), facts.imports, unit.source.data)
    facts.process_arms = process_groups.gated_arms(unit.tree(), unit.source.text)
    fields = [a for a in found.get("device_field", []) if a.child_by_field_name("right") is not None
              and "cuda" in parsing.text(a.child_by_field_name("right"))]
    if fields:
        facts.device_defaults += _field_defaults(fields, unit.imports())
    defined = _module_functions(unit)
    if defined:
        called = {c.text for c in _calls(unit)}  # as bytes: most are never compared
        for name in defined:
            function = name.parent
            if name.text not in called and function is not None:
                facts.exported_functions.append((parsing.text(name), function.start_point.row + 1, function.end_point.row + 1))
    module = symbols.unit_statements(unit)
    facts.top_level_code = _runs_at_top_level(module)
    facts.settings_only = is_config_module(module)
    facts.config_module = facts.top_level_code and facts.settings_only
    facts.config_settings = unread_settings.settings(module, facts.config_module)
    facts.config_bases = config_bases(module)
    guards = [c for c in found.get("condition", []) if "__name__" in parsing.text(c) and "__main__" in parsing.text(c)]
    facts.main_guard = bool(guards)
    block = guards[0].parent if guards else None
    if block is not None and block.type == "if_statement" and block.parent is not None and block.parent.type == "module":
        facts.main_block = (block.start_point.row + 1, block.end_point.row + 1)
        facts.reference_checks = reference_checks(unit, facts.main_block)
        facts.main_demo = runs_demo(unit, facts.main_block)
    if unit.cell is None:  # a notebook's cells call each other's functions
        facts.uncalled_functions = uncalled_functions(unit, facts.imports, facts.main_guard or facts.top_level_code)
        facts.dict_built = dict_built_classes(unit)
    if found.get("patched") and defined:
        facts.patch_installers = _patch_installers(unit, defined, found["patched"], facts.main_block)
    facts.choices = _choices(found.get("condition", []))
    # a call of add_argument and a @dataclass decorator spell their names: most files have neither
    declarations = _add_argument_calls(_methods(unit)) if "add_argument" in unit.source.text else []
    facts.options, facts.option_arms = _options(declarations, found.get("switch", []) + found.get("truth", [])
                                                + found.get("read_switch", []))
    facts.option_values = _string_options(declarations)
    if declarations:
        from ascend_feasibility.analyzer.context.switches import option_choices, option_none_default
        facts.option_choices = [listed for listed in map(option_choices, declarations) if listed is not None]
        facts.option_nones = [found for found in map(option_none_default, declarations) if found is not None]
    for cls in found.get("decorated_class", []) if "dataclass" in unit.source.text else []:
        options, values = dataclass_options(cls)
        facts.options += options
        facts.option_values += values
    facts.option_value_arms, facts.option_else_arms, facts.option_literals = _option_value_arms(found.get("condition", [])
        + found.get("keyword_test", []) + [c for c in found.get("switch", []) + found.get("truth", [])
                                           if c.type in {"identifier", "attribute"}])
    facts.parameter_arms = _parameter_arms(found.get("condition", []) + [
        c for c in found.get("switch", []) + found.get("truth", []) if c.type in {"identifier", "attribute"}])
    facts.option_keywords = _option_keywords(found.get("keyword_value", []))
    if "Enum" in unit.source.text:
        from ascend_feasibility.analyzer.context.option_reads import enum_members
        facts.enum_members = enum_members(unit.tree())
    if found.get("attribute_store"):
        from ascend_feasibility.analyzer.context.config_paths import path_reads, path_writes
        from ascend_feasibility.knowledge import load_context_conventions
        facts.path_writes = path_writes(found["attribute_store"],
                                        frozenset(load_context_conventions().opt_in.argument_objects))
        facts.path_reads = path_reads(found["attribute_store"])
    if found.get("condition") and unit.cell is None:
        facts.edited_names = literal_flags.edited_names(unit.tree(), found["condition"])
        if versions is not None:  # names written only in arms a version test rules out at the target
            facts.edited_names += version_arms.version_edited_names(unit.tree(), found["condition"], versions)
    if "environ" in unit.source.text:
        from ascend_feasibility.knowledge import load_context_conventions
        facts.env_carriers = env_options.carriers(unit.tree(), frozenset(load_context_conventions().opt_in.argument_objects))
    if unit.cell is None:
        facts.env_table_off = env_switches.table_off(unit.tree(), unit.source.text)
        facts.env_table_arms = env_switches.table_arms(
            found.get("switch", []) + found.get("truth", []) + found.get("grouped", []), unit.source.text)
    if facts.option_arms or facts.option_value_arms or facts.option_else_arms:
        from ascend_feasibility.analyzer.context.option_markers import marker_arms
        ranges = [(a[0], a[1]) for a in (*facts.option_arms, *facts.option_value_arms, *facts.option_else_arms)]
        facts.marker_arms = marker_arms(unit.tree(), unit.source.data, ranges)
    by_default = unpassed_defaults.read(unit.tree(), unit.source.text, found.get("condition", []) + found.get("switch", [])
                                        + found.get("truth", []),
                                        found.get("assert", []), _calls(unit), _methods(unit),
                                        query_set.unit_captures(unit, ATTRIBUTE_CALLS_KEY), definitions.get("class", []),
                                        lambda: query_set.unit_captures(unit, ESCAPES_KEY), found.get("attribute_store", []),
                                        query_set.unit_captures(unit, FORWARDED_KEY).get("value", []))
    facts.default_arms, facts.default_calls, facts.default_escaped = by_default.arms, by_default.calls, by_default.escaped
    facts.default_taken = by_default.taken
    facts.default_none_arms = by_default.none_arms
    facts.default_arm_calls = by_default.arm_calls
    facts.default_registered = by_default.registered
    facts.default_recorded = by_default.recorded
    facts.default_escaped += sorted({unpassed_defaults.NAMED + parsing.text(n) for n in found.get("class_string", [])})
    facts.default_reads = by_default.reads
    facts.default_hops, facts.default_foreign = by_default.hops, by_default.foreign
    facts.default_option_keywords = by_default.option_keywords
    facts.default_forwards = by_default.forwards
    facts.default_passed = by_default.passed
    facts.module_strings = [(parsing.text(n), n.start_point.row + 1) for n in found.get("dotted", [])[:MAX_MODULE_STRINGS]]
    if unit.cell is None:  # a notebook's lines are its cells'
        facts.dead_stores = dead_stores(module)
        facts.unbuildable_classes = unbuildable_classes(module, unit.source.data)
        facts.overwritten_arguments = overwritten_arguments(module, unit.source.data, _calls(unit))
        facts.unread_stores = stored_unread(module, unit.source.data)
        facts.kept_instances = kept_instances(module, unit.source.data, found.get("built_variable", []),
                                              found.get("built_class", []))
        facts.phase_functions = _phase_functions(definitions.get("function_name", []))
        if mentions_metric(unit.source.text):  # most files define no metric class or function
            lines = metric_class_lines(unit.tree()) + metric_function_lines(unit.tree(), definitions.get("function_name", []))
            facts.phase_functions += [(METRIC_PHASE, first, last) for first, last in lines]
        facts.plugin_tables = plugin_registries.string_tables(unit.tree())
        facts.loads_by_name = plugin_registries.loads_by_name(unit.source.text)
    if PurePosixPath(unit.path).name == "__init__.py":
        facts.lazy_submodules = _lazy_submodules(unit, facts.module)
        if facts.lazy_submodules and lazy_tables.LAZY_LOADER in unit.source.text:
            facts.lazy_names = lazy_tables.lazy_names(unit.tree())
    facts.commented_imports = commented_imports(unit.tree(), lambda module: _absolute(module, package))
    if ".register(" in unit.source.text:  # most files register nothing
        facts.registrations = _registrations(unit.source.text, _methods(unit), sites)
    facts.extension_loads = _extension_loads(unit)
    # the tree walk answers only a TorchScript export's question (host_exports), which few projects ask: a plain
    # module whose bytes may name a device is read again at project time if asked; a notebook cell now
    may = host_exports.may_select(unit.source.data)
    lazy = unit.kind == "python" and unit.cell is None
    facts.selects_device = (None if lazy else host_exports.selects_device(unit.tree(), unit.source.data)) if may else False
    evidence = {phase: 0 for phase in PHASES}
    # Resolving every name is the costly part; a file importing nothing phase-related has no qualified signal.
    # a library trainer's package (mmengine, detectron2) too: its runner is built and run there, though its import
    # alone is no workload signal (a dataset script reading detectron2's metadata)
    resolve = unit.shared_imports is not None or any(name.split(".")[0] in SIGNAL_ROOTS or name.split(".")[0] in
                                                     TRAINER_ROOTS for name in facts.imports)
    layers: list[tuple[int, str]] = []  # (start byte, torch.nn layer type) of every layer reference
    trainers: list[Node] = []  # calls building a library's trainer
    cudnn = resolve and cudnn_ops.may_name(unit.source.data)
    for reference in unit_references(unit) if resolve else ():
        name = reference.name
        if reference.call is not None and library_trainer(name):
            trainers.append(reference.call)
        if cudnn and not facts.cudnn_ops:
            facts.cudnn_ops = cudnn_ops.is_cudnn_op(name)
        if name.startswith(LIBRARY_MODELS) and name not in facts.model_refs:
            facts.model_refs.append(name)
        for phase, prefixes in PHASE_NAMES.items():
            if name.startswith(prefixes):
                evidence[phase] += 1
        if name.startswith(LAYER_PREFIX) and name.count(".") == 2 and name.rsplit(".", 1)[-1][:1].isupper():
            layers.append((reference.node.start_byte, name.rsplit(".", 1)[-1]))
    strings = {parsing.text(node) for node in found.get("string_content", [])}
    facts.config_refs = sorted(t for t in strings if _is_config_name(t))
    shipped = {node.id for node in shipped_strings(unit)}  # package data: listed, not built
    refs = {parsing.text(node) for node in found.get("string_content", []) if node.id not in shipped}
    refs = {t for t in refs if _is_source_ref(t)}
    arms: dict[str, list[str | None]] = {}  # a ref → the env arm of each string naming it (None: reached otherwise)
    ref_starts: dict[str, list[int]] = {}  # a ref → the start bytes of the strings naming it
    reads_env = any(word in unit.source.text for word in ("getenv", "environ", "argv"))  # env_arm's switches
    for node in found.get("string_content", []):  # a source pattern built with os.path.join: its joined path
        if node.id in shipped:
            continue
        value = parsing.text(node)
        named = value if value in refs else None
        if value.endswith(NATIVE_SUFFIXES):
            joined = joined_path(node)
            if joined is not None and _is_source_ref(joined):
                refs.add(joined)
                named = joined
        if named is not None:
            arms.setdefault(named, []).append(env_arm(node) if reads_env else None)
            ref_starts.setdefault(named, []).append(node.start_byte)
    # a builder collecting its sources by walking a folder names that folder, resolved from its own (never above root)
    refs.update(f for f in (within_root(PurePosixPath(unit.path).parent / w) for w in walked_folders(unit)) if f)
    facts.source_refs = sorted(refs)
    facts.unhooked_loaders = unhooked_loaders(unit, ref_starts)
    facts.switched_source_refs = {ref: whys[0] for ref, whys in sorted(arms.items()) if all(whys)}
    backward = stepped = False
    for node in _methods(unit):
        name = parsing.text(node)
        if name in PHASE_OF_METHOD:
            evidence[PHASE_OF_METHOD[name]] += 1
        if name == "step" and "opt" in parsing.text(node.parent.child_by_field_name("object")).lower():
            evidence["training"] += 1
            stepped = True
        backward = backward or name == "backward"
    facts.calls_backward = backward
    runs = trainer_runs(trainers)
    facts.training_loop = (backward and stepped) or _defines_training_step(definitions) or bool(runs & TRAINING_RUNS)
    for method in runs & RUN_PHASES.keys():  # a library trainer's evaluation or prediction run serves that phase
        evidence[RUN_PHASES[method]] += 1
    for cls in definitions.get("class", []):
        model = _model_class(cls, unit, layers)
        if model is not None:
            facts.models.append(model)
            if AUTOGRAD_FUNCTION in model.bases and model.backward:  # a hand-written backward serves training
                evidence["training"] += 1
    facts.evidence = {phase: count for phase, count in evidence.items() if count}
    # `os.system("python other.py --flag")`: the flags it passes, as a shell launcher's (command_strings.py)
    for words in command_words(unit.tree(), unit.source.text):
        facts.launch_flags += [w.split("=", 1)[0] for w in words if w.startswith("--")][:MAX_CHOICES]
        facts.launch_values += _launch_values(words)[:MAX_CHOICES]
    return facts


SCRIPT_STATEMENTS = {"for_statement", "while_statement", "with_statement"}


def _patch_installers(unit: Unit, defined: list[Node], patched: list[Node],
                      main_block: tuple[int, int] | None) -> list[tuple[str, int, int, tuple[tuple[str, int, int], ...]]]:
    """InternVL's `def replace_llama_attn_with_flash_attn(): LlamaAttention.forward = forward`: the installer and the
    module-level functions it installs that this file runs no other way (a call outside installers, the main block
    and the functions only the main block calls, such as the self-test `test()` that calls `forward` directly)."""
    functions = {parsing.text(name): name.parent for name in defined if name.parent is not None}
    lines = {name: (node.start_point.row + 1, node.end_point.row + 1) for name, node in functions.items()}

    def owner(node: Node) -> str | None:  # the module-level function holding a node
        return next((name for name, (start, end) in lines.items() if start <= node.start_point.row + 1 <= end), None)

    installs: dict[str, set[str]] = defaultdict(set)  # installer → the functions it assigns to attributes
    for value in patched:  # most are `self.x = x` in methods: the name test comes first
        name = parsing.text(value)
        installer = owner(value) if name in functions else None
        if installer is not None and installer != name:
            installs[installer].add(name)
    if not installs:
        return []
    in_main = (lambda node: main_block is not None and main_block[0] <= node.start_point.row + 1 <= main_block[1])
    calls = defaultdict(list)  # called name → the module-level function holding the call ("" at the top level)
    for call in _calls(unit):
        calls[parsing.text(call)].append("__main__" if in_main(call) else owner(call) or "")
    main_only = {name for name in functions if calls.get(name) and set(calls[name]) == {"__main__"}}
    quiet = set(installs) | main_only | {"__main__"}
    result = []
    for installer, names in sorted(installs.items()):
        if calls.get(installer):
            continue  # this file installs the patch itself
        kept = tuple((name, *lines[name]) for name in sorted(names)
                     if all(where in quiet or where == name for where in calls.get(name, [])))
        if kept:
            result.append((installer, *lines[installer], kept))
    return result


def _module_functions(unit: Unit) -> list[Node]:
    """The names of the module-level functions, decorated or not (read from the module's own statements: a query
    pattern anchored at the module costs a tenth of the whole query). Read once per unit."""
    cached = unit.cache.get("module_functions")
    if cached is not None:
        return cached
    names = unit.cache["module_functions"] = []
    for _, function in symbols.unit_statements(unit).functions:
        name = function.child_by_field_name("name")
        if name is not None and name.type == "identifier":
            names.append(name)
    return names


def _runs_at_top_level(module: ModuleStatements) -> bool:
    """Module-level loops, with-blocks or calls, as in scripts like nanoGPT's train.py. A call that only edits the
    import path (`sys.path.insert(0, ROOT)`: knowledge/phases/signals.toml [entries] path_setup_calls) does no work:
    a module whose only top-level calls are such is a module, no script (round 30 port hunk 7)."""
    if any(kind in SCRIPT_STATEMENTS for kind in module.kinds):
        return True
    setup = _path_setup_calls()
    return any(head is not None and head.type == "call" and _callee_text(head) not in setup for head in module.heads)


@functools.cache
def _path_setup_calls() -> frozenset[str]:
    return frozenset(load_phase_signals().entries.path_setup_calls)


def _callee_text(call: Node) -> str:
    """The callee of a call as written, whitespace dropped (`sys.path.insert`)."""
    function = call.child_by_field_name("function")
    return "".join(parsing.text(function).split()) if function is not None else ""



def _import_fallbacks(sites: list[tuple[str, Node | None]], guarded: dict[str, str]) -> dict[str, tuple[int, str]]:
    """Guarded modules every import of which falls back (analyzer/context/import_fallbacks.py) to the same code."""
    from ascend_feasibility.analyzer.context.import_fallbacks import import_fallback

    found: dict[str, tuple[int, str] | None] = {}
    read: dict[int, tuple[int, str] | None] = {}
    memo: dict = {}
    for module, statement in sites:
        if module not in guarded or statement is None or found.get(module, ()) is None:
            continue
        if statement.id not in read:
            read[statement.id] = import_fallback(statement, guarded[module] == "cuda-only-guarded", memo)
        found[module] = read[statement.id] if found.get(module) in (None, read[statement.id]) else None
    return {m: f for m, f in found.items() if f is not None}


def _helper_imports(sites: list[tuple[str, Node | None]], top: set[str]) -> dict[str, str]:
    """Modules imported only inside one module-level function: module → the function's name."""
    found: dict[str, str | None] = {}
    for module, statement in sites:
        if module in top or statement is None or (module in found and found[module] is None):
            continue
        function = statement.parent
        while function is not None and function.type not in {"function_definition", "class_definition", "module"}:
            function = function.parent
        owner = function.parent if function is not None else None
        if owner is not None and owner.type == "decorated_definition":
            owner = owner.parent
        name = function.child_by_field_name("name") if function is not None and function.type == "function_definition" \
            and owner is not None and owner.type == "module" else None
        helper = parsing.text(name) if name is not None else None
        if module not in found:
            found[module] = helper
        elif found[module] != helper:
            found[module] = None  # imported in two places, or once outside a module-level function
    return {m: h for m, h in found.items() if h is not None}


def _caught_calls(unit: Unit, sites: list[tuple[str, Node | None]]) -> dict[str, int]:
    """Names the unit imports by name or defines at its top level, every call of which sits in a try whose handler
    catches an import error and carries on (analyzer/context/import_fallbacks.caught_calls)."""
    from ascend_feasibility.analyzer.context.import_fallbacks import caught_calls

    names = {parsing.text(n) for n in _module_functions(unit)}
    statements = {statement.id: statement for _, statement in sites
                  if statement is not None and statement.type == "import_from_statement"}
    for statement in statements.values():
        for name in statement.children_by_field_name("name"):
            bound = name.child_by_field_name("alias") if name.type == "aliased_import" else name
            if bound is not None:
                names.add(parsing.text(bound))
    calls = query_set.unit_captures(unit, CALLS_KEY).get("called", []) if names else []
    return caught_calls(calls, names)


def _statement(node: Node) -> Node | None:
    while node is not None and node.type not in {"import_statement", "import_from_statement"}:
        node = node.parent
    return node


def _is_source_ref(text: str) -> bool:
    if len(text) >= 300 or "\n" in text or " " in text or "/" not in text:
        return False
    return text.endswith(NATIVE_SUFFIXES) or text.split("/", 1)[0] in NATIVE_FOLDER_HINTS


def _is_config_name(text: str) -> bool:
    return text.endswith(CONFIG_SUFFIXES) and len(text) < 300 and "\n" not in text and " " not in text


def _absolute(module: str, package: str) -> str:
    """`..utils` inside package a.b.c is a.b.utils."""
    if not module.startswith("."):
        return module
    level = len(module) - len(module.lstrip("."))
    parts = package.split(".") if package else []
    parts = parts[: max(len(parts) - (level - 1), 0)]
    rest = module.lstrip(".")
    return ".".join([*parts, rest] if rest else parts)


def _model_class(cls: Node, unit: Unit, layers: list[tuple[int, str]]) -> ModelClass | None:
    imports = unit.imports()
    bases_node = cls.child_by_field_name("superclasses")
    bases = []
    for base in bases_node.named_children if bases_node is not None else []:
        if base.type in {"identifier", "attribute"}:
            bases.append(qualified_name(base, imports) or parsing.text(base))
    if not bases:
        return None
    model = ModelClass(parsing.text(cls.child_by_field_name("name")), unit.path, cls.start_point.row + 1, bases)
    body = cls.child_by_field_name("body")
    for start, layer in layers:
        if body is not None and body.start_byte <= start < body.end_byte:
            model.layers[layer] = model.layers.get(layer, 0) + 1
    for item in body.named_children if body is not None else []:
        definition = item.child_by_field_name("definition") if item.type == "decorated_definition" else item
        if definition is not None and definition.type == "function_definition":
            method = parsing.text(definition.child_by_field_name("name"))
            if method == "forward":
                model.forward_line = definition.start_point.row + 1
            model.backward = model.backward or method == "backward"
    return model


LAUNCH_QUERY = "(command name: (command_name) @name) @command"


def collect_shell(unit: Unit) -> PhaseFacts:
    """Python scripts a shell script or Dockerfile runs: python X.py, torchrun ... X.py, deepspeed X.py, ..."""
    facts = PhaseFacts(path=unit.path)
    found = parsing.captures(parsing.query("bash", LAUNCH_QUERY), unit.tree())
    variables = env_options.shell_values(unit.tree()) if "$" in unit.source.text else {}
    facts.env_carriers = env_options.shell_sets(unit.tree()) if "=" in unit.source.text else []
    for command in found.get("command", []):
        program = parsing.text(command.child_by_field_name("name")).rsplit("/", 1)[-1]
        words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
        if variables:  # `--my_testing $MODEL_TYPE` where the script sets MODEL_TYPE="x070"
            words = [env_options.expand(word, variables) for word in words]
        configs = [w.split("=", 1)[-1] for w in words if _is_config_name(w.split("=", 1)[-1])]
        facts.config_refs += configs
        if program.startswith("python") or program in {"torchrun", "deepspeed", "accelerate"}:
            facts.launched_scripts += [w for w in words if w.endswith(".py")][:1]
            facts.launches.append(_launch(words))
            module, script = facts.launches[-1]
            valued = {flag for flag, _ in _launch_values(words)}
            facts.launch_commands.append((script or module, tuple(sorted(
                {w for w in words if w.startswith("--") and len(w) > 2 and "=" not in w and w not in valued})[:MAX_CHOICES]), tuple(configs)))
            facts.launch_flags += [w.split("=", 1)[0] for w in words if w.startswith("--")][:MAX_CHOICES]
            facts.launch_values += _launch_values(words)[:MAX_CHOICES]
            facts.launch_overrides += _launch_overrides(words)[:MAX_CHOICES]
    if unit.kind == "shell" and "if" in unit.source.text:
        facts.shell_opt_in_arms = shell_opt_ins.arms(unit.tree())
    if unit.kind == "shell" and "--" in unit.source.text:
        facts.script_flags = shell_opt_ins.script_flags(unit.tree())
    if unit.path.endswith(SHELL_NOTE_SUFFIXES):
        facts.unparsed_lines = list(pasted_notes.unparsed_share(unit.tree(), unit.source.data))
    return facts


SHELL_NOTE_SUFFIXES = (".sh", ".bash")


def _launch(words: list[str]) -> tuple[str, str]:
    """(the module after `-m`/`--module`, the first .py word) of one launch command's arguments, "" where absent."""
    module = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in {"-m", "--module"}), "")
    return module, next((w for w in words if w.endswith(".py")), "")


def _overridden_defaults(defaults: list[Node], callees: list[Node]) -> tuple[
        list[tuple[int, str, bool]], list[tuple[int, str, str, int]], list[tuple[int, str, str, int]]]:
    """`def get_mask(..., device="cuda")` whose every call in the file passes `device=`: the default never applies.
    (line, function name, whether the function is module-level); functions called nowhere in the file are left out.
    Second, the defaults of undecorated module-level functions and of module-level classes' __init__, for the
    project's calls: (line, function or class, parameter, position in a call). Third, the same for the other defaults
    of methods (`def get_anchors(self, featmap_sizes, img_metas, device='cuda')`), for the project's calls of the
    method's name; not those of dunder methods or `forward`, which Python or torch.nn.Module.__call__ call with
    arguments no call by name shows."""
    calls: dict[str, list[Node]] = defaultdict(list)
    for callee in callees:
        call = callee.parent if callee.type == "identifier" and callee.parent is not None and callee.parent.type == "call" else None
        if call is None and callee.parent is not None and callee.parent.parent is not None:
            call = callee.parent.parent  # attribute → call
        if call is not None and call.type == "call":
            calls[parsing.text(callee)].append(call)
    result, undecided, methods = [], [], []
    for default in defaults[:200]:
        parameter = default.parent
        name_node = parameter.child_by_field_name("name") if parameter is not None else None
        if name_node is None and parameter is not None and parameter.named_children:
            name_node = parameter.named_children[0]
        function = parameter.parent.parent if parameter is not None and parameter.parent is not None else None
        if name_node is None or function is None or function.type != "function_definition":
            continue
        if not _inert_default(default):
            continue
        function_name = parsing.text(function.child_by_field_name("name"))
        uses = calls.get(function_name, [])
        parameter_name = parsing.text(name_node)
        parameters = [p for p in parameter.parent.named_children if p.type != "comment"]
        index = next((i for i, p in enumerate(parameters) if p.start_byte == parameter.start_byte), -1)
        first = parsing.text(parameters[0]).split(":")[0].strip() if parameters else ""
        if first in {"self", "cls"}:
            index -= 1  # called as self.method(...)
        callee = module_callee(function) if index >= 0 else None
        if callee is not None:  # the project's calls decide it where this file's do not (or another file imports it)
            undecided.append((default.start_point.row + 1, callee, parameter_name, index))
        if not uses or index < 0 or not all(_passes(call, parameter_name, index) for call in uses):
            if index >= 0 and _method(function) and not function_name.startswith("__") \
                    and function_name not in IMPLICIT_METHODS:
                methods.append((default.start_point.row + 1, function_name, parameter_name, index))
            continue
        owner = function.parent.parent if function.parent is not None and function.parent.type == "decorated_definition" else function.parent
        result.append((default.start_point.row + 1, function_name, owner is not None and owner.type == "module"))
    return result, undecided, methods


def _inert_default(value: Node) -> bool:
    """A default whose evaluation does nothing but build a value: a string, `torch.device("cuda")`, `"cuda" if
    torch.cuda.is_available() else "cpu"`. `device=torch.cuda.current_device()` runs when the `def` does, whatever
    the calls pass (Wan2.1's T5EncoderModel: it raises at import where no CUDA device is), so it stays a site."""
    return all(_last_name(call.child_by_field_name("function")) in INERT_CALLS
               for call in parsing.walk(value, limit=1000) if call.type == "call")


def _last_name(function: Node | None) -> str:
    return parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""


def _method(function: Node) -> bool:
    """A definition in a class body (decorated or not)."""
    holder = function.parent.parent if function.parent is not None and function.parent.type == "decorated_definition" \
        else function.parent
    return holder is not None and holder.type == "block" and holder.parent is not None \
        and holder.parent.type == "class_definition"


def _method_passed(methods: list[Node]) -> dict[str, tuple[int, list[str]]]:
    """method name → (fewest positional arguments, keywords every call passes) over the file's `x.name(...)` calls; a
    call with `*args` knows no position, and a `**kwargs` passes only the keywords it spells beside it (_passes)."""
    passed: dict[str, tuple[int, set[str]]] = {}
    for callee in methods:
        attribute = callee.parent
        call = attribute.parent if attribute is not None and attribute.type == "attribute" else None
        if call is None or call.type != "call" or call.child_by_field_name("function") != attribute:
            continue
        arguments = call.child_by_field_name("arguments")
        children = arguments.named_children if arguments is not None and arguments.type == "argument_list" else []
        splat = any(a.type == "list_splat" for a in children)
        positional = 0 if splat else sum(1 for a in children if a.type not in {"keyword_argument", "comment",
                                                                                  "dictionary_splat"})
        keywords = _keyword_names(call)
        name = parsing.text(callee)
        before = passed.get(name)
        passed[name] = (positional, keywords) if before is None else (min(before[0], positional), before[1] & keywords)
    return {name: (fewest, sorted(keywords)) for name, (fewest, keywords) in passed.items()}


def _field_defaults(fields: list[Node], imports) -> list[tuple[int, str, str, int]]:
    """`device: str = "cuda"` or `device: torch.device = torch.device("cuda")` in the body of a module-level
    `@dataclass`, or `device: torch.device = attr.ib(default=torch.device("cuda"))` in an attrs class (`@attr.s`,
    `@attrs.define`: glide-text2im's CLIP encoders): its constructor's default, for the project's calls (line, class,
    field, position in a call). A class with bases takes its fields after theirs: only a keyword passes the field then,
    unless every base is torch.nn.Module, which has no fields (`imports`: the unit's, to resolve `nn.Module`).
    ClassVar annotations and `field(init=False, ...)` are no parameters; under `@attr.s` without auto_attribs only the
    `attr.ib()` assignments are; another decorator than these (a registry) decides nothing."""
    result = []
    for assignment in fields[:200]:
        block = assignment.parent.parent if assignment.parent is not None else None
        cls = block.parent if block is not None else None
        holder = cls.parent if cls is not None else None
        if cls is None or cls.type != "class_definition" or holder is None or holder.type != "decorated_definition" \
                or holder.parent is None or holder.parent.type != "module":
            continue
        decorators = [d for d in holder.named_children if d.type == "decorator"]
        kind = _field_class(decorators[0], imports) if len(decorators) == 1 else None
        if kind is None:
            continue
        name = cls.child_by_field_name("name")
        own = [s.named_children[0] for s in block.named_children if s.type == "expression_statement"
               and s.named_children and s.named_children[0].type == "assignment"
               and s.named_children[0].child_by_field_name("type") is not None
               and "ClassVar" not in parsing.text(s.named_children[0].child_by_field_name("type"))
               and not _no_init(s.named_children[0].child_by_field_name("right"))
               and (kind != ATTRS_EXPLICIT or _field_call(s.named_children[0].child_by_field_name("right")))]
        if name is None or assignment not in own:
            continue
        index = own.index(assignment) if _fieldless_bases(cls, imports) else MAX_FIELDS
        field_name = parsing.text(assignment.child_by_field_name("left"))
        result.append((assignment.start_point.row + 1, parsing.text(name), field_name, index))
    return result


def _field_class(decorator: Node, imports) -> str | None:
    """How a class decorator makes a constructor of the class body's annotated assignments: "dataclass" (each is a
    parameter), ATTRS_EXPLICIT (`@attr.s` without auto_attribs=True: only the `attr.ib()` ones), ATTRS_AUTO (`@attr.s(
    auto_attribs=True)`, `@attrs.define`, `from attrs import frozen`: each), None for any other decorator."""
    if _decorator_name(decorator) == "dataclass":
        return "dataclass"
    expression = decorator.named_children[0] if decorator.named_children else decorator
    arguments = expression.child_by_field_name("arguments") if expression.type == "call" else None
    function = expression.child_by_field_name("function") if expression.type == "call" else expression
    name = (qualified_name(function, imports) if function.type in {"identifier", "attribute"} else None) or ""
    if name in ATTRS_AUTO_DECORATORS:
        return ATTRS_AUTO
    if name not in ATTRS_DECORATORS:
        return None
    auto = any(a.type == "keyword_argument" and parsing.text(a).replace(" ", "") == "auto_attribs=True"
               for a in (arguments.named_children if arguments is not None else []))
    return ATTRS_AUTO if auto else ATTRS_EXPLICIT


def _field_call(value: Node | None) -> bool:
    """`attr.ib(...)`, `attr.attrib(...)`, `attrs.field(...)`: an attrs field, under `@attr.s` without auto_attribs."""
    return value is not None and value.type == "call" \
        and parsing.text(value.child_by_field_name("function")).rsplit(".", 1)[-1] in FIELD_CALLS


def _fieldless_bases(cls: Node, imports) -> bool:
    """No base, or only torch.nn.Module (whose constructor takes no field): the class's own fields come first."""
    bases = cls.child_by_field_name("superclasses")
    named = [b for b in (bases.named_children if bases is not None else []) if b.type != "comment"]
    return all(b.type in {"identifier", "attribute"} and qualified_name(b, imports) in MODULE_BASES for b in named)


def _no_init(value: Node | None) -> bool:
    """`field(init=False, ...)`, `attr.ib(init=False)`: a field the constructor does not take."""
    if value is None or value.type != "call" or parsing.text(value.child_by_field_name("function")).rsplit(".", 1)[-1] not in FIELD_CALLS:
        return False
    arguments = value.child_by_field_name("arguments")
    return any(a.type == "keyword_argument" and parsing.text(a).replace(" ", "") == "init=False"
               for a in (arguments.named_children if arguments is not None else []))


def _decorator_name(decorator: Node) -> str:
    """`@dataclass`, `@dataclasses.dataclass(frozen=True)`: "dataclass"; the last name of any other decorator."""
    expression = decorator.named_children[0] if decorator.named_children else decorator
    if expression.type == "call":
        expression = expression.child_by_field_name("function") or expression
    return parsing.text(expression).rsplit(".", 1)[-1]


def _passes(call: Node, name: str, index: int) -> bool:
    """Does the call pass this parameter, by keyword (whatever a `**kwargs` beside it holds: Hunyuan3D's
    `cls.from_single_file(..., device=device, **kwargs)`, round 26 A2 93) or by position (no *args to hide it)?"""
    if name in _keyword_names(call):
        return True
    arguments = call.child_by_field_name("arguments")
    children = arguments.named_children if arguments is not None else []
    if any(a.type in {"list_splat", "dictionary_splat"} for a in children):
        return False
    positional = [a for a in children if a.type not in {"keyword_argument", "comment"}]
    return name in _keyword_names(call) or len(positional) > index


def _keyword_names(call: Node) -> set[str]:
    arguments = call.child_by_field_name("arguments")
    names = set()
    for argument in arguments.named_children if arguments is not None else []:
        if argument.type == "keyword_argument":
            key = argument.child_by_field_name("name")
            if key is not None:
                names.add(parsing.text(key))
    return names
