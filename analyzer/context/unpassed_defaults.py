"""A parameter no caller in the project passes keeps its default: the branch the default does not take never runs.

CogVideo's RIFE `Model.__init__(self, local_rank=-1)` wraps its network in DDP under `if local_rank != -1:`, and its
one caller, `Model()`, passes no local_rank: the DDP arm is `optional`. nanotron's `ParallelContext(...,
backend="nccl")` asserts `backend == "nccl"`, and no caller passes backend: the assert passes unchanged on Ascend (the
backend is chosen elsewhere), so its finding is `cosmetic` at info.

This is switches.py's reading of an off-by-default switch (a parameter whose callers leave it off) carried to a
comparison of a parameter with a literal (`!= -1`, `== "nccl"`, `is not None`, `> 0`), with the callers read across the
project, since a constructor is called from other files. Per file (`read`): the arms and asserts such a comparison
decides, and every call of a name the file binds (defines, or imports) with the arguments it passes. Per project
(`unpassed_defaults`): an arm whose function or class every call of which in the project leaves the parameter out or
passes the default literal.

Conservative: nothing is decided for a function or class that may be called from outside what the project shows:
named in any module's `__all__`, defined in a module another one imports with `*`, decorated (a registry, a
command-line entry), subclassed, passed as a value (`partial(Model, ...)`, a registry dict, `getattr(module,
"Model")`), called with `*args`/`**kwargs`, never called, or a parameter the function assigns itself. Module-level
functions and the `__init__` of module-level classes are read by their calls; a method's keyword by the calls of its
name (`x.method(...)`, Forwards.method_kept), and `__call__`'s through module-level instances only called
(instance_calls.py: `apply_openpose = OpenposeDetector()`, `apply_openpose(img, False)`); a class's own `cls(...)` and
`self.__class__(...)` are its calls. Two hops reach further: an `__init__`
default carried into the class's methods through `self.<attribute>` (attribute_hops.py), and a call passing the
parameter as a command-line option that is None unless given (`gpu_id=args.gpu_id`: OptionKeywords). A keyword that
hands a `False` default straight to a call (`load_in_8bit=load_in_8bit,`) is read as an arm of its own line.
"""

from __future__ import annotations

import ast
import bisect
import functools
import operator
from collections import defaultdict
from dataclasses import dataclass, field

import ahocorasick_rs
from ascend_feasibility.analyzer.context import attribute_hops, config_getters, instance_calls
from ascend_feasibility.analyzer.context.switches import _enclosing, _parameter, first_term
from ascend_feasibility.analyzer.context.unloaded import LIVE_ROLES
from ascend_feasibility.analyzer.context.written_names import word_set
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_CONDITIONS = 200
MAX_LITERAL = 100
MAX_BODY_NODES = 20000
LITERAL_TYPES = {"integer", "float", "string", "none", "true", "false", "unary_operator"}
COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
           ">=": operator.ge, "is": operator.is_, "is not": operator.is_not}
# calls that take a class as a value and never call it: isinstance(x, Model), and `super(Model, self)` in Model's own
# methods (InstantMesh's FlexiCubesGeometry.__init__, round 25 A2 51)
TYPE_CHECKS = {"isinstance", "issubclass", "super"}
REGISTERS = "register"  # how a registry's decorator is spelled: register, register_model, register_module
UNKNOWN = object()  # a text that is no literal
# methods whose calls are spelled otherwise than `x.method(...)`: nn.Module's `forward` runs as `model(x)`
SPELLED_ELSEWHERE = frozenset({"forward"})
METHOD_VALUE = "attr:"  # an attribute used as a value (`fn=self.compute_stats`) in DefaultFacts.escaped: a method that may be called out of sight
SPLAT_INDEX = 1 << 30  # no positional argument reaches a keyword a `**kwargs` carries
SPLAT = "**"  # the keyword of DefaultFacts.forwards' records of a call that unpacks (_splat_forward)
FACTORY = "factory:"  # DefaultFacts.escaped: a name a config factory is called on (`Name.from_config(...)`)
NAMED = "named:"  # DefaultFacts.escaped: a class-shaped name a string literal holds (a lazy `_import_structure`, a registry)
# DefaultFacts.escaped: a name in a module's `__all__`, public to callers outside the project (project_calls reads it as
# escaped; a "cuda" default every call in the project passes is decided all the same: propagation.project_overridden_defaults)
EXPORTED = "all:"
OWN = "."  # the mark of a call of the file's own definition in DefaultFacts.calls (no name starts with it)

# Identifiers used as values (what may call them later, out of sight): an argument (partial(Model, ...)), a keyword's
# value, a dict or list entry, an assignment's right side, a return value. isinstance(x, Model) and super(Model, self)
# are no use (TYPE_CHECKS).
ESCAPES = """
(argument_list (identifier) @value)
(keyword_argument value: (identifier) @value)
(pair value: (identifier) @value)
(list (identifier) @value)
(tuple (identifier) @value)
(assignment right: (identifier) @value)
(return_statement (identifier) @value)
(call arguments: (argument_list (attribute attribute: (identifier) @method_value)))
(keyword_argument value: (attribute attribute: (identifier) @method_value))
(pair value: (attribute attribute: (identifier) @method_value))
(assignment right: (attribute attribute: (identifier) @method_value))
((call function: (identifier) @getattr arguments: (argument_list (_) (string (string_content) @attribute)))
 (#eq? @getattr "getattr"))
"""

# Calls of an attribute of a plain name (`torch.randn(...)`, `self.proj(...)`): one match per call. No such call nests
# inside its own object or name, so the three lists, each in source order, line up call by call (_calls).
ATTRIBUTE_CALLS = """
(call function: (attribute object: (identifier) @object attribute: (identifier) @name) arguments: (_) @arguments)
"""


@dataclass
class DefaultFacts:
    # (first line, last line, function or class, parameter, position among the call's arguments, default, condition,
    # whether it is an assert that the default passes)
    arms: list[tuple[int, int, str, str, int, str, str, bool]] = field(default_factory=list)
    # name → (calls, most positional arguments, keywords passed as "key" or "key=literal", any *args/**kwargs)
    calls: dict[str, tuple[int, int, list[str], bool]] = field(default_factory=dict)
    escaped: list[str] = field(default_factory=list)  # bound names used as values, or subclassed
    # arms a parameter's default takes: (function or class, parameter, position, default, condition, the bound names
    # called in the arm)
    taken: list[tuple[str, str, int, str, str, tuple[str, ...]]] = field(default_factory=list)
    # arms spelling "cuda" that a parameter's None default takes (`if device is None: device = torch.device("cuda")`):
    # (first line, last line, function or class, parameter, condition); untaken where every call passes the
    # parameter (propagation.project_overridden_defaults)
    none_arms: list[tuple[int, int, str, str, str]] = field(default_factory=list)
    # name → (fewest positional arguments of a call, keywords every call passes): whether every call passes a
    # parameter, for a "cuda" default no call leaves in place (propagation.overridden_defaults)
    passed: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    # calls in an arm of `arms` of a function the file defines at module level (undecorated): (the arm's first line,
    # its last line, the function, its calls in the arm, the function's first line, its last line)
    arm_calls: list[tuple[int, int, str, int, int, int]] = field(default_factory=list)
    # module-level classes registered under a string key (`@register_model("mantis")`): built by name, with keywords
    # from a command-line or config string (`--model_args pretrained=...,device_map=auto`), not from a call in sight
    registered: list[str] = field(default_factory=list)
    # string defaults of the parameters `functions` read: (function or class, parameter, the default's line, the lines
    # of the reads other than a comparison with a literal) (_default_reads)
    reads: list[tuple[str, str, int, tuple[int, ...]]] = field(default_factory=list)
    # arms decided through an attribute `__init__` binds only from a parameter (attribute_hops.py): (first line, last
    # line, the attribute, the method whose parameter carries it, or ""); kept only where no code of the project
    # stores the attribute on another object or calls the method on one (`foreign`)
    hops: list[tuple[int, int, str, str]] = field(default_factory=list)
    # attribute names the file stores (`x.seed = ...`, `setattr(x, "seed", ...)`) or calls (`x.set_seed(...)`) on an
    # object other than `self` or an imported module: as "store:name" and "call:name"
    foreign: list[str] = field(default_factory=list)
    # keywords whose value is a command-line option (`gpu_id=args.gpu_id`, conventions' argument objects): (callee
    # record as in `calls`, keyword, the option's dest); each call keeps its "passed" record in `calls` as well
    option_keywords: list[tuple[str, str, str]] = field(default_factory=list)
    # keywords whose value is the calling function's own parameter with a literal default (`GPT(use_vllm=use_vllm)` in
    # `Chat.load(self, use_vllm=False)`): (callee record as in `calls`, keyword, the caller as a module-level function,
    # a module-level class (its __init__) or "Class.method", its parameter, position, default); a call of the same
    # record passing the keyword another non-literal value adds (callee, keyword, "", "", -1, "") (Forwards)
    forwards: list[tuple[str, str, str, str, int, str]] = field(default_factory=list)
    # module-level classes whose `__init__` is read through config recorders (`@register_to_config`): their arms are
    # decided only where no factory builds them from a config and no string names them (_built_from_data)
    recorded: list[str] = field(default_factory=list)


