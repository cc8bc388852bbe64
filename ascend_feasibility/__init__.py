"""ascend-feasibility: the one top-level import name this tool installs.

The repository keeps its folders `analyzer/`, `domains/`, `knowledge/` and `report_templates/` at its root; the wheel
installs them as `ascend_feasibility.analyzer` and so on (pyproject's package-dir mapping), so that PyPI's own
`analyzer` and `knowledge` distributions can be installed beside this tool. In a source checkout those folders sit
beside this one, and the package's path points there too."""

import os

_here = os.path.dirname(os.path.abspath(__file__))
_checkout = os.path.dirname(_here)
if not os.path.isdir(os.path.join(_here, "analyzer")) and os.path.isfile(os.path.join(_checkout, "analyzer", "core", "cli.py")):
    __path__.append(_checkout)  # noqa: F821 - a package's own __path__
