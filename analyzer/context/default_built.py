"""A no-CUDA gate in the constructor of a class the file builds on its default path: a device check, not a feature's gate.

`class Cache: def __init__(self): if not torch.cuda.is_available(): raise RuntimeError("needs a GPU")`, built by
`cache = Cache() if use_cache else None` in a function whose `use_cache: bool = True` (round 28 verdicts V4, port
hunk 7). A gate that only raises or warns reads as a CUDA-only feature's gate (cuda-only-guarded) where the feature is
one a user turns on; here the default call builds the class, so a host without CUDA fails on the default path: the
check is a device choice to port (DEV104 at the probe, priced, and its dependents with it).

The signal is structure, read in the gate's own file: the `if not <probe>:` statement has no else, its body only
raises, warns or returns, it sits in `__init__` directly in a class body, and the file builds that class (`Name(...)`)
unconditionally in a function or module, under a test of a parameter whose default is True (the conditional
expression's or `if`'s condition is that bare name), or in either arm of a test of the data (`if isinstance(ids,
list):`), whose arms both run on the default path for some input. A class built only under a parameter whose default is False or
None (an opt-in), built only in an else arm, or built in no place of this file keeps today's reading.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import exits_early, only_raises_or_warns
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

SCOPES = {"function_definition", "module"}
PARAMETERS_WITH_DEFAULT = {"default_parameter", "typed_default_parameter"}
MAX_NODES = 200_000


def gate_of(probe: Node) -> Node | None:
    """The `if not <probe>:` statement whose whole condition negates `probe` (a call), or None."""
    node = probe
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    negation = node.parent
    if negation is None or negation.type != "not_operator":
        return None
    statement = negation.parent
    if statement is None or statement.type != "if_statement" or statement.child_by_field_name("condition") != negation:
        return None
    return statement


def built_by_default(statement: Node) -> Node | None:
    """The construction, in this file and on its default path, of the class whose `__init__` holds `statement` (an
    `if not <probe>:` gate with no else that only raises, warns or returns), or None."""
    if statement.type != "if_statement" or statement.children_by_field_name("alternative"):
        return None
    body = statement.child_by_field_name("consequence")
    if body is None or not (only_raises_or_warns(body) or exits_early(body)):
        return None
    condition = statement.child_by_field_name("condition")
    if condition is None or condition.type != "not_operator":
        return None
    function = parsing.enclosing(statement, {"function_definition"})
    if function is None or parsing.text(function.child_by_field_name("name")) != "__init__":
        return None
    block = function.parent
    if block is not None and block.type == "decorated_definition":
        block = block.parent
    owner = block.parent if block is not None and block.type == "block" else None
    if owner is None or owner.type != "class_definition":
        return None
    name = parsing.text(owner.child_by_field_name("name"))
    root = parsing.root_of(statement)
    for node in parsing.walk(root, limit=MAX_NODES):
        if node.type != "call":
            continue
        callee = node.child_by_field_name("function")
        if callee is not None and callee.type == "identifier" and parsing.text(callee) == name and _on_default_path(node):
            return node
    return None


def _on_default_path(call: Node) -> bool:
    """Does `call` run when its function is called with its parameters' defaults: no test above it in its scope, or
    only tests of a parameter whose default is True?"""
    child, parent = call, call.parent
    while parent is not None and parent.type not in SCOPES:
        if parent.type == "conditional_expression":
            parts = parent.named_children
            if not parts or child != parts[0] or len(parts) < 2 or not _default_true(parts[1], parent):
                return False
        elif parent.type == "if_statement":
            condition = parent.child_by_field_name("condition")
            if child == condition:
                return True
            if _option(condition) and not (child == parent.child_by_field_name("consequence")
                                           and _default_true(condition, parent)):
                return False  # `if use_cache:` defaulting to False, `if args.cache:`, or the arm its False takes
        elif parent.type in {"elif_clause", "else_clause"}:
            statement = parent.parent
            condition = statement.child_by_field_name("condition") if statement is not None else None
            if parent.type == "elif_clause" or _option(condition):
                return False  # the arm an option's False takes, or one behind an earlier test
        elif parent.type in {"while_statement", "boolean_operator"}:
            return False
        child, parent = parent, parent.parent
    return True


def _option(condition: Node | None) -> bool:
    """A bare name or attribute (`use_cache`, `args.cache`): a switch someone sets, not a test of the data (`isinstance(
    x, list)`), whose arms both run on the default path for some input."""
    return condition is None or condition.type in {"identifier", "attribute", "not_operator"}


def _default_true(condition: Node | None, inside: Node) -> bool:
    """Is `condition` a bare parameter name of the enclosing function whose default is `True`?"""
    if condition is None or condition.type != "identifier":
        return False
    function = parsing.enclosing(inside, {"function_definition"})
    parameters = function.child_by_field_name("parameters") if function is not None else None
    if parameters is None:
        return False
    wanted = parsing.text(condition)
    for parameter in parameters.named_children:
        if parameter.type not in PARAMETERS_WITH_DEFAULT:
            continue
        named = parameter.child_by_field_name("name")
        value = parameter.child_by_field_name("value")
        if named is not None and parsing.text(named) == wanted:
            return value is not None and value.type == "true"
    return False
