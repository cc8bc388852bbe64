"""What the Markdown and HTML reports show, computed once from the report model (never from the scanners)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from analyzer.models import DOMAINS, PHASES, SEVERITIES, DependencyRow, Finding, Report, severity_rank
from analyzer.report_charts import Chart, effort_chart, findings_chart

CLASS_ORDER = ("unsupported", "needs_replacement", "unknown", "compatible", "not_involved")


@dataclass(frozen=True)
class ReportView:
    report: Report
    languages: tuple[str, ...]
    active: list[Finding]
    suppressed: list[Finding]
    counts: dict[str, dict[str, int]]
    by_domain: dict[str, list[Finding]]
    files_with_findings: int
    blockers: int
    dependencies: list[DependencyRow]
    findings_chart: Chart
    effort_phase_chart: Chart
    effort_domain_chart: Chart
    row_limit: int

    @property
    def domains_with_findings(self) -> list[str]:
        return [domain for domain in DOMAINS if self.counts.get(domain)]

    @property
    def phases_with_findings(self) -> list[str]:
        present = {phase for finding in self.active for phase in finding.phases}
        return [phase for phase in PHASES if phase in present]


def build_view(report: Report, languages: tuple[str, ...], row_limit: int) -> ReportView:
    active = sorted((f for f in report.findings if not f.suppressed), key=_finding_order)
    counts: dict[str, Counter] = {}
    for finding in active:
        counts.setdefault(finding.domain, Counter())[finding.severity] += 1
    ordered_counts = {d: {s: counts[d][s] for s in SEVERITIES} for d in DOMAINS if d in counts}
    by_domain: dict[str, list[Finding]] = {}
    for finding in active:
        by_domain.setdefault(finding.domain, []).append(finding)
    dependencies = sorted(report.dependency_matrix, key=lambda row: (CLASS_ORDER.index(row.classification), row.package))
    effort_domains = {d: days for d, days in report.effort.by_domain.items() if days.high_days > 0}
    return ReportView(
        report=report,
        languages=languages,
        active=active,
        suppressed=[f for f in report.findings if f.suppressed],
        counts=ordered_counts,
        by_domain=by_domain,
        files_with_findings=len({f.path for f in active}),
        blockers=sum(f.severity == "blocker" for f in active),
        dependencies=dependencies,
        findings_chart=findings_chart(ordered_counts),
        effort_phase_chart=effort_chart(report.effort.by_phase),
        effort_domain_chart=effort_chart(effort_domains),
        row_limit=row_limit,
    )


def _finding_order(finding: Finding) -> tuple:
    return (severity_rank(finding.severity), finding.domain, finding.path, finding.cell or 0, finding.line, finding.column)


def location(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}"
    return where if finding.cell is None else f"{finding.path}:cell{finding.cell}:{finding.line}"
