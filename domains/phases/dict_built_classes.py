"""Classes a file builds only by name, through `globals()[key](...)` over the keys of a dict the project ships.

A tool-loading chatbot builds its tools with `for class_name, device in load_dict.items(): self.models[class_name] =
globals()[class_name](device=device)` inside `ConversationBot.__init__(self, load_dict)`, and its `__main__` block
passes `load_dict = {'Grounded_dino_sam_inpainting': 'cuda:0'}` (round 31 A2 C6, B1 C1, B2 C1). Its other tool classes
are named by no code: they are built only when a user edits that dict, so their findings are `optional`.

The reader answers only where every use of `globals()` in the file is one of:
- a lookup called at once, `globals()[key](...)`, whose key is the loop variable of `for key, _ in D.items()`,
  `for key in D` or `for key in D.keys()`, and D is a dict whose every value the file fixes: a name bound only to dict
  literals of plain string keys, or a parameter of the enclosing function (of a class's `__init__`: the class) that
  every call of that function or class in the file passes as such a dict (a literal, or a name bound only to them);
- a loop `for key, value in globals().items():` whose lookups are each under `if getattr(value, "ATTR", ...)`: it
  builds the classes whose body sets `ATTR` to a true constant (a template tool built from loaded ones), no other.
Any other use (`globals().get(x)`, a key read from a CLI argument, a lookup under no such filter, `fire.Fire()`,
`inspect.getmembers`) may build any class, and the file gives nothing. A class some identifier of the file's code
names outside its own definition (a direct call, a base class, a reference) is reached as that code is, and is no
candidate. The project pass (analyzer/context/dict_built.py) keeps those no other file names, and whose builder no
other file names either (another caller may pass another dict).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from tree_sitter import Node

OTHER_LOOKUPS = ("Fire", "getmembers")  # calls that may look any name up: the file gives nothing
TRUE_CONSTANTS = frozenset({"true", "integer", "string"})  # `template_model = True` (a non-empty literal)


def dict_built_classes(unit: Unit) -> list[tuple[str, int, int, str, str]]:
    """(class, first line, last line, why, builder) of the module-level classes only a by-name lookup over a shipped
    dict could build, and that the shipped dicts do not name. `builder`: the class or function whose parameter the
    dict is ("" for a dict the file binds itself)."""
    data = unit.source.data
    if b"globals()" not in data or any(name.encode() in data for name in OTHER_LOOKUPS):
        return []
    root = unit.tree()
    if root.has_error:
        return []
    classes = _module_classes(root)
    if not classes:
        return []
    shipped: set[str] = set()
    attributes: set[str] = set()
    where: list[str] = []
    builders: set[str] = set()
    for call in parsing.walk(root):
        if call.type != "call" or parsing.text(call.child_by_field_name("function") or call) != "globals":
            continue
        found = _use(call, root)
        if found is None:
            return []
        kind, value, note, builder = found
        if kind == "keys":
            shipped |= value
            where.append(note)
            builders.add(builder)
        elif kind == "attribute":
            attributes |= value
    if not where:
        return []
    named = _named_outside(root, classes)
    result = []
    for name, node in classes.items():
        if name in shipped or name in named or _sets_true(node, attributes):
            continue
        keys = ", ".join(sorted(shipped)) or "no class"
        why = (f"class {name} is built only by name, {'; '.join(where)}, and the dicts the project passes name only "
               f"{keys}: it is built only when a user adds it there")
        result.append((name, node.start_point.row + 1, node.end_point.row + 1, why, sorted(builders)[0]))
    return result


def _module_classes(root: Node) -> dict[str, Node]:
    """Undecorated module-level class definitions by name."""
    found = {}
    for statement in root.named_children:
        if statement.type == "class_definition":
            name = statement.child_by_field_name("name")
            if name is not None:
                found[parsing.text(name)] = statement
    return found


def _use(call: Node, root: Node) -> tuple[str, set[str], str, str] | None:
    """What a `globals()` call does: ("keys", the shipped keys, where, builder) for a lookup over a shipped dict's keys,
    ("attribute", {ATTR}, "", "") for one filtered by `getattr(value, "ATTR")` in a loop over globals(), ("loop", ...)
    for that loop itself; None for any other use."""
    parent = call.parent
    if parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == call:
        loop = parent.parent.parent if parent.parent is not None else None  # globals().items() → call → for
        if parsing.text(parent.child_by_field_name("attribute") or parent) == "items" and loop is not None \
                and loop.type == "for_statement" and loop.child_by_field_name("right") == parent.parent:
            return "loop", set(), "", ""
        return None
    if parent is None or parent.type != "subscript" or parent.child_by_field_name("value") != call:
        return None
    called = parent.parent
    if called is None or called.type != "call" or called.child_by_field_name("function") != parent:
        return None
    key = parent.child_by_field_name("subscript")
    if key is None or key.type != "identifier":
        return None
    loop = _binding_loop(parent, parsing.text(key))
    if loop is None:
        return None
    right = loop.child_by_field_name("right")
    source = _iterated_dict(right)
    if source is None:
        return None
    if source.type == "call":  # globals().items(): a template loop, filtered by an attribute
        attribute = _attribute_filter(parent, loop)
        return ("attribute", {attribute}, "", "") if attribute else None
    keys, note, builder = _shipped_keys(source, loop, root)
    if keys is None:
        return None
    line = called.start_point.row + 1
    return "keys", keys, f"`globals()[{parsing.text(key)}](...)` at line {line} over the keys of `{parsing.text(source)}`{note}", builder


def _binding_loop(node: Node, key: str) -> Node | None:
    """The innermost `for` whose target binds `key` (alone or first of a pair)."""
    current = node.parent
    while current is not None:
        if current.type == "for_statement":
            left = current.child_by_field_name("left")
            if left is not None:
                first = left.named_children[0] if left.type in ("pattern_list", "tuple_pattern") and left.named_children else left
                if first.type == "identifier" and parsing.text(first) == key:
                    return current
        if current.type in ("function_definition", "class_definition"):
            return None
        current = current.parent
    return None


def _iterated_dict(right: Node | None) -> Node | None:
    """D of `D.items()`, `D.keys()` or `D` (an identifier); the `globals()` call of `globals().items()`."""
    if right is None:
        return None
    if right.type == "identifier":
        return right
    if right.type == "call" and not (right.child_by_field_name("arguments") or right).named_children:
        function = right.child_by_field_name("function")
        if function is not None and function.type == "attribute" \
                and parsing.text(function.child_by_field_name("attribute") or function) in ("items", "keys"):
            target = function.child_by_field_name("object")
            if target is not None and target.type == "identifier":
                return target
            if target is not None and target.type == "call" and parsing.text(target) == "globals()":
                return target
    return None


def _attribute_filter(lookup: Node, loop: Node) -> str | None:
    """ATTR of an `if getattr(value, "ATTR", ...)` around the lookup, inside the loop over globals().items()."""
    left = loop.child_by_field_name("left")
    names = [parsing.text(n) for n in (left.named_children if left is not None else [])]
    if len(names) != 2:
        return None
    current = lookup.parent
    while current is not None and current != loop:
        if current.type == "if_statement":
            condition = current.child_by_field_name("condition")
            if condition is not None and condition.type == "call" and parsing.callee_name(condition) == "getattr":
                arguments = [a for a in (condition.child_by_field_name("arguments") or condition).named_children]
                if len(arguments) >= 2 and parsing.text(arguments[0]) == names[1] and arguments[1].type == "string":
                    return _plain(arguments[1])
        current = current.parent
    return None


def _shipped_keys(source: Node, loop: Node, root: Node) -> tuple[set[str] | None, str, str]:
    """The keys every value of the dict `source` may hold, with a note naming where they come from, and the builder
    whose parameter it is; None where some value is not fixed by the file."""
    name = parsing.text(source)
    function = parsing.enclosing(loop, ("function_definition",))
    parameters = function.child_by_field_name("parameters") if function is not None else None
    names = [parsing.text(p) for p in (parameters.named_children if parameters is not None else [])
             if p.type == "identifier"]
    if name not in names:
        keys = _bound_dicts(root, name, None)
        return (keys, "", "") if keys is not None else (None, "", "")
    position = names.index(name)
    builder = parsing.text(function.child_by_field_name("name") or function)
    owner = parsing.enclosing(function, ("class_definition",))
    if builder == "__init__" and owner is not None:
        builder = parsing.text(owner.child_by_field_name("name") or owner)
        position -= 1  # self
    elif owner is not None:
        return None, "", ""  # a method: called through an instance nothing here resolves
    keys: set[str] = set()
    lines = []
    for call in parsing.walk(root):
        if call.type != "call" or parsing.text(call.child_by_field_name("function") or call) != builder:
            continue
        argument = _argument(call, position, name)
        if argument is None:
            return None, "", ""
        found = _dict_keys(argument) if argument.type == "dictionary" else (
            _bound_dicts(root, parsing.text(argument), call) if argument.type == "identifier" else None)
        if found is None:
            return None, "", ""
        keys |= found
        lines.append(str(call.start_point.row + 1))
    if not lines:
        return None, "", ""
    return keys, f" that {builder}(...) receives (line {', '.join(lines)})", builder


def _argument(call: Node, position: int, name: str) -> Node | None:
    """The argument a call passes at `position` or as `name=`."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or position < 0:
        return None
    positional = []
    for argument in arguments.named_children:
        if argument.type == "keyword_argument":
            if parsing.text(argument.child_by_field_name("name") or argument) == name:
                return argument.child_by_field_name("value")
        elif argument.type in ("list_splat", "dictionary_splat"):
            return None
        elif argument.type != "comment":
            positional.append(argument)
    return positional[position] if position < len(positional) else None


