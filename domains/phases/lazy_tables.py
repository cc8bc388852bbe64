"""The name table of a package __init__.py that installs `_LazyModule(__name__, __file__, _import_structure)`: each
name the package exports → the submodule (relative to the package, as the table writes it) that defines it.

Python loads such a package's submodule only when an importer asks the package for one of its names
(`from diffusers import StableDiffusionBrushNetPipeline` loads pipelines/, whose own table then loads
pipelines/brushnet/pipeline_brushnet.py), so the names an importer asks for, read through the tables, are the modules
it loads. The table is read in the shapes the Hugging Face libraries write it:
`_import_structure = {"models": ["UNet2DModel"], "pipelines": []}`, `_import_structure["brushnet"] = ["X", "Y"]`,
`_import_structure["pipelines"].extend(["X"])` and `.append("X")`, wherever they sit in the file (their optional
dependency `try/else` arms included: what an arm adds may be asked for)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

LAZY_LOADER = "_LazyModule"
MAX_NODES = 400_000


def lazy_names(root: Node) -> list[tuple[str, str]]:
    """(exported name, submodule relative to the package) of each entry of the tables the file passes to
    `_LazyModule(...)`; [] where it passes none."""
    tables = _table_variables(root)
    if not tables:
        return []
    found: set[tuple[str, str]] = set()
    for node in parsing.walk(root, limit=MAX_NODES):
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and parsing.text(left) in tables \
                    and right is not None and right.type == "dictionary":
                for pair in right.named_children:
                    if pair.type == "pair" and (key := _string(pair.child_by_field_name("key"))):
                        found |= {(name, key) for name in _strings(pair.child_by_field_name("value"))}
            elif (key := _table_key(left, tables)) is not None:
                found |= {(name, key) for name in _strings(right)}
        elif node.type == "call":
            function = node.child_by_field_name("function")
            if function is None or function.type != "attribute":
                continue
            method = function.child_by_field_name("attribute")
            key = _table_key(function.child_by_field_name("object"), tables)
            arguments = node.child_by_field_name("arguments")
            if key is None or method is None or arguments is None or len(arguments.named_children) != 1:
                continue
            argument = arguments.named_children[0]
            if parsing.text(method) == "extend":
                found |= {(name, key) for name in _strings(argument)}
            elif parsing.text(method) == "append" and (name := _string(argument)):
                found.add((name, key))
    return sorted((name, key.lstrip(".")) for name, key in found if name.isidentifier()
                  and all(part.isidentifier() for part in key.lstrip(".").split(".")))


def _table_variables(root: Node) -> set[str]:
    """The identifiers passed to a `_LazyModule(...)` call: the tables it loads names by."""
    found: set[str] = set()
    for node in parsing.walk(root, limit=MAX_NODES):
        if node.type != "call" or (parsing.callee_name(node) or "").rsplit(".", 1)[-1] != LAZY_LOADER:
            continue
        arguments = node.child_by_field_name("arguments")
        found |= {parsing.text(a) for a in (arguments.named_children if arguments is not None else [])
                  if a.type == "identifier"}
    return found - {"__name__", "__file__", "__spec__"}


def _table_key(node: Node | None, tables: set[str]) -> str | None:
    """"brushnet" for `_import_structure["brushnet"]`, a subscript of a table by a string; None otherwise."""
    if node is None or node.type != "subscript":
        return None
    value, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
    if value is None or value.type != "identifier" or parsing.text(value) not in tables:
        return None
    return _string(index) or None


def _strings(node: Node | None) -> list[str]:
    """The strings of a list or tuple literal of strings."""
    if node is None or node.type not in ("list", "tuple"):
        return []
    return [text for child in node.named_children if (text := _string(child))]


def _string(node: Node | None) -> str:
    """A plain string literal's text; "" for anything else (an f-string, a concatenation, a name)."""
    if node is None or node.type != "string":
        return ""
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    return parsing.text(parts[0]) if len(parts) == 1 and parts[0].type == "string_content" else ""
