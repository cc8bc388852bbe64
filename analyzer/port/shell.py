"""Shell launch scripts: a rule's `shell` edit completes a variable written there (`export CUDA_VISIBLE_DEVICES=0,1`
gets `export ASCEND_RT_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES}"` after it; `CUDA_VISIBLE_DEVICES=0 torchrun ...` gets
`ASCEND_RT_VISIBLE_DEVICES=0` beside it), through tree-sitter-bash. Reads of the variable are left alone."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.port.edits import MARK, SiteOutcome, byte_offset, line_starts_of
from ascend_feasibility.analyzer.reading.parsing import parse, text, walk
from ascend_feasibility.knowledge.models import Edit
from tree_sitter import Node

SHELL_SUFFIXES = (".sh", ".bash")


def plan_shell(data: bytes, root: Node, findings: list[tuple[Finding, Edit]],
               read_rules: dict[str, str] | None = None) -> tuple[str | None, list[SiteOutcome]]:
    """The rewritten script (None when nothing changes) and each site's outcome. `read_rules` names the rule that
    reports a read of each variable: the line added after an assignment reads it, so its marker names that rule (a
    DEV703 pin's twin reads CUDA_VISIBLE_DEVICES, which DEV201 reports); by default the finding's own."""
    starts = line_starts_of(data)
    pieces: list[tuple[int, bytes]] = []
    outcomes = []
    findings = [(copy, edit) for finding, edit in findings for copy in (finding, *_line_copies(data, root, finding))]
    for finding, edit in findings:
        outcome = SiteOutcome(finding)
        outcomes.append(outcome)
        begin = byte_offset(data, starts, finding.line, finding.column)
        end = byte_offset(data, starts, finding.end_line, finding.end_column)
        node = root.descendant_for_byte_range(begin, end) if 0 <= begin <= end else None
        assignment = node
        while assignment is not None and assignment.type != "variable_assignment":
            assignment = assignment.parent
        if assignment is None or text(assignment.child_by_field_name("name") or assignment).strip() != finding.symbol:
            outcome.reason = "not an assignment of the variable (only writes are completed)"
            continue
        holder = assignment.parent
        row_start = data.rfind(b"\n", 0, assignment.start_byte) + 1
        if holder is not None and holder.type == "command" and edit.shell_prefix:
            value = assignment.child_by_field_name("value")
            new = edit.shell_prefix.format(value=text(value) if value is not None else "")
            pieces.append((assignment.start_byte, new.encode("utf-8") + b" "))
            statement = holder
        elif edit.shell:
            statement = holder if holder is not None and holder.type == "declaration_command" else assignment
            exported = statement.type == "declaration_command" and text(statement).startswith("export")
            keyword = "export " if exported or _exported_later(root, finding.symbol, statement) else ""
            row_end = data.find(b"\n", statement.end_byte)
            row_end = len(data) if row_end < 0 else row_end
            rest = data[statement.end_byte: row_end].strip()
            indent = data[row_start: statement.start_byte] if statement.start_byte >= row_start else b"x"
            if indent.strip() or (rest and not rest.startswith(b"#")) or statement.start_point[0] != statement.end_point[0]:
                outcome.reason = "the assignment shares its line"
                continue
            marked = (read_rules or {}).get(finding.symbol, finding.rule)
            added = edit.shell.format(keyword=keyword) + f"  {MARK} ignore[{marked}] (port)"
            pieces.append((row_end, b"\n" + indent + added.encode("utf-8")))
        else:
            outcome.reason = "no shell rewrite for this form"
            continue
        line_start = data.rfind(b"\n", 0, statement.start_byte) + 1
        line = data[line_start: statement.start_byte]
        if line.strip():
            outcome.reason = "the statement shares its line"
            pieces.pop()
            continue
        comment = line + f"{MARK} ignore[{finding.rule}] (port: completed for Ascend)\n".encode("utf-8")
        pieces.append((line_start, comment))
        outcome.changes = ["shell"]  # a marker: this site was rewritten
    if not pieces:
        return None, outcomes
    out = bytearray(data)
    for offset, new in sorted(pieces, key=lambda p: p[0], reverse=True):
        out[offset:offset] = new
    result = bytes(out)
    if parse("bash", result).has_error:
        for outcome in outcomes:
            if outcome.reason is None:
                outcome.reason = "the rewritten script does not parse"
                outcome.changes = []
        return None, outcomes
    return result.decode("utf-8"), outcomes


def _line_copies(data: bytes, root: Node, finding: Finding) -> list[Finding]:
    """A copy of the finding at each other line of its script the report lists as its sites (one finding per variable
    and script: project_scope.fold_script_lines), placed on that line's assignment of the variable."""
    wanted: set[int] = set()
    for site in getattr(finding, "sites", None) or ():
        path, _, line = site.rpartition(":")
        if path == finding.path and line.isdigit() and int(line) != finding.line:
            wanted.add(int(line) - 1)
    if not wanted:
        return []
    copies = []
    for node in walk(root):
        name = node.child_by_field_name("name") if node.type == "variable_assignment" else None
        if name is None or name.start_point[0] not in wanted or text(name).strip() != finding.symbol:
            continue
        wanted.discard(name.start_point[0])
        row_start = data.rfind(b"\n", 0, name.start_byte) + 1
        column = len(data[row_start: name.start_byte].decode("utf-8", errors="replace")) + 1
        end_column = column + len(text(name))
        copies.append(finding.model_copy(update={
            "line": name.start_point[0] + 1, "column": column, "end_line": name.start_point[0] + 1,
            "end_column": end_column, "fingerprint": f"{finding.fingerprint}@{name.start_point[0] + 1}", "sites": []}))
    return sorted(copies, key=lambda copy: copy.line)


def _exported_later(root: Node, name: str, assignment: Node) -> bool:
    """`NAME=value` then `export NAME` on a later line: the twin written after the assignment is exported too."""
    return any(node.type == "declaration_command" and node.start_byte > assignment.end_byte
               and text(node).split(None, 1)[0] == "export"
               and any(child.type == "variable_name" and text(child) == name for child in node.named_children)
               for node in walk(root))
