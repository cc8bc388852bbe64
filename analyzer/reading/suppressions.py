"""Inline suppressions: `# ascend: ignore[DEV101]` on the line (or alone on the line above) and
`# ascend: ignore-file[DEV001, DEV004]` anywhere in the file. Codes must be named, as ruff and ast-grep require."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.reading import parsing

if TYPE_CHECKING:  # the domains import this module
    from ascend_feasibility.domains.base import Unit

MARKER = "ascend:"
_DIRECTIVE = re.compile(r"ascend:\s*(ignore-file|ignore)\b(?:\[([^\]]*)\])?", re.IGNORECASE)
_COMMENT_QUERY = {"python": "(comment) @comment", "shell": "(comment) @comment", "dockerfile": "(comment) @comment"}


@dataclass
class Suppression:
    row: int  # 0-based row of the comment
    rows: frozenset[int]  # rows it covers; empty for file-level
    codes: tuple[str, ...]
    file_level: bool
    used: set[str] = field(default_factory=set)

    def covers(self, code: str, row: int) -> bool:
        return code in self.codes and (self.file_level or row in self.rows)


def collect(unit: Unit) -> list[Suppression]:
    if MARKER not in unit.source.text.lower():
        return []
    comments: list[tuple[int, int, str]] = []  # row, byte column, text
    if unit.kind in _COMMENT_QUERY:
        found = parsing.captures(parsing.query(_grammar(unit.kind), _COMMENT_QUERY[unit.kind]), unit.tree())
        for node in found.get("comment", []):
            comments.append((node.start_point.row, node.start_point.column, parsing.text(node)))
    else:  # YAML and others: whole-line comments only
        for row, line in enumerate(unit.source.text.split("\n")):
            stripped = line.lstrip()
            if stripped.startswith("#"):
                comments.append((row, len(line) - len(stripped), stripped))
    result = []
    next_code = _NextCodeRow(unit.source.text)
    for row, column, text in comments:
        for kind, codes in _DIRECTIVE.findall(text):
            names = tuple(dict.fromkeys(c.strip().upper() for c in codes.split(",") if c.strip()))
            alone = not unit.source.line_bytes(row)[:column].strip()
            rows = frozenset({row, next_code(row)} if alone else {row})
            result.append(Suppression(row, rows, names, kind.lower() == "ignore-file"))
    return result


def by_row(suppressions: list[Suppression]) -> tuple[list[Suppression], dict[int, list[Suppression]]]:
    """File-level suppressions, and line suppressions by each row they cover: finding what covers a finding is then
    a lookup, not a scan of every suppression."""
    file_level = [s for s in suppressions if s.file_level]
    rows: dict[int, list[Suppression]] = {}
    for suppression in suppressions:
        if not suppression.file_level:
            for row in suppression.rows:
                rows.setdefault(row, []).append(suppression)
    return file_level, rows


def _grammar(kind: str) -> str:
    return "python" if kind == "python" else "bash"


class _NextCodeRow:
    """The next row after a comment that holds code (not blank, not a comment), computed once for the unit."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.table: list[int] | None = None

    def __call__(self, row: int) -> int:
        if self.table is None:
            lines = self.text.split("\n")
            self.table = [0] * len(lines)
            following = -1
            for index in range(len(lines) - 1, -1, -1):
                self.table[index] = following
                if lines[index].strip() and not lines[index].lstrip().startswith("#"):
                    following = index
        found = self.table[row] if 0 <= row < len(self.table) else -1
        return found if found >= 0 else row
