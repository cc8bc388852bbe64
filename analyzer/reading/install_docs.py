"""Install instructions in a project's documents (README*.md, INSTALL*.md, *install*.md), read as data, never run:
the shell a reader is told to type, kept on its own lines so that a declaration read from it keeps its line number.

Kept: the lines of fenced code blocks whose info string is empty or a shell's (```bash, ```shell, ```sh, ```console),
and any other line that starts with a `pip`/`pip3`/`mim`/`conda`/`mamba` install, a `$ ` prompt taken off. Everything
else becomes an empty line. Only the first MAX_CHARACTERS are read (install sections come early)."""

from __future__ import annotations

import re

MAX_CHARACTERS = 200_000
SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "shell-session", "shellscript"})
_FENCE = re.compile(r"^\s{0,3}(```+|~~~+)\s*([\w+-]*)")
_PROMPT = re.compile(r"^\s*(?:\$|>|#)\s+")
_INSTALL = re.compile(r"^\s*(?:python3?\s+-m\s+)?(?:pip3?|mim|conda|mamba)\s+install\b")


def is_install_doc(name: str) -> bool:
    """README.md, README_zh-CN.md, INSTALL.md, docs' installation.md / install_guide.md."""
    lower = name.lower()
    if not lower.endswith(".md"):
        return False
    return lower.startswith(("readme", "install")) or "install" in lower


def sets_up_code(path: str, code_folders: set[str]) -> bool:
    """Is the document the setup of Python code: at the project's root, or in a folder holding Python at any depth
    (InternImage's detection/README.md)? One in a folder of cluster or serving launchers (open-r1's slurm/README.md)
    sets up another environment, not the code's."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    return folder == "" or folder in code_folders


def code_folders(python_paths) -> set[str]:
    """Every folder that holds a Python file, at any depth below it."""
    folders: set[str] = set()
    for path in python_paths:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return folders


def shell_view(text: str) -> str:
    """The document with only its shell lines left, each on its own line number."""
    kept: list[str] = []
    fence: str | None = None  # the open fence's marker while inside a shell block; "" inside another block
    for line in text[:MAX_CHARACTERS].splitlines():
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1) if opened.group(2).lower() in SHELL_FENCES else ""
            fence_marker = opened.group(1)
            kept.append("")
            continue
        if fence is not None and opened and opened.group(1).startswith(fence_marker[:3]) and not opened.group(2):
            fence = None
            kept.append("")
            continue
        if fence:  # a shell block
            kept.append(_PROMPT.sub("", line, count=1))
        elif fence is None and _INSTALL.match(_PROMPT.sub("", line, count=1)):
            kept.append(_PROMPT.sub("", line, count=1).strip())
        else:
            kept.append("")
    return "\n".join(kept)
