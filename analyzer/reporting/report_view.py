"""What the Markdown and HTML reports show, computed once from the report model (never from the scanners)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ascend_feasibility.analyzer.core.models import (
    DOMAINS,
    PHASES,
    SEVERITIES,
    DependencyRow,
    EffortItem,
    Finding,
    Report,
    severity_rank,
)
from ascend_feasibility.analyzer.reporting.report_charts import Chart, effort_chart, findings_chart

LISTED_SITES = 5
TOP_DRIVERS = 5
CLASS_ORDER = ("unsupported", "needs_replacement", "unknown", "compatible", "not_involved")


@dataclass(frozen=True)
class SiteGroup:
    """Findings of one rule shown as a count: per file (auto sites) or per role and reach (not counted)."""

    rule: str
    name: str
    path: str  # the file, or the first file for a context group
    role: str
    reach: str
    count: int
    lines: list[str]  # locations, the first few
    reason: str | None = None


@dataclass(frozen=True)
class MechanicalKind:
    """Mechanical sites of one rule, as a count: how many `port` rewrites by itself."""

    rule: str
    name: str
    sites: int
    port: int


@dataclass(frozen=True)
class ReportView:
    report: Report
    languages: tuple[str, ...]
    active: list[Finding]
    listed: list[Finding]  # counted findings a reader acts on: not the auto info sites, not the uncounted
    auto_groups: list[SiteGroup]
    not_counted: list[SiteGroup]
    not_counted_total: int
    suppressed: list[Finding]
    counts: dict[str, dict[str, int]]
    by_domain: dict[str, list[Finding]]
    files_with_findings: int
    blockers: int
    dependencies: list[DependencyRow]
    folded_dependencies: list[str]  # packages not involved in the migration, named on one line
    findings_chart: Chart
    effort_phase_chart: Chart
    effort_domain_chart: Chart
    row_limit: int
    step0: list[EffortItem]  # environment and entry points
    top_drivers: list[EffortItem]  # the largest required items, Step 0's included
    engineering: list[Finding]  # counted manual and unsupported sites above info: what a manager reads first
    mechanical: list[MechanicalKind]  # counted auto and rewrite sites, as counts per rule
    changes: list[Finding]  # counted mechanical sites: the change table

    @property
    def entry_files(self) -> list[str]:
        return entry_files(self.step0)

    @property
    def counted_total(self) -> int:
        return len(self.listed) + sum(group.count for group in self.auto_groups)

    @property
    def domains_with_findings(self) -> list[str]:
        present = {finding.domain for finding in self.active}
        return [domain for domain in DOMAINS if domain in present]

    @property
    def domains_listed(self) -> list[str]:
        return [domain for domain in DOMAINS if domain in self.by_domain]

    @property
    def phases_with_findings(self) -> list[str]:
        present = {phase for finding in self.active for phase in finding.phases}
        return [phase for phase in PHASES if phase in present]


def build_view(report: Report, languages: tuple[str, ...], row_limit: int) -> ReportView:
    active = sorted((f for f in report.findings if not f.suppressed), key=_finding_order)
    counted = [f for f in active if f.counted]
    listed = [f for f in counted if not _folded(f)]
    counts: dict[str, Counter] = {}
    for finding in counted:
        counts.setdefault(finding.domain, Counter())[finding.severity] += 1
    ordered_counts = {d: {s: counts[d][s] for s in SEVERITIES} for d in DOMAINS if d in counts}
    by_domain: dict[str, list[Finding]] = {}
    for finding in listed:
        by_domain.setdefault(finding.domain, []).append(finding)
    uncounted = [f for f in active if not f.counted]
    dependencies = sorted(report.dependency_matrix, key=lambda row: (CLASS_ORDER.index(row.classification), row.package))
    # packages with no accelerator code (documentation and build tools, pure-Python libraries) fold into one line
    folded = [row.package for row in dependencies if row.classification == "not_involved"]
    dependencies = [row for row in dependencies if row.classification != "not_involved"]
    effort_domains = {d: days for d, days in report.effort.by_domain.items() if days.high_days > 0}
    return ReportView(
        report=report,
        languages=languages,
        active=active,
        listed=listed,
        auto_groups=_groups([f for f in counted if _folded(f)], lambda f: (f.rule, f.path)),
        not_counted=_groups(uncounted, lambda f: (f.role, f.reach, f.rule)),
        not_counted_total=len(uncounted),
        suppressed=[f for f in report.findings if f.suppressed],
        counts=ordered_counts,
        by_domain=by_domain,
        files_with_findings=len({f.path for f in counted}),
        blockers=sum(f.severity == "blocker" for f in counted),
        dependencies=dependencies,
        folded_dependencies=folded,
        findings_chart=findings_chart(ordered_counts),
        effort_phase_chart=effort_chart(report.effort.by_phase),
        effort_domain_chart=effort_chart(effort_domains),
        row_limit=row_limit,
        step0=step0_items(report),
        top_drivers=top_cost_drivers(report),
        engineering=[f for f in listed if f.migration in {"manual", "unsupported"}],
        mechanical=mechanical_kinds(counted),
        changes=[f for f in listed if f.migration in {"auto", "rewrite"}],
    )


def mechanical_kinds(counted: list[Finding]) -> list[MechanicalKind]:
    """Counted sites a rewrite fixes (auto, rewrite), per rule, with how many are of a kind `port` rewrites (its
    eligibility check; its coupling checks may still leave a site, which its log lists: running its planner here would
    re-read the tree at render time, which reports must not do); most sites first."""
    from ascend_feasibility.analyzer.port.core import PortOptions, eligible  # port reads reports: imported when used

    options = PortOptions()
    sites: Counter = Counter()
    ported: Counter = Counter()
    names: dict[str, str] = {}
    for f in counted:
        if f.migration in {"auto", "rewrite"}:
            sites[f.rule] += 1
            names[f.rule] = f.name
            ported[f.rule] += eligible(f, options) is None
    return [MechanicalKind(rule, names[rule], count, ported[rule])
            for rule, count in sorted(sites.items(), key=lambda kv: (-kv[1], kv[0]))]


def step0_items(report: Report) -> list[EffortItem]:
    """Environment and entry points: the first step every port needs."""
    return [i for i in report.effort.items if i.step0 and i.bucket == "required"]


def top_cost_drivers(report: Report) -> list[EffortItem]:
    """The largest required items by high-end cost, Step 0's included: it can be most of a small port (whisper's 97 %)."""
    return sorted((i for i in report.effort.items if i.bucket == "required"),
                  key=lambda i: (-i.hours.high, i.item))[:TOP_DRIVERS]


def entry_files(step0: list[EffortItem]) -> list[str]:
    return [site for item in step0 if item.rule == "adoption:entry-points" for site in item.sites]


def _folded(finding: Finding) -> bool:
    """Informational sites transfer_to_npu rewrites: shown as counts, their sites stay in JSON/CSV/SARIF."""
    return finding.severity == "info" and finding.migration == "auto"


def _groups(findings: list[Finding], key) -> list[SiteGroup]:
    grouped: dict[tuple, list[Finding]] = {}
    for finding in sorted(findings, key=lambda f: (f.path, f.cell or 0, f.line)):
        grouped.setdefault(key(finding), []).append(finding)
    groups = [
        SiteGroup(rule=g[0].rule, name=g[0].name, path=g[0].path, role=g[0].role, reach=g[0].reach, count=len(g),
                  lines=[location(f) for f in g[:LISTED_SITES]] + ([f"… +{len(g) - LISTED_SITES}"] if len(g) > LISTED_SITES else []),
                  reason=g[0].reach_reason)
        for g in grouped.values()
    ]
    return sorted(groups, key=lambda g: (-g.count, g.rule, g.path))


def _finding_order(finding: Finding) -> tuple:
    return (severity_rank(finding.severity), finding.domain, finding.path, finding.cell or 0, finding.line, finding.column)


def location(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}"
    return where if finding.cell is None else f"{finding.path}:cell{finding.cell}:{finding.line}"
