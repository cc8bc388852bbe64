"""tree-sitter languages, parsers and compiled queries, built once per process.

Trees, nodes and queries cannot be pickled: workers build their own through these functions and return
plain data. No syntax tree outlives the file it was parsed from.
"""

from __future__ import annotations

import functools
import operator

import tree_sitter_bash
import tree_sitter_cpp
import tree_sitter_cuda
import tree_sitter_python
from tree_sitter import Language, Node, Parser, Query, QueryCursor

_GRAMMARS = {
    "python": tree_sitter_python.language,
    "bash": tree_sitter_bash.language,
    "cuda": tree_sitter_cuda.language,
    "cpp": tree_sitter_cpp.language,
}


@functools.cache
def language(name: str) -> Language:
    return Language(_GRAMMARS[name]())


@functools.cache
def parser(name: str) -> Parser:
    return Parser(language(name))


@functools.cache
def query(name: str, source: str) -> Query:
    return Query(language(name), source)


def parse(name: str, data: bytes) -> Node:
    return parser(name).parse(data).root_node


_START_BYTE = operator.attrgetter("start_byte")


def captures(compiled: Query, node: Node) -> dict[str, list[Node]]:
    """Captures of every pattern, each list in source order."""
    found = QueryCursor(compiled).captures(node)
    return {name: sorted(nodes, key=_START_BYTE) for name, nodes in found.items()}


def text(node: Node) -> str:
    data = node.text  # each access copies the bytes out of the tree: read it once
    return data.decode("utf-8", "replace") if data is not None else ""


MAX_DEPTH = 1000  # CPython refuses far shallower code; queries over deeper trees cost quadratic time
MAX_NODES = 4_000_000


def statement_assignment(statement: Node) -> Node | None:
    """The plain assignment (`x = ...`) a statement is, else None."""
    inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    return inner if inner is not None and inner.type == "assignment" else None


def over_budget(root: Node) -> str | None:
    """Why a tree is too big or too deep to query (a reason for `skipped`), or None. Iterative; stops at the limit."""
    count = root.descendant_count
    if count > MAX_NODES:
        return f"more than {MAX_NODES:,} syntax nodes: not analysed"
    if count <= MAX_DEPTH:
        return None  # a tree cannot be deeper than it has nodes
    cursor = root.walk()
    depth = 0
    while True:
        # A subtree of n nodes is at most n levels deep: one that cannot reach the limit is not walked.
        if cursor.node.descendant_count > MAX_DEPTH - depth and cursor.goto_first_child():
            depth += 1
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels: not analysed"
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None
            depth -= 1


def first_error_row(root: Node) -> int | None:
    """0-based row of the first syntax error, or None when the tree is clean."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node.start_point.row
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_error or c.is_missing]))
    return root.start_point.row
