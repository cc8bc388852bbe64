"""Operator coverage: which ATen operators the project's Python reaches, and which of them have no NPU kernel at the
target release (generated tables in knowledge/operators/).

Its scanner records each unit's reached operators in the unit's cache and reports calls whose operator falls back
(OPS070-OPS072, custom_ops rules); the room keeps the reached operators per file and builds the report's
"Operator coverage" section from the whole project's, over the final findings (after the plan)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ascend_feasibility.domains.base import Domain, FileView, ProjectRun
from ascend_feasibility.domains.operators.python_scanner import OperatorCoverageScanner
from ascend_feasibility.domains.operators.section import build_section


@dataclass
class OperatorFacts:
    reached: list[str] = field(default_factory=list)  # ATen overloads the file's calls reach, sorted


class OperatorsDomain(Domain):
    name = "operators"
    scanner_classes = (OperatorCoverageScanner,)
    facts_type = OperatorFacts

    def collect(self, file: FileView) -> OperatorFacts | None:
        reached = set().union(*(unit.cache.get("operators", ()) for unit in file.units))
        return OperatorFacts(sorted(reached)) if reached else None

    def report(self, run: ProjectRun) -> None:
        reached = {name for facts in run.facts[self.name] for name in facts.reached}
        run.report_fields["operator_coverage"] = build_section(reached, run.findings, self.kb, self.target)
