"""The packages the Python blocks of a README import: the API the document shows its reader.

A library's README teaches its API (`from diffusers import DiffusionPipeline` in diffusers' README); an application's
README runs its own scripts and shows none of the library it carries (BrushNet's README runs
examples/brushnet/*.py and never imports the `diffusers` its fork publishes). Read from the fenced blocks whose info
string is Python's (```python, ```py, ```python3, ```pycon, a `>>> ` prompt taken off), parsed, never run."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.install_docs import MAX_CHARACTERS, fence_opening
from ascend_feasibility.analyzer.reading.python_names import ImportTable

PYTHON_FENCES = frozenset({"python", "py", "python3", "pycon"})
PROMPTS = (">>> ", "... ")


def imported_packages(readme: str) -> tuple[str, ...]:
    """The top-level names the README's Python blocks import (`diffusers` for `from diffusers import X`), sorted."""
    table = ImportTable()
    for block in python_blocks(readme):
        table.add_tree(parsing.parse("python", block.encode("utf-8", "replace")))
    return tuple(sorted({bound.split(".")[0] for bound in table.bindings.values()}))


def python_blocks(text: str) -> list[str]:
    """The text of each fenced Python block of a Markdown document, prompts taken off."""
    blocks: list[str] = []
    lines: list[str] | None = None  # the open Python block's lines
    marker = ""  # the open block's fence, "" outside any block
    for line in text[:MAX_CHARACTERS].splitlines():
        opened = fence_opening(line)
        if opened is not None and (not marker or (opened[0].startswith(marker[:3]) and not opened[1])):
            if marker:  # the block closes
                if lines is not None:
                    blocks.append("\n".join(lines))
                marker, lines = "", None
            else:
                marker, lines = opened[0], [] if opened[1].lower() in PYTHON_FENCES else None
            continue
        if lines is not None:
            lines.append(next((line.lstrip()[len(p):] for p in PROMPTS if line.lstrip().startswith(p)), line))
    return blocks
