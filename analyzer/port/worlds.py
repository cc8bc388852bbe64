"""The import world of a Python file: the folder that is on sys.path when the file runs or is imported.

Python resolves `from .. import x` against the importing module's package, never against the folder tree, and an
absolute import against sys.path; a device module is reachable from a file only inside the file's world. The world is
read from the tree and the files' own imports: from the file's folder, climb through regular packages
(`__init__.py` folders) and through namespace folders that a file inside the parent imports by name
(`from eval_utils.getargs import ...` beside eval_utils/, `from megatron.core import ...` at the root), and never out of
a folder holding its own setup.py/pyproject.toml (the root of a project of its own, installed from there). A folder
nothing imports by name is where a script runs from: its own folder is its world.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.port.files import import_point
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained

BUILD_FILES = ("setup.py", "pyproject.toml")
IMPORT_QUERY = "(import_statement) @import (import_from_statement) @import_from"
TOP = PurePosixPath(".")


class Worlds:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._worlds: dict[PurePosixPath, PurePosixPath] = {}
        self._imports: dict[str, tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]]] = {}
        self._files: dict[PurePosixPath, list[str]] = {}

    def is_package(self, folder: PurePosixPath) -> bool:
        return str(folder) != "." and (self.root / folder / "__init__.py").is_file()

    def is_build_root(self, folder: PurePosixPath) -> bool:
        return any((self.root / folder / name).is_file() for name in BUILD_FILES)

    def world_of(self, path: str) -> PurePosixPath:
        folder = PurePosixPath(path).parent
        if folder not in self._worlds:
            at = folder
            while at != TOP and at.name.isidentifier() and not self.is_build_root(at) and (
                    (self.is_package(at) and not self.runs_from(at)) or self._imported_by_name(at)):
                at = at.parent
            self._worlds[folder] = at
        return self._worlds[folder]

    def regular_chain(self, path: str, package: PurePosixPath) -> bool:
        """Every folder from the file's own up to `package` holds __init__.py: a relative import may climb there."""
        folder = PurePosixPath(path).parent
        while folder != package:
            if not self.is_package(folder) or folder == TOP:
                return False
            folder = folder.parent
        return self.is_package(package)

    def imports(self, path: str, at_load: bool = False) -> frozenset[tuple[str, ...]]:
        """The absolute imports of a file as dotted parts (`from a.b import c` gives ("a", "b", "c")); with at_load,
        only the module-level statements."""
        if path not in self._imports:
            try:
                data = read_contained(self.root, path, MAX_FILE_BYTES)
            except Unreadable:
                data = b""
            self._imports[path] = absolute_imports(data) if b"import" in data else (frozenset(), frozenset())
        return self._imports[path][1 if at_load else 0]

    def imports_at_load(self, path: str, name: str) -> bool:
        """The file imports package `name` absolutely when it loads, before the point where port adds its import (not
        in a function, not after a sys.path change): a device module inside that package is importable there too."""
        return any(parts[0] == name for parts in self.imports(path, at_load=True))

    def runs_from(self, folder: PurePosixPath) -> bool:
        """A file in the folder imports a sibling by its bare name (`from trainer import ...` in finetune/finetune.py,
        run as `torchrun finetune.py`; pytorch3d's projects/nerf/train_nerf.py doing `from nerf.dataset import ...`):
        the folder itself is on sys.path, __init__.py or not. A sibling folder counts only when the import continues
        into it (`import bitsandbytes` beside diffusers' quantizers/bitsandbytes/ folder is the library)."""
        try:
            entries = list(os.scandir(self.root / folder))
        except OSError:
            return False
        modules = [entry.name for entry in entries if entry.name.endswith(".py") and entry.is_file()]
        files = {name[:-3] for name in modules} - {"__init__", *sys.stdlib_module_names}
        folders = {entry.name for entry in entries if entry.is_dir()} - set(sys.stdlib_module_names)
        # `import logging` beside a logging.py is the standard one
        for name in modules:
            for parts in self.imports(str(folder / name)):
                if parts[0] in files or (parts[0] in folders and len(parts) > 1 and (
                        (self.root / folder / parts[0] / f"{parts[1]}.py").is_file()
                        or (self.root / folder / parts[0] / parts[1]).is_dir())):
                    return True
        return False

    def _imported_by_name(self, folder: PurePosixPath) -> bool:
        """A file under an ancestor of the folder imports a module inside it by its dotted path from that ancestor
        (`from models.MiniCPM.minicpmv import ...` in eval.py beside models/), within the ancestor's own project."""
        needle = folder.name.encode()
        above = folder.parent
        while True:
            spelled = folder.relative_to(above).parts if above != TOP else folder.parts
            if not all(part.isidentifier() for part in spelled):
                return False
            for path in self._python_files(above):
                try:
                    data = read_contained(self.root, path, MAX_FILE_BYTES)
                except Unreadable:
                    continue
                if needle not in data:  # bytes test before any parse
                    continue
                for parts in self.imports(path):
                    n = len(spelled)
                    if parts[:n] == spelled and len(parts) > n and (
                            (self.root / folder / f"{parts[n]}.py").is_file() or (self.root / folder / parts[n]).is_dir()):
                        return True
            if above == TOP or self.is_build_root(above):
                return False
            above = above.parent

    def _python_files(self, folder: PurePosixPath) -> list[str]:
        if folder not in self._files:
            found = []
            base = self.root / folder
            for current, dirs, files in os.walk(base):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (Path(current) / d).is_symlink())
                relative = PurePosixPath(Path(current).relative_to(self.root).as_posix())
                found += [str(relative / f) if str(relative) != "." else f for f in sorted(files) if f.endswith(".py")]
            self._files[folder] = found
        return self._files[folder]


def absolute_imports(data: bytes) -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]]:
    """(every absolute import, those in the leading run of module-level imports where port puts its own import: one
    after a `sys.path.append(...)` is not there yet), each as dotted parts."""
    root = parsing.parse("python", data)
    point = import_point(root, data)
    found = parsing.captures(parsing.query("python", IMPORT_QUERY), root)
    names: set[tuple[str, ...]] = set()
    at_load: set[tuple[str, ...]] = set()
    for node in found.get("import", []):
        for name in node.children_by_field_name("name"):
            dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
            if dotted is not None and dotted.type == "dotted_name":
                names.add(parts := tuple(parsing.text(dotted).split(".")))
                if node.parent == root and node.end_byte <= point:
                    at_load.add(parts)
    for node in found.get("import_from", []):
        module = node.child_by_field_name("module_name")
        if module is None or module.type != "dotted_name":
            continue  # relative
        base = tuple(parsing.text(module).split("."))
        names.add(base)
        if node.parent == root and node.end_byte <= point:
            at_load.add(base)
        for name in node.children_by_field_name("name"):
            dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
            if dotted is not None and dotted.type == "dotted_name":
                names.add(base + tuple(parsing.text(dotted).split(".")))
    return frozenset(names), frozenset(at_load)
