"""A project's own platform classes and the backends each selects by name: a backend that only other platforms return
never runs where the project's NPU platform is the one in use.

vLLM-style projects (vLLM, sglang, video-generation frameworks built the same way) hold one class per accelerator,
siblings under one interface, each naming its accelerator in a class attribute:

    class CudaPlatform(Platform):
        device_type: str = "cuda"
        @classmethod
        def get_attn_backend_cls(cls, selected_backend, head_size, dtype):
            if selected_backend == AttentionBackendEnum.SAGE_ATTN:
                return "pkg.attention.backends.sage_attn.SageAttentionBackend"
            ...
            return "pkg.attention.backends.flash_attn.FlashAttentionBackend"

    class NPUPlatform(Platform):
        device_type: str = "npu"
        @classmethod
        def get_attn_backend_cls(cls, selected_backend, head_size, dtype):
            return "pkg.attention.backends.sdpa.SDPABackend"

The selector loads the class its platform names (`resolve_obj_by_qualname(qualname)`); nothing else has to import the
backend module. On an Ascend host the project's NPU platform is the one in use (its file is the project's own NPU
code, context/project.py), so a backend module that only the other platforms' same-named method returns is selected
there only if someone ports it: `other-backend`, and so is what only it imports (a separately built kernel package).
Decided only where each NPU method of that name returns string literals alone (a constant, or its own ladder: the
backends it returns stay as they are); a method the NPU class does not define, or one returning anything else, says
nothing. A module the NPU platform returns as its one choice runs on Ascend, however else it is loaded.

Read per file (`platform_methods`): module-level classes with a class attribute of conventions [backends]
`platform_attributes` (device_type, device_name, _enum) whose value (a string, or an enum member's name) is an
accelerator token of [backends] npu, other or twin, or, for the NPU, a class whose methods call one of
[backends] `npu_calls`; each method's dotted strings. Joined per project by `platform_choice`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

MAX_METHOD_NODES = 20000
MAX_STRINGS = 64
DEFINITIONS = frozenset({"function_definition", "class_definition", "lambda"})

# (class, accelerator, line of the method, method, the dotted strings it writes, whether every return is a string)
PlatformMethod = tuple[str, str, int, str, tuple[str, ...], bool]


@dataclass(frozen=True)
class Words:
    attributes: frozenset[str]
    npu: frozenset[str]
    accelerators: frozenset[str]
    npu_calls: tuple[str, ...]


@functools.lru_cache(maxsize=1)
def _words() -> Words:
    backends = load_context_conventions().backends
    npu = frozenset(t.lower() for t in backends.npu)
    return Words(frozenset(backends.platform_attributes), npu,
                 npu | frozenset(t.lower() for t in (*backends.other, *backends.twin)), tuple(backends.npu_calls))


def platform_methods(root: Node, source: str) -> list[PlatformMethod]:
    """The methods of the file's platform classes; nothing read where the file names no platform attribute."""
    words = _words()
    if not any(attribute in source for attribute in words.attributes):
        return []
    found: list[PlatformMethod] = []
    npu_named = any(prefix in source for prefix in words.npu_calls)  # else no class is the NPU's by its calls
    for statement in root.named_children:
        definition = _definition(statement)
        if definition is None or definition.type != "class_definition":
            continue
        body = definition.child_by_field_name("body")
        if body is None:
            continue
        methods = [_definition(s) for s in body.named_children]
        methods = [m for m in methods if m is not None and m.type == "function_definition"]
        accelerator = _accelerator(body, words) or (
            "npu" if npu_named and any(_calls_npu(m, words) for m in methods) else None)
        if accelerator is None:
            continue
        name = parsing.text(definition.child_by_field_name("name"))
        for method in methods:
            strings, decided = _method_strings(method)
            if strings:
                found.append((name, accelerator, method.start_point.row + 1,
                              parsing.text(method.child_by_field_name("name")), strings, decided))
    return found


def _definition(statement: Node) -> Node | None:
    return statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement


def _accelerator(body: Node, words: Words) -> str | None:
    """The accelerator a class attribute names (`device_type: str = "npu"`, `_enum = PlatformEnum.CUDA`): "npu"
    where one names the NPU, else the first other one named, else None."""
    named = []
    for statement in body.named_children:
        assignment = parsing.statement_assignment(statement)
        if assignment is None:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier" or parsing.text(left) not in words.attributes:
            continue
        value = _string(right) if right.type == "string" else (
            parsing.text(right.child_by_field_name("attribute")) if right.type == "attribute" else None)
        if value is not None and value.lower() in words.accelerators:
            named.append(value.lower())
    return "npu" if any(v in words.npu for v in named) else (named[0] if named else None)


def _calls_npu(method: Node, words: Words) -> bool:
    for node in parsing.walk(method.child_by_field_name("body"), limit=MAX_METHOD_NODES):
        if node.type == "call":
            function = node.child_by_field_name("function")
            called = parsing.text(function) if function is not None and function.type == "attribute" else ""
            if any(called.startswith(f"{prefix}.") for prefix in words.npu_calls):
                return True
    return False


