"""Native extensions the project falls back from: an extension whose Python module every product import reaches only
in a try with a working fallback (fairseq's lightconv_cuda behind LightweightConv's `except ImportError` with the
pure-PyTorch LightweightConv1dTBC after it; libnat_cuda with the CPU libnat) never has to run on Ascend. Its kernels,
binding, host code (its sources and the headers beside them) and own build file take that reach (optional), with the
fallback as the reason; an extension some import
needs without a fallback stays required.

The same holds for an extension every use of which sits in the CUDA arm of a device test whose other arm runs the
project's PyTorch implementation (analyzer/context/cuda_arms.py: stylegan3's bias_act plugin, GroundingDINO's _C).
Its kernels, binding, host code, the build file that builds only such extensions and the Python definitions only the
CUDA arm reaches (the autograd Function, the lazy build) are optional; one finding at the test remains, OPS069 (low:
the PyTorch arm runs) or, where transfer_to_npu makes the test true for NPU tensors, OPS091 (medium: change the test)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.arm_selected import ArmSelection
from ascend_feasibility.analyzer.context.cuda_arms import Handle, gate_reason
from ascend_feasibility.analyzer.context.propagation import ImportIndex, extension_fallback, import_index, named_elsewhere
from ascend_feasibility.analyzer.core.findings import Located, Place
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.binding_reach import loads_extension, own_native_files, resolved_sources
from ascend_feasibility.domains.custom_ops.extension_imports import site_reach
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ExtensionRecord
from ascend_feasibility.domains.phases.walked_folders import within_root

BUILD_DETECTORS = frozenset({"native-extension-build", "cuda-extension-build-branch", "cuda-home-guarded-extension",
                             "cpp-extension-jit-load"})
PYTORCH_ARM, TRUE_UNDER_TRANSFER = "cuda-extension-pytorch-arm", "cuda-extension-gate-true-under-transfer"


def fallback_extensions(facts: CustomOpFacts, run: ProjectRun) -> dict[str, tuple[str, str]]:
    """Native files (and builders that build nothing else) of extensions with a fallback: path → (reach, why)."""
    natives = sorted({r.path for r in facts.kernels if r.kind == "cuda"} | {b.path for b in facts.bindings})
    paths = {t.path for t in (*run.modules, *facts.native_words)}
    sources = {id(e): resolved_sources(e, paths) for e in facts.extensions}
    result: dict[str, tuple[str, str]] = {}
    covered_by_builder: dict[str, list[bool]] = {}
    index = import_index(run.modules)
    selection = ArmSelection(run.modules, run.context)  # a caught import only an opt-in arm's definitions use
    for extension in facts.extensions:
        own = sources[id(extension)]
        if not (extension.sources or own) or extension.name in {"", "?"}:
            covered_by_builder.setdefault(extension.path, []).append(False)
            continue
        names = {extension.name, extension.name.rsplit(".", 1)[-1]}
        reason = extension_fallback(names, run.modules, run.context, run.guarded, index) or selection.reason(names)
        installed = _installed_fallback(extension, run, index) if reason is None else None
        reason = reason or installed
        covered_by_builder.setdefault(extension.path, []).append(reason is not None)
        if reason is None:
            continue
        folders = _source_folders(extension) | {str(PurePosixPath(p).parent) for p in own}  # own: walked folders too
        for path in natives:
            if str(PurePosixPath(path).parent) in folders and run.context.of(path).reach == "runs":
                result.setdefault(path, ("optional", reason))
        # its own host code too: the sources it lists (cuda_buffers.cu, with no kernel) and the native files beside
        # them that no other extension's sources sit with (the headers)
        for path in sorted(own_native_files(extension, own, facts, sources, paths)):
            if run.context.of(path).reach == "runs":
                result.setdefault(path, ("optional", reason))
        if installed is not None:  # the Python package it installs under another name: loaded only by those imports
            for path in _installed_modules(extension, run):
                result.setdefault(path, ("optional", reason))
        builder_folder = str(PurePosixPath(extension.path).parent)
        if builder_folder != "." and (builder_folder in folders or own and all(
                p.startswith(builder_folder + "/") for p in own)):
            result.setdefault(extension.path, ("optional", reason))  # a builder in the extension's own folder
    # a builder that also builds a required extension keeps its own reach
    for builder, covered in covered_by_builder.items():
        if not all(covered):
            result.pop(builder, None)
    return result


def _installed_fallback(extension: ExtensionRecord, run: ProjectRun, index: ImportIndex) -> str | None:
    """Why an extension imported only from packages its setup() installs under other names (installed_packages.py:
    Pointcept's pointgroup_ops_cuda, imported by functions/, installed as `pointgroup_ops`) never has to run: every
    product import of those names falls back (extension_fallback). None where another file imports it."""
    here = PurePosixPath(extension.path).parent
    folders = {package: within_root(here / folder) for package, folder in extension.installs}
    if not folders or None in folders.values():
        return None
    importers = [m.path for m in run.modules if any(loads_extension(extension, module) for module in m.imports)]
    if not importers or not all(any(path.startswith(f"{folder}/") for folder in folders.values())
                                for path in importers):
        return None
    reason = extension_fallback(set(folders), run.modules, run.context, run.guarded, index)
    return reason if reason is not None else _guarded_package_reason(extension, set(folders), run)


def _installed_modules(extension: ExtensionRecord, run: ProjectRun) -> list[str]:
    """The running Python files of the folders the extension's setup() installs under other names."""
    here = PurePosixPath(extension.path).parent
    folders = tuple(f"{folder}/" for folder in (within_root(here / f) for _, f in extension.installs) if folder)
    return [m.path for m in run.modules if m.path.startswith(folders) and run.context.of(m.path).reach == "runs"]


def _guarded_package_reason(extension: ExtensionRecord, packages: set[str], run: ProjectRun) -> str | None:
    """Why a separately installed extension package (its own setup.py below the root) need not run when every product
    import of it sits behind a guard (`try: from pointgroup_ops import ... except ImportError: ... = None`): the
    project is made to run without it. None where a product file imports it unguarded, or nothing imports it."""
    if "/" not in extension.path:
        return None  # the root's setup.py: the project's own install builds it
    sites = []
    for f in run.modules:
        place = run.context.of(f.path)
        if place.role not in COUNTED_ROLES or place.reach != "runs" or f.path in run.guarded:
            continue  # an importer nothing running loads (unloaded.py) or itself guarded loads nothing here
        for module in f.imports:
            if module in packages or module.split(".", 1)[0] in packages:
                if module not in f.guarded_imports:
                    return None
                sites.append(f.path)
    if not sites:
        return None
    shown = ", ".join(sorted(set(sites))[:3])
    return (f"installed on its own by {extension.path} as {', '.join(sorted(packages))}, which the project imports only "
            f"behind guards ({shown}): the project runs without the extension")


def _source_folders(extension: ExtensionRecord) -> set[str]:
    """The folders holding the extension's sources, named from the project root or from the builder's folder."""
    here = PurePosixPath(extension.path).parent
    folders = set()
    for source in extension.sources:
        for base in (PurePosixPath(), here):
            folders.add(str((base / source).parent))
    return folders


@dataclass(frozen=True)
class GatedExtension:
    """An extension only CUDA arms with a PyTorch other arm reach, and what of the project is its own."""

    path: str  # the Python file holding the handle and the test
    handle: Handle
    reason: str
    natives: frozenset[str]  # its native files, by path
    folders: frozenset[str]  # folders whose native files are its own (sources the build reads by glob)
    others: frozenset[str]  # folders of the project's other bindings (their files are theirs)
    builders: frozenset[str]  # build files that build nothing else


def gated_extensions(facts: CustomOpFacts, run: ProjectRun) -> list[GatedExtension]:
    """The extensions whose every use is behind a CUDA test with a PyTorch other arm: one record per handle."""
    found = []
    bindings = {b.path: b for b in facts.bindings}

    def built_elsewhere(path: str) -> set[str]:
        return {str(PurePosixPath(e.path).parent / source) for e in facts.extensions if e.path != path
                for source in e.sources} | {source for e in facts.extensions if e.path != path for source in e.sources}

    gated_names: set[str] = set()
    for f in run.modules:
        if not f.gated_handles:
            continue
        # judged whatever the loader's own role and reach: its native files take them only through this gate
        # (Latte's tools/torch_utils/ops/upfirdn2d.py is a tool script, its upfirdn2d.cu product code by its path)
        for handle in f.gated_handles:
            module, sources, ops = handle[1], handle[2], set(handle[3])
            if not module:  # a lazy build in this file given its sources
                if not any(source.endswith(".cu") for source in sources) or \
                        named_elsewhere(f, [user for user, _, _ in handle[4]], run.modules, run.context):
                    continue
                here = PurePosixPath(f.path).parent
                natives = frozenset(str(here / source) for source in sources) | frozenset(sources)
                if natives & built_elsewhere(f.path):
                    continue  # another file builds the same sources, with no test before it
                found.append(GatedExtension(f.path, handle, gate_reason(f.path, handle), natives, frozenset(),
                                            frozenset(), frozenset()))
                continue
            extension = next((e for e in facts.extensions if e.cuda and e.name not in {"", "?"} and (
                module == e.name or module.endswith("." + e.name) or e.name.endswith("." + module))), None)
            if extension is None:
                continue
            reason = extension_fallback({extension.name, extension.name.rsplit(".", 1)[-1]}, run.modules, run.context,
                                        run.guarded)
            if reason is None or "CUDA arm" not in reason:
                continue
            own = {path for path, b in bindings.items() if ops & set(b.ops)}
            folders = frozenset(_source_folders(extension)) if extension.sources else \
                frozenset(str(PurePosixPath(path).parent) for path in own)
            others = frozenset(str(PurePosixPath(path).parent) for path in bindings if path not in own)
            gated_names.add(extension.name)
            found.append(GatedExtension(f.path, handle, reason, frozenset(own), folders, others, frozenset()))
    if not gated_names:
        return found
    by_builder: dict[str, set[str]] = {}
    for extension in facts.extensions:
        if extension.cuda:
            by_builder.setdefault(extension.path, set()).add(extension.name)
    builders = frozenset(path for path, names in by_builder.items() if names <= gated_names)
    return [GatedExtension(g.path, g.handle, g.reason, g.natives, g.folders, g.others, builders) if g.handle[1] else g
            for g in found]


def gate_findings(gated: list[GatedExtension], run: ProjectRun) -> list[Finding]:
    """One finding per gated extension, at its test: OPS090 where the PyTorch arm runs, OPS091 where transfer_to_npu
    makes the test true for NPU tensors."""
    codes = {r.match.detector: r.code for r in run.kb.rules.values() if r.match.detector in {PYTORCH_ARM, TRUE_UNDER_TRANSFER}}
    findings = []
    for g in gated:
        name, module, sources, _, _, line, test, fallback, shim = g.handle
        place = run.context.of(g.path)
        snippet = f"if {test}:"
        symbol = module or f"{name} ({', '.join(sources[:4])})"
        located = Located(codes[TRUE_UNDER_TRANSFER if shim else PYTORCH_ARM], symbol, g.path, line, 1,
                          len(snippet) + 1, snippet, matched=test, npu=f"{fallback}()", role=place.role,
                          reach=place.reach, reach_reason=place.reason)
        findings.append(run.factory.build_located(located, 0))
    return findings


def relocate_gated(findings: list[Finding], gated: list[GatedExtension], run: ProjectRun) -> list[Finding]:
    """The gated extensions' own findings, still counted as running, made optional with the reason: in their native
    files, in the Python definitions only the CUDA arm reaches, and the build findings of builders of nothing else."""
    if not gated:
        return findings
    build_codes = {r.code for r in run.kb.rules.values() if r.match.detector in BUILD_DETECTORS}
    gate_codes = {r.code for r in run.kb.rules.values() if r.match.detector in {PYTORCH_ARM, TRUE_UNDER_TRANSFER}}
    result = []
    for finding in findings:
        reason = None
        if finding.reach == "runs" and finding.rule not in gate_codes:
            reason = next((g.reason for g in gated if _owns(g, finding, build_codes)), None)
        result.append(finding if reason is None else run.factory.relocate(finding, Place(finding.role, "optional", reason)))
    return result


def _owns(g: GatedExtension, finding: Finding, build_codes: set[str]) -> bool:
    path = finding.path
    if path == g.path:
        return any(start <= finding.line <= end for _, start, end in g.handle[4])
    if path in g.builders:
        return finding.rule in build_codes
    if not path.endswith(NATIVE_SUFFIXES):
        return False
    if path in g.natives:
        return True
    folder = str(PurePosixPath(path).parent)
    if not g.folders:
        return False
    owner = max((f for f in g.folders | g.others if f == "." or folder == f or folder.startswith(f + "/")),
                key=len, default=None)
    return owner in g.folders


SWITCHED = "cuda-extension-behind-build-switch"
SWITCH_REACHES = frozenset({"cuda-only-guarded", "optional"})  # a build the installer can leave out


@dataclass(frozen=True)
class SwitchedExtension:
    """An extension built only behind a switch whose every import the project catches or gates by a flag."""

    name: str
    build: Finding  # the build's own finding (its reach names the switch); the first where it is built twice
    natives: frozenset[str]  # its native files, by path
    gated_imports: frozenset[tuple[str, int]]  # imports in a function behind a flag, otherwise counted as running
    sites: str  # how each import is handled, for the reason and the finding
    reason: str


def switched_extensions(facts: CustomOpFacts, findings: list[Finding], run: ProjectRun) -> list[SwitchedExtension]:
    """The CUDA extensions whose every build sits behind a switch the report rates as not running (OLMo's AutoGPTQ:
    `if BUILD_CUDA_EXT:`) and whose every import in product code that runs is caught (a try whose handler carries
    on, a guard) or sits in a function behind a flag (`if model_uses_exllama:`); at least one import is caught."""
    build_codes = {r.code for r in run.kb.rules.values() if r.match.detector in BUILD_DETECTORS}
    builds_at = {(f.path, f.line): f for f in findings if f.rule in build_codes}
    modules = {f.path: f for f in run.modules}
    paths = {t.path for t in (*run.modules, *facts.native_words)}
    by_name: dict[str, list[ExtensionRecord]] = {}
    for extension in facts.extensions:
        if extension.name not in {"", "?"}:
            by_name.setdefault(extension.name, []).append(extension)
    candidates: list[tuple[str, Finding, list[str], frozenset[tuple[str, int]]]] = []
    fallen = run.published.get("fallback_builders", {})
    for name, builds in by_name.items():
        found = [builds_at.get((e.path, e.line)) for e in builds]
        if not all(e.cuda and e.sources for e in builds) or any(
                f is None or f.reach not in SWITCH_REACHES or f.role not in COUNTED_ROLES
                or (f.path in fallen and f.reach_reason == fallen[f.path]) for f in found):
            continue
        handled = _handled_imports(builds[0], facts, modules, run)
        if handled is not None:
            candidates.append((name, found[0], *handled))
    if not candidates:
        return []
    switched_names = {name for name, *_ in candidates}
    others = {source for e in facts.extensions if e.name not in switched_names for source in resolved_sources(e, paths)}
    result = []
    for name, build, sites, gated in candidates:
        own = {source for e in by_name[name] for source in resolved_sources(e, paths)} - others
        folders = {str(PurePosixPath(p).parent) for p in own}
        natives = own | {p for p in paths if p.endswith(NATIVE_SUFFIXES) and p not in others
                         and str(PurePosixPath(p).parent) in folders
                         and not any(str(PurePosixPath(o).parent) == str(PurePosixPath(p).parent) for o in others)}
        shown = "; ".join(sites[:4]) + (f"; {len(sites) - 4} more" if len(sites) > 4 else "")
        reason = (f"{name} is built only behind a switch ({build.path}:{build.line}, {build.reach_reason or build.reach}) "
                  f"and every import of it is caught or behind a flag ({shown}): without it the project's own code runs")
        result.append(SwitchedExtension(name, build, frozenset(natives), gated, shown, reason))
    return result


def _handled_imports(extension: ExtensionRecord, facts: CustomOpFacts, modules: dict, run: ProjectRun
                     ) -> tuple[list[str], frozenset[tuple[str, int]]] | None:
    """How each import of the extension in product code that runs copes with its absence, and the imports gated by a
    flag in a function; None where one does not (a plain import stops its module loading; a helper's import is
    judged by its callers, elsewhere) or none is caught."""
    sites, gated, caught = [], set(), False
    for site in facts.imports:
        if not loads_extension(extension, site.module):
            continue
        place = run.context.of(site.path)
        if place.role not in COUNTED_ROLES or place.reach != "runs":
            continue
        reach, reason = site_reach(site, modules.get(site.path), place.reach, place.reason)
        if site.caught or (reach != "runs" and reason):  # a handler that carries on, or one that falls back
            caught = True
            sites.append(f"{site.path}:{site.line} caught")
        elif site.function and site.gate:
            gated.add((site.path, site.line))
            sites.append(f"{site.path}:{site.line} in {site.function}() behind `if {site.gate}:`")
        elif not site.function and reach != "runs":
            sites.append(f"{site.path}:{site.line} behind a guard")
        else:
            return None
    return (sites, frozenset(gated)) if caught else None


def relocate_switched(findings: list[Finding], switched: list[SwitchedExtension], run: ProjectRun) -> list[Finding]:
    """The switched extensions' native findings and gated imports, still counted as running, made optional; each
    extension's build finding replaced by one OPS092 finding that says what to do."""
    if not switched:
        return findings
    code = next(r.code for r in run.kb.rules.values() if r.match.detector == SWITCHED)
    builds = {id(s.build): s for s in switched}
    result = []
    for finding in findings:
        owner = builds.get(id(finding))
        if owner is not None:
            build = owner.build
            located = Located(code, f"{owner.name} (built at {build.path}:{build.line})", build.path, build.line,
                              build.column, build.end_column, build.snippet, build.cell, npu=owner.sites,
                              matched=owner.name, role=build.role)
            result.append(run.factory.build_located(located, 0))
            continue
        if finding.reach == "runs":
            reason = next((s.reason for s in switched if finding.path in s.natives
                           or (finding.path, finding.line) in s.gated_imports), None)
            if reason is not None:
                finding = run.factory.relocate(finding, Place(finding.role, "optional", reason))
        result.append(finding)
    return result