def read(tree: Node, text: str, conditions: list[Node], asserts: list[Node], called: list[Node], methods: list[Node],
         attribute_calls: dict[str, list[Node]], classes: list[Node], escapes, stores: list[Node] = (),
         forwarded: list[Node] | None = None) -> DefaultFacts:
    """One unit's arms decided by a parameter's default, and its calls of the names it binds. `attribute_calls`: the
    captures of ATTRIBUTE_CALLS; `escapes()`: the captures of ESCAPES over the unit (read only when the file binds a
    name or spells getattr); `stores`: the left sides of assignments holding an attribute (attribute_hops.foreign);
    `forwarded`: the captures of FORWARDED over the unit (None: _forwarded_off matches it itself)."""
    facts = DefaultFacts()
    forwards = "=False" in text or "= False" in text  # a keyword may forward a False default (_forwarded_off)
    functions = _defaulted_functions(tree) if conditions or asserts or forwards else []
    facts.registered = [parsing.text(c.child_by_field_name("name")) for c in _registered_classes(tree)]
    facts.recorded = _recorded_classes(functions)
    switched = _switched_methods(tree) if conditions else []  # methods' off-by-default keywords (_method_kept)
    reading = _Reading(frozenset(name for function in functions + switched for name in _literal_defaults(function)))
    reading.hops = attribute_hops.hops(functions, reading.rebound_of) if functions else attribute_hops.Hops()
    taken: list[tuple[Node, tuple[str, str, int, str], Node]] = []
    bodies: list[Node] = []  # the arms' bodies, beside facts.arms
    if reading.parameters:  # else no comparison reads a parameter's literal default (_target)
        facts.reads = _default_reads(functions, reading.rebound_of) if conditions or asserts else []  # read only beside off arms
        inside = _Spans(functions)  # a test elsewhere reads no such function's parameter: it is not read
        in_method = _Spans(switched)
        for condition in conditions[:MAX_CONDITIONS]:
            if inside(condition) or in_method(condition) or reading.hops.inside(condition):
                facts.arms += _arms(condition, reading, taken, bodies)
        for statement in asserts[:MAX_CONDITIONS]:
            if inside(statement) or reading.hops.inside(statement):
                facts.arms += _assert(statement, reading)
        if forwards and any(_false_default(function) for function in functions):
            facts.arms += _forwarded_off(tree, reading, inside, forwarded)
        facts.hops = reading.found_hops
    if conditions and ("get(" in text or "get_" in text):  # a switch read from a config getter (config_getters.py)
        found, hops = config_getters.arms(conditions[:MAX_CONDITIONS])
        facts.arms += found
        facts.hops += hops
    bound, modules, star, own = _bindings(tree)
    # names compared as bytes: most calls and values are of no bound name, and their text need not be decoded
    bound_names = {name.encode("utf-8"): original for name, original in bound.items()}
    own_names = {name.encode("utf-8") for name in own}
    optioned = None  # whether a keyword may pass `args.dest` (_optioned), read at the first call with keywords
    shapes: dict[str, dict[tuple[int, frozenset[str], bool], int]] = {}  # name → shape of its calls → how many
    located: list[tuple[str, Node]] = []  # the calls (by their first node), kept only where a default decides an arm
    for key, arguments, start in _calls(called, methods, attribute_calls, bound_names, modules, star, own_names,
                                        "__class__" in text):
        if taken or bodies:
            located.append((key, start))
        shape = _shape(arguments)
        if arguments is not None and shape[1] and (optioned := _optioned(text) if optioned is None else optioned):
            facts.option_keywords += _option_keywords(key, arguments)
        if arguments is not None and any("=" not in keyword for keyword in shape[1]):
            facts.forwards += _forwards(key, arguments, reading.rebound_of)
        if shape[2] and arguments is not None:
            facts.forwards.append(_splat_forward(key, arguments))
        counted = shapes.get(key)
        if counted is None:
            shapes[key] = {shape: 1}
        else:
            counted[shape] = counted.get(shape, 0) + 1
    optioned = {(key, keyword) for key, keyword, dest in facts.option_keywords if dest}
    facts.option_keywords = sorted({k for k in facts.option_keywords if (k[0], k[1]) in optioned})
    forwarded = {(key, keyword) for key, keyword, caller, *_ in facts.forwards if caller}
    facts.forwards = sorted({k for k in facts.forwards if (k[0], k[1]) in forwarded})
    facts.calls, facts.passed = _records(shapes)
    if taken:
        facts.taken = _taken(taken, [(_callee(key), start) for key, start in located])
        facts.none_arms = _none_arms(taken)
    if bodies:
        facts.arm_calls = _arm_calls(bodies, located, tree)
    escaped = {EXPORTED + name for name in exported_names(tree)} if "__all__" in text else set()  # a package's public names
    if bound or "getattr" in text:  # a lookup by name needs no binding: `import pkg.model` then getattr(pkg.model, ...)
        found = escapes()
        for node in found.get("value", []):
            original = bound_names.get(node.text)
            if original is not None and not _type_check(node):
                escaped.add(original)
        escaped.update(parsing.text(node) for node in found.get("attribute", []))
        escaped.update(METHOD_VALUE + parsing.text(node) for node in found.get("method_value", []))
    attributes = [callee.parent for callee in methods]  # Node.parent searches down from the root: once per call
    escaped.update(_factory_objects(methods, attributes))
    for cls in classes:
        bases = cls.child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None else []:
            if base.type in {"identifier", "attribute"}:
                escaped.add(parsing.text(base).rsplit(".", 1)[-1])
    facts.escaped = sorted(escaped)
    facts.foreign = attribute_hops.foreign(tree, stores, methods, modules, called, attributes) + instance_calls.records(tree, bound)
    return facts


def unpassed_defaults(facts, context) -> dict[str, list[tuple[int, int, str, bool]]]:
    """path → (first line, last line, reason, assert) of product code's arms that no call in the project takes."""
    calls, escaped, starred = project_calls(facts)
    result: dict[str, list[tuple[int, int, str, bool]]] = defaultdict(list)
    aside: set[str] | None = None
    launched: dict[str, list[tuple[str, str]]] | None = None
    configured: set[str] = set()
    foreign: set[str] | None = None
    options: OptionKeywords | None = None
    forwards: Forwards | None = None
    getters: config_getters.Getters | None = None
    for f in facts:
        if not f.default_arms or context.of(f.path).role not in COUNTED_ROLES or re_exported(f.module, starred):
            continue
        if aside is None:
            aside = _aside(calls, context)
        off: dict[tuple[int, int], str] = {}  # the arms no call takes → why
        registered = set(f.default_registered)
        recorded = set(f.default_recorded)
        if f.default_hops and foreign is None:
            foreign = _foreign(facts, context)
        touched = {(first, last) for first, last, attribute, method in f.default_hops
                   if {f"store:{attribute}", "store:*", f"call:{method}"} & foreign}
        for first, last, name, parameter, index, default, condition, is_assert in f.default_arms:
            if (first, last) in touched:  # the attribute may be stored, or the method called, from outside
                continue
            if name in recorded and _built_from_data(name, escaped):
                continue
            if name.startswith(config_getters.GETTER):
                if getters is None:
                    getters = config_getters.Getters(facts)
                kept = getters.kept(parameter, default, f.path)
            elif name in registered:
                if launched is None:
                    launched, configured = launch_keywords(facts)
                kept = _kept_registered(name, parameter, index, default, calls, escaped, f.path, launched, configured)
            else:
                if options is None:
                    options, forwards = OptionKeywords(facts), Forwards(facts, calls, escaped, aside)
                if "." in name:  # a method's keyword (_switchable)
                    kept = forwards.method_kept(f.path, name, parameter, index, default)
                else:
                    kept = _kept(name, parameter, index, default, calls, escaped, f.path, aside, options, forwards)
            if kept is not None:
                result[f.path].append((first, last, f"{kept}; {condition}", is_assert))
                if not is_assert:
                    off[(first, last)] = f"{kept}; {condition}"
        result[f.path] += _called_only_off(f, off, calls, escaped)
        result[f.path] += _read_only_off(f, off)
    return result


def _foreign(facts, context) -> set[str]:
    """The attribute stores and method calls on other objects (DefaultFacts.foreign) of the files that may run: a
    bundled project the host never reaches (its own manifest, nothing of the host imports or launches it:
    bundled_projects.unimported_projects) stores nothing on the host's objects (OOTDiffusion's human-parsing extension,
    whose detectron2 copy sets attributes by computed names)."""
    from ascend_feasibility.analyzer.context.bundled_projects import unimported_projects
    storing = [g for g in facts if g.default_foreign]
    unrun = unimported_projects(facts, documented=context.readme_launches) if any(
        "store:*" in g.default_foreign for g in storing) else {}
    return {name for g in storing if g.path not in unrun for name in g.default_foreign}


def _read_only_off(f, off: dict[tuple[int, int], str]) -> list[tuple[int, int, str, bool]]:
    """The lines of string defaults read only in arms no call takes (lmms-eval's `device="cuda:0"`, read only under
    `elif ... device_map == "auto":` while `device_map="cuda:0"` by default): (line, line, reason, False). Each other
    string default on the line must be read there too or only compared (else the line's finding may be its)."""
    by_line: dict[int, list[tuple[str, str, tuple[int, ...]]]] = defaultdict(list)
    for name, parameter, line, lines in f.default_reads:
        by_line[line].append((name, parameter, lines))
    result = []
    for line, parameters in by_line.items():
        decided = []
        for name, parameter, lines in parameters:
            arms = [next((why for (first, last), why in off.items() if first <= read <= last), None) for read in lines]
            if None in arms:
                break
            if arms:
                decided.append((parameter, arms[0]))
        else:
            if decided:
                parameter, why = decided[0]
                result.append((line, line, f"`{parameter}` is read only in an arm no call takes: {why}", False))
    return result


