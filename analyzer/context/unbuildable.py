"""Classes whose constructor names a global the module never binds: building one raises NameError, so nothing the
project runs builds it, and findings inside it are `optional`.

A class copied in from another code base without its imports (`self.config = AttrDict(cfg)` and `ColumnParallelLinear(
...)` in `__init__`, neither imported nor defined in the file) cannot be built by anyone: a caller in the project, a
library user or a config entry alike gets `NameError` at its first statement naming the name. Per file, one pass:
- a name is read by a statement of `__init__` that always runs (a statement of its body itself, not one inside an
  `if`, a loop, a `try`, a `with`, a nested function or a lambda, nor in an annotation, which is not evaluated there);
- it is no builtin, no parameter, and the file binds it nowhere: no import, definition, assignment, loop or `with`
  target, `except ... as`, comprehension variable, `global`/walrus binding, parameter or lambda parameter of any
  function in it;
- the file cannot bind names any other way: no `from x import *`, no `globals()`, `exec`, `__builtins__` or
  `builtins` (which may add any name), no `match` statement (whose patterns bind names).
"""

from __future__ import annotations

import builtins

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from tree_sitter import Node

BUILTIN_NAMES = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__path__", "__package__",
                                            "__builtins__", "__loader__", "__annotations__", "__class__", "self", "cls",
                                            "_"}
OPAQUE_WORDS = (b"globals", b"exec", b"__builtins__", b"builtins", b"import *", b"match ")
ALWAYS_RUN = frozenset({"expression_statement", "return_statement", "assert_statement", "delete_statement",
                        "raise_statement"})
SKIPPED = frozenset({"lambda", "type", "function_definition", "class_definition", "list_comprehension",
                     "dictionary_comprehension", "set_comprehension", "generator_expression"})
MAX_NODES = 200_000


def unbuildable_classes(module: ModuleStatements, data: bytes) -> list[tuple[int, int, str]]:
    """(first line, last line, why) of the module-level classes whose `__init__` always reads a name the file never
    binds."""
    if b"__init__" not in data or any(word in data for word in OPAQUE_WORDS):
        return []  # no class has a constructor to read, or the module may bind names unseen
    classes = module.classes
    if not classes:
        return []
    found: list[tuple[Node, Node, dict[str, int]]] = []
    bound: set[str] | None = None
    try:  # the module's top-level bindings and `__init__`'s own settle most reads; the whole file is walked last
        for statement, cls in classes:
            init = _init(cls)
            reads = _always_read(init) if init is not None else None
            if not reads:
                continue
            if bound is None:
                bound = _top_bound(module)
            reads = {n: line for n, line in reads.items() if n not in bound}
            if reads:
                own = _bound_names(init)  # its parameters and locals
                reads = {n: line for n, line in reads.items() if n not in own}
            if reads:
                found.append((statement, cls, reads))
        if not found:
            return []
        bound |= _bound_names(module.root)
    except parsing.WalkLimit:
        return []
    result = []
    for statement, cls, reads in found:
        free = sorted((line, name) for name, line in reads.items() if name not in bound)
        if free:
            name = parsing.text(cls.child_by_field_name("name"))
            names = ", ".join(f"`{n}`" for _, n in free[:4])
            result.append((statement.start_point.row + 1, statement.end_point.row + 1,
                           f"line {statement.start_point.row + 1}: class {name}'s constructor reads {names} (line "
                           f"{free[0][0]}), which the module neither imports nor defines: building it raises "
                           "NameError, so nothing builds it"))
    return result


def _init(cls: Node) -> Node | None:
    body = cls.child_by_field_name("body")
    for statement in body.named_children if body is not None else []:
        inner = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if inner is not None and inner.type == "function_definition" and inner.child_by_field_name("name") is not None \
                and inner.child_by_field_name("name").text == b"__init__":
            return inner
    return None


