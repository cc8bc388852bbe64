"""Native code of an extension whose Python wrappers nothing the project runs reaches: optional, kernel by kernel.

MapTR vendors mmdetection3d (round 42 B1 class 1, rows 1, 3, 5, 7, 10, 20, 22). Its setup.py builds each op with a
helper, `make_cuda_ext(name='bev_pool_v2_ext', module='mmdet3d.ops.bev_pool_v2', ...)`, whose built name is
`'{}.{}'.format(module, name)`, so the custom-ops room knows no name for the extension and never judges its bindings
(domains/custom_ops/binding_reach.py); its kernels kept `runs` whatever the Python reach of their wrappers. The
wrapper imports the built module from its own package (`from . import bev_pool_v2_ext` in
mmdet3d/ops/bev_pool_v2/bev_pool.py) and uses it only inside module-level definitions (symbols.imported_users:
`QuickCumsumCuda`).

Here the extension is read from that import: a module the file imports by a name that no Python module of its
folder holds, that a build file of the project writes (the helper's `name=`), with native sources under the
wrapper's folder. Where every Python file under that folder writing the name uses it only inside definitions the
report already rates unreached (`unreached`: unreferenced.py and the other symbol passes, e.g. a wrapper that only
package __init__.py files re-export), nothing the project runs calls the op: the native files under the folder are
optional, with the reason. Importing the package still needs the extension to build: that stays one finding at the
build (OPS062) and the import (OPS013), not one per kernel. A wrapper used at its module's top level, or in a
definition something reaches, keeps every native file of its folder.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import writers

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.context.project import ProjectContext
    from ascend_feasibility.domains.base import ModuleFacts

WHOLE_FILE = 10**9


def unreached_wrapped_extensions(facts: list[ModuleFacts], context: ProjectContext, natives: set[str],
                                 unreached: dict[str, list[tuple[int, int, str]]]
                                 ) -> dict[str, list[tuple[int, int, str]]]:
    """native path → [(1, WHOLE_FILE, why)] for the native files of extensions whose every Python use sits in a
    definition `unreached` covers."""
    if not natives:
        return {}
    python = {f.path: f for f in facts if f.path.endswith(".py")}
    folders = {str(PurePosixPath(path).parent) for path in python}
    # extension name → (wrapper folder, wrapper path, the definitions using it)
    candidates: dict[tuple[str, str], list[tuple[str, list[str]]]] = defaultdict(list)
    for f in python.values():
        if context.of(f.path).role in ("test", "build"):
            continue  # a test runs no product code; a build file names the extension, it does not use it
        folder = str(PurePosixPath(f.path).parent)
        for name, users in f.imported_users:
            bare = name.rsplit(".", 1)[-1]
            if f"{folder}/{bare}.py" in python or f"{folder}/{bare}" in folders:
                continue  # a Python module of the folder, not a built one
            if not any(n.startswith(folder + "/") for n in natives):
                continue
            candidates[(folder, bare)].append((f.path, users))
    if not candidates:
        return {}
    builds = [f for f in facts if context.of(f.path).role == "build"]
    built = writers({bare for _, bare in candidates}, builds)
    product = [f for f in python.values() if context.of(f.path).role not in ("test", "build")]
    used = writers({bare for _, bare in candidates}, product)
    result: dict[str, list[tuple[int, int, str]]] = {}
    kept_folders: set[str] = set()
    judged: dict[str, str] = {}  # folder → why
    for (folder, bare), wrappers in sorted(candidates.items()):
        if not built.get(bare):
            continue  # no build file names it: an import of something else
        wrapper_paths = {path for path, _ in wrappers}
        if used.get(bare, set()) - wrapper_paths:
            kept_folders.add(folder)  # another file writes the extension's name: not judged
            continue
        why = _unreached_uses(wrappers, python, unreached)
        if why is None:
            kept_folders.add(folder)
        else:
            judged[folder] = f"{judged[folder]}; {why}" if folder in judged else why
    # a native file is its nearest wrapper folder's: mmdet3d/ops/__init__.py importing `voxelization` keeps nothing
    # of ops/interpolate/, whose own wrappers decide
    owners = judged.keys() | kept_folders
    for path in sorted(natives):
        owner = max((folder for folder in owners if path.startswith(folder + "/")), key=len, default=None)
        if owner is not None and owner in judged and owner not in kept_folders:
            result[path] = [(1, WHOLE_FILE, f"only re-exported; no project code or config calls it: {judged[owner]}")]
    return result


def _unreached_uses(wrappers: list[tuple[str, list[str]]], python: dict[str, ModuleFacts],
                    unreached: dict[str, list[tuple[int, int, str]]]) -> str | None:
    """Why the extension's every use is unreached (its wrapper definitions and the files holding them); None where
    some definition using it is reached."""
    shown = []
    for path, users in wrappers:
        lines = {symbol[0]: symbol[1] for symbol in (*python[path].unnamed_symbols, *python[path].inner_named)}
        ranges = unreached.get(path, [])
        for user in users:
            line = lines.get(user)
            if line is None or not any(first <= line <= last for first, last, _ in ranges):
                return None
        shown.append(f"{', '.join(users) or 'nothing'} ({path})")
    return (f"the extension is used only in {'; '.join(shown)}, which nothing the project runs reaches; importing "
            "the package still needs it built (the build and import findings)")