def _bound_dicts(root: Node, name: str, near: Node | None) -> set[str] | None:
    """The keys of the dict literals `name` is bound to, in the scope of `near` (the module's top level and its blocks
    when None or at module level); None where one binding is anything else or there is none."""
    scope = parsing.enclosing(near, ("function_definition",)) if near is not None else None
    keys: set[str] = set()
    bound = False
    for node in parsing.walk(scope if scope is not None else root):
        if node.type not in ("assignment", "augmented_assignment"):
            continue
        if scope is None and parsing.enclosing(node, ("function_definition", "class_definition")) is not None:
            continue
        left = node.child_by_field_name("left")
        if left is None or left.type != "identifier" or parsing.text(left) != name:
            continue
        value = node.child_by_field_name("right")
        found = _dict_keys(value) if node.type == "assignment" and value is not None and value.type == "dictionary" else None
        if found is None:
            return None
        keys |= found
        bound = True
    return keys if bound else None


def _dict_keys(table: Node) -> set[str] | None:
    """The plain string keys of a dict literal; None for a splat, a comprehension or a computed key."""
    keys = set()
    for pair in table.named_children:
        if pair.type == "comment":
            continue
        key = pair.child_by_field_name("key") if pair.type == "pair" else None
        word = _plain(key) if key is not None else None
        if word is None:
            return None
        keys.add(word)
    return keys


