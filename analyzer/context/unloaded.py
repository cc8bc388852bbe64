"""Modules of the project's own packages that no product code loads: `optional`, with the files that do load them.

Python loads a package module only when something imports it (or names it in a string it imports by). Walking the
project's import graph from what the product runs (scripts, entry points, the top-level packages a user imports,
examples) leaves the modules nothing running reaches. Only in a package that is the code of the project's own programs:
one its entry points drive and whose __init__.py publishes no API (nanotron: run_train.py loads nanotron.trainer, and
nanotron/__init__.py holds `__version__`), or an application's package beside its scripts. A library is loaded by its
users module by module and keeps `runs`: one with no entry point of its own (fused_kernels: setup.py, tests and an
empty __init__.py), or one whose __init__.py publishes an API (deepspeed, x_transformers).
- one that tests reach (nanotron's src/nanotron/fp8/, imported only by tests/fp8/*): "imported only by tests";
- one that nothing imports, inside a subpackage whose __init__.py only tests reach (nanotron/fp8/utils.py): the
  subpackage is a feature the product never loads;
- one that nothing reaches, in a package that sits beside an application's scripts below the top level (CogVideo's
  inference/gradio_composite_demo/rife/RIFE.py and the refine.py only it imports, beside app.py): an application's
  helper package is loaded only from its scripts, so what they never import never runs. A package at the top level or
  under src/ is a library's: a module of it that nothing imports may be imported by its users and stays `runs`;
- one that nothing reaches, in an application's package: one the project's own shell launchers run modules of and
  that the project does not publish under its own name (VILA: `name = "vila"` ships `llava`, whose train_mem.py the
  scripts launch; realqmemllama.py and the COAT copy of its FP8 code are imported by nothing). A library is installed
  and imported by its name (peft, deepspeed, openai-whisper's whisper), so this holds only where the names differ.
- one that nothing reaches, in a top package no build file at the root or above it publishes, which the project's
  own scripts import (unpublished_packages): a library copied into an application with its own setup.py inside the
  copy (CodeFormer's basicsr/: ops/upfirdn2d and ops/fused_act, imported by nothing) is used only as far as the
  application uses it.
- one that nothing imports and whose own package names it only in a commented-out import line, in any package, a
  library's too (LLaVA's modeling_llama.py: llava_llama.py:27 `# from .modeling_llama import LlamaModel` beside
  `from transformers import LlamaModel`; dev_eva_clip/, named only by builder.py's `# from .dev_eva_clip.eva_vit
  import EvaViTWrapper`), and what only it loads: the project unhooked it, and its library's own dispatch offers its
  users no route to it (commented_imports.py reads the comments). A module a live import loads stays as it is, whatever
  comments also name it.
- one that nothing the project's own code reaches, in a lazily loaded library the project forked for its scripts
  (BrushNet's src/diffusers, whose README runs examples/brushnet/*.py): the names those scripts import are read
  through the `_LazyModule` tables to the modules they load, and the upstream's own examples are not the project's
  entries (forked_libraries.py). A library whose README teaches its API (diffusers itself) keeps its modules.
A module that is itself an entry point (`if __name__ == "__main__":`, launched by a shell script, a console entry),
or whose dotted name a string of product code holds (registries, lazy import tables), is never one.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context import forked_libraries, plugin_registries
from ascend_feasibility.analyzer.context.copy_reach import copy_folder
from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.written_names import writes_word
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

LIVE_ROLES = COUNTED_ROLES | {"example"}  # an example is the library's user: what it imports is a feature in use


def unloaded_modules(facts: list[ModuleFacts], context: ProjectContext, console_modules: tuple[str, ...] = (),
                     distribution: str = "", packages: set[str] | None = None) -> dict[str, tuple[str, str]]:
    """path → ("optional", why) for the product modules of the project's packages that nothing the product runs loads.
    `distribution`: the name the project publishes (pyproject's [project] name), "" when it names none; `packages`:
    package_folders(facts) when the caller has it already."""
    python = [f for f in facts if f.module and f.path.endswith(".py")]
    packages = package_folders(facts, context.source_roots) if packages is None else packages
    names = {f.path: import_names(f.path, f.module, packages) for f in python}
    by_name: dict[str, set[str]] = defaultdict(set)
    for path, known in names.items():
        for name in known:
            by_name[name].add(path)
    # a lazily loaded library the project forked for its own scripts loads only the modules its tables map the names
    # asked of it to (forked_libraries.py)
    forks = forked_libraries.application_forks(facts, context, {top_folder(f.path, packages): f.path for f in python
                                                                  if _top_package(f.path, packages)})
    tables = forked_libraries.lazy_tables(facts, forks) if forks else {}
    runs = {f.path: forked_libraries.through_tables(forked_libraries.runtime_imports(f, tables), by_name, tables)
            if tables else f.imports for f in python}
    edges = {f.path: _targets(runs[f.path], by_name) - {f.path} for f in python}
    imported = set().union(*edges.values()) if edges else set()
    launched = {path_view(s).name for f in facts for s in f.launched_scripts}
    entries = set(console_modules)
    roles = {f.path: context.of(f.path).role for f in python}
    # folders of an application's scripts, below the top level: a package at the top level or under src/ is a
    # library's, whose users may import what the project itself does not
    beside_scripts = {path_view(f.path).parent for f in python if path_view(f.path).parent not in packages
                      and roles[f.path] == "product"} - {".", "src"}
    applications = application_packages(facts, context, distribution, packages)
    # a program that loads its plugins through a string table: what neither an import nor the table reaches is unloaded
    registry_tops, plugin_modules, plugin_keys = registry_applications(facts, packages, console_modules)
    plugins = {path for path, (named, _) in plugin_modules.items() if named}
    unpublished = unpublished_packages(facts, packages, context) - applications
    applications |= unpublished | registry_tops
    # a module of an application's package whose only entry is a `__main__` smoke test or benchmark (random inputs, a
    # demo call, no training or serving signal of its own) and that nothing imports or launches is a developer's bench
    benches = {f.path for f in python if f.main_guard and f.main_demo
               and not any(f.evidence.values()) and path_view(f.path).parent in packages
               and top_folder(f.path, packages) in applications and path_view(f.path).name not in launched
               and not names[f.path] & entries and f.path not in imported}
    # a module of a plugin-table program with a `__main__` block of its own that nothing imports, launches or names as
    # a console entry is a side script run by hand (a task's scorer), not a route of the program's entries
    side_scripts = {f.path for f in python if f.main_guard and path_view(f.path).parent in packages
                    and top_folder(f.path, packages) in registry_tops and path_view(f.path).name != "__main__.py"
                    and f.path not in imported and path_view(f.path).name not in launched
                    and not names[f.path] & entries and f.path not in plugins}
    named = _named_prefixes(facts, context, plugin_keys, set(tables))
    # a file of definitions outside the packages that nothing imports, runs or names: no entry's imports reach it
    unrun = unrun_definitions(facts, context, packages, names, imported, entries, named)
    roots = [f.path for f in python if roles[f.path] in LIVE_ROLES and f.path not in unrun and (
        path_view(f.path).parent not in packages or _top_package(f.path, packages)
        or (f.main_guard and f.path not in benches and f.path not in side_scripts)
        or path_view(f.path).name in launched or names[f.path] & entries or f.path in plugins)]
    tests = _reach(sorted(p for p, role in roles.items() if role == "test"), edges)
    # a library module nothing imports is its users' to import, and what it imports runs with it; not so inside a
    # subpackage that only tests load (nanotron/fp8/utils.py beside the fp8/__init__.py only tests/fp8 import)
    first = set(_reach(roots, edges))
    test_packages = {p for p in tests if p not in first and path_view(p).name == "__init__.py"
                     and not _top_package(p, packages)}
    # any file of the project but a test may name an application's module (a JSON `_target_` in a default string, a
    # YAML config): strings of product code alone are too few there. What they name is loaded, and so is what it imports
    written = {".".join(parts[:end]) for f in facts if context.of(f.path).role != "test" for word in f.dotted_words
               for parts in [word.split(".")] for end in range(2, len(parts) + 1)} if applications else set()
    orphans = [p for p, role in roles.items() if role in COUNTED_ROLES and p not in imported
               and path_view(p).parent in packages and _package_root(p, packages) not in beside_scripts
               and top_folder(p, packages) not in applications | forks]
    inside_tests_only = {p: package for p in orphans if (package := _tests_only_package(p, packages, test_packages))}
    by_string = [p for p in roles if names[p] & (written | named) and top_folder(p, packages) in applications]
    retired = {path: why for path, why in retired_modules(facts, context, orphans, names, packages, edges).items()
               if not names[path] & named}  # a module a string names is loaded by name
    live = set(_reach(roots + by_string + [p for p in orphans if p not in inside_tests_only and p not in retired],
                      edges))
    if forks:  # a fork is loaded by the project's own code and what the README runs, not by the upstream's examples
        own = [p for p in roles if roles[p] in COUNTED_ROLES and top_folder(p, packages) not in forks]
        forked = set(_reach([r for r in roots if top_folder(r, packages) in forks] + own
                            + [p for p in context.readme_launches if p in roles], edges))
        live = {p for p in live if top_folder(p, packages) not in forks} | {
            p for p in forked if top_folder(p, packages) in forks}
    # a library no entry point of the project drives (fused_kernels: setup.py, tests and an empty __init__.py) is
    # loaded by its users, module by module: what only its tests import is still its API
    driven = {top_folder(p, packages) for p in _reach([r for r in roots if not _top_package(r, packages)], edges)
              if path_view(p).parent in packages}
    # a package whose __init__.py publishes an API (x_transformers, deepspeed: `from .engine import ...`) is a library
    # its users import piece by piece (deepspeed/sequence/fpdt_layer.py, which Megatron-DeepSpeed imports); one whose
    # __init__.py publishes nothing (nanotron's holds `__version__`) is the code its own scripts run
    publishing = {top_folder(p, packages) for p in roles if _top_package(p, packages)
                  and any(top_folder(t, packages) == top_folder(p, packages) for t in edges[p])}
    driven -= publishing
    result: dict[str, tuple[str, str]] = dict.fromkeys(unrun, ("optional", UNRUN_WHY))
    for f in python:
        own = context.of(f.path)
        if (f.path in live or own.role not in COUNTED_ROLES or own.reach != "runs"
                or path_view(f.path).name in PUBLISHING_FILES  # a copy's setup.py runs as a command, never imported
                or path_view(f.path).parent not in packages or names[f.path] & named
                or (top_folder(f.path, packages) not in driven | applications | forks
                    and _package_root(f.path, packages) not in beside_scripts)):
            continue
        if f.path in tests:
            result[f.path] = ("optional", f"imported only by tests ({tests[f.path]}): no product code loads it")
        elif f.path in inside_tests_only:
            package = inside_tests_only[f.path]
            result[f.path] = ("optional", f"in {path_view(package).parent}/, a package imported only by tests "
                                          f"({tests[package]}): no product code loads it")
        elif _package_root(f.path, packages) in beside_scripts:
            result[f.path] = ("optional", f"imported by nothing the scripts beside {top_folder(f.path, packages)}/ "
                                          "load: no product code loads it")
        elif f.path in side_scripts:
            result[f.path] = ("optional", f"a side script of the program {top_folder(f.path, packages)}/: its own "
                                          "`if __name__ == \"__main__\":` block, run by hand; nothing the program's "
                                          "entries run imports or launches it")
        elif f.path in plugin_modules:
            result[f.path] = ("optional", f"not in the plugin table of {plugin_modules[f.path][1]} that loads the modules of "
                                          f"{path_view(f.path).parent}/ by name, and imported by nothing the program "
                                          f"{top_folder(f.path, packages)}/ runs: no product code loads it")
        elif top_folder(f.path, packages) in forks:
            result[f.path] = ("optional", forked_libraries.WHY.format(top=top_folder(f.path, packages)))
        elif top_folder(f.path, packages) in unpublished:
            bench = (" (its `if __name__ == \"__main__\":` block is a smoke test or benchmark of the module, run by "
                     "no launcher)") if f.path in benches else ""
            result[f.path] = ("optional", f"imported by nothing the scripts of {top_folder(f.path, packages)}/ load, "
                                          "a package no setup.py, setup.cfg or pyproject.toml publishes, so no user "
                                          f"outside the project imports it{bench}: no product code loads it")
        elif top_folder(f.path, packages) in applications:
            result[f.path] = ("optional", f"imported by nothing the launchers and entry points of the application "
                                          f"package {top_folder(f.path, packages)}/ load: no product code loads it")
    # a folder without __init__.py inside a package a find_packages() build publishes, that no file outside it imports:
    # in no wheel, run by no entry (pytorchvideo/neural_engine/, round 41 A1 row 32, B2 row 33)
    for path, why in unshipped_islands(python, packages, edges, launched, named, names,
                                       published_packages(facts, packages), _namespace_builds(facts)).items():
        own = context.of(path)
        if path not in result and own.role in COUNTED_ROLES and own.reach == "runs":
            result[path] = ("optional", why)
    # modules whose only import the project has commented out, and what only they load: in any package, a library's
    # too (its users reach the module through the project's own dispatch, which no longer names it)
    if retired:
        loaded_by = _reach(sorted(retired), edges)
        for f in python:
            own = context.of(f.path)
            if (f.path in live or f.path in result or f.path not in loaded_by or own.role not in COUNTED_ROLES
                    or own.reach != "runs" or names[f.path] & named):
                continue
            seed = loaded_by[f.path]
            result[f.path] = ("optional", retired[f.path][1] if f.path in retired else f"loaded only through {seed}, "
                              f"whose only import, {retired[seed][0]}, is commented out: nothing imports it")
    return result


def unshipped_islands(python: list[ModuleFacts], packages: set[str], edges: dict[str, set[str]], launched: set[str],
                      named: set[str], names: dict[str, set[str]], published: set[str],
                      namespace_builds: bool) -> dict[str, str]:
    """path → why, for the modules of a folder without __init__.py inside a published package (a namespace folder
    package_folders keeps because a file imports it by dotted name) when no build ships namespace folders, no file
    outside the folder imports one of its modules, and none of them is launched, run as a script (a `__main__` block)
    or named by a string: nothing installs or loads the folder."""
    if namespace_builds:
        return {}
    members: dict[str, list[ModuleFacts]] = defaultdict(list)
    for f in python:
        folder = path_view(f.path).parent
        if folder in packages and top_folder(f.path, packages) in published:
            members[folder].append(f)
    initialised = {path_view(f.path).parent for f in python if path_view(f.path).name == "__init__.py"}
    result: dict[str, str] = {}
    for folder, files in members.items():
        if folder in initialised:
            continue
        inside = {f.path for f in files}
        if any(f.main_guard or path_view(f.path).name in launched or names[f.path] & named for f in files) \
                or any(target in inside for source, targets in edges.items() if source not in inside for target in targets):
            continue
        why = (f"in {folder}/, a folder without __init__.py that the build (find_packages) leaves out of the package "
               "and no file outside it imports: nothing installs or loads it")
        result.update(dict.fromkeys(sorted(inside), why))
    return result


def _namespace_builds(facts: list[ModuleFacts]) -> bool:
    """Does a build file of the project ship folders without __init__.py: a pyproject.toml (setuptools' automatic
    discovery and hatch's wheel take namespace folders), or a setup.py or setup.cfg calling find_namespace_packages
    (`find_namespace:`)? setuptools' find_packages() skips them: pytorchvideo's neural_engine/ (no __init__.py, imported
    by nothing) is in no wheel its setup.py builds (round 41 A1 row 32)."""
    for f in facts:
        name = path_view(f.path).name
        if name == "pyproject.toml" or (name in PUBLISHING_FILES and any(
                writes_word(f.words or "", word) for word in ("find_namespace_packages", "find_namespace"))):
            return True
    return False


UNRUN_WHY = ("a file of definitions only (no `if __name__ == \"__main__\":` block, no top-level code) outside the "
             "packages, that nothing imports, launches or names: no entry's import chain reaches it")


def unrun_definitions(facts: list[ModuleFacts], context: ProjectContext, packages: set[str],
                      names: dict[str, set[str]], imported: set[str], entries: set[str],
                      named: set[str]) -> set[str]:
    """The product files outside the package folders that only define things (functions or classes, no `__main__`
    block, no code at the top level: running them does nothing) and that no import of any file (scripts, tests, notebooks) loads, no
    launcher, README command or `-m` launch runs, no console entry, string or config names, beside or below no by-name
    loader (`importlib.import_module`), and that no build file could publish (py_modules beside a setup.py, a source
    root, a namespace folder of a published package). Python loads such a file only when an import names it, and none
    does: an entry's import chain never reaches it (a network's backbone file in a folder without __init__.py that the
    network's own module does not import), and what only it imports is not reached through it."""
    if not any(f.main_guard for f in facts):  # a project with no program of its own (loose modules): users import them
        return set()
    python = {f.path: f for f in facts if f.module and f.path.endswith(".py")}
    candidates = {path for path, f in python.items()
                  if path_view(path).parent not in packages and path_view(path).parent != "."  # a root module: a
                  # user's `import name` after copying it is its use
                  and not f.main_guard and not f.top_level_code
                  and (f.exported_functions or f.class_shapes)  # it defines something: a module, no stub
                  and path not in imported and context.of(path).role in COUNTED_ROLES
                  and context.of(path).reach == "runs" and path_view(path).name not in PUBLISHING_FILES
                  and path_view(path).name != "__main__.py" and not names[path] & (entries | named)}
    if not candidates:
        return set()
    by_name: dict[str, set[str]] = defaultdict(set)
    for path in candidates:  # every dotted tail of the path too: `from src.model import` in a script beside src/
        parts = [p for p in PurePosixPath(path).with_suffix("").parts if p != "__init__"]
        for name in names[path] | {".".join(parts[i:]) for i in range(len(parts))}:
            by_name[name].add(path)
    launched = {path_view(s).name for f in facts for s in f.launched_scripts}
    run = {module for f in facts for module, _script in f.launches if module}
    loaders = {path_view(f.path).parent for f in facts if f.loads_by_name}
    builds = {path_view(f.path).parent for f in facts if path_view(f.path).name in PUBLISHING_FILES}
    # a folder without __init__.py inside a published package ships only with a build that collects namespace folders
    published = published_packages(facts, packages) if _namespace_builds(facts) else set()
    for f in facts:  # any import naming the module (a script's `from src.model import` resolved to another copy of
        # src/ beside another script: byte-identical generations side by side), strings and configs naming a module
        if f.imports:
            candidates -= _targets(f.imports, by_name)
        if f.dotted_words and context.of(f.path).role != "test":
            candidates -= {path for word in f.dotted_words for parts in [word.split(".")]
                           for end in range(1, len(parts) + 1) for path in by_name.get(".".join(parts[:end]), ())
                           if path != f.path}  # a file naming itself loads nothing
    result = set()
    for path in candidates:
        folder = path_view(path).parent
        above, current = {folder}, folder
        while current != ".":
            current = path_view(current).parent
            above.add(current)
        below = next((p for p in sorted(packages) if folder.startswith(p + "/")), None)
        if (path_view(path).name in launched or path in context.readme_launches or names[path] & run
                or above & loaders or folder in builds or folder in context.source_roots
                or (below is not None and top_folder(f"{below}/__init__.py", packages) in published)):
            continue
        result.add(path)
    return result


def retired_modules(facts: list[ModuleFacts], context: ProjectContext, orphans: list[str],
                    names: dict[str, set[str]], packages: set[str],
                    edges: dict[str, set[str]]) -> dict[str, tuple[str, str]]:
    """path → (the commented import's "file:line", why), for the modules their own package's code names only in a
    commented-out import (`# from .modeling_llama import LlamaModel`): the project unhooked them. One such module
    nothing imports is retired; so is every file of a subpackage such a comment names (`# from .dev_eva_clip.eva_vit
    import X` names dev_eva_clip/) that no file outside the subpackage imports. A file's comments about itself, another
    package's and tests' comments say nothing, and a top package is never retired (every import of the package names
    it)."""
    named: dict[str, list[tuple[str, str]]] = defaultdict(list)  # a dotted name or a package above → (file, "file:line")
    for f in facts:
        if not f.commented_imports or context.of(f.path).role not in LIVE_ROLES:
            continue
        for module, line in f.commented_imports:
            parts = module.split(".")
            for end in range(2, len(parts) + 1):
                named[".".join(parts[:end])].append((f.path, f"{f.path}:{line}"))
    if not named:
        return {}

    def comment_on(path: str, top: str) -> str | None:
        """The commented import line of `top`'s package naming `path`'s module, written outside it."""
        return next((where for name in sorted(names.get(path, ())) for commenting, where in named.get(name, ())
                     if commenting != path and top_folder(commenting, packages) == top), None)

    retired: dict[str, tuple[str, str]] = {}  # path → (the commented line, why)
    for path in orphans:
        if not _top_package(path, packages) and (where := comment_on(path, top_folder(path, packages))):
            retired[path] = (where, f"its only import, {where}, is commented out: nothing imports it")
    by_folder: dict[str, list[str]] = defaultdict(list)
    for path in names:
        folder = path_view(path).parent
        while folder in packages and folder != ".":
            by_folder[folder].append(path)
            folder = path_view(folder).parent
    for folder, inside in sorted(by_folder.items()):
        init = f"{folder}/__init__.py"
        if init not in names or _top_package(init, packages):
            continue
        where = next((w for name in sorted(names[init]) for commenting, w in named.get(name, ())
                      if not commenting.startswith(folder + "/")
                      and top_folder(commenting, packages) == top_folder(init, packages)), None)
        if where is None:
            continue
        members = set(inside)
        if any(target in members for source, targets in edges.items() if source not in members for target in targets):
            continue  # a file outside the subpackage imports it
        for path in inside:
            retired.setdefault(path, (where, f"in {folder}/, whose only import, {where}, is commented out: nothing "
                                             "imports it"))
    return retired


def package_folders(facts: list[ModuleFacts], roots: tuple[str, ...] = ("src",)) -> set[str]:
    """The folders holding an __init__.py, and the namespace subpackages below them that the project imports by dotted
    name (VILA's llava/model/language_model/ has no __init__.py; builder.py imports llava.model.language_model.qmemllama).
    `roots`: the source roots namespace packages may sit directly in (ProjectContext.source_roots)."""
    python = [f for f in facts if f.module and f.path.endswith(".py")]
    packages = {path_view(f.path).parent for f in python if path_view(f.path).name == "__init__.py"}
    packages |= _source_namespaces(python, packages, roots)
    by_folder: dict[str, list[ModuleFacts]] = defaultdict(list)
    for f in python:
        if path_view(f.path).parent not in packages:
            by_folder[path_view(f.path).parent].append(f)
    if not by_folder:
        return packages
    names = {name for f in python for name in f.imports if "." in name}  # files import the same names
    imported = {".".join(name.split(".")[:end]) for name in names for end in range(1, name.count(".") + 1)}
    for folder in sorted(by_folder, key=lambda folder: folder.count("/")):  # a parent is settled before its children
        if path_view(folder).parent not in packages or path_view(folder).parent == ".":
            continue
        first = by_folder[folder][0]
        if any(name.rsplit(".", 1)[0] in imported
               for name in import_names(first.path, first.module, packages | {folder}) if "." in name):
            packages.add(folder)
    return packages


def _source_namespaces(python: list[ModuleFacts], packages: set[str], roots: tuple[str, ...]) -> set[str]:
    """Folders directly below a source root (src/, or a folder the build's package-dir maps packages into) without
    __init__.py that Python imports as namespace packages (PEP 420) once the project is installed: F5-TTS's
    src/f5_tts/ holds model/__init__.py, and its files import `f5_tts.model`. Only where an import of the tree names
    the folder and something inside it (`<name>.<child>`): a folder no import names is not read as a package."""
    children: dict[str, set[str]] = defaultdict(set)  # <root>/<name> → the module and folder names inside it
    splits = [tuple(root.split("/")) for root in roots]
    for f in python:
        parts = path_view(f.path).parts
        for split in splits:
            depth = len(split)
            if len(parts) < depth + 2 or parts[:depth] != split or not parts[depth].isidentifier():
                continue
            folder = "/".join(parts[:depth + 1])
            if folder not in packages:
                children[folder].add(parts[depth + 1].removesuffix(".py"))
    if not children:
        return set()
    named = {tuple(name.split(".")[:2]) for f in python for name in f.imports if "." in name}
    return {folder for folder, inside in children.items()
            if any((path_view(folder).name, child) in named for child in inside)}


def application_packages(facts: list[ModuleFacts], context: ProjectContext, distribution: str,
                         packages: set[str] | None = None) -> set[str]:
    """Top package folders that are an application's code: the project's shell launchers run modules inside them
    (`torchrun llava/train/train_mem.py`), and the project publishes them under another name than their own."""
    if not distribution:
        return set()
    packages = package_folders(facts, context.source_roots) if packages is None else packages
    launched = {s.removeprefix("./") for f in facts if context.of(f.path).role in LIVE_ROLES
                for s in f.launched_scripts}
    published = _plain_name(distribution)
    result = set()
    for path in {f.path for f in facts if f.path.endswith(".py") and path_view(f.path).parent in packages}:
        if not any(path == s or s.endswith("/" + path) for s in launched):
            continue
        top = top_folder(path, packages)
        own = _plain_name(path_view(top).name)
        if own not in published and published not in own:
            result.add(top)
    return result


def registry_applications(facts: list[ModuleFacts], packages: set[str],
                          console_modules: tuple[str, ...] = ()
                          ) -> tuple[set[str], dict[str, tuple[bool, str]], dict[str, set[str]]]:
    """The top package folders that are a program loading its plugins through a string table (plugin_registries.py),
    each module of such a table's plugin folder → (whether the table names its stem, the table's file), and each such
    table's file → its keys (names in the plugin folder, not in the file's own package: a lazy loader's strings). A
    program: the package holds a `__main__.py` or a console script's module; a library without one keeps its modules
    public."""
    python = [f for f in facts if f.module and f.path.endswith(".py") and path_view(f.path).parent in packages]
    tables = [f for f in python if f.plugin_tables]
    if not tables:
        return set(), {}, {}
    programs = {top_folder(f.path, packages) for f in python if path_view(f.path).name == "__main__.py"
                or any(f.module == entry or f.module.endswith("." + entry) for entry in console_modules)}
    programs &= {top_folder(f.path, packages) for f in python if f.loads_by_name}  # a table feeds a by-name loader
    stems: dict[str, set[str]] = defaultdict(set)
    for f in python:
        if path_view(f.path).name not in ("__init__.py", "__main__.py"):
            stems[path_view(f.path).parent].add(path_view(f.path).name.removesuffix(".py"))
    tops: set[str] = set()
    modules: dict[str, tuple[bool, str]] = {}
    keys: dict[str, set[str]] = defaultdict(set)
    for f in tables:
        top = top_folder(f.path, packages)
        if top not in programs:
            continue
        inside = {folder: names for folder, names in stems.items() if folder == top or folder.startswith(top + "/")}
        for folder, named in plugin_registries.plugin_folders(f.plugin_tables, inside).items():
            tops.add(top)
            keys[f.path] |= {key for table in f.plugin_tables if named & set(table) for key in table}
            for stem in stems[folder]:
                path = f"{folder}/{stem}.py"
                if not modules.get(path, (False, ""))[0]:
                    modules[path] = (stem in named, f.path)
    return tops, modules, dict(keys)


PUBLISHING_FILES = frozenset({"setup.py", "setup.cfg", "pyproject.toml"})


def published_packages(facts: list[ModuleFacts], packages: set[str]) -> set[str]:
    """Top package folders a build file (setup.py, setup.cfg, pyproject.toml) in a folder above could publish; one
    beside the package's own __init__.py is a copied library's build, which publishes nothing of the project."""
    builds = {path_view(f.path).parent for f in facts if path_view(f.path).name in PUBLISHING_FILES}
    result = set()
    for top in {top_folder(f"{folder}/__init__.py", packages) for folder in packages}:
        folder, above = path_view(top).parent, set()
        while folder not in above:  # the folders above the package
            above.add(folder)
            folder = path_view(folder).parent
        if above & builds:
            result.add(top)
    return result


def unpublished_packages(facts: list[ModuleFacts], packages: set[str], context: ProjectContext) -> set[str]:
    """Top package folders no build file could publish and the project's own scripts consume: none (setup.py,
    setup.cfg, pyproject.toml) sits in the folder or any folder above it, and a product file outside the package
    imports it (InternImage's segmentation/mmseg_custom, imported by segmentation/train.py beside it). Such a package is
    an application's code: a public function of it that nothing in the project names is no users' API. A package
    nothing of the project imports may be a library shipped without packaging, and keeps its public names.
    A build file inside the package's own folder, beside its __init__.py, publishes no package of the project: it is
    the build of a library copied into the application (CodeFormer's basicsr/setup.py, BasicSR's own root setup.py
    carried inside the copy and run as `python basicsr/setup.py develop`; round 24 B1 C2, B2 C1), so the copy's
    modules the application never loads are its unused part. A build file at the root or in a folder above the
    package (a library's own layout) still publishes it."""
    published = published_packages(facts, packages)
    tops = {top_folder(f"{folder}/__init__.py", packages) for folder in packages}
    candidates: dict[str, set[str]] = defaultdict(set)
    for top in tops - published:  # imported by its folder's name (a script beside it) or by its path from the root
        candidates[path_view(top).name].add(top)
        candidates[top.replace("/", ".")].add(top)
    if not candidates:
        return set()
    result = set()
    for f in facts:
        if not f.imports or context.of(f.path).role not in COUNTED_ROLES:
            continue
        for name in f.imports:
            parts = name.split(".")
            # every package the dotted name walks through: `models.ade20k.segm_lib.nn` loads the package
            # models/ade20k/segm_lib/nn (under a folder with no __init__.py) besides models/ade20k; a vendored
            # copy's package (copy_reach.copy_folder: app/whisper/whisper/) is copy_reach.py's to judge
            first = True
            for end in range(1, len(parts) + 1):
                tops_named = candidates.get(".".join(parts[:end]), set())
                if not first:
                    tops_named = {top for top in tops_named if copy_folder(top + "/__init__.py") is None}
                first = first and not tops_named
                result |= {top for top in _nearest(tops_named, f.path) if not f.path.startswith(top + "/")}
    return result


def _nearest(tops: set[str], importer: str) -> set[str]:
    """Of the same-named top packages an import may load (`model` at the root and under web-demos/.../tracker/), those
    beside the importing file or a folder above it (where Python's path puts a script's own folder and the root); all
    of them when none is."""
    folder = path_view(importer).parent
    folders = {folder, "."}
    while folder != ".":
        folder = path_view(folder).parent
        folders.add(folder)
    near = {top for top in tops if path_view(top).parent in folders}
    return near or tops


def bundled_libraries(facts: list[ModuleFacts], packages: set[str], context: ProjectContext) -> set[str]:
    """Top package folders published only by a build file in a sub-folder of a project whose root holds none, that a
    product file outside that sub-folder imports: another library's checkout the application carries and installs
    from its own folder (`GroundingDINO/setup.py` above `GroundingDINO/groundingdino/`, imported by the root's demo
    scripts; round 31 A2 C1, B2 C5). The application is that copy's only user in the project: a public function of it
    that nothing in the project names is no users' API, as in an unpublished copy (unpublished_packages). A project
    whose root has a build file publishes its sub-folders' packages as its own (a monorepo's libraries), and a package
    nothing outside its sub-folder imports may be a library shipped beside the code: both keep their public names."""
    builds = {path_view(f.path).parent for f in facts if path_view(f.path).name in PUBLISHING_FILES}
    if not builds or "." in builds:
        return set()
    owners: dict[str, str] = {}  # top package → the folder of the build file publishing it
    for top in {top_folder(f"{folder}/__init__.py", packages) for folder in packages}:
        folder = path_view(top).parent
        while folder not in builds and folder != ".":
            folder = path_view(folder).parent
        if folder in builds and folder != ".":
            owners[top] = folder
    if not owners:
        return set()
    names: dict[str, set[str]] = defaultdict(set)
    for top in owners:
        names[path_view(top).name].add(top)
    result = set()
    for f in facts:
        if not f.imports or context.of(f.path).role not in COUNTED_ROLES:
            continue
        for name in f.imports:
            result |= {top for top in _nearest(names.get(name.split(".")[0], set()), f.path)
                       if not f.path.startswith(owners[top] + "/")}
    return result


def _plain_name(name: str) -> str:
    """A distribution or package name as Python would import it: lower case, runs of `-_.` as one `_`."""
    return re.sub(r"[-_.]+", "_", name.lower())


def _tests_only_package(path: str, packages: set[str], test_packages: set[str]) -> str | None:
    """The __init__.py of the nearest subpackage holding `path` that only tests load, if any."""
    folder = path_view(path).parent
    while folder in packages and folder != ".":
        package = f"{folder}/__init__.py"
        if package in test_packages:
            return package
        folder = path_view(folder).parent
    return None


def import_names(path: str, module: str, packages: set[str]) -> set[str]:
    """The dotted names Python may load a file by: its path's name from the analysed root, and its name from the
    topmost package folder holding it (src/nanotron/fp8/linear.py is `nanotron.fp8.linear`; a script's sibling
    import names the bare stem)."""
    view = path_view(path)
    parts = module.split(".")
    depth, folder = 0, view.parent  # package folders holding the file, counted from its own folder upwards
    while folder in packages and folder != ".":
        depth, folder = depth + 1, path_view(folder).parent
    keep = depth if view.name == "__init__.py" else depth + 1
    names = {module, ".".join(parts[-keep:])} if keep and parts else {module}
    below = _name_below_package(path, parts, packages)
    return names | {below} if below else names


MAX_NAMESPACE_FOLDERS = 2


def _name_below_package(path: str, parts: list[str], packages: set[str]) -> str | None:
    """The name of a file in folders without __init__.py inside a regular package: Python loads such a folder as a
    namespace package under its parent (kern/python/kern_ops/triton_kernels/sla.py, beside kern_ops/__init__.py, is
    `kern_ops.triton_kernels.sla`); None where no package folder sits within MAX_NAMESPACE_FOLDERS above the file."""
    folder, crossed, gap = path_view(path).parent, 0, 0
    while folder != "." and folder not in packages:
        if gap == MAX_NAMESPACE_FOLDERS:
            return None
        gap, crossed, folder = gap + 1, crossed + 1, path_view(folder).parent
    if gap == 0 or folder == ".":
        return None
    while folder in packages and folder != ".":
        crossed, folder = crossed + 1, path_view(folder).parent
    return ".".join(parts[-(crossed + 1):]) if crossed + 1 <= len(parts) else None


def _targets(imports: list[str], by_name: dict[str, set[str]]) -> set[str]:
    """The files an import loads: the longest name prefix that is a project module, and each package above it (Python
    runs every package's __init__.py on the way down)."""
    found: set[str] = set()
    for name in imports:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            paths = by_name.get(".".join(parts[:end]))
            if paths:
                found |= paths
                for above in range(1, end):
                    found |= by_name.get(".".join(parts[:above]), set())
                break
    return found


def _reach(starts: list[str], edges: dict[str, set[str]]) -> dict[str, str]:
    """Every file reachable from `starts` → the first start that reaches it (breadth first, in the order given)."""
    origin = {s: s for s in starts}
    queue = deque(starts)
    while queue:
        current = queue.popleft()
        for target in edges.get(current, ()):
            if target not in origin:
                origin[target] = origin[current]
                queue.append(target)
    return origin


CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".cfg")


def config_named_modules(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, str]:
    """Module name → a configuration file of the project (not a test's) that names it or a name in it by its dotted
    name (`hift: !new:pkg.hifigan.generator.HiFTGenerator` in a HyperPyYAML config, a `_target_:` entry): the config
    builds it when it is loaded, whatever imports or selector chains say."""
    return configs_naming(facts, lambda path: context.of(path).role)


def configs_naming(facts: list[ModuleFacts], role_of) -> dict[str, str]:
    """config_named_modules with the file roles given by `role_of` (path → role): the phase plan has no context."""
    found: dict[str, str] = {}
    for f in facts:
        if not f.dotted_words or not f.path.endswith(CONFIG_SUFFIXES) or role_of(f.path) == "test":
            continue
        for word in f.dotted_words:
            parts = word.split(".")
            for end in range(2, len(parts) + 1):
                found.setdefault(".".join(parts[:end]), f.path)
    return found


def _named_prefixes(facts: list[ModuleFacts], context: ProjectContext,
                    plugin_keys: dict[str, set[str]] | None = None,
                    read_tables: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """Every dotted prefix of the module names product code writes in strings (`"pkg.overrides.fused_swiglu.fn"`), and
    of the submodules a package's lazy loader names (`_import_structure = {"models.unet_2d": [...]}`), but a plugin
    table's keys (`plugin_keys`: file → keys), which name modules of the plugin folder, not of the file's package, and
    the tables of `read_tables` (paths), whose names the import graph already follows (forked_libraries.py)."""
    prefixes: set[str] = set()
    for f in facts:
        if context.of(f.path).role not in COUNTED_ROLES:
            continue
        keyed = {f"{f.module}.{key}" for key in (plugin_keys or {}).get(f.path, ())}
        lazy = [] if f.path in read_tables else [t for t in f.lazy_submodules if t not in keyed]
        for text in [text for text, _ in f.module_strings] + lazy:
            parts = text.split(".")
            prefixes.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return prefixes


def _package_root(path: str, packages: set[str]) -> str:
    """The folder holding the topmost package the file belongs to."""
    folder = path_view(path).parent
    while folder in packages and folder != ".":
        folder = path_view(folder).parent
    return folder


def top_folder(path: str, packages: set[str]) -> str:
    """The folder of the topmost package the file belongs to."""
    folder = path_view(path).parent
    while path_view(folder).parent in packages and path_view(folder).parent != ".":
        folder = path_view(folder).parent
    return folder


def _top_package(path: str, packages: set[str]) -> bool:
    """The __init__.py of a topmost package: what a user of the library imports."""
    view = path_view(path)
    return view.name == "__init__.py" and _package_root(path, packages) == path_view(view.parent).parent
