"""Companion pins that cap torch (DEP012's companion-cap variant, the target choice's conflicts): each torchvision and
torchaudio release is built for one torch (knowledge/dependencies/packages.toml's torch_pairs), so an upper bound on
one of them holds torch at the torch its last admitted release is built for. demucs' `torchaudio>=0.8,<2.1` beside
`torch>=1.8.1` holds torch at 2.0.x, below the first torch_npu release (round 25 A2 77, verdicts V6)."""
from __future__ import annotations

from dataclasses import dataclass

from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.knowledge import KnowledgeBase
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

COMPANIONS = ("torchvision", "torchaudio")


@dataclass(frozen=True)
class CompanionCap:
    site: Declaration  # the companion's pin: torchaudio>=0.8,<2.1
    highest: str | None  # the newest torch a release it admits is built for ("2.0.1"); None: none the table pairs

    def holds(self) -> str:
        """`holds torch at 2.0.1 or older` / `holds torch below 2.0` for the message."""
        return f"holds torch at {self.highest} or older" if self.highest else "holds torch below every torch the " \
            "pairing table names"


def below(specifier: str, minimum: str) -> bool:
    """Does the declared specifier rule out every version from `minimum` on?"""
    try:
        spec, floor = SpecifierSet(specifier), Version(minimum)
    except (InvalidSpecifier, InvalidVersion):
        return False
    for item in spec:
        try:
            version = Version(item.version.replace(".*", ""))
        except InvalidVersion:
            continue
        if item.operator in {"==", "===", "~=", "<="} and version < floor:
            return True
        if item.operator == "<" and version <= floor:
            return True
    return False


def companion_caps(sites: list[Declaration], torch: str, kb: KnowledgeBase) -> list[CompanionCap]:
    """The companion pins among `sites` whose upper bound rules out the release built for `torch`. A release line the
    pairing table lacks (torchaudio's table stops at torch 2.6) is ruled out when the release of an older torch the
    table pairs already is: a newer torch gets a newer companion release."""
    try:
        wanted = Version(torch)
    except InvalidVersion:
        return []
    caps = []
    for site in sites:
        record = kb.package(site.name) if site.name in COMPANIONS else None
        if record is None or not record.torch_pairs or not site.specifier:
            continue
        pairs = sorted(((Version(t), release) for t, release in record.torch_pairs.items()), key=lambda p: p[0])
        if not any(t <= wanted and below(site.specifier, release) for t, release in pairs):
            continue
        admitted = [t for t, release in pairs if not below(site.specifier, release)]
        caps.append(CompanionCap(site, str(admitted[-1]) if admitted else None))
    return caps
