"""Which elements a complex RoPE pairs, read from the tensor handed to torch.view_as_complex.

view_as_complex takes the last dimension (of size 2) as (real, imaginary), so the pairing is decided by the reshape
that made that dimension: `x.reshape(..., -1, 2)` (or `unflatten(dim, (-1, 2))`) pairs adjacent elements (x[2j],
x[2j+1]), the interleaved layout; `x.reshape(..., 2, -1).transpose(-2, -1)` pairs the two halves (x[j], x[j + d/2]),
the rotate_half layout. Anything else is not read: the rule then names no layout."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import argument
from tree_sitter import Node

ADJACENT = "pairs-adjacent"
HALVES = "pairs-halves"

# Calls that keep the element order: a dtype, a copy or a contiguous layout of the same tensor.
KEEPS_ORDER = {"contiguous", "float", "double", "half", "bfloat16", "to", "type", "type_as", "clone", "detach"}
RESHAPES = {"reshape", "view", "unflatten"}


def pairing(view_as_complex: Node) -> str | None:
    """ADJACENT, HALVES, or None where the argument's last reshape is not one of the two known forms."""
    node = argument(view_as_complex, 0, "input")
    if node is not None and node.type == "identifier":
        node = _assigned_before(node, view_as_complex)
    node = _through_order_keepers(node)
    transposed = _method(node) == "transpose"
    if transposed:
        if sorted(_int(a) for a in _arguments(node)) != [-2, -1]:
            return None
        node = _through_order_keepers(node.child_by_field_name("function").child_by_field_name("object"))
    if _method(node) not in RESHAPES:
        return None
    sizes = _sizes(node)
    if not transposed and sizes[-1:] == [2]:
        return ADJACENT
    if transposed and len(sizes) >= 2 and sizes[-2] == 2:
        return HALVES
    return None


def _method(node: Node | None) -> str | None:
    if node is None or node.type != "call":
        return None
    function = node.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return None
    return parsing.text(function.child_by_field_name("attribute"))


def _through_order_keepers(node: Node | None) -> Node | None:
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    while _method(node) in KEEPS_ORDER:
        node = node.child_by_field_name("function").child_by_field_name("object")
    return node


def _arguments(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]


def _sizes(reshape: Node) -> list[int | None]:
    """The sizes a reshape/view/unflatten writes, as integers where they are literals: `reshape(*s[:-1], -1, 2)` ->
    [None, -1, 2]; `view((b, -1, 2))` -> [None, -1, 2]; `unflatten(3, (-1, 2))` -> [-1, 2]."""
    given = _arguments(reshape)
    if _method(reshape) == "unflatten":
        given = given[1:2]
    if len(given) == 1 and given[0].type in {"tuple", "list"}:
        given = given[0].named_children
    return [_int(a) for a in given]


def _int(node: Node) -> int | None:
    text = parsing.text(node).replace(" ", "")
    try:
        return int(text) if node.type in {"integer", "unary_operator"} else None
    except ValueError:
        return None


def _assigned_before(name: Node, call: Node) -> Node | None:
    """The value last assigned to `name` by a plain statement of the block that holds the call's statement, before it;
    None where a statement between them may assign it otherwise (`if ...: x = x.reshape(...)`), though a nested
    `x = x.float()` keeps the order."""
    statement = call
    while statement.parent is not None and statement.parent.type not in {"block", "module"}:
        statement = statement.parent
    target, value, later = parsing.text(name), None, []
    for sibling in statement.parent.named_children if statement.parent is not None else []:
        if sibling.start_byte >= statement.start_byte:
            break
        assignment = parsing.statement_assignment(sibling)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        if left is not None and parsing.text(left) == target:
            value, later = assignment.child_by_field_name("right"), []
        else:
            later.append(sibling)
    if any(_reassigns(node, target) for node in later):
        return None
    return value


def _reassigns(node: Node, target: str) -> bool:
    for current in parsing.walk(node):
        if current.type in {"assignment", "augmented_assignment"}:
            left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
            if left is not None and parsing.text(left) == target:
                kept = _through_order_keepers(right) if current.type == "assignment" else None
                if kept is None or kept.type != "identifier" or parsing.text(kept) != target:
                    return True
    return False
