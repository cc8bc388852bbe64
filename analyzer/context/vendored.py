"""Copies of another project's package, vendored inside a package of this one, that cannot be imported here.

A package copied from another repository keeps that repository's absolute imports of itself: ControlNet's `annotator/`
copied to LAVIS's lavis/common/annotator/ still says `from annotator.uniformer.mmseg.apis import ...`. Under LAVIS no
import root holds an `annotator` package (it exists only as the sub-folder of a package), so importing the copy raises
ModuleNotFoundError and none of its code runs. A module is judged so when one of its unconditional module-level imports
`c.x...` names itself, and:
- the module lies inside a folder `c/` whose parent R is a package folder (imported by dotted name through its own
  package, never put on sys.path), and `c/x` exists there: the import is the copy naming itself by its old name;
- no import root provides `c`: neither the analysed root nor src/ holds a `c` module or package;
- nothing can put R on sys.path: no script (a __main__ guard, or top-level work in a file nothing imports), notebook
  or test lies in R (running one puts its folder first), and no file that edits the path (`sys.path.insert/append/
  extend`, `site.addsitedir`, PYTHONPATH) lies in R or names R's folder (of the copy's own files, only one editing it
  relative to its own place, `__file__`; of shell scripts, only one that launches a Python file of the project;
  documentation builds never run the product);
- no build or dependency file names `c` (an installed distribution of that name would satisfy the import).
What cannot be imported spreads: every module below a package whose __init__.py cannot be imported, and every module
of the copy that imports one unconditionally at its top level. A module outside the copy that imports it is left as it
is (propagation.guarded_modules keeps such a module `runs`): only what nothing else loads is judged.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import package_folders
from ascend_feasibility.analyzer.context.written_names import word_set, writes_any, writes_word

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

# how every reason of a module that cannot be imported begins (missing_modules.py too): the port reads it
UNIMPORTABLE = "cannot be imported: "
PATH_EDITS = frozenset({"sys.path.insert", "sys.path.append", "sys.path.extend"})
PATH_WORDS = frozenset({"PYTHONPATH", "addsitedir"})
MIN_WORD = 4  # the shortest word a file's `words` keep (domains/phases/symbols.py MIN_NAME)


def unimportable_modules(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, str]:
    """path → why, for the Python modules of vendored copies whose own absolute imports cannot resolve."""
    python = {f.path: f for f in facts if f.module and f.path.endswith(".py")}
    roots = _root_names(python)
    # (path, name) of the unconditional module-level imports whose first part no import root provides: most files
    # have none, and the rest of the test runs only for them
    candidates = []
    for path, f in python.items():
        folders = set(path_view(path).parts[1:-1])  # a copy names itself by a folder holding it, below the top
        if folders - roots:
            candidates += [(path, name) for name in sorted(set(f.imports) - set(f.nested_imports))
                           if "." in name and (first := name.split(".", 1)[0]) in folders and first not in roots
                           and len(first) >= MIN_WORD]
    if not candidates:
        return {}
    existing = {str(p) for path in python for p in PurePosixPath(path).parents} | {
        path.removesuffix(".py") for path in python}
    # the copy's folder c/ must hold c/x: checked before the costlier package folders are worked out
    candidates = [(path, name) for path, name in candidates if _copy_folder(path, name.split("."), None, existing)]
    if not candidates:
        return {}
    packages = package_folders(facts, context.source_roots)
    imported = {name for f in python.values() for name in f.imports}
    # folders of scripts (a __main__ guard, or top-level work in a file nothing imports), notebooks and tests
    runnable = {path_view(f.path).parent for f in facts
                if f.path.endswith(".ipynb") or f.main_guard or context.of(f.path).role == "test"
                or (f.top_level_code and f.path in python and f.module not in imported)}
    for f in facts:  # a launched script's path is the shell's working folder's: the root or the shell script's own
        for script in f.launched_scripts:
            runnable |= {path_view(script.removeprefix("./")).parent,
                         path_view(f"{path_view(f.path).parent}/{script.removeprefix('./')}").parent}
    editors = [f for f in facts if (PATH_EDITS.intersection(f.dotted_words) or writes_any(f.words, PATH_WORDS))
               and context.of(f.path).role != "docs" and (f.path.endswith(".py") or _launches(f, python))]
    installed = {word for f in facts if context.of(f.path).role == "build" for word in word_set(f.words)}
    failing: dict[str, str] = {}
    copies: set[str] = set()  # the folders c/ of the copies found
    for path, name in candidates:
        parts = name.split(".")
        if path in failing or parts[0] in installed:
            continue
        copy = _copy_folder(path, parts, packages, existing)
        if copy is None:
            continue
        holder = path_view(copy).parent
        if holder in runnable or _edits_path_to(holder, copy, editors):
            continue
        failing[path] = (f"{UNIMPORTABLE}it imports `{name}`, and no import root of the project holds "
                         f"the package `{parts[0]}` (only {copy}/, a copy vendored inside the package {holder}/)")
        copies.add(copy)
    if not failing:
        return {}
    return _spread(failing, copies, python, packages)


def _root_names(python: dict[str, ModuleFacts]) -> set[str]:
    """The top-level names the analysed root and src/ provide: their modules and the folders holding Python files."""
    names = set()
    for path in python:
        parts = path_view(path).parts
        if parts[0] == "src" and len(parts) > 1:
            parts = parts[1:]
        names.add(parts[0].removesuffix(".py"))
    return names


def _copy_folder(path: str, parts: list[str], packages: set[str] | None, existing: set[str]) -> str | None:
    """The folder `c/` holding `path` that the import `c.x...` names, when its parent is a package folder below the
    root (any folder below the root, for `packages` None) and `c/x` exists: the copy importing itself by the name it
    had in its own repository."""
    for folder in PurePosixPath(path).parents:
        name, holder = folder.name, str(folder.parent)
        if (name == parts[0] and holder != "." and (packages is None or holder in packages)
                and f"{folder}/{parts[1]}" in existing):
            return str(folder)
    return None


def _edits_path_to(holder: str, copy: str, editors: list[ModuleFacts]) -> bool:
    """Might a file put `holder` on sys.path? One outside the copy that edits the path and lies in `holder` or writes
    its folder's name; one inside the copy that edits it relative to its own place (`__file__`): the copy's own edits
    were written for its old layout and name nothing of this project."""
    name = path_view(holder).name
    return any((path_view(f.path).parent == holder or len(name) < MIN_WORD or writes_word(f.words, name))
               if not f.path.startswith(copy + "/") else writes_word(f.words, "__file__") for f in editors)


def _launches(shell: ModuleFacts, python: dict[str, ModuleFacts]) -> bool:
    """Does a shell script launch a Python file of the project? Its PYTHONPATH reaches only what it launches."""
    folder = path_view(shell.path).parent
    return any(script.removeprefix("./") in python or f"{folder}/{script.removeprefix('./')}" in python
               for script in shell.launched_scripts)


def _spread(failing: dict[str, str], copies: set[str], python: dict[str, ModuleFacts],
            packages: set[str]) -> dict[str, str]:
    """Add the modules below a package that cannot be imported, and those of a copy that import a failing module at
    their top level, until nothing changes."""
    by_name = {f.module: path for path, f in python.items()}
    inside_copy = [p for p in python if any(p.startswith(c + "/") for c in copies)]
    changed = True
    while changed:
        changed = False
        failed_packages = {path_view(p).parent: p for p in failing if path_view(p).name == "__init__.py"}
        for path in python:
            if path in failing:
                continue
            folder = path_view(path).parent
            above = folder if path_view(path).name != "__init__.py" else path_view(folder).parent
            while above in packages and above != ".":
                if above in failed_packages:
                    failing[path] = f"{UNIMPORTABLE}its package {failed_packages[above]} cannot be"
                    changed = True
                    break
                above = path_view(above).parent
        for path in inside_copy:
            if path in failing:
                continue
            f = python[path]
            nested = set(f.nested_imports)
            for name in f.imports:
                target = None if name in nested else _longest(name, by_name)
                if target is not None and target != path and target in failing:
                    failing[path] = f"{UNIMPORTABLE}it imports {target} at its top level, which cannot be"
                    changed = True
                    break
    return failing


def _longest(name: str, by_name: dict[str, str]) -> str | None:
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        path = by_name.get(".".join(parts[:end]))
        if path is not None:
            return path
    return None