def _called_only_off(f, off: dict[tuple[int, int], str], calls: dict[str, list], escaped: set[str]
                     ) -> list[tuple[int, int, str, bool]]:
    """The file's functions every call of which in the project lies in an arm no call takes (OpenVoice's
    `split_audio_whisper`, called only in the `else` of `if vad:` in `get_se(..., vad=True)`, which every call leaves
    at True): (first line, last line, reason, False). A function passed as a value, exported or called from elsewhere
    by its name keeps its reach (the calls of any module's function of that name count against it)."""
    inside: dict[str, int] = defaultdict(int)
    why: dict[str, str] = {}
    lines: dict[str, tuple[int, int]] = {}
    for first, last, callee, count, start, end in f.default_arm_calls:
        reason = off.get((first, last))
        if reason is None or callee in escaped:
            continue
        inside[callee] += count
        why.setdefault(callee, reason)
        lines[callee] = (start, end)
    result = []
    for callee, count in inside.items():
        total = sum(shape[0] for _, shape in calls.get(own_key(f.path, callee), []) + calls.get(callee, []))
        if total == count:
            start, end = lines[callee]
            result.append((start, end, f"{callee}() is called only in an arm no call takes: {why[callee]}", False))
    return result


def default_path(facts, context) -> dict[str, str]:
    """What product code runs because a parameter's default takes an arm that no call in the project turns away
    (consistency_models' `AttentionBlock(attention_type="flash")`, whose `if attention_type == "flash":` builds
    `QKVFlashAttention` and none of whose calls passes attention_type): the names called there → why. A function or
    class of these names is on the default path, not an optional feature's, though a lazy import sits in it."""
    calls, escaped, starred = project_calls(facts)
    names: dict[str, str] = {}
    launched: dict[str, list[tuple[str, str]]] | None = None
    configured: set[str] = set()
    for f in facts:
        if not f.default_taken or context.of(f.path).role not in COUNTED_ROLES or re_exported(f.module, starred):
            continue
        registered = set(f.default_registered)
        recorded = set(f.default_recorded)
        for name, parameter, index, default, condition, callees in f.default_taken:
            kept = _kept(name, parameter, index, default, calls, escaped, f.path)
            if name in recorded and _built_from_data(name, escaped):
                kept = None
            if kept is not None and name in registered:  # a launch string may pass what no call in sight does
                if launched is None:
                    launched, configured = launch_keywords(facts)
                if _kept_registered(name, parameter, index, default, calls, escaped, f.path, launched, configured) is None:
                    kept = None
            if kept is not None:
                for callee in callees:
                    names.setdefault(callee, f"{kept}; {f.path} {condition} calls {callee}()")
    return names


def project_calls(facts) -> tuple[dict[str, list], set[str], set[str]]:
    """name → (path, shape) of the calls that may reach any module's `name`; a call of the calling file's own
    definition (recorded as OWN + name) is keyed by that file alone (_own)."""
    calls: dict[str, list[tuple[str, tuple[int, int, list[str], bool]]]] = defaultdict(list)
    escaped: set[str] = set()
    for f in facts:
        for name, shape in f.default_calls.items():
            calls[own_key(f.path, name[len(OWN):]) if name.startswith(OWN) else name].append((f.path, shape))
        escaped.update(name.removeprefix(EXPORTED) for name in f.default_escaped)
    return calls, escaped, {module for f in facts for module in f.star_imports}


def _kept(name: str, parameter: str, index: int, default: str, calls: dict[str, list], escaped: set[str],
          path: str, aside: set[str] = frozenset(), options: OptionKeywords | None = None,
          forwards: Forwards | None = None) -> str | None:
    """Why every call of `name` (defined in `path`) in the project keeps `parameter` at its default, or None where one
    may not. Another file's calls of its own function of the same name are not this one's. `aside`: files whose calls
    run no product path (tests, optional launchers: _aside); where only they pass the parameter, the default
    is the product's, and the reason names them."""
    found = calls.get(name, []) + calls.get(own_key(path, name), [])
    if name in escaped or not found:
        return None
    passing = sorted({where for where, shape in found if _passes(shape, parameter, index, default)})
    given = options.left(passing, name, parameter, index, default, found) if options is not None and passing else ""
    if given:
        passing = []
    handed = forwards.left(passing, name, parameter, index, default, found) if forwards is not None and passing else ""
    if not handed and forwards is not None and passing:
        handed = forwards.splat_left(passing, name, parameter, index, default, found)
    if handed:
        passing = []
    if set(passing) - aside:
        return None
    if passing:
        return (f"`{parameter}={default}` by default ({name}()); only code that runs no product path passes "
                f"{parameter} ({', '.join(passing[:2])}{' ...' if len(passing) > 2 else ''})")
    count = sum(shape[0] for _, shape in found)
    where = sorted({path for path, _ in found})
    more = f" and {len(where) - 1} more files" if len(where) > 1 else ""
    if given:
        return f"`{parameter}={default}` by default ({name}()), and its calls pass {given} ({where[0]}{more})"
    if handed:
        return f"`{parameter}={default}` by default ({name}()), and its calls pass {handed} ({where[0]}{more})"
    return f"`{parameter}={default}` by default ({name}()), and none of its {count} calls in the project passes {parameter} ({where[0]}{more})"


class OptionKeywords:
    """The calls that pass a parameter only as a command-line option left at None (Real-ESRGAN's
    `RealESRGANer(gpu_id=args.gpu_id)`, `--gpu-id` declared with no default and passed by no launch command):
    such a call passes the parameter's None default. The "passed" record of `calls` stays as it is (opt_in reads it)."""

    def __init__(self, facts) -> None:
        self.keywords: dict[tuple[str, str, str], set[str]] = defaultdict(set)  # (path, callee, keyword) → dests
        for f in facts:
            for key, keyword, dest in f.default_option_keywords:
                callee = own_key(f.path, key[len(OWN):]) if key.startswith(OWN) else key
                self.keywords[(f.path, callee, keyword)].add(dest)
        nones: dict[str, str] = {}
        declared: dict[str, int] = defaultdict(int)  # dest → declarations without a default (or default None) - all
        for f in facts:
            for dest, flag in f.option_nones:
                nones.setdefault(dest, flag)
                declared[dest] += 1
            for option in f.options:  # every add_argument with a long flag, and dataclass fields
                declared[option[0]] -= 1
        launched = {flag.lstrip("-").replace("-", "_") for f in facts for flag in f.launch_flags}
        self.nones = {dest: flag for dest, flag in nones.items() if declared[dest] >= 0  # declared so everywhere
                      and flag.lstrip("-").replace("-", "_") not in launched and dest not in launched}

    def left(self, passing: list[str], name: str, parameter: str, index: int, default: str, found) -> str:
        """How every passing call passes `parameter` as an option None by default ("`gpu_id=args.gpu_id` (`--gpu-id`
        is None unless given, and no launch command passes it)"), or "" where one may pass another value."""
        if _value(default) is not None:
            return ""
        sources = _keyword_sources(self.keywords, passing, found, name, parameter, index)
        if sources is None:
            return ""
        dests: set[str] = set()
        for _, given in sources:
            if not given or "" in given or not given <= self.nones.keys():
                return ""
            dests |= given
        dest = sorted(dests)[0]
        return (f"`{parameter}=args.{dest}`, and `{self.nones[dest]}` is None unless given, which no "
                f"launch command passes")


def _keyword_sources(keywords: dict, passing: list[str], found, name: str, parameter: str,
                     index: int) -> list[tuple[str, set]] | None:
    """For each passing call of `name`, (its file, what its `parameter=` keyword carries: the records `keywords` holds
    under the callee's name or its own key); None where a call passes the parameter itself (a splat, that many
    positional arguments, the keyword written with a value)."""
    sources = []
    for where, shape in found:
        if where not in passing:
            continue
        _, positional, written, splat = shape
        if splat or positional > index or any(k.startswith(parameter + "=") for k in written):
            return None
        sources.append((where, keywords.get((where, name, parameter), set())
                        | keywords.get((where, own_key(where, name), parameter), set())))
    return sources


