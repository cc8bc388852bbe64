"""Which release of a package governs a file, and whether that release routes a choice to the NPU by itself
(transformers' attn_implementation="flash_attention_2" → npu_fusion_attention from 4.51.0, packages.toml npu_routes).

The requirement that governs a file is its own install line where it has one (a notebook's `!pip install` cell, a
script's `pip install`), else the project's manifests (main group), else its install documents (a README's pip line).
A git URL of the package without a version tag installs its main branch: the newest release. A requirement is known
to route only where every line that governs the file admits no release older than the route's first one."""

from __future__ import annotations

import re

from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.facts import DOC_SOURCE
from ascend_feasibility.knowledge.models import NpuRoute
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

FLOOR_OPERATORS = (">=", "==", "~=", ">", "===")
DEFAULT_BRANCHES = ("main", "master")
NOTEBOOK = ".ipynb"
_TAG = re.compile(r"@v?(\d+(?:\.\d+)+)$")  # git+https://github.com/huggingface/transformers@v4.49.0


def governing(declarations: list[Declaration], package: str, path: str) -> list[Declaration]:
    """The lines of `package` that decide the release `path` runs with (see the module's docstring)."""
    lines = [d for d in declarations if d.name == package and d.arm != "other"]
    own = [d for d in lines if d.path == path]
    if own:
        return own
    # a notebook's own install cell is that notebook's setup, not the project's
    manifests = [d for d in lines if d.source != DOC_SOURCE and d.group == "main" and not d.path.endswith(NOTEBOOK)]
    return manifests or [d for d in lines if d.source == DOC_SOURCE]


def routes(declarations: list[Declaration], route: NpuRoute) -> bool:
    """Does every line install a release that routes the choice? False where there is none, or one is unknown."""
    return bool(declarations) and all(_admits_only(d, route.since, route.excluded) for d in declarations)


def admit_only_from(declarations: list[Declaration], since: str) -> bool:
    """Does every line admit only releases from `since` on (`torch>=2.6`, `torch==2.7.1`)? False where there is no
    line, or one is unpinned, only capped or unknown."""
    return bool(declarations) and all(_admits_only(d, since) for d in declarations)


def _admits_only(declaration: Declaration, since: str, excluded: str = "") -> bool:
    """Does the line install only releases from `since` on, none in `excluded` (a specifier)?"""
    text = declaration.text.split(";")[0].strip()
    if text.startswith("git+") or " @ git+" in text:
        url = text.split(" @ ", 1)[-1].split("#", 1)[0]
        tag = _TAG.search(url)
        if tag is None:
            ref = url.split("://", 1)[-1].rpartition("@")[2] if "@" in url.split("://", 1)[-1] else "main"
            return ref in DEFAULT_BRANCHES  # the default branch is the newest code; another branch or a commit: unknown
        return _admits_only_from(Version(tag.group(1)), True, since, excluded)
    try:
        specifier = SpecifierSet(declaration.specifier)
    except InvalidSpecifier:
        return False
    floors = []
    for spec in specifier:
        if spec.operator in FLOOR_OPERATORS:
            try:
                floors.append(Version(spec.version.rstrip(".*")))
            except InvalidVersion:
                return False
    if not floors:
        return False  # unpinned or only capped: the installed release is unknown
    exact = any(spec.operator in ("==", "===") for spec in specifier)
    return _admits_only_from(max(floors), exact, since, excluded)


def _admits_only_from(floor: Version, exact: bool, since: str, excluded: str) -> bool:
    if floor < Version(since):
        return False
    return not (exact and excluded and floor in SpecifierSet(excluded))
