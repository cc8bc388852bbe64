"""The module-level functions and classes a piece of code names: what a branch selects.

`xformers_attn if torch.cuda.is_available() else torch_attn` picks a function of the file, not a call. The port holds
such a test when the selected function keeps a CUDA-only finding (analyzer/port/core.py), and the device domain
grades it by the library the function uses (domains/device/library_choice.py); both read the selection here."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 4_000  # the walk over one branch


def module_definitions(module: Node) -> dict[str, Node]:
    """name → node of the module's own functions and classes (a decorated one with its decorators)."""
    definitions = {}
    for child in module.named_children:
        node = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if node is not None and node.type in {"function_definition", "class_definition"}:
            name = node.child_by_field_name("name")
            if name is not None:
                definitions[parsing.text(name)] = child
    return definitions


def named_definitions(code: Node, definitions: dict, skip: Node | None = None) -> list[tuple[str, object]]:
    """(name, definition) of each of `definitions` an identifier in `code` names, outside `skip` (the branch's own
    condition) and outside the named definition itself (a recursive call selects nothing). A definition that is not a
    node (an imported function: where it comes from) is selected wherever it is named."""
    if not definitions:
        return []
    chosen = []
    inside_skip = None if skip is None else (
        lambda node: node.start_byte >= skip.start_byte and node.end_byte <= skip.end_byte)
    for node in parsing.walk(code, limit=MAX_NODES, prune=inside_skip):
        if inside_skip is not None and inside_skip(node):
            continue
        if node.type == "identifier":
            name = parsing.text(node)
            definition = definitions.get(name)
            if definition is not None and not (isinstance(definition, Node)
                                               and definition.start_byte <= node.start_byte < definition.end_byte):
                chosen.append((name, definition))
    return chosen
