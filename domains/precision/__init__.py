"""The precision domain: dtypes and numerics that behave differently on Ascend."""

from __future__ import annotations

from ascend_feasibility.domains.base import Domain, FileView, ProjectRun
from ascend_feasibility.domains.precision.bf16_gates import Bf16GateScanner
from ascend_feasibility.domains.precision.dtype_flow import PrecisionDtypeFlowScanner
from ascend_feasibility.domains.precision.float32_outputs import FACTS_KEY, PrecisionFacts, float32_outputs, float32_producers
from ascend_feasibility.domains.precision.python_scanner import PrecisionPythonScanner


class PrecisionDomain(Domain):
    name = "precision"
    scanner_classes = (PrecisionPythonScanner, PrecisionDtypeFlowScanner, Bf16GateScanner)
    facts_type = PrecisionFacts

    def collect(self, file: FileView) -> PrecisionFacts | None:
        """The file's float32-producing modules and its dtype assertions on their outputs (float32_outputs.py)."""
        facts = PrecisionFacts()
        for unit in file.units:
            if FACTS_KEY in unit.cache:
                facts.extend(unit.cache[FACTS_KEY])
            if unit.kind == "python" and "def forward" in unit.source.text:
                producers, others = float32_producers(unit.tree())
                facts.producers += producers
                facts.modules += others
        return facts if facts.producers or facts.assertions or facts.modules else None

    def report(self, run: ProjectRun) -> None:
        merged = PrecisionFacts()
        for facts in run.facts[self.name]:
            merged.extend(facts)
        run.findings = float32_outputs(run.findings, merged, run.factory)
