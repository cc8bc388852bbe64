"""The phases domain: phases per file from entry points and the import graph, and the plan built on them.

Per file it keeps the module's facts (imports, entry-point signals, models, launched scripts): they are also the
ModuleFacts the project context walks to settle reach. For the project it builds the plan: phase matrix, effort,
verdict, bottlenecks, roadmap and architecture, over every finding and the other rooms' published results."""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.context.readme_runs import usage_order
from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.context.versions import VersionReader, companion_lines
from ascend_feasibility.analyzer.core.models import DaysRange, Finding, PricedGeneration, Report
from ascend_feasibility.domains.base import Domain, FileView, ProjectRun, Unit
from ascend_feasibility.domains.phases import generations
from ascend_feasibility.domains.phases.estimate import estimate
from ascend_feasibility.domains.phases.facts import PhaseFacts, collect, compact, query_keys
from ascend_feasibility.domains.phases.plan import plan_data, plan_fields, priced_entries
from ascend_feasibility.knowledge import load_context_conventions


class PhasesDomain(Domain):
    name = "phases"
    facts_type = PhaseFacts
    provides_modules = True

    def query_keys(self, unit: Unit) -> set[str]:
        return query_keys(unit)

    def collect(self, file: FileView) -> PhaseFacts | None:
        return collect(file.path, file.kind, file.units, file.import_reach, self._versions())

    def _versions(self) -> VersionReader:
        """The version tests' reader at the target (analyzer/context/version_arms.py), built once."""
        reader = self.__dict__.get("_version_reader")
        if reader is None:
            conventions = load_context_conventions().versions
            reader = VersionReader(self.target.release.torch, conventions.torch_features,
                                   conventions.torch_version_helpers, conventions.library_flags,
                                   companion_lines(self.kb, self.target.release.torch))
            self._version_reader = reader
        return reader

    def read_later(self, facts: list[PhaseFacts], source: Callable[[str], bytes | None]) -> None:
        for f in facts:
            if f.uses_later or f.selects_device is None:  # read when asked (PhaseFacts.class_uses, device_choice)
                f.source = source

    def keep(self, facts: PhaseFacts) -> PhaseFacts:
        return compact(facts)

    def report(self, run: ProjectRun) -> None:
        found = generations.find(run.facts[self.name], run.paths, run.config.readme)
        if found is not None:
            run.findings = generations.set_apart(run.findings, found, run.factory, lambda: {
                run.kb.distribution_of(name.split(".")[0]) for f in run.facts[self.name] if found.holds(f.path) is None
                for name in f.imports})
        plan = plan_fields(run.findings, run.published["dependency_matrix"], run.facts[self.name], run.config,
                           run.calibration, run.published["kernels"], list(run.context.npu_files), run.context.own_packages,
                           found.others if found is not None else (), tuple(run.nested),
                           usage_order(run.config.readme, list(run.paths)) if run.config.readme else (), run.unscanned,
                           packages=run.packages, copies=run.copies,
                           priced=frozenset(run.published.get("priced_submodules", ())))
        run.findings = plan.pop("findings")
        if found is not None:
            plan["effort"] = plan["effort"].model_copy(update={"generation": PricedGeneration(
                priced=found.priced, why=found.why, others=list(found.others))})
            if plan["verdict"].verdict != "not-applicable":
                judged = plan["verdict"]
                plan["verdict"] = judged.model_copy(update={"drivers": [generations.driver(found, run.findings), *judged.drivers]})
        run.report_fields.update(plan)

    @classmethod
    def effort_left(cls, report: Report, findings: list[Finding]) -> DaysRange:
        conventions = load_context_conventions().roles
        matrix = report.phase_matrix
        apart = tuple(report.effort.generation.others) if report.effort and report.effort.generation else ()
        work = estimate(findings, matrix.phases if matrix else [], priced_entries(matrix.entries, apart) if matrix else [],
                        report.custom_ops, report.project.npu_code, lambda path: file_role(path, conventions), plan_data(),
                        tuple(sub.folder for sub in report.target.subprojects),
                        lead=report.effort.main_phase if report.effort else None)
        return work.total