class Forwards:
    """The calls that pass a parameter only as their own caller's parameter of the same name left at the same default
    (ChatTTS's `Chat.load(self, ..., use_vllm=False)` calling `GPT(..., use_vllm=use_vllm)` in another file): such a
    call passes the default when no call in the project passes the caller's parameter either. The caller is read as
    `_kept` reads a function or class (one hop further each time, MAX_HOPS in all), or, for a method, by its name:
    no call of any `.method(...)` in the project passes the keyword, a splat or that many positional arguments, and no
    launch command or config names the parameter."""

    MAX_HOPS = 3

    def __init__(self, facts, calls: dict[str, list], escaped: set[str], aside: set[str]) -> None:
        self.calls, self.escaped, self.aside = calls, escaped, aside
        self.keywords: dict[tuple[str, str, str], set[tuple[str, str, int, str]]] = defaultdict(set)
        for f in facts:
            for key, keyword, caller, parameter, index, default in f.default_forwards:
                callee = own_key(f.path, key[len(OWN):]) if key.startswith(OWN) else key
                self.keywords[(f.path, callee, keyword)].add((caller, parameter, index, default))
        self.facts = facts
        self.method_passes: set[str] | None = None
        self.hops = 0  # how deep left() is in callers' callers
        self.launched: tuple[dict, set[str]] | None = None

    def left(self, passing: list[str], name: str, parameter: str, index: int, default: str, found) -> str:
        """How every passing call hands on its caller's default ("`use_vllm=use_vllm` from Chat.load(), whose
        `use_vllm=False` no call passes"), or "" where one may pass another value (or the hops run out: a function
        that hands its parameter to itself)."""
        if self.hops >= self.MAX_HOPS:
            return ""
        sources = _keyword_sources(self.keywords, passing, found, name, parameter, index)
        if sources is None:
            return ""
        callers: set[tuple[str, str, str, int, str]] = set()
        for where, given in sources:
            if not given or any(not caller or _value(value) != _value(default) for caller, _, _, value in given):
                return ""
            callers |= {(where, *caller) for caller in given}
        self.hops += 1
        try:
            reasons = [self._caller_left(*caller) for caller in sorted(callers)]
        finally:
            self.hops -= 1
        if not reasons or not all(reasons):
            return ""
        return f"`{parameter}={parameter}` from {reasons[0]}"

    def splat_left(self, passing: list[str], name: str, parameter: str, index: int, default: str, found) -> str:
        """How every passing call passes `parameter` only through its caller's own `**kwargs` whose callers leave it
        out ("the `**kwargs` of sparse_global_alignment(), none of whose calls in the project passes lora_depth"), or ""."""
        if self.hops >= self.MAX_HOPS:
            return ""
        callers: set[tuple[str, str]] = set()
        for where, (count, positional, written, splat) in found:
            if where not in passing:
                continue
            if not splat or _passes((count, positional, written, False), parameter, index, default):
                return ""
            records = (self.keywords.get((where, name, SPLAT), set())
                       | self.keywords.get((where, own_key(where, name), SPLAT), set()))
            if not records or any(not caller for caller, *_ in records):
                return ""
            callers |= {(where, caller) for caller, *_ in records}
        self.hops += 1
        try:
            reasons = [_kept(caller, parameter, SPLAT_INDEX, default, self.calls, self.escaped, where, self.aside,
                             None, self) for where, caller in sorted(callers)]
        finally:
            self.hops -= 1
        if not reasons or None in reasons:
            return ""
        caller = sorted(callers)[0][1]
        return f"the `**kwargs` of {caller}(), none of whose calls in the project passes {parameter}"

    def _caller_left(self, path: str, caller: str, parameter: str, index: int, default: str) -> str:
        """Why the caller's own parameter stays at its default ("" where a call may pass it)."""
        if "." not in caller:
            kept = _kept(caller, parameter, index, default, self.calls, self.escaped, path, self.aside, None, self)
            return f"{caller}(), {kept}" if kept is not None else ""
        return self._method_left(path, caller, parameter, index, default)

    def method_kept(self, path: str, caller: str, parameter: str, index: int, default: str) -> str | None:
        """_kept for a method's keyword (`Guider.compute_stats(self, prompts, fuzzy_prompt=False)` under `if
        fuzzy_prompt:`): why no call of the method name in the project passes it, or None where one may, or where
        nothing calls `.method(...)` in sight (a framework's hook, a library's entry for callers outside)."""
        method = caller.split(".", 1)[1]
        key = caller if method == instance_calls.CALL else method  # instances' calls are recorded by class
        if not self._method_left(path, caller, parameter, index, default, False) \
                or {method, METHOD_VALUE + method} & self.escaped \
                or not any(name.startswith(f"pos:{key}:") for name in self.method_passes):
            return None
        if method == instance_calls.CALL:
            return (f"`{parameter}={default}` by default ({caller}(), {path}), and no call of its instances "
                    f"({instance_calls.all_bound(caller.split('.', 1)[0], self.facts, self.calls, self.escaped)}), "
                    f"launch command or config in the project passes {parameter}")
        return (f"`{parameter}={default}` by default ({caller}(), {path}), and no call of .{method}(), launch command "
                f"or config in the project passes {parameter}")

    def _method_left(self, path: str, caller: str, parameter: str, index: int, default: str,
                     public: bool = True) -> str:
        """Why no call of `.method(...)` passes the parameter ("" where one may). `public`: a class exported, subclassed
        or passed as a value keeps it (method_kept needs a call in sight instead: whoever holds the object, the project
        included, spells the call `.method(...)`)."""
        cls, method = caller.split(".", 1)
        if self.method_passes is None:
            self.method_passes = {name for f in self.facts for name in f.default_foreign
                                  if name.startswith(("pass:", "pos:", "arg:"))}
            self.launched = launch_keywords(self.facts)
        launched, configured = self.launched
        instances = instance_calls.all_bound(cls, self.facts, self.calls, self.escaped) \
            if method == instance_calls.CALL else ""
        if instances is None:  # an instance called out of sight
            return ""
        key = caller if instances else method  # instances' calls are recorded by class (instance_calls.records)
        most = max((int(name.rsplit(":", 1)[1]) for name in self.method_passes if name.startswith(f"pos:{key}:")),
                   default=0)
        given = [name.partition("=")[2] for name in self.method_passes if name.startswith(f"pass:{key}:{parameter}")
                 and name[len(f"pass:{key}:{parameter}"):][:1] in {"", "="}]
        passed_default = bool(instances) and instance_calls.positional_default(
            self.method_passes, key, index, default, _value)  # `apply_openpose(img, False)`: the default, spelled out
        if ((public and cls in self.escaped) or f"pass:{key}:*" in self.method_passes
                or (most > index and not passed_default)
                or any(not value or _value(value) != _value(default) for value in given) or parameter in configured
                or any(_value(given) is UNKNOWN or _value(given) != _value(default)
                       for _, given in launched.get(parameter, []))):
            return ""
        through = f" (called only through {instances})" if instances else ""
        return (f"{caller}() ({path}), whose `{parameter}={default}` no call{through}, launch command or config in the "
                f"project passes")


def launch_keywords(facts) -> tuple[dict[str, list[tuple[str, str]]], set[str]]:
    """The keywords launch commands pass inside an option's value (`--model_args pretrained=x,device_map=auto`): key →
    (path, value); and the words of every YAML/JSON config, which may hold such a string too."""
    launched: dict[str, list[tuple[str, str]]] = defaultdict(list)
    configured: set[str] = set()
    for f in facts:
        for _, value in f.launch_values:
            for item in value.split(","):
                key, equals, given = item.partition("=")
                if equals and key.strip().isidentifier():
                    launched[key.strip()].append((f.path, given.strip().strip("'\"")))
        if f.path.endswith((".yaml", ".yml", ".json")) and f.words:
            configured |= word_set(f.words)
    return launched, configured


def _kept_registered(name: str, parameter: str, index: int, default: str, calls: dict[str, list], escaped: set[str],
                     path: str, launched: dict[str, list[tuple[str, str]]], configured: set[str]) -> str | None:
    """_kept for a class registered under a string key: its keywords come from launch strings. None where a call in
    the project may pass the parameter, a launch command passes `parameter=` another value (or one not known), or a
    config names the parameter at all."""
    found = calls.get(name, []) + calls.get(own_key(path, name), [])
    if name in escaped or parameter in configured or any(_passes(shape, parameter, index, default) for _, shape in found):
        return None
    if any(_value(given) is UNKNOWN or _value(given) != _value(default) for _, given in launched.get(parameter, [])):
        return None
    return (f"`{parameter}={default}` by default ({name}(), registered by name); no launch command or config in the "
            f"project passes another {parameter}")


def _aside(calls: dict[str, list], context) -> set[str]:
    """The calling files that run no product path: a test's, a docs' or CI's, or a file whose own reach is not `runs`
    (an optional launcher). An example's calls count: an example is the library's user (unloaded.LIVE_ROLES), and
    what it turns on is a feature users turn on."""
    paths = {where for found in calls.values() for where, _ in found}
    return {where for where in paths
            if context.of(where).role not in LIVE_ROLES or context.of(where).reach != "runs"}


def own_key(path: str, name: str) -> str:
    return f"{path}\0{name}"


def re_exported(module: str, starred: set[str]) -> bool:
    """A module another one re-exports whole (`from .comm import *` in deepspeed/comm/__init__.py): its names are the
    package's public ones. A module under src/ is imported without the `src.`."""
    return bool(module) and any(module == m or module.endswith("." + m) for m in starred)


def _passes(shape: tuple[int, int, list[str], bool], parameter: str, index: int, default: str) -> bool:
    _, positional, keywords, splat = shape
    if splat or positional > index:
        return True
    for keyword in keywords:
        key, _, value = keyword.partition("=")
        if key == parameter and (not value or _value(value) != _value(default) or _value(value) is UNKNOWN):
            return True
    return False


