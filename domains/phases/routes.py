"""The routes to Ascend that exist for the analysed project or for what it builds on (knowledge/routes/routes.toml):
which applies, and for a project that is one of them, the estimate by that route beside porting its code."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import takewhile

from ascend_feasibility.analyzer.core.models import (
    COUNTED_ROLES,
    CustomOpRow,
    DaysRange,
    DependencyRow,
    Effort,
    Finding,
    RouteNote,
    Text,
)
from ascend_feasibility.domains.phases.estimate import bucket_of, step0_days, work_days
from ascend_feasibility.domains.phases.facts import PhaseFacts, module_name
from ascend_feasibility.knowledge import load_routes
from ascend_feasibility.knowledge.models import Route
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

MAX_BUILDS_ON = 6


def route_notes(facts: list[PhaseFacts], own_packages: frozenset[str], findings: list[Finding], work: Effort,
                kernels: list[CustomOpRow], role_of: Callable[[str], str], data: dict,
                dependencies: Iterable[DependencyRow] = ()) -> list[RouteNote]:
    """`dependencies`: the dependency matrix, whose declared pins say whether a route that starts at a release
    (first_releases) serves the version the project builds on."""
    routes = load_routes().route
    declared = {row.package.lower().replace("_", "-"): row.declared for row in dependencies if row.declared}
    own = set(own_packages) | _root_folders(facts, role_of)
    notes = [_is(route, findings, work, kernels, data) for route in routes if own & set(route.packages)]
    imported = {name for f in facts if role_of(f.path) in {*COUNTED_ROLES, "example"} for name in f.imports}
    optional = optional_packages(findings)
    mine = {n.id for n in notes}
    for route in routes:
        if route.id in mine or len(notes) >= len(mine) + MAX_BUILDS_ON:
            continue
        names = [name for m in route.modules for name in imported if name == m or name.startswith(m + ".")]
        # a package only opted into is named only where its route is full: "apex (partial route)" would read as work
        if names and (route.status == "supported" or any(_package_key(n.split(".", 1)[0]) not in optional for n in names)):
            pinned = _pinned_below(route, declared)
            note = _note(route, "builds-on")
            notes.append(note if pinned is None else note.model_copy(update={"status": "none", "pinned_below": pinned}))
    return notes


def _pinned_below(route: Route, declared: dict[str, str]) -> str | None:
    """`vllm==0.4.1` when the project's pins of a package the route starts at a release of (vllm-ascend from vLLM
    0.7.1) admit no release from that one on: LlamaGen's serve/ copies vLLM 0.4.1's internals, which no vllm-ascend
    release serves (round 23 verdicts V6)."""
    for package, first in route.first_releases.items():
        spec = declared.get(package.lower().replace("_", "-"))
        if spec and _only_below(spec, Version(first)):
            return f"{package}{spec}"
    return None


def _only_below(spec: str, first: Version) -> bool:
    """Whether every release `spec` admits is older than `first`: an exact pin or an upper bound below it."""
    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier:
        return False
    for item in specifiers:
        try:
            version = Version(item.version.removesuffix(".*"))
        except InvalidVersion:
            continue
        if item.operator in {"==", "==="} and version < first:
            return True
        if item.operator in {"<", "<="} and (version < first or (item.operator == "<" and version == first)):
            return True
        if item.operator == "~=" and Version(".".join(map(str, version.release[:-1] or version.release))) < first \
                and not specifiers.contains(first, prereleases=True):
            return True
    return False


def optional_packages(findings: list[Finding]) -> frozenset[str]:
    """Packages the dependency room reported in product or build code that the code uses (a finding at a name inside
    the package: `apex.amp.scale_loss`, DEP030; `flash_attn.flash_attn_func`) only where it does not run: called only
    in optional or other backends' code (a copied HF Trainer's apex and bitsandbytes arms). The project needs them
    only when a user opts in: no matrix row of their own. Imports alone decide nothing (Megatron's `try: import
    transformer_engine` serves its default `--transformer-impl`), nor do uses in examples. Keys as `_package_key`
    spells them."""
    reported, used, runs = set(), set(), set()
    for f in findings:
        if f.symbol and f.role in COUNTED_ROLES:
            root, _, inside = f.symbol.partition(".")
            key = _package_key(root)
            if f.domain == "dependencies":
                reported.add(key)
            if inside:
                used.add(key)
            if f.reach == "runs":  # any room's: llm-foundry's `flash_attn.losses.CrossEntropyLoss` (ATT005) runs
                runs.add(key)
    return frozenset((reported & used) - runs)


def required_packages(findings: list[Finding]) -> frozenset[str]:
    """The packages (keys as `_package_key` spells them) some required-bucket finding is at: its symbol's first name
    (`apex.optimizers.FusedAdam`, DEP001's `apex`, DEP052's `timm==0.3.2`)."""
    found = set()
    for f in findings:
        if f.symbol and bucket_of(f) == "required":
            name = "".join(takewhile(lambda char: char.isalnum() or char in "_-", f.symbol))
            if name:
                found.add(_package_key(name))
    return frozenset(found)


def _package_key(name: str) -> str:
    """flash-attn and flash_attn, Apex and apex: one key."""
    return name.lower().replace("-", "_")


def package_is_optional(package: str, optional: frozenset[str]) -> bool:
    return _package_key(package) in optional


def _root_folders(facts: list[PhaseFacts], role_of: Callable[[str], str]) -> set[str]:
    """Top folders of product Python code (a namespace package such as Megatron-LM's megatron/ has no __init__.py, so
    it is not among the own packages the context finds)."""
    roots = set()
    for f in facts:
        parts = f.path.split("/")
        if f.module and len(parts) > 1 and role_of(f.path) in COUNTED_ROLES:
            roots.add(parts[1] if parts[0] == "src" and len(parts) > 2 else parts[0])
    return roots


def route_reason(note: RouteNote, work: Effort, label: Text, data: dict) -> Text | None:
    """Why the verdict is what it is when the project runs on Ascend by its own route (DeepSpeed on its NPU
    accelerator): the route carries the main phase, and work only other phases need is estimated beside it. None
    for a route that does not run the project (partial, reference, none) or when no phase is the main one."""
    main = work.main_phase
    if note.relation != "is" or note.status != "supported" or main is None:
        return None
    phase = data["verdict"]["phases"].get(main, {"en": main, "zh": main})
    total = work.total
    en = (f"why {label.en.lower()}: {note.project} runs on Ascend by its own route (above), and the verdict is its "
          f"{phase['en']} phase's, the main phase ({total.low_days:g}–{total.high_days:g} person-days)")
    zh = (f"判定为{label.zh}的原因：{note.project} 可通过其自身路径（见上）在昇腾上运行，且判定依据其主要阶段"
          f"（{phase['zh']}，{total.low_days:g}–{total.high_days:g} 人天）")
    whole = work.whole
    if whole is not None and whole.high_days > total.high_days:
        low, high = round(max(whole.low_days - total.low_days, 0), 2), round(whole.high_days - total.high_days, 2)
        en += f"; {low:g}–{high:g} person-days that only other phases need are estimated beside it"
        zh += f"；仅其他阶段需要的 {low:g}–{high:g} 人天另行估算"
    return Text(en=en, zh=zh)


def builds_on_driver(notes: list[RouteNote], findings: list[Finding]) -> Text | None:
    """One line naming what the project builds on that has a route (or has none) on Ascend, among the routes of a
    package some required item (counted, runs: estimate.bucket_of) belongs to: a route of a package the project only
    opts into (Swin-Transformer's guarded apex) or uses with nothing to port (IC-Light's CLIP text encoder from
    transformers) drives no verdict (round 34 V1-6); the Routes section still lists it."""
    required = required_packages(findings)
    packages = {route.id: {_package_key(p) for p in route.packages} | {_package_key(m.split(".", 1)[0])
                                                                       for m in route.modules}
                for route in load_routes().route}
    others = [n for n in notes if n.relation == "builds-on" and not packages.get(n.id, set()).isdisjoint(required)]
    if not others:
        return None
    words = {"supported": ("route", "有路径"), "partial": ("partial route", "部分路径"),
             "reference": ("reference path", "参考实现路径"), "none": ("no route on Ascend", "昇腾上无可用路径")}
    en = "; ".join(f"{n.project} (no route for {n.pinned_below}: the route starts at a newer release)"
                   if n.pinned_below else f"{n.project} ({words[n.status][0]})" for n in others)
    zh = "；".join(f"{n.project}（{n.pinned_below} 无可用路径：该路径从更新的版本起才支持）"
                   if n.pinned_below else f"{n.project}（{words[n.status][1]}）" for n in others)
    return Text(en=f"builds on: {en} — see Routes", zh=f"依赖：{zh}——见“可用路径”")


def _note(route: Route, relation: str, estimate: DaysRange | None = None, outside: DaysRange | None = None) -> RouteNote:
    return RouteNote(id=route.id, project=route.project, relation=relation, status=route.status,
                     route=Text(en=route.route.en, zh=route.route.zh), note=Text(en=route.note.en, zh=route.note.zh),
                     source=route.source, releases=Text(en=route.releases.en, zh=route.releases.zh), estimate=estimate, outside=outside)


def _is(route: Route, findings: list[Finding], work: Effort, kernels: list[CustomOpRow], data: dict) -> RouteNote:
    """By the route: Step 0 and adopting the route once (spread by its confidence). When the route lists the modules it
    covers, the main phase's required work in the others is given apart (features the route leaves out)."""
    per_day = data["effort"]["hours_per_day"]
    spread = data["estimate"]["spread"][route.confidence]
    low0, high0 = step0_days(work)
    estimate = DaysRange(low_days=round(low0 + route.hours / spread / per_day, 2),
                         high_days=round(high0 + route.hours * spread / per_day, 2))
    outside = None
    if route.covers or route.status in {"partial", "reference"}:
        # a partial route (Liger-Kernel's Ascend backend) or a reference path leaves the code's remaining work to port:
        # all of it when the route does not list the modules it covers
        covered = set(route.covers)
        main = work.main_phase
        left = [f for f in findings if bucket_of(f) == "required" and (main is None or main in f.phases)
                and module_name(f.path) not in covered]
        outside = work_days(left, kernels, data)
    return _note(route, "is", estimate, outside)


def route_driver(note: RouteNote, work: Effort) -> Text:
    """The verdict's line naming the route, with its estimate beside porting the code itself."""
    est, total = note.estimate, work.total
    en = (f"route: {note.route.en} — by that route {est.low_days:g}–{est.high_days:g} person-days (Step 0 and adopting "
          f"it once), porting the code itself {total.low_days:g}–{total.high_days:g}")
    zh = (f"可用路径：{note.route.zh}——按该路径 {est.low_days:g}–{est.high_days:g} 人天（第 0 步与一次性采用），"
          f"直接移植代码 {total.low_days:g}–{total.high_days:g} 人天")
    if note.outside is not None and note.outside.high_days:
        low, high = f"{note.outside.low_days:g}", f"{note.outside.high_days:g}"
        if note.status == "supported":
            en += f"; the route does not cover {low}–{high} person-days of that work (modules it does not patch)"
            zh += f"；其中 {low}–{high} 人天的工作不在该路径覆盖范围（未打补丁的模块）"
        else:
            en += f"; the route leaves {low}–{high} person-days of that work to port (its kernels and features it lacks)"
            zh += f"；该路径仍留下 {low}–{high} 人天的工作需要移植（其缺少的算子与功能）"
    return Text(en=en, zh=zh)
