"""A CUDA probe in a build file that only chooses what the build compiles: no device call.

Mask2Former's setup.py (round 37 A2 class 6): `if not (FORCE_CUDA or torch.cuda.is_available()) or CUDA_HOME is None:
return []` in get_extensions, or `extension = CUDAExtension` under `if torch.cuda.is_available():`. setup.py never
imports transfer_to_npu, and the test places no tensor: it picks the extension list or class. On an Ascend host the
build takes the arm without CUDA, which the build finding (OPS062, custom_ops/build_branches.py) reports with what
that means for the extension; DEV104 has nothing to add. Read with tree-sitter: the `if` (or conditional expression)
whose condition holds the probe, each of whose arms only returns, raises, prints, or assigns values that call nothing
but an `*Extension` class, a path join or a glob.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

PLAIN_STATEMENTS = frozenset({"return_statement", "raise_statement", "pass_statement", "comment"})
BUILD_CALLS = ("Extension", "print", "format", "join", "glob", "getenv", "get", "warn")  # how a build-arm callee's name ends
MAX_NODES = 2_000


def only_chooses_build(probe: Node) -> bool:
    """Do the arms of the test holding `probe` only choose the build's extensions?"""
    node = probe
    while node.parent is not None and node.parent.type in {"parenthesized_expression", "not_operator",
                                                           "boolean_operator", "comparison_operator"}:
        node = node.parent
    holder = node.parent
    if holder is None:
        return False
    if holder.type == "conditional_expression":
        return all(_build_value(arm) for arm in holder.named_children if arm != node)
    if holder.type not in {"if_statement", "elif_clause"} or holder.child_by_field_name("condition") != node:
        return False
    statement = holder if holder.type == "if_statement" else holder.parent
    bodies = [statement.child_by_field_name("consequence")]
    for alternative in statement.children_by_field_name("alternative"):
        bodies.append(alternative.child_by_field_name("body") if alternative.type == "else_clause"
                      else alternative.child_by_field_name("consequence"))
    return all(body is not None and _build_block(body) for body in bodies)


def _build_block(block: Node) -> bool:
    for statement in block.named_children:
        if statement.type in PLAIN_STATEMENTS:
            if not all(_build_value(c) for c in statement.named_children):
                return False
        elif statement.type == "expression_statement":
            if not all(_build_value(c) for c in statement.named_children):
                return False
        elif statement.type == "if_statement":
            parts = [statement.child_by_field_name("consequence")]
            parts += [a.child_by_field_name("body") or a.child_by_field_name("consequence")
                      for a in statement.children_by_field_name("alternative")]
            if not all(p is not None and _build_block(p) for p in parts):
                return False
        else:
            return False
    return True


def _build_value(node: Node) -> bool:
    """A value, assignment or call that calls nothing but build helpers (and so moves no tensor)."""
    for current in parsing.walk(node, limit=MAX_NODES):
        if current.type == "call":
            function = current.child_by_field_name("function")
            name = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
            if not name.endswith(BUILD_CALLS):
                return False
        elif current.type in {"lambda", "await"}:
            return False
    return True
