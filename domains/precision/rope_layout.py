"""Which elements a complex RoPE pairs, read from the tensor handed to torch.view_as_complex.

view_as_complex takes the last dimension (of size 2) as (real, imaginary), so the pairing is decided by the reshape
that made that dimension: `x.reshape(..., -1, 2)` (or `unflatten(dim, (-1, 2))`) pairs adjacent elements (x[2j],
x[2j+1]), the interleaved layout; `x.reshape(..., 2, -1).transpose(-2, -1)` pairs the two halves (x[j], x[j + d/2]),
the rotate_half layout. Anything else is not read: the rule then names no layout.

The frequency table the rotated value is multiplied by may carry a head axis (`per_head_table`): npu_rotary_mul's
interleave mode takes only tables without one on Atlas A2/A3 (1S1D for BSND), so that advice must not be given there."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import argument
from tree_sitter import Node

ADJACENT = "pairs-adjacent"
HALVES = "pairs-halves"
PER_HEAD = "table-per-head"

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


TABLE_RESHAPES = {"view", "reshape", "expand", "unflatten", "repeat", "expand_as"}
RANK_READS = {"dim", "ndim", "ndimension"}


def per_head_table(view_as_complex: Node) -> bool:
    """The table the complex value is multiplied by in the same function carries a head axis, read from the code:
    the function tests the table's rank (`if freqs.dim() == 3:`, `freqs.ndim == 4`: a (seq, heads, dim) form beside
    a (seq, dim) one), or reshapes or expands it with a head count (`freqs.view(s, self.num_heads, -1)`)."""
    function = view_as_complex.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None:
        return False
    tables = _tables(view_as_complex, function)
    if not tables:
        return False
    for node in parsing.walk(function, limit=20000):
        if node.type == "comparison_operator" and any(_rank_of(part) in tables for part in node.named_children):
            return True
        if node.type == "call" and _method(node) in TABLE_RESHAPES:
            owner = _root_name(node.child_by_field_name("function").child_by_field_name("object"))
            holder = node.parent
            bound = (parsing.text(holder.child_by_field_name("left")) if holder is not None and holder.type == "assignment"
                     and holder.child_by_field_name("left") is not None else None)
            if (owner in tables or bound in tables) and any("head" in parsing.text(a).lower() for a in _arguments(node)):
                return True  # `freqs.view(s, self.num_heads, -1)`, or `table = freqs.view(...)` multiplied later
    return False


def _tables(view_as_complex: Node, function: Node) -> set[str]:
    """Names multiplied with the complex value: `torch.view_as_complex(x) * freqs` or `xc = ...; xc * freqs`."""
    operands = {view_as_complex.id}
    holder = view_as_complex.parent
    if holder is not None and holder.type == "assignment" and holder.child_by_field_name("left") is not None:
        operands_names = {parsing.text(holder.child_by_field_name("left"))}
    else:
        operands_names = set()
    found = set()
    for node in parsing.walk(function, limit=20000):
        if node.type != "binary_operator" or parsing.text(node.child_by_field_name("operator")) != "*":
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        for mine, other in ((left, right), (right, left)):
            if mine is None or other is None:
                continue
            stripped = _through_order_keepers(mine)
            if stripped is not None and (stripped.id in operands or parsing.text(stripped) in operands_names):
                name = _root_name(other)
                if name:
                    found.add(name)
    return found


def _rank_of(node: Node) -> str | None:
    """`freqs.dim()`, `freqs.ndim`, `len(freqs.shape)`: the name whose rank is read."""
    if node.type == "call":
        function = node.child_by_field_name("function")
        if function is not None and function.type == "identifier" and parsing.text(function) == "len":
            values = _arguments(node)
            if len(values) == 1 and values[0].type == "attribute" and parsing.text(values[0].child_by_field_name("attribute")) == "shape":
                return _root_name(values[0].child_by_field_name("object"))
            return None
        if _method(node) in RANK_READS:
            return _root_name(function.child_by_field_name("object"))
        return None
    if node.type == "attribute" and parsing.text(node.child_by_field_name("attribute")) in RANK_READS:
        return _root_name(node.child_by_field_name("object"))
    return None


def _root_name(node: Node | None) -> str | None:
    """The identifier an expression starts from, through order keepers, subscripts and attribute chains:
    `freqs[:s].to(x.device)` -> freqs, `self.freqs_cis` -> self.freqs_cis."""
    for _ in range(20):
        if node is None:
            return None
        node = _through_order_keepers(node)
        if node is None:
            return None
        if node.type == "subscript":
            node = node.child_by_field_name("value")
        elif node.type == "call" and _method(node) in TABLE_RESHAPES | {"unsqueeze", "squeeze", "permute", "transpose"}:
            node = node.child_by_field_name("function").child_by_field_name("object")
        elif node.type in {"identifier", "attribute"}:
            return parsing.text(node)
        else:
            return None
    return None
