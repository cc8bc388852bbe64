"""Nested projects with a torch line of their own: a folder below the root that is installed from there (its own
setup.py or pyproject.toml beside its own requirements file or Dockerfile, or a shell script of its own that installs
torch beside its own Python code: Show-o's show-o2/build_env.sh `pip3 install torch==2.5.1`), whose own build files pin
a torch that resolves to another torch_npu line than the root's, and whose packages no file outside it imports (an
import of a name the importer's own folder or the root also defines resolves there: Show-o's `from models import ...`
is the root's models/, not show-o2/models/). Its findings are
judged at its own target, chosen from its own build files the way the root's is (llava-critic-r1/EasyR1 inside
LLaVA-NeXT: torch 2.6.0 there, torch 2.1.2 at the root). A folder on the root's torch line, or one without an install
(tools/ with a requirements file only), is part of the root project.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained
from ascend_feasibility.domains.base import TargetChoice

INSTALL_FILES = frozenset({"setup.py", "pyproject.toml"})
IMPORT_QUERY = "(import_statement name: (dotted_name) @name) (import_statement name: (aliased_import name: " \
    "(dotted_name) @name)) (import_from_statement module_name: (dotted_name) @name)"


@dataclass(frozen=True)
class Subproject:
    folder: str  # POSIX, relative to the root
    choice: TargetChoice  # its own target, from its own build files


def install_folders(paths: Iterable[str], scripted: Iterable[str] = ()) -> list[str]:
    """The folders below the root installed from there: a setup.py or pyproject.toml beside a requirements file or a
    Dockerfile of the folder itself, or one of `scripted` (folders holding a shell script that installs torch,
    script_folders) with Python code of its own. Only the outermost of nested ones (EasyR1/ holds verl/ with a stray
    pyproject): what is inside belongs to it."""
    paths = list(paths)
    names: dict[str, set[str]] = {}
    for path in paths:
        at = PurePosixPath(path)
        names.setdefault(str(at.parent), set()).add(at.name.lower())
    folders = {folder for folder, held in names.items() if folder != "." and held & INSTALL_FILES and any(
        name.startswith("requirements") and name.endswith(".txt") or name.startswith("dockerfile") for name in held)}
    coded = {str(parent) for path in paths if path.endswith(".py") for parent in PurePosixPath(path).parents}
    folders = sorted(folders | {folder for folder in scripted if folder not in {"", "."} and folder in coded})
    return [folder for folder in folders if not any(PurePosixPath(folder).is_relative_to(other) and folder != other
                                                    for other in folders)]


def script_folders(shell_paths: Iterable[str], read: Callable[[str], bytes]) -> list[str]:
    """The folders below the root that hold, directly, a shell script installing torch (`pip3 install torch==2.5.1` in
    show-o2/build_env.sh): a candidate own install whatever the script is named. `read(path)`: the script's bytes."""
    folders = set()
    for path in shell_paths:
        folder = str(PurePosixPath(path).parent)
        if folder == "." or folder in folders:
            continue
        data = read(path)
        if b"install" in data and b"torch" in data:
            folders.add(folder)
    return sorted(folders)


def nested_projects(root: Path, paths: list[str], choose: Callable[[str], TargetChoice], root_line: str | None,
                    line_of: Callable[[str], str], scripted: Iterable[str] = ()) -> list[Subproject]:
    """The install folders whose own target (`choose(folder)`: the choice over their own build files) lies on another
    torch line (`line_of(version)`) than the root's, and whose packages nothing outside them imports."""
    found = []
    for folder in install_folders(paths, scripted):
        choice = choose(folder)
        if choice.version is None or line_of(choice.version) == root_line:
            continue
        inside = [p for p in paths if PurePosixPath(p).is_relative_to(folder)]
        if not _imported_from_outside(root, folder, inside, [p for p in paths if p not in set(inside)]):
            found.append(Subproject(folder, choice))
    return found


def _imported_from_outside(root: Path, folder: str, inside: list[str], outside: list[str]) -> bool:
    """A Python file outside the folder imports one of its top-level packages or modules absolutely."""
    names = set()
    for path in inside:
        parts = PurePosixPath(path).relative_to(folder).parts
        if len(parts) == 2 and parts[1] == "__init__.py":
            names.add(parts[0])
        elif len(parts) == 1 and parts[0].endswith(".py") and parts[0] != "setup.py":
            names.add(parts[0][:-3])
    names = {name for name in names if name.isidentifier()}
    if not names:
        return False
    needles = [name.encode() for name in names]
    defined = _top_names(outside)
    for path in outside:
        if not path.endswith(".py"):
            continue
        # the importer's own folder and the root come first on its path: a name they define resolves there
        own = names - defined.get("", set()) - defined.get(str(PurePosixPath(path).parent), set())
        if not own:
            continue
        try:
            data = read_contained(root, path, MAX_FILE_BYTES)
        except Unreadable:
            continue
        if not any(needle in data for needle in needles):
            continue
        tree = parsing.parse("python", data)
        for node in parsing.captures(parsing.query("python", IMPORT_QUERY), tree).get("name", []):
            if parsing.text(node).split(".")[0] in own:
                return True
    return False


def _top_names(paths: list[str]) -> dict[str, set[str]]:
    """For each folder, the modules and packages its files define directly below it: `name.py`, or a folder `name/`
    holding Python (with or without an __init__.py), keyed by the folder ("" for the root)."""
    defined: dict[str, set[str]] = {}
    for path in paths:
        if not path.endswith(".py"):
            continue
        parts = PurePosixPath(path).parts
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            name = parts[depth][:-3] if depth == len(parts) - 1 else parts[depth]
            defined.setdefault(folder if folder else "", set()).add(name)
    return defined


def subproject_of(path: str, folders: Iterable[str]) -> str | None:
    """The nested project a file belongs to, if any."""
    at = PurePosixPath(path)
    return next((folder for folder in folders if at.is_relative_to(folder)), None)
