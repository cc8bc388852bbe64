"""Nodes of parsed code snippets, for the unit tests of the context readers."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing


def node_at(code: str, needle: str, occurrence: int = 0, language: str = "python"):
    """The smallest node spanning the `occurrence`-th `needle` in the code."""
    root = parsing.parse(language, code.encode())
    start = -1
    for _ in range(occurrence + 1):
        start = code.index(needle, start + 1)
    return root.descendant_for_byte_range(start, start + len(needle))
