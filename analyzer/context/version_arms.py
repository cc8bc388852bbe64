"""Names a file writes only in arms a version test rules out at the target: `if LooseVersion(torchvision.__version__)
>= LooseVersion('0.9.0'): return torchvision.ops.deform_conv2d(...) else: return modulated_deform_conv(...)` (round 32
verdicts V3). With torchvision 0.27, the release line built for the target torch, the test is true and the else arm
never runs, so the file is no user of `modulated_deform_conv` through it; unreferenced.py then finds the autograd
Function behind it reached by nothing (its OPS040 optional, with this test as the reason), as it does for the arms a
literal constant rules out (literal_flags.edited_names).

The test is read by versions.VersionReader at the target (torch's own version, a companion package's release line
paired with the target torch in knowledge/dependencies/packages.toml `torch_pairs`); a test it cannot decide decides
nothing. Only `if` statements are read (one of their arms never runs); a conditional expression's names stay users.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.literal_flags import names_only_in
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.context.versions import VersionReader

MARK = b"version"  # a file whose bytes spell no version has no version test


def version_edited_names(root: Node, conditions: list[Node], versions: VersionReader) -> list[tuple[str, int, str, str]]:
    """(name, arm's first line, "", reason) for each name the file writes only in arms dead at the target."""
    if MARK not in (root.text or b""):
        return []
    versions.start_unit()
    dead: list[tuple[Node, str, str]] = []
    seen: set[int] = set()
    for condition in conditions:
        parent = condition.parent
        statement = parent.parent if parent is not None and parent.type == "elif_clause" else parent
        if statement is None or statement.type != "if_statement" or statement.id in seen:
            continue
        seen.add(statement.id)
        dead += _dead_arms(statement, versions)
    return names_only_in(root, dead)


def _dead_arms(statement: Node, versions: VersionReader) -> list[tuple[Node, str, str]]:
    arms = parsing.if_arms(statement)
    found: list[tuple[Node, str, str]] = []
    for index, (condition, body) in enumerate(arms):
        if condition is None:
            break
        value = versions.evaluate(condition)
        if value is None:
            break  # an undecided test: the arms after it may run
        test = " ".join(parsing.text(condition).split())[:160]
        note = versions.note(condition, value)
        line = condition.start_point.row + 1
        if value:
            why = f"`{test}` (line {line}) is {note}, so the arms after it never run there"
            found += [(later, "", why) for _, later in arms[index + 1:] if later is not None]
            break
        if body is not None:
            found.append((body, "", f"`{test}` (line {line}) is {note}, so its arm never runs there"))
    return found
