"""Dockerfiles seen as shell: RUN, ENV and ARG instructions become shell text at their own rows and columns, and
FROM a command named FROM whose argument is the base image.

The result is parsed with the bash grammar, so scanners that read shell scripts read Dockerfiles too, and
positions found there are positions in the Dockerfile.
"""

from __future__ import annotations

SHELL_INSTRUCTIONS = {"RUN", "ENV", "ARG"}
# Kept whole, keyword included: `FROM image [AS stage]` reads as a command named FROM, so the base image is seen.
WHOLE_INSTRUCTIONS = {"FROM"}


def _instructions(lines: list[str]) -> list[tuple[str, list[int]]]:
    """(keyword, rows) for each instruction, continuation lines included."""
    result: list[tuple[str, list[int]]] = []
    row = 0
    while row < len(lines):
        stripped = lines[row].strip()
        if not stripped or stripped.startswith("#"):
            row += 1
            continue
        keyword = stripped.split(None, 1)[0].upper()
        rows = [row]
        while lines[row].rstrip().endswith("\\") and row + 1 < len(lines):
            row += 1
            rows.append(row)
        result.append((keyword, rows))
        row += 1
    return result


def shell_view(text: str) -> str:
    lines = text.split("\n")
    view = [line if line.lstrip().startswith("#") else "" for line in lines]
    for keyword, rows in _instructions(lines):
        if keyword in WHOLE_INSTRUCTIONS:
            for row in rows:
                view[row] = lines[row]
            continue
        if keyword not in SHELL_INSTRUCTIONS:
            continue
        first = lines[rows[0]]
        start = first.upper().index(keyword)
        body_start = start + len(keyword)
        first_view = " " * body_start + first[body_start:]
        if keyword in {"ENV", "ARG"}:
            first_view = _legacy_env_form(first_view, body_start)
        view[rows[0]] = first_view
        for row in rows[1:]:
            view[row] = lines[row]
    return "\n".join(view)


def _legacy_env_form(line: str, body_start: int) -> str:
    """`ENV KEY value` (the old form) becomes `KEY=value`, keeping the key where it was."""
    body = line[body_start:]
    stripped = body.lstrip()
    if not stripped:
        return line
    key, _, rest = stripped.partition(" ")
    if "=" in key or not rest.strip():
        return line
    key_start = body_start + (len(body) - len(stripped))
    return line[:key_start] + key + "=" + _quote(rest.strip())


def _quote(value: str) -> str:
    if value.startswith(("'", '"')):
        return value
    return "'" + value.replace("'", "") + "'"
