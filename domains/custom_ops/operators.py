"""The kernels of one operator as one finding. An extension's operator is often several kernels: InternImage's DCNv3
is one im2col forward and six col2im backward variants (dcnv3_col2im_cuda picks one by block size), a backward split
into kernel_backward_101..201 is launched by one host function. The port replaces the operator once, so the report
lists it once: the first kernel's finding, the others as its sites. The estimate prices the kernels one finding lists
as one operator (domains/phases/estimate.py, _once_per_finding), so the list and the estimate agree."""

from __future__ import annotations

from collections import defaultdict

from ascend_feasibility.analyzer.context.project_scope import MAX_SITES
from ascend_feasibility.analyzer.core.models import CustomOpRow, Finding, Text, severity_rank
from ascend_feasibility.domains.custom_ops.routed_kernels import KERNEL_RULES  # native kernels; Triton's port one by one


def operator_keys(rows: list[CustomOpRow], one_operator_classes: frozenset[str],
                  extensions: dict[str, set[str]] | None = None,
                  extension_classes: frozenset[str] = frozenset()) -> dict[tuple[str, int], tuple]:
    """Each native kernel's operator: kernels of a one-operator class in one folder, of an extension-operator class
    in the one extension compiling their files (`extensions`: path → the extensions compiling it, where known), or
    launched by the one host function of one file that launches them, share a key (a kernel that meets two joins
    them)."""
    parent: dict[tuple, tuple] = {}

    def find(key: tuple) -> tuple:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    links: dict[tuple[str, int], list[tuple]] = {}
    for row in rows:
        if row.kind not in {"cuda", "cpp"}:
            continue
        keys = [("kernel", row.path, row.line)]
        if row.classification in one_operator_classes:
            keys.append(("class", row.classification, row.path.rpartition("/")[0]))
        if len(row.callers) == 1 and ":" not in row.callers[0]:  # a host function of its own file, nothing else
            keys.append(("host", row.path, row.callers[0]))
        compiling = (extensions or {}).get(row.path, set())
        if row.classification in extension_classes and len(compiling) == 1:
            keys.append(("extension", next(iter(compiling)), row.classification))
        for key in keys[1:]:
            parent[find(key)] = find(keys[0])
        links[(row.path, row.line)] = keys
    return {place: find(keys[0]) for place, keys in links.items()}


def fold_operator_kernels(findings: list[Finding], rows: list[CustomOpRow], one_operator_classes: frozenset[str],
                          extensions: dict[str, set[str]] | None = None,
                          extension_classes: frozenset[str] = frozenset()) -> list[Finding]:
    """One finding per operator: kernel findings alike in where they count (reach, role) whose kernels are one
    operator fold into the worst of them (a blocker OPS002 kernel over the OPS001 ones of its launcher, the first
    among equals), the others' places (and the byte-identical copies already listed as their sites) becoming its
    sites. OpenPCDet's roiaware_pool3d_launcher launches an OPS001 mask kernel and OPS002 collect/pool kernels: one
    operator to replace (round 36 B1 class 2)."""
    keys = operator_keys(rows, one_operator_classes, extensions, extension_classes)
    groups: dict[tuple, list[Finding]] = defaultdict(list)
    for finding in findings:
        key = keys.get((finding.path, finding.line))
        if finding.rule not in KERNEL_RULES or key is None or finding.suppressed:
            continue
        groups[(key, finding.reach, finding.reach_reason, finding.role)].append(finding)
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    names = {(row.path, row.line): row.kernel for row in rows}
    for group in groups.values():
        if len(group) < 2:
            continue
        first = min(group, key=lambda f: severity_rank(f.severity))  # the first of the worst: min is stable
        others = [f for f in group if f is not first]
        own = _sites_of(first)
        kernels = [f"{f.path}:{f.line}" for f in others]
        copies = [site for f in others for site in _sites_of(f)[1:]]  # each kernel's byte-identical copies
        sites = [own[0], *kernels, *own[1:], *copies]
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        named = ", ".join(names.get((f.path, f.line), f.symbol) for f in others)
        message = Text(
            en=f"{first.message.en} One operator with {len(others)} more "
               f"{'kernel' if len(others) == 1 else 'kernels'} of the extension ({named}; listed as sites): "
               "replaced once.",
            zh=f"{first.message.zh} 与该扩展的另外 {len(others)} 个内核（{named}；已列为位置）是同一个算子，只需替换一次。",
        )
        kept[id(first)] = first.model_copy(update={"sites": sites, "message": message})
        dropped.update(id(f) for f in others)
    if not kept:
        return findings
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]


def _sites_of(finding: Finding) -> list[str]:
    here = f"{finding.path}:{finding.line}" + (f" (cell {finding.cell})" if finding.cell else "")
    return [here, *(site for site in finding.sites if site != here)] if finding.sites else [here]
