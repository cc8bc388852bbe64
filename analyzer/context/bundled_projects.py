"""Another project's training recipe bundled inside a package of this one: its scripts are not this project's entries.

SadTalker ships insightface's arcface_torch recipe as src/face3d/models/arcface_torch/, with its own train.py and the
run.sh that launches it (`python -m torch.distributed.launch ... train.py configs/ms1mv3_r50`). SadTalker imports one
module of it (`arcface_torch.backbones`) as a library; nothing of SadTalker runs train.py, so the recipe's trainer is
no entry point of the port, and does not make SadTalker a training project (round 27 verdict V5, A1 C1).

A folder is judged such a bundled project when it lies inside a package folder of the project (a folder the host
imports by dotted name, never one a user runs scripts from), holds its own shell launcher that launches a Python
script of the folder itself (by a path relative to the folder), and none of its Python files imports a module of the
project outside it. A package's own code is imported, never launched from inside it: a launcher there belongs to the
project the folder was copied from, which knows nothing of its host. A folder of the project's own examples or
recipes drives the project's code (Megatron-LM's examples/bert/pretrain_bert.py imports megatron.training): its
scripts stay entries. The outermost such folder holds the rest.

A script inside it stays an entry when something outside the folder launches it (a launcher of the project, the
root README's commands) or it is a console entry: the host runs it then, whoever wrote it. The others, and the
folder's own launchers, are `optional` ("bundled <folder>: the project never launches <script>"), and so is what only
they import (propagation.py); a module of the folder the host imports (arcface_torch.backbones) runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Protocol


class _Facts(Protocol):
    path: str
    module: str
    imports: list[str]
    main_guard: bool
    top_level_code: bool
    launched_scripts: list[str]


def unlaunched_scripts(facts: Iterable[_Facts], packages: set[str], console_modules: Iterable[str] = ()) -> dict[str, str]:
    """path → why, for the scripts (a `__main__` guard, top-level work, a shell launcher) of a bundled project's folder
    that nothing outside it launches and no console entry names."""
    facts = list(facts)
    folders = bundled_project_folders(facts, packages)
    if not folders:
        return {}
    outside = outside_launches(facts, folders)
    consoles = set(console_modules)
    found = {}
    for f in facts:
        folder = next((folder for folder in folders if f.path.startswith(folder + "/")), None)
        if folder is None or PurePosixPath(f.path).name in outside or f.module in consoles:
            continue
        if f.launched_scripts or (f.path.endswith(".py") and (f.main_guard or f.top_level_code)):
            found[f.path] = (f"bundled {folder}/ (another project's recipe with its own launcher, inside a package of "
                             f"this one): the project never launches {PurePosixPath(f.path).name}")
    return found


def bundled_project_folders(facts: Iterable[_Facts], packages: set[str]) -> set[str]:
    """The folders inside a package of the project that hold their own launcher of their own Python script."""
    facts = list(facts)
    python = {f.path for f in facts if f.path.endswith(".py")}
    by_module = {f.module: f.path for f in facts if f.module}
    found = set()
    for f in facts:
        if not f.launched_scripts or f.path.endswith(".py"):
            continue
        folder = PurePosixPath(f.path).parent
        if str(folder) == "." or str(folder.parent) not in packages and str(folder) not in packages:
            continue
        for script in f.launched_scripts:
            script = script.removeprefix("./")
            if "/" not in script and f"{folder}/{script}" in python:
                found.add(str(folder))
                break
    found = {folder for folder in found if not _imports_outside(folder, facts, by_module)}
    return {folder for folder in found
            if not any(PurePosixPath(folder).is_relative_to(other) and folder != other for other in found)}


def _imports_outside(folder: str, facts: list[_Facts], by_module: dict[str, str]) -> bool:
    """Does a Python file of the folder import a module of the project that lies outside it (the longest prefix of an
    imported name that names a project module)?"""
    for f in facts:
        if not (f.path.endswith(".py") and f.path.startswith(folder + "/")):
            continue
        for name in f.imports:
            parts = name.split(".")
            target = next((by_module[".".join(parts[:end])] for end in range(len(parts), 0, -1)
                           if ".".join(parts[:end]) in by_module), None)
            if target is not None and not target.startswith(folder + "/"):
                return True
    return False


def outside_launches(facts: Iterable[_Facts], folders: set[str]) -> set[str]:
    """The names of the scripts launched by a file outside every bundled folder (paths are cwd-relative: the name is
    what can be matched)."""
    return {PurePosixPath(s).name for f in facts if not in_folders(f.path, folders) for s in f.launched_scripts}


def in_folders(path: str, folders: set[str]) -> bool:
    return any(path.startswith(folder + "/") for folder in folders)
