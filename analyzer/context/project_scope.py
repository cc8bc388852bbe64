"""One-time steps (adopting DeepSpeed's NPU accelerator, MindSpeed for Megatron, a DeepSpeed config review):
one finding per project that lists its sites, not one per call site or config file; one edit of a file (deleting
the nvidia-* lines of a pip freeze): one finding per file."""

from __future__ import annotations

from collections import defaultdict

from ascend_feasibility.analyzer.core.models import Finding

MAX_SITES = 100


def drop_without_cause(findings: list[Finding], needs: dict[str, frozenset[str]]) -> list[Finding]:
    """A rule's findings go when the project has none of the findings it needs (DST013, the FSDP2 mesh reminder,
    where no DeviceMesh is built on "cuda": the default mesh of fully_shard follows the accelerator)."""
    present = {f.rule for f in findings if not f.suppressed}
    missing = {rule for rule, wanted in needs.items() if wanted and not present & wanted}
    return [f for f in findings if f.rule not in missing] if missing else findings


def collapse_project_scoped(findings: list[Finding], project_rules: set[str],
                            file_rules: frozenset[str] = frozenset()) -> list[Finding]:
    """`findings` in report order; each project-scoped rule keeps one finding (the first site that counts, else the
    first site) carrying every site of the rule; each file-scoped rule one such finding per file."""
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.suppressed:
            continue
        if finding.rule in project_rules:
            groups[(finding.rule, "")].append(finding)
        elif finding.rule in file_rules:
            groups[(finding.rule, finding.path)].append(finding)
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        first = next((f for f in group if f.counted), group[0])
        sites = [_site(f) for f in group]
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        kept[id(first)] = first.model_copy(update={"sites": sites})
        dropped.update(id(f) for f in group if f is not first)
    if not kept:
        return findings
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]


def _site(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}" + (f" (cell {finding.cell})" if finding.cell else "")
