"""A requirement line's reach is at least the reach of the package's imports (round 38 V-4).

A line in an extra (a requirements/<extra>.txt, a setup.py extras_require group, a pyproject optional-dependencies
table) is optional by declaration: the project runs without it. That holds only while the code agrees. mmocr's
requirements/mminstall.txt (setup.py exposes it as the `mim` extra; OpenMMLab's mmdet, mmseg, mmpose do the same)
lists mmcv, which product modules import plainly (`from mmcv.ops import ...`): no user runs mmocr without it, so the
line is required, whatever file declares it. An extra stays optional for a package the code imports only optionally
(in try blocks, behind guards, in tests) or not at all.

One line is raised per package: where no main manifest line of the package counts, the extra line an install
command or package manifest reads (installed.named: setup.py's extras_require reading mminstall.txt), else the first
one; the package's other extra lines keep their own, optional, items. A development group's line (a docs build's
requirements/readthedocs.txt or docs.txt, which only .readthedocs.yml installs; tests, lint) is never the raised one:
it sets up the developers' tools, not what the project runs (round 40 B1 class 1: mmrotate, mmtracking)."""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies import installed


def raised_extra(grouped: list[tuple[Declaration, list[str] | None]], optional: Callable[[Declaration], bool],
                 main_line: Callable[[Declaration], bool], imported_required: bool, counts: Callable[[str], bool],
                 installs: frozenset[str]) -> Declaration | None:
    """The extra line of one package's items (`grouped`, one per manifest) that stands required, if any:
    `imported_required` says product code that runs imports the package plainly; `main_line` whether a line is a
    counted main environment manifest's (requirements.txt, setup.py install_requires; not a Dockerfile's, which the
    port replaces); `counts` whether a file's findings count; `installs` the requirements files installs read."""
    if not imported_required or any(main_line(site) for site, _ in grouped):
        return None  # optional by the code too, or a main manifest's line carries the requirement
    extras = [site for site, _ in grouped if optional(site) and counts(site.path)]
    return min(extras, key=lambda s: (not installed.named(s.path, installs), s.path, s.line), default=None)
