"""Code only an optional extra's users run: a call into a package, or a use of a routed library's feature, where the
project declares that package only in optional groups (pyproject optional-dependencies, setup.py extras_require, a
requirements-<extra>.txt). nerfstudio declares transformers, diffusers and accelerate only in its `gen` extra, and its
DeepFloyd loader's `load_in_8bit=True` (DEP032) runs only for the generfacto method of that extra (round 22 verdicts V1).
Such a finding stays, uncounted, as `optional`, naming the extra; a package the project also declares in its main
requirements, or does not declare at all, leaves it as it is."""

from __future__ import annotations

from collections import defaultdict

from ascend_feasibility.analyzer.core.findings import FindingFactory, Place
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.facts import ImportFact
from ascend_feasibility.domains.dependencies.project import ENVIRONMENT_SOURCES, declared_optional
from ascend_feasibility.knowledge import load_routes

FEATURE_RULES = ("route-gap", "package-call")
TORCH = "torch"  # the detectors of uses of a package's own features at a call site


def extra_only(declarations: list[Declaration]) -> dict[str, Declaration]:
    """Distribution -> its first declaration (a package manifest's extra before a requirements-<extra>.txt), for each
    one the manifests declare and only in optional groups."""
    by_name: dict[str, list[Declaration]] = defaultdict(list)
    for site in declarations:
        if site.source in ENVIRONMENT_SOURCES:
            by_name[site.name].append(site)
    return {name: min(sites, key=lambda s: (ENVIRONMENT_SOURCES.index(s.source), s.path, s.line))
            for name, sites in by_name.items()
            if all(declared_optional(s) is not None for s in sites)}


def fold_extra_features(findings: list[Finding], declarations: list[Declaration], imports: list[ImportFact],
                        factory: FindingFactory) -> list[Finding]:
    # a manifest whose main list does not declare torch (unsloth's pyproject: torch only in extras, its main list a
    # CLI's few packages) uses its extras as install variants, not opt-in features: its main list does not run it
    runs_torch = {site.path for site in declarations if site.name == TORCH and declared_optional(site) is None}
    extras = {name: site for name, site in extra_only(declarations).items() if site.path in runs_torch}
    if not extras:
        return findings
    kb = factory.kb
    detectors = {r.code: r.match.detector for r in kb.rules.values() if r.match.detector in FEATURE_RULES}
    routed = _feature_libraries(factory)
    imported: dict[str, set[str]] = defaultdict(set)
    for fact in imports:
        imported[fact.path].add(kb.distribution_of(fact.module))
    result = []
    for finding in findings:
        if finding.rule in detectors and finding.counted:
            # a call's package is its symbol's top module; a routed library's feature (DEP032's `load_in_8bit=True`,
            # spelled in a call into the library or one that loads it for the keyword) belongs to those the file imports
            owner = {kb.distribution_of(finding.symbol.split(".")[0])} if detectors[finding.rule] == "package-call" \
                else imported.get(finding.path, set()) & routed
            if owner and all(name in extras for name in owner):
                site = extras[sorted(owner)[0]]
                finding = factory.relocate(finding, Place(finding.role, "optional", _reason(site)))
        result.append(finding)
    return result


def _feature_libraries(factory: FindingFactory) -> frozenset[str]:
    """The distributions through which a project spells a feature a partial route lacks: the routed library's own
    (bitsandbytes), and the libraries that load it for the spelled keyword (its record's used_through_by:
    transformers, diffusers)."""
    kb = factory.kb
    found = set()
    for route in load_routes().route:
        if route.lacks:
            found |= {kb.distribution_of(m) for m in route.modules}
            for package in route.packages:
                record = kb.package(kb.distribution_of(package))
                found |= {kb.distribution_of(m) for m in (record.used_through_by if record is not None else [])}
    return frozenset(found)


def _reason(site: Declaration) -> str:
    group = site.group if site.group != "main" else site.path
    return f"{site.path}:{site.line}: {site.name} is declared only in the optional group {group!r}"
