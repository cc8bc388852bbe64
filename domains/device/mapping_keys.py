"""`'cuda' in rng_state_dict`: a key looked up in a mapping the code fills itself, not a device compared by name.

The test reads as one only when the right side is a name that its scope (the enclosing function, or the module)
also indexes with a string literal (`rng_state_dict['torch']`) or binds to a dict literal or `dict(...)`: a device
string indexed by a string raises TypeError, so such a name is a mapping and `'cuda'` one of its keys. What the key
stands for (a saved CUDA generator state, say) is the code around it, which keeps its own findings
(torch.cuda.set_rng_state, the availability check)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 20_000


def is_key_test(comparison: Node) -> bool:
    """`'<literal>' in NAME` / `not in` with NAME a mapping in its scope."""
    operands = comparison.named_children
    operators = [parsing.text(op) for op in comparison.children_by_field_name("operators")]
    if len(operands) != 2 or operators not in (["in"], ["not in"]):
        return False
    key, container = operands
    if key.type != "string" or container.type != "identifier":
        return False
    scope = parsing.enclosing(comparison, {"function_definition", "module"})
    return scope is not None and _is_mapping(scope, parsing.text(container))


def _is_mapping(scope: Node, name: str) -> bool:
    for node in parsing.walk(scope, limit=MAX_NODES):
        if node.type == "subscript":
            value, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
            if value is not None and value.type == "identifier" and parsing.text(value) == name and index is not None \
                    and index.type == "string":
                return True
        elif node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and parsing.text(left) == name and right is not None and (
                    right.type == "dictionary" or (right.type == "call" and parsing.text(right.child_by_field_name("function")) == "dict")):
                return True
    return False
