"""What every domain scanner receives and returns.

A scanner reads one unit of a file (a module, a notebook cell, a shell script, a Dockerfile, a YAML document)
and returns hits: a rule code, what matched and where. Turning hits into findings (severity, migration kind at
the target torch_npu, texts, effort) is the engine's job, from the knowledge base, so scanners hold no
replacement knowledge of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import yaml
from ascend_feasibility.analyzer.core.models import BILINGUAL, DaysRange, Finding, Report, RuleCalibration, SkippedFile, Text
from ascend_feasibility.analyzer.reading import bounded_yaml, dockerfile, parsing
from ascend_feasibility.analyzer.reading.python_names import CALLS_QUERY, IMPORT_QUERY, ImportTable
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains import query_set, triggers
from ascend_feasibility.domains.shell_python import Embedded, python_strings
from ascend_feasibility.knowledge import KnowledgeBase, Target
from tree_sitter import Node

if TYPE_CHECKING:  # these import this module themselves
    from ascend_feasibility.analyzer.context import ProjectContext
    from ascend_feasibility.analyzer.context.bundled_projects import BundledCopies
    from ascend_feasibility.analyzer.core.findings import FindingFactory
    from ascend_feasibility.analyzer.reading.config import ProjectConfig

# A Python unit's import table is read from its share of the unit's combined query (domains.query_set).
IMPORT_TABLE_QUERY = query_set.register("import_table", IMPORT_QUERY)
# Every call by the name it calls, read by the phase facts and the guard readers alike (analyzer.context.guards).
CALLS_BY_NAME_QUERY = query_set.register("calls", CALLS_QUERY)
# Classes with bases and functions by their name, read by the phase facts (models, phase functions, subclassed names)
# and the device room's Enums and their conversions (domains/device/enum_strings.py).
DEFINITIONS_QUERY = query_set.register(
    "definitions", "(class_definition superclasses: (argument_list)) @class\n(function_definition name: (identifier) @function_name)"
)
register_query = query_set.register  # (key, tree-sitter query source) -> key, for Unit.captures


def bilingual(en: str, zh: str) -> str:
    return f"{en}{BILINGUAL}{zh}"


@dataclass(frozen=True)
class Span:
    """0-based rows, byte columns, as tree-sitter reports them."""

    start_row: int
    start_col: int
    end_row: int
    end_col: int

    @classmethod
    def of(cls, node: Node) -> "Span":
        return cls(node.start_point.row, node.start_point.column, node.end_point.row, node.end_point.column)


def code_context(text: str) -> str | None:
    """"training" or "inference" where a unit's code shows which (a backward pass, an optimizer step, or a module that
    behaves differently while training: `dropout_p=self.dropout if self.training else 0.0`; no_grad, inference_mode,
    generate, eval), else None. A model file that trains elsewhere (its trainer calls backward) and also generates
    under no_grad is training code: the training operator serves inference too, the inference one has no backward."""
    trains = any(token in text for token in (".backward(", "optimizer.step", "zero_grad(", "fwd_bwd", "self.training"))
    infers = any(token in text for token in ("inference_mode", "no_grad", ".generate(", ".eval()"))
    return "inference" if infers and not trains else "training" if trains else None


@dataclass(frozen=True)
class Hit:
    rule: str
    symbol: str
    span: Span
    npu: str | None = None  # the replacement text for this occurrence, when the rule's text uses {npu}
    # transfer_to_npu capabilities that make this occurrence automatic, when they differ from the rule's own
    # (a device literal passed straight to a torch API depends on whether that API is wrapped).
    auto_when: tuple[str, ...] | None = None
    context: str | None = None  # "training" or "inference" where the code shows it
    effort: tuple[float, float] | None = None  # hours, when the occurrence's size decides them (kernels)
    facets: tuple[str, ...] = ()  # what the detector saw at the site, which picks the rule's variant texts


@dataclass
class Unit:
    """One piece of a file that is parsed on its own. `kind` is python, shell, dockerfile or yaml."""

    path: str
    kind: str
    source: SourceText
    cell: int | None = None
    _tree: Node | None = field(default=None, repr=False)
    _imports: ImportTable | None = field(default=None, repr=False)
    shared_imports: ImportTable | None = field(default=None, repr=False)
    cache: dict = field(default_factory=dict, repr=False)  # per-unit results shared by scanners; dropped with the tree
    # Python a shell unit runs as a string, `python -c CODE`: where its bytes sit in the script, what the script does
    # with its output (domains/shell_python.py)
    embedded: Embedded | None = field(default=None, repr=False)

    def tree(self) -> Node:
        if self._tree is None:
            if self.kind == "dockerfile":
                self._tree = parsing.parse("bash", dockerfile.shell_view(self.source.text).encode("utf-8"))
            else:
                grammar = {"python": "python", "shell": "bash", "install-doc": "bash", "cuda": "cuda", "cpp": "cpp"}[self.kind]
                self._tree = parsing.parse(grammar, self.source.data)
        return self._tree

    def imports(self) -> ImportTable:
        """A notebook's cells share one table: an import in an earlier cell binds names in later ones."""
        if self.shared_imports is not None:
            return self.shared_imports
        if self._imports is None:
            self._imports = ImportTable()
            if "import" in self.source.text:  # both import statements spell the keyword
                self._imports.add_captures(query_set.unit_captures(self, IMPORT_TABLE_QUERY))
        return self._imports

    def import_statements(self) -> list[Node]:
        """The import and from-import statements of this Python unit in source order, from its combined query (what
        a query of `[(import_statement) (import_from_statement)]` over its tree gives)."""
        found = query_set.unit_captures(self, IMPORT_TABLE_QUERY)
        return sorted(found.get("import", []) + found.get("import_from", []), key=lambda statement: statement.start_byte)

    def yaml_documents(self) -> list:
        """The documents of a YAML or JSON unit (bounded_yaml.compose_all), composed once for the config scanner and
        the phase facts' true keys alike; the error it raised (yaml.YAMLError, ValueError) is raised to each."""
        found = self.cache.get("yaml_documents")
        if found is None:
            try:
                found = bounded_yaml.compose_all(self.source.text, self.kind == "json")
            except (yaml.YAMLError, ValueError) as exc:
                found = exc
            self.cache["yaml_documents"] = found
        if isinstance(found, Exception):
            raise found
        return found

    def plan_queries(self, keys: set[str]) -> None:
        """The combined-query keys (domains.query_set) this unit will be asked for: one query answers them all."""
        query_set.plan(self, keys)

    def captures(self, key: str) -> dict[str, list[Node]]:
        """The captures of a registered query over this unit's tree, each list in source order."""
        return query_set.unit_captures(self, key)

    def called_names(self) -> frozenset[str]:
        """The qualified names this Python unit calls through its imports (`torch.use_deterministic_algorithms`)."""
        from ascend_feasibility.domains.python_refs import unit_references  # it builds on this module

        return frozenset(r.name for r in unit_references(self) if r.call is not None)

    def python_strings(self) -> list["Unit"]:
        """The Python units of a shell unit's `python -c CODE` strings, none for other kinds."""
        text = self.source.text
        if self.kind not in {"shell", "dockerfile"} or "python" not in text or not any(
                mark in text for mark in ("c ", "c'", 'c"', "<<")):  # -c CODE, or a here-document
            return []
        return [Unit(self.path, "python", embedded.source, cell=self.cell, embedded=embedded)
                for embedded in python_strings(self.tree(), self.source)]

    @property
    def parsed(self) -> bool:
        return self._tree is not None

    def release_tree(self) -> None:
        self._tree = None
        self.cache.clear()


