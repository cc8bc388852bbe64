"""Port reads a Python file's text again, in memory (nothing is run or written): the report keeps one finding per rule
and line, while a rewrite needs each of its sites (`a, b = x.cuda(), y.cuda()`); and after the rewrite, what still
fires on a line the patch edited is shown to the reviewer."""

from __future__ import annotations

import difflib
import functools

from ascend_feasibility.analyzer.core.filework import FileWorker
from ascend_feasibility.analyzer.core.models import Finding

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
        """(line in the new text, rule, symbol) of each rule that still fires on a line the rewrite changed."""
        edited = edited_lines(old, new)
        if not edited:
            return []
        seen, left = set(), []
        for rule, symbol, line, *_ in self.sites(path, new.encode("utf-8")):
            if line in edited and (line, rule) not in seen:
                seen.add((line, rule))
                left.append((line, rule, symbol))
        return sorted(left)


def edited_lines(old: str, new: str) -> set[int]:
    """1-based lines of new that the rewrite replaced or added (its own `# ascend:` comment lines among them)."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return {line + 1 for tag, _, _, first, last in matcher.get_opcodes() if tag in {"replace", "insert"}
            for line in range(first, last)}


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
