"""Calls of an object's `__call__` through module-level instances: `apply_openpose = OpenposeDetector()` at a module's
top level, then `apply_openpose(img, False)` (Uni-ControlNet's src/test/test.py). A method's calls are read by its name
(`x.method(...)`, attribute_hops' "pass:"/"pos:" records); an instance's call has no name of the method, so `__call__`
is read only where every construction of its class in the project is such a binding, and each bound name is used
only as the callee of a call in its file: then those calls are all the calls of `__call__` (unpassed_defaults.Forwards).

Records in DefaultFacts.foreign: "inst:Class:name:line" for a binding, its calls' "pass:Class.__call__:..." and
"pos:Class.__call__:N", "arg:Class.__call__:i=literal" (or "=?") for each positional argument (by class: every class
spells its method `__call__`), and "inst-escaped:Class" where a bound name is used otherwise (passed on, stored, rebound, imported
by name elsewhere is caught by the project's calls of that name), or a method of the class calls `self(...)` or
`self.__call__(...)`.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

CALL = "__call__"
BINDING = "inst:"
ESCAPED = "inst-escaped:"
MAX_NODES = 200_000
UNKNOWN = "?"  # a positional argument that is no literal


def module_call_bindings(tree: Node) -> list[tuple[Node, str]]:
    """The module-level `name = Callee(...)` statements of a file, a plain name on both sides: (the name's node, the
    callee's name), in source order (an instance of a class, or whatever a function returns)."""
    found = []
    for statement in tree.named_children:
        assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if assignment is None or assignment.type != "assignment":
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        function = right.child_by_field_name("function") if right is not None and right.type == "call" else None
        if left is not None and left.type == "identifier" and function is not None and function.type == "identifier":
            found.append((left, parsing.text(function)))
    return found


def records(tree: Node, bound: dict[str, str]) -> list[str]:
    """The file's instance records (see the module docstring). `bound`: the module-level names the file binds to
    functions and classes (local name → original name)."""
    bindings = []  # (instance name node, class)
    for left, callee in module_call_bindings(tree):
        cls = bound.get(callee)
        if cls is not None and cls[:1].isupper():
            bindings.append((left, cls))
    found = []
    if bindings:
        uses: dict[bytes, list[Node]] = {left.text: [] for left, _ in bindings}
        for node in parsing.walk(tree, limit=MAX_NODES):
            if node.type == "identifier" and node.text in uses:
                uses[node.text].append(node)
        for left, cls in bindings:
            others = [n for n in uses[left.text] if n.id != left.id]
            calls = [n.parent for n in others if n.parent is not None and n.parent.type == "call"
                     and n.parent.child_by_field_name("function") is not None
                     and n.parent.child_by_field_name("function").id == n.id]
            if len(calls) != len(others):
                found.append(ESCAPED + cls)
                continue
            found.append(f"{BINDING}{cls}:{parsing.text(left)}:{left.start_point.row + 1}")
            for call in calls:
                found += call_passes(call, f"{cls}.{CALL}")
    found += [ESCAPED + name for name in _calling_self(tree)]
    return found


def call_passes(call: Node, name: str) -> list[str]:
    """What a call of method `name` passes: "pass:name:keyword" ("=literal" where it is one), "pass:name:*" for a
    splat, and "pos:name:N" (its positional arguments, 0 too)."""
    arguments = call.child_by_field_name("arguments")
    found, positional = [], 0
    for argument in arguments.named_children if arguments is not None else []:
        if argument.type == "keyword_argument":
            key, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
            if key is not None:
                literal = value is not None and value.type in {"true", "false", "none", "integer", "string"}
                found.append(f"pass:{name}:{parsing.text(key)}" + (f"={parsing.text(value)}" if literal else ""))
        elif argument.type in {"list_splat", "dictionary_splat"}:
            found.append(f"pass:{name}:*")
        elif argument.type != "comment":
            literal = argument.type in {"true", "false", "none", "integer", "string"}
            found.append(f"arg:{name}:{positional}=" + (parsing.text(argument) if literal else UNKNOWN))
            positional += 1
    found.append(f"pos:{name}:{positional}")
    return found


def positional_default(records: set[str], key: str, index: int, default: str, value) -> bool:
    """Every instance call that reaches position `index` passes there the literal the default is (`apply_openpose(img,
    False)` for `hand=False`): `value` reads a literal's text (unpassed_defaults._value)."""
    given = [record.partition("=")[2] for record in records if record.startswith(f"arg:{key}:{index}=")]
    return bool(given) and all(text != UNKNOWN and value(text) == value(default) for text in given)


def _calling_self(tree: Node) -> list[str]:
    """The module-level classes defining `__call__` one of whose methods calls `self(...)`: a call of `__call__` no
    instance record holds."""
    names = []
    for statement in tree.named_children:
        cls = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if cls is None or cls.type != "class_definition" or b"self(" not in cls.text or b"__call__" not in cls.text:
            continue
        for node in parsing.walk(cls.child_by_field_name("body"), limit=MAX_NODES):
            function = node.child_by_field_name("function") if node.type == "call" else None
            attribute = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else None
            if function is not None and (function.type == "identifier" and function.text == b"self"
                                         or attribute is not None and attribute.text == CALL.encode()):
                names.append(parsing.text(cls.child_by_field_name("name")))
                break
    return names


def all_bound(cls: str, facts, calls: dict[str, list], escaped: set[str]) -> str | None:
    """Where every construction of `cls` in the project is a module-level instance binding whose name is only called:
    the bindings ("src/test/test.py's apply_openpose"), else None. The class must not be subclassed or passed as a value,
    and no binding's name may be called or used from another file."""
    # an explicit `x.__call__(...)` reaches such an instance only through a use the records hold (the name passed on, a
    # construction elsewhere), `super().__call__(...)` only from a subclass (escaped), `self.__call__` is _calling_self's
    if cls in escaped:
        return None
    bindings = []
    for f in facts:
        for record in f.default_foreign:
            if record == ESCAPED + cls:
                return None
            if record.startswith(f"{BINDING}{cls}:"):
                bindings.append((f.path, record.split(":")[2]))
    constructed = sum(shape[0] for key, found in calls.items() if key == cls or key.endswith("\0" + cls)
                      for _, shape in found)
    # the binding file's own calls of the name are the instance's (recorded under the name after a star import)
    if not bindings or constructed != len(bindings) or any(
            name in escaped or any(where != path for where, _ in calls.get(name, [])) for path, name in bindings):
        return None
    path, name = bindings[0]
    return f"{path}'s {name}" + (f" and {len(bindings) - 1} more" if len(bindings) > 1 else "")
