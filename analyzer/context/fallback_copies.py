"""Fallback copies of a declared requirement's API: the functions and classes a module defines only where `from DEP
import NAMES` failed (domains/phases/fallback_definitions.py) run only when the installed DEP lacks the names. Where
the project declares DEP (a requirements file, setup.py, a Dockerfile's or a script's pip install: a dependency
matrix row with sources), the pinned DEP provides them and the copy is no path the project takes: its findings are
`optional` with the reason (round 40 A2 class 3, rows 52 and 97: Video-Swin-Transformer's mmaction/apis/test.py
defines `collect_results_gpu` and the rest under `if not from_mmcv:`, mmcv-full being pinned in
requirements/mminstall.txt). A fallback for a package the project does not declare keeps `runs`: nothing says the
names are there."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


def required_fallback_ranges(facts: list[ModuleFacts], required: frozenset[str]) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the fallback definitions of a module whose distribution the project
    declares (`required`: canonical distribution names)."""
    if not required:
        return {}
    from ascend_feasibility.knowledge import load_knowledge

    knowledge = load_knowledge()
    found: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for f in facts:
        for module, first, last, name in f.fallback_definitions:
            top = module.split(".")[0]
            # its own distribution, or one installing its modules (mmcv-full installs `mmcv`: packages.toml)
            providers = {knowledge.distribution_of(top)} | {
                dist for dist in required
                if (record := knowledge.packages.get(dist)) is not None and top in record.installs_modules_of}
            distribution = next((d for d in sorted(providers) if d in required), None)
            if distribution is not None:
                found[f.path].append((first, last, (
                    f"line {first}: {name} is defined only where `from {module} import ...` fails, and the project "
                    f"declares {distribution}, whose installed release provides it: a fallback copy that does not run")))
    return dict(found)