# per file ----------------------------------------------------------------------------------------------------------
def _arms(condition: Node, reading: _Reading, taken: list | None = None, bodies: list | None = None
          ) -> list[tuple[int, int, str, str, int, str, str, bool]]:
    """The arms the condition's default turns away (their bodies go into `bodies`); the arm it takes goes into
    `taken` (body, found, statement)."""
    statement = condition.parent
    if statement is None or statement.type not in {"if_statement", "elif_clause"}:
        return []
    found = first_term(condition, lambda term, _: _decided(term, False, reading))
    if found is not None:  # a term false by default: the branch is not taken
        body = statement.child_by_field_name("consequence")
        if body is not None and bodies is not None:
            bodies.append(body)
        return [_arm(body, found, statement, reading)] if body is not None else []
    found = _decided(condition, True, reading)
    if found is None or statement.type != "if_statement":  # true by default: the rest of the chain is not taken
        return []
    body = statement.child_by_field_name("consequence")
    if body is not None and taken is not None and reading.hop is None:  # default_path reads no hop
        taken.append((body, found, statement))
    rest = [c for c in statement.children if c.type in {"elif_clause", "else_clause"}]
    if bodies is not None:
        bodies.extend(rest)
    hop = reading.hop
    arms = []
    for c in rest:
        reading.hop = hop
        arms.append(_arm(c, found, statement, reading))
    return arms


def _default_reads(functions: list[Node], rebound_of=None) -> list[tuple[str, str, int, tuple[int, ...]]]:
    """DefaultFacts.reads: each string default's parameter, and the lines where the function reads it other than in a
    comparison with a literal; a parameter the function rebinds is left out (its reads may be another value's).
    `rebound_of`: _rebound, or a unit's memo of it (_Reading.rebound_of)."""
    result = []
    for function in functions:
        rebound = (rebound_of or _rebound)(function)
        body = function.child_by_field_name("body")
        if rebound is None or body is None:
            continue
        names = {}
        for parameter in function.child_by_field_name("parameters").named_children:
            key, value = parameter.child_by_field_name("name"), parameter.child_by_field_name("value")
            if parameter.type in {"default_parameter", "typed_default_parameter"} and key is not None \
                    and value is not None and value.type == "string" and parsing.text(key) not in rebound:
                names[parsing.text(key)] = value.start_point.row + 1
        if not names:
            continue
        callee = _callee_name(function)
        if callee is None:
            continue
        reads: dict[str, list[int]] = {name: [] for name in names}
        for node in parsing.captures(parsing.query("python", "(identifier) @name"), body).get("name", []):
            name = parsing.text(node)
            if name in reads and not _not_a_read(node):
                if not _compared_with_literal(node):
                    reads[name].append(node.start_point.row + 1)
        result += [(callee, name, names[name], tuple(lines)) for name, lines in reads.items()]
    return result


def _callee_name(function: Node) -> str | None:
    """The name a call of `function` is made by: its own (module level) or its class's (an `__init__`)."""
    holder = function.parent
    if holder is not None and holder.type == "module":
        return parsing.text(function.child_by_field_name("name"))
    holder = attribute_hops.class_block(function)  # a config-recorded __init__ too
    cls = holder.parent if holder is not None else None
    return parsing.text(cls.child_by_field_name("name")) if cls is not None and cls.type == "class_definition" else None


def _not_a_read(node: Node) -> bool:
    """An identifier that names no variable: an attribute's name, a keyword's name, a definition's name."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "attribute":
        return parent.child_by_field_name("attribute") == node
    if parent.type == "keyword_argument":
        return parent.child_by_field_name("name") == node
    return parent.type in {"function_definition", "class_definition", "default_parameter", "typed_default_parameter",
                           "parameters", "typed_parameter"}


def _compared_with_literal(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "comparison_operator" and len(parent.named_children) == 2 and any(
        other.type in LITERAL_TYPES for other in parent.named_children if other != node)


def _arm_calls(bodies: list[Node], located: list[tuple[str, Node]], tree: Node) -> list[tuple[int, int, str, int, int, int]]:
    """DefaultFacts.arm_calls: each arm's calls of a module-level function of this file (recorded as OWN + name, so
    never an imported one), not decorated (a registry may call it), with the function's lines."""
    defined = {}
    for statement in tree.named_children:
        name = statement.child_by_field_name("name") if statement.type == "function_definition" else None
        if name is not None:
            defined[parsing.text(name)] = (statement.start_point.row + 1, statement.end_point.row + 1)
    result = []
    for body in bodies:
        counted: dict[str, int] = defaultdict(int)
        for key, call in located:
            if key.startswith(OWN) and key[len(OWN):] in defined and body.start_byte <= call.start_byte < body.end_byte:
                counted[key[len(OWN):]] += 1
        result += [(body.start_point.row + 1, body.end_point.row + 1, name, count, *defined[name])
                   for name, count in sorted(counted.items())]
    return result


def _arm(body: Node, found: tuple[str, str, int, str], statement: Node, reading: _Reading) -> tuple:
    name, parameter, index, default = found
    line = " ".join(parsing.text(statement).splitlines()[0].split())[:100]
    first, last = body.start_point.row + 1, body.end_point.row + 1
    return (first, last, name, parameter, index, default,
            f"line {statement.start_point.row + 1}: {line}{_hop_note(first, last, parameter, reading)}", False)


def _hop_note(first: int, last: int, parameter: str, reading: _Reading) -> str:
    """Records the hop the last term was read through (DefaultFacts.hops) and says it."""
    if reading.hop is None:
        return ""
    attribute, method = reading.hop
    reading.found_hops.append((first, last, attribute, method))
    carried = f" ({method}() is called only with self.{attribute}" if method else " (self." + attribute
    if reading.derived is not None:
        return f"{carried}, which __init__ sets only to `{parameter} {' '.join(reading.derived)}`)"
    return f"{carried}, which __init__ sets only from {parameter})"


def _taken(taken: list[tuple[Node, tuple[str, str, int, str], Node]], located: list[tuple[str, Node]]
           ) -> list[tuple[str, str, int, str, str, tuple[str, ...]]]:
    """The bound names each arm taken by default calls (`located`: each call's name and a node starting where it does)."""
    result = []
    for body, (name, parameter, index, default), statement in taken:
        callees = sorted({callee for callee, call in located if body.start_byte <= call.start_byte < body.end_byte})
        if callees:
            line = " ".join(parsing.text(statement).splitlines()[0].split())[:100]
            result.append((name, parameter, index, default, f"line {statement.start_point.row + 1}: {line}", tuple(callees)))
    return result


def _none_arms(taken: list[tuple[Node, tuple[str, str, int, str], Node]]) -> list[tuple[int, int, str, str, str]]:
    """DefaultFacts.none_arms: the arms taken by a None default whose body spells "cuda" (a device chosen for the
    caller that passed none)."""
    result = []
    for body, (name, parameter, _, default), statement in taken:
        if default == "None" and b"cuda" in body.text:
            line = " ".join(parsing.text(statement).splitlines()[0].split())[:100]
            result.append((body.start_point.row + 1, body.end_point.row + 1, name, parameter,
                           f"line {statement.start_point.row + 1}: {line}"))
    return result


FORWARDED = "(keyword_argument name: (identifier) value: [(identifier) (attribute)] @value)"


def _forwarded_off(tree: Node, reading: _Reading, inside, values: list[Node] | None = None) -> list[tuple]:
    """A keyword that hands a parameter's `False` default straight to a call, alone on its lines (lmms-eval's
    `load_in_8bit=load_in_8bit,` into `from_pretrained`, `load_in_8bit: bool = False`): the call's feature is off
    by default, as an arm `if load_in_8bit:` would be; the line is an arm no call takes. `self.load_in_8bit` too,
    through attribute_hops. `values`: FORWARDED's captures where the unit's combined query holds them."""
    result = []
    if values is None:
        values = parsing.captures(parsing.query("python", FORWARDED), tree).get("value", [])
    for value in values[:MAX_CONDITIONS]:
        keyword = value.parent
        if not (inside(keyword) or reading.hops.inside(keyword)) or not _alone(keyword):
            continue
        found = _decided(value, False, reading)
        if found is None or _value(found[3]) is not False:
            continue
        first, last = keyword.start_point.row + 1, keyword.end_point.row + 1
        text = " ".join(parsing.text(keyword).split())[:100]
        name, parameter, index, default = found
        result.append((first, last, name, parameter, index, default,
                       f"line {first}: {text} hands the default to the call{_hop_note(first, last, parameter, reading)}", False))
    return result


def _false_default(function: Node) -> bool:
    parameters = function.child_by_field_name("parameters")
    return any(p.type in {"default_parameter", "typed_default_parameter"} and p.child_by_field_name("value") is not None
               and p.child_by_field_name("value").type == "false"
               for p in (parameters.named_children if parameters is not None else []))


def _alone(keyword: Node) -> bool:
    """Whether a keyword argument is alone on its lines: the call's `(`, and every other argument, on other lines."""
    arguments = keyword.parent
    if arguments is None or arguments.type != "argument_list":
        return False
    first, last = keyword.start_point.row, keyword.end_point.row
    if arguments.start_point.row >= first:
        return False
    return all(other.end_point.row < first or other.start_point.row > last
               for other in arguments.named_children if other != keyword and other.type != "comment")


def _assert(test: Node, reading: _Reading) -> list[tuple]:
    """`assert backend == "nccl"` (the comparison an assert tests) that the default passes."""
    statement = test.parent
    found = _decided(test, True, reading) if statement is not None and statement.type == "assert_statement" else None
    if found is None:
        return []
    name, parameter, index, default = found
    line = " ".join(parsing.text(statement).splitlines()[0].split())[:100]
    first, last = statement.start_point.row + 1, statement.end_point.row + 1
    return [(first, last, name, parameter, index, default,
             f"line {first}: {line}{_hop_note(first, last, parameter, reading)}", True)]


