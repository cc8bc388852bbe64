"""A device-string test on a TorchScript graph constant, not on the runtime device.

OpenAI CLIP's `load(jit=True)` (and the copies of it in EVA-CLIP, open_clip) repoints the device constants recorded in
a TorchScript archive: `for node in graph.findAllNodes("prim::Constant"): if str(node["value"]).startswith("cuda"):
node.copyAttributes(device_node)`. The test finds the CUDA device strings the archive was traced with and rewrites
them to the requested device: on Ascend it does the same, so it is no device check for DEV007. Recognised by its
structure: `str(N["value"]).startswith(...)` where N is the target of an enclosing `for N in <graph>.findAllNodes(...)`.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

NODE_WALKS = frozenset({"findAllNodes"})  # torch._C.Graph / Block methods yielding graph nodes
VALUE_KEYS = frozenset({'"value"', "'value'"})  # a prim::Constant node's attribute, read by subscript


def graph_constant_test(tested: Node | None) -> bool:
    """Is `tested` (the object of a `.startswith(...)` call) `str(N["value"])` for a node N of a TorchScript graph
    walk that encloses it?"""
    if tested is None or tested.type != "call" or parsing.text(tested.child_by_field_name("function")) != "str":
        return False
    arguments = tested.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    if len(values) != 1 or values[0].type != "subscript":
        return False
    node, key = values[0].child_by_field_name("value"), values[0].child_by_field_name("subscript")
    if node is None or node.type != "identifier" or key is None or parsing.text(key) not in VALUE_KEYS:
        return False
    name = parsing.text(node)
    loop = tested.parent
    while loop is not None and loop.type not in {"function_definition", "module"}:
        if loop.type == "for_statement" and parsing.text(loop.child_by_field_name("left")) == name:
            walk = loop.child_by_field_name("right")
            function = walk.child_by_field_name("function") if walk is not None and walk.type == "call" else None
            attribute = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else None
            return attribute is not None and parsing.text(attribute) in NODE_WALKS
        loop = loop.parent
    return False
