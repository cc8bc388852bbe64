"""Functions and classes of a vendored copy that nothing the project runs names: their findings are `optional`.

A copy of another project's package carries all of that project's code, while the host calls a few of its functions
(MuseTalk's copy of Whisper: the model loader, beside transcribe helpers and a CLI it never calls; a detectron2 copy
used only for one predictor, beside its trainers, hooks and launchers). The module-level reach (what the host's
imports load) keeps every module the host imports whole; this pass goes one level down, to the module-level functions
and classes of the copy's modules.

A copy (`copy_folder`): a file below a folder of another project's code (conventions roles.vendored_dirs: third_party/,
_vendor/), or below a repository copied whole into a folder of the project, which keeps its own layout: a folder
named for its package holding that package (`musetalk/whisper/whisper/`, below a folder of the project: at the root
the same layout is the project's own). The path alone decides, so only such files carry the units read below
(domains/phases/facts.py asks copy_folder). The host is every file outside the copy.

What reaches a definition of the copy is its name, written (symbols.copy_units reads the words of each unit):
- anywhere in a host file (a call, `module.fn`, an import of the name, a decorator, a reference passed as a value, a
  base class, a string a getattr or a config names): the host may reach it;
- at module level in a copy module outside its imports and `__all__` (module-level code runs when the module is
  loaded: a registry call, an assignment `Whisper.transcribe = transcribe`);
- inside a definition of the copy that is reached itself (transitively).
A copy's own re-exports (`from .comm import synchronize` in a package __init__.py, `__all__`) reach nothing: a name the
host uses through the package is written by the host. Kept `runs`, in doubt: a decorated definition (a decorator may
register it), a name shorter than the words kept (written_names.MIN_NAME), every definition of a module that looks its
names up (`globals()`, `getattr` with a non-literal name: symbols.copy_units gives no units then, so all its words are
roots), of a module or package a file imports and calls getattr on with a non-literal name (`getattr(comm, name)`),
of a module the host (or a module so kept) star-imports, of a module the project launches as a script (a
launcher, the README, `python -m`: its `__main__` block runs), and a class as a whole: the methods of a class
anything reached names stay with it. The host's own code is never judged here: its public functions may be a
library's API.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, word_set, writers
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

MAX_SEAM_SHARE = 10  # a library copy: at most one Python file in this many imports the host outside it
MODULE_UNIT = ""  # the name of a copy module's module-level code (outside definitions, imports and `__all__`)


def copy_folder(path: str) -> str | None:
    """The folder of another project's code that holds `path`, read from the path alone: a vendored folder
    (third_party/, _vendor/) with the first folder below it, or a folder `x/` holding a package folder `x/x/` below
    another folder of the project (a repository copied whole keeps its layout)."""
    parts = PurePosixPath(path).parts[:-1]
    vendored = load_context_conventions().roles.vendored_dirs
    for index, part in enumerate(parts):
        if part.lower() in vendored:
            return "/".join(parts[:index + 2])
    for index in range(1, len(parts) - 1):
        if parts[index] == parts[index + 1]:
            return "/".join(parts[:index + 1])
    return None


def library_folder(path: str) -> str | None:
    """The outermost folder holding `path`, below another folder of the project, named as a package other projects
    commonly copy whole (conventions roles.vendored_packages: Uni-ControlNet's annotator/uniformer/mmcv/): a candidate,
    read from the path alone, that library_copies confirms."""
    parts = PurePosixPath(path).parts[:-1]
    names = load_context_conventions().roles.vendored_packages
    for index in range(1, len(parts)):
        if parts[index] in names and parts[index - 1] != "src":
            return "/".join(parts[:index + 1])
    return None


def library_copies(facts: list[ModuleFacts]) -> dict[str, str]:
    """path → folder, for the files of the library_folder candidates that are copies of that library.

    A candidate is a copy when a file outside it imports it by a dotted name through its parent (`annotator.uniformer.mmcv`: the
    copy was moved into the host, whose import tree names it; a folder imported by the library's own name, as
    ConvNeXt's object_detection/mmdet/ is, extends the installed library), and at most a tenth of its Python files
    import a module of the host outside it (other candidates aside): a package the host wrote imports the host
    throughout, while a copy has at most the few seams its host edited in (uniformer's mmseg backbone imports
    annotator.uniformer.mmcv_custom). Such a seam file is the host's own, never judged."""
    candidates: dict[str, list[ModuleFacts]] = defaultdict(list)
    for f in facts:
        if copy_folder(f.path) is None and (folder := library_folder(f.path)) is not None:
            candidates[folder].append(f)
    if not candidates:
        return {}
    by_module = {f.module: f.path for f in facts if f.module}
    through = {".".join(PurePosixPath(folder).parts[start:]) for folder in candidates
               for start in range(len(PurePosixPath(folder).parts) - 1)}
    result: dict[str, str] = {}
    for folder, inside in candidates.items():
        parts = PurePosixPath(folder).parts
        dotted = {".".join(parts[start:]) for start in range(len(parts) - 1)}
        if not any(name == d or name.startswith(d + ".") for f in facts if not f.path.startswith(folder + "/")
                   for name in f.imports for d in dotted):
            continue
        python = [f for f in inside if f.path.endswith(".py")]
        # a name through a candidate's dotted path is no host module, even where the candidate has no __init__.py
        seams = {f.path for f in python if any(library_folder(target) is None for target in import_targets(
            [name for name in f.imports if not any(name == d or name.startswith(d + ".") for d in through)], by_module))}
        if len(seams) * MAX_SEAM_SHARE <= len(python):
            result |= {f.path: folder for f in inside if f.path not in seams}
    return result


def import_targets(imports: Iterable[str], by_module: dict[str, str]) -> set[str]:
    """The project files the names import: the longest prefix of each that names a project module."""
    found = set()
    for name in imports:
        parts = name.split(".")
        target = next((by_module[".".join(parts[:end])] for end in range(len(parts), 0, -1)
                       if ".".join(parts[:end]) in by_module), None)
        if target is not None:
            found.add(target)
    return found


def unreached_copy_definitions(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the module-level functions and classes of vendored copies that nothing
    the project runs names."""
    libraries = library_copies(facts)
    copies = {f.path: folder for f in facts if (folder := copy_folder(f.path)) is not None} | libraries
    judged = [f for f in facts if f.path in copies and f.copy_units]
    if not judged:
        return {}
    host = [f for f in facts if f.path not in copies]
    copy_facts = [f for f in facts if f.path in copies]
    kept = _kept_modules(host, copy_facts)
    seen: set[str] = set()  # the words reached code writes
    queue: list[str] = []  # words not yet followed
    by_name: dict[str, list[tuple[str, tuple]]] = defaultdict(list)
    reached: set[tuple[str, str]] = set()

    def reach(words: set[str]) -> None:
        for word in words - seen:
            seen.add(word)
            queue.append(word)

    for f in copy_facts:
        units = f.copy_units
        if not units or f.path in kept:  # every definition of it may run: all its words reach
            reach(word_set(f.words))
            reached |= {(f.path, unit[0]) for unit in units}
            continue
        for unit in units:
            name, _, _, kind, pinned, words = unit
            if kind == "module":
                reach(word_set(words))
            elif kind == "main":  # the module is not launched: its `__main__` block never runs
                continue
            # a library copy's registry builds a class by the name a config writes: registering it reaches nothing
            elif (pinned and f.path not in libraries) or len(name) < MIN_NAME or name.startswith("__"):
                reached.add((f.path, name))
                reach(word_set(words))
            else:
                by_name[name].append((f.path, unit))
    # the host names them anywhere (a call, an import, a string, a comment: written names err towards use)
    reach(set(writers(list(by_name), host)))
    while queue:
        word = queue.pop()
        for path, unit in by_name.get(word, ()):
            if (path, unit[0]) not in reached:
                reached.add((path, unit[0]))
                reach(word_set(unit[5]))
    result: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for name, held in by_name.items():
        for path, (_, start, end, kind, _, _) in held:
            own = context.of(path)
            if (path, name) in reached or own.role not in COUNTED_ROLES or own.reach != "runs":
                continue
            verb = "calls" if kind == "function" else "uses"
            result[path].append((start, end, f"vendored {copies[path]}/: nothing the project runs {verb} {name} "
                                             f"(line {start}: {kind} {name} of a copy of another project's code; no "
                                             "host file, module-level code of the copy or copy function the host "
                                             "reaches names it)"))
    return dict(result)


def _kept_modules(host: list[ModuleFacts], copy_facts: list[ModuleFacts]) -> set[str]:
    """Copy modules all of whose definitions stay `runs`: the host (or a module so kept) star-imports them, the
    project launches them as a script (a launcher or the README names the file, a `python -m` the module), or a file
    calls getattr with a non-literal name on the module or package (or on an object that is no plain name) and
    imports it."""
    by_module = {f.module: f.path for f in copy_facts if f.module}
    launched = {s.removeprefix("./") for f in host for s in f.launched_scripts}
    # `python -m pkg.whisper.transcribe` in a launcher or the README (a Python file writing it imports it)
    dotted = {word for f in host if not f.path.endswith(".py") for word in f.dotted_words}
    kept = {f.path for f in copy_facts if any(f.path == s or f.path.endswith("/" + s) or s.endswith("/" + f.path)
                                              for s in launched) or (f.module and f.module in dotted)}
    # `getattr(whisper, name)` with a name that is no literal, in any file: every module of the copy package or
    # module the looked-up name was imported as may have any function looked up. An object that is no plain name may
    # be any module the file imports (`getattr(self._cfg_dict, name)`), unless its dotted path starts from one
    # (`getattr(torch.optim, name)` is torch.optim): of such a module, only its own namespace (its definitions and
    # the names it re-exports, written in it) can be looked up, never the rest of its package
    for f in host + copy_facts:
        looked = set(f.dynamic_lookups)
        if not looked:
            continue
        roots = {name.split(".", 1)[0] for name in f.imports}
        anything = "" in looked or any("." in obj and obj.split(".", 1)[0] not in roots for obj in looked)
        for name in f.imports:
            if name in looked or name.rsplit(".", 1)[-1] in looked:
                kept |= {path for module, path in by_module.items() if module == name or module.startswith(name + ".")}
            elif anything and name in by_module:
                kept.add(by_module[name])
    stars = [m for f in host for m in f.star_imports]
    while stars:
        module = stars.pop()
        path = by_module.get(module) or next((p for m, p in by_module.items() if m.endswith("." + module)), None)
        if path is not None and path not in kept:
            kept.add(path)
            stars += next(f.star_imports for f in copy_facts if f.path == path)
    return kept