def _decided(term: Node, holds: bool, reading: _Reading) -> tuple[str, str, int, str] | None:
    """(function or class, parameter, position, default) when `term` compares a parameter with a literal, or tests the
    parameter's truth (`if deterministic:`, `if not fast:`), and, at the parameter's default, is `holds`."""
    reading.hop = None
    reading.derived = None
    if term.type in {"identifier", "not_operator", "attribute"}:
        return _truth(term, holds, reading)
    if term.type != "comparison_operator" or len(term.named_children) != 2:
        return None
    operators = term.children_by_field_name("operators")
    spelled = " ".join(parsing.text(operators[0]).split()) if len(operators) == 1 else ""
    if spelled not in COMPARE:
        return None
    compare = COMPARE[spelled]
    left, right = term.named_children
    swapped = left.type not in {"identifier", "attribute"}
    name_node, literal = (right, left) if swapped else (left, right)
    if literal.type not in LITERAL_TYPES:
        return None
    found = _operand(name_node, reading)
    if found is None or reading.derived is not None:  # a derived attribute is read by its truth only
        return None
    function, target = found
    value, default = _value(parsing.text(literal)), _value(target[3])
    if UNKNOWN in (value, default) or (compare in {operator.is_, operator.is_not} and not _singleton(value, default)):
        return None
    try:
        result = compare(value, default) if swapped else compare(default, value)
    except TypeError:
        return None
    if bool(result) != holds:
        return None
    return _unchanged(name_node, function, target, reading)


def _truth(term: Node, holds: bool, reading: _Reading) -> tuple[str, str, int, str] | None:
    """_decided for `parameter` or `not parameter` with a literal default (`deterministic=False`)."""
    negated = term.type == "not_operator"
    name_node = term.child_by_field_name("argument") if negated else term
    found = _operand(name_node, reading) if name_node is not None else None
    if found is None:
        return None
    function, target = found
    default = _value(target[3])
    if reading.derived is not None:  # `self.flag` set to `parameter <op> literal`: that test's value at the default
        default = _derived_value(default, *reading.derived)
    if default is UNKNOWN or bool(default) != (holds != negated):
        return None
    return _unchanged(name_node, function, target, reading)


def _derived_value(default, spelled: str, literal: str):
    """`default <op> literal`, or UNKNOWN where it cannot be told (an `is` test of no singleton, unlike types)."""
    value = _value(literal)
    compare = COMPARE[spelled]
    if UNKNOWN in (value, default) or (compare in {operator.is_, operator.is_not} and not _singleton(value, default)):
        return UNKNOWN
    try:
        return bool(compare(default, value))
    except TypeError:
        return UNKNOWN


def _operand(name_node: Node, reading: _Reading) -> tuple[Node, tuple[str, str, int, str]] | None:
    """The function and target (_target) of a tested parameter, or through a hop (attribute_hops: `self.seed`, or a
    method's parameter every call passes `self.seed`) the `__init__` parameter's target (the hop in `reading.hop`)."""
    if name_node.type == "identifier" and parsing.text(name_node) in reading.parameters:
        found = _target(name_node)
        if found is not None or _enclosing(name_node, "function_definition") is None:
            return found
    if name_node.type not in {"identifier", "attribute"} or not reading.hops.attributes:
        return None
    hopped = reading.hops.target(name_node)
    if hopped is None:
        return None
    method, target, reading.hop = hopped
    reading.derived = reading.hops.derivation(method, reading.hop[0])
    return method, target


def _unchanged(name_node: Node, function: Node, target: tuple[str, str, int, str], reading: _Reading
               ) -> tuple[str, str, int, str] | None:
    """`target` when its function rebinds the parameter nowhere before the test reads it: not at all, or only inside
    the `if` statement whose test this is (`if device is None: device = torch.cuda.current_device()`), outside any
    loop, where the rebinding follows the test."""
    if reading.hop is not None:  # attribute_hops read the method's rebinding, and the attribute's stores
        return target
    rebound = reading.rebound_of(function)
    if rebound is None:
        return None
    places = rebound.get(target[1])
    if not places:
        return target
    statement = name_node.parent
    while statement is not None and statement.id != function.id and statement.type not in {"if_statement", "assert_statement"}:
        statement = statement.parent
    if statement is None or statement.type != "if_statement" or any(start < statement.start_byte or start >= statement.end_byte
                                                                     for start in places):
        return None
    holder = statement.parent
    while holder is not None and holder.id != function.id:
        if holder.type in {"for_statement", "while_statement"}:
            return None
        holder = holder.parent
    return target


@dataclass
class _Reading:
    """One unit's reading: the parameters _target can read, and _rebound's answer by function."""
    parameters: frozenset[str]
    rebound: dict[int, dict[str, list[int]] | None] = field(default_factory=dict)
    hops: attribute_hops.Hops = field(default_factory=attribute_hops.Hops)
    # DefaultFacts.hops, and the hop (attribute, method) of the term _decided read last (None: no hop)
    found_hops: list[tuple[int, int, str, str]] = field(default_factory=list)
    hop: tuple[str, str] | None = None
    derived: tuple[str, str] | None = None  # the hop's (operator, literal) where the attribute is a test of the parameter

    def rebound_of(self, function: Node) -> dict[str, list[int]] | None:
        """_rebound(function), read once per function of the unit (its callers only look names up in it)."""
        if function.id not in self.rebound:
            self.rebound[function.id] = _rebound(function)
        return self.rebound[function.id]


def _defaulted_parameters(tree: Node) -> frozenset[str]:
    """The parameters with a literal default that _target can read: of a module-level function, or of the `__init__`
    of a module-level class (neither decorated)."""
    return frozenset(name for function in _defaulted_functions(tree) for name in _literal_defaults(function))


def _defaulted_functions(tree: Node) -> list[Node]:
    """The functions _target can find a literal default in, in source order: module-level functions and the
    `__init__` of module-level classes (neither decorated) with at least one parameter `_literal_defaults` reads."""
    functions = []
    registered = {cls.parent.start_byte for cls in _registered_classes(tree)}  # their decorated definitions
    for statement in tree.named_children:
        if statement.type == "function_definition":
            if _literal_defaults(statement):
                functions.append(statement)
        elif statement.type == "class_definition" or (statement.type == "decorated_definition"
                                                      and statement.start_byte in registered):
            if statement.type == "decorated_definition":
                statement = statement.child_by_field_name("definition")
            body = statement.child_by_field_name("body")
            for member in body.named_children if body is not None else []:
                if member.type == "decorated_definition" and attribute_hops.config_recorded(member):
                    member = member.child_by_field_name("definition")  # @register_to_config: called unchanged
                name = member.child_by_field_name("name") if member.type == "function_definition" else None
                if name is not None and parsing.text(name) == "__init__" and _literal_defaults(member):
                    functions.append(member)
    return functions


def _factory_objects(methods: list[Node], attributes: list[Node | None]) -> set[str]:
    """FACTORY + the name each config factory call is made on (`Transformer2DModel.from_config(config)`,
    `models.UNet.from_pretrained(path)`: the last name of the object), and the class-shaped name (capitalised) any
    other method is called on: a class method may build the class from a config through a base (a project mixin's
    `cls.from_config(...)`). `methods`: every attribute call's name; `attributes`: the parent of each."""
    found = set()
    factories = _factories()
    for callee, attribute in zip(methods, attributes, strict=True):
        holder = attribute.child_by_field_name("object") if attribute is not None else None
        if holder is not None and holder.type == "attribute":
            holder = holder.child_by_field_name("attribute")
        if holder is None or holder.type != "identifier":
            continue
        name = holder.text
        if callee.text in factories or name[:1].isupper():
            found.add(FACTORY + name.decode("utf-8", "replace"))
    return found


@functools.cache
def _factories() -> frozenset[bytes]:
    from ascend_feasibility.knowledge import load_context_conventions
    return frozenset(name.encode("utf-8") for name in load_context_conventions().opt_in.config_factories)


def _built_from_data(name: str, escaped: set[str]) -> str | None:
    """Why a class whose `__init__` is read through config recorders may be built out of sight, or None: a factory
    is called on it, or a string names it (then a config's keys, not a call in sight, pass its keywords)."""
    if FACTORY + name in escaped:
        return f"{name} is built by a config factory"
    if NAMED + name in escaped:
        return f"a string names {name}"
    return None


def class_named(text: bytes) -> bool:
    """A string literal's text shaped as a class name (`"Transformer2DModel"`): query_set filter of the strings whose
    names escape (NAMED)."""
    return 1 < len(text) <= MAX_LITERAL and text[:1].isupper() and text.isascii() and text.decode().isidentifier()


def _recorded_classes(functions: list[Node]) -> list[str]:
    """The classes among `functions`' whose `__init__` is decorated by config recorders (attribute_hops.class_block):
    built from a config or checkpoint where a factory is called on them or a string names them (_built_from_data)."""
    names = []
    for function in functions:
        if function.parent is not None and function.parent.type == "decorated_definition":
            block = attribute_hops.class_block(function)
            if block is not None and block.parent is not None and block.parent.type == "class_definition":
                names.append(parsing.text(block.parent.child_by_field_name("name")))
    return names


def _switched_methods(tree: Node) -> list[Node]:
    """The methods _target reads a keyword's literal default in (`_switchable`), in source order."""
    methods = []
    for statement in tree.named_children:
        if statement.type == "decorated_definition" and _registered(statement):
            statement = statement.child_by_field_name("definition")
        if statement.type != "class_definition":
            continue
        body = statement.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type == "function_definition" and _switchable(member) and _literal_defaults(member):
                methods.append(member)
    return methods