class Scanner:
    """A domain scanner. Subclasses set the class attributes and implement `scan`."""

    domain: ClassVar[str]
    kinds: ClassVar[frozenset[str]]
    # The scanner only runs on a unit whose text contains one of these (a cheap pre-filter before parsing).
    triggers: ClassVar[tuple[str, ...]]

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        triggers.register(getattr(cls, "triggers", ()))

    def __init__(self, kb: KnowledgeBase, target: Target) -> None:
        self.kb = kb
        self.target = target

    def wants(self, unit: Unit) -> bool:
        if unit.kind not in self.kinds:
            return False
        return not triggers.present(unit.source.text, unit.cache).isdisjoint(self.triggers)

    def query_keys(self, unit: Unit) -> set[str]:
        """The keys of the combined Python query (domains.query_set) a scan of this unit asks for."""
        return set()

    def scan(self, unit: Unit) -> list[Hit]:
        raise NotImplementedError


class UnitUnreadable(Exception):
    """A scanner could not read its unit (a YAML document that does not compose, say): the message says where and
    why, and the file is listed as skipped with it rather than as a scanner failure."""


UNREAD_BASE = "?"  # a config `_base_` entry its reader cannot resolve: what the config inherits is unknown


class ModuleFacts(Protocol):
    """What the project context reads of one file's facts to settle reach (analyzer/context/propagation.py): the
    import graph, imports made behind guards, functions the module exports, defaults its callers override and native
    sources it names. The
    room that collects them says so with `Domain.provides_modules`."""

    path: str
    module: str
    imports: list[str]
    nested_imports: list[str]  # imported by no unconditional module-level statement
    extension_loads: list[str]  # compiled extensions it loads by name at its top level (load_ext('_ext', ...))
    guarded_imports: dict[str, str]
    import_fallbacks: dict[str, tuple[int, str]]  # guarded module → (the guard's line, what the code falls back to)
    helper_imports: dict[str, str]  # module → the one module-level function that imports it
    caught_calls: dict[str, int]  # names every call of which is in a try whose handler carries on → its line
    gated_handles: list[tuple]  # names bound to an extension only CUDA arms with a PyTorch other arm reach (cuda_arms.py)
    backend_selectors: dict[str, tuple[str, int]]  # module-level backend selectors → (value on Ascend, line)
    # platform classes' methods: (class, accelerator, line, method, dotted strings, every return a string)
    platform_methods: list[tuple[str, str, int, str, tuple[str, ...], bool]]
    exported_functions: list[tuple[str, int, int]]
    # monkey-patch installers: (installer, first line, last line, ((installed function, first, last), ...))
    patch_installers: list[tuple[str, int, int, tuple[tuple[str, int, int], ...]]]
    overridden_defaults: list[tuple[int, str, bool]]
    device_defaults: list[tuple[int, str, str, int]]  # "cuda" defaults the project's calls decide (line, callee, ...)
    method_defaults: list[tuple[int, str, str, int]]  # those of methods: (line, method, parameter, position)
    method_passed: dict[str, tuple[int, list[str]]]  # per method name: fewest positional, keywords every call passes
    source_refs: list[str]  # native sources or their folders named in strings (builders)
    switched_source_refs: dict[str, str]  # those every naming string of which an unset environment variable leaves off
    unhooked_loaders: list[tuple]  # extension loaders called only in comments (phases/unhooked_loaders.py)
    uncalled_functions: list[tuple[str, int, int]]  # a script's functions its own code never names (comments aside)
    dict_built: list[tuple[str, int, int, str, str]]  # classes built only by name from a shipped dict it does not name
    main_guard: bool  # has `if __name__ == "__main__":`
    main_demo: bool  # that block runs a demo, a smoke test or a benchmark of the module (random inputs, demo calls)
    top_level_code: bool  # runs work at import time (a script without a __main__ guard)
    evidence: dict[str, int]  # phase → signals (training: backward, optimizer steps ...)
    main_block: tuple[int, int] | None  # the lines of that block, when it is at the module's top level
    reference_checks: list[str]  # check functions comparing with a reference its main block calls (test scripts)
    launched_scripts: list[str]  # shell: python/torchrun ... SCRIPT.py
    launches: list[tuple[str, str]]  # shell: each launch command's (module after -m, first .py word), "" if none
    unparsed_lines: list[int]  # shell: [lines bash cannot read, non-blank lines] (pasted_notes.py), [] elsewhere
    choices: list[tuple[str, int, str, bool]]  # string values an if/elif chain compares with (opt-in modules)
    module_strings: list[tuple[str, int]]  # strings naming dotted modules (modules loaded by name)
    options: list[tuple[str, bool, str, int]]  # command-line options declared: (dest, off by default, flag, line)
    option_arms: list[tuple[int, int, str, str]]  # arms a command-line option turns on: (first, last, dest, condition)
    option_values: list[tuple[str, str, int]]  # options with a string default: (dest, the default, line)
    option_choices: list[tuple[str, tuple[str, ...]]]  # options declared with a list of choices: (dest, the choices)
    dead_stores: list[tuple[int, int, str]]  # module-level bindings bound again before any read: (first, last, why)
    unbuildable_classes: list[tuple[int, int, str]]  # classes whose __init__ reads a name the file never binds
    overwritten_arguments: list[tuple[int, int, str]]  # string arguments the callee overwrites before reading
    unread_stores: list[tuple[str, str, int, int]]  # (class, attribute, first, last) of stores the file never reads
    kept_instances: list[str]  # classes whose instances the file builds and uses only as attributes' objects
    # arms an option holding one of some strings takes: (first, last, dest, the strings, condition)
    option_value_arms: list[tuple[int, int, str, tuple[str, ...], str]]
    # the else of a chain every arm of which tests one option: (first, last, dest, the strings the arms before take,
    # condition)
    option_else_arms: list[tuple[int, int, str, tuple[str, ...], str]]
    option_literals: list[tuple[str, str]]  # (dest, a literal a local holding the option is also bound to)
    path_writes: list[tuple[str, str, int]]  # (config path, what it is set to, line): config_paths.path_writes
    path_reads: list[tuple[int, str]]  # (line, config path) of assignments of a config's value: config_paths.path_reads
    marker_arms: list[tuple[int, int, tuple[int, ...], str]]  # arms a value only option arms set decides
    launch_flags: list[str]  # shell: options a launch command passes
    launch_values: list[tuple[str, str]]  # shell: (option, value) a launch command passes
    launch_overrides: list[tuple[str, str]]  # shell: hydra-style `++a.key=value` overrides: (key, value)
    shell_opt_in_arms: list[tuple[int, int, str, str, str]]  # shell: arms an opt-in variable decides (shell_opt_ins)
    script_flags: list[tuple[str, str]]  # shell: (flag, value) a command running a shell script passes
    argv_opt_out_arms: list[tuple[int, int, str, int]]  # Python build script: arms a flag leaves out (argv_opt_outs)
    unread_keys: list[tuple[int, str]]  # Python: (line, key) of dict entries whose key the file spells only there
    config_module: bool  # its top level only imports and binds settings (domains/phases/config_modules.py)
    config_bases: list[str]  # a config module's `_base_` entries (config_modules.config_bases; UNREAD_BASE: unknown)
    settings_only: bool  # its top level only imports and binds settings, run or not (config_modules.is_config_module)
    config_settings: list[tuple[int, int, str]]  # a config module's top-level mapping settings (unread_settings.py)
    launch_commands: list[tuple[str, tuple[str, ...], tuple[str, ...]]]  # shell: (script, value-less flags, configs)
    config_refs: list[str]  # config files named in strings or launch arguments
    env_carriers: list[tuple[str, str]]  # environment variables set: (name, `@dest`, `=value` or `?`)
    env_table_off: list[str]  # keys of a table of environment variables, off while unset (env_switches.table_off)
    env_table_arms: list[tuple[int, int, str, str, str]]  # arms a test of such a key decides (env_switches.table_arms)
    true_keys: list[str]  # YAML/JSON: keys set to true
    true_literals: list[tuple[str, str, int]]  # Python: (callee or "", S, line) of `S=True` / `'S': True`
    lazy_submodules: list[str]  # a package __init__.py's submodules loaded lazily by name (_LazyModule tables)
    lazy_names: list[tuple[str, str]]  # its _LazyModule table: (exported name, relative submodule) (lazy_tables.py)
    plugin_tables: list[list[str]]  # keys of module-level string-to-string tables (plugin_registries.py)
    loads_by_name: bool  # calls import_module( or __import__( (plugin_registries.py)
    # classes registered under a string key: (key, class, its module, names imported from it, line, registry)
    registrations: list[tuple[str, str, str, tuple[str, ...], int, str]]
    default_arms: list[tuple[int, int, str, str, int, str, str, bool]]  # arms a parameter's default decides
    default_taken: list[tuple[str, str, int, str, str, tuple[str, ...]]]  # arms a default takes, their calls
    default_none_arms: list[tuple[int, int, str, str, str]]  # `if device is None:` arms spelling "cuda" a None default takes
    default_calls: dict[str, tuple[int, int, list[str], bool]]  # calls of the names the file binds, by shape
    default_escaped: list[str]  # names the file passes as values or subclasses
    default_passed: dict[str, tuple[int, list[str]]]  # per bound name: fewest positional, keywords every call passes
    default_arm_calls: list[tuple[int, int, str, int, int, int]]  # own functions called in those arms, their lines
    default_registered: list[str]  # classes registered under a string key (built by name from a launch string)
    default_reads: list[tuple[str, str, int, tuple[int, ...]]]  # string defaults: their lines, their non-comparing reads
    default_hops: list[tuple[int, int, str, str]]  # arms decided through self.<attribute> (attribute_hops.py)
    default_foreign: list[str]  # attribute names stored or called on objects other than self ("store:x", "call:x")
    option_nones: list[tuple[str, str]]  # command-line options whose value is None unless given: (dest, long flag)
    default_option_keywords: list[tuple[str, str, str]]  # (callee, keyword, dest) of `gpu_id=args.gpu_id` keywords
    default_forwards: list[tuple[str, str, str, str, int, str]]  # (callee, keyword, caller, parameter, index, default) of `x=x`
    star_imports: list[str]  # modules imported with `from module import *`
    plain_imports: list[str]  # modules an `import m` / `import m as a` statement names (it binds them)
    parameter_arms: list[tuple[int, int, str, tuple[str, ...], str, str, int]]  # switches.parameter_value_arm
    starts_process_group: bool  # calls init_process_group or the like, or imports a framework that does
    process_arms: list[tuple[int, int, str]]  # arms needing dist.is_initialized() (analyzer/context/process_groups.py)
    commented_imports: list[tuple[str, int]]  # (module, line) of commented-out import lines (`# from .m import X`)
    unnamed_symbols: list[tuple[str, int, int, str]]  # module-level functions/classes the file never names again
    inner_named: list[tuple[str, int, int, str, list[str]]]  # named only inside other module-level definitions (which;
    # written_names.MAIN_BLOCK_USER for the module's `if __name__ == "__main__":` block)
    registered_symbols: list[tuple[str, str, list[str]]]  # (name, registry, other names) of registry-registered ones
    fallback_definitions: list[tuple[str, int, int, str]]  # (module, first, last, name) only a failed import defines
    reexports: list[str]  # names a package __init__.py imports and writes nowhere else but in __all__
    extension_users: list[tuple[str, int, int]]  # (extension, first, last): definitions calling a swallowed `from . import x_ext`
    caught_import_users: list[tuple[str, int, tuple[str, ...]]]  # (module, line, definitions only a caught import reaches)
    imported_name_lines: list[tuple[str, str, tuple[int, ...]]]  # (module, name, lines) of `from module import name`
    imported_users: list[tuple[str, list[str]]]  # names it imports and writes only inside its module-level definitions
    copy_units: list[tuple[str, int, int, str, bool, str]]  # a vendored copy's module's units (copy_reach.py)
    dynamic_lookups: list[str]  # objects of `getattr(obj, name)` with a non-literal name (copy_reach.py)
    method_users: list[tuple[str, str, list[str]]]  # (name, class, methods): written in the class only in those methods
    class_shapes: list[tuple[str, list[str], list[str]]]  # (class, bases, methods it overrides without super)
    base_only: list[str]  # names the file writes only as base classes (and in imports, `__all__`)
    uses_later: bool  # method_users and base_only are read at project time: ask class_uses()
    uncalled_methods: list[tuple[str, str, int, int]]  # (class, method, first, last): private, named only in its def
    builds_attribute_names: bool  # defines classes and calls getattr with a name it builds (`"_" + step`)
    edited_names: list[tuple[str, int, str, str]]  # written only in arms a literal constant rules out: (name, line, constant, why)
    words: str  # identifier-like words the file writes (code, strings, comments, configs), each between spaces
    dotted_words: list[str]  # dotted names of three parts or more it writes
    cudnn_ops: bool  # names an operator cuDNN runs (a convolution, an RNN, a CTC loss) or a hub model
    selects_device: bool | None  # its code names a device (analyzer/context/host_exports.py); None: not read yet

    def device_choice(self) -> bool:
        """selects_device, read from the file's bytes at project time where the scan left it open."""
        ...

    def class_uses(self) -> tuple[list[tuple[str, str, list[str]]], list[str]]:
        """(method_users, base_only), read from the file's bytes at project time where `uses_later`."""


