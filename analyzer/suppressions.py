"""Inline suppressions: `# ascend: ignore[DEV101]` on the line (or alone on the line above) and
`# ascend: ignore-file[DEV001, DEV004]` anywhere in the file. Codes must be named, as ruff and ast-grep require."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from analyzer import parsing
from domains.base import Unit

MARKER = "ascend:"
_DIRECTIVE = re.compile(r"ascend:\s*(ignore|ignore-file)\[([^\]]*)\]")
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
    if MARKER not in unit.source.text:
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
    for row, column, text in comments:
        for kind, codes in _DIRECTIVE.findall(text):
            names = tuple(c.strip() for c in codes.split(",") if c.strip())
            if not names:
                continue
            alone = not unit.source.line_bytes(row)[:column].strip()
            rows = frozenset({row, _next_code_row(unit, row)} if alone else {row})
            result.append(Suppression(row, rows, names, kind == "ignore-file"))
    return result


def _grammar(kind: str) -> str:
    return "python" if kind == "python" else "bash"


def _next_code_row(unit: Unit, row: int) -> int:
    lines = unit.source.text.split("\n")
    for candidate in range(row + 1, len(lines)):
        if lines[candidate].strip() and not lines[candidate].lstrip().startswith("#"):
            return candidate
    return row