def _switchable(method: Node) -> bool:
    """An undecorated method of a module-level class (or one registered by name) whose calls are spelled
    `x.method(...)`: no dunder (`__init__` is the class's call) but `__call__`, the object's, whose calls are read
    through module-level instances (instance_calls.py), and none a framework calls through another name
    (SPELLED_ELSEWHERE: `model(x)` runs `forward`)."""
    name = parsing.text(method.child_by_field_name("name"))
    holder = method.parent
    cls = holder.parent if holder is not None and holder.type == "block" else None
    if cls is None or cls.type != "class_definition" or cls.parent is None or (
            name.startswith("__") and name != instance_calls.CALL) or name in SPELLED_ELSEWHERE:
        return False
    return cls.parent.type == "module" or (cls.parent.type == "decorated_definition" and _registered(cls.parent))


class _Spans:
    """Whether a node starts inside one of some functions (which never overlap: module-level definitions and the
    `__init__`s of module-level classes). A comparison _target can decide reads a parameter of the function around it,
    which must be one of `_defaulted_functions`' (the same tests of place, decorators and literal default)."""

    def __init__(self, functions: list[Node]) -> None:
        self.starts = [function.start_byte for function in functions]
        self.ends = [function.end_byte for function in functions]

    def __call__(self, node: Node) -> bool:
        at = node.start_byte
        index = bisect.bisect_right(self.starts, at) - 1
        return index >= 0 and at < self.ends[index]


def _literal_defaults(function: Node) -> list[str]:
    parameters = function.child_by_field_name("parameters")
    names = []
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type in {"default_parameter", "typed_default_parameter"}:
            key, value = parameter.child_by_field_name("name"), parameter.child_by_field_name("value")
            if key is not None and value is not None and value.type in LITERAL_TYPES:
                names.append(parsing.text(key))
    return names


def _target(name: Node) -> tuple[Node, tuple[str, str, int, str]] | None:
    """The function and (callee name, parameter, position in a call, default text) of the parameter `name` reads, when
    its function is a module-level function or a module-level class's undecorated __init__."""
    parameter = parsing.text(name)
    function = _enclosing(name, "function_definition")
    while function is not None and _parameter(function, parameter) is None:
        function = _enclosing(function, "function_definition")
    if function is None:
        return None
    index, default = _parameter(function, parameter)
    if default is None or default.type not in LITERAL_TYPES:
        return None
    holder = function.parent
    if holder is not None and holder.type == "decorated_definition":
        holder = attribute_hops.class_block(function)  # an `__init__` under config recorders only, or None
        if holder is None:
            return None
    if holder is not None and holder.type == "module":
        callee = parsing.text(function.child_by_field_name("name"))
    elif holder is not None and holder.type == "block" and parsing.text(function.child_by_field_name("name")) == "__init__":
        cls = holder.parent
        if cls is None or cls.type != "class_definition" or cls.parent is None or (
                cls.parent.type != "module" and not (cls.parent.type == "decorated_definition" and _registered(cls.parent))):
            return None
        callee, index = parsing.text(cls.child_by_field_name("name")), index - 1
    elif holder is not None and holder.type == "block" and _switchable(function):
        cls = holder.parent  # a method of a module-level class: "Class.method", called as `x.method(...)`
        callee, index = f"{parsing.text(cls.child_by_field_name('name'))}.{parsing.text(function.child_by_field_name('name'))}", index - 1
    else:
        return None
    if index < 0:
        return None
    return function, (callee, parameter, index, parsing.text(default))


def _registered_classes(tree: Node) -> list[Node]:
    """Module-level classes whose every decorator registers them under a string key (`@register_model("mantis")`,
    `@MODELS.register("a", "b")`)."""
    return [statement.child_by_field_name("definition") for statement in tree.named_children
            if statement.type == "decorated_definition" and _registered(statement)
            and statement.child_by_field_name("definition").type == "class_definition"]


def _registered(decorated: Node) -> bool:
    """Every decorator a `register…(…)` call of string keys only (`@register_model("a")`, `@MODELS.register("a")`):
    not `@deprecated("use X")` or `@pytest.mark.skip("why")`, whose class is still called as written."""
    decorators = [c for c in decorated.named_children if c.type == "decorator"]
    for decorator in decorators:
        call = decorator.named_children[0] if decorator.named_children else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None or not parsing.text(function).rsplit(".", 1)[-1].startswith(REGISTERS):
            return False
        arguments = call.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if first is None or first.type != "string" or len(arguments.named_children) != len(
                [a for a in arguments.named_children if a.type == "string"]):
            return False
    return bool(decorators)


# What rebinds a name in a body: the targets of assignments, loops, `with ... as`, `:=`; and global/nonlocal
REBINDINGS = """
(assignment left: (_) @target)
(augmented_assignment left: (_) @target)
(for_statement left: (_) @target)
(with_item value: (_) @target)
(named_expression name: (_) @target)
[(global_statement) (nonlocal_statement)] @scope
"""


def _rebound(function: Node) -> dict[str, list[int]] | None:
    """The names the function's body rebinds (`local_rank = int(os.environ[...])`, `for backend in ...`, `global`),
    with where (start bytes; a `global` or `nonlocal` at the body's start: anywhere), read in one query for all its
    parameters; None for a body of MAX_BODY_NODES nodes or more (every parameter counts as rebound there)."""
    body = function.child_by_field_name("body")
    if body is None:
        return {}
    if body.descendant_count >= MAX_BODY_NODES:
        return None
    found = parsing.captures(parsing.query("python", REBINDINGS), body)
    names: dict[str, list[int]] = defaultdict(list)
    for target in found.get("target", []):
        for n in _names(target):
            names[parsing.text(n)].append(n.start_byte)
    for statement in found.get("scope", []):
        for name in parsing.text(statement).split():
            names[name].append(body.start_byte - 1)
    return names


def _names(node: Node) -> list[Node]:
    if node.type == "identifier":
        return [node]
    if node.type in {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "as_pattern", "as_pattern_target"}:
        return [n for child in node.named_children for n in _names(child)]
    return []


@functools.lru_cache(maxsize=4096)  # a project repeats its literals (`True`, `"nccl"`, `-1`); each evaluation compiles
def _value(text: str):
    """A literal's value (ast.literal_eval evaluates literals only: immutable ones here), or UNKNOWN."""
    if len(text) > MAX_LITERAL:
        return UNKNOWN
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return UNKNOWN


def _singleton(*values) -> bool:
    return all(v is None or isinstance(v, bool) for v in values)


def exported_names(tree: Node) -> set[str]:
    """Names in the module's `__all__` (a list or tuple of strings at the top level)."""
    names = set()
    for statement in tree.named_children:
        assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if assignment is None or assignment.type not in {"assignment", "augmented_assignment"}:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and right is not None and parsing.text(left) == "__all__":
            for item in right.named_children:
                if item.type == "string":
                    names.add(parsing.text(item).strip("'\""))
    return names


_GUARDING = frozenset({"if_statement", "try_statement", "block", "else_clause", "except_clause", "elif_clause",
                       "finally_clause"})


def _bindings(tree: Node) -> tuple[dict[str, str], set[str], bool, set[str]]:
    """The module-level names the file binds to functions and classes (local name → original name: defined, or
    imported by name), the names bound to imported modules, whether it has a star import, and the names it defines and
    never imports (a call of one of them runs this file's function, whatever another module defines by that name)."""
    bound: dict[str, str] = {}
    modules: set[str] = set()
    defined: set[str] = set()
    star = False
    stack = list(tree.named_children)
    while stack:
        statement = stack.pop()
        kind = statement.type
        if kind in _GUARDING:
            stack.extend(statement.named_children)  # imports behind a guard
        elif kind == "decorated_definition":
            stack.extend(c for c in statement.named_children if c.type != "decorator")
        elif kind in {"function_definition", "class_definition"}:
            name = statement.child_by_field_name("name")
            if name is not None:
                text = parsing.text(name)
                bound[text] = text
                defined.add(text)
        elif kind == "import_from_statement":
            star |= b"*" in statement.text and any(c.type == "wildcard_import" for c in statement.children)
            for imported in statement.children_by_field_name("name"):
                original, local = _alias(imported)
                bound[local] = original.rsplit(".", 1)[-1]
                modules.add(local)  # `from pkg import module` binds a module
        elif kind == "import_statement":
            for imported in statement.children_by_field_name("name"):
                original, local = _alias(imported)
                modules.add(local if imported.type == "aliased_import" else original.split(".", 1)[0])
    return bound, modules, star, defined - modules


def _alias(imported: Node) -> tuple[str, str]:
    if imported.type == "aliased_import":
        name, alias = imported.child_by_field_name("name"), imported.child_by_field_name("alias")
        original = parsing.text(name) if name is not None else ""
        return original, parsing.text(alias) if alias is not None else original
    text = parsing.text(imported)
    return text, text