@dataclass(frozen=True)
class TargetChoice:
    """The torch_npu release a run targets when the user names none, and why (both languages)."""

    version: str | None  # None: the knowledge base's default release
    reason: Text
    conflicts: list[str]  # "path: specifier" of torch pins that admit none of the chosen requirement's releases
    doc_pin: str | None = None  # "torch==2.4.0 (README.md:259)": the install-document line read where no manifest pins torch
    unread: tuple[str, ...] = ()  # requirements files whose torch pin no install reads: left out of the choice


@dataclass
class FileView:
    """One file as a room's per-file collection sees it, once every scanner has read its units."""

    root: Path
    path: str
    kind: str
    units: list[Unit]
    import_reach: Callable[[Unit, Node], str]  # "runs", or the reach of a guarded import statement
    skipped: list[SkippedFile] = field(default_factory=list)  # problems the collection met, listed in the report


@dataclass
class ProjectRun:
    """What the project-level passes share. The core fills the inputs; each room reads the facts it collected per
    file (`facts[name]`, in path order) and what earlier rooms published, adds findings, and sets report fields."""

    kb: KnowledgeBase
    target: Target
    context: ProjectContext
    factory: FindingFactory
    config: ProjectConfig
    calibration: list[RuleCalibration]
    has_manifest: bool
    choice: TargetChoice
    packages: frozenset[str]  # the import graph's package folders (unloaded.package_folders, the build's source roots read)
    copies: BundledCopies  # the bundled copies of other projects in the tree (bundled_projects.bundled_copies)
    facts: dict[str, list] = field(default_factory=dict)
    paths: tuple[str, ...] = ()  # every file the run found, read or not (the project's layout)
    unscanned: tuple[str, ...] = ()  # folders of git submodules the tree does not hold (reading/submodules.py)
    nested: dict[str, Target] = field(default_factory=dict)  # folder → target of each nested project on its own torch line
    guarded: dict[str, tuple[str, str]] = field(default_factory=dict)  # modules imported only behind guards
    modules: list[ModuleFacts] = field(default_factory=list)  # the import graph's facts (Domain.provides_modules)
    findings: list[Finding] = field(default_factory=list)  # project-level ones first, then every finding
    published: dict[str, Any] = field(default_factory=dict)  # one room's results another reads, by name
    report_fields: dict[str, Any] = field(default_factory=dict)  # Report fields the rooms set


