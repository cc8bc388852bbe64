"""A call made inside a DataLoader collate function runs on the host: the DataLoader's workers call it on the CPU
tensors a Dataset returns, before anything moves to the device. Pointcept's `point_collate_fn` (datasets/utils.py:208,
passed as `collate_fn=partial(point_collate_fn, ...)` at engines/train.py:309) calls torch_scatter's scatter_min
there (round 39 A2 row 73, B2 row 31): the package's CPU build runs it, so it needs no NPU route.

A function is a collate function when its name says so (`collate_fn`, `point_collate_fn`, `collate_batch`: the
DataLoader keyword's own word, which names nothing else) or its file passes it as `collate_fn=` (bare or through
`functools.partial`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

KEYWORD = "collate_fn"
WORD = "collate"
PARTIALS = {"partial", "functools.partial"}


def enclosing_collate(node: Node, passed: set[str]) -> str:
    """The name of the collate function whose body holds the node (the nearest enclosing def), or ""."""
    current = node.parent
    while current is not None and current.type != "function_definition":
        current = current.parent
    if current is None:
        return ""
    name = current.child_by_field_name("name")
    text = parsing.text(name) if name is not None else ""
    return text if WORD in text.lower() or text in passed else ""


def passed_as_collate(root: Node) -> set[str]:
    """Names the file hands to `collate_fn=`: `collate_fn=pad_batch`, `collate_fn=partial(pad_batch, size=4)`."""
    names: set[str] = set()
    for node in parsing.walk(root):
        if node.type == "keyword_argument":
            key, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if key is not None and value is not None and parsing.text(key) == KEYWORD:
                name = _callable_name(value)
                if name:
                    names.add(name)
    return names


def _callable_name(value: Node) -> str:
    if value.type == "call":
        function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
        if function is None or arguments is None or parsing.text(function) not in PARTIALS:
            return ""
        first = next((a for a in arguments.named_children if a.type != "comment"), None)
        return _callable_name(first) if first is not None and first.type != "call" else ""
    if value.type == "identifier":
        return parsing.text(value)
    if value.type == "attribute":
        attribute = value.child_by_field_name("attribute")
        return parsing.text(attribute) if attribute is not None else ""
    return ""
