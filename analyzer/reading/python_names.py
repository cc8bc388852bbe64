"""Resolve the names a Python file uses to the qualified names they stand for, through its imports.

`import torch as t`, `from torch import cuda`, `import torch.cuda as tc` and `from torch.cuda.amp import autocast`
all make rules that speak of `torch.cuda...` match. Scopes are not tracked: an import anywhere in the file binds
its name for the whole file, which is what real code almost always means.
"""

from __future__ import annotations

import functools

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

IMPORT_QUERY = "(import_statement) @import (import_from_statement) @import_from"
# Calls by the name they call: `f(...)` (called) and `x.f(...)` (method, the attribute's last name).
CALLS_QUERY = "(call function: (identifier) @called) (call function: (attribute attribute: (identifier) @method))"

# A root name used without an import (a notebook cell, a star import) still means the package.
IMPLICIT_ROOTS = {"torch": "torch"}


class ImportTable:
    def __init__(self) -> None:
        self.bindings: dict[str, str] = {}

    def add_tree(self, root: Node) -> None:
        self.add_captures(parsing.captures(parsing.query("python", IMPORT_QUERY), root))

    def add_captures(self, found: dict[str, list[Node]]) -> None:
        """Bind the imports of IMPORT_QUERY's captures (a unit's share of a combined query, each list in source order)."""
        for node in found.get("import", []):
            for name in node.children_by_field_name("name"):
                self._bind_import(name)
        for node in found.get("import_from", []):
            module = node.child_by_field_name("module_name")
            if module is None or module.type != "dotted_name":
                continue  # relative imports name the project's own modules
            base = _dotted(module)
            for name in node.children_by_field_name("name"):
                if name.type == "aliased_import":
                    original = name.child_by_field_name("name")
                    alias = name.child_by_field_name("alias")
                    if original is not None and alias is not None:
                        self.bindings[parsing.text(alias)] = f"{base}.{_dotted(original)}"
                elif name.type == "dotted_name":
                    self.bindings[_dotted(name).split(".")[-1]] = f"{base}.{_dotted(name)}"

    def _bind_import(self, name: Node) -> None:
        if name.type == "aliased_import":
            original = name.child_by_field_name("name")
            alias = name.child_by_field_name("alias")
            if original is not None and alias is not None:
                self.bindings[parsing.text(alias)] = _dotted(original)
        elif name.type == "dotted_name":
            first = _dotted(name).split(".")[0]
            self.bindings.setdefault(first, first)

    def root_names(self) -> frozenset[bytes]:
        """The names `resolve_root` resolves, as the bytes a syntax tree holds (to drop local names before reading them)."""
        return frozenset(name.encode("utf-8") for name in (*self.bindings, *IMPLICIT_ROOTS))

    def resolve_root(self, name: str) -> str | None:
        return self.bindings.get(name) or IMPLICIT_ROOTS.get(name)


def _dotted(node: Node) -> str:
    return "".join(parsing.text(node).split())


def outermost_chain(root_identifier: Node) -> Node:
    """From the first identifier of `a.b.c`, climb to the attribute node of the whole chain."""
    return chain_and_parent(root_identifier)[0]


def chain_and_parent(root_identifier: Node) -> tuple[Node, Node | None]:
    """outermost_chain's node and that node's parent, which the climb read last (the reference readers ask for it:
    `Node.parent` costs about 1 µs a call)."""
    node = root_identifier
    while True:
        parent = node.parent
        if parent is None or parent.type != "attribute":
            return node, parent
        obj = parent.child_by_field_name("object")
        if obj is None or obj.id != node.id:
            return node, parent
        node = parent


def qualified_name(chain: Node, imports: ImportTable) -> str | None:
    """`t.cuda.synchronize` with `import torch as t` is `torch.cuda.synchronize`; None when unresolved."""
    text = parsing.text(chain)
    split = _remembered_split(text) if len(text) <= 200 else _chain_split(text)  # a long text is not kept
    if split is None:
        return None
    base = imports.resolve_root(split[0])
    if base is None:
        return None
    return base + split[1]


def _chain_split(text: str) -> tuple[str, str] | None:
    """`t . cuda.synchronize` → ("t", ".cuda.synchronize"); None unless every part is an identifier."""
    parts = "".join(text.replace("\\", " ").split()).split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    return parts[0], "".join("." + part for part in parts[1:])


_remembered_split = functools.lru_cache(maxsize=65536)(_chain_split)  # files repeat the same chains


def enclosing_call(node: Node, parent: Node | None = None) -> Node | None:
    """The call whose function is exactly `node` (so `f` in `f(x)`), if any. `parent`: node's, where the caller
    read it already."""
    parent = node.parent if parent is None else parent
    if parent is not None and parent.type == "call":
        function = parent.child_by_field_name("function")
        if function is not None and function.id == node.id:
            return parent
    return None