def _method_strings(method: Node) -> tuple[tuple[str, ...], bool]:
    """The dotted names the method writes as plain strings ("pkg.backends.sdpa.SDPABackend"), and whether every
    return of it returns a plain string (then those are all it can select); nested definitions are not its code."""
    strings: list[str] = []
    returns = 0
    decided = True
    body = method.child_by_field_name("body")
    for node in parsing.walk(body, limit=MAX_METHOD_NODES, prune=DEFINITIONS, source_order=True):
        if node.type == "string":
            value = _string(node)
            if value is not None and _dotted(value) and value not in strings and len(strings) < MAX_STRINGS:
                strings.append(value)
        elif node.type == "return_statement":
            returns += 1
            value = node.named_children[0] if node.named_children else None
            decided = decided and value is not None and value.type == "string" and _string(value) is not None
    return tuple(strings), decided and returns > 0


def _string(node: Node) -> str | None:
    """A plain string's text (no interpolation, no concatenation), else None."""
    if node.type != "string":
        return None
    parts = [c for c in node.named_children if c.type not in {"string_start", "string_end"}]
    if len(parts) != 1 or parts[0].type != "string_content":
        return None
    return parsing.text(parts[0])


def _dotted(value: str) -> bool:
    parts = value.split(".")
    return len(parts) >= 2 and all(part.isidentifier() for part in parts)


UNSELECTED = "a backend only other platforms select"
IMPORTED = "imported only by backends that only other platforms select"


def imported_reason(importers: str) -> str:
    """Why a module only such backends import is other-backend."""
    return (f"{IMPORTED} ({importers}); the project's NPU platform uses another backend there: port this only to get "
            f"that backend on NPU")


def is_unselected(reason: str | None) -> bool:
    """Is this the reach reason of a module only other platforms select, or of one only such modules import? Such
    code is a feature the NPU platform leaves out, not a porting item: info."""
    return reason is not None and reason.startswith((UNSELECTED, IMPORTED))


@dataclass
class PlatformChoice:
    unselected: dict[str, str] = field(default_factory=dict)  # path → why: modules only other platforms return
    npu_only: set[str] = field(default_factory=set)  # modules an NPU platform's method returns as its one choice
    selectors: dict[str, str] = field(default_factory=dict)  # unselected path → the platform file returning it


def platform_choice(facts, by_module: dict[str, str], context) -> PlatformChoice:
    """What the project's platforms select by name. `by_module`: dotted name → path (propagation.modules_by_name);
    `context`: the ProjectContext (a module the project's NPU code imports, such as a GPU worker an NPU worker
    subclasses, runs on Ascend; a string of other product code naming it may load it elsewhere)."""
    # the product's platforms: a test's stand-in (`class NPUPlatform(Platform): device_type = "npu"`) selects nothing
    methods = [(f.path, m) for f in facts if f.platform_methods and context.of(f.path).role in COUNTED_ROLES
               for m in f.platform_methods]
    npu = [(path, m) for path, m in methods if m[1] == "npu"]
    if not npu:
        return PlatformChoice()
    decided: dict[str, set[str]] = {}  # method name → what the NPU platforms' method returns, all of it
    undecided: set[str] = set()
    for _, (_, _, _, method, strings, settled) in npu:
        if settled:
            decided.setdefault(method, set()).update(strings)
        else:
            undecided.add(method)
    for method in undecided:
        decided.pop(method, None)
    npu_strings = {s for _, m in npu for s in m[4]}
    npu_paths = {p for p in map(lambda s: _module_path(s, by_module), npu_strings) if p is not None}
    choice = PlatformChoice()
    for method, strings in decided.items():
        if len(strings) == 1:
            path = _module_path(next(iter(strings)), by_module)
            if path is not None:
                choice.npu_only.add(path)
    platform_files = {path for path, _ in methods}
    named_elsewhere: set[str] = set()  # strings of other product code that runs
    npu_imported: set[str] = set()  # what the project's NPU code imports
    for f in facts:
        place = context.of(f.path)
        if f.path not in platform_files and place.role in COUNTED_ROLES and place.reach == "runs":
            named_elsewhere.update(text for text, _ in f.module_strings)
        elif place.reach == "npu-path" and place.role in COUNTED_ROLES:
            npu_imported.update(p for p in (by_module.get(m) or by_module.get(m.rsplit(".", 1)[0]) for m in f.imports)
                                if p is not None)
    for path, (cls, accelerator, line, method, strings, _) in methods:
        if accelerator == "npu" or method not in decided:
            continue
        for string in strings:
            target = _module_path(string, by_module)
            if target is None or target in npu_paths or target in npu_imported or target in choice.unselected \
                    or {string, string.rsplit(".", 1)[0]} & named_elsewhere:
                continue  # another file names it: it may be loaded from there
            npu_path, npu_cls = next((p, m[0]) for p, m in npu if m[3] == method)
            uses = ", ".join(sorted(decided[method])[:2])
            choice.unselected[target] = (
                f"{UNSELECTED}: {cls}.{method}() returns '{string}' ({path}:{line}); the "
                f"project's NPU platform {npu_cls} ({npu_path}) uses {uses} there, so this backend runs on Ascend "
                f"only if it is ported: port it only to get it on NPU")
            choice.selectors[target] = path
    return choice


def _module_path(string: str, by_module: dict[str, str]) -> str | None:
    """The project module holding the object a dotted string names ("pkg.backends.sdpa.SDPABackend"); None for a
    string naming a module or package itself (DeepSpeed's `op_builder_dir()` returns a package every backend loads)."""
    module = string.rsplit(".", 1)[0]
    if string in by_module or "." not in module:
        return None
    path = by_module.get(module)
    return None if path is None or path.endswith("__init__.py") else path
