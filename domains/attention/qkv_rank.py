"""The rank of the query an xformers call is given, read from the statement that last binds it in the call's function
before the call: a `reshape`/`view` with its sizes, an einops `rearrange` with its output pattern, through the methods
that keep the rank (`.contiguous()`, `.permute(...)`, `.to(...)`), inside `map(lambda t: ..., (q, k, v))` or a
comprehension over q, k and v. xformers takes [batch, seq, heads, head_dim] or a 3-D [batch, seq, head_dim] with one
head; the 3-D form (`[b*heads, n, d_head]`, as the Stable Diffusion family reshapes it) is no BSND input, and
`q.shape[2]` there is head_dim, not the head count.

Facet `qkv-3d` where that statement gives 3 dimensions; none where it gives another rank or cannot be read."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.attention.bias_kind import MAX_NODES
from tree_sitter import Node

QKV_3D = "qkv-3d"
SIZED = ("reshape", "view")  # the rank is the number of sizes given
KEEPING = ("contiguous", "permute", "transpose", "to", "float", "half", "bfloat16", "type", "clone", "detach")
REARRANGE = ("rearrange",)  # einops.rearrange(tensor, "b n (h d) -> (b h) n d", h=h): the output pattern's groups
NESTED = {"function_definition", "class_definition", "lambda"}


def rank_facet(call: Node) -> str | None:
    """`qkv-3d` where the query passed to the call is bound, last before it in its function, to a 3-D tensor."""
    query = _query_argument(call)
    if query is None or query.type != "identifier":
        return None
    value = _bound_value(parsing.text(query), call)
    return QKV_3D if value is not None and _rank(value) == 3 else None


def _query_argument(call: Node) -> Node | None:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    for child in arguments.named_children:
        if child.type == "keyword_argument":
            name = child.child_by_field_name("name")
            if name is not None and parsing.text(name) == "query":
                return child.child_by_field_name("value")
        elif child.type in {"list_splat", "dictionary_splat"}:
            return None
        elif child.type != "comment":
            return child
    return None


def _bound_value(name: str, call: Node) -> Node | None:
    """The expression the last assignment to `name` before the call gives it: the right side, the element of a tuple
    assigned to a tuple of names, or the body of `map(lambda t: BODY, ...)` / `[BODY for t in ...]` unpacked into it."""
    function = call.parent
    while function is not None and function.type not in {"function_definition", "module"}:
        function = function.parent
    if function is None or function.type != "function_definition":
        return None
    last = None
    for node in parsing.walk(function.child_by_field_name("body") or function, limit=MAX_NODES,
                             prune=lambda n: n.type in NESTED or n.start_byte >= call.start_byte):
        if node.type in NESTED or node.start_byte >= call.start_byte or node.type != "assignment":
            continue
        left = node.child_by_field_name("left")
        if left is not None and name in _names(left) and (last is None or node.start_byte > last.start_byte):
            last = node  # the walk is no source order: the latest by position
    if last is None:
        return None
    left, right = last.child_by_field_name("left"), last.child_by_field_name("right")
    if right is None:
        return None
    if left.type == "identifier":
        return right
    names = _names(left)
    if right.type in {"tuple", "expression_list"}:
        elements = [c for c in right.named_children if c.type != "comment"]
        return elements[names.index(name)] if len(elements) == len(names) else None
    return _per_element(right)


def _names(left: Node) -> list[str]:
    if left.type == "identifier":
        return [parsing.text(left)]
    if left.type in {"pattern_list", "tuple_pattern"}:
        return [parsing.text(c) for c in left.named_children if c.type == "identifier"]
    return []


def _per_element(right: Node) -> Node | None:
    """BODY of `map(lambda t: BODY, (q, k, v))` or of `[BODY for t in (q, k, v)]` (a generator alike)."""
    if right.type in {"list_comprehension", "generator_expression"}:
        return right.child_by_field_name("body")
    if right.type != "call":
        return None
    function, arguments = right.child_by_field_name("function"), right.child_by_field_name("arguments")
    if function is None or parsing.text(function) != "map" or arguments is None or not arguments.named_children:
        return None
    first = arguments.named_children[0]
    return first.child_by_field_name("body") if first.type == "lambda" else None


def _rank(value: Node) -> int | None:
    """The number of dimensions `value` has, where its outermost calls say it; None where they do not."""
    while value.type == "parenthesized_expression" and value.named_children:
        value = value.named_children[0]
    if value.type != "call":
        return None
    function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    given = [c for c in arguments.named_children if c.type != "comment"]
    if function.type == "attribute":
        method = parsing.text(function.child_by_field_name("attribute"))
        if method in SIZED:
            return _sizes(given)
        if method in KEEPING:
            return _rank(function.child_by_field_name("object"))
    name = parsing.text(function).rsplit(".", 1)[-1]
    if name in REARRANGE and len(given) >= 2 and given[1].type == "string":
        return _output_groups(parsing.text(given[1]).strip("\"'"))
    return None


def _sizes(given: list[Node]) -> int | None:
    if any(c.type in {"list_splat", "dictionary_splat", "keyword_argument"} for c in given):
        return None
    if len(given) == 1 and given[0].type in {"tuple", "list"}:
        return _sizes([c for c in given[0].named_children if c.type != "comment"])
    if len(given) == 1 and given[0].type != "integer":
        return None  # `x.view(shape)`, `x.view(torch.float16)`: not the sizes
    return len(given) or None


def _output_groups(pattern: str) -> int | None:
    """Dimensions of an einops pattern's output side: `(b h) n d` is 3 (a parenthesised group is one)."""
    if "->" not in pattern or "..." in pattern:
        return None
    depth, count, word = 0, 0, False
    for char in pattern.split("->", 1)[1]:
        if char == "(":
            count += depth == 0
            depth += 1
        elif char == ")":
            depth -= 1
        elif char.isspace():
            word = False
            continue
        elif depth == 0 and not word:
            count += 1
        word = not char.isspace() and char not in "()"
    return count or None