def _calls(called: list[Node], methods: list[Node], attribute_calls: dict[str, list[Node]],
           bound_names: dict[bytes, str], modules: set[str], star: bool, own: set[bytes] = frozenset(),
           spells_class: bool = True):
    """(the name a call is recorded under, its arguments, a node that starts where the call does): `Model(...)` of a
    bound name (any name after a star import), `pkg.parallel.ParallelContext(...)` through an imported module, a
    class's `cls(...)` and `self.__class__(...)` (looked for only where the unit `spells_class`). A call of a name in
    `own` (defined here, never imported) is recorded as OWN + name. `methods` holds every attribute call's name,
    `attribute_calls` (ATTRIBUTE_CALLS' captures) those on a plain name, read from their own captures."""
    for callee in called:  # (call function: (identifier))
        name = callee.text
        recorded = _class_name(callee) if name == b"cls" else bound_names.get(name)
        if recorded is None and star and name != b"cls":
            recorded = parsing.text(callee)
        elif recorded is not None and name in own:
            recorded = OWN + recorded
        if recorded is not None:
            yield recorded, callee.parent.child_by_field_name("arguments"), callee
    module_names = {module.encode("utf-8") for module in modules}
    names = attribute_calls.get("name", [])
    for root, callee, arguments in zip(attribute_calls.get("object", []), names, attribute_calls.get("arguments", []),
                                       strict=True):
        through_module = root.text in module_names
        if not through_module and not spells_class:
            continue
        name = callee.text
        if name == b"__class__":
            recorded = _class_name(callee)
        elif through_module:
            recorded = name.decode("utf-8", "replace")  # as parsing.text
        else:
            continue
        if recorded is not None:
            yield recorded, arguments, root
    on_plain_names = set(names)
    for callee in methods:  # (call function: (attribute attribute: (identifier))) on a longer chain or another object
        if callee in on_plain_names:
            continue
        attribute = callee.parent
        if callee.text == b"__class__":
            recorded = _class_name(callee)
        else:
            root = attribute.child_by_field_name("object")
            while root is not None and root.type == "attribute":
                root = root.child_by_field_name("object")
            if root is None or root.type != "identifier" or root.text not in module_names:
                continue
            recorded = parsing.text(callee)
        call = attribute.parent if recorded is not None else None  # Node.parent searches down from the root: once
        if call is not None and call.type == "call":
            yield recorded, call.child_by_field_name("arguments"), call


def _optioned(text: str) -> bool:
    """Whether the unit spells an argument object's attribute (`args.`): one pass over the text for all the names."""
    return bool(_argument_attributes().find_matches_as_indexes(text))


@functools.cache
def _argument_attributes() -> ahocorasick_rs.AhoCorasick:
    return ahocorasick_rs.AhoCorasick([f"{name}." for name in sorted(_argument_objects())])


@functools.cache
def _argument_objects() -> frozenset[str]:
    from ascend_feasibility.knowledge import load_context_conventions
    return frozenset(load_context_conventions().opt_in.argument_objects)


def _unliteral_keywords(arguments: Node) -> list[tuple[str, Node]]:
    """(keyword, value) of a call's keyword arguments whose value is no literal `_value` can read."""
    found = []
    for argument in arguments.named_children:
        value = argument.child_by_field_name("value") if argument.type == "keyword_argument" else None
        if value is None or (value.type in LITERAL_TYPES and _value(parsing.text(value)) is not UNKNOWN):
            continue
        found.append((parsing.text(argument.child_by_field_name("name")), value))
    return found


def _option_keywords(key: str, arguments: Node) -> list[tuple[str, str, str]]:
    """(key, keyword, dest) of a call's keywords whose value is `args.dest` (an argument object's attribute), and
    (key, keyword, "") of its other keywords not given a literal (read: `read` keeps those of a keyword some call
    passes an option)."""
    found = []
    for name, value in _unliteral_keywords(arguments):
        holder = value.child_by_field_name("object") if value.type == "attribute" else None
        if holder is not None and holder.type == "identifier" and parsing.text(holder) in _argument_objects():
            found.append((key, name, parsing.text(value.child_by_field_name("attribute"))))
        else:
            found.append((key, name, ""))
    return found


def _forwards(key: str, arguments: Node, rebound_of=None) -> list[tuple[str, str, str, str, int, str]]:
    """DefaultFacts.forwards of one call: its keywords given the calling function's own parameter of the same name
    with a literal default, which the function never rebinds (`use_vllm=use_vllm`), and its other keywords given a
    value no literal (caller ""). `rebound_of`: _rebound, or a unit's memo of it (_Reading.rebound_of)."""
    found = []
    for keyword, value in _unliteral_keywords(arguments):
        caller = _forwarding_caller(value, rebound_of) if value.type == "identifier" and parsing.text(value) == keyword else None
        found.append((key, keyword, *caller) if caller is not None else (key, keyword, "", "", -1, ""))
    return found


def _splat_forward(key: str, arguments: Node) -> tuple[str, str, str, str, int, str]:
    """DefaultFacts.forwards' record of a call that unpacks: (callee, SPLAT, caller, "", -1, "") where the only splat is
    the calling module-level function's own `**kwargs`, which it uses nowhere else (mast3r's `sparse_global_alignment(
    ..., **kw)` calling `sparse_scene_optimizer(..., **kw)`): the keywords it carries are its callers'; caller ""
    for any other splat."""
    other = (key, SPLAT, "", "", -1, "")
    splats = [a for a in arguments.named_children if a.type in {"list_splat", "dictionary_splat"}]
    name = splats[0].named_children[0] if len(splats) == 1 and splats[0].type == "dictionary_splat" \
        and splats[0].named_children else None
    function = _enclosing(arguments, "function_definition") if name is not None and name.type == "identifier" else None
    if function is None or function.parent is None or function.parent.type != "module":
        return other
    parameters = function.child_by_field_name("parameters")
    text = name.text
    if not any(p.type == "dictionary_splat_pattern" and p.named_children and p.named_children[0].text == text
               for p in (parameters.named_children if parameters is not None else [])):
        return other
    for node in parsing.walk(function.child_by_field_name("body"), limit=MAX_BODY_NODES):
        if node.type == "identifier" and node.text == text and (node.parent is None or node.parent.type != "dictionary_splat"):
            return other  # read or changed besides being handed on
    return (key, SPLAT, parsing.text(function.child_by_field_name("name")), "", -1, "")


def _forwarding_caller(name: Node, rebound_of=None) -> tuple[str, str, int, str] | None:
    """(caller, parameter, position, default) of the parameter `name` reads: a module-level function's or a module-level
    class's __init__ (as _target), or an undecorated method's of a module-level class ("Class.method"); None where the
    function rebinds it."""
    target = _target(name)
    if target is not None:
        function, (caller, parameter, index, default) = target
    else:
        parameter = parsing.text(name)
        function = _enclosing(name, "function_definition")
        found = _parameter(function, parameter) if function is not None else None
        holder = function.parent if function is not None else None
        cls = holder.parent if holder is not None and holder.type == "block" else None
        if (found is None or found[1] is None or found[1].type not in LITERAL_TYPES or found[0] < 1 or cls is None
                or cls.type != "class_definition" or cls.parent is None or cls.parent.type != "module"):
            return None
        caller = f"{parsing.text(cls.child_by_field_name('name'))}.{parsing.text(function.child_by_field_name('name'))}"
        index, default = found[0] - 1, parsing.text(found[1])
    rebound = (rebound_of or _rebound)(function)
    if rebound is None or parameter in rebound:
        return None
    return caller, parameter, index, default


def _class_name(node: Node) -> str | None:
    cls = _enclosing(node, "class_definition")
    name = cls.child_by_field_name("name") if cls is not None else None
    return parsing.text(name) if name is not None else None


def _shape(arguments: Node | None) -> tuple[int, frozenset[str], bool]:
    """A call's arguments as (positional arguments, keywords as "key=literal" or "key", whether it unpacks *args or
    **kwargs)."""
    positional, keywords, splat = 0, set(), False
    for argument in arguments.named_children if arguments is not None else []:
        kind = argument.type  # each read of a node's type builds a new string
        if kind in {"list_splat", "dictionary_splat"}:
            splat = True
        elif kind == "keyword_argument":
            key, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
            if key is None or value is None:
                continue
            literal = value.type in LITERAL_TYPES and _value(parsing.text(value)) is not UNKNOWN
            keywords.add(f"{parsing.text(key)}={parsing.text(value)}" if literal else parsing.text(key))
        elif kind != "comment":
            positional += 1
    return positional, frozenset(keywords), splat


def _records(shapes: dict[str, dict[tuple[int, frozenset[str], bool], int]]
             ) -> tuple[dict[str, tuple[int, int, list[str], bool]], dict[str, tuple[int, list[str]]]]:
    """DefaultFacts.calls and .passed from each recorded name's call shapes (_shape) and how often each occurs."""
    calls: dict[str, tuple[int, int, list[str], bool]] = {}
    passed: dict[str, list] = {}  # name → [fewest positional arguments, keyword names every call passes]
    for key, counted in shapes.items():
        calls[key] = (sum(counted.values()), max(positional for positional, _, _ in counted),
                      sorted(set().union(*(keywords for _, keywords, _ in counted))), any(splat for _, _, splat in counted))
        callee = _callee(key)  # the mark keys only the calls (project_calls)
        for positional, keywords, splat in counted:
            known = 0 if splat else positional  # after a *args, no position is known
            names = {keyword.partition("=")[0] for keyword in keywords}  # passed whatever a splat holds
            before = passed.get(callee)
            passed[callee] = [known, names] if before is None else [min(before[0], known), before[1] & names]
    return calls, {name: (fewest, sorted(names)) for name, (fewest, names) in passed.items()}


def _callee(key: str) -> str:
    """The name a call record is of, without the mark of a call of the file's own definition."""
    return key[len(OWN):] if key.startswith(OWN) else key


def _type_check(node: Node) -> bool:
    arguments = node.parent
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None else None
    return function is not None and parsing.text(function) in TYPE_CHECKS
