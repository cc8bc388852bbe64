"""The report's Operator coverage section: the operators the project's calls reach, which run on the NPU at the
target, the fallbacks with their sites and the first release that registers each, and what the newest release
changes."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.models import Finding, OperatorCoverage, OperatorFallback
from ascend_feasibility.knowledge import KnowledgeBase, Target
from ascend_feasibility.knowledge.aten_coverage import load_coverage
from packaging.version import Version

RULES = frozenset({"OPS070", "OPS071", "OPS072"})
OUTCOME = {"fallback": "cpu-fallback", "error": "error"}


def build_section(reached: set[str], findings: list[Finding], kb: KnowledgeBase, target: Target) -> OperatorCoverage | None:
    """None when the project's Python reaches no operator the tables know."""
    if not reached:
        return None
    coverage = load_coverage()
    release = target.release
    newest = max(kb.releases, key=lambda r: (Version(r.torch), Version(r.torch_npu)))
    sites: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.rule in RULES and not finding.suppressed:
            sites.setdefault(finding.symbol.removeprefix("aten::"), []).append(finding)
    missing = sorted(o for o in reached if not coverage.runs(o, release.branch))
    fallbacks = []
    for overload in missing:
        calls = sites.get(overload, [])
        if not calls:
            continue  # reached only in code the findings dropped (a message, a suppressed line): nothing to list
        first = coverage.first_release(kb, overload, release)
        fallbacks.append(OperatorFallback(
            operator=f"aten::{overload}",
            outcome=OUTCOME[coverage.status(overload, release.branch)],
            sites=[f"{f.path}:{f.line}" for f in calls],
            counted_sites=sum(f.counted for f in calls),
            first_release=first.torch_npu if first is not None else None,
            first_branch=first.branch if first is not None else None,
        ))
    listed = {f.operator.removeprefix("aten::") for f in fallbacks}
    return OperatorCoverage(
        release=release.torch_npu,
        called=len(reached),
        on_npu=len(reached) - len(missing),
        fallbacks=fallbacks,
        newest_release=newest.torch_npu,
        fixed_by_newest=[f"aten::{o}" for o in sorted(listed) if coverage.runs(o, newest.branch)],
        lost_by_newest=[f"aten::{o}" for o in sorted(reached) if o not in missing and not coverage.runs(o, newest.branch)],
    )
