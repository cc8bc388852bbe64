"""The import world of a Python file: the folder that is on sys.path when the file runs or is imported.

Python resolves `from .. import x` against the importing module's package, never against the folder tree, and an
absolute import against sys.path; a device module is reachable from a file only inside the file's world. The world is
read from the tree and the files' own imports: from the file's folder, climb through regular packages
(`__init__.py` folders) and through namespace folders that a file inside the parent imports by name
(`from eval_utils.getargs import ...` beside eval_utils/, `from megatron.core import ...` at the root), and never out of
a folder holding its own setup.py/pyproject.toml (the root of a project of its own, installed from there), unless a
build file above installs that folder as a package (enclosing_install.py). A folder
nothing imports by name is where a script runs from: its own folder is its world.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.port.enclosing_install import installed_from, installs
from ascend_feasibility.analyzer.port.files import import_point
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained
from ascend_feasibility.knowledge import load_context_conventions

BUILD_FILES = ("setup.py", "pyproject.toml")
IMPORT_QUERY = "(import_statement) @import (import_from_statement) @import_from"
TOP = PurePosixPath(".")
TORCH_MODULES = frozenset({"torch", "torch_npu"})
_LOADED_IMPORTS = {"import_statement", "import_from_statement"}
_NOT_AT_LOAD = {"function_definition", "class_definition", "lambda"}


class Worlds:
    def __init__(self, root: Path, launched_as_module: frozenset[str] = frozenset(),
                 source_roots: tuple[str, ...] = ("src",)) -> None:
        self.root = root
        # folders the build maps packages into (src/, setup.cfg/pyproject package-dir: ProjectConfig.source_roots): a
        # package below one is imported by its path below it (src/diffusers is `diffusers`)
        self.source_roots = tuple(PurePosixPath(folder) for folder in source_roots)
        # files the README runs with `python -m a.b` from the root: the root is their sys.path[0] (launch_modes.py)
        self.launched_as_module = launched_as_module
        self._worlds: dict[PurePosixPath, PurePosixPath] = {}
        self._imports: dict[str, tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]]] = {}
        self._files: dict[PurePosixPath, list[str]] = {}
        self._listing: dict[PurePosixPath, tuple[list[str], set[str]]] = {}
        self._at_load: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        self._build_roots: dict[PurePosixPath, bool] = {}
        self._roles = load_context_conventions().roles

    def below_source_root(self, path: PurePosixPath) -> PurePosixPath:
        """The path below the source root holding it (src/diffusers/_device.py → diffusers/_device.py), where that
        root is no package of its own; else the path as it is."""
        for root in self.source_roots:
            if root in path.parents and not self.is_package(root):
                return path.relative_to(root)
        return path

    def is_package(self, folder: PurePosixPath) -> bool:
        return str(folder) != "." and (self.root / folder / "__init__.py").is_file()

    def is_build_root(self, folder: PurePosixPath) -> bool:
        """The folder holds its own setup.py/pyproject.toml, and is no package a build file above installs (a
        stray pyproject in EasyR1/verl/, which EasyR1/setup.py's find_packages installs as `verl`)."""
        if folder not in self._build_roots:
            self._build_roots[folder] = self._has_build_file(folder) and not self._installed_above(folder)
        return self._build_roots[folder]

    def _has_build_file(self, folder: PurePosixPath) -> bool:
        return any((self.root / folder / name).is_file() for name in BUILD_FILES)

    def installed(self, package: PurePosixPath) -> bool:
        """A build file installs the regular package (the nearest one above it through regular packages: the root's
        setup.py/pyproject.toml for a top package), by its package list or by setuptools' discovery where it has none."""
        at = self._build_folder_above(package)
        return at is not None and installs(self.root, at, package)

    def _installed_above(self, folder: PurePosixPath) -> bool:
        """A regular package whose nearest build file above, through regular packages, names it in its package list."""
        at = self._build_folder_above(folder)
        return at is not None and installed_from(self.root, at, folder)

    def _build_folder_above(self, package: PurePosixPath) -> PurePosixPath | None:
        if not self.is_package(package):
            return None
        at = package.parent
        while not self._has_build_file(at):
            if at == TOP or not self.is_package(at):
                return None
            at = at.parent
        return at

    def world_of(self, path: str) -> PurePosixPath:
        """The file's world: its folder's, or the root where the root's own code loads the file by its dotted name
        (`loaded_from_root`) although a script of its folder puts that folder on sys.path."""
        world = self._folder_world(PurePosixPath(path).parent)
        return TOP if world != TOP and self.loaded_from_root(path) else world

    def loaded_from_root(self, path: str) -> bool:
        """A file of the root's world imports, when it loads, the file's package by its dotted name from the root
        (`from diffusion.vocoder import Vocoder` in so-vits-svc's train_diff.py), every folder on the way being a
        regular package, and the file itself imports no module of its folder by a bare name (not one of the folder's
        scripts, such as diffusion/onnx_export.py's `from diffusion_onnx import ...`): Python loads it as a module of
        that package with the root on sys.path, whatever the folder's scripts do. A test importing it so shows nothing
        of how the project loads it. A module port is to write there (a device module) is nothing the project loads
        yet: it stays in its folder's world."""
        folder = PurePosixPath(path).parent
        spelled = folder.parts
        if folder == TOP or not (self.root / path).is_file() or not all(part.isidentifier() for part in spelled) or not all(
                self.is_package(PurePosixPath(*spelled[:depth])) and not self.is_build_root(PurePosixPath(*spelled[:depth]))
                for depth in range(1, len(spelled) + 1)):
            return False
        if self._imports_from(path, folder, at_load=True):
            return False
        n = len(spelled)
        return any(not _inside_folder(other, folder) and file_role(other, self._roles) == "product"
                   and self._folder_world(PurePosixPath(other).parent) == TOP
                   and any(parts[:n] == spelled and len(parts) > n and self._inside(folder, parts[n])
                           for parts in self.imports(other, at_load=True))
                   for other in self._python_files_holding(TOP, spelled[-1].encode()))

    def _folder_world(self, folder: PurePosixPath) -> PurePosixPath:
        if folder not in self._worlds:
            at, passed = folder, []
            # a folder the files on the way import from by bare name when they load is on sys.path, even where
            # something above imports it by a dotted name (studio/backend: `from utils.x import` in core/inference/)
            while at != TOP and at.name.isidentifier() and not self.is_build_root(at) and (
                    (self.is_package(at) and not self.runs_from(at))
                    or (self._imported_by_name(at) and not self._rooted_at(at, passed))):
                passed.append(at)
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

    def climbs_to(self, path: str, package: PurePosixPath) -> bool:
        """The file's own module-level relative imports climb at least to `package` (`from ..models import x` in
        easyanimate/pipeline/a.py reaches easyanimate/): a relative import to that level resolves wherever the file's
        own do, through namespace folders too, and whatever name the tree is loaded under (a ComfyUI custom node
        imports the root as a package of another name, where an absolute `from easyanimate import` fails)."""
        folder = PurePosixPath(path).parent
        if package == TOP or folder != package and package not in folder.parents:
            return False
        needed = len(folder.parts) - len(package.parts) + 1
        return any(level >= needed for level, _ in self._imports_at_load(path))

    def imported_by_project(self, path: str) -> bool:
        """Another file of the project imports this one when it loads (relatively, or absolutely from its world or
        the root): the module is a library, whatever its `__main__` block does."""
        stem = PurePosixPath(path).stem.encode()
        return any(other != path and path in self._project_modules(other, self._imports_at_load(other))
                   for other in self._python_files_holding(TOP, stem))

    def imported_from_root(self, path: str) -> bool:
        """Another file of the same import world imports this one, when it loads, by its full dotted name from the
        root (`from tortoise.models.hifigan_decoder import ...` in tortoise/api_fast.py): the world's own code loads
        it so, with its top package importable. (A test at the root importing a backend module by its full name shows
        nothing of how the backend's launcher loads it.)"""
        dotted = PurePosixPath(path).with_suffix("").parts
        world = self.world_of(path)
        return all(part.isidentifier() for part in dotted) and any(
            other != path and self.world_of(other) == world
            and any(parts[:len(dotted)] == dotted for parts in self.imports(other, at_load=True))
            for other in self._python_files_holding(TOP, dotted[-1].encode()))

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

    def _rooted_at(self, folder: PurePosixPath, below: list[PurePosixPath]) -> bool:
        """When the file loads, before the point where port adds its import, the folder's own files import a sibling
        by its bare name, or a file in a folder below it on the way up imports a module of it by a name rooted there
        (`from utils.x import ...` in core/inference/a.py): the folder is on sys.path there. One whose imports come
        after its own `sys.path.append(...)` (HunyuanDiT's mllm/dialoggen_demo.py) shows nothing at that point."""
        return any(self._imports_from(str(folder / name), folder, at_load=True) for name in self._modules_in(folder)) \
            or any(self._imports_from(str(at / name), folder, files=False, at_load=True)
                   for at in below for name in self._modules_in(at))

    def loads_torch(self, path: str) -> bool:
        """Loading the file imports torch: a module-level `import torch` (or torch_npu), or a module-level import of
        a project module that has one (`from .model import Net`, `from core.x import y` in its world). An
        installer that pip-installs torch, or a module that imports it only inside a function, loads without it."""
        loaded = self._imports_at_load(path)
        if any(level == 0 and parts[0] in TORCH_MODULES for level, parts in loaded):
            return True
        return any(level == 0 and parts[0] in TORCH_MODULES for module in self._project_modules(path, loaded)
                   for level, parts in self._imports_at_load(module))

    def _project_modules(self, path: str, loaded: list[tuple[int, tuple[str, ...]]]) -> set[str]:
        """The project's files the imports name: relative from the file's folder, absolute from its world or the
        root (`from a.b import c`: a.py, a/__init__.py, a/b.py, a/b/__init__.py, a/b/c.py, ...)."""
        found = set()
        for level, parts in loaded:
            if level:
                base = PurePosixPath(path).parent
                for _ in range(level - 1):
                    base = base.parent
                bases = [base]
            else:
                bases = list(dict.fromkeys([self.world_of(path), TOP]))
            for base in bases:
                for k in range(1, len(parts) + 1):
                    stem = base.joinpath(*parts[:k])
                    for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                        if (self.root / candidate).is_file():
                            found.add(candidate.removeprefix("./"))
        return found - {path}

    def _imports_at_load(self, path: str) -> list[tuple[int, tuple[str, ...]]]:
        """(dots, dotted parts) of each import that runs when the file loads (not inside a function or class):
        `from ..a import b` gives (2, ("a", "b"))."""
        if path not in self._at_load:
            try:
                data = read_contained(self.root, path, MAX_FILE_BYTES)
            except Unreadable:
                data = b""
            found: list[tuple[int, tuple[str, ...]]] = []
            if b"import" in data:
                tree = parsing.parse("python", data)
                for node in parsing.walk(tree, prune=_LOADED_IMPORTS | _NOT_AT_LOAD):
                    if node.type not in _LOADED_IMPORTS:
                        continue
                    level, base = 0, ()
                    if node.type == "import_from_statement":
                        module = node.child_by_field_name("module_name")
                        raw = parsing.text(module) if module is not None else ""
                        level = len(raw) - len(raw.lstrip("."))
                        base = tuple(part for part in raw.lstrip(".").split(".") if part)
                    for name in node.children_by_field_name("name"):
                        dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
                        if dotted is not None and dotted.type == "dotted_name":
                            found.append((level, base + tuple(parsing.text(dotted).split("."))))
                    if base or level:
                        found.append((level, base))
            self._at_load[path] = found
        return self._at_load[path]

    def runs_from(self, folder: PurePosixPath) -> bool:
        """A file in the folder imports a sibling by its bare name (`from trainer import ...` in finetune/finetune.py,
        run as `torchrun finetune.py`; pytorch3d's projects/nerf/train_nerf.py doing `from nerf.dataset import ...`):
        the folder itself is on sys.path, __init__.py or not. A sibling folder counts only when the import continues
        into it (`import bitsandbytes` beside diffusers' quantizers/bitsandbytes/ folder is the library)."""
        return any(self._imports_from(str(folder / name), folder) for name in self._modules_in(folder))

    def _modules_in(self, folder: PurePosixPath) -> list[str]:
        if folder not in self._listing:
            try:
                entries = list(os.scandir(self.root / folder))
            except OSError:
                entries = []
            self._listing[folder] = (
                [entry.name for entry in entries if entry.name.endswith(".py") and entry.is_file()],
                {entry.name for entry in entries if entry.is_dir()} - set(sys.stdlib_module_names))
        return self._listing[folder][0]

    def _imports_from(self, path: str, folder: PurePosixPath, files: bool = True, at_load: bool = False) -> bool:
        """The file imports a module of the folder by its name from there: a .py file in it (`import x`, `from x
        import y`), or a module or package inside a subfolder of it (`import logging` beside a logging.py is the standard one). In utils/, where the
        file's imports name the folder itself as a package (`from utils import models`, `from utils.utils import f`
        with utils/models/ and utils/utils.py), a utils/utils.py is no sibling the file imports by its bare name."""
        modules = self._modules_in(folder)
        # a file never imports itself: `import pesq` in metrics/pesq.py is the library; from a folder below, only a
        # dotted name into a subfolder counts (`import gradio` in interface/interfaces/ is the library, not
        # interface/gradio.py)
        siblings = {name[:-3] for name in modules} - {"__init__", PurePosixPath(path).stem, *sys.stdlib_module_names} \
            if files else set()
        folders = self._listing[folder][1]
        imported = self.imports(path, at_load)
        if folder.name in siblings and any(parts[0] == folder.name and len(parts) > 1 and self._inside(folder, parts[1])
                                           for parts in imported):
            siblings.discard(folder.name)
        # a .py file is a module, never a package: `from encodec.modules import X` beside an encodec.py is the library
        return any((parts[0] in siblings and (parts[0],) in imported) or (parts[0] in folders and len(parts) > 1 and self._inside(folder / parts[0], parts[1]))
                   for parts in imported)

    def _inside(self, folder: PurePosixPath, name: str) -> bool:
        return (self.root / folder / f"{name}.py").is_file() or (self.root / folder / name).is_dir()

    def _imported_by_name(self, folder: PurePosixPath) -> bool:
        """A file under an ancestor of the folder imports a module inside it by its dotted path from that ancestor
        (`from models.MiniCPM.minicpmv import ...` in eval.py beside models/), within the ancestor's own project."""
        needle = folder.name.encode()
        above = folder.parent
        while True:
            spelled = folder.relative_to(above).parts if above != TOP else folder.parts
            if not all(part.isidentifier() for part in spelled):
                return False
            for path in self._python_files_holding(above, needle):
                for parts in self.imports(path):
                    n = len(spelled)
                    if parts[:n] == spelled and len(parts) > n and self._inside(folder, parts[n]):
                        return True
            if above == TOP or self.is_build_root(above):
                return False
            above = above.parent

    def _python_files_holding(self, folder: PurePosixPath, needle: bytes) -> Iterator[str]:
        """The Python files under the folder whose bytes hold the needle: a bytes test before any parse."""
        for path in self._python_files(folder):
            try:
                data = read_contained(self.root, path, MAX_FILE_BYTES)
            except Unreadable:
                continue
            if needle in data:
                yield path

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


def _inside_folder(path: str, folder: PurePosixPath) -> bool:
    return folder in PurePosixPath(path).parents
