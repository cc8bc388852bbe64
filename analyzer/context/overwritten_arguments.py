"""A string passed for a parameter the callee overwrites before reading it: the value passed is never used.

`Drag("cuda:0", size, size, 25)` where `Drag.__init__(self, device, ...)` runs `self.device = device` and, two
statements later, `self.device = 'cuda'` before anything reads `self.device`: the literal at the call reaches no
device API (the one that does is the second store, reported on its own). A finding on the call's line concerns a value
nothing uses: `optional`, with the reason.

Per file, one pass (overwritten_arguments). The callee is a module-level function, or a module-level class deriving
from nothing but `object` (a base class, another file's, may define a property or `__setattr__` that reads the value)
whose body defines no `__setattr__` and neither a method nor a class attribute named after the attribute (a
property's setter reads it); the file
binds the name nowhere else at its top level (no second definition, no assignment). A parameter is overwritten when,
in the callee's own body (the statements of the body itself, which always run in order):
- the first statement naming it is `p = <value>`, the value not naming it (a function rebinding its argument); or
- it is named once in the whole body, by `self.a = p` (a method's first parameter `self`), and a later statement
  `self.a = <value>` stores again, its value not naming `self`; every statement between names `self` only as the
  target of `self.b = <value>` for another attribute, with a value not naming `self` (a call on `self` may read it).
The file must not read names in other ways (`locals()`, `vars()`, `inspect`, `setattr`, `__dict__`).
A call site counts when it names the callee by its plain name, the argument is a string literal passed by position
(before any `*args`) or by keyword, every argument of the call is a literal, a name or an attribute (no nested call
that may itself be a finding on the line) and the call is the whole statement or the whole right side of an
assignment (`Drag("cuda:0").to(x)` uses more than the argument). The range is the string's own lines.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from tree_sitter import Node

OPAQUE_WORDS = (b"locals", b"vars(", b"inspect", b"setattr", b"__dict__", b"__setattr__", b"exec", b"eval")
SIMPLE_ARGUMENTS = frozenset({"string", "integer", "float", "true", "false", "none", "identifier", "attribute",
                              "concatenated_string", "unary_operator"})
PARAMETER_TYPES = frozenset({"identifier", "default_parameter", "typed_parameter", "typed_default_parameter"})
MAX_NODES = 400_000


def overwritten_arguments(module: ModuleStatements, data: bytes, called: list[Node]) -> list[tuple[int, int, str]]:
    """(first line, last line, why) of the string arguments a call of the module passes for a parameter its callee,
    a function or class of the module, overwrites before reading. `called`: the callee names of the module's calls
    by plain name (`f` of `f(...)`), the unit's query captures."""
    if any(word in data for word in OPAQUE_WORDS):
        return []
    defined = {parsing.text(d.child_by_field_name("name")) for _, d in module.classes + module.functions}
    if not defined:
        return []
    if module.root.descendant_count > MAX_NODES and _past_limit(module.root):
        return []
    # the calls of the module's own definitions first: only their callees are read (most files have none)
    calls = [(call, parsing.text(call.child_by_field_name("function")))
             for call in parsing.in_walk_order(name.parent for name in called if parsing.text(name) in defined)]
    callees = _callees(module, {name for _, name in calls}) if calls else {}
    if not callees:
        return []
    found = []
    for node, callee_name in calls:
        callee = callees.get(callee_name)
        if callee is None or not _whole_statement(node):
            continue
        arguments = node.child_by_field_name("arguments")
        if arguments is None or arguments.type != "argument_list" or not all(
                _simple(a.child_by_field_name("value") if a.type == "keyword_argument" else a)
                for a in arguments.named_children):
            continue
        positional, keywords, dead = callee
        index = 0
        for argument in arguments.named_children:
            if argument.type == "keyword_argument":
                name = argument.child_by_field_name("name")
                value = argument.child_by_field_name("value")
                parameter = parsing.text(name) if name is not None else None
                if parameter not in keywords:
                    parameter = None
            else:
                value = argument
                parameter = positional[index] if index < len(positional) else None
                index += 1
            why = dead.get(parameter) if parameter is not None else None
            if why is not None and value is not None and value.type in ("string", "concatenated_string"):
                line = value.start_point.row + 1
                found.append((line, value.end_point.row + 1, f"line {line}: {why}"))
    return found


