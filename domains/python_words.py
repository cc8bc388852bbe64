"""The words a small Python expression names, for conditions that pick a backend or a version
(`is_mps or device.type == "npu"`, `compare_version("triton", operator.ge, "3.0.0")`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node


def words(node: Node) -> set[str]:
    """The lower-case words of the identifiers and string contents under `node` (identifiers split at `_`)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in {"identifier", "string_content"}:
            found.update(parsing.text(current).lower().replace(":", "_").split("_"))
        stack.extend(current.named_children)
    return found
