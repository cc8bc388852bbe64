"""Code cells of a Jupyter notebook, as Python text whose lines keep their numbers within the cell."""

from __future__ import annotations

import json

from ascend_feasibility.analyzer.reading.source import Unreadable

PYTHON_CELL_MAGICS = {"%%time", "%%timeit", "%%capture", "%%prun"}
SHELL_CELL_MAGICS = {"%%bash", "%%sh", "%%script"}


def python_cells(sources: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(cell number, Python source) for each code cell; magic lines become comments."""
    return [(number, python) for number, source in sources if (python := _without_magics(source)) is not None]


def shell_cells(sources: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(cell number, shell text) for the shell a notebook runs: `!` lines, `%env`, and %%bash cells.

    Other lines are blank, so rows and columns stay those of the cell."""
    result = []
    for number, source in sources:
        lines = source.split("\n")
        first = lines[0].strip().split()[0] if lines and lines[0].strip() else ""
        if first in SHELL_CELL_MAGICS:
            shell = "\n".join([""] + lines[1:])
        else:
            shell = "\n".join(_shell_line(line) for line in lines)
        if shell.strip():
            result.append((number, shell))
    return result


def _shell_line(line: str) -> str:
    stripped = line.lstrip()
    indent = len(line) - len(stripped)
    if stripped.startswith("!"):
        return line[:indent] + " " + stripped[1:]
    if stripped.startswith("%env "):
        return line[:indent] + "     " + stripped[5:]
    return ""


def code_sources(data: bytes) -> list[tuple[int, str]]:
    """(1-based cell number among all cells, source) of each code cell; Unreadable for a broken notebook."""
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Unreadable(f"broken notebook: not valid JSON ({exc})") from None
    except RecursionError:
        raise Unreadable("broken notebook: nested too deeply") from None
    if not isinstance(notebook, dict):
        raise Unreadable("broken notebook: the top level is not an object")
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3 keeps cells in worksheets
        sheets = notebook.get("worksheets")
        sheets = sheets if isinstance(sheets, list) else []
        cells = [
            cell for sheet in sheets if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list) for cell in sheet["cells"]
        ]
    if not isinstance(cells, list):
        raise Unreadable("broken notebook: 'cells' is not a list")
    result = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if isinstance(source, str):
            result.append((number, source))
    return result


def _without_magics(source: str) -> str | None:
    lines = source.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%") and first.split()[0] not in PYTHON_CELL_MAGICS:
        return None  # %%bash, %%writefile ...: not Python
    return "\n".join(_comment_out(line) if line.lstrip().startswith(("%", "!")) else line for line in lines)


def _comment_out(line: str) -> str:
    indent = len(line) - len(line.lstrip())
    return line[:indent] + "#" + line[indent + 1 :]
