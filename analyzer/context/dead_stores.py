"""A module-level variable bound again before anything reads it: the first value is a dead store.

PixArt's app/app_controlnet.py binds `device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")` at
line 53 and `device = "cuda" if ... else "cpu"` at line 265; every read (lines 181-232) sits in `generate()`, which
runs after the module has loaded. A finding in the first binding concerns a value nothing uses.

Per file, one pass over the module's statements (a file binding no name twice at its top level pays nothing more).
The first binding is dead when:
- both are plain `name = value` statements of the module itself (not in an `if`, a loop or a `try`);
- the second's value does not name it (`device = device.upper()` reads the first);
- the first's value calls nothing but what has no effect besides its value (EFFECT_FREE_CALLS: `torch.device(...)`,
  `torch.cuda.is_available()`, `os.getenv(...)`): a call with effects still runs, whatever becomes of its value;
- no statement between them may read the name: what runs there (a class body, a decorator, a parameter's default,
  any other statement; a function's body does not run at its definition) does not write it, nor the name of a
  function or class of the module whose body writes it or calls one that does, nor one of LOOKUPS (`globals()`,
  `eval`), which can read any name.
Another module's `from app import device` runs after the module loaded, and sees the second value.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.written_names import NAME_BYTES
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from tree_sitter import Node

# calls whose only effect is their value
EFFECT_FREE_CALLS = frozenset({"torch.device", "torch.cuda.is_available", "cuda.is_available", "os.getenv",
                               "os.environ.get", "getenv", "int", "str", "float", "bool", "len"})
STRING_METHODS = frozenset({b"format", b"join", b"lower", b"upper", b"strip", b"replace", b"split"})
LOOKUPS = frozenset({b"globals", b"locals", b"vars", b"eval", b"exec", b"__import__", b"import_module", b"__dict__",
                     b"getattr", b"sys"})
DEFINITIONS = frozenset({"function_definition", "class_definition", "decorated_definition"})
MAX_STATEMENTS = 5000
MAX_VALUE_NODES = 2000


def dead_stores(module: ModuleStatements) -> list[tuple[int, int, str]]:
    """(first line, last line, why) of module-level bindings the module binds again before anything reads them."""
    statements = module.statements[:MAX_STATEMENTS]
    bound: dict[bytes, list[int]] = {}
    for index, (statement, kind) in enumerate(zip(statements, module.kinds)):
        if kind != "expression_statement":  # an assignment is one: the other statements bind no plain name
            continue
        name = _bound_name(statement)
        if name is not None:
            bound.setdefault(name, []).append(index)
    twice = {name: places for name, places in bound.items() if len(places) > 1}
    if not twice:
        return []
    found = []
    for name, places in twice.items():
        readers = None
        for first, second in zip(places, places[1:]):
            store, again = statements[first], statements[second]
            if name in _words(_value(again)) or not effect_free(_value(store)):
                continue
            if readers is None:
                readers = _readers(statements, name)
            if any(_may_read(statement, name, readers) for statement in statements[first + 1:second]):
                continue
            shown = name.decode("utf-8", "replace")
            found.append((store.start_point.row + 1, store.end_point.row + 1,
                          f"line {store.start_point.row + 1}: module variable `{shown}` is bound again at line "
                          f"{again.start_point.row + 1} before anything reads it: a dead store"))
    return found


def _bound_name(statement: Node) -> bytes | None:
    assignment = parsing.statement_assignment(statement)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    if left is None or left.type != "identifier" or assignment.child_by_field_name("right") is None:
        return None
    return left.text


def _value(statement: Node) -> Node:
    return parsing.statement_assignment(statement).child_by_field_name("right")


def _words(node: Node | None) -> set[bytes]:
    return set(node.text.translate(NAME_BYTES).split()) if node is not None else set()


def effect_free(value: Node) -> bool:
    """Does the value call nothing but EFFECT_FREE_CALLS and STRING_METHODS of a string literal (`"cuda:{}".format(
    rank)`)? A value too large to read whole is not known to."""
    try:
        for node in parsing.walk(value, limit=MAX_VALUE_NODES, strict=True):
            if node.type == "call":
                function = node.child_by_field_name("function")
                if function is None or parsing.text(function) not in EFFECT_FREE_CALLS and not _string_method(function):
                    return False
            elif node.type in {"lambda", "await", "yield", "named_expression"}:
                return False
    except parsing.WalkLimit:
        return False
    return True


def _string_method(function: Node) -> bool:
    if function.type != "attribute":
        return False
    owner, method = function.child_by_field_name("object"), function.child_by_field_name("attribute")
    return owner is not None and owner.type == "string" and method is not None and method.text in STRING_METHODS


def _definition(statement: Node) -> Node | None:
    inner = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
    return inner if inner is not None and inner.type in {"function_definition", "class_definition"} else None


def _readers(statements: list[Node], name: bytes) -> set[bytes]:
    """The module's functions and classes whose body names `name`, or names one that does."""
    bodies = {}
    for statement in statements:
        definition = _definition(statement)
        if definition is not None and definition.child_by_field_name("name") is not None:
            bodies[definition.child_by_field_name("name").text] = _words(definition)
    readers = {defined for defined, words in bodies.items() if name in words or words & LOOKUPS}
    grew = True
    while grew:
        more = {defined for defined, words in bodies.items() if defined not in readers and words & readers}
        readers |= more
        grew = bool(more)
    return readers


def _may_read(statement: Node, name: bytes, readers: set[bytes]) -> bool:
    """Whether what the statement runs may read `name`: a function's definition runs its decorators and defaults."""
    definition = _definition(statement)
    if definition is not None and definition.type == "function_definition":
        parts = [c for c in statement.children if c.type == "decorator"] + [definition.child_by_field_name("parameters")]
        words = set().union(*(_words(part) for part in parts))
    else:
        words = _words(statement)
    return name in words or bool(words & readers) or bool(words & LOOKUPS)
