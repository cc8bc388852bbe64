"""A lazily loaded library forked into an application: only what the application's scripts ask it for is loaded.

BrushNet forks diffusers: its setup.py publishes src/diffusers as `diffusers`, its README installs the checkout and
runs examples/brushnet/*.py, which import a few names (`from diffusers import StableDiffusionBrushNetPipeline,
BrushNetModel`). diffusers' __init__.py installs `_LazyModule(__name__, __file__, _import_structure)`: a submodule
loads only when an importer asks the package for a name the table maps to it, so the rest of the library (AudioLDM2,
ControlNet, depth2img ...) is never loaded by the application (round 34 A1 C1, A2 C2, B1 C3).

diffusers itself is the same package with the same tables, but a library: its users may ask for any name. The
README tells them apart. A library's README teaches its API in Python blocks (`from diffusers import
DiffusionPipeline`); the fork's runs the project's own scripts that import the package, and imports nothing of it
itself. A package whose README does neither is left as a library.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

MAX_HOPS = 32  # tables handing a name on to a subpackage's table: diffusers → pipelines → brushnet, three


def application_forks(facts: list[ModuleFacts], context: ProjectContext, tops: dict[str, str]) -> set[str]:
    """The top package folders (of `tops`: top package folder → its __init__.py) that an application forked: the
    __init__.py installs a `_LazyModule` table, a file the root README's runner commands launch outside the package
    imports the package by its name, and no Python block of the README imports it."""
    inits = {f.path: f for f in facts if f.lazy_names}
    launched = set(context.readme_launches)
    scripts = [f for f in facts if f.path in launched]
    result = set()
    for top, init in tops.items():
        name = path_view(top).name
        if init not in inits or name in context.readme_imports:
            continue
        if any(not f.path.startswith(top + "/") and any(i.split(".")[0] == name for i in f.imports) for f in scripts):
            result.add(top)
    return result


def lazy_tables(facts: list[ModuleFacts], inside: Iterable[str]) -> dict[str, dict[str, set[str]]]:
    """The __init__.py of each lazy package below the folders `inside` → its table: exported name → the submodules
    (relative to the package) that define it."""
    folders = tuple(folder + "/" for folder in inside)
    tables: dict[str, dict[str, set[str]]] = {}
    for f in facts:
        if f.lazy_names and f.path.startswith(folders):
            table = tables.setdefault(f.path, {})
            for name, submodule in f.lazy_names:
                table.setdefault(name, set()).add(submodule)
    return tables


def runtime_imports(f: ModuleFacts, tables: dict[str, dict[str, set[str]]]) -> list[str]:
    """The imports a file runs: a lazy package's __init__.py imports at load time only what its unconditional
    module-level statements do; its others sit under `if TYPE_CHECKING or DIFFUSERS_SLOW_IMPORT:` or in the
    except arm of a missing optional dependency."""
    if f.path not in tables:
        return f.imports
    nested = set(f.nested_imports)
    return [name for name in f.imports if name not in nested]


def through_tables(imports: Iterable[str], by_name: dict[str, set[str]],
                   tables: dict[str, dict[str, set[str]]]) -> list[str]:
    """The imports with, for each name a lazy package is asked for (`diffusers.BrushNetModel`), the name it hands on
    to the submodule its table maps it to (`diffusers.models.BrushNetModel`, then `diffusers.models.brushnet.
    BrushNetModel`), as far as the tables go."""
    found = list(dict.fromkeys(imports))
    seen = set(found)
    queue = list(found)
    hops = 0
    while queue and hops < MAX_HOPS * max(1, len(found)):
        hops += 1
        name = queue.pop()
        parts = name.split(".")
        end = next((end for end in range(len(parts), 0, -1) if ".".join(parts[:end]) in by_name), 0)
        if end == 0 or end == len(parts):
            continue  # no module of the project, or the name is a module itself
        prefix = ".".join(parts[:end])
        for path in sorted(by_name[prefix]):
            for submodule in sorted(tables.get(path, {}).get(parts[end], ())):
                handed = ".".join([prefix, submodule, *parts[end:]])
                if handed not in seen:
                    seen.add(handed)
                    found.append(handed)
                    queue.append(handed)
    return found


WHY = ("a module of {top}/, a library the project forked whose `_LazyModule` tables load a module only for the names "
       "asked of it, that no import of the scripts the README runs reaches (their names read through those tables): "
       "no product code loads it")
