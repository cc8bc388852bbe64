"""The accelerator a Lightning Trainer gets through a splatted mapping: `trainer_config["accelerator"] = "gpu"` and then
`Trainer(**trainer_config, ...)` in the same function (latent-diffusion-style main.py/train.py, round 25 B2 45:
InstantMesh). The call itself names no accelerator; the assignment is what a port changes."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device import literals
from tree_sitter import Node

SCOPES = frozenset({"function_definition", "module"})


def splatted_accelerator(call: Node) -> Node | None:
    """The value last assigned, before the call and in its scope, to the `accelerator` key or attribute of a mapping
    the call splats (`**name`); None where there is none."""
    arguments = call.child_by_field_name("arguments")
    names = {parsing.text(child.named_children[0]) for child in (arguments.named_children if arguments else [])
             if child.type == "dictionary_splat" and child.named_children
             and child.named_children[0].type == "identifier"}
    if not names:
        return None
    scope = parsing.enclosing(call, SCOPES)
    if scope is None:
        return None
    found = None
    stack = [scope]
    while stack:
        node = stack.pop()
        if node.start_byte >= call.start_byte:
            continue
        if node.type == "assignment" and _accelerator_target(node.child_by_field_name("left"), names):
            value = node.child_by_field_name("right")
            if value is not None and (found is None or value.start_byte > found.start_byte):
                found = value
        stack.extend(child for child in node.named_children
                     if child.type not in {"function_definition", "class_definition"} or child is scope)
    return found


def _accelerator_target(left: Node | None, names: set[str]) -> bool:
    """`name["accelerator"]` or `name.accelerator` for a splatted name."""
    if left is None:
        return False
    if left.type == "subscript":
        base, key = left.child_by_field_name("value"), left.child_by_field_name("subscript")
        return base is not None and parsing.text(base) in names and key is not None and key.type == "string" \
            and literals.string_parts(key)[1] == "accelerator"
    if left.type == "attribute":
        base, attribute = left.child_by_field_name("object"), left.child_by_field_name("attribute")
        return base is not None and parsing.text(base) in names and attribute is not None \
            and parsing.text(attribute) == "accelerator"
    return False