def _callees(module: ModuleStatements, called: set[str]) -> dict[str, tuple[list[str], set[str], dict[str, str]]]:
    """name → (positional parameters, keyword-passable parameters, overwritten parameter → why) of the module's
    functions and classes with an overwritten parameter, bound once at the module's top level, among `called`."""
    counts: dict[str, int] = {}
    for _, definition in module.classes + module.functions:
        name = parsing.text(definition.child_by_field_name("name"))
        counts[name] = counts.get(name, 0) + 1
    for _, assignment in module.assignments:
        for node in parsing.walk(assignment.child_by_field_name("left"), limit=200):
            if node.type == "identifier":
                counts[parsing.text(node)] = counts.get(parsing.text(node), 0) + 2
    result = {}
    for _, definition in module.classes:
        name = parsing.text(definition.child_by_field_name("name"))
        init = _method(definition, "__init__") if name in called else None
        if counts.get(name) != 1 or init is None or not _plain_class(definition):
            continue
        positional, keywords = _parameters(init)
        if not positional:
            continue
        dead = _overwritten(init, positional[0], f"{name}.__init__", lambda a, cls=definition: not _class_binds(cls, a))
        if dead:
            result[name] = (positional[1:], keywords - {positional[0]}, dead)
    for _, definition in module.functions:
        name = parsing.text(definition.child_by_field_name("name"))
        if counts.get(name) != 1 or name not in called:
            continue
        positional, keywords = _parameters(definition)
        dead = _overwritten(definition, None, name, lambda a: False)
        if dead:
            result[name] = (positional, keywords, dead)
    return result


def _plain_class(cls: Node) -> bool:
    """Derives from nothing but `object`, and defines no `__setattr__`."""
    bases = cls.child_by_field_name("superclasses")
    names = [parsing.text(b) for b in bases.named_children] if bases is not None else []
    return all(n == "object" for n in names) and _method(cls, "__setattr__") is None


def _method(cls: Node, name: str) -> Node | None:
    body = cls.child_by_field_name("body")
    for statement in body.named_children if body is not None else []:
        inner = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if inner is not None and inner.type == "function_definition" and \
                parsing.text(inner.child_by_field_name("name")) == name:
            return inner
    return None


def _class_binds(cls: Node, name: str) -> bool:
    """The class body defines a method named `name` or assigns the name (`device = property(...)`)."""
    if _method(cls, name) is not None:
        return True
    body = cls.child_by_field_name("body")
    for statement in body.named_children if body is not None else []:
        assignment = parsing.statement_assignment(statement)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        if left is not None and name in {parsing.text(n) for n in parsing.walk(left, limit=200) if n.type == "identifier"}:
            return True
    return False


def _parameters(function: Node) -> tuple[list[str], set[str]]:
    """(parameters passable by position, before any `*`; all named parameters)."""
    parameters = function.child_by_field_name("parameters")
    positional: list[str] = []
    named: set[str] = set()
    by_position = True
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type in ("list_splat_pattern", "keyword_separator", "dictionary_splat_pattern"):
            by_position = False
            continue
        if parameter.type not in PARAMETER_TYPES:
            continue
        name = parameter if parameter.type == "identifier" else \
            parameter.child_by_field_name("name") or parameter.named_children[0]
        if name is None or name.type != "identifier":
            by_position = False
            continue
        named.add(parsing.text(name))
        if by_position:
            positional.append(parsing.text(name))
    return positional, named


