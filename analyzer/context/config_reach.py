"""Config modules nothing the project runs loads: their `type='Name'` entries build nothing.

An mmcv/mmengine config is read when a launch passes its path, and the configs it inherits through `_base_` are read
with it. MapTR (round 42 B1 class 1) copies mmdetection3d's `_base_` fragments into projects/configs/_base_/ and
vendors mmdetection3d with all its configs. Its own configs (projects/configs/maptr/*.py) inherit only
datasets and runtime fragments, so `type='VoteHead'` in projects/configs/_base_/models/votenet.py and in
mmdetection3d/configs/votenet/*.py names a class nothing builds (unreferenced.py counts a registered class as reached
where any file writes its name). A config is dead here when it is:
- a fragment under a `_base_` folder that no live config inherits (nor any file of the project names by path), or
- a config of a bundled library copy (unloaded.bundled_libraries: mmdetection3d/ with its own setup.py beside MapTR's
  code, which has none at its root) that no live config of the host inherits: the copy's own experiments, not the
  host's;
where live configs are the project's other configs (outside `_base_` folders and copies) and all they inherit. Judged
only where some live config inherits through `_base_` (a project that does not is not read this way), and never
where a config inherits in a form config_modules.config_bases does not read (a concatenation, a name): what it
would inherit is unknown, so nothing is dead.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import PUBLISHING_FILES, bundled_libraries

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.context.project import ProjectContext
    from ascend_feasibility.domains.base import ModuleFacts

BASE_FOLDER = "_base_"


def dead_configs(facts: list[ModuleFacts], context: ProjectContext, packages: set[str]) -> set[str]:
    """The paths of the config modules nothing the project runs loads."""
    from ascend_feasibility.domains.base import UNREAD_BASE  # domains import this package

    # a file binding settings only is a config whether or not its top level runs a call (a `_base_` fragment's
    # `model = dict(...)` does not); a module of a package is imported, not loaded by path
    configs = {f.path: f for f in facts if f.path.endswith(".py") and (f.settings_only or f.config_bases)
               and path_view(f.path).parent not in packages}
    if not configs or not any(f.config_bases for f in configs.values()):
        return set()
    copies = _copy_folders(facts, packages, context)
    named = {ref.strip("/") for f in facts if f.path not in configs for ref in f.config_refs}
    roots = [path for path in configs if not _fragment(path) and not _inside(path, copies)]
    roots += [path for path in configs if any(path == ref or path.endswith("/" + ref) for ref in named)]
    live: set[str] = set()
    stack = list(roots)
    inherits = False
    while stack:
        path = stack.pop()
        if path in live:
            continue
        live.add(path)
        folder = path_view(path).parent
        for base in configs[path].config_bases:
            if base == UNREAD_BASE:
                return set()  # it inherits what this reader cannot tell: nothing is known dead
            target = posixpath.normpath(posixpath.join(folder, base))
            inherits = True
            if target in configs:
                stack.append(target)
    if not inherits:
        return set()
    return {path for path in configs if path not in live and (_fragment(path) or _inside(path, copies))}


def _fragment(path: str) -> bool:
    return BASE_FOLDER in path_view(path).parts[:-1]


def _inside(path: str, folders: set[str]) -> bool:
    return any(path.startswith(folder + "/") for folder in folders)


def _copy_folders(facts: list[ModuleFacts], packages: set[str], context: ProjectContext) -> set[str]:
    """The folders of the build files publishing the bundled library copies (mmdetection3d/ for
    mmdetection3d/mmdet3d/)."""
    builds = {path_view(f.path).parent for f in facts if path_view(f.path).name in PUBLISHING_FILES}
    found = set()
    for top in bundled_libraries(facts, packages, context):
        folder = path_view(top).parent
        while folder not in builds and folder != ".":
            folder = path_view(folder).parent
        if folder != ".":
            found.add(folder)
    return found
