"""Module-level definitions that call through an optional compiled extension the module imports by a relative name:
`try: from . import fused_act_ext` / `except ImportError: pass` at the module's top level (or in an arm of a
module-level `if`), then `fused_act_ext.fused_bias_act(...)` inside a function or class. Where the project holds no
such module and builds none (analyzer/context/unbuilt_extensions.py), those definitions cannot run on any device."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases.symbols import unit_statements
from tree_sitter import Node

SWALLOWED = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})


def extension_users(unit: Unit) -> list[tuple[str, int, int]]:
    """(the extension's name, first line, last line) of each module-level function or class writing `name.` where
    `name` is imported only by `from . import name` in a module-level `try:` whose handlers catch the import's
    failure and bind nothing else (`pass`, a comment)."""
    data = unit.source.data
    if b"from . import" not in data or b"except" not in data:
        return []
    module = unit_statements(unit)
    names: set[str] = set()
    for statement, kind in zip(module.statements, module.kinds, strict=True):
        for attempt in _module_tries(statement, kind):
            names |= _swallowed_relative_imports(attempt)
    if not names:
        return []
    found = []
    for statement, definition in zip(module.statements, module.definitions, strict=True):
        if definition is None or definition.type not in {"function_definition", "class_definition"}:
            continue
        used = {parsing.text(node.child_by_field_name("object")) for node in parsing.walk(statement, limit=200_000)
                if node.type == "attribute" and node.child_by_field_name("object") is not None
                and node.child_by_field_name("object").type == "identifier"}
        for name in sorted(used & names):
            found.append((name, statement.start_point.row + 1, statement.end_point.row + 1))
    return found


def _module_tries(statement: Node, kind: str) -> list[Node]:
    """The `try` statements at module level, directly or in the arms of a module-level `if` (`if JIT: ... else:`)."""
    if kind == "try_statement":
        return [statement]
    if kind != "if_statement":
        return []
    blocks = [child for child in statement.named_children if child.type == "block"]
    blocks += [block for clause in statement.named_children if clause.type in {"else_clause", "elif_clause"}
               for block in clause.named_children if block.type == "block"]
    return [inner for block in blocks for inner in block.named_children if inner.type == "try_statement"]


def _swallowed_relative_imports(attempt: Node) -> set[str]:
    """`from . import name` in the try's body, where every handler catches an import failure and binds nothing."""
    body = attempt.child_by_field_name("body")
    handlers = [child for child in attempt.named_children if child.type == "except_clause"]
    if body is None or not handlers:
        return set()
    for handler in handlers:
        caught = [child for child in handler.named_children if child.type != "block"]
        if not caught or not all(parsing.text(node).split(" as ")[0].strip("() ") in SWALLOWED for node in caught[:1]):
            return set()
        block = next((child for child in handler.named_children if child.type == "block"), None)
        if block is None or any(child.type not in {"pass_statement", "comment"} for child in block.named_children):
            return set()
    names = set()
    for statement in body.named_children:
        if statement.type != "import_from_statement":
            continue
        source = statement.child_by_field_name("module_name")
        if source is None or parsing.text(source) != ".":
            continue
        for name in statement.children_by_field_name("name"):
            if name.type == "dotted_name":
                names.add(parsing.text(name))
    return names
