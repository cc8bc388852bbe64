"""Whether an SDPA call's mask is within the NPU's limits as written: the facet `mask-within-limits` where the call
passes no mask, `attn_mask=None`, or a mask whose expression is boolean by its form (a comparison, `~x`, `.bool()`,
`.to(torch.bool)`). Such a call runs on the NPU's fused kernel as it is (the other limits ATT020 lists, dtype, layout
and head counts, are CUDA's own too): a site that asks for no change. A mask named by a variable, or any other
expression, may be an additive float bias, which is the porter's check: no facet.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MASK_WITHIN_LIMITS = "mask-within-limits"
MASK_POSITION = 3  # scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, ...)
BOOLEAN_DTYPES = ("torch.bool", "bool")


def mask_facet(call: Node) -> str | None:
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return None
    positional = 0
    mask = None
    for argument in arguments.named_children:
        if argument.type in {"list_splat", "dictionary_splat"}:
            return None  # `*args` or `**kwargs` may carry a mask
        if argument.type == "keyword_argument":
            if parsing.text(argument.child_by_field_name("name")) == "attn_mask":
                mask = argument.child_by_field_name("value")
        elif argument.type != "comment":
            if positional == MASK_POSITION:
                mask = argument
            positional += 1
    if mask is None or _boolean(mask):
        return MASK_WITHIN_LIMITS
    return None


def _boolean(node: Node) -> bool:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node.type == "none" or node.type == "comparison_operator":
        return True
    if node.type == "unary_operator" and parsing.text(node).lstrip().startswith("~"):
        return True  # SDPA takes a bool or a float mask, and `~` is defined on the bool one only
    if node.type != "call":
        return False
    function = node.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return False
    method = parsing.text(function.child_by_field_name("attribute"))
    arguments = node.child_by_field_name("arguments")
    values = [a.child_by_field_name("value") if a.type == "keyword_argument" else a
              for a in (arguments.named_children if arguments is not None else ())]
    if method == "bool":
        return not values
    return method == "to" and any(v is not None and parsing.text(v) in BOOLEAN_DTYPES for v in values)
