"""`with A and B:` enters one object, the value of the expression: `A and B` is B when A is truthy (a context
manager object is, unless it defines `__bool__`), `A or B` is A. So in `with torch.cuda.amp.autocast() and
torch.no_grad():` the autocast is built and never entered, on CUDA too: porting it to an NPU autocast would add
mixed precision the CUDA run does not have. `with A, B:` enters both.
"""

from __future__ import annotations

from tree_sitter import Node

WRAPPERS = {"parenthesized_expression"}


def not_entered(call: Node) -> Node | None:
    """The `with` statement whose item holds `call` as an operand of `and`/`or` that the statement does not enter,
    else None (the call is the entered operand, or not in a `with` item's boolean expression)."""
    operand, parent = call, call.parent
    while parent is not None and parent.type in WRAPPERS:
        operand, parent = parent, parent.parent
    if parent is None or parent.type != "boolean_operator":
        return None
    while parent is not None and parent.type in WRAPPERS | {"boolean_operator"}:
        operand, parent = parent, parent.parent
    if parent is None or parent.type != "with_item" or parent.child_by_field_name("value") != operand:
        return None
    if _entered(operand) == _unwrapped(call):
        return None
    statement = parent
    while statement is not None and statement.type != "with_statement":
        statement = statement.parent
    return statement


def _entered(expression: Node) -> Node:
    """The operand `with` enters: the last of an `and` chain, the first of an `or` chain (each operand a truthy
    context manager)."""
    expression = _unwrapped(expression)
    while expression.type == "boolean_operator":
        operator = expression.child_by_field_name("operator")
        side = "left" if operator is not None and operator.type == "or" else "right"
        expression = _unwrapped(expression.child_by_field_name(side))
    return expression


def _unwrapped(node: Node) -> Node:
    while node.type in WRAPPERS and node.named_children:
        node = node.named_children[0]
    return node