class Domain:
    """One room behind one door: the scanners it runs on units, the facts it keeps per file, and its project-level
    passes. The core iterates the registry (domains/__init__.py) and knows nothing else of a room.

    Passes run in registry order, in two rounds: `add_findings` before the project context settles every finding's
    reach (project-level findings such as the dependency matrix's), `report` after it (inventories, the plan)."""

    name: ClassVar[str]
    scanner_classes: ClassVar[tuple[type[Scanner], ...]] = ()
    facts_type: ClassVar[type | None] = None  # per-file facts, kept in the cache as JSON
    fact_kinds: ClassVar[frozenset[str]] = frozenset()  # file kinds `collect` reads beyond its scanners' kinds
    provides_modules: ClassVar[bool] = False  # its facts are the ModuleFacts the context walks

    def __init__(self, kb: KnowledgeBase, target: Target) -> None:
        self.kb = kb
        self.target = target

    def scanners(self) -> list[Scanner]:
        return [cls(self.kb, self.target) for cls in self.scanner_classes]

    def query_keys(self, unit: Unit) -> set[str]:
        """Keys of the combined Python query (domains.query_set) that `collect` reads of this unit."""
        return set()

    def collect(self, file: FileView) -> Any:
        """This file's facts (an instance of `facts_type`), or None."""
        return None

    def keep(self, facts: Any) -> Any:
        """What the main process keeps of one file's facts until the project-level passes."""
        return facts

    def read_later(self, facts: list, source: Callable[[str], bytes | None]) -> None:
        """Before the project-level passes: `source(path)` gives a file's bytes again, those the scan read (checked
        against the content hash of its result; None where they are no longer those). A room whose per-file facts
        hold back records that the project passes read for a few files only keeps it beside those facts."""

    def choose_target(self, facts: list, project: list | None = None) -> TargetChoice | None:
        """The release to target, from the facts of the project's own build files (a nested project's: its own);
        `project`: the facts of every build file the project's choice reads (how the project installs). None: this
        room has no say."""
        return None

    def add_findings(self, run: ProjectRun) -> None:
        """Project-level findings, appended to `run.findings` before the context settles reach (the core then merges
        them with the scanners' findings)."""

    def report(self, run: ProjectRun) -> None:
        """Report fields (and final findings), after reach is settled."""

    @classmethod
    def effort_left(cls, report: Report, findings: list[Finding]) -> DaysRange | None:
        """The report's required effort over `findings` alone (what `port` left), when this room owns the estimate."""
        return None
