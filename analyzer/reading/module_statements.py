"""A Python module's top-level statements, read from the tree once per file and shared by every reader that looks at
them (the phases facts, module symbols, re-exports, unbuildable classes, unread attribute stores, dead stores): each
of those used to walk the module's statements itself, asking each statement's type again."""

from __future__ import annotations

from functools import cached_property

from tree_sitter import Node

DEFINITION_TYPES = frozenset({"function_definition", "class_definition"})


class ModuleStatements:
    """`statements`: the module's named children in source order; `kinds`: each one's type; `definitions`: for each,
    the function or class definition it is or decorates (`@dataclass class A:` → the class), else None; `heads`: for
    an expression statement, its first named child (the assignment of `x = 1`, the call of `main()`), else None."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self.statements: list[Node] = root.named_children
        self.kinds: list[str] = [statement.type for statement in self.statements]
        self.definitions: list[Node | None] = [
            _definition(statement) if kind == "decorated_definition" else statement if kind in DEFINITION_TYPES else None
            for statement, kind in zip(self.statements, self.kinds, strict=True)]
        self.heads: list[Node | None] = [
            _first_named(statement) if kind == "expression_statement" else None
            for statement, kind in zip(self.statements, self.kinds, strict=True)]

    @cached_property
    def classes(self) -> list[tuple[Node, Node]]:
        """(statement, class definition) of each module-level class, decorated or not."""
        return [(statement, definition) for statement, definition in zip(self.statements, self.definitions, strict=True)
                if definition is not None and definition.type == "class_definition"]

    @cached_property
    def functions(self) -> list[tuple[Node, Node]]:
        """(statement, function definition) of each module-level function, decorated or not."""
        return [(statement, definition) for statement, definition in zip(self.statements, self.definitions, strict=True)
                if definition is not None and definition.type == "function_definition"]

    @cached_property
    def assignments(self) -> list[tuple[Node, Node]]:
        """(statement, assignment) of each plain assignment statement (`x = ...`, parsing.statement_assignment)."""
        return [(statement, head) for statement, head in zip(self.statements, self.heads, strict=True)
                if head is not None and head.type == "assignment"]


def _definition(decorated: Node) -> Node | None:
    definition = decorated.child_by_field_name("definition")
    return definition if definition is not None and definition.type in DEFINITION_TYPES else None


def _first_named(statement: Node) -> Node | None:
    children = statement.named_children
    return children[0] if children else None
