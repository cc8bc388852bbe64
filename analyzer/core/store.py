"""Collects what the files produced, deduplicates, and sorts it so that two runs give identical output."""

from __future__ import annotations

from collections import Counter
from operator import attrgetter

from ascend_feasibility.analyzer.core.models import (
    DOMAINS,
    MIGRATIONS,
    REACHES,
    ROLES,
    SEVERITIES,
    Finding,
    SkippedFile,
    Summary,
    UnusedSuppression,
)


class FindingStore:
    """Findings of one rule share their texts: the store keeps one copy of each (a large tree has
    hundreds of thousands of findings but few distinct texts)."""

    def __init__(self) -> None:
        self._findings: dict[tuple, Finding] = {}
        self._shared: dict = {}
        self._fields: set[str] | None = None  # the fields-given set the findings share
        self._skipped: set[SkippedFile] = set()
        self._unused: set[UnusedSuppression] = set()

    def add(self, result) -> None:
        self.add_findings(result.findings)
        self._skipped.update(result.skipped)
        self._unused.update(result.unused_suppressions)

    def add_findings(self, findings: list[Finding]) -> None:
        for finding in findings:
            key = (finding.rule, finding.path, finding.cell, finding.line, finding.column, finding.end_line, finding.end_column)
            if key not in self._findings:
                self._findings[key] = self._share_texts(finding)

    def _share_texts(self, finding: Finding) -> Finding:
        """The finding, made to hold the store's copies of its texts (equal values: nothing visible changes). Texts
        are looked up by their strings (hashing pydantic models is slow). The finding was just built or unpickled
        and nothing else holds it yet, so its fields are replaced without copying the model (a pydantic copy per
        finding was a tenth of the time the main process spent on a tree with 100k findings)."""
        shared = self._shared
        message, replacement, effort = finding.message, finding.replacement, finding.effort_hours
        values = {
            "message": shared.setdefault(("message", message.en, message.zh), message),
            "replacement": shared.setdefault(("replacement", replacement.en, replacement.zh, replacement.code), replacement),
            "effort_hours": shared.setdefault(("effort", effort.low, effort.high), effort),
            "references": shared.setdefault(("references", *finding.references), finding.references),
            "snippet": shared.setdefault(finding.snippet, finding.snippet),
            "symbol": shared.setdefault(finding.symbol, finding.symbol),
        }
        # A new dict, sized for its items (one built up by unpickling keeps spare room), and one shared set of the
        # fields given: each unpickled finding brought its own, which held more memory than the finding's own data on a
        # tree with 100k findings. Findings are frozen, and a copy copies the set, so nothing changes a shared one.
        object.__setattr__(finding, "__dict__", {**finding.__dict__, **values})
        fields = finding.__pydantic_fields_set__
        if self._fields is None:
            self._fields = fields
        elif fields is not self._fields and fields == self._fields:
            object.__setattr__(finding, "__pydantic_fields_set__", self._fields)
        return finding

    def skip(self, entries: list[SkippedFile]) -> None:
        self._skipped.update(entries)

    def findings(self) -> list[Finding]:
        return sorted(
            self._findings.values(),
            key=lambda f: (f.path, f.cell or 0, f.line, f.column, f.rule, f.end_line, f.end_column, f.fingerprint),
        )

    def take_findings(self) -> list[Finding]:
        """The sorted findings, handed over: the store keeps none, so the planning pass owns the only list."""
        findings = self.findings()
        self._findings.clear()
        return findings

    def skipped(self) -> list[SkippedFile]:
        return sorted(self._skipped, key=lambda s: (s.path, s.reason))

    def unused_suppressions(self) -> list[UnusedSuppression]:
        return sorted(self._unused, key=lambda u: (u.path, u.cell or 0, u.line, u.code))



def summarize(findings: list[Finding]) -> Summary:
    """Counts of the findings a report ends with (after calibration may have changed severities)."""
    active = [f for f in findings if not f.suppressed]
    combinations = Counter(map(attrgetter(*_SUMMARY_FIELDS), active))  # one pass over the findings, few distinct
    return Summary(
        total=len(active),
        suppressed=len(findings) - len(active),
        by_domain=_counts(combinations, "domain", DOMAINS),
        by_severity=_counts(combinations, "severity", SEVERITIES),
        by_migration=_counts(combinations, "migration", MIGRATIONS),
        counted=sum(f.counted for f in active),
        by_role=_counts(combinations, "role", ROLES),
        by_reach=_counts(combinations, "reach", REACHES),
    )


_SUMMARY_FIELDS = ("domain", "severity", "migration", "role", "reach")


def _counts(combinations: Counter, attribute: str, keys: tuple[str, ...]) -> dict[str, int]:
    position = _SUMMARY_FIELDS.index(attribute)
    counted: Counter = Counter()
    for combination, n in combinations.items():
        counted[combination[position]] += n
    return {key: counted.get(key, 0) for key in keys}