def _always_read(init: Node) -> dict[str, int]:
    """name → first line of the names read by the statements of `__init__`'s own body that always run, but builtins."""
    body = init.child_by_field_name("body")
    reads: dict[str, int] = {}
    for statement in body.named_children if body is not None else []:
        if statement.type not in ALWAYS_RUN:
            continue
        for node in parsing.walk(statement, prune=SKIPPED):
            if node.type == "identifier" and _read(node):
                name = parsing.text(node)
                if name not in BUILTIN_NAMES:
                    reads.setdefault(name, node.start_point.row + 1)
    return reads


def _read(identifier: Node) -> bool:
    """Is the identifier a name the code looks up (not an attribute's name, a keyword's, or a binding)?"""
    parent = identifier.parent
    if parent is None or parent.type in SKIPPED:
        return False
    if parent.type == "attribute" and parent.child_by_field_name("attribute") == identifier:
        return False
    if parent.type == "keyword_argument" and parent.child_by_field_name("name") == identifier:
        return False
    return not _binds(identifier)


BINDING_PARENTS = frozenset({"parameters", "lambda_parameters", "default_parameter", "typed_parameter",
                             "typed_default_parameter", "list_splat_pattern", "dictionary_splat_pattern",
                             "global_statement", "nonlocal_statement", "aliased_import", "dotted_name",
                             "pattern_list", "tuple_pattern", "list_pattern", "as_pattern_target"})


def _binds(identifier: Node) -> bool:
    parent = identifier.parent
    if parent is None:
        return False
    if parent.type in {"function_definition", "class_definition"}:
        return parent.child_by_field_name("name") == identifier
    if parent.type in {"assignment", "augmented_assignment", "for_statement", "for_in_clause", "named_expression"}:
        field = "name" if parent.type == "named_expression" else "left"
        return parent.child_by_field_name(field) == identifier
    if parent.type in {"default_parameter", "typed_default_parameter"}:
        return parent.child_by_field_name("name") == identifier
    if parent.type == "dotted_name":  # an import's module (`import torch.nn` binds torch) or a name imported from one
        statement = parent.parent
        return statement is not None and statement.type in {"import_statement", "import_from_statement",
                                                             "aliased_import"}
    if parent.type == "as_pattern":  # `with x as y`, `except E as y`
        return parent.child_by_field_name("alias") == identifier or identifier.prev_sibling is not None \
            and identifier.prev_sibling.type == "as"
    if parent.type in {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list"}:
        outer = parent
        while outer is not None and outer.type in {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list",
                                                   "expression_list", "parenthesized_expression"}:
            child, outer = outer, outer.parent
        return outer is not None and outer.type in {"assignment", "for_statement", "for_in_clause",
                                                    "augmented_assignment"} and outer.child_by_field_name("left") == child
    return parent.type in BINDING_PARENTS


SIMPLE_TOP = frozenset({"import_statement", "import_from_statement", "future_import_statement", "expression_statement",
                        "function_definition", "class_definition", "decorated_definition", "comment"})


def _top_bound(module: ModuleStatements) -> set[str]:
    """The names the module's top-level statements bind: imports, definitions and assignments are read from their
    heads, a compound statement (`try: import apex` ... `except ImportError: apex = None`) whole."""
    bound: set[str] = set()
    for statement, kind, definition, head in zip(module.statements, module.kinds, module.definitions, module.heads,
                                                 strict=True):
        if kind not in SIMPLE_TOP:
            bound |= _bound_names(statement)
            continue
        if definition is not None:
            name = definition.child_by_field_name("name")
            if name is not None:
                bound.add(parsing.text(name))
        elif kind == "expression_statement":
            assignment = head if head is not None and head.type == "assignment" else None
            left = assignment.child_by_field_name("left") if assignment is not None else None
            if left is not None:
                bound |= {parsing.text(n) for n in parsing.walk(left) if n.type == "identifier"}
            elif b":=" in statement.text:
                bound |= _bound_names(statement)
        elif kind != "comment":
            bound |= _bound_names(statement)
    return bound


def _bound_names(root: Node) -> set[str]:
    """Every name the subtree binds anywhere (any scope: a name bound somewhere in the file may be the global)."""
    bound: set[str] = set()
    for node in parsing.walk(root, limit=MAX_NODES, strict=True):
        if node.type == "identifier" and _binds(node):
            bound.add(parsing.text(node))
    return bound
