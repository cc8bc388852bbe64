"""A backend test whose NCCL arm only adds keywords: `if dist.get_backend() == Backend.NCCL:
dist.barrier(device_ids=[rank]) else: dist.barrier()`. On Ascend the else arm runs, the same calls without the NCCL-only
keywords, so skipping the NCCL arm loses nothing the other backends need (round 22 B1 row 12)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

NEGATED = frozenset({"!=", "not in"})
ARM_NODES = 400  # an arm longer than this is no keyword-only twin worth comparing


def nccl_arm_only_adds_keywords(comparison: Node) -> bool:
    """Is the comparison the whole test of an `if ... else` (no elif) whose NCCL arm is the other arm's statements with
    keyword arguments added and none changed?"""
    statement = comparison.parent
    if statement is None or statement.type != "if_statement" or statement.child_by_field_name("condition") != comparison:
        return False
    alternatives = statement.children_by_field_name("alternative")
    if len(alternatives) != 1 or alternatives[0].type != "else_clause":
        return False
    consequence = statement.child_by_field_name("consequence")
    other = alternatives[0].child_by_field_name("body")
    if consequence is None or other is None:
        return False
    operators = {parsing.text(op) for op in comparison.children_by_field_name("operators")}
    nccl_arm, other_arm = (other, consequence) if operators & NEGATED else (consequence, other)
    nccl_shape, nccl_keywords = _shape(nccl_arm)
    other_shape, other_keywords = _shape(other_arm)
    if nccl_shape is None or other_shape is None or nccl_shape != other_shape or not nccl_keywords:
        return False
    added = list(nccl_keywords)
    for keyword in other_keywords:  # every keyword of the other arm is in the NCCL arm unchanged
        if keyword not in added:
            return False
        added.remove(keyword)
    return bool(added)


def _shape(arm: Node) -> tuple[tuple | None, list[str]]:
    """The arm's tokens with keyword arguments left out, and the keyword arguments' texts."""
    tokens: list[tuple[str, str]] = []
    keywords: list[str] = []
    count = 0
    for node in parsing.walk(arm, prune={"keyword_argument"}, named=False, source_order=True):
        count += 1
        if count > ARM_NODES:
            return None, keywords
        if node.type == "keyword_argument":
            keywords.append(" ".join(parsing.text(node).split()))
        elif node.type == "comment":
            continue
        elif node.child_count == 0 and node.type != ",":
            tokens.append((node.type, parsing.text(node)))
    return tuple(tokens), keywords
