"""Existence probes: `hasattr(torch.cuda.amp, "autocast")` asks whether a module has a name; it builds and calls
nothing, so it is no use of the name (what the code then does with it is reported where it does it)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

TESTS = frozenset({"if_statement", "elif_clause", "while_statement", "assert_statement", "conditional_expression"})
OPERATORS = frozenset({"parenthesized_expression", "boolean_operator", "not_operator"})


def existence_probe(module: Node) -> str | None:
    """`hasattr(torch.cuda.amp, "autocast")`, or `getattr(torch.cuda, "is_bf16_supported", None)` read only for its
    truth (the test of an `if`, `while`, `assert` or conditional expression, maybe inside `and`/`or`/`not`): the
    module handed to an accessor with a literal key, asking whether the name exists. It builds and calls nothing; what the code does with the name is reported where it does it."""
    arguments = module.parent
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if function is None or function.type != "identifier":
        return None
    given = arguments.named_children
    if len(given) < 2 or given[0] != module or given[1].type != "string":
        return None
    key = parsing.text(given[1]).strip("'\"")
    if not key.isidentifier():
        return None
    if parsing.text(function) == "hasattr":
        return key if len(given) == 2 else None
    if parsing.text(function) != "getattr" or len(given) != 3:
        return None
    node, holder = call, call.parent
    while holder is not None and holder.type in OPERATORS:  # `getattr(...) or x` is a truth only inside a test
        node, holder = holder, holder.parent
    if holder is None or holder.type not in TESTS:
        return None
    return key if _test_of(holder) == node else None


def _test_of(statement: Node) -> Node | None:
    """The expression an `if`/`elif`/`while`/`assert` or a conditional expression (`a if test else b`) tests."""
    if statement.type in {"assert_statement", "conditional_expression"}:
        children = statement.named_children
        index = 0 if statement.type == "assert_statement" else 1
        return children[index] if len(children) > index else None
    return statement.child_by_field_name("condition")
