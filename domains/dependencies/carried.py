"""A package kept on Ascend whose one CUDA-only part is a choice the project makes at its call sites (Lightning's
accelerator: `Trainer(accelerator="gpu")`, DEV701): where a call-site rule the package's record names (carried_by)
found that work, the package's own finding (DEP001 at its import and its manifest line) counts it again. It stays,
at info, naming the sites that carry the work; where no call-site finding does (`accelerator=args.accelerator`), it
keeps its severity, as the one pointer to the work."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.findings import FindingFactory, Located
from ascend_feasibility.analyzer.core.models import Finding

CARRIED = "carried"


def fold_into_call_sites(findings: list[Finding], factory: FindingFactory,
                         upgrading: frozenset[tuple[str, int]] = frozenset()) -> list[Finding]:
    """`upgrading`: the path and line of declarations below the release the package's replacement starts in
    (project.upgrading_sites): their finding is the upgrade, which no call site carries, so it keeps its own."""
    carriers = {code for record in factory.kb.packages.values() for code in record.carried_by}
    if not carriers:
        return findings
    sites: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.rule in carriers and finding.counted:
            sites.setdefault(finding.rule, []).append(finding)
    if not sites:
        return findings
    code = next(r.code for r in factory.kb.rules.values() if r.match.detector == "package-needs-replacement")
    result = []
    for finding in findings:
        record = factory.kb.package(finding.symbol) if finding.rule == code and finding.counted else None
        carrying = [f for rule in (record.carried_by if record is not None else []) for f in sites.get(rule, [])]
        if carrying and (finding.path, finding.line) not in upgrading:
            finding = _carried(finding, carrying, factory)
        result.append(finding)
    return result


def _carried(finding: Finding, carrying: list[Finding], factory: FindingFactory) -> Finding:
    return refaceted(finding, named_sites(sorted({f"{f.rule} at {f.path}:{f.line}" for f in carrying})), CARRIED, factory)


def named_sites(named: list[str]) -> str:
    """The first four of `named`, and how many more."""
    return ", ".join(named[:4]) + (f" and {len(named) - 4} more" if len(named) > 4 else "")


def refaceted(finding: Finding, npu: str, facet: str, factory: FindingFactory) -> Finding:
    """The finding judged again with `facet` (its rule's variant) and `npu`, keeping its place, sites and identity."""
    rebuilt = factory.build_located(Located(
        finding.rule, finding.symbol, finding.path, finding.line, finding.column, finding.end_column, finding.snippet,
        finding.cell, npu, finding.end_line, facets=(facet,), role=finding.role, reach=finding.reach,
        reach_reason=finding.reach_reason), 0)
    return rebuilt.model_copy(update={"fingerprint": finding.fingerprint, "sites": finding.sites,
                                      "phases": finding.phases})
