"""Copies of one module (the same package-relative dotted name in two folders): which copy an import loads, and the
copies no import loads.

Amphion keeps utils/tokenizer.py at its root and a differing copy in models/tts/debatts/utils/tokenizer.py. Every file
importing `utils.tokenizer` (processors/acoustic_extractor.py, the valle trainers under models/tts/valle/) is run from
the repository root, where `utils` is the root package: none loads the debatts copy, so nothing its code does runs.
Python finds `import utils.tokenizer` under the folders on sys.path: the launched script's own folder and the launch
root. A copy at <root>/utils/tokenizer.py is found only by importers at or below <root> (a script in
models/tts/debatts/ would load the debatts copy); the deepest such root wins (the script's folder comes first on
sys.path). Where no copy's root holds the importer, the copy sharing the most leading folders with it stands
(roles.nearest_copy: a server and another backend's copy of text_generation_server/models/mamba.py). A name naming one
copy by its full dotted path (`models.tts.debatts.utils.tokenizer`) loads that copy.

A copy that no import loads while another copy of it is imported is `optional`, "shadowed by" the copy the importers
load, unless it is an entry of its own (`if __name__ == "__main__":`, a launched script, a console entry).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import nearest_copy, path_view
from ascend_feasibility.analyzer.context.unloaded import import_names

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


def module_copies(facts: list[ModuleFacts]) -> dict[str, tuple[str, list[str]]]:
    """path → (the package-relative dotted name, every path holding a module of that name) for modules held twice or
    more."""
    packages = {path_view(f.path).parent for f in facts if f.module and path_view(f.path).name == "__init__.py"}
    by_name: dict[str, list[str]] = defaultdict(list)
    for f in facts:
        if f.module:
            names = import_names(f.path, f.module, packages)
            if names:
                by_name[min(names, key=len)].append(f.path)
    return {path: (name, paths) for name, paths in by_name.items() if len(paths) > 1 for path in paths}


def loaded_copy(name: str, paths: list[str], imported: str, importer: str) -> str | None:
    """The copy of the module `name` that `importer`'s import of `imported` loads; None where the import does not
    name the module by `name` (a full dotted name that picks one copy itself)."""
    if imported != name and not imported.startswith(name + "."):
        return None
    relative = name.replace(".", "/")
    folder = str(path_view(importer).parent)
    best, depth = None, -1
    for path in paths:
        stem = path[: -len("/__init__.py")] if path.endswith("/__init__.py") else path.rsplit(".", 1)[0]
        if stem == relative:
            root = "."
        elif stem.endswith("/" + relative):
            root = stem[: -len(relative) - 1]
        else:
            continue
        if root == "." or folder == root or folder.startswith(root + "/"):
            held = 0 if root == "." else root.count("/") + 1
            if held > depth:
                best, depth = path, held
    return best if best is not None else nearest_copy(paths, importer)


def shadowed_copies(copies: dict[str, tuple[str, list[str]]], importers: dict[str, list[tuple[str, str]]],
                    loaded: set[str], entries: set[str]) -> dict[str, str]:
    """path → why, for the copies no import loads while product code imports another copy of the same name.
    `importers`: path → (importer, reach) of each product import that loads it; `loaded`: the copies any file's
    import loads (a test's too); `entries`: paths that run by themselves."""
    result: dict[str, str] = {}
    for path, (name, paths) in copies.items():
        if importers.get(path) or path in loaded or path in entries:
            continue
        used = sorted(other for other in paths if other != path and importers.get(other))
        if used:
            who = sorted({importer for other in used for importer, _ in importers[other]})
            more = f" and {len(who) - 3} more" if len(who) > 3 else ""
            result[path] = (f"shadowed by {used[0]}: every import of {name} ({', '.join(who[:3])}{more}) loads "
                            f"{' or '.join(used)} from where the importer runs; nothing imports this copy")
    return result
