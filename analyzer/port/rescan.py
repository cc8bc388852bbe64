"""Port reads a Python file's text again, in memory (nothing is run or written): the report keeps one finding per rule
and line, while a rewrite needs each of its sites (`a, b = x.cuda(), y.cuda()`); and after the rewrite, what still
fires on a line the patch edited is shown to the reviewer."""

from __future__ import annotations

import difflib
import functools

from ascend_feasibility.analyzer.core.filework import FileWorker
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.port.edits import MARK, byte_offset, line_starts_of
from ascend_feasibility.analyzer.reading.parsing import parse

Site = tuple[str, str, int, int, int, int]  # rule, symbol, line, column, end line, end column (1-based)


class Rescan:
    def __init__(self, torch_npu: str | None) -> None:
        self.torch_npu = torch_npu

    @functools.cached_property
    def _worker(self) -> FileWorker:
        return FileWorker(self.torch_npu)

    def sites(self, path: str, data: bytes) -> list[Site]:
        try:
            return self._worker.line_sites(path, data)
        except Exception:  # noqa: BLE001 - a re-read that fails must not lose the patch; the report stands as it is
            return []

    def left_on_edited(self, path: str, old: str, new: str) -> list[tuple[int, str, str]]:
        """(line in the original text, rule, symbol) of each rule that still fires on a line the rewrite changed, or
        on another line of a statement it changed (`torch.view_as_complex(` above the argument the patch edited)."""
        opcodes = _opcodes(old, new)
        # the lines of new that the rewrite replaced or added (its own `# ascend:` comment lines among them)
        edited = {line + 1 for tag, _, _, first, last in opcodes if tag in {"replace", "insert"}
                  for line in range(first, last)}
        if not edited:
            return []
        data = new.encode("utf-8")
        sites = self.sites(path, data)
        tree = parse("python", data) if sites else None
        starts, lines = line_starts_of(data), new.splitlines()
        seen, left = set(), []
        for rule, symbol, line, column, *_ in sites:
            first, last = _statement_lines(tree, byte_offset(data, starts, line, column), line)
            original = _original_line(opcodes, lines, line)
            if edited.isdisjoint(range(first, last + 1)) or (original, rule) in seen:
                continue
            seen.add((original, rule))
            left.append((original, rule, symbol))
        return sorted(left)


def _opcodes(old: str, new: str) -> list[tuple[str, int, int, int, int]]:
    return difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False).get_opcodes()


def _original_line(opcodes, lines: list[str], line: int) -> int:
    """The original file's line for a line of the new text (1-based; the numbering of the summary's `left:` lines):
    the same line where the text is unchanged; in a replaced run, the replaced line at the same place when port's own
    `# ascend:` comment lines are not counted (the run's last one past its end); and the line before an inserted run
    (1 at the top)."""
    row = line - 1
    for tag, old_first, old_last, new_first, new_last in opcodes:
        if new_first <= row < new_last:
            if tag == "equal":
                return old_first + (row - new_first) + 1
            if tag == "replace":
                place = sum(1 for text in lines[new_first:row] if not text.lstrip().startswith(MARK))
                return min(old_first + place, old_last - 1) + 1
            return max(old_first, 1)
    return line


def _statement_lines(tree, offset: int, line: int) -> tuple[int, int]:
    """The 1-based lines of the statement a site is in: a simple statement whole, a compound one's header (its
    `if ... :` lines, not its body)."""
    node = tree.descendant_for_byte_range(offset, offset) if tree is not None and offset >= 0 else None
    while node is not None and node.type not in _SIMPLE and node.type not in _HEADED and node.type not in _BODIES:
        node = node.parent
    if node is None or node.type in _BODIES:
        return line, line
    end = node.end_point[0]
    if node.type in _HEADED:
        colon = next((child for child in node.children if child.type == ":"), None)
        end = colon.start_point[0] if colon is not None else node.start_point[0]
    return node.start_point[0] + 1, end + 1


_SIMPLE = frozenset({
    "expression_statement", "return_statement", "delete_statement", "raise_statement", "assert_statement",
    "import_statement", "import_from_statement", "future_import_statement", "global_statement", "nonlocal_statement",
    "print_statement", "exec_statement", "type_alias_statement", "pass_statement", "break_statement",
    "continue_statement", "decorator"})
_BODIES = frozenset({"block", "module"})
# compound statements and clauses with a header ending in ":" before their body
_HEADED = frozenset({
    "if_statement", "elif_clause", "while_statement", "for_statement", "with_statement", "function_definition",
    "class_definition", "except_clause", "match_statement", "case_clause"})


def same_line_copies(findings: list[Finding], sites: list[Site], rules) -> list[Finding]:
    """A copy of each finding whose rule has an edit at each other site of its rule on its line (the report names
    the line once, at its first site). A copy keeps the finding's reach and role (the same line) and gets a
    fingerprint of its own."""
    taken = {(f.rule, f.line, f.column) for f in findings}
    read = {(rule, line, column) for rule, _, line, column, _, _ in sites}
    copies = []
    for finding in findings:
        # only where the re-read agrees with the report on the finding itself (a finding a project pass placed, or
        # one of another text, is left as it is)
        if rules[finding.rule].edit is None or (finding.rule, finding.line, finding.column) not in read:
            continue
        for rule, symbol, line, column, end_line, end_column in sites:
            if rule != finding.rule or line != finding.line or (rule, line, column) in taken:
                continue
            taken.add((rule, line, column))
            copies.append(finding.model_copy(update={
                "symbol": symbol, "column": column, "end_line": end_line, "end_column": end_column,
                "fingerprint": f"{finding.fingerprint}@{column}", "sites": []}))
    return copies
