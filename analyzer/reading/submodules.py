"""Git submodules the tree does not hold: a path `.gitmodules` names whose folder is missing or empty (a clone without
`--recursive`, an archive of the superproject). Their code is not in the tree, so nothing of it was scanned, and the
report says so under the files not analysed (round 19: CosyVoice's third_party/Matcha-TTS, imported by its flow
decoder as `matcha`). `.gitmodules` is read as data (git's INI format), bounded, never run."""

from __future__ import annotations

import configparser
import os
import posixpath
from pathlib import Path, PurePosixPath

GITMODULES = ".gitmodules"
MAX_BYTES = 64 * 1024
REASON = "folder not read: a git submodule (.gitmodules) not checked out, so its code was not scanned"


def declared_paths(text: str) -> list[str]:
    """The `path` of each `[submodule "..."]` section, relative and inside the tree; none where the file is no INI."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    paths = []
    for section in parser.sections():
        if not section.startswith("submodule"):
            continue
        value = parser.get(section, "path", fallback="").strip().strip('"')
        path = posixpath.normpath(value) if value else ""
        if path and path != "." and not path.startswith(("/", "../")) and path != "..":
            paths.append(path)
    return sorted(set(paths))


def missing_submodules(root: Path) -> list[str]:
    """The submodule paths whose folder is missing or holds nothing (links are never followed)."""
    gitmodules = root / GITMODULES
    try:
        if gitmodules.is_symlink() or not gitmodules.is_file():
            return []
        with open(gitmodules, "rb") as handle:
            text = handle.read(MAX_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return []
    return [path for path in declared_paths(text) if _empty(root, path)]


def _empty(root: Path, path: str) -> bool:
    """Missing or empty; a link anywhere on the way (`link/sub`, `link` leaving the tree) is not followed: False."""
    folder = root
    try:
        for part in PurePosixPath(path).parts:
            folder = folder / part
            if folder.is_symlink():
                return False
        if not folder.exists():
            return True
        if not folder.is_dir():
            return False
        with os.scandir(folder) as listing:
            return next(listing, None) is None
    except OSError:
        return False


def import_name(folder: str) -> str:
    """The folder's name as Python would import it: lower-case, hyphens and dots as underscores
    (`submodules/simple-knn` → `simple_knn`)."""
    return PurePosixPath(folder.rstrip("/")).name.lower().replace("-", "_").replace(".", "_")


def names_folder(top: str, folder: str) -> bool:
    """Does the import's top module name the submodule folder: its import name, or that name's tail after a prefix
    word of the fork (`depth-diff-gaussian-rasterization` builds `diff_gaussian_rasterization`)? A tail of one word
    (`rasterization`) says too little to count."""
    name, top = import_name(folder), top.lower()
    return top == name or ("_" in top and name.endswith("_" + top))