def _overwritten(function: Node, owner: str | None, shown: str, settable) -> dict[str, str]:
    """parameter → why, for the parameters `function` overwrites before reading (module docstring)."""
    body = function.child_by_field_name("body")
    statements = body.named_children if body is not None else []
    positional, named = _parameters(function)
    result = {}
    asked = named - ({owner} if owner else set())
    by_statement = [_names_in(statement) for statement in statements] if asked else []
    for parameter in asked:
        reads = [(i, node) for i, names in enumerate(by_statement) for node in names.get(parameter.encode(), ())]
        if not reads:
            continue
        first, node = reads[0]
        assignment = parsing.statement_assignment(statements[first])
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if left is not None and left == node and right is not None and not list(_names(right, parameter)):
            result[parameter] = (f"{shown} binds its parameter `{parameter}` again at line "
                                 f"{statements[first].start_point.row + 1} before reading it: the value passed here "
                                 "is never used")
            continue
        if owner is None or len(reads) != 1 or right is None or right != node or left is None:
            continue
        attribute = _self_attribute(left, owner)
        if attribute is None or not settable(attribute):
            continue
        again = _stored_again(statements[first + 1:], owner, attribute)
        if again is not None:
            result[parameter] = (f"{shown} stores `{parameter}` in `{owner}.{attribute}` (line "
                                 f"{statements[first].start_point.row + 1}) and sets `{owner}.{attribute}` again at line "
                                 f"{again} before anything reads it: the value passed here is never used")
    return result


def _stored_again(statements: list[Node], owner: str, attribute: str) -> int | None:
    """Line of the first statement storing `owner.attribute` again, when no statement before it may read it."""
    for statement in statements:
        if not list(_names(statement, owner)):
            continue
        assignment = parsing.statement_assignment(statement)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        stored = _self_attribute(left, owner) if left is not None else None
        if stored is None or right is None or list(_names(right, owner)):
            return None
        if stored == attribute:
            return statement.start_point.row + 1
    return None


def _self_attribute(node: Node, owner: str) -> str | None:
    """`a` for `self.a`, else None."""
    if node.type != "attribute":
        return None
    target = node.child_by_field_name("object")
    attribute = node.child_by_field_name("attribute")
    if target is None or target.type != "identifier" or parsing.text(target) != owner or attribute is None:
        return None
    return parsing.text(attribute)


def _names(root: Node, name: str):
    """The identifiers in `root` that are the name `name` (not an attribute's or a keyword's name)."""
    wanted = name.encode()
    for node in parsing.walk(root, limit=MAX_NODES, source_order=True):
        if node.type == "identifier" and node.text == wanted and _is_name(node):
            yield node


def _names_in(root: Node) -> dict[bytes, list[Node]]:
    """name's bytes → what `_names(root, name)` yields, for every name, from one walk."""
    found: dict[bytes, list[Node]] = {}
    for node in parsing.walk(root, limit=MAX_NODES, source_order=True):
        if node.type == "identifier" and _is_name(node):
            found.setdefault(node.text, []).append(node)
    return found


def _is_name(identifier: Node) -> bool:
    """Not an attribute's or a keyword's name."""
    parent = identifier.parent
    if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == identifier:
        return False
    return not (parent is not None and parent.type == "keyword_argument"
                and parent.child_by_field_name("name") == identifier)


def _past_limit(root: Node) -> bool:
    """The module has more named nodes than MAX_NODES: too large to read (the limit's count is of named nodes, which
    `descendant_count` overstates)."""
    try:
        for _ in parsing.walk(root, limit=MAX_NODES, strict=True):
            pass
    except parsing.WalkLimit:
        return True
    return False


def _simple(value: Node | None) -> bool:
    return value is not None and value.type in SIMPLE_ARGUMENTS


def _whole_statement(call: Node) -> bool:
    """The call is the whole expression statement, or the whole right side of an assignment statement."""
    parent = call.parent
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("right") == call:
        parent = parent.parent
    return parent is not None and parent.type == "expression_statement"
