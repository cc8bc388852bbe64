"""files → units → scanners → findings store → report. The one entry point is `analyze`."""

from __future__ import annotations

import dataclasses
import functools
import gc
import glob
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer import TOOL_NAME, __version__
from ascend_feasibility.analyzer.context import ProjectContext, build_project_context
from ascend_feasibility.analyzer.context.backend_images import other_backend_images
from ascend_feasibility.analyzer.context.bundled_projects import bundled_copies
from ascend_feasibility.analyzer.context.engine_forks import engine_forks, fold_forks
from ascend_feasibility.analyzer.context.hosted_notebooks import hosted_notebooks
from ascend_feasibility.analyzer.context.hosted_predictors import hosted_predictors
from ascend_feasibility.analyzer.context.launcher_runs import entry_imported_tools, launcher_run_tools
from ascend_feasibility.analyzer.context.nvidia_kits import fold_kits, nvidia_kits
from ascend_feasibility.analyzer.context.project import ci_built_dockerfiles
from ascend_feasibility.analyzer.context.project_scope import (
    collapse_project_scoped,
    drop_subsumed,
    drop_without_cause,
    fold_identical_files,
    fold_repeated_cells,
    fold_repeated_settings,
    fold_script_lines,
)
from ascend_feasibility.analyzer.context.propagation import guarded_modules, propagate_reach
from ascend_feasibility.analyzer.context.readme_alternatives import readme_alternative_configs
from ascend_feasibility.analyzer.context.readme_runs import (
    documented_launches,
    installed_files,
    readme_run_examples,
    worked_in_folders,
)
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import package_folders
from ascend_feasibility.analyzer.core import budget, transfer
from ascend_feasibility.analyzer.core.cache import DEFAULT_MAX_BYTES, FileCache
from ascend_feasibility.analyzer.core.filework import FileResult, FileWorker, init_worker, process_in_worker
from ascend_feasibility.analyzer.core.models import (
    COUNTED_ROLES,
    CalibrationSection,
    ProjectInfo,
    Report,
    RuleCalibration,
    SkippedFile,
    SubprojectTarget,
    Target,
    Text,
    ToolInfo,
)
from ascend_feasibility.analyzer.core.report_cache import ReportCache, run_settings
from ascend_feasibility.analyzer.core.scanned_bytes import ScannedBytes
from ascend_feasibility.analyzer.core.store import FindingStore, summarize
from ascend_feasibility.analyzer.core.subprojects import Subproject, nested_projects, script_folders, subproject_of
from ascend_feasibility.analyzer.reading import install_docs, readme_code
from ascend_feasibility.analyzer.reading.config import load_project_config
from ascend_feasibility.analyzer.reading.discovery import ProjectFile, discover, discover_file, is_requirements_file
from ascend_feasibility.analyzer.reading.gitinfo import read_revision
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained
from ascend_feasibility.analyzer.reading.submodules import REASON as SUBMODULE_REASON
from ascend_feasibility.domains.base import Domain, ProjectRun, TargetChoice
from ascend_feasibility.knowledge import load_context_conventions

# Below this many files, worker processes cost more to start than they save.
PARALLEL_THRESHOLD = 48
CHUNK_SIZE = 8

ProgressCallback = Callable[[int, int], None]


class AnalysisError(Exception):
    """A fatal problem with the run itself (not with a file of the project)."""


@dataclass
class AnalyzeOptions:
    torch_npu: str | None = None
    excludes: list[str] = field(default_factory=list)
    jobs: int | None = None
    calibration: list[RuleCalibration] = field(default_factory=list)  # measured outcomes per rule (probe runner)
    calibration_section: CalibrationSection | None = None  # what the report shows of those measurements
    own_outputs: tuple[Path, ...] = ()  # the run's report files and folders: never scanned
    generated: str | None = None  # the report's date (YYYY-MM-DD); today (UTC) when not given
    cache_dir: Path | None = None  # per-file results kept here for re-runs (analyzer/core/cache.py); None: no cache
    cache_max_bytes: int = DEFAULT_MAX_BYTES
    stats: dict | None = None  # filled with the scan's seconds and cache hits/misses when given (the benchmark reads it)