def _plain(node: Node) -> str | None:
    """The text of a plain string literal, None for anything else."""
    if node.type != "string":
        return None
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    if len(parts) > 1 or any(c.type != "string_content" for c in parts):
        return None
    return parsing.text(parts[0]) if parts else ""


def _named_outside(root: Node, classes: dict[str, Node]) -> set[str]:
    """The classes an identifier of the code names outside their own definition. A function's parameter of the same
    name (a template tool's `def __init__(self, ImageCaptioning, ImageEditing)`) is a local, in the whole function, and
    an attribute's or a keyword argument's name (`self.ImageEditing`) is no global."""
    spans = {(node.start_byte, node.end_byte): name for name, node in classes.items()}
    named: set[str] = set()
    stack: list[tuple[Node, str | None, frozenset[str]]] = [(root, None, frozenset())]
    while stack:
        node, inside, local = stack.pop()
        if node.type == "identifier":
            word = parsing.text(node)
            if word in classes and word != inside and word not in local and not _member(node):
                named.add(word)
            continue
        owner = spans.get((node.start_byte, node.end_byte), inside) if node.type == "class_definition" else inside
        if node.type in ("function_definition", "lambda"):
            local = local | _parameters(node, classes)
        stack.extend((child, owner, local) for child in node.named_children)
    return named


def _member(identifier: Node) -> bool:
    """Is the identifier an attribute's or a keyword argument's name (`self.ImageEditing`, `f(ImageEditing=x)`)?"""
    parent = identifier.parent
    if parent is None:
        return False
    field = "attribute" if parent.type == "attribute" else "name" if parent.type == "keyword_argument" else None
    return field is not None and parent.child_by_field_name(field) == identifier


def _parameters(function: Node, classes: dict[str, Node]) -> frozenset[str]:
    """The parameters of a function named like one of the classes."""
    parameters = function.child_by_field_name("parameters")
    found = set()
    for parameter in parameters.named_children if parameters is not None else []:
        name = parameter if parameter.type == "identifier" else parameter.child_by_field_name("name") \
            if parameter.type in ("default_parameter", "typed_default_parameter") else \
            next((c for c in parameter.named_children if c.type == "identifier"), None) \
            if parameter.type == "typed_parameter" else None
        if name is not None and parsing.text(name) in classes:
            found.add(parsing.text(name))
    return frozenset(found)


def _sets_true(node: Node, attributes: set[str]) -> bool:
    """Does the class body set one of `attributes` to a true constant (`template_model = True`)?"""
    if not attributes:
        return False
    body = node.child_by_field_name("body")
    for statement in body.named_children if body is not None else []:
        assignment = parsing.statement_assignment(statement)
        if assignment is None:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and parsing.text(left) in attributes and right is not None \
                and right.type in TRUE_CONSTANTS and parsing.text(right) not in ("0", '""', "''"):
            return True
    return False
