"""Modules that load a compiled extension the project neither builds nor declares, reached only through imports that
fall back where it fails: `optional`, with the extension in the reason.

OpenMMLab's ops modules call `ext_module = ext_loader.load_ext('_ext', [...])` at their top level, which imports the
compiled `mmcv._ext` of an installed mmcv-full. ControlNet carries a copy of mmcv's ops/ with no native source, no
build and no mmcv in its environment.yaml: the modules cannot import there, and its code reaches them only through
`try: from ...ops import CrissCrossAttention except ModuleNotFoundError:` (cc_head.py) and the like. A module is judged
so when
- its top level calls an extension loader of the conventions (opt_in.extension_loaders) with the extension's name;
- no build file of the project compiles an extension (opt_in.extension_builds: CUDAExtension, add_library, ...);
- no dependency or build file of the project names a folder holding the module (`mmcv-full` in requirements.txt:
  an installed mmcv provides `mmcv._ext`);
- no entry point needs it: neither it nor a module importing it unconditionally at its top level (transitively, the
  modules that fail with it) is a script, a launched or console module, a file outside any package, or a top-level
  package's __init__.py. Where one is, the project runs it and needs the extension installed: its findings count.
Those modules are optional; what only they import follows (propagation.guarded_modules).
A module that imports its extension as `try: from . import name_ext` / `except ImportError: pass` loads anyway; the
definitions calling through `name_ext` are what cannot run when nothing holds or builds it (unbuildable_extension_calls).
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import import_names, package_folders
from ascend_feasibility.analyzer.context.written_names import word_set
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts




def unbuilt_extension_modules(facts: list[ModuleFacts], context: ProjectContext,
                              console_modules: tuple[str, ...] = ()) -> dict[str, str]:
    """path → why, for the modules that need an extension nothing provides and that no entry point needs."""
    loaders = [f for f in facts if f.extension_loads and f.module and f.path.endswith(".py")]
    if not loaders:
        return {}
    builds = frozenset(load_context_conventions().opt_in.extension_builds)
    build_words = {word for f in facts if context.of(f.path).role == "build" for word in word_set(f.words)}
    if builds & build_words:
        return {}
    # a folder holding the module that a dependency file names (`mmcv-full` in requirements.txt: mmcv) may be installed
    loaders = [f for f in loaders if not build_words.intersection(path_view(f.path).parts[:-1])]
    if not loaders:
        return {}
    python = {f.path: f for f in facts if f.module and f.path.endswith(".py")}
    packages = package_folders(facts, context.source_roots)
    by_name: dict[str, str] = {}
    for path, f in python.items():
        for name in import_names(path, f.module, packages):
            by_name.setdefault(name, path)
    importers: dict[str, set[str]] = defaultdict(set)  # a file → the files that load it unconditionally at import
    for path, f in python.items():
        for name in set(f.imports) - set(f.nested_imports):
            for target in _loaded_by(name, by_name):
                if target != path and not _own_package(path, target):
                    importers[target].add(path)
    launched = {path_view(s).name for f in facts for s in f.launched_scripts}
    entries = set(console_modules)

    def entry(path: str) -> bool:
        f, view = python[path], path_view(path)
        return context.of(path).role in COUNTED_ROLES and (
            f.main_guard or view.name in launched or bool(import_names(path, f.module, packages) & entries)
            or view.parent not in packages
            or (view.name == "__init__.py" and path_view(view.parent).parent not in packages))

    result: dict[str, str] = {}
    for loader in sorted(loaders, key=lambda f: f.path):
        failing = {loader.path: None}
        queue = deque([loader.path])
        while queue:
            current = queue.popleft()
            for importer in importers.get(current, ()):
                if importer not in failing:
                    failing[importer] = current
                    queue.append(importer)
        if any(entry(path) for path in failing):
            continue
        needs = (f"needs the compiled extension `{loader.extension_loads[0]}` when it loads, which the project neither "
                 "builds nor declares")
        for path, through in failing.items():
            result.setdefault(path, (needs if through is None else f"imports {through} at its top level, which {needs}")
                              + "; no entry point of the project imports it unconditionally")
    return result


def _loaded_by(name: str, by_name: dict[str, str]) -> list[str]:
    """The files an import runs: the longest prefix that is a project module, and each package above it."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        target = by_name.get(".".join(parts[:end]))
        if target is not None:
            return [by_name[".".join(parts[:above])] for above in range(1, end) if ".".join(parts[:above]) in by_name] + [target]
    return []


def _own_package(importer: str, target: str) -> bool:
    """A package's own modules do not load its __init__.py: whoever imports the package from outside does."""
    return target.endswith("__init__.py") and importer.startswith(target[: -len("__init__.py")])



def unbuildable_extension_calls(facts: list[ModuleFacts], context: ProjectContext,
                                files: frozenset[str] = frozenset()) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the module-level definitions calling through an extension the module
    imports as `try: from . import name_ext` / `except ImportError: pass` (phases/extension_users.py), where the
    project can neither hold nor make it: no file or folder of that name beside the module, no native source (.cu,
    .cpp, ...) in the module's folder or below it (nothing a JIT `load(sources=...)` arm could compile), and no build
    file that compiles an extension (opt_in.extension_builds: CUDAExtension, ext_modules, ...). The module imports
    fine; the Function that calls `name_ext.forward(...)` fails with a NameError on any device (BasicSR's fused_act,
    upfirdn2d and dcn ops carried without their src/ folders or a build). `files`: every path of the project."""
    users = [f for f in facts if f.extension_users and context.of(f.path).role in COUNTED_ROLES]
    if not users:
        return {}
    builds = frozenset(load_context_conventions().opt_in.extension_builds)
    build_words = {word for f in facts if context.of(f.path).role == "build" for word in word_set(f.words)}
    if builds & build_words:
        return {}
    paths = files or frozenset(f.path for f in facts)
    result: dict[str, list[tuple[int, int, str]]] = {}
    for f in users:
        folder = path_view(f.path).parent
        prefix = "" if folder == "." else folder + "/"
        below = [path for path in paths if path.startswith(prefix)]
        if any(path_view(path).name.endswith(NATIVE_SUFFIXES) for path in below):
            continue
        for name, first, last in f.extension_users:
            if any(path[len(prefix):].split("/")[0].split(".")[0] == name for path in below):
                continue  # name.py, name/, name.cpython-310-x86_64-linux-gnu.so beside the module
            result.setdefault(f.path, []).append((first, last, (
                f"line {first}: calls through `{name}`, which the module imports in a `try:` that ignores its "
                f"ImportError; the project holds no `{name}` module, no native source beside it and no extension "
                "build: the call fails on every device")))
    return result
