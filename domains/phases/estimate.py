"""The effort estimate: findings become work items, each costed once with its arithmetic shown.

Items are one-time adoption steps (costed once per project), mechanical rewrites (one edit pass per file),
engineering items (per distinct API or call pattern), custom kernels (sized by their own code) and validations
(a kernel that already has an NPU path or a fallback). Findings fall into three buckets: required (product code
that runs on Ascend: the total and the verdict), optional (guarded or optional code, NPU paths, examples) and
tests. Every constant is in knowledge/phases/plan.toml."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ascend_feasibility.analyzer.context.project_scope import parse_site
from ascend_feasibility.analyzer.context.seeding import seeded_by_torch
from ascend_feasibility.analyzer.core.models import (
    COUNTED_ROLES,
    SEVERITIES,
    CustomOpRow,
    DaysRange,
    Effort,
    EffortHours,
    EffortItem,
    Finding,
    PhaseEntry,
    PortedSites,
    Text,
)
from ascend_feasibility.analyzer.reporting.localize import term

BUCKETS = ("required", "other-phases", "sub-project", "optional", "tests")
SHOWN_SITES = 10
MAIN_PHASES = ("training", "inference")  # the headline's phase: training when an entry point trains, else inference


def bucket_of(finding: Finding) -> str | None:
    """required: counted (product code that runs); optional: guarded, optional, NPU-path code and examples;
    tests: test code; None: suppressed, another backend's code, cosmetic sites, docs and CI. (Required work outside
    the main phase is split off by `estimate`.)"""
    if finding.suppressed or finding.reach in {"other-backend", "dead-at-target", "cosmetic"}:
        return None
    if finding.role == "test":
        return "tests"
    if finding.role == "example":
        return "optional"
    if finding.role not in COUNTED_ROLES:
        return None
    return "required" if finding.reach == "runs" else "optional"


def main_phase(entries: list[PhaseEntry], role_of: Callable[[str], str], launched: tuple[str, ...] = ()) -> str | None:
    """The headline's phase: that of the README's first runnable usage (`launched`: the files its runner commands
    launch, in document order; the first that is a product entry point of a main phase, training where it trains),
    else training when an entry point of the product trains, else inference. (Round 28: OmniGen's README runs its
    inference app while one train.py, documented elsewhere, made the whole headline training. Not the phase most
    entries have: unsloth, a fine-tuning library, has 18 inference probe scripts to 3 trainers.) A metric script (an
    inference entry that also evaluates: yolov7's test.py scoring a checkpoint on COCO, README.md:61) is no usage of
    its own: a training or inference entry launched after it leads, and only where none is does it lead as inference
    (round 39 V-1: yolov7's headline was inference although README.md:83-124 trains). None when no product entry has
    either: a library used through its examples (which modules an example uses is not known statically, diffusers
    loads its own lazily), whose headline is all its required work."""
    product = {entry.path: entry for entry in entries if role_of(entry.path) == "product"}
    metric_lead = None
    for path in launched:
        entry = product.get(path)
        lead = next((p for p in MAIN_PHASES if entry is not None and p in entry.phases), None)
        if lead == "inference" and "evaluation" in entry.phases:
            metric_lead = metric_lead or lead
        elif lead is not None:
            return lead
    if metric_lead is not None:
        return metric_lead
    phases = {p for entry in product.values() for p in entry.phases}
    return next((p for p in MAIN_PHASES if p in phases), None)


def centre(hours: EffortHours) -> float:
    """A knowledge-base range's central value: its geometric mean (the midpoint when the low end is 0)."""
    return math.sqrt(hours.low * hours.high) if hours.low > 0 else hours.high / 2


@dataclass
class _Group:
    key: tuple
    kind: str
    findings: list[Finding] = field(default_factory=list)


def estimate(findings: list[Finding], phases: list[str], entries: list[PhaseEntry], kernels: list[CustomOpRow],
             npu_code: list[str], role_of: Callable[[str], str], data: dict, nested: tuple[str, ...] = (),
             launched: tuple[str, ...] = (), lead: str | None = None) -> Effort:
    """`nested`: folders of nested projects on a torch line of their own (target.subprojects): their required work is
    priced apart, per folder, never in the total the verdict reads. `launched`: the files the README's runner commands
    launch, in order (main_phase); `lead`: a main phase already chosen (a report's, when its work is priced again)."""
    per_day = data["effort"]["hours_per_day"]
    est = data["estimate"]
    rows = {(row.path, row.line): row for row in kernels}
    by_bucket: dict[str, list[Finding]] = defaultdict(list)
    by_nested: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        bucket = bucket_of(f)
        folder = in_nested(f.path, nested) if bucket == "required" else None
        if folder is not None:
            by_nested[folder].append(f)
        elif bucket is not None:
            by_bucket[bucket].append(f)
    entry_files = _entry_files(entries, role_of)
    main = (lead or main_phase(entries, role_of, launched)) if phases else None
    all_required = by_bucket["required"]
    whole_groups = _groups(all_required, "required", rows, est)
    whole_items = _costed(whole_groups, "required", rows, entry_files, est)
    if main is not None and all_required and not any(main in f.phases for f in all_required):
        main = None  # the entry points reach none of the required work (imports made at run time): the whole counts
    if main is not None:
        in_main = [f for f in all_required if main in f.phases]
        required_items = _costed(_in_phase(whole_groups, in_main, main, est), "required", rows, entry_files, est)
        elsewhere = [f for f in all_required if main not in f.phases]
        # a step every project takes (the environment) is one required item whatever phase its sites are in: its
        # sites elsewhere made a second row of it (round 19 dino: required with 0 sites, and "other phases")
        other_groups = {k: g for k, g in _groups(elsewhere, "other-phases", rows, est).items() if not _always(g, est)}
        other_items = _costed(other_groups, "other-phases", rows, entry_files, est)
    else:
        required_items, other_items = whole_items, []
    items = list(required_items) + other_items
    nested_items = {folder: _costed(_groups(by_nested[folder], "sub-project", rows, est), "sub-project", rows,
                                    entry_files, est) for folder in nested}
    items += [item for folder in nested for item in nested_items[folder]]
    for bucket in BUCKETS[3:]:
        items += _costed(_groups(by_bucket[bucket], bucket, rows, est), bucket, rows, entry_files, est)
    total_high = sum(i.hours.high for i in required_items) or 1.0
    items = [i.model_copy(update={"share": round(i.hours.high / total_high, 3)}) if i.bucket == "required" else i
             for i in items]
    items.sort(key=lambda i: (BUCKETS.index(i.bucket), not i.step0, -i.hours.high, i.item))
    by_domain: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for item in items:
        if item.bucket == "required":
            by_domain[item.domain][0] += item.hours.low
            by_domain[item.domain][1] += item.hours.high
    by_phase = {}
    for phase in phases:
        in_phase = [f for f in all_required if phase in f.phases]
        if phase == main:
            phase_items = required_items
        elif len(in_phase) == len(all_required):  # the phase needs all the required work: items as above
            phase_items = whole_items
        else:
            phase_items = _costed(_in_phase(whole_groups, in_phase, phase, est), "required", rows, entry_files, est)
        by_phase[phase] = _days(phase_items, per_day)
    runs = [f for f in findings if not f.suppressed and f.role in COUNTED_ROLES and f.reach in {"runs", "npu-path"}
            and not seeded_by_torch(f.reach_reason)]  # torch's own seeding of every device: nothing ported, nothing to do
    ported = sum(1 for f in runs if f.reach == "npu-path")
    assumptions = [Text(en=a["en"].format(hours_per_day=f"{per_day:g}"), zh=a["zh"].format(hours_per_day=f"{per_day:g}"))
                   for a in est["assumptions"]]
    return Effort(
        hours_per_day=per_day,
        items=items,
        by_domain={d: _range(low, high, per_day) for d, (low, high) in sorted(by_domain.items())},
        by_phase=by_phase,
        total=_days(required_items, per_day),
        main_phase=main,
        whole=_days(whole_items, per_day) if main is not None else None,
        optional=_days([i for i in items if i.bucket == "optional"], per_day),
        tests=_days([i for i in items if i.bucket == "tests"], per_day),
        assumptions=assumptions,
        ported=PortedSites(npu_path=ported, total=len(runs)) if ported or npu_code else None,
        subprojects={folder: _days(nested_items[folder], per_day) for folder in nested},
    )


def in_nested(path: str, nested: tuple[str, ...]) -> str | None:
    """The nested project's folder a path lies in, or None."""
    return next((folder for folder in nested if path.startswith(folder + "/")), None)


def _groups(findings: list[Finding], bucket: str, rows: dict[tuple[str, int], CustomOpRow], est: dict) -> dict[tuple, _Group]:
    """The findings of a bucket by work item, in the order each item first appears."""
    adoption_of = {rule: a for a in est["adoption"] for rule in a["rules"]}
    auto_info = next((a for a in est["adoption"] if a.get("auto_info")), None)
    kernel_rules = set(est["kernel"]["rules"])
    groups: dict[tuple, _Group] = {}
    for f in findings:
        adoption = adoption_of.get(f.rule)
        if adoption is None and f.severity == "info" and f.migration == "auto" and f.effort_hours.high > 0:
            if bucket != "required" or auto_info is None:
                continue  # transfer_to_npu at the entry points rewrites it: no work of its own
            adoption = auto_info
        if adoption is None and f.effort_hours.high == 0:
            continue  # nothing to do at the site (a pin that runs as it is): no item
        row = rows.get((f.path, f.line)) if f.rule in kernel_rules else None
        if adoption is not None:
            key, kind = ("adoption", adoption["id"]), "adoption"
        elif row is not None:
            validation = f.reach in {"npu-path", "optional", "cuda-only-guarded"}
            key = ("kernel", f.rule, row.classification, validation)
            kind = "validation" if validation else "kernel"
        elif f.migration in {"auto", "rewrite"}:
            key, kind = ("mechanical", f.rule), "mechanical"
        else:
            key, kind = ("engineering", f.rule, f.replacement.en), "engineering"
        group = groups.get(key)
        if group is None:  # not setdefault: that built (and dropped) a _Group per finding
            group = groups[key] = _Group(key, kind)
        group.findings.append(f)
    if bucket == "required" and (findings or groups):
        _add_always(groups, est)
    return groups


def _add_always(groups: dict[tuple, _Group], est: dict) -> None:
    """The adoption steps every project with required work takes, whether or not a finding asks for them."""
    for adoption in est["adoption"]:
        if adoption.get("always"):
            groups.setdefault(("adoption", adoption["id"]), _Group(("adoption", adoption["id"]), "adoption"))


def _always(group: _Group, est: dict) -> bool:
    """An adoption step every project with required work takes (`always`): one item, never split by phase."""
    return group.kind == "adoption" and any(a["id"] == group.key[1] and a.get("always") for a in est["adoption"])


def _in_phase(groups: dict[tuple, _Group], in_phase: list[Finding], phase: str, est: dict) -> dict[tuple, _Group]:
    """What `_groups(in_phase, "required", ...)` gives, from the required groups already formed: each group's
    findings of the phase, the groups in the order their first finding of the phase comes (grouping the required
    findings again for every phase was most of the estimate's time on a tree with 100k findings)."""
    position = {id(f): i for i, f in enumerate(in_phase)}
    kept = []
    for group in groups.values():
        if _always(group, est):  # the project's own step: all its sites, whatever their phase (if it has work)
            if in_phase:
                kept.append((-1, _Group(group.key, group.kind, list(group.findings))))
            continue
        findings = [f for f in group.findings if phase in f.phases]
        if findings:
            kept.append((position[id(findings[0])], _Group(group.key, group.kind, findings)))
    result = {group.key: group for _, group in sorted(kept, key=lambda pair: pair[0])}
    if in_phase:
        _add_always(result, est)
    return result


def _costed(groups: dict[tuple, _Group], bucket: str, rows: dict[tuple[str, int], CustomOpRow], entry_files: list[str],
            est: dict) -> list[EffortItem]:
    """Each group costed as one work item."""
    items = []
    launched = _launched_together([row for g in groups.values() if g.kind == "kernel" for f in g.findings
                                   for row in _operator_rows(f, rows)], est)
    for group in groups.values():
        if group.kind == "adoption":
            adoption = next(a for a in est["adoption"] if a["id"] == group.key[1])
            items.append(_adoption_item(group.findings, adoption, entry_files, bucket, est))
        elif group.kind in {"kernel", "validation"}:
            items.append(_kernel_item(group.findings, [_operator_rows(f, rows) for f in group.findings],
                                      group.kind, bucket, est, launched))
        elif group.kind == "mechanical":
            items.append(_mechanical_item(group.findings, bucket, est))
        else:
            items.append(_engineering_item(group.findings, bucket, est))
    return items


# Item builders --------------------------------------------------------------------------------------------
def _adoption_item(group: list[Finding], adoption: dict, entry_files: list[str], bucket: str, est: dict) -> EffortItem:
    base = adoption["centre"]
    if "per_entry" in adoption:
        entries = min(len(entry_files), adoption["max_entries"])
        hours = base + adoption["per_entry"] * entries
        en = (f"once per project: {base:g} h + {adoption['per_entry']:g} h × {entries} entry files"
              f"{' (at most ' + str(adoption['max_entries']) + ')' if len(entry_files) > entries else ''} = {hours:g} h")
        zh = f"每个项目一次：{base:g} 小时 + {adoption['per_entry']:g} 小时 × {entries} 个入口文件 = {hours:g} 小时"
        sites = entry_files[:SHOWN_SITES] + ([f"... {len(entry_files) - SHOWN_SITES} more"] if len(entry_files) > SHOWN_SITES else [])
    else:
        moves = _stack_moves(group, adoption)
        base = base if bucket == "required" or not moves else 0.0
        hours = base + sum(h for _, h in moves)
        en = f"once per project, whatever the number of sites ({len(group)}): {base:g} h"
        zh = f"每个项目一次，与位置数（{len(group)}）无关：{base:g} 小时"
        if moves:
            en += "".join(f" + {h:.2f} h ({move['en']})" for move, h in moves) + f" = {hours:.2f} h"
            zh += "".join(f" + {h:.2f} 小时（{move['zh']}）" for move, h in moves) + f" = {hours:.2f} 小时"
        sites = _sites(group)
    return _item(
        name=adoption["title"]["en"], rule=f"adoption:{adoption['id']}", domain=adoption["domain"], group=group,
        migration="manual" if adoption["id"] not in {"environment", "entry-points"} else "rewrite",
        confidence=adoption["confidence"], hours=hours, kind="adoption", bucket=bucket, en=en, zh=zh, est=est,
        step0=bool(adoption.get("step0")), sites=sites, replacement=Text(**adoption["title"]),
        base=EffortHours(low=base, high=base),
    )


def _stack_moves(group: list[Finding], adoption: dict) -> list[tuple[dict, float]]:
    """The adoption's `grows` moves its findings show, each with the central hours of its largest finding (plan.toml:
    the environment item's torch re-pin and Python move, priced once inside it)."""
    moves = []
    for move in adoption.get("grows", []):
        severities = move["severity"] if isinstance(move["severity"], list) else [move["severity"]]
        shown = [f for f in group if f.rule in move["rules"] and f.severity in severities]
        if shown:
            moves.append((move, round(max(centre(f.effort_hours) for f in shown), 2)))
    return moves


def _mechanical_item(group: list[Finding], bucket: str, est: dict) -> EffortItem:
    files = len({f.path for f in group})
    hours, en, zh = _sublinear(group, est["mechanical"], "per_extra_file", files, _MECHANICAL_WORDS)
    return _item(name=_name(group[0]), rule=group[0].rule, domain=group[0].domain, group=group,
                 migration=group[0].migration, confidence=_weakest(group), hours=hours, kind="mechanical",
                 bucket=bucket, en=en, zh=zh, est=est, files=files, replacement=_replacements(group),
                 base=_base(group))


def _engineering_item(group: list[Finding], bucket: str, est: dict) -> EffortItem:
    patterns = len({f.symbol for f in group})
    hours, en, zh = _sublinear(group, est["engineering"], "per_extra_pattern", patterns, _ENGINEERING_WORDS)
    return _item(name=_name(group[0]), rule=group[0].rule, domain=group[0].domain, group=group,
                 migration=_hardest(group), confidence=_weakest(group), hours=hours, kind="engineering",
                 bucket=bucket, en=en, zh=zh, est=est, files=len({f.path for f in group}), patterns=patterns,
                 replacement=Text(en=group[0].replacement.en, zh=group[0].replacement.zh), base=_base(group))


# (how it grows, what a unit is, what the further sites are) in each language
_MECHANICAL_WORDS = {"en": ("one edit pass per file", "files", "further sites"),
                     "zh": ("每个文件一次修改", "个文件", "处其余位置")}
_ENGINEERING_WORDS = {"en": ("per API or call pattern", "patterns", "further call sites"),
                      "zh": ("按接口或调用模式计", "种模式", "处其余调用")}


def _sublinear(group: list[Finding], data: dict, unit_key: str, units: int, words: dict) -> tuple[float, str, str]:
    """Hours that grow sub-linearly: base × min(cap, 1 + per unit × (units − 1) + per site × (sites − units)),
    with the arithmetic in both languages."""
    base = max(centre(f.effort_hours) for f in group)
    sites = len(group)
    raw = 1 + data[unit_key] * (units - 1) + data["per_extra_site"] * (sites - units)
    factor = min(data["cap"], raw)
    hours = base * factor
    texts = []
    for lang, hour in (("en", "h"), ("zh", "小时")):
        how, unit, further = words[lang]
        capped = (" (capped)" if lang == "en" else "（已封顶）") if raw > data["cap"] else ""
        sep = ": " if lang == "en" else "："
        texts.append(f"{how}{sep}{base:.2f} {hour} × min({data['cap']:g}, 1 + {data[unit_key]:g} × ({units} − 1 {unit}) "
                     f"+ {data['per_extra_site']:g} × ({sites} − {units} {further})) = {base:.2f} × {factor:.2f}{capped} "
                     f"= {hours:.2f} {hour}")
    return hours, texts[0], texts[1]


def kernel_hours(row: CustomOpRow, est: dict) -> tuple[float, str, str]:
    """One kernel's central hours and how, in English and Chinese: tier centre + per-line × lines + its hard features;
    a trivial class (a PyTorch composition) at the low tier without feature hours."""
    data = est["kernel"]
    trivial = row.classification in data["trivial_classes"]
    tier = "low" if trivial else row.effort_tier
    if row.kind == "triton" and row.replacement_path == "triton-ascend" and _TIERS.index(tier) > _TIERS.index(data["triton_max_tier"]):
        tier = data["triton_max_tier"]
    features = [] if trivial else [f for f in row.features if f in data["features"]]
    hours = data["tier_centre"][tier] + data["per_line"][tier] * row.lines_of_code + sum(data["features"][f] for f in features)
    sum_of = f"{data['tier_centre'][tier]:g} + {data['per_line'][tier]:g} × {row.lines_of_code}"
    en = f"{sum_of} lines" + "".join(f" + {data['features'][f]:g} ({f})" for f in features)
    en += " (trivial class)" if trivial else f" ({tier} tier)"
    zh = f"{sum_of} 行" + "".join(f" + {data['features'][f]:g}（{term('zh', f)}）" for f in features)
    zh += "（简单类别）" if trivial else f"（{_TIER_ZH[tier]}档）"
    return hours, en, zh


_TIER_ZH = {"low": "低", "medium": "中", "high": "高"}


def _kernel_item(group: list[Finding], operators: list[list[CustomOpRow]], kind: str, bucket: str, est: dict,
                 launched: dict[tuple[str, int], tuple[str, str]] | None = None) -> EffortItem:
    """`operators`: each finding's kernels (_operator_rows), one operator."""
    data = est["kernel"]
    rows = [row for kernels in operators for row in kernels]
    if kind == "validation":
        here = {f"{row.path}:{row.line}" for row in rows}
        distinct = sum(1 for row in rows if row.same_code_as not in here)  # a copy is validated with its original
        hours = data["validation"] * distinct
        en = f"validation only (an NPU path or fallback exists): {data['validation']:g} h × {distinct} kernels = {hours:g} h"
        zh = f"只需验证（已有 NPU 路径或回退实现）：{data['validation']:g} 小时 × {distinct} 个算子 = {hours:g} 小时"
        if distinct < len(rows):
            en += f" ({len(rows) - distinct} copies of the same code counted once)"
            zh += f"（{len(rows) - distinct} 个代码相同的副本只计一次）"
    else:
        sized = _once_per_copy(rows, _once_per_operator(rows, [kernel_hours(row, est) for row in rows], data))
        sized = _once_per_finding(operators, _once_per_launcher(rows, sized, launched or {}))
        hours = sum(h for h, _, _ in sized)
        shown = list(zip(rows, sized))[:6]
        parts_en = "; ".join(f"{row.kernel}: {how} = {h:.1f} h" for row, (h, how, _) in shown)
        parts_zh = "；".join(f"{row.kernel}：{how} = {h:.1f} 小时" for row, (h, _, how) in shown)
        more_en = f"; … {len(rows) - 6} more" if len(rows) > 6 else ""
        more_zh = f"；… 另 {len(rows) - 6} 个" if len(rows) > 6 else ""
        en = f"sum over {len(rows)} kernels, each tier + per-line × lines + hard features: {parts_en}{more_en}; total {hours:.1f} h"
        zh = f"{len(rows)} 个算子逐个相加（档位 + 每行 × 行数 + 难点特性）：{parts_zh}{more_zh}；合计 {hours:.1f} 小时"
    first = group[0]
    name = f"{first.rule} {first.name} [{rows[0].classification}]"
    return _item(name=name, rule=first.rule, domain=first.domain, group=group, migration=_hardest(group),
                 confidence=_weakest(group), hours=hours, kind=kind, bucket=bucket, en=en, zh=zh, est=est,
                 files=len({f.path for f in group}), patterns=len(rows),
                 replacement=Text(en=rows[0].replacement.en, zh=rows[0].replacement.zh), base=_base(group))


def _operator_rows(finding: Finding, rows: dict[tuple[str, int], CustomOpRow]) -> list[CustomOpRow]:
    """The inventory rows a kernel finding stands for: its own and those of the other kernels of its operator listed
    as its sites (custom_ops/operators.py); a site whose row copies other code is a copy, priced with its original."""
    own = rows[(finding.path, finding.line)]
    result = [own]
    for site in finding.sites:
        place = parse_site(site)
        row = rows.get(place[:2]) if place is not None else None
        if row is not None and row.same_code_as is None and all(row is not kept for kept in result):
            result.append(row)
    return result


def _once_per_operator(rows: list[CustomOpRow], sized: list[tuple[float, str, str]], data: dict) -> list[tuple[float, str, str]]:
    """Kernels of a one-operator class in one folder (mmpretrain's 7 DCNv3 im2col/col2im kernels) cost the largest
    of them once; the others are listed at 0 h."""
    classes = set(data.get("one_operator_classes", []))
    largest: dict[tuple[str, str], int] = {}
    for index, (row, (hours, _, _)) in enumerate(zip(rows, sized)):
        if row.classification in classes:
            key = (row.classification, row.path.rpartition("/")[0])
            if key not in largest or hours > sized[largest[key]][0]:
                largest[key] = index
    if not largest:
        return sized
    result = []
    for index, (row, entry) in enumerate(zip(rows, sized)):
        key = (row.classification, row.path.rpartition("/")[0])
        if key in largest and largest[key] != index:
            kept = rows[largest[key]].kernel
            entry = (0.0, f"the same operator as {kept}, counted once", f"与 {kept} 是同一个算子，只计一次")
        result.append(entry)
    return result


def _once_per_finding(operators: list[list[CustomOpRow]], sized: list[tuple[float, str, str]]) -> list[tuple[float, str, str]]:
    """The kernels one finding lists are one operator (custom_ops/operators.py folded them: metaseq's masked softmax
    forward and backward of one extension): the largest still priced carries the hours, the others 0 h."""
    result, start = list(sized), 0
    for kernels in operators:
        span = range(start, start + len(kernels))
        start += len(kernels)
        priced = [i for i in span if result[i][0] > 0]
        if len(priced) < 2:
            continue
        kept = max(priced, key=lambda i: result[i][0])
        name = kernels[kept - span.start].kernel
        for i in priced:
            if i != kept:
                result[i] = (0.0, f"one operator with {name} (its finding lists both), counted at {name}",
                             f"与 {name} 是同一个算子（同一条发现列出二者），计入 {name}")
    return result


def _launched_together(rows: list[CustomOpRow], est: dict) -> dict[tuple[str, int], tuple[str, str]]:
    """Native kernels one host function of one file launches (a backward split into kernel_backward_101..201, a
    float-to-bf16 cast helper beside the kernel it serves) are one operator to replace: each but the largest maps to
    (host function, the largest kernel), which carries the hours."""
    by_host: dict[tuple[str, str], list[CustomOpRow]] = defaultdict(list)
    for row in rows:
        if row.kind in {"cuda", "cpp"} and len(row.callers) == 1 and ":" not in row.callers[0]:
            by_host[(row.path, row.callers[0])].append(row)
    shared = {}
    for (_, host), kernels in by_host.items():
        distinct = {(row.path, row.line): row for row in kernels}
        if len(distinct) < 2:
            continue
        largest = max(distinct.values(), key=lambda row: (kernel_hours(row, est)[0], -row.line))
        shared.update({key: (host, largest.kernel) for key, row in distinct.items() if row is not largest})
    return shared


def _once_per_launcher(rows: list[CustomOpRow], sized: list[tuple[float, str, str]],
                       launched: dict[tuple[str, int], tuple[str, str]]) -> list[tuple[float, str, str]]:
    result = []
    for row, entry in zip(rows, sized):
        shared = launched.get((row.path, row.line))
        if shared is not None:
            host, kept = shared
            entry = (0.0, f"launched by {host}() with {kept}: one operator, counted at {kept}",
                     f"与 {kept} 由同一个主机函数 {host}() 启动：同一个算子，计入 {kept}")
        result.append(entry)
    return result


def _once_per_copy(rows: list[CustomOpRow], sized: list[tuple[float, str, str]]) -> list[tuple[float, str, str]]:
    """A kernel whose code another file of the item holds too (AutoGPTQ's cuda_64 and cuda_256 extensions compile the
    same 11 kernels) is ported once: the copies are listed at 0 h."""
    here = {f"{row.path}:{row.line}" for row in rows}
    return [(0.0, f"the same code as {row.same_code_as}, counted once", f"与 {row.same_code_as} 代码相同，只计一次")
            if row.same_code_as in here else entry for row, entry in zip(rows, sized)]


def _item(*, name: str, rule: str, domain: str, group: list[Finding], migration: str, confidence: str, hours: float,
          kind: str, bucket: str, en: str, zh: str, est: dict, base: EffortHours, files: int = 0, patterns: int = 0,
          step0: bool = False, sites: list[str] | None = None, replacement: Text | None = None) -> EffortItem:
    spread = est["spread"][confidence]
    low, high = hours / spread, hours * spread
    en += f"; range ÷/× {spread:g} ({confidence} confidence) = {low:.2f}–{high:.2f} h"
    zh += f"；区间 ÷/× {spread:g}（置信度{_CONFIDENCE_ZH[confidence]}）= {low:.2f}–{high:.2f} 小时"
    return EffortItem(
        item=name, rule=rule, domain=domain, count=len(group), migration=migration, confidence=confidence,
        base_hours=base, scaling=en, confidence_factor=spread,
        hours=EffortHours(low=round(low, 2), high=round(high, 2)), kind=kind, bucket=bucket, step0=step0,
        files=files or len({f.path for f in group}), patterns=patterns, centre_hours=round(hours, 2),
        arithmetic=Text(en=en, zh=zh), replacement=replacement, sites=sites if sites is not None else _sites(group),
        severity=min({f.severity for f in group}, key=SEVERITIES.index) if group else "medium",
    )


_TIERS = ("low", "medium", "high")
_CONFIDENCE_ZH = {"high": "高", "medium": "中", "low": "低"}


def _name(f: Finding) -> str:
    return f"{f.rule} {f.name}"


def _base(group: list[Finding]) -> EffortHours:
    return EffortHours(low=max(f.effort_hours.low for f in group), high=max(f.effort_hours.high for f in group))


def _weakest(group: list[Finding]) -> str:
    order = ("high", "medium", "low")
    return max({f.confidence for f in group}, key=order.index)


def _hardest(group: list[Finding]) -> str:
    order = ("auto", "rewrite", "manual", "unsupported")
    return max({f.migration for f in group}, key=order.index)


def _replacements(group: list[Finding]) -> Text:
    """The distinct replacements of a mechanical item (up to three)."""
    seen: dict[str, Text] = {}
    for f in sorted(group, key=lambda f: SEVERITIES.index(f.severity)):
        if f.replacement.en not in seen:  # the first of each, in severity order
            seen[f.replacement.en] = Text(en=f.replacement.en, zh=f.replacement.zh)
    chosen = list(seen.values())[:3]
    more = len(seen) - len(chosen)
    tail_en, tail_zh = (f"; … {more} more", f"；… 另 {more} 种") if more else ("", "")
    return Text(en="; ".join(t.en for t in chosen) + tail_en, zh="；".join(t.zh for t in chosen) + tail_zh)


def _sites(group: list[Finding]) -> list[str]:
    shown = [f"{f.path}:{f.line}" + (f" (cell {f.cell})" if f.cell else "") for f in group[:SHOWN_SITES]]
    extra = sum(len(f.sites) for f in group)  # project-level findings stand for several sites
    listed = [s for f in group for s in f.sites][: max(0, SHOWN_SITES - len(shown))]
    rest = len(group) + extra - len(shown) - len(listed)
    return shown + listed + ([f"... {rest} more"] if rest > 0 else [])


def _entry_files(entries: list[PhaseEntry], role_of: Callable[[str], str]) -> list[str]:
    """The entry files a port starts at: phase entries in product code."""
    return [entry.path for entry in entries if role_of(entry.path) == "product"]


def _days(items: list[EffortItem], per_day: float) -> DaysRange:
    return _range(sum(i.hours.low for i in items), sum(i.hours.high for i in items), per_day)


def _range(low: float, high: float, per_day: float) -> DaysRange:
    return DaysRange(low_days=round(low / per_day, 2), high_days=round(high / per_day, 2))


def work_days(findings: list[Finding], kernels: list[CustomOpRow], data: dict) -> DaysRange:
    """What the required findings given cost as work items, one-time adoption items left out (the work of modules
    a route does not cover)."""
    est = data["estimate"]
    rows = {(row.path, row.line): row for row in kernels}
    groups = {k: g for k, g in _groups(findings, "other-phases", rows, est).items() if g.kind != "adoption"}
    return _days(_costed(groups, "other-phases", rows, [], est), data["effort"]["hours_per_day"])


def step0_days(work: Effort) -> tuple[float, float]:
    """Step 0 (environment, entry points) of the required work, in days."""
    step0 = [i for i in work.items if i.bucket == "required" and i.step0]
    return sum(i.hours.low for i in step0) / work.hours_per_day, sum(i.hours.high for i in step0) / work.hours_per_day
