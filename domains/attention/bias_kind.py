"""The kind of attention bias an xformers call is given, read from the call and the assignments of the name it passes
in the same function: the NPU operator's layout and arguments follow it (a BlockDiagonalMask of packed sequences
needs the TND layout with cumulative lengths, a LowerTriangularMask a causal atten_mask; a tensor goes in as pse).

Facets: `bias-block-diagonal` (every value other than None is `BlockDiagonalMask.from_seqlens(...)`), with the
cumulative lengths as `actual_seq_qlen=..., actual_seq_kvlen=...` where one such call gives them; `bias-causal`
(every value other than None is `LowerTriangularMask()`). Anything else (a tensor, a value from elsewhere) has none.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from tree_sitter import Node

BIAS_POSITION = 3  # memory_efficient_attention(query, key, value, attn_bias, p, scale, ...)
MAX_NODES = 20_000  # the walk over the function for the name's assignments
# other statements that bind a name, and the field that holds the target (`with ... as name` is not read: rare)
BINDINGS = {"augmented_assignment": "left", "for_statement": "left", "named_expression": "name"}
BLOCK_DIAGONAL = "bias-block-diagonal"
CAUSAL = "bias-causal"


def bias_facet(call: Node, imports) -> tuple[str | None, str | None]:
    """(facet, the cumulative-length arguments or None) of an xformers attention call."""
    bias = _bias_argument(call)
    if bias is None:
        return None, None
    values = _values(bias, call)
    kinds = [(_kind(value, imports), value) for value in values]
    kinds = [(kind, value) for kind, value in kinds if kind != "none"]
    if not kinds or len({kind for kind, _ in kinds}) != 1 or kinds[0][0] is None:
        return None, None
    kind = kinds[0][0]
    if kind == CAUSAL:
        return CAUSAL, None
    lengths = {_lengths(value) for _, value in kinds}
    return BLOCK_DIAGONAL, lengths.pop() if len(lengths) == 1 else None


def _bias_argument(call: Node) -> Node | None:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    positional = []
    for child in arguments.named_children:
        if child.type == "keyword_argument":
            name = child.child_by_field_name("name")
            if name is not None and parsing.text(name) == "attn_bias":
                return child.child_by_field_name("value")
        elif child.type in {"list_splat", "dictionary_splat"}:
            return None
        elif child.type != "comment":
            positional.append(child)
    return positional[BIAS_POSITION] if len(positional) > BIAS_POSITION else None


def _values(bias: Node, call: Node) -> list[Node]:
    """The expression passed, or for a name, the values assigned to it in the call's function before the call (none
    where the name is also bound otherwise: a parameter, a loop target, an augmented assignment, a walrus)."""
    if bias.type != "identifier":
        return [bias]
    name = parsing.text(bias)
    function = call.parent
    while function is not None and function.type not in {"function_definition", "module"}:
        function = function.parent
    if function is None:
        return []
    parameters = function.child_by_field_name("parameters")
    if parameters is not None and name in {parsing.text(p).split(":")[0].split("=")[0].strip().lstrip("*")
                                           for p in parameters.named_children}:
        return []
    values = []
    nested = {"function_definition", "class_definition", "lambda"}
    # what starts at the call or after it, and nested definitions, are not read
    for node in parsing.walk(function.child_by_field_name("body") or function, limit=MAX_NODES,
                             prune=lambda n: n.type in nested or n.start_byte >= call.start_byte):
        if node.type in nested or node.start_byte >= call.start_byte:
            continue
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and parsing.text(left) == name:
                if right is None:
                    return []
                values.append(right)
            elif left is not None and name in parsing.text(left).replace(",", " ").split():
                return []  # unpacked: `a, attn_bias = ...`
        elif node.type in BINDINGS:
            target = node.child_by_field_name(BINDINGS[node.type])
            if target is not None and name in parsing.text(target).replace(",", " ").split():
                return []
    return values


def _kind(value: Node, imports) -> str | None:
    if value.type == "none":
        return "none"
    if value.type != "call":
        return None
    function = value.child_by_field_name("function")
    if function is None or function.type not in {"attribute", "identifier"}:
        return None
    name = qualified_name(function, imports) or parsing.text(function)
    if not name.startswith("xformers."):
        return None
    parts = name.split(".")
    if parts[-2:] == ["BlockDiagonalMask", "from_seqlens"]:
        return BLOCK_DIAGONAL
    if parts[-1] == "LowerTriangularMask":
        return CAUSAL
    return None


def _lengths(value: Node) -> str | None:
    """`actual_seq_qlen=..., actual_seq_kvlen=...` from `BlockDiagonalMask.from_seqlens(q_seqlen, kv_seqlen)` (the
    keys take the queries' lengths where kv_seqlen is not given): host lists of cumulative lengths."""
    arguments = value.child_by_field_name("arguments")
    given: dict[str, str] = {}
    positional = ["q_seqlen", "kv_seqlen"]
    for index, child in enumerate(arguments.named_children if arguments is not None else ()):
        if child.type == "keyword_argument":
            name, argument = child.child_by_field_name("name"), child.child_by_field_name("value")
            if name is None or argument is None:
                return None
            given[parsing.text(name)] = parsing.text(argument)
        elif child.type in {"list_splat", "dictionary_splat"} or index >= len(positional):
            return None
        else:
            given[positional[index]] = parsing.text(child)
    queries = given.get("q_seqlen")
    if queries is None or set(given) - {"q_seqlen", "kv_seqlen", "device"}:
        return None
    keys = given.get("kv_seqlen", "None")
    keys = queries if keys == "None" else keys
    return (f"actual_seq_qlen=torch.as_tensor({queries}).cumsum(0).tolist(), "
            f"actual_seq_kvlen=torch.as_tensor({keys}).cumsum(0).tolist()")
