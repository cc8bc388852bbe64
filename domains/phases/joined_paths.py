"""The path a builder writes with `os.path.join`, its literal parts and the names it joins read back to their values.

A build often names its sources piece by piece: pytorch3d's setup.py globs
`os.path.join(extensions_dir, "**", "*.cu")` with `extensions_dir = os.path.join(this_dir, "pytorch3d", "csrc")`, so
no single string says "pytorch3d/csrc". Read only for a string that already looks like a native source (the phase
facts' string capture), when it is an argument of a `*.path.join` call: the call's arguments joined with "/", where a
name is read from its assignment in the same scope or the module (a string or another such join, two levels deep). The
first argument may stay unread (`this_dir`, `ROOT`: the builder's own folder, which the project-relative match of
unbuilt.py already tries); any other unread part gives nothing, so no path is made up.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_DEPTH = 2
MAX_NODES = 4000  # a scope walked for an assignment
_NESTED_SCOPES = frozenset({"function_definition", "class_definition"})  # their assignments bind other names


def joined_path(content: Node) -> str | None:
    """The path of the join call whose argument holds `content` (a string_content node), or None."""
    string = content.parent
    arguments = string.parent if string is not None else None
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    if call is None or not is_join(call):
        return None
    return _join(call, MAX_DEPTH)


def path_value(node: Node, at: Node) -> str | None:
    """The path an expression at `at` holds: a string, a name assigned one, a join of those; None when unread."""
    return _value(node, at, MAX_DEPTH)


def is_join(call: Node) -> bool:
    function = call.child_by_field_name("function")
    return function is not None and function.type == "attribute" and parsing.text(function).endswith("path.join")


def _join(call: Node, depth: int) -> str | None:
    arguments = call.child_by_field_name("arguments")
    parts = []
    for index, argument in enumerate(arguments.named_children if arguments is not None else []):
        value = _value(argument, call, depth)
        if value is None:
            if index == 0:
                continue
            return None
        parts.append(value)
    return "/".join(p.strip("/") for p in parts if p.strip("/") not in ("", ".")) or None


def _value(node: Node, at: Node, depth: int) -> str | None:
    if node.type == "string":
        if any(c.type == "interpolation" for c in node.named_children):
            return None
        return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")
    if node.type == "call" and is_join(node) and depth > 0:
        return _join(node, depth - 1)
    if node.type == "identifier" and depth > 0:
        assigned = assignment(parsing.text(node), at)
        if assigned is not None:
            return _value(assigned, assigned, depth - 1)
    return None


def assignment(name: str, at: Node) -> Node | None:
    """The value of the last `name = ...` before `at` in its function, else in the module."""
    scope = parsing.enclosing(at, ("function_definition", "module"))
    while scope is not None:
        found = None
        for node in parsing.walk(scope, limit=MAX_NODES, prune=_NESTED_SCOPES, enter_root=True):
            if node.type == "assignment" and node.start_byte < at.start_byte:
                left = node.child_by_field_name("left")
                if left is not None and left.type == "identifier" and parsing.text(left) == name:
                    if found is None or node.start_byte > found.start_byte:
                        found = node
        if found is not None:
            return found.child_by_field_name("right")
        scope = scope.parent
        while scope is not None and scope.type != "module":
            scope = scope.parent
    return None
