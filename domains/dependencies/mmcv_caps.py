"""The mmcv release cap an OpenMMLab package states in its `__init__`.

mmrotate/__init__.py:24-25 `mmcv_minimum_version = '1.5.3'` / `mmcv_maximum_version = '1.8.0'`, mmtrack/__init__.py:11
`MMCV_MAX = '2.0.0'`, mmpose and mmaction the same: the package asserts the installed mmcv lies in that range when it is
imported, so the cap, not the loosest requirement line, says which mmcv line (1.x or 2.x) the project runs on."""

from __future__ import annotations

from dataclasses import dataclass

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit


@dataclass(frozen=True)
class MmcvCap:
    path: str
    line: int
    text: str  # the assignment, as written
    version: str  # its string: the highest mmcv release the package accepts (or the first it refuses, for `<`)


def mmcv_caps(unit: Unit) -> list[MmcvCap]:
    """Module-level `<name> = '<version>'` assignments whose name speaks of mmcv's maximum version."""
    if b"mmcv" not in unit.source.data and b"MMCV" not in unit.source.data:
        return []
    found = []
    for statement in unit.tree().named_children:
        assignment = statement.named_children[0] if statement.type == "expression_statement" \
            and statement.named_children else None
        if assignment is None or assignment.type != "assignment":
            continue
        target, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        name = parsing.text(target).lower() if target is not None and target.type == "identifier" else ""
        if "mmcv" not in name or "max" not in name or value is None or value.type != "string":
            continue
        version = parsing.text(value).strip("'\"")
        if version:
            found.append(MmcvCap(unit.path, statement.start_point.row + 1, parsing.text(statement)[:200], version))
    return found
