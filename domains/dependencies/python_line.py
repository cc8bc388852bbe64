"""The project's Python against the target's (rule DEP017): a `python=3.8.5` in a conda environment or a conda
install line admits no Python the target torch_npu release's torch line supports (releases.toml's `python`, from the
Ascend/pytorch README's PyTorch and Python version table), so the environment is rebuilt on a newer Python and every
pin in it is re-checked for wheels of that Python."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.facts import DOC_FLOOR, DOC_SOURCE
from ascend_feasibility.knowledge.models import Release
from packaging.specifiers import InvalidSpecifier, SpecifierSet

_MINORS = range(6, 20)  # the Python 3 lines a specifier is tried on
_PATCHES = range(0, 31)  # the patch releases of a line a specifier is tried on


def supported_lines(specifier: str) -> list[str]:
    """The Python 3 lines ("3.10") a specifier admits: a line is admitted where one of its patch releases is."""
    try:
        spec = SpecifierSet(specifier)
    except InvalidSpecifier:
        return []
    return [f"3.{minor}" for minor in _MINORS 
            if any(spec.contains(f"3.{minor}.{patch}") for patch in _PATCHES)]


FLOOR_ADMITS = "floor-admits"  # DEP017's facet: an install document's example pin whose own stated floor admits the target


def python_moves(declarations: list[Declaration], target: Release) -> list[tuple[Declaration, str, tuple[str, ...]]]:
    """Each declared Python (a conda `python=` spec) that admits none of the target's Pythons, with the move's text
    (the Pythons it admits → the target's lines) and its facets. An install document's example (`conda create -n x
    python=3.7` in a fenced block) whose same document states a floor admitting a target line ("* Python>=3.7",
    DOC_FLOOR) is one choice the document leaves open: FLOOR_ADMITS, naming the floor. A stated floor pins nothing."""
    wanted = supported_lines(target.python) if target.python else []
    if not wanted:
        return []
    floors = [d for d in declarations if d.source == DOC_FLOOR and set(supported_lines(d.specifier)) & set(wanted)]
    moves = []
    for site in declarations:
        if site.name != "python" or not site.specifier or site.source == DOC_FLOOR:
            continue
        own = supported_lines(site.specifier)
        if own and not set(own) & set(wanted):
            move = f"Python {own[-1]} → {wanted[0]}–{wanted[-1]} (torch_npu {target.torch_npu}, torch {target.torch})"
            floor = next((f for f in floors if f.path == site.path), None) if site.source == DOC_SOURCE else None
            if floor is None:
                moves.append((site, move, ()))
            else:
                moves.append((site, f"{move}; {floor.path}:{floor.line} states Python{floor.specifier}, which admits "
                                    f"{wanted[0]}–{wanted[-1]}", (FLOOR_ADMITS,)))
    return moves


def release_note(release: Release) -> str:
    """A release as an install advice names it: torch_npu, its torch, CANN and the Pythons its wheels are for."""
    lines = supported_lines(release.python) if release.python else []
    python = f", Python {lines[0]}–{lines[-1]}" if lines else ""
    return f"torch_npu {release.torch_npu} (torch {release.torch}, CANN {release.cann}{python})"
