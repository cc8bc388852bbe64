"""Module-level functions and classes nothing in the project names: their findings are `optional`, with the reason.

Python reaches a function or a class only through its name: a call, a reference passed on, an import, an `__all__`
entry, a string a registry or a config looks it up by. One whose name no file of the project writes anywhere but in its
own definition (domains/phases/symbols.py reads the words of code, strings, comments, shell, YAML, JSON and build
files alike) is reached by nothing the project runs: VILA's `AsyncHybridAttention` beside the `HybridAttention` its
monkey patch installs, `validity_check()` in an FP8 kernel module. Judged only where no user outside the project can
name it either:
- in an application's package (unloaded.application_packages: VILA's llava) and in scripts outside any package;
- a private name (`_helper`) anywhere: a library's users do not call it.
A library's public function that the project itself never calls is its users' API and keeps `runs`. Decorated
definitions (a decorator may register them) are never candidates, and neither is a module whose code may look its
names up at run time: `globals()`, `fire.Fire()`, `inspect.getmembers` (symbols.py).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import application_packages, package_folders, top_folder
from ascend_feasibility.analyzer.context.written_names import writers
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts



def unreferenced_symbols(facts: list[ModuleFacts], context: ProjectContext, distribution: str = "",
                         packages: set[str] | None = None) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the module-level symbols nothing in the project names. `packages`:
    unloaded.package_folders(facts) when the caller has it already."""
    packages = package_folders(facts) if packages is None else packages
    applications = application_packages(facts, context, distribution, packages)
    candidates: list[tuple[str, tuple[str, int, int, str]]] = []
    for f in facts:
        own = context.of(f.path)
        if not f.unnamed_symbols or own.role not in COUNTED_ROLES or own.reach != "runs":
            continue
        judged_whole = path_view(f.path).parent not in packages or top_folder(f.path, packages) in applications
        candidates += [(f.path, s) for s in f.unnamed_symbols if judged_whole or s[0].startswith("_")]
    if not candidates:
        return {}
    written = writers((symbol[0] for _, symbol in candidates), facts)
    result: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for path, (name, start, end, kind) in candidates:
        if written.get(name, set()) - {path}:
            continue
        result[path].append((start, end, f"line {start}: {kind} {name} is named nowhere else in the project (no call, "
                                         "reference, export or config entry): nothing reaches it"))
    return dict(result)
