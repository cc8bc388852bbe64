"""Classes a file builds only by name from a dict the project ships, which that dict does not name: `optional`.

The file names its candidates (domains/phases/dict_built_classes.py: `globals()[class_name](device=device)` over the
keys of `load_dict`, whose every shipped value names other classes). Another file may still build one: it stays
reached when a file other than its own or prose writes the class's name (an import, a call, a config entry), or the
name of the class or function that receives the dict (another caller may pass a dict naming it). Only product code
the project runs is judged, and a name too short for written_names to look for keeps its reach.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, PROSE_SUFFIXES, writers
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts



def dict_built_ranges(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the classes only a by-name lookup over an unnaming shipped dict builds."""
    candidates = [(f, entry) for f in facts if f.dict_built and context.of(f.path).role in COUNTED_ROLES
                  for entry in f.dict_built]
    if not candidates:
        return {}
    written = writers({name for _, (name, *_rest) in candidates} | {entry[4] for _, entry in candidates if entry[4]},
                      facts)
    result: dict[str, list[tuple[int, int, str]]] = {}
    for own, (name, first, last, why, builder) in candidates:
        if len(name) < MIN_NAME or 0 < len(builder) < MIN_NAME:  # a word too short to look for: no answer
            continue
        others = (written.get(name, set()) | (written.get(builder, set()) if builder else set())) - {own.path}
        if any(not path.endswith(PROSE_SUFFIXES) for path in others):
            continue
        result.setdefault(own.path, []).append((first, last, f"line {first}: {why}"))
    return result
