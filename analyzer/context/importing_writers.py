"""Which other files may reach a module's own global or function by a name they write.

A module's reach reason may rest on its own file: a function's `if FLAG:` on a global assigned once
(literal_flags.py), or a public function whose callers in the file all check a gate (guards.py). Another file
changes that only if it can reach the module's binding: it imports the module or a name from it
(`from pkg.attention import FLAG`, `import pkg.attention as attention; attention.FLAG = ...`). A file writing the
same word for a global or method of its own (MotionCtrl's three `XFORMERS_IS_AVAILBLE`, each set in its own file's
try/except, and their own `efficient_forward` methods) reaches nothing of the module's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.unreferenced import loaded_by
from ascend_feasibility.analyzer.context.written_names import writers

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


def importing_writers(facts: list[ModuleFacts], packages: set[str]) -> Callable[[str, str], set[str]]:
    """(path, name) → the other files that write `name` and import the module at `path` (or a name from it). A file
    no import can name (no module name) keeps the word test: any other file writing the name."""
    load_names = loaded_by(facts, packages)
    imports = {f.path: f.imports for f in facts}

    def writers_of(path: str, name: str) -> set[str]:
        named = writers([name], facts).get(name, set()) - {path}
        loads = load_names(path)
        if not loads:
            return named
        prefixes = tuple(f"{load}." for load in loads)
        return {other for other in named
                if any(n in loads or n.startswith(prefixes) for n in imports.get(other, ()))}
    return writers_of
