"""The distributed domain: backends, meshes, parallel wrappers, collectives, launchers and their settings."""

from __future__ import annotations

from ascend_feasibility.domains.base import Domain
from ascend_feasibility.domains.distributed.python_scanner import DistributedPythonScanner


class DistributedDomain(Domain):
    name = "distributed"
    scanner_classes = (DistributedPythonScanner,)
