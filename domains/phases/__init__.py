"""The phases domain: phases per file from entry points and the import graph, and the plan built on them.

Per file it keeps the module's facts (imports, entry-point signals, models, launched scripts): they are also the
ModuleFacts the project context walks to settle reach. For the project it builds the plan: phase matrix, effort,
verdict, bottlenecks, roadmap and architecture, over every finding and the other rooms' published results."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.core.models import DaysRange, Finding, Report
from ascend_feasibility.domains.base import Domain, FileView, ProjectRun, Unit
from ascend_feasibility.domains.phases.estimate import estimate
from ascend_feasibility.domains.phases.facts import PhaseFacts, collect, compact, query_keys
from ascend_feasibility.domains.phases.plan import plan_data, plan_fields
from ascend_feasibility.knowledge import load_context_conventions


class PhasesDomain(Domain):
    name = "phases"
    facts_type = PhaseFacts
    provides_modules = True

    def query_keys(self, unit: Unit) -> set[str]:
        return query_keys(unit)

    def collect(self, file: FileView) -> PhaseFacts | None:
        return collect(file.path, file.kind, file.units, file.import_reach)

    def keep(self, facts: PhaseFacts) -> PhaseFacts:
        return compact(facts)

    def report(self, run: ProjectRun) -> None:
        plan = plan_fields(run.findings, run.published["dependency_matrix"], run.facts[self.name], run.config,
                           run.calibration, run.published["kernels"], list(run.context.npu_files), run.context.own_packages)
        run.findings = plan.pop("findings")
        run.report_fields.update(plan)

    @classmethod
    def effort_left(cls, report: Report, findings: list[Finding]) -> DaysRange:
        conventions = load_context_conventions().roles
        matrix = report.phase_matrix
        work = estimate(findings, matrix.phases if matrix else [], matrix.entries if matrix else [], report.custom_ops,
                        report.project.npu_code, lambda path: file_role(path, conventions), plan_data())
        return work.total
