"""The environment and install files of another project copied whole into this one: not this project's dependencies.

A bundled copy (analyzer/context/bundled_projects.py: a folder with its own launchers that the host imports only as a
library, MOFA-Video's Training/train_utils/unimatch/) carries its upstream's conda environment and install script
(`pip install torch==1.9.0+cu102`). Those lines set up the upstream's environment, which nothing of the host installs:
their findings stay listed (at the copy's files, `optional`, propagation.py), but they add no row to the dependency
matrix, no version to a row's `declared`, and set neither the torch fit nor the counted torch re-pin (round 32
verdict V9, validation-prec41a "Left"). A file of the copy that an install of the project reads (`pip install -r
<copy>/requirements.txt`, installed.py) stays the project's.
"""

from __future__ import annotations

from collections.abc import Iterable

from ascend_feasibility.analyzer.context.bundled_projects import unlaunched_scripts
from ascend_feasibility.domains.base import ProjectRun


def bundled_manifests(run: ProjectRun, paths: Iterable[str], installs: frozenset[str]) -> frozenset[str]:
    """The declaring files among `paths` that lie in a bundled copy of another project, which no install of the
    project reads (the same scope propagation.py makes `optional`)."""
    paths = {path for path in paths if path not in installs}
    if not paths or not run.modules:
        return frozenset()
    copies = unlaunched_scripts(run.modules, run.copies, others=paths, documented=run.context.readme_launches)
    return frozenset(path for path in copies if path in paths)