def analyze(root: Path, options: AnalyzeOptions, progress: ProgressCallback | None = None) -> Report:
    with _collector_paused():
        return _analyze(root, options, progress)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector is off while this process merges and plans: the run's data has no cycles to
    free, yet each collection re-walked every finding held so far (a fifth of the main process's time on a
    large tree). Workers switch it back on (`init_worker`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            # Hand what the run built to the oldest generation at once (freeze, then unfreeze: no walk). Left
            # young, the first collections after the run re-walked every object of the report up to three times.
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def _read_text(root: Path, path: str) -> str | None:
    """A file of the tree as text, read before the scan (the README-run tool scripts' imports): None where unreadable
    (read_contained: a link leaving the tree, not a regular file, over the size limit)."""
    try:
        return read_contained(root, path, MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except Unreadable:
        return None


def _analyze(root: Path, options: AnalyzeOptions, progress: ProgressCallback | None) -> Report:
    root = root.resolve()
    single = None
    if root.is_file():  # `analyze FILE`: that file alone, paths relative to its folder
        root, single = root.parent, root.name
    elif not root.is_dir():
        raise AnalysisError(f"{root} is not a folder or a file")
    config = load_project_config(root)
    if single is not None:
        found = discover_file(root, single)
    else:
        found = discover(root, [*config.exclude, *options.excludes], options.own_outputs)
    ci_images = ci_built_dockerfiles(found.files, config.roles)
    if ci_images:  # CI test images are ci, for the context and the plan alike; the project's own globs still win
        config.roles = {**config.roles, "ci": [*config.roles.get("ci", []), *map(glob.escape, ci_images)]}
    paths, reader = [f.path for f in found.files], functools.partial(_read_text, root)
    documents = (config.readme, *config.guides)  # the README and the usage guides it links (GETTING_STARTED.md)
    readme_runs = list(dict.fromkeys(path for document in documents for path in readme_run_examples(
        document, paths, load_context_conventions().roles, config.roles, config.distribution, reader)))
    readme_runs += [path for path in launcher_run_tools(paths, load_context_conventions().roles, config.roles, reader)
                    if path not in readme_runs]  # a shipped launcher (inference.sh) runs them: product too
    readme_runs += [path for path in entry_imported_tools(paths, load_context_conventions().roles, config.roles,
                                                          reader, tuple(readme_runs))
                    if path not in readme_runs]  # a root product script (train.py) imports them: its own helpers
    # the install guides the root README hands its install steps to (docs/prepare_env/install_guide.md): the
    # project's own setup, product like the README itself, wherever they sit
    kept = {d.path: d for d in found.documents}  # Markdown files discovery kept aside, unscanned
    linked_docs = install_docs.linked_install_docs(config.readme, reader) & (set(paths) | set(kept))
    if linked_docs & set(kept):  # a guide not named for the install (get_started.md): read as one from now on
        found.files = sorted([*found.files, *(dataclasses.replace(kept[path], kind="install-doc")
                                              for path in linked_docs & set(kept))], key=lambda f: f.path)
    # the requirements files they install (`cd examples/brushnet/; pip install -r requirements.txt`): its own setup
    installed = [path for path in installed_files(documents, paths, load_context_conventions().roles, config.roles)
                 if path not in readme_runs]
    product = [*readme_runs, *installed, *sorted(linked_docs)]
    if product:  # the README's own command runs them (or it links them): product, for the context and the plan alike
        config.roles = {**config.roles, "product": [*config.roles.get("product", []), *map(glob.escape, product)]}
    context = build_project_context([f.path for f in found.files], config.roles, config.distribution,
                                    other_backend_images(found.files), config.source_roots)
    context.readme_flags = install_docs.launch_flags(config.readme) if config.readme else ()
    context.guide_flags = tuple(
        (flag, path) for path in install_docs.handed_install_docs(config.readme, [*paths, *kept], reader)
        for flag in install_docs.launch_flags(reader(path) or "")) if config.readme else ()
    context.readme_imports = readme_code.imported_packages(config.readme) if config.readme else ()
    context.readme_launches = documented_launches(documents, paths)
    context.readme_folders = worked_in_folders(config.readme, [f.path for f in found.files]) if config.readme else ()
    worker = FileWorker(options.torch_npu, context, config.read)  # validates the target and the knowledge base before any scan
    files = [f for f in found.files if worker.reads(f.kind)]
    choice, nested = None, []
    if options.torch_npu is None:
        choice, nested = _project_target(root, files, [f.path for f in found.files], worker, context, linked_docs)
        if nested or choice.version is not None and choice.version != worker.target.requested:
            worker = FileWorker(choice.version or worker.target.requested, context, config.read,
                                tuple((sub.folder, sub.choice.version) for sub in nested))
    store = FindingStore()
    store.skip(config.problems + found.skipped)
    revision, revision_problem = read_revision(root)  # only a .git inside the analyzed root
    if revision_problem is not None:
        store.skip([SkippedFile(path=".git", reason=f"git revision not read: {revision_problem}")])
    files_scanned = lines_scanned = 0
    keeping = [domain for domain in worker.domains if domain.facts_type is not None]
    facts: dict[str, list] = {domain.name: [] for domain in keeping}
    generated: set[str] = set()  # files port wrote (reading/generated.py)
    digests: dict[str, str | None] = {}  # each file's content hash: byte-identical copies fold (fold_identical_files)
    # Results arrive in path order whatever the number of workers (output is the same for any --jobs) and are merged
    # as they come: the run never holds every file's results at once.
    cache = last = None
    settings = b""
    keys: dict[str, str | None] = {}
    ready: dict[str, FileResult] = {}  # results made before the scan (the files never cached, for the run key)
    parts: list[str | None] = []  # each file's share of the run key
    if options.cache_dir is not None:
        target_key = "|".join([worker.target.requested, worker.target.release.torch_npu,
                               *(f"{folder}={version}" for folder, version in worker.nested)])
        cache = FileCache(options.cache_dir, target_key, context, options.cache_max_bytes, root)
        last = ReportCache(cache.folder, root)
        # what the report depends on besides the files' results (ReportCache)
        settings = run_settings(cache, root=str(root), config=config, torch_npu=options.torch_npu,
                                excludes=options.excludes, calibration=options.calibration,
                                calibration_section=options.calibration_section, skipped=found.skipped,
                                files=[(f.path, f.kind) for f in found.files], revision=[revision, revision_problem])
    started, cpu_started = time.perf_counter(), time.process_time()
    ordered = sorted(files, key=lambda f: f.path)
    if cache is not None:
        keys = {f.path: cache.key_for(f) for f in ordered}
        if last.exists():  # the report of a run with the same inputs, if this is one
            uncached = [f for f in ordered if keys[f.path] is None]
            ready = dict(zip((f.path for f in uncached), _analyse(uncached, worker, 1, context)))
            parts = [cache.run_part(f, keys[f.path], ready.get(f.path)) for f in ordered]
            report = last.load(ReportCache.run_key(settings, parts)) if None not in parts else None
            if report is not None:
                cache.hits += len(ordered) - len(uncached)
                cache.trim()
                _record_stats(options, started, cpu_started, len(files), cache)
                if progress is not None:
                    progress(len(files), len(files))
                return report.model_copy(update={"generated": _report_date(options)})
            parts = []
    for done, (project_file, result) in enumerate(zip(ordered, _run(ordered, worker, options.jobs, context, cache,
                                                                    keys, ready)), start=1):
        if progress is not None:
            progress(done, len(files))
        if cache is not None:
            parts.append(cache.run_part(project_file, keys[project_file.path], result))
        store.add(result)
        digests[result.path] = result.digest
        if result.generated:
            generated.add(result.path)
        files_scanned += result.scanned
        lines_scanned += result.lines
        for domain in keeping:
            kept = getattr(result.facts, domain.name)
            if kept is not None:
                facts[domain.name].append(domain.keep(kept))
    _record_stats(options, started, cpu_started, len(files), cache)
    source = ScannedBytes(ordered, digests, worker.read)  # what a project pass reads again of a few files
    for domain in keeping:
        domain.read_later(facts[domain.name], source)
    if choice is None:  # the user named the target: every declaration is read for the pins' conflicts only
        choice = _target_choice(worker.domains, facts)
    modules = [f for domain in keeping if domain.provides_modules for f in facts[domain.name]]
    packages = package_folders(modules, context.source_roots)  # read by several of the project passes below
    copies = bundled_copies(modules, packages, context.readme_folders)  # likewise, and by the rooms
    run = ProjectRun(kb=worker.kb, target=worker.target, context=context, factory=worker.factory, config=config,
                     calibration=options.calibration, has_manifest=has_manifest(found.files), choice=choice,
                     packages=frozenset(packages), copies=copies, facts=facts,
                     paths=tuple(f.path for f in found.files),
                     unscanned=tuple(s.path.rstrip("/") for s in found.skipped if s.reason == SUBMODULE_REASON),
                     nested={folder: worker.kb.resolve_target(version) for folder, version in worker.nested})
    backends = load_context_conventions().backends
    predictors = {**hosted_predictors(found.files, backends), **hosted_notebooks(modules, backends)}
    run.guarded, run.modules = guarded_modules(modules, context, tuple(config.console_modules),
                                                 config.distribution, packages, predictors, copies), modules
    for domain in worker.domains:
        domain.add_findings(run)
    store.add_findings(run.findings)  # beside the scanners' findings, sorted and each site once
    run.findings = drop_subsumed(store.take_findings(), run.findings,
                                 {code: frozenset(rule.subsumes) for code, rule in worker.kb.rules.items() if rule.subsumes},
                                 frozenset(code for code, rule in worker.kb.rules.items() if rule.subsumes_scope == "symbol"))
    project_rules = {code for code, rule in worker.kb.rules.items() if rule.scope == "project"}
    feature_domains = frozenset(worker.guards.feature_domains)
    findings = [f for f in run.findings if f.path not in generated]
    declared = frozenset(row.package for row in run.published.get("dependency_matrix", ())
                         if row.sources or row.classification != "unknown")
    required = frozenset(row.package for row in run.published.get("dependency_matrix", ()) if row.sources)
    unreached = dict(run.published.get("unreached_code") or {})
    for path, ranges in readme_alternative_configs(config.readme, run.paths, modules, declared).items():
        unreached[path] = [*unreached.get(path, []), *ranges]  # a DeepSpeed config only a README alternative passes
    findings = propagate_reach(findings, modules, context, worker.factory, feature_domains, run.guarded,
                               config.distribution, declared, packages, unreached, copies, required)
    route = backends.nvidia_serving_route
    kits = nvidia_kits(modules, context, backends, packages, found.files, root)
    findings = fold_kits(findings, kits, worker.factory, Text(en=route.en, zh=route.zh) if route is not None else None)
    forks = engine_forks(modules, context, backends.engine_internals)
    findings = fold_forks(findings, forks, worker.factory)
    findings = drop_without_cause(findings, {code: frozenset(rule.needs_in_project) for code, rule in worker.kb.rules.items()
                                             if rule.needs_in_project})
    file_rules = frozenset(code for code, rule in worker.kb.rules.items() if rule.scope == "file")
    symbol_rules = frozenset(code for code, rule in worker.kb.rules.items() if rule.scope == "symbol")
    edited = frozenset(code for code, rule in worker.kb.rules.items() if rule.edit is not None)
    run.findings = fold_identical_files(
        fold_repeated_settings(fold_repeated_cells(fold_script_lines(
            collapse_project_scoped(findings, project_rules, file_rules, symbol_rules))),
                               edited),
        digests)
    for domain in worker.domains:
        domain.report(run)
    findings = run.findings
    target = worker.target
    report = Report(
        tool=ToolInfo(name=TOOL_NAME, version=__version__),
        generated=_report_date(options),
        target=Target(
            torch_npu=target.requested,
            release=target.release.torch_npu,
            branch=target.release.branch,
            torch=target.release.torch,
            cann=target.release.cann,
            note=target.note,
            chosen_by="requested" if options.torch_npu else "project" if choice.version else "default",
            reason=None if options.torch_npu else choice.reason,
            subprojects=[_subproject_target(worker, sub) for sub in nested],
        ),
        project=ProjectInfo(root=str(root), name=root.name, files_scanned=files_scanned, lines_scanned=lines_scanned,
                            npu_code=list(context.npu_files), own_packages=sorted(context.own_packages),
                            deployments=sorted([*kits, *forks, *(p for p, why in predictors.items()
                                                         if run.guarded.get(p) == ("optional", why))]),
                            project_revision=revision),
        findings=findings,
        skipped=store.skipped(),
        unused_suppressions=store.unused_suppressions(),
        **run.report_fields,
        summary=summarize(findings),
        calibration=options.calibration_section,
    )
    if cache is not None:
        if parts and None not in parts:
            last.store(ReportCache.run_key(settings, parts), report)
        cache.trim()  # the report too is an entry
    return report


def _subproject_target(worker: FileWorker, sub: Subproject) -> SubprojectTarget:
    release = worker.kb.resolve_target(sub.choice.version).release
    return SubprojectTarget(folder=sub.folder, release=release.torch_npu, torch=release.torch, branch=release.branch,
                            reason=Text(en=f"sub-project {sub.folder}: {sub.choice.reason.en}",
                                        zh=f"子项目 {sub.folder}：{sub.choice.reason.zh}"))


def _report_date(options: AnalyzeOptions) -> str:
    return options.generated or datetime.now(timezone.utc).date().isoformat()


def _record_stats(options: AnalyzeOptions, started: float, cpu_started: float, files: int,
                  cache: FileCache | None) -> None:
    if options.stats is not None:
        options.stats.update(scan_seconds=time.perf_counter() - started, files=files,
                             scan_cpu_seconds=time.process_time() - cpu_started,  # this process only
                             cache_hits=cache.hits if cache else 0, cache_misses=cache.misses if cache else 0)


def has_manifest(files: list[ProjectFile]) -> bool:
    names = {"pyproject.toml", "setup.py", "setup.cfg"}
    for project_file in files:
        name = path_view(project_file.path).name.lower()
        if name in names or (is_requirements_file(project_file.path) and project_file.kind == "build"):
            return True
        if name.startswith(("environment", "conda")) and name.endswith((".yml", ".yaml")):
            return True
    return False


def usable_jobs(requested: int | None) -> int:
    """Worker processes: what was asked for, never more than the cores this process may run on."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(requested or cores, cores))


def _project_target(root: Path, files: list[ProjectFile], paths: list[str], worker: FileWorker,
                    context: ProjectContext, linked_docs: frozenset[str] = frozenset()) -> tuple[TargetChoice, list[Subproject]]:
    """Read the build files' facts once, before the scan, to target the release the project can install, and the
    nested projects on a torch line of their own, each with its target from its own build files (core/subprojects.py).
    Examples', docs' and tests' manifests pin what a demo needs, not what the project installs."""
    read: list[tuple[str, object]] = []  # (path, facts) of each build file read
    # setup.py (Python) and environment.yml (YAML) are build files by role, whatever their kind: they name torch too
    # an install document of the project or its docs that sets up its code (in a folder with Python, or one the root
    # README links to as its install guide: `linked_docs`): its pins rank below every manifest's
    code = install_docs.code_folders(f.path for f in files if f.kind == "python")
    manifests = (f for f in files if (context.of(f.path).role == "build"
                 or (f.kind == "build" and context.of(f.path).role == "product")
                 or (f.kind == "install-doc" and context.of(f.path).role in {"product", "docs"}
                     and (install_docs.sets_up_code(f.path, code) or f.path in linked_docs))
                 or (f.kind == "shell" and install_docs.is_install_script(f.path)
                     and context.of(f.path).role in COUNTED_ROLES))
                 and context.of(f.path).reach != "other-backend")  # a ROCm image's torch is ROCm's, no requirement
    manifests = sorted(manifests, key=lambda f: f.path)
    for project_file in manifests:
        read.append((project_file.path, worker.process(project_file).facts))
    # a nested folder's own shell script that installs torch (show-o2/build_env.sh): read for that folder's target only
    taken = {f.path for f in manifests}
    scripts = {f.path: f for f in files if f.kind == "shell" and f.path not in taken and "/" in f.path
               and context.of(f.path).role in COUNTED_ROLES and context.of(f.path).reach != "other-backend"}
    scripted = script_folders(scripts, lambda path: _head_bytes(root, path))
    own_scripts = [(path, worker.process(f).facts) for path, f in sorted(scripts.items())
                   if str(PurePosixPath(path).parent) in scripted]

    def gathered(folder: str | None) -> dict[str, list]:
        facts: dict[str, list] = {domain.name: [] for domain in worker.domains}
        for path, file_facts in read if folder is None else read + own_scripts:
            if folder is None or subproject_of(path, (folder,)) is not None:
                for domain in worker.domains:
                    kept = getattr(file_facts, domain.name, None)
                    if kept is not None:
                        facts[domain.name].append(kept)
        return facts

    every = gathered(None)

    def choose(folder: str | None) -> TargetChoice:
        # a nested project's choice reads its own build files, beside the whole project's (the root README's
        # `pip install -e git+…#subdirectory=moshi` installs moshi/ from its pyproject.toml)
        return _target_choice(worker.domains, every if folder is None else gathered(folder), every)

    def line_of(version: str | None) -> str:
        return ".".join(worker.kb.resolve_target(version).release.torch.split(".")[:2])

    choice = choose(None)
    return choice, nested_projects(root, paths, choose, line_of(choice.version), line_of, scripted)


def _head_bytes(root: Path, path: str) -> bytes:
    try:
        return read_contained(root, path, MAX_FILE_BYTES)
    except Unreadable:
        return b""


def _target_choice(domains: list[Domain], facts: dict[str, list],
                   project: dict[str, list] | None = None) -> TargetChoice:
    for domain in domains:
        choice = domain.choose_target(facts.get(domain.name, []), (project or facts).get(domain.name, []))
        if choice is not None:
            return choice
    return TargetChoice(None, Text(en="default release: no domain reads the project's torch requirement",
                                  zh="默认发行版：没有领域读取项目的 torch 依赖"), [])


def _run(files: list[ProjectFile], worker: FileWorker, requested_jobs: int | None, context: ProjectContext,
         cache: FileCache | None = None, keys: dict[str, str | None] | None = None,
         ready: dict[str, FileResult] | None = None) -> Iterator[FileResult]:
    """Each file's result, in the order of `files`: from the cache where it has one, else analysed (and stored).
    `keys`: each file's cache key (FileCache.key_for) when the caller has them; `ready`: results already made."""
    if cache is None:
        yield from _analyse(files, worker, requested_jobs, context)
        return
    # First the keys (reading and hashing each file, keeping only the key), so that the files to analyse go to the
    # workers at once; then the results in path order, each cached one loaded only when its turn comes (the run never
    # holds every file's results at once).
    keys = {f.path: cache.key_for(f) for f in files} if keys is None else keys
    ready = ready or {}
    stored = {path for path, key in keys.items() if path not in ready and cache.has(key)}
    fresh = _analyse([f for f in files if f.path not in stored and f.path not in ready], worker, requested_jobs,
                     context)
    for project_file in files:
        result = None
        if project_file.path in ready:
            result = ready[project_file.path]
        elif project_file.path in stored:
            result = cache.load(keys[project_file.path], project_file.path)
            if result is None:  # removed or damaged since: analysed here
                result = worker.process(project_file)
                cache.store(project_file, result)
        else:
            result = next(fresh)
            if keys[project_file.path] is not None:
                cache.misses += 1
            cache.store(project_file, result)
        yield result


def _analyse(files: list[ProjectFile], worker: FileWorker, requested_jobs: int | None,
             context: ProjectContext) -> Iterator[FileResult]:
    jobs = usable_jobs(requested_jobs)
    if jobs <= 1 or len(files) < PARALLEL_THRESHOLD:
        with budget.armed():
            yield from (worker.process(f) for f in files)
        return
    transfer.start_receiving()
    with ProcessPoolExecutor(max_workers=jobs, initializer=init_worker, initargs=(worker.target.requested, context,
                                                                                          worker.nested)) as pool:
        results: Iterable[FileResult] = pool.map(process_in_worker, files, chunksize=CHUNK_SIZE)  # in input order
        yield from results
