"""mmcv.ops, operator by operator (round 40 verdicts V-5).

mmcv's NPU build (FORCE_NPU=1) carries Ascend kernels for some of its operators only: its ops table
(docs/en/understand_mmcv/ops.md, generated into knowledge/dependencies/mmcv_ops.toml per line) ticks NMS, NMSRotated,
BoxIouRotated, RoIAlign, RoIPool, DeformConv2d among others, and not ConvexIoU, MinAreaPolygon, DiffIoURotated or
PrRoIPool. Each name the product imports from mmcv.ops (`from mmcv.ops import nms_rotated, convex_iou`) is its own
item, judged on the mmcv line the project runs: a validation of the op where that line ticks it, an operator without
an NPU kernel where it does not (a kernel to write or a CPU fallback, priced as the other no-kernel operators).

The line is 1.x where the package's `__init__` caps mmcv at or below 2.0.0 (mmcv_caps.py), or a requirement is
`mmcv-full` or admits only mmcv 1.x; else 2.x. mmcv 1.x's last release (v1.7.2) was built for torch up to 1.13: a
project on that line whose ops run needs an mmcv-full source build from the 1.x branch with FORCE_NPU=1 against the
target torch, priced once at the cap (or the requirement) that holds it there."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from ascend_feasibility.analyzer.core.findings import Place
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.facts import ImportFact
from ascend_feasibility.domains.dependencies.mmcv_caps import MmcvCap
from ascend_feasibility.knowledge import load_mmcv_ops
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

OP_DETECTOR = "mmcv-op"
BUILD_DETECTOR = "mmcv-old-line-build"
NPU_KERNEL = "npu-kernel"  # the facet of an op the line's Ascend column ticks
LAST_OLD_LINE = Version("2.0.0")  # a cap at or below it keeps the project on 1.x (mmtrack: `< MMCV_MAX = '2.0.0'`)
# releases of each line a requirement's specifier is tried against
ONE_X = tuple(Version(v) for v in ("1.3.9", "1.5.0", "1.6.0", "1.7.2"))
TWO_X = tuple(Version(v) for v in ("2.0.0rc4", "2.0.1", "2.1.0", "2.2.0"))


@dataclass(frozen=True)
class MmcvLine:
    line: str  # "1.x" or "2.x"
    evidence: str  # what says so, file:line and text
    path: str = ""  # the cap or requirement that holds the project on 1.x
    at: int = 0
    text: str = ""


def mmcv_line(declarations: list[Declaration], caps: list[MmcvCap],
              development: Callable[[Declaration], bool]) -> MmcvLine:
    """The mmcv line the project runs on: a cap of its package's `__init__` first, then its requirements (a
    development file's, a docs build's, says nothing)."""
    for cap in sorted(caps, key=lambda c: (c.path, c.line)):
        try:
            capped = Version(cap.version) <= LAST_OLD_LINE
        except InvalidVersion:
            continue
        if capped:
            return MmcvLine("1.x", f"{cap.path}:{cap.line} `{cap.text}`", cap.path, cap.line, cap.text)
    for site in sorted(declarations, key=lambda d: (d.path, d.line)):
        if site.name in ("mmcv", "mmcv-full") and not development(site) and _old_line(site):
            return MmcvLine("1.x", f"{site.path}:{site.line} `{site.text}`", site.path, site.line, site.text)
    return MmcvLine("2.x", "no cap or requirement holds mmcv below 2.0")


def _old_line(site: Declaration) -> bool:
    if site.name == "mmcv-full":  # the 1.x name of the package with ops; 2.x names it mmcv
        return True
    try:
        admitted = SpecifierSet(site.specifier or "")
    except InvalidSpecifier:
        return False
    return bool(site.specifier) and any(admitted.contains(v, prereleases=True) for v in ONE_X) \
        and not any(admitted.contains(v, prereleases=True) for v in TWO_X)


def emit_op_items(emit, uses: list[tuple[str, ImportFact]], line: MmcvLine, torch: str,
                  required_site: Callable[[list[ImportFact]], ImportFact | None],
                  optional_use: Callable[[list[ImportFact]], Place | None]) -> None:
    """One item per mmcv.ops name the project imports, and the old-line build where a 1.x project's ops run.
    `required_site` gives the import that runs plainly in product code, `optional_use` the place of one that does
    not (domains/dependencies/project.py)."""
    table = {name: op for op in load_mmcv_ops().op for name in op.names}
    by_name: dict[str, list[ImportFact]] = defaultdict(list)
    for name, fact in uses:
        if name in table and fact not in by_name[name]:
            by_name[name].append(fact)
    any_required = False
    for name, facts in sorted(by_name.items()):
        facts.sort(key=lambda f: (f.path, f.line))
        op = table[name]
        required = required_site(facts)
        any_required = any_required or required is not None
        kernel = op.npu.get(line.line, False)
        reference = next((r for r in op.references if f"v{line.line[0]}." in r), op.references[0])
        npu = (f"{op.row} on mmcv {line.line} ({line.evidence}): "
               f"{'an Ascend kernel' if kernel else 'no Ascend kernel'} ({reference})")
        emit.import_site(OP_DETECTOR, f"mmcv.ops.{name}", required or facts[0], npu=npu,
                         place=None if required else optional_use(facts), facets=(NPU_KERNEL,) if kernel else (),
                         sites=[f"{f.path}:{f.line}" for f in facts] if len(facts) > 1 else None)
    if line.line == "1.x" and any_required:
        emit.line(BUILD_DETECTOR, "mmcv-full", line.path, line.at, line.text,
                  npu=f"{line.evidence} holds mmcv on 1.x; torch {torch}")
