"""`--changed-since REF`: the whole project is analysed (phases, dependencies and the context need all of it), then
only the findings on lines changed since REF are kept, in every output format; the summary counts what is left and
`changed_since` says how many were left out."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.project_scope import parse_site
from ascend_feasibility.analyzer.core.models import ChangedSince, Report
from ascend_feasibility.analyzer.core.store import summarize
from ascend_feasibility.analyzer.reading.gitinfo import ChangedLines


def only_changed(report: Report, changes: ChangedLines) -> Report:
    """The report with the findings outside the changed lines left out. A finding whose file is new since REF, or
    cannot be compared line by line, is kept; a notebook finding is kept when its notebook changed at all (its line
    numbers are the cell's, not the file's)."""
    kept = [
        finding for finding in report.findings
        if any(changes.covers(path, first, last, whole_file=notebook) for path, first, last, notebook in _spans(finding))
    ]
    section = ChangedSince(ref=changes.ref, commit=changes.commit, kept=len(kept),
                           left_out=len(report.findings) - len(kept))
    return report.model_copy(update={"findings": kept, "summary": summarize(kept), "changed_since": section})


def _spans(finding) -> list[tuple[str, int, int, bool]]:
    """Where a finding is: its own lines, and for a project-level finding every site it stands for (`path:line`,
    `path:line (cell N)`), so that it is kept when one of them changed."""
    spans = [(finding.path, finding.line, finding.end_line, finding.cell is not None)]
    for site in finding.sites:
        parsed = parse_site(site)
        if parsed is not None:
            path, line, cell = parsed
            spans.append((path, line, line, cell is not None))
    return spans
