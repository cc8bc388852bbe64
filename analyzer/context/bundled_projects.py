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

A whole upstream repository copied into a namespace folder of the host is the same thing (MOFA-Video's
Training/train_utils/unimatch/: its own LICENSE, README, conda_environment.yml, pip_install.sh and scripts/*.sh that
run `python main_flow.py` from the copy's root; no __init__.py in train_utils/ or unimatch/, round 32 class 1): a
folder whose launchers (in it, or in a folder of launchers one level down) run its own root's scripts, and which a
file outside imports through by a dotted name naming the folder's parent and the folder
(`train_utils.unimatch.unimatch.unimatch`): the host uses it as a library nested in its own import tree. A top-level
folder imported by its own name is the project's own (its tools, its recipes).

A script inside it stays an entry when something outside the folder launches it (a launcher of the project, the
root README's commands) or it is a console entry: the host runs it then, whoever wrote it. The others, the folder's
own launchers and installers, and its files without facts (its README.md, its environment files: the upstream's
documentation and environment, not the host's) are `optional` ("bundled <folder>: the project never launches
<script>", or "part of the bundled copy of <folder>; the project imports only <modules>"), and so is what only
they import (propagation.py); a module of the folder the host imports (arcface_torch.backbones, unimatch.unimatch)
keeps its reach, the host's imports through the namespace folders counting as loads of it (host_imports).

A whole repository the host reaches by putting its root on sys.path is the same thing (AnyDoor's dinov2/: dinov2's own
LICENSE, README, setup.py, pyproject.toml, conda.yaml, requirements*.txt beside its package dinov2/dinov2/ and its
hubconf.py; the host writes `sys.path.append("./dinov2")` then `import hubconf`, round 33 class 1): a folder below the
root, no package itself, holding a packaging manifest or environment file of its own (COPY_MARKS), none of whose
modules imports a module of the host outside it, which a file outside it that edits
sys.path and writes the folder's name imports by a module name relative to the folder (`hubconf` for
dinov2/hubconf.py) that names no module from the analysed root (sys_path_copies). Its scripts, launchers, env files
and README follow the rules above; its modules follow the import closure of what the host imports (hubconf ->
dinov2.models -> dinov2.layers), read from the copy's root. A folder the host adds to sys.path that has no manifest
or environment file of its own (`sys.path.append("src")`) is the project's own source root, and nothing moves.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Protocol

from ascend_feasibility.analyzer.context.copy_reach import import_targets
from ascend_feasibility.analyzer.context.unloaded import CONFIG_SUFFIXES
from ascend_feasibility.analyzer.context.vendored import PATH_EDITS
from ascend_feasibility.analyzer.context.written_names import writes_word
from ascend_feasibility.knowledge import load_context_conventions


class _Facts(Protocol):
    path: str
    module: str
    imports: list[str]
    main_guard: bool
    top_level_code: bool
    launched_scripts: list[str]
    words: str
    dotted_words: list[str]


@dataclass(frozen=True)
class BundledCopies:
    """The bundled copies of other projects in one run's tree, found once (bundled_copies) and read by every pass that
    judges paths against them (propagation.py, the dependency matrix, the phase plan): which folders are copies, what
    the host imports of each, and which scripts something outside them launches."""

    recipes: frozenset[str] = frozenset()  # bundled_project_folders: copies with launchers of their own
    on_path: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)  # copy on sys.path → (module, importer)
    folders: frozenset[str] = frozenset()  # both, less the folders the root README works in: the copies judged
    outside: frozenset[str] = frozenset()  # names of the scripts a file outside every copy launches
    unreached: dict[str, tuple[str, ...]] = field(default_factory=dict)  # copy → its modules the host's imports miss
    imported: dict[str, tuple[str, ...]] = field(default_factory=dict)  # copy outside any package → what the host imports through it
    loaded: dict[str, frozenset[str]] = field(default_factory=dict)  # copy → its modules the host's imports load


def bundled_copies(facts: Iterable[_Facts], packages: set[str], worked_in: Iterable[str] = ()) -> BundledCopies:
    """`packages`: unloaded.package_folders(facts, context.source_roots). `worked_in`: the folders the root README's
    commands `cd` into (readme_runs.worked_in_folders), the project's own however it is packaged (round 33 zero123:
    3drec/ puts the zero123/ the README works in on sys.path)."""
    facts = list(facts)
    recipes = bundled_project_folders(facts, packages)
    on_path = {folder: frozenset(imports) for folder, imports in _sys_path_imports(facts).items()}
    worked_in = tuple(worked_in)
    folders = frozenset(folder for folder in recipes | set(on_path)
                        if not any(own == folder or own.startswith(folder + "/") for own in worked_in))
    if not folders:
        return BundledCopies(frozenset(recipes), on_path)
    imported = {folder: tuple(sorted(imported_through(folder, facts))) for folder in folders if folder not in on_path}
    loaded = {folder: frozenset(_loaded_modules(folder, facts, on_path)) for folder in folders}
    return BundledCopies(frozenset(recipes), on_path, folders, frozenset(outside_launches(facts, set(folders))),
                         {folder: tuple(path for path in _python_in(folder, facts) if loaded[folder]
                                        and path not in loaded[folder]) for folder in folders},
                         {folder: names for folder, names in imported.items()
                          if names and str(PurePosixPath(folder).parent) not in packages and folder not in packages},
                         loaded=loaded)


def unlaunched_scripts(facts: Iterable[_Facts], copies: BundledCopies, console_modules: Iterable[str] = (),
                       others: Iterable[str] = (), documented: Iterable[str] = ()) -> dict[str, str]:
    """path → why, for the scripts (a `__main__` guard, top-level work, a shell launcher or installer) of a bundled
    project's folder (`copies`: bundled_copies of the same facts) that nothing outside it launches, no console entry
    names and the root README does not run (`documented`). `others`: more paths to judge, files without facts (the
    copy's README.md, its environment files): the upstream project's documentation and environment, never the host's,
    unless the host launches them by name."""
    folders = copies.folders
    if not folders:
        return {}
    outside = copies.outside
    consoles, run = set(console_modules), set(documented)
    found = {}
    for f in facts:
        folder = next((folder for folder in folders if f.path.startswith(folder + "/")), None)
        if folder is None or PurePosixPath(f.path).name in outside or f.module in consoles or f.path in run:
            continue
        # a .py file is run only by its own code; one the host's imports load is a module of the host's (its
        # `__main__` block a self-test: stable_diffusion's ldm/modules/encoders/modules.py, built by the host's config)
        if not f.path.endswith(".py") or ((f.main_guard or f.top_level_code) and f.path not in copies.loaded[folder]):
            found[f.path] = _why(folder, f.path, copies)
    for folder in folders:  # the copy's modules neither the host's imports nor the modules they load reach
        for path in copies.unreached[folder]:
            if path not in found and path not in run and PurePosixPath(path).name not in outside:
                found[path] = _why(folder, path, copies)
    for path in others:
        folder = next((folder for folder in folders if path.startswith(folder + "/")), None)
        if folder is not None and path not in found and path not in run and PurePosixPath(path).name not in outside:
            found[path] = _why(folder, path, copies)
    return found


def _python_in(folder: str, facts: list[_Facts]) -> list[str]:
    return [f.path for f in facts if f.path.endswith(".py") and f.path.startswith(folder + "/")]


def _loaded_modules(folder: str, facts: list[_Facts], on_path: dict[str, frozenset[tuple[str, str]]]) -> set[str]:
    """The Python files of the folder that the host's imports of it (through the folder by dotted name, or by the
    file's name from the analysed root, or from the copy's root where the host puts it on sys.path, or a config of
    the host naming a module of it: `target: ldm.modules.encoders.modules.FrozenCLIPEmbedder`) load, following the
    copy's own imports by their names from the analysed root and from the copy's root (its scripts import
    `utils.dist_utils` from there). Empty where the host imports nothing of it: the import graph decides then.
    `on_path`: _sys_path_imports(facts)."""
    inside = {f.path: f for f in facts if f.path.endswith(".py") and f.path.startswith(folder + "/")}
    by_module = {f.module: f.path for f in facts if f.module}
    starts = {target for f in facts if f.path.endswith(".py") and f.path not in inside
              for target in import_targets(f.imports, by_module) if target in inside}
    starts |= set(_through_paths(folder, facts)) | set(_sys_path_paths(folder, facts, on_path))
    if not starts:
        return set()
    own = root_modules(folder, inside)  # the copy's root is its scripts' sys.path[0]
    if folder in on_path:  # and the host's, whose configs name its modules from there
        starts |= {target for f in facts if f.path.endswith(CONFIG_SUFFIXES) and not f.path.startswith(folder + "/")
                   for target in import_targets(f.dotted_words, own)}
    by_module |= own
    reached, todo = set(), list(starts)
    while todo:
        path = todo.pop()
        if path in reached:
            continue
        reached.add(path)
        todo += [target for target in import_targets(inside[path].imports, by_module) if target in inside]
    return reached


def _why(folder: str, path: str, copies: BundledCopies) -> str:
    if folder in copies.on_path:
        names = sorted({module for module, _ in copies.on_path[folder]})
        return (f"part of the bundled copy of {folder}/ (another project with its own packaging or environment files, "
                f"which the project puts on sys.path); the project imports only {', '.join(names[:3])}"
                f"{' …' if len(names) > 3 else ''}")
    imported = copies.imported.get(folder)
    if not imported:  # inside a package of the host, or nothing imports through it
        return (f"bundled {folder}/ (another project's recipe with its own launcher, inside a package of this one): "
                f"the project never launches {PurePosixPath(path).name}")
    return (f"part of the bundled copy of {folder}/ (another project with its own launchers); the project imports "
            f"only {', '.join(imported[:3])}{' …' if len(imported) > 3 else ''}")


def bundled_project_folders(facts: Iterable[_Facts], packages: set[str]) -> set[str]:
    """The folders that hold their own launcher of their own Python script (in the folder itself, or in a folder of
    launchers one level down, run from the folder's root: scripts/train.sh running `python main.py`) and that the
    host uses as a library: they lie inside a package of the project, or a file outside imports a module of theirs
    by a dotted name through the folder (a namespace folder imported by dotted name,
    `train_utils.<copy>.<package>.<module>`)."""
    facts = list(facts)
    python = {f.path for f in facts if f.path.endswith(".py")}
    by_module = {f.module: f.path for f in facts if f.module}
    found = set()
    for f in facts:
        if not f.launched_scripts or f.path.endswith(".py"):
            continue
        here = PurePosixPath(f.path).parent
        for script in f.launched_scripts:
            script = script.removeprefix("./")
            folder = next((folder for folder in (here, here.parent) if str(folder) != "."
                           and f"{folder}/{script}" in python), None) if "/" not in script else None
            if folder is None or str(folder) in found:
                continue
            if str(folder.parent) in packages or str(folder) in packages or imported_through(str(folder), facts):
                found.add(str(folder))
    found = {folder for folder in found if not _imports_outside(folder, facts, by_module)}
    return {folder for folder in found
            if not any(PurePosixPath(folder).is_relative_to(other) and folder != other for other in found)}


def root_modules(folder: str, paths: Iterable[str]) -> dict[str, str]:
    """module name relative to the folder → path, for the folder's Python files (`paths`): the names its own scripts
    import with the folder's root as their sys.path[0]."""
    return {".".join(PurePosixPath(path[len(folder) + 1:]).with_suffix("").parts).removesuffix(".__init__"): path
            for path in paths if path.endswith(".py") and path.startswith(folder + "/")}


def _imports_outside(folder: str, facts: list[_Facts], by_module: dict[str, str]) -> bool:
    """Does a Python file of the folder import a module of the project that lies outside it (the longest prefix of an
    imported name that names a project module)? A name the folder's own root supplies is the copy's module, not the
    host's: stable_diffusion/scripts/inpaint.py's `from main import ...` means stable_diffusion/main.py, not the
    host's top-level main.py (round 34 A2 class 1)."""
    own = root_modules(folder, (f.path for f in facts))
    for f in facts:
        if not (f.path.endswith(".py") and f.path.startswith(folder + "/")):
            continue
        for name in f.imports:
            parts = name.split(".")
            if any(".".join(parts[:end]) in own for end in range(len(parts), 0, -1)):
                continue
            target = next((by_module[".".join(parts[:end])] for end in range(len(parts), 0, -1)
                           if ".".join(parts[:end]) in by_module), None)
            if target is not None and not target.startswith(folder + "/"):
                return True
    return False


def imported_through(folder: str, facts: Iterable[_Facts]) -> set[str]:
    """The modules of the folder that files outside it import by a dotted name naming the folder's parent, the folder
    and the module inside it (`train_utils.copy.pkg.mod` for <...>/train_utils/copy/pkg/mod.py): the folder is a
    library nested in the host's import tree. A top-level folder imported by its own name is the project's own."""
    return {module for module, _ in through_imports(folder, facts)}


def through_imports(folder: str, facts: Iterable[_Facts]) -> set[tuple[str, str]]:
    """(module inside the folder, importer outside) for imports_through's names; the module's path is
    <folder>/<module as a path>.py or its __init__.py."""
    facts = list(facts)
    inside = {".".join(PurePosixPath(f.path[len(folder) + 1:]).with_suffix("").parts).removesuffix(".__init__")
              for f in facts if f.path.endswith(".py") and f.path.startswith(folder + "/")}
    parts = PurePosixPath(folder).parts
    prefixes = [".".join(parts[-k:]) + "." for k in range(2, len(parts) + 1)]
    found = set()
    for f in facts:
        if not f.path.endswith(".py") or f.path.startswith(folder + "/"):
            continue
        for name in f.imports:
            for prefix in prefixes:
                rest = name[len(prefix):].split(".") if name.startswith(prefix) else []
                module = next((".".join(rest[:end]) for end in range(len(rest), 0, -1) if ".".join(rest[:end]) in inside),
                              None)
                if module is not None:
                    found.add((module, f.path))
                    break
    return found


def host_imports(facts: Iterable[_Facts], copies: BundledCopies) -> dict[str, set[str]]:
    """path → the files outside a bundled folder that import it through the folder by dotted name (a namespace path the
    import index does not resolve from the importer's folder): the host's imports of the copy, which keep their reach.
    `copies`: bundled_copies of the same facts."""
    facts = list(facts)
    found: dict[str, set[str]] = {}
    for folder in copies.recipes:
        for path, importers in _through_paths(folder, facts).items():
            found.setdefault(path, set()).update(importers)
    for folder in copies.on_path:  # and by a name relative to a copy's root the host puts on sys.path
        for path, importers in _sys_path_paths(folder, facts, copies.on_path).items():
            found.setdefault(path, set()).update(importers)
    return found


# A folder that is a project of its own, not the host's source root: its own packaging manifest or environment file.
COPY_MARKS = ("setup.py", "setup.cfg", "pyproject.toml", "environment.yml", "environment.yaml", "conda.yaml",
              "conda.yml")


def _copy_marked(folder: str, paths: set[str]) -> bool:
    return any(f"{folder}/{name}" in paths for name in COPY_MARKS) or any(
        path.startswith(folder + "/requirements") and path.endswith(".txt") and path.count("/") == folder.count("/") + 1
        for path in paths)


def sys_path_copies(facts: Iterable[_Facts]) -> dict[str, set[str]]:
    """folder → the module names relative to it that the host imports, for each folder below the root that holds a
    packaging manifest or environment file of its own (COPY_MARKS) and whose root the host puts on sys.path: a file
    outside it edits sys.path, writes the folder's name, and imports a module of it by its name from the folder's root
    (`import hubconf` for <folder>/hubconf.py) that names no module from the analysed root."""
    facts = list(facts)
    return {folder: {module for module, _ in imports} for folder, imports in _sys_path_imports(facts).items()}


def _sys_path_imports(facts: list[_Facts]) -> dict[str, set[tuple[str, str]]]:
    """folder → (module relative to it, importer) for sys_path_copies."""
    editors = [f for f in facts if f.path.endswith(".py") and PATH_EDITS.intersection(f.dotted_words)]
    if not editors:
        return {}
    paths = {f.path for f in facts}
    by_module = {f.module for f in facts if f.module}
    folders = {str(PurePosixPath(path).parent) for path in paths if PurePosixPath(path).name in COPY_MARKS
               or PurePosixPath(path).name.startswith("requirements")}
    found: dict[str, set[tuple[str, str]]] = {}
    # a package folder is imported by dotted name, never put on sys.path as a repository's root
    for folder in sorted(folder for folder in folders if folder != "." and _copy_marked(folder, paths)
                         and f"{folder}/__init__.py" not in paths):
        name = PurePosixPath(folder).name
        for f in editors:
            if f.path.startswith(folder + "/") or not writes_word(f.words, name):
                continue
            for imported in f.imports:
                parts = imported.split(".")
                module = next((".".join(parts[:end]) for end in range(len(parts), 0, -1)
                               if _module_path(folder, ".".join(parts[:end]), paths)), None)
                if module is not None and parts[0] not in by_module and not any(
                        m.startswith(parts[0] + ".") for m in by_module):
                    found.setdefault(folder, set()).add((module, f.path))
    # a folder whose modules import the host's (Megatron's examples, put on sys.path by its tests) is the project's own
    modules = {f.module: f.path for f in facts if f.module}
    return {folder: imports for folder, imports in found.items() if not _imports_outside(folder, facts, modules)}


def _module_path(folder: str, module: str, paths: set[str]) -> str | None:
    base = f"{folder}/{module.replace('.', '/')}"
    return next((p for p in (f"{base}.py", f"{base}/__init__.py") if p in paths), None)


def _sys_path_paths(folder: str, facts: list[_Facts], on_path: dict[str, frozenset[tuple[str, str]]]
                    ) -> dict[str, set[str]]:
    """The host's imports of a copy on sys.path (`on_path`: _sys_path_imports(facts)) as path → importers."""
    paths = {f.path for f in facts}
    found: dict[str, set[str]] = {}
    for module, importer in on_path.get(folder, ()):
        path = _module_path(folder, module, paths)
        if path is not None:
            found.setdefault(path, set()).add(importer)
    return found


def _through_paths(folder: str, facts: list[_Facts]) -> dict[str, set[str]]:
    """through_imports as path → importers."""
    paths = {f.path for f in facts}
    found: dict[str, set[str]] = {}
    for module, importer in through_imports(folder, facts):
        base = f"{folder}/{module.replace('.', '/')}"
        path = next((p for p in (f"{base}.py", f"{base}/__init__.py") if p in paths), None)
        if path is not None:
            found.setdefault(path, set()).add(importer)
    return found


def outside_launches(facts: Iterable[_Facts], folders: set[str]) -> set[str]:
    """The names of the scripts launched by a file outside every bundled folder (paths are cwd-relative: the name is
    what can be matched)."""
    return {PurePosixPath(s).name for f in facts if not in_folders(f.path, folders) for s in f.launched_scripts}


def unrun_package_scripts(facts: Iterable[_Facts], packages: set[str], console_modules: Iterable[str] = (),
                          documented: Iterable[str] = (), distribution: str = "") -> dict[str, str]:
    """path → why, for the scripts (a `__main__` guard, top-level work, a shell launcher) of a model package copied
    from another project that the host uses only as a library.

    A package folder named as one of the model packages other projects commonly copy whole (knowledge/context/
    conventions.toml [roles.vendored_packages]: LLaVA's llava/ inside an image-restoration host) keeps its upstream's
    own evaluation, serving and training scripts (llava/eval/model_vqa.py, llava/serve/cli.py, llava/train/train.py).
    It is such a copy when the host imports it (a file outside it imports a module of it). It is the project's own
    package instead
    when the project publishes it (pyproject's [project] name), a console entry names a module of it, or the root
    README runs a file of it. A script of the copy stays an entry when a file outside the copy launches it by name,
    the README runs it, a console entry names it, the host's imports reach it (through the modules they import), or
    it imports a module of the host outside the copy itself (the host wrote or adapted it: the copy's own scripts
    import only the copy; a module the host adapted to read its config, as SUPIR-style hosts do, leaves them so);
    the others are `optional` ("a script of the package <copy>/ the project uses as a library and never runs"), and
    so is what only they import (propagation.py)."""
    names = load_context_conventions().roles.vendored_packages
    candidates = sorted(folder for folder in packages if PurePosixPath(folder).name in names)
    copies = [folder for folder in candidates
              if not any(folder.startswith(other + "/") for other in candidates)]  # the outermost of nested names
    if not copies:
        return {}
    facts = list(facts)
    published = _plain(distribution)
    consoles, run = set(console_modules), set(documented)
    by_module = {f.module: f.path for f in facts if f.module}
    found: dict[str, str] = {}
    for copy in copies:
        inside = [f for f in facts if f.path.startswith(copy + "/")]
        if (_plain(PurePosixPath(copy).name) == published or any(f.module in consoles for f in inside)
                or any(path.startswith(copy + "/") for path in run)):
            continue
        starts = {target for f in facts if not f.path.startswith(copy + "/") and f.path.endswith(".py")
                  for target in import_targets(f.imports, by_module) if target.startswith(copy + "/")}
        if not starts:
            continue  # nothing of the host imports it
        reached = _reached_inside(starts, inside, by_module)
        launched = outside_launches(facts, {copy})
        for f in inside:
            name = PurePosixPath(f.path).name
            if (f.path in reached or f.path in run or f.module in consoles or name in launched
                    or name == "__init__.py" or any(not t.startswith(copy + "/") for t in import_targets(f.imports, by_module))):
                continue  # a script importing a module of the host is the host's own
            if f.launched_scripts or (f.path.endswith(".py") and (f.main_guard or f.top_level_code)):
                found[f.path] = (f"a script of the package {copy}/ the project uses as a library and never runs "
                                 f"(a copy of {names[PurePosixPath(copy).name]})")
    return found


def _plain(name: str) -> str:
    """A distribution or package name as Python imports it: lower case, runs of `-_.` as one `_`."""
    return re.sub(r"[-_.]+", "_", name.lower())


def _reached_inside(starts: set[str], inside: list[_Facts], by_module: dict[str, str]) -> set[str]:
    """The copy's files the host's imports load: the modules it names and, through their imports, what they load."""
    by_path = {f.path: f for f in inside}
    reached, todo = set(), list(starts)
    while todo:
        path = todo.pop()
        if path in reached or path not in by_path:
            continue
        reached.add(path)
        todo += import_targets(by_path[path].imports, by_module) - reached
    return reached


def in_folders(path: str, folders: set[str]) -> bool:
    return any(path.startswith(folder + "/") for folder in folders)


# A folder that builds a project of its own: its own packaging manifest.
MANIFESTS = ("setup.py", "pyproject.toml")


def unimported_projects(facts: Iterable[_Facts], console_modules: Iterable[str] = (), others: Iterable[str] = (),
                        documented: Iterable[str] = ()) -> dict[str, str]:
    """path → why, for every file of a project bundled below the host's code that the host never reaches.

    A folder holding its own packaging manifest (setup.py, pyproject.toml) below the root builds a project of its own
    (SCHP's human-parsing extension shipped inside a host's preprocessing folder, with its own detectron2 copy and its
    own scripts). Its project is the outermost folder around the manifest that nothing outside reaches: no file
    outside it imports a module of it (a name another copy outside also defines is that copy's: the host's own), no
    file outside launches a script of it by name, the root README runs none of its files (`documented`: the paths
    readme_runs.launched_files finds), no console entry names a module of it. It must lie below a folder the
    host does reach: an unreached top-level folder is the project's own subproject or vendored copy, not this.
    Imports from the folder into host modules make it no host code; its files are no product of the host, and what
    only they import is optional too (propagation.py). `others`: more paths to judge (native sources with findings,
    which have no facts)."""
    facts = list(facts)
    folders = _unreached_manifest_folders(facts, set(console_modules), set(documented))
    if not folders:
        return {}
    found = {}
    for path in [f.path for f in facts] + list(others):
        folder = next((folder for folder in folders if path.startswith(folder + "/")), None)
        if folder is not None:
            found[path] = f"bundled {folder}/ (a project with its own {folders[folder]}): the project never imports it"
    return found


def _unreached_manifest_folders(facts: list[_Facts], consoles: set[str], documented: set[str]) -> dict[str, str]:
    manifests = {str(PurePosixPath(f.path).parent): PurePosixPath(f.path).name for f in facts
                 if PurePosixPath(f.path).name in MANIFESTS and "/" in f.path}
    if not manifests:
        return {}
    by_module: dict[str, list[str]] = {}
    for f in facts:
        if f.module and f.path.endswith(".py"):
            by_module.setdefault(f.module, []).append(f.path)
    found: dict[str, str] = {}
    for start, manifest in sorted(manifests.items(), key=lambda item: item[0].count("/")):
        if any(PurePosixPath(start).is_relative_to(folder) for folder in found):
            continue
        folder = None
        for candidate in [start, *(str(p) for p in PurePosixPath(start).parents)]:
            if candidate == "." or _reached(candidate, facts, by_module, consoles, documented):
                break
            folder = candidate
        else:
            continue
        if folder is not None and candidate != ".":  # below a folder the host reaches
            found[folder] = f"{manifest} in {start}/" if start != folder else manifest
    return found


def _reached(folder: str, facts: list[_Facts], by_module: dict[str, list[str]], consoles: set[str],
             documented: set[str]) -> bool:
    """Does anything outside the folder import a module of it, launch a script of it, or name it as a console entry?"""
    inside = {f.path for f in facts if f.path.startswith(folder + "/")}
    if any(path.startswith(folder + "/") for path in documented) \
            or any(f.module in consoles for f in facts if f.path in inside and f.module):
        return True
    names = {PurePosixPath(path).name for path in inside}
    for f in facts:
        if f.path in inside:
            continue
        if any(PurePosixPath(s).name in names for s in f.launched_scripts):
            return True
        for name in f.imports:
            parts = name.split(".")
            targets = next((by_module[".".join(parts[:end])] for end in range(len(parts), 0, -1)
                            if ".".join(parts[:end]) in by_module), [])
            if targets and all(target in inside for target in targets):
                return True
    return False
