"""Extension ops whose Python callers are only re-exported: written, never run.

BEVFusion's voxel_layer binds `dynamic_point_to_voxel_forward`/`_backward` (round 37 A1 class 4, A2 class 5, B2 class
2). scatter_points.py imports them (`from .voxel_layer import dynamic_point_to_voxel_forward, ...`) and calls them only
in the autograd Function `_dynamic_scatter`, whose alias `dynamic_scatter` and the module `DynamicScatter` are named
nowhere else but in the package __init__.py files' re-exports (`from .scatter_points import DynamicScatter` with
`__all__`). The op is written, so binding_reach.py took it as called; nothing the project runs calls it.

Read from the phases facts of each Python file writing the op (symbols.py): the op is imported by name and written
only inside module-level definitions (imported_users); each of those is named in its own file only inside other
module-level definitions (inner_named) or never again (unnamed_symbols), all of them judged the same way; and no
other file writes its name but the package __init__.py files re-exporting it (unreferenced.reexporters_of) and tests
(a test runs no product code). A name too short to search for, a decorated definition, one named at the module's top
level or by its `if __name__ == "__main__":` block, and a file writing the op otherwise (an `ext.op(...)` call, a
string) keep the op called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.unreferenced import reexporters_of
from ascend_feasibility.analyzer.context.written_names import MAIN_BLOCK_USER, MIN_NAME, writers

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

MAX_USERS = 40  # definitions followed per op: past them the op keeps its callers


def exported_only_ops(written: dict[str, set[str]], facts: list[ModuleFacts],
                      is_test: Callable[[str], bool]) -> dict[str, str]:
    """op → why nothing running calls it, for the ops of `written` (op → the paths writing it) whose every writer is a
    Python file using it only in definitions nothing uses but re-exports."""
    by_path = {f.path: f for f in facts}
    reexports = None
    result: dict[str, str] = {}
    for op, paths in written.items():
        chains: list[tuple[str, list[str]]] = []
        for path in sorted(paths):
            module = by_path.get(path)
            if is_test(path):
                continue
            users = _definition_closure(module, op) if module is not None and path.endswith(".py") else None
            if users is None:
                break
            chains.append((path, users))
        else:
            if not chains:
                continue
            if reexports is None:
                reexports = reexporters_of(facts)
            names = {name for _, users in chains for name in users}
            outside = writers(names, facts)
            if all(not (outside.get(name, set()) - {path} - reexports(path, name)
                        - {p for p in outside.get(name, set()) if is_test(p)})
                   for path, users in chains for name in users):
                result[op] = "; ".join(f"called only in {', '.join(users)} ({path}), which nothing uses but "
                                       "package re-exports" for path, users in chains)
    return result


def _definition_closure(module: ModuleFacts, op: str) -> list[str] | None:
    """The module-level definitions of `module` through which alone the file uses the imported `op`, and those that
    alone use them, on up; None where some use is not through a module-level definition."""
    start = next((users for name, users in module.imported_users
                  if name == op or name.endswith("." + op)), None)
    if not start:
        return None
    unnamed = {symbol[0] for symbol in module.unnamed_symbols}
    inner = {symbol[0]: symbol[4] for symbol in module.inner_named}
    seen: list[str] = []
    stack = list(start)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        if name == MAIN_BLOCK_USER or len(name) < MIN_NAME or len(seen) >= MAX_USERS:
            return None
        if name in inner:
            stack.extend(inner[name])
        elif name not in unnamed:
            return None  # named at the module's top level, decorated, or not a definition the facts know
        seen.append(name)
    return seen
