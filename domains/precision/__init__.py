"""The precision domain: dtypes and numerics that behave differently on Ascend."""

from __future__ import annotations

from ascend_feasibility.domains.base import Domain
from ascend_feasibility.domains.precision.bf16_gates import Bf16GateScanner
from ascend_feasibility.domains.precision.dtype_flow import PrecisionDtypeFlowScanner
from ascend_feasibility.domains.precision.python_scanner import PrecisionPythonScanner


class PrecisionDomain(Domain):
    name = "precision"
    scanner_classes = (PrecisionPythonScanner, PrecisionDtypeFlowScanner, Bf16GateScanner)
