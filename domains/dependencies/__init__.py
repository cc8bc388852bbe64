"""The dependencies domain: declared and imported distributions, their Ascend status, the torch version fit.

Per file it keeps the declarations of build files and the imports of code; for the project it classifies every
distribution (the dependency matrix, published for the plan), reports what needs replacing, and chooses the torch_npu
release the project's own torch requirement can install."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.switched_on import turned_on
from ascend_feasibility.analyzer.context.unpassed_defaults import default_path
from ascend_feasibility.analyzer.core.models import SkippedFile
from ascend_feasibility.domains.base import Domain, FileView, ProjectRun, TargetChoice, Unit
from ascend_feasibility.domains.dependencies.bundled_manifests import bundled_manifests
from ascend_feasibility.domains.dependencies.calls import PackageCallScanner
from ascend_feasibility.domains.dependencies.carried import fold_into_call_sites
from ascend_feasibility.domains.dependencies.extras import fold_extra_features
from ascend_feasibility.domains.dependencies.facts import IMPORT_QUERY_KEY, DependencyFacts, collect
from ascend_feasibility.domains.dependencies.images import fold_into_cuda_images
from ascend_feasibility.domains.dependencies.project import analyze_dependencies, choose_target, upgrading_sites
from ascend_feasibility.domains.dependencies.registered_models import fold_registered
from ascend_feasibility.domains.dependencies.remote_code import RemoteCodeScanner
from ascend_feasibility.domains.dependencies.removed_torch_apis import RemovedTorchApiScanner
from ascend_feasibility.domains.dependencies.route_gaps import RouteGapScanner
from ascend_feasibility.domains.dependencies.version_asserts import VERSION_ASSERT_KEY, WORD
from ascend_feasibility.domains.dependencies.version_slices import VersionSliceScanner
from ascend_feasibility.domains.dependencies.weights_only import DETECTOR as WEIGHTS_ONLY
from ascend_feasibility.domains.dependencies.weights_only import WeightsOnlyScanner, on_old_torch


class DependenciesDomain(Domain):
    name = "dependencies"
    # calls into a package that needs replacing (DEP030); uses of a feature its partial route lacks (DEP032); model
    # code loaded from the Hub (DEP040); torch APIs the target torch removed (DEP050); torch.load left to torch 2.6's
    # weights_only=True default (DEP051); torch-family versions read by slicing their string (DEP054)
    scanner_classes = (PackageCallScanner, RouteGapScanner, RemoteCodeScanner, RemovedTorchApiScanner, WeightsOnlyScanner,
                       VersionSliceScanner)
    facts_type = DependencyFacts
    # build files and install documents carry declarations though no scanner reads them line by line
    fact_kinds = frozenset({"build", "install-doc"})

    def query_keys(self, unit: Unit) -> set[str]:
        if "import" not in unit.source.text:
            return set()
        return {IMPORT_QUERY_KEY, VERSION_ASSERT_KEY} if WORD in unit.source.text else {IMPORT_QUERY_KEY}

    def collect(self, file: FileView) -> DependencyFacts:
        facts = collect(file.root, file.path, file.units)
        file.skipped += [SkippedFile(path=problem.path, reason=problem.reason) for problem in facts.problems]
        return facts

    def choose_target(self, facts: list[DependencyFacts], project: list[DependencyFacts] | None = None) -> TargetChoice:
        # which requirements files an install reads is the whole project's say, a nested project's choice too
        return choose_target([d for f in facts for d in f.declarations], self.kb,
                             frozenset(i for f in (facts if project is None else project) for i in f.installs))

    def add_findings(self, run: ProjectRun) -> None:
        facts = run.facts[self.name]
        installs = frozenset(i for f in facts for i in f.installs)
        declarations = [d for f in facts for d in f.declarations]
        analysis = analyze_dependencies(
            declarations, [i for f in facts for i in f.imports], run.context, self.kb,
            run.factory, run.has_manifest, frozenset(run.guarded), frozenset(n for f in facts for n in f.used_through),
            default_path(run.modules, run.context), frozenset(m for f in facts for m in f.cuda_parts),
            frozenset(n for f in facts for n in f.npu_aware_used), run.choice.doc_pin if run.choice is not None else None,
            installs, {folder: t.release for folder, t in run.nested.items()},
            frozenset(run.choice.unread) if run.choice is not None else frozenset(),
            {f.imports[0].path: frozenset(f.npu_aware_used) for f in facts if f.imports and f.npu_aware_used},
            _configured_on(run) if any(i.switch for f in facts for i in f.imports) else frozenset(),
            [d for f in facts for d in f.pythons],
            bundled_manifests(run, {d.path for d in declarations}, installs),
            [d for f in facts for d in f.version_asserts],
            built_extension_modules(run.facts.get("custom_ops", [])),
            [use for f in facts for use in f.mmcv_ops], [cap for f in facts for cap in f.mmcv_caps],
        )
        run.findings += analysis.findings
        run.published["dependency_matrix"] = analysis.matrix
        run.published["declarations"] = [d for f in facts for d in f.declarations]  # what governs a file (governing.py)
        run.report_fields["dependency_matrix"] = analysis.matrix
        run.report_fields["torch_fit"] = analysis.torch_fit.model_copy(update={"conflicts": run.choice.conflicts})

    def report(self, run: ProjectRun) -> None:
        facts = run.facts[self.name]
        upgrading = upgrading_sites([d for f in facts for d in f.declarations], self.kb)
        run.findings = fold_into_call_sites(fold_into_cuda_images(run.findings, run.factory), run.factory, upgrading)
        run.findings = fold_extra_features(run.findings, [d for f in facts for d in f.declarations],
                                           [i for f in facts for i in f.imports], run.factory)
        loads: dict[str, list[str]] = {}
        for load in (entry for f in facts for entry in f.remote_loads):
            path, line, names = load.rsplit(":", 2)
            loads.setdefault(path, []).append(f"{line}:{names}")
        run.findings = fold_registered(run.findings, [r for f in facts for r in f.registrations], loads, run.modules,
                                       run.factory)
        weights_only = next(code for code, rule in run.kb.rules.items() if rule.match.detector == WEIGHTS_ONLY)
        run.findings = on_old_torch(run.findings, run.published.get("declarations", []), weights_only)


def built_extension_modules(custom_ops_facts) -> frozenset[str]:
    """The top-level module names of the native extensions the project builds from Python (setup.py's
    CUDAExtension/CppExtension, cpp_extension.load): `pointgroup_ops_cuda`, `pointops` of `pointops._C`. A CMake build's
    record is named after its folder, no module, and is left out."""
    return frozenset(e.name.split(".")[0] for f in custom_ops_facts for e in f.extensions
                     if e.path.endswith(".py") and e.name not in {"", "?"})


def _configured_on(run: ProjectRun) -> frozenset[str]:
    """The switches a config, launch command or dict entry of the project turns on (a literal passed to one callee
    turns on that callee's parameter only, not a flag of that name elsewhere)."""
    return frozenset(name for name, places in turned_on(run.modules, run.context).items()
                     if any(not callee for callee, _ in places))
