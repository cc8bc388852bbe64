"""`ascend-feasibility port`: from the report's findings to rewritten files, a device module and entry-point setup.

Only sites in product code that runs on Ascend are rewritten, reach `runs` or `cosmetic` (a printed memory figure
is worth the NPU's number, a "cuda" default every call overrides is not: nothing reads it; tests, examples, guarded, other-backend and NPU-path code are left as they are), and only for rules whose fix is `safe` (plus `unsafe` ones with --unsafe), each through
its rule's edit spec. Nothing is written here: the caller turns the result into a patch or applies it.
"""

from __future__ import annotations

import builtins
import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.context.project import _path_reach
from ascend_feasibility.analyzer.context.project_scope import parse_site
from ascend_feasibility.analyzer.context.propagation import never_used_default
from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.context.runtime_providers import cuda_provider_named
from ascend_feasibility.analyzer.context.selected_definitions import module_definitions, named_definitions
from ascend_feasibility.analyzer.core.models import Finding, Report
from ascend_feasibility.analyzer.port.edits import (
    Change,
    SiteOutcome,
    Style,
    byte_offset,
    cuda_literals,
    line_starts_of,
    plan_literal,
    plan_note,
    plan_site,
)
from ascend_feasibility.analyzer.port.entry_points import smoke_test_only, unimportable
from ascend_feasibility.analyzer.port.files import (
    FileRewrite,
    after_torch_import,
    binds_torch,
    check,
    compose,
    has_relative_import,
    identifiers,
    import_point,
    imports_any,
    imports_torch_npu,
    past_path_edits,
)
from ascend_feasibility.analyzer.port.flag_picks import flag_picks_rewritten_device
from ascend_feasibility.analyzer.port.guard_scope import availability_checks, check_expression, controlled
from ascend_feasibility.analyzer.port.host_device import HOST_PICK_REASON, host_device_picks
from ascend_feasibility.analyzer.port.imported import ImportedDefinitions
from ascend_feasibility.analyzer.port.launch_modes import module_launched
from ascend_feasibility.analyzer.port.rescan import Rescan, same_line_copies
from ascend_feasibility.analyzer.port.shell import SHELL_SUFFIXES, plan_shell
from ascend_feasibility.analyzer.port.unmoved_models import unmoved_model_reason
from ascend_feasibility.analyzer.port.worlds import TOP, TORCH_MODULES, Worlds
from ascend_feasibility.analyzer.reading.config import load_project_config
from ascend_feasibility.analyzer.reading.generated import PORT_MARK
from ascend_feasibility.analyzer.reading.parsing import parse, text, top_level_from_imports, walk
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained
from ascend_feasibility.knowledge import KnowledgeError, load_context_conventions, load_device_module, load_knowledge
from ascend_feasibility.knowledge.aten_coverage import load_coverage

SAFE_PATH = re.compile(r"^[A-Za-z0-9_./-]+$")  # paths git writes unquoted in a diff header
DEVICE_NAMES = ("_device", "_ascend_device", "_port_device")
TRANSFER_NOTE = (
    "transfer_to_npu patches torch at run time: torch.cuda.* and \"cuda\" go to the NPU, torch.jit.script is "
    "disabled, torch.cuda.DoubleTensor becomes a float type, is_cuda and torch.cuda.is_available() turn true on NPU"
)

PORTED_REACHES = frozenset({"runs", "cosmetic"})
AVAILABILITY_CHECK = "torch.cuda.is_available"  # the check a device id is picked by (unmoved_models.py)


@dataclass
class PortOptions:
    style: str = "agnostic"
    unsafe: bool = False
    only: frozenset[str] = frozenset()
    transfer_to_npu: bool = False
    plan_comments: bool = False  # a `# ascend: RULE (display-only): plan` comment above display-only sites


@dataclass
class PortResult:
    rewrites: list[FileRewrite] = field(default_factory=list)  # changed files, path order
    new_files: dict[str, str] = field(default_factory=dict)  # path -> content (the device module)
    unpatched: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    outcomes: list[SiteOutcome] = field(default_factory=list)  # every rewritable site, rewritten or not
    skipped_sites: list[tuple[Finding, str]] = field(default_factory=list)  # sites not attempted, and why
    device_module: str | None = None  # the first of device_modules (the one nearest the root)
    device_modules: list[str] = field(default_factory=list)  # one per import world that uses one
    entries: list[str] = field(default_factory=list)
    # the re-read of each rewritten Python file: (path, line in the original file, rule, symbol) still found on a
    # line the patch edited or on another line of a statement it edited (what the reviewer must finish)
    left_on_edited: list[tuple[str, int, str, str]] = field(default_factory=list)


def eligible(finding: Finding, options: PortOptions) -> str | None:
    """None when port may rewrite this finding's site, else why not."""
    rule = load_knowledge().rules.get(finding.rule)
    if rule is None:
        return "unknown rule"
    if rule.edit is None and (not options.plan_comments or finding.severity == "info"):
        return "display-only rule"
    if options.only and finding.rule not in options.only:
        return "not in --only"
    if rule.fix == "unsafe" and not options.unsafe:
        return "unsafe fix (use --unsafe)"
    if finding.suppressed:
        return "suppressed"
    if not finding.asks_for_change and not (rule.edit is not None and rule.edit.unpriced):
        return "its advice says to leave it"  # a variant's "leave the test as it is" (DEV007 cuda-only-feature)
    shell = finding.path.endswith(SHELL_SUFFIXES) and rule.edit is not None and rule.edit.shell is not None
    if finding.cell is not None or not (finding.path.endswith(".py") or shell):
        return "not a Python module"
    if finding.role != "product":
        return f"{finding.role} code"
    if finding.reach not in PORTED_REACHES:
        return f"reach {finding.reach}"
    if never_used_default(finding.reach_reason):
        return "a default every call overrides"  # the report counts no change there: rewriting it changes nothing
    return None


def deployed(deployments) -> Callable[[str], bool]:
    """Whether a path is one of `deployments` (the report's folders and files) or inside one of its folders."""
    exact = frozenset(deployments)
    folders = tuple(d + "/" for d in exact)
    return lambda path: path in exact or path.startswith(folders)


def port(root: Path, report: Report, options: PortOptions) -> PortResult:
    kb = load_knowledge()
    result = PortResult()
    by_path: dict[str, list[Finding]] = {}
    present: dict[str, list[Finding]] = {}  # every finding still to do, per file (what a guarded branch holds)
    # a separate deployment (an NVIDIA serving kit, a hosted predictor) does not run on Ascend: none of its files changes
    apart = deployed(getattr(report.project, "deployments", ()))
    for finding in (copy for f in report.findings for copy in _with_identical_copies(root, f)):
        if not finding.suppressed:
            present.setdefault(finding.path, []).append(finding)
        why = "a separate deployment" if apart(finding.path) else eligible(finding, options)
        if why is None:
            by_path.setdefault(finding.path, []).append(finding)
        elif kb.rules.get(finding.rule) is not None:
            result.skipped_sites.append((finding, why))
    conventions = load_context_conventions().roles
    backends = load_context_conventions().backends
    entries = sorted(
        e.path for e in report.phase_matrix.entries
        if e.script and e.path.endswith(".py") and file_role(e.path, conventions) == "product"
        and _path_reach(e.path, backends, set())[0] == "runs"  # not an XLA/XPU/NPU script: no torch_npu setup there
        and not apart(e.path)
    ) if report.phase_matrix is not None else []
    worlds = Worlds(root, module_launched(root), ("src", *load_project_config(root).source_roots))
    lines: dict[str, set[int]] = {}
    for finding in report.findings:
        lines.setdefault(finding.path, set()).add(finding.line)
    # a library module whose `__main__` block is a device-free smoke test is no entry: its importers load torch_npu
    entries = [path for path in entries if not smoke_test_only(root, path, lines.get(path, set()), worlds)]
    # a file that cannot be imported keeps its device sites: Step 0 there would change nothing
    of_file: dict[str, list[Finding]] = {}
    for finding in report.findings:
        of_file.setdefault(finding.path, []).append(finding)
    entries = [path for path in entries if not unimportable(of_file.get(path, []))]
    launches = _kernel_launches(report)
    parsed: dict[str, tuple[bytes, object]] = {}
    for path in sorted(p for p in by_path if p.endswith(SHELL_SUFFIXES)):
        _rewrite_script(root, path, by_path.pop(path), result)
    for path in sorted(set(by_path) | set(entries)):
        loaded = _load(root, path)
        if isinstance(loaded, str):
            result.unpatched.append((path, loaded))
            for finding in by_path.get(path, []):
                result.outcomes.append(SiteOutcome(finding, reason=f"file left unpatched: {loaded}"))
            continue
        parsed[path] = loaded
    # a script whose every device is the host (a weight dumper, a CPU export) gets no Step 0 (host_device.py); with
    # --transfer-to-npu, Step 0 also maps the CUDA code the script reaches through its imports, which is not read here
    entries = [path for path in entries if path not in parsed or options.transfer_to_npu
               or not _host_script(parsed[path][1], by_path.get(path, []))]
    result.entries = entries
    rescan = Rescan(getattr(getattr(report, "target", None), "torch_npu", None))
    for path, found in by_path.items():  # the report names a rule once per line: each of its sites is rewritten
        if path in parsed and any(kb.rules[f.rule].edit is not None for f in found):
            found += same_line_copies(found, rescan.sites(path, parsed[path][0]), kb.rules)
    # a project with its own NPU code has a device abstraction already (DeepSpeed's accelerators): no second one. Only
    # a Python module can be one: an Ascend CI workflow (verl's .github/workflows/e2e_ascend.yml), a guide or a
    # launch script is NPU code the port cannot route a site through
    own_abstraction = any(path.endswith(".py") and MODULE_MARK not in (previous_module(root, path) or "")
                          for path in report.project.npu_code)
    placed = _place_device_modules(root, report, by_path, parsed, worlds) \
        if options.style == "agnostic" and not own_abstraction else {}
    relative = {module_path: any(has_relative_import(tree) for path, (_, tree) in parsed.items()
                                 if _inside(path, PurePosixPath(module_path).parent))
                for module_path in set(placed.values()) if module_path is not None}
    uses: dict[str, set[str]] = {}
    # what a guarded branch may select from another module: the findings port leaves there (no rewrite for them),
    # above info (an info note such as ATT020's "SDPA runs on NPU" is no CUDA-only code)
    elsewhere = ImportedDefinitions(root, {path: [f for f in found if f.severity != "info" and eligible(f, options) is not None]
                                           for path, found in present.items()}, _load)
    for path in sorted(parsed):
        data, tree = parsed[path]
        # in the npu style torch.npu needs torch_npu loaded: without entry points, each patched file loads it
        entry = "entry" if path in entries else "fallback" if options.style == "npu" and not entries else None
        module_path = placed.get(path)
        located = module_path, relative.get(module_path, False), entry, worlds, own_abstraction
        rewrite, file_uses = _rewrite_file(path, data, tree, by_path.get(path, []), options, located,
                                           present.get(path, []), launches.get(path, set()), elsewhere,
                                           getattr(getattr(report, "target", None), "branch", None))
        result.outcomes.extend(rewrite.sites)
        if rewrite.problem is not None:
            result.unpatched.append((path, rewrite.problem))
            continue
        if rewrite.new is not None and rewrite.new != rewrite.old:
            result.rewrites.append(rewrite)
            if file_uses:
                uses.setdefault(module_path, set()).update(file_uses)
    attempted = {id(o.finding) for o in result.outcomes}  # a skipped test planned with its twin is no longer skipped
    result.skipped_sites = [(f, why) for f, why in result.skipped_sites if id(f) not in attempted]
    # one content for every device module written: a file of one world may load another world's module (and two
    # copies that differ leave the one a file happens to load without what another file calls: so-vits-svc's
    # diffusion/_device.py had no `move`)
    earlier_of = {module_path: previous_module(root, module_path) for module_path in uses}
    every = set().union(*uses.values(), *(offered_by(text or "") for text in earlier_of.values()))
    content = render_device_module(every)
    for module_path in sorted(uses):
        earlier = earlier_of[module_path]
        problem = check(module_path, content)
        if problem is not None:  # a broken knowledge template: never write it
            raise KnowledgeError(f"knowledge/port/device_module.toml: the device module {problem}")
        if earlier is None:
            result.new_files[module_path] = content
        elif earlier != content:  # an earlier port's module: the union of what both runs use
            result.rewrites.append(FileRewrite(module_path, earlier, content))
        result.device_modules.append(module_path)
    result.device_modules.sort(key=lambda path: (len(PurePosixPath(path).parts), path))
    result.device_module = result.device_modules[0] if result.device_modules else None
    result.rewrites.sort(key=lambda r: r.path)
    result.left_on_edited = [(r.path, line, rule, symbol) for r in result.rewrites if r.path in parsed and r.new
                             for line, rule, symbol in rescan.left_on_edited(r.path, r.old, r.new)]
    return result


MODULE_MARK = PORT_MARK  # in the device module and in verify_npu.py


def previous_module(root: Path, module_path: str) -> str | None:
    """The device module an earlier run of port wrote at module_path, or None when there is no file there."""
    if not (root / module_path).is_file():
        return None
    try:
        return read_contained(root, module_path, MAX_FILE_BYTES).decode("utf-8")
    except (Unreadable, UnicodeDecodeError):
        return ""


def offered_by(module_text: str) -> set[str]:
    """The device-module pieces a module text already holds."""
    return {piece.name for piece in load_device_module().function if piece.code.strip("\n") in module_text}


def _rewrite_script(root: Path, path: str, findings: list[Finding], result: PortResult) -> None:
    kb = load_knowledge()
    loaded = _load(root, path, "bash")
    if isinstance(loaded, str):
        result.unpatched.append((path, loaded))
        result.outcomes += [SiteOutcome(f, reason=f"file left unpatched: {loaded}") for f in findings]
        return
    data, tree = loaded
    new, outcomes = plan_shell(data, tree, [(f, kb.rules[f.rule].edit) for f in findings], _read_rules(kb))
    result.outcomes += outcomes
    if new is not None:
        result.rewrites.append(FileRewrite(path, data.decode("utf-8"), new, outcomes))


def _with_identical_copies(root: Path, finding: Finding) -> list[Finding]:
    """The finding, and one per site of it on the same line of a byte-identical copy of its file (the report counts
    a copied file's findings once, the copies as sites: each copy still needs the same edit)."""
    copies = [finding]
    sites = [parse_site(site) for site in finding.sites]
    wanted = [where for where in sites if where is not None and where[0] != finding.path and where[1] == finding.line
              and where[2] == finding.cell]
    if not wanted:
        return copies
    try:
        data = read_contained(root, finding.path, MAX_FILE_BYTES)
    except Unreadable:
        return copies
    for path, _, _ in wanted:
        try:
            same = read_contained(root, path, MAX_FILE_BYTES) == data
        except Unreadable:
            continue
        if same:
            copies.append(finding.model_copy(update={"path": path, "sites": []}))
    return copies


def _load(root: Path, path: str, language: str = "python") -> tuple[bytes, object] | str:
    if not SAFE_PATH.match(path) or path.startswith("-"):
        return "its path needs quoting in a patch"
    try:
        data = read_contained(root, path, MAX_FILE_BYTES)
    except Unreadable as exc:
        return str(exc)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    if b"\r" in data:
        return "carriage returns in line endings"
    tree = parse(language, data)
    if tree.has_error:
        return "does not parse"
    return data, tree


def _inside(path: str, folder: PurePosixPath) -> bool:
    return str(folder) != "." and PurePosixPath(path).parts[: len(folder.parts)] == folder.parts


def _is_package(root: Path, folder: PurePosixPath) -> bool:
    return (root / folder / "__init__.py").is_file()


def _device_module_path(root: Path, report: Report, by_path: dict[str, list[Finding]], parsed: dict,
                        worlds: Worlds) -> str:
    """<pkg>/_device.py for the project's own package with the most files to rewrite, else <name>_device.py."""
    candidates = {base for package in report.project.own_packages
                  for base in (PurePosixPath(package), PurePosixPath("src") / package) if _is_package(root, base)}
    # a namespace package at the top (Megatron-LM's megatron/ without __init__.py) holding packages counts too, when
    # the files are imported through it (`from megatron.core import ...`: their import world is the root)
    # (not src/: a layout folder, not a package; its packages are candidates through own_packages)
    candidates |= {PurePosixPath(PurePosixPath(path).parts[0]) for path in by_path
                   if len(PurePosixPath(path).parts) > 2 and PurePosixPath(path).parts[0] != "src"
                   and _package_chain(root, path) and worlds.world_of(path) == TOP}
    # only packages imported from the root (or src/): a package folder run as a script folder is a world of its own
    candidates = {base for base in candidates if worlds.world_of(f"{base}/_device.py") in (TOP, PurePosixPath("src"))}
    counts = {base: sum(1 for path in by_path if path in parsed and _inside(path, base)
                        and worlds.world_of(path) == worlds.world_of(f"{base}/_device.py")) for base in candidates}
    best = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    if best and best[0][1] > 0:
        return f"{best[0][0]}/_device.py"
    slug = re.sub(r"[^a-z0-9_]", "_", (report.project.name or "project").lower()).strip("_") or "project"
    if slug[0].isdigit():
        slug = f"p{slug}"
    return f"{slug}_device.py"


def _place_device_modules(root: Path, report: Report, by_path: dict[str, list[Finding]], parsed: dict,
                          worlds: Worlds) -> dict[str, str | None]:
    """The device module each parsed file imports, one per import world that needs one: the project's main one
    (`_device_module_path`) for the files of its world; in another world, the package of another world's module that
    the file imports when it loads (a tools/ script doing `from pkg.x import ...`), else a package of its own world
    holding its files to rewrite (vlmeval/ under a nested setup.py), else `_device.py` beside the world's scripts (a
    folder run as `python eval.py`). None where no module can go (a project's own file already holds every name, or
    nothing shows the file's folder on sys.path)."""
    # a module beside a world's scripts only where the folder is known to be on sys.path: a script run there, a file
    # imported by a name rooted there, or a sibling imported by its bare name (not a config file that a loader reads)
    scripts = {e.path for e in report.phase_matrix.entries if e.script} if report.phase_matrix is not None else set()
    main = _free(root, _device_module_path(root, report, by_path, parsed, worlds))
    main_world = worlds.world_of(main) if main is not None else None
    rewritten: dict[PurePosixPath, dict[PurePosixPath, int]] = {}  # world -> its regular packages -> files
    for path in by_path:
        world = worlds.world_of(path)
        if path in parsed and world != main_world and world != TOP:
            top = PurePosixPath(path).relative_to(world).parts if world != TOP else PurePosixPath(path).parts
            package = world / top[0]
            if len(top) > 1 and top[0].isidentifier() and _is_package(root, package):
                rewritten.setdefault(world, {}).setdefault(package, 0)
                rewritten[world][package] += 1
            else:
                rewritten.setdefault(world, {})
    packaged = {world: _free(root, f"{min(counts, key=lambda p: (-counts[p], str(p)))}/_device.py")
                for world, counts in rewritten.items() if counts}
    reachable = [m for m in [main, *packaged.values()] if m is not None and PurePosixPath(m).parent != TOP]
    placed: dict[str, str | None] = {}
    for path in parsed:
        world = worlds.world_of(path)
        nested = _nested_package(worlds, path, main) if main is not None else None
        if nested is not None:  # the file's own project shadows the main module's package (picoaudio's models/)
            placed[path] = _free(root, str(nested / "_device.py"))
        elif world == main_world or _beneath(worlds, path, main):
            placed[path] = main
        else:  # the package of another world that the file imports when it loads, else its own world's module
            placed[path] = next((m for m in reachable if _imports_package_of(worlds, path, world, m)), None) \
                or packaged.get(world) or (_free(root, str(world / "_device.py")) if world != TOP and (
                    path in scripts or world != PurePosixPath(path).parent or worlds.runs_from(world)) else None)
    return placed


def _beneath(worlds: Worlds, path: str, module_path: str | None) -> bool:
    """The file lies in the module's package folder (a script folder inside it, xtuner/tools/model_converters/, run
    by the installed package's CLI) with no project of its own on the way, and the package is importable from there:
    a build file installs it, or the README runs the file with `-m` from the root. Pointcept's
    pointcept/datasets/preprocessing/*/x.py, run by path in a project nothing installs, has only its own folder on
    sys.path: `from pointcept import _device` raises ModuleNotFoundError there (round 39 port hunk 5)."""
    if module_path is None or PurePosixPath(module_path).parent == TOP:
        return False
    package = PurePosixPath(module_path).parent
    folder = PurePosixPath(path).parent
    if not _inside(path, package) or not (path in worlds.launched_as_module or worlds.installed(package)):
        return False
    while folder != package:
        if worlds.is_build_root(folder):
            return False
        folder = folder.parent
    return True


def _imports_package_of(worlds: Worlds, path: str, world: PurePosixPath, module_path: str) -> bool:
    """The file imports the top package of the module absolutely, and no folder of its own world shadows it."""
    module = PurePosixPath(module_path)
    inner = module.relative_to(worlds.world_of(module_path)) if worlds.world_of(module_path) != TOP else module
    top = inner.parts[0]
    return worlds.imports_at_load(path, top) and not (worlds.root / world / top).exists() \
        and _nested_package(worlds, path, module_path) is None


def _nested_package(worlds: Worlds, path: str, module_path: str) -> PurePosixPath | None:
    """The folder `<nested>/<top>` of a nested project holding the file, where `<top>` is the top package of the
    device module's import (`models` for models/_device.py) and the file's own imports of `<top>.x` name modules that
    `<nested>/<top>/` holds and the module's package lacks: the file runs with `<nested>` on sys.path, where `<top>`
    is its own project's folder (Amphion's models/tta/picoaudio/picoaudio/ with models/controllable_diffusion.py, run
    from there: `from models import _device` would load picoaudio's models/, which has no device module)."""
    module = PurePosixPath(module_path)
    there = worlds.world_of(module_path)
    inner = module.relative_to(there) if there != TOP else module
    if len(inner.parts) < 2:
        return None
    top = inner.parts[0]
    names = {parts[1] for parts in worlds.imports(path) if parts[0] == top and len(parts) > 1}
    if not names:
        return None

    def holds(folder: PurePosixPath, name: str) -> bool:
        return (worlds.root / folder / f"{name}.py").is_file() or (worlds.root / folder / name).is_dir()

    if any(holds(there / top, name) for name in names):
        return None  # the module's own package holds what the file imports: it is the one loaded
    at = PurePosixPath(path).parent
    while at != there and at != TOP:
        if (worlds.root / at / top).is_dir() and all(holds(at / top, name) for name in names):
            return at / top
        at = at.parent
    return None


def _free(root: Path, module_path: str) -> str | None:
    """The module path, or _ascend_device.py beside it where the project has its own file there, or None."""
    for candidate in (module_path, str(PurePosixPath(module_path).with_name("_ascend_device.py"))):
        earlier = previous_module(root, candidate)
        if earlier is None or MODULE_MARK in earlier:
            return candidate
    return None


def _package_chain(root: Path, path: str) -> bool:
    """The file is at the root, or in a package (its folder has __init__.py) whose folders from the root are all
    identifiers (namespace packages allowed)."""
    parts = PurePosixPath(path).parts[:-1]
    if not parts:
        return True
    return _is_package(root, PurePosixPath(*parts)) and all(part.isidentifier() for part in parts)


def _import_line(path: str, module_path: str, relative: bool, entry: str | None, alias: str, worlds: Worlds) -> str | None:
    """The import of the device module from the file, read from the folder each of them is imported from: in the
    same world, relative only through regular packages (Python resolves it against the module's package); from
    another world, the absolute import of the module's package (the file imports that package already)."""
    here, there = worlds.world_of(path), worlds.world_of(module_path)
    module = PurePosixPath(module_path)
    inner = module.relative_to(there) if there != TOP else module
    suffix = "" if alias == module.stem else f" as {alias}"
    if path in worlds.launched_as_module and here != TOP and str(module.parent) != "." and all(
            part.isidentifier() for part in module.parent.parts):
        # `python -m gradio_demo.app` from the root: the root is on sys.path, the file's own folder is not
        return f"from {'.'.join(module.parent.parts)} import {module.stem}{suffix}"
    if here != there:
        # its import name: the path below its world, or below the source root holding it (src/diffusers/_device.py
        # is `diffusers`, never `src.diffusers`)
        dotted = ".".join((inner if there != TOP else worlds.below_source_root(module)).parent.parts)
        return f"from {dotted} import {module.stem}{suffix}" if dotted and dotted != "." else None
    if here != TOP and (worlds.imports_at_load(path, module.parts[0]) or worlds.imported_from_root(path)) and all(
            part.isidentifier() and worlds.is_package(PurePosixPath(*module.parent.parts[:depth]))
            for depth, part in enumerate(module.parent.parts, start=1)):
        # a file of a script folder that imports its folder as a package of the root when it loads (tortoise/api.py:
        # `from tortoise.models.x import ...`, installed by setup.py; also loaded by the installed console script),
        # or that other files import so, imports the device module the same way: `from utils import _device` fails
        return f"from {'.'.join(module.parent.parts)} import {module.stem}{suffix}"
    rebased = str(PurePosixPath(path).relative_to(here)) if here != TOP else path
    # relative where every folder on the way is a regular package, or where the file's own relative imports already
    # climb to the module's package (namespace folders between: EasyAnimate's pipeline/ and ui/ as a ComfyUI node)
    through = (relative and worlds.regular_chain(path, module.parent)) or worlds.climbs_to(path, module.parent)
    return _module_import(rebased, str(inner), through, entry, alias, True)


def _module_import(path: str, module_path: str, relative: bool, entry: str | None, alias: str, root_on_path: bool) -> str | None:
    """The import of the device module from file `path` under the local name `alias`, or None when no import works
    from there."""
    module = PurePosixPath(module_path)
    package = module.parent
    here = PurePosixPath(path)
    name = module.stem
    suffix = "" if alias == name else f" as {alias}"
    if str(package) == ".":  # a flat project: <name>_device.py at the root
        return f"import {name}{suffix}" if len(here.parts) == 1 or root_on_path else None
    dotted = ".".join(package.parts[1:] if package.parts[0] == "src" else package.parts)
    if not dotted:
        return None
    if _inside(path, package) and relative and not entry:
        level = len(here.parent.parts) - len(package.parts) + 1
        return f"from {'.' * level} import {name}{suffix}"
    if _inside(path, package) or (package.parts[0] != "src" and (len(here.parts) == 1 or root_on_path)):
        return f"from {dotted} import {name}{suffix}"
    return None


def _kernel_launches(report: Report) -> dict[str, set[int]]:
    """Per file, the lines of the project's own CUDA C++, CuPy and Numba kernels and of their Python launches. Triton
    kernels are not among them: triton-ascend runs them on the NPU, and their wrappers' buffers must move with them
    (xtuner's port turned `device='cuda'` in its Triton wrappers into the NPU device)."""
    found: dict[str, set[int]] = {}
    for row in report.custom_ops:
        if row.kind not in {"cuda", "cupy", "numba"}:
            continue
        if row.path.endswith(".py"):
            found.setdefault(row.path, set()).add(row.line)
        for caller in row.callers:
            path, _, line = caller.rpartition(":")
            if path.endswith(".py") and line.isdigit():
                found.setdefault(path, set()).add(int(line))
    return found


def _read_rules(kb) -> dict[str, str]:
    """The rule that reports a read of each environment variable a rule names (CUDA_VISIBLE_DEVICES: DEV201): a
    statement port adds after a site reads the variable again, and its marker names that rule."""
    return {name: rule.code for rule in kb.rules.values() for name in rule.match.env_vars or []}


def _kernel_functions(tree, lines: set[int]) -> list[tuple[int, int]]:
    """Line spans (0-based rows) of the functions holding a kernel or its launch."""
    spans = []
    for line in lines:
        node = tree.descendant_for_point_range((line - 1, 0), (line - 1, 0))
        while node is not None and node.type != "function_definition":
            node = node.parent
        if node is not None:
            spans.append((node.start_point[0], node.end_point[0]))
    return spans


def _rewrite_file(path, data, tree, findings, options, located, present, launches,
                  elsewhere: ImportedDefinitions | None = None,
                  release: str | None = None) -> tuple[FileRewrite, set[str]]:
    module_path, relative, entry, worlds, own_abstraction = located
    kb = load_knowledge()
    rewrite = FileRewrite(path, data.decode("utf-8"))
    taken = identifiers(tree)
    alias = next((name for name in DEVICE_NAMES if name not in taken), None)
    style = Style(options.style, alias or DEVICE_NAMES[0])
    starts = line_starts_of(data)
    notes: list[tuple[int, str]] = []
    noted: set[tuple[int, str]] = set()  # (function, rule): one plan comment per function and rule
    kernels = _kernel_functions(tree, launches)
    read_rules = _read_rules(kb)
    guarded = Guarded(data, starts, present, tree, path, elsewhere, release)
    findings = findings + _paired_twins(findings, guarded, options)
    for finding in sorted(findings, key=lambda f: (f.line, f.column, f.rule)):
        if kb.rules[finding.rule].edit is None:  # display-only, with --plan-comments: a comment with the plan
            note = plan_note(tree, data, starts, finding)
            scope = (_function_of(tree, data, starts, finding), finding.rule)
            if note is not None and scope not in noted and note not in notes:
                notes.append(note)
                noted.add(scope)
            else:
                note = None
            rewrite.sites.append(SiteOutcome(finding, reason="display-only: a comment with the plan"
                                             if note is not None else "display-only"))
            continue
        rule = kb.rules[finding.rule]
        if any(first <= finding.line - 1 <= last for first, last in kernels):
            rewrite.sites.append(SiteOutcome(finding, reason="in a function that runs or launches the project's own "
                                             "CUDA kernel: the NPU needs its own implementation of it"))
            continue
        read_rule = read_rules.get(finding.symbol)
        outcome = plan_site(tree, data, starts, finding, rule.edit, style,
                            rule.match.env_vars is not None or read_rule is not None, read_rule)
        rewrite.sites.append(outcome)
    device_import = None
    if any(o.uses or o.needs_torch for o in rewrite.sites if o.reason is None) and _installer(path, data, tree) \
            and "torch" not in taken and not imports_any(tree, TORCH_MODULES) and not worlds.loads_torch(path):
        # (a file naming `torch` has it, from a star import if not its own); only a "cuda"/"nccl" literal: there it
        # is a label or a wheel tag, not a device (a call such as
        # `model.cuda()` acts on a torch object from a library); an option's default is handed to the program
        for outcome in rewrite.sites:
            if (outcome.uses or outcome.needs_torch) and outcome.reason is None \
                    and kb.rules[outcome.finding.rule].edit.kind == "string" and not _argparse_default(tree, outcome):
                outcome.reason = "an installer that never imports torch, nor a module of the project that does: its " \
                    "\"cuda\" is a wheel tag or a label, not a torch device, and the device module would import torch"
                outcome.changes.clear()
    if any(o.uses for o in rewrite.sites if o.reason is None):
        device_import = _import_line(path, module_path, relative, entry, style.dev, worlds) \
            if module_path and alias else None
        if device_import is None:
            for outcome in rewrite.sites:
                if outcome.uses and outcome.reason is None:
                    outcome.reason = "the project has its own NPU code: route this through its device abstraction" \
                        if own_abstraction else "no import path from this file to the device module"
                    outcome.changes.clear()
    _hold_checks_of_unmoved_models(path, tree, rewrite.sites, elsewhere)
    _hold_host_picks(tree, rewrite.sites)
    _hold_cuda_checks(tree, rewrite.sites, kb, style, guarded)
    _hold_under_cuda_guards(rewrite.sites, kb, guarded)
    # a check held with its twin, or before an early exit the patch leaves, holds what it guards
    while _hold_paired(rewrite.sites, kb, guarded, options) | _hold_before_left_exits(rewrite.sites, guarded):
        _hold_cuda_checks(tree, rewrite.sites, kb, style, guarded)
        _hold_under_cuda_guards(rewrite.sites, kb, guarded)
    _hold_defaults_of_left_tests(tree, rewrite.sites, kb, guarded, options)
    _absorb(rewrite.sites, data)
    done = [o for o in rewrite.sites if o.reason is None and o.changes]
    imports: list[str] = []
    if any(o.needs_torch for o in done) and not binds_torch(tree):
        imports.append("import torch  # ascend: port")
    if device_import is not None and any(o.uses for o in done):
        imports.append(f"{device_import}  # ascend: port (device module)")
    # entries load torch_npu where they import torch; a project with its own NPU code loads it through that code
    setup = _entry_setup(options) if entry and not own_abstraction and (done or binds_torch(tree)) \
        and not imports_torch_npu(tree) else []
    if not done and not setup and not notes:
        return rewrite, set()
    at = past_path_edits(tree, data, import_point(tree, data), [change.start for outcome in done for change in outcome.changes])
    headers = []
    setup_at = after_torch_import(tree, data)
    if setup and setup_at is not None and setup_at != at:
        headers.append((setup_at, "".join(f"{line}\n" for line in setup)))
    elif setup:
        imports = setup + imports
    if imports:
        header = "".join(f"{line}\n" for line in imports)
        if at == len(data) and data and not data.endswith(b"\n"):
            header = "\n" + header.rstrip("\n")
        headers.append((at, header))
    headers += sorted(set(notes))
    changes = [change for outcome in done for change in outcome.changes]
    new, dropped = compose(data, changes, headers)
    for change in dropped:
        for outcome in done:
            if change in outcome.changes:
                outcome.reason = "overlaps another rewrite on the same code"
    problem = check(path, new)
    if problem is not None:
        rewrite.problem = problem
        for outcome in rewrite.sites:
            if outcome.reason is None:
                outcome.reason = f"file left unpatched: {problem}"
        return rewrite, set()
    rewrite.new = new
    uses = set()
    for outcome in done:
        if outcome.reason is None:
            uses |= outcome.uses
    return rewrite, uses


def _hold_checks_of_unmoved_models(path: str, tree, sites: list[SiteOutcome],
                                   elsewhere: ImportedDefinitions | None) -> None:
    """A `torch.cuda.is_available()` picking the device id of a class whose exported model is never moved stays
    (analyzer/port/unmoved_models.py)."""
    if elsewhere is None:
        return
    for outcome in sites:
        if outcome.reason is None and outcome.changes and outcome.finding.symbol == AVAILABILITY_CHECK:
            why = unmoved_model_reason(outcome.statement, tree, path, lambda p: elsewhere.load(elsewhere.root, p))
            if why is not None:
                outcome.reason = why
                outcome.changes.clear()


def _host_script(tree, findings: list[Finding]) -> bool:
    """Every device the file names is the host, and each site port would rewrite there is a pick it leaves."""
    picks = host_device_picks(tree)
    return picks is not None and all(_in_statements(f.line, picks) for f in findings)


def _in_statements(line: int, statements) -> bool:
    return any(s.start_point.row + 1 <= line <= s.end_point.row + 1 for s in statements)


def _hold_host_picks(tree, sites: list[SiteOutcome]) -> None:
    """A device pick of a script whose work stays on the host, read only as a checkpoint's map_location (host_device.py)."""
    picks = host_device_picks(tree) if any(o.reason is None and o.changes for o in sites) else None
    for outcome in sites:
        if picks and outcome.reason is None and outcome.changes and _in_statements(outcome.finding.line, picks):
            outcome.reason = HOST_PICK_REASON
            outcome.changes.clear()


def _hold_cuda_checks(tree, sites: list[SiteOutcome], kb, style: Style, guarded: "Guarded") -> None:
    """Sites whose rewrite changes what a comparison or a CUDA check in the same statement sees (the edit's `guard`):
    `stays` holds a site when its statement keeps a "cuda" literal the patch does not rewrite; `selects` rewrites a
    CUDA check only where it selects a "cuda" literal that the patch rewrites (in `"cuda" if check else "cpu"` the
    literal is rewritten with the check), since the rewritten check turns true on NPU, or where the code it guards
    runs on NPU after the patch; `branch` (a device test) holds a site whose branch would send the NPU into code that
    stays CUDA-only."""
    literal_edit = next((r.edit for r in kb.rules.values()
                         if r.edit is not None and r.edit.kind == "string" and "cuda" in r.edit.values), None)
    changed = True
    while changed:
        changed = False
        rewritten = [(c.start, c.end) for o in sites if o.reason is None for c in o.changes]
        for outcome in sites:
            edit = kb.rules[outcome.finding.rule].edit
            if outcome.reason is not None or not outcome.changes or edit.guard is None or outcome.statement is None:
                continue
            if edit.guard == "branch":
                outcome.reason = guarded.why_held(outcome, sites)
                if outcome.reason is None:
                    continue
                outcome.changes.clear()
                changed = True
                break
            literals = cuda_literals(outcome.statement)
            # a literal is handled when a change covers it, or adds "npu" right after it (a collection of names)
            stays = [n for n in literals if not any(s <= n.start_byte and n.end_byte <= e or s == e == n.end_byte
                                                    for s, e in rewritten)]
            first = outcome.changes[0]
            picked = [n for n in stays if edit.guard == "selects" and _picked_by(n, first)]
            if picked and literal_edit is not None and len(picked) == len(stays):
                extra = SiteOutcome(outcome.finding)
                for literal in picked:
                    plan_literal(literal, literal_edit, style, extra)
                outcome.changes += [Change(c.start, c.end, c.new, first.rule, first.comment_at) for c in extra.changes]
                if style.name == "agnostic":
                    outcome.uses |= set(literal_edit.uses)
                changed = True
                break
            if stays:
                outcome.reason = "a \"cuda\" literal in the same statement stays: after the rewrite it would be " \
                                 "compared or picked on NPU"
            elif edit.guard == "selects" and len(literals) == 0:
                if flag_picks_rewritten_device(outcome.statement, rewritten):
                    continue  # `use_cuda = <check>` picking `"cuda" if use_cuda else "cpu"`, rewritten: a device choice
                branch = guarded.why_held(outcome, sites)
                if branch is None and guarded.branch_of(outcome) is not None:
                    continue
                outcome.reason = branch or "the check guards CUDA-only code, not a device choice: review what it guards"
            else:
                continue
            outcome.changes.clear()
            changed = True
            break


def _hold_under_cuda_guards(sites: list[SiteOutcome], kb, guarded: "Guarded") -> None:
    """A site that runs only where a CUDA check or device test the patch leaves holds (guard_scope.controlled: the
    check's arm, the code after `if not <check>: return` or `assert <check>`, and both through a name set from the
    check) never runs on NPU: rewriting
    it changes nothing there until the check is ported, and leaves the line half-ported."""
    spans = []
    done = {id(o.finding) for o in sites if o.reason is None and o.changes}
    attempted = {id(o.finding) for o in sites}
    for _, finding in guarded.present:  # the checks this patch leaves, attempted or not (a guarded check is not)
        edit = kb.rules[finding.rule].edit if finding.rule in kb.rules else None
        # a CUDA check, or a device test the patch tried and held (`if device != "cuda": return device` holds the
        # rest of the block; one left for its reach is read as the analysis reads it)
        node = guarded.node_of(finding) if id(finding) not in done and edit is not None and (
            edit.guard == "selects" or (edit.guard == "branch" and id(finding) in attempted)) else None
        if node is not None:
            spans += [(first, last, finding.line, how)
                      for first, last, how in controlled(check_expression(node), asserts=edit.guard == "selects")]
    spans += _uncarried_check_spans(sites, kb, guarded)
    for outcome in sites:
        if outcome.reason is not None or not outcome.changes:
            continue
        start = outcome.changes[0].start
        # `<= last`: a statement added after the body's last one (DEV201's twin) is inserted at the body's end byte
        # the innermost check names it (the one whose arm holds the site, not an early exit further up)
        held = min(((last - first, line, how) for first, last, line, how in spans if first <= start <= last), default=None)
        if held is not None:
            outcome.reason = f"runs only where the CUDA check at line {held[1]} holds{held[2]}, which the patch " \
                             "leaves: port the check and its branch together"
            outcome.changes.clear()


def _uncarried_check_spans(sites: list[SiteOutcome], kb, guarded: "Guarded") -> list[tuple[int, int, int, str]]:
    """What the `torch.cuda.is_available()` checks that no ported finding carries control (guard_scope.controlled):
    a check on a line whose DEV104 another rule subsumes (DEV220's cpu/mps/cuda chain, yolov9's select_device `if not
    cpu and not mps and torch.cuda.is_available():`) stays as written, so a rewrite in its arm never runs on the NPU
    (round 41 port hunk 10)."""
    carried = [offset for offset, f in guarded.present
               if f.rule in kb.rules and kb.rules[f.rule].edit is not None and kb.rules[f.rule].edit.guard == "selects"]
    rewritten = [(c.start, c.end) for o in sites if o.reason is None for c in o.changes]
    spans = []
    for gate in availability_checks(guarded.tree):
        if any(gate.start_byte <= offset < gate.end_byte for offset in carried) \
                or any(start < gate.end_byte and gate.start_byte < end for start, end in rewritten):
            continue
        spans += [(first, last, gate.start_point.row + 1, how) for first, last, how in controlled(gate, operands=True)]
    return spans


def _condition_key(guarded: "Guarded", finding: Finding) -> tuple[int, str] | None:
    """(the function the site is in; its condition's text without layout) when the site is part of the condition of
    an if, elif or while in a function, else None: a script's module-level checks are far apart and each decides its
    own statements, and a conditional expression picks a value whose arms are each right on their own (open_lm's
    `"cuda" if <check> else "cpu"` beside `xformers_attn if <check> else torch_attn`)."""
    found = guarded.branch_of(finding)
    scope = found[1] if found is not None and found[0].type != "conditional_expression" else None
    while scope is not None and scope.type != "function_definition":
        scope = scope.parent
    return (scope.start_byte, " ".join(text(found[1]).split())) if scope is not None else None


def _paired_twins(findings: list[Finding], guarded: "Guarded", options: PortOptions) -> list[Finding]:
    """The tests of a condition that a site port rewrites tests too, in the same function, which port skipped only
    because their reach is cuda-only-guarded (the check "only guards a message"): the two go to the NPU together
    (BLIP's MetricLogger.log_every: `if torch.cuda.is_available():` adds `{memory}` to the format, a second one
    supplies `memory=`; rewriting the first alone raises KeyError on NPU)."""
    keys = {key for key in (_condition_key(guarded, f) for f in findings) if key is not None}
    if not keys:
        return []
    planned = {id(f) for f in findings}
    return [f for _, f in guarded.present if id(f) not in planned and f.reach == "cuda-only-guarded"
            and eligible(f.model_copy(update={"reach": "runs"}), options) is None and _condition_key(guarded, f) in keys]


# reaches whose code never runs on NPU: a test there cannot disagree with its twin there
_OFF_NPU = frozenset({"other-backend", "dead-at-target"})


def _hold_paired(sites: list[SiteOutcome], kb, guarded: "Guarded", options: PortOptions) -> bool:
    """Within one function, every test of the same condition gets the same decision: where one is left as it is,
    the rewritten ones are held with it (their arms may depend on each other: a format built under one and filled
    under the other). A twin that never runs on NPU (under a CUDA check the patch leaves, or other-backend code)
    decides nothing there and holds nothing. True when a site was held."""
    outcomes = {id(o.finding): o for o in sites}
    groups: dict[tuple[int, str], list[Finding]] = {}
    for _, finding in guarded.present:
        if finding.rule in kb.rules and kb.rules[finding.rule].edit is not None:
            key = _condition_key(guarded, finding)
            if key is not None:
                groups.setdefault(key, []).append(finding)
    held = False
    for group in groups.values():
        rewritten = [outcomes[id(f)] for f in group if id(f) in outcomes and outcomes[id(f)].rewritten]
        if not rewritten or len(rewritten) == len(group):
            continue
        left = [(f, outcomes[id(f)].reason if id(f) in outcomes else eligible(f, options)) for f in group
                if id(f) not in outcomes or not outcomes[id(f)].rewritten]
        left = [(f, why) for f, why in left if f.reach not in _OFF_NPU
                and not (why or "").startswith("runs only where the CUDA check at line ")]
        if not left:
            continue
        twin, why = min(left, key=lambda item: (item[0].line, item[0].column))
        for outcome in rewritten:
            outcome.reason = f"the test of the same condition at line {twin.line} stays ({why}): the tests of one " \
                             "condition in a function are ported together, or their branches disagree on NPU"
            outcome.changes.clear()
            held = True
    return held


EARLY_EXIT = "the branch it decides leaves the block early"


def _hold_before_left_exits(sites: list[SiteOutcome], guarded: "Guarded") -> bool:
    """A test the patch rewrites earlier in a function whose early exit on the same check stays (`device =
    torch.device("cuda" if torch.cuda.is_available() else "cpu")`, then `if not torch.cuda.is_available(): return`):
    on NPU the function still returns at the exit, so the rewritten pick reads as a finished port that never runs
    (round 27 port hunk 1: nanoVLM's measure_vram). Only a conditional expression's test, a value picked for later
    use: an `if <check>:` before the exit is judged by its own arm, and its tests of the same text by _hold_paired.
    True when a site was held."""
    exits = [o for o in sites if (o.reason or "").startswith(EARLY_EXIT)]
    held = False
    for exit_site in exits:
        scope = _function_of(guarded.tree, guarded.data, guarded.starts, exit_site.finding)
        if scope < 0:
            continue
        for outcome in sites:
            finding = outcome.finding
            if (outcome.rewritten and (finding.rule, finding.symbol) == (exit_site.finding.rule, exit_site.finding.symbol)
                    and finding.line < exit_site.finding.line and _picks_a_value(guarded, outcome)
                    and _function_of(guarded.tree, guarded.data, guarded.starts, finding) == scope):
                outcome.reason = f"the early exit on the same check at line {exit_site.finding.line} stays (it guards " \
                                 "the rest of the function): the tests of one check in a function are ported together"
                outcome.changes.clear()
                held = True
    return held


def _picks_a_value(guarded: "Guarded", outcome: SiteOutcome) -> bool:
    found = guarded.branch_of(outcome)
    return found is not None and found[0].type == "conditional_expression"


def _hold_defaults_of_left_tests(tree, sites: list[SiteOutcome], kb, guarded: "Guarded", options: PortOptions) -> None:
    """A "cuda" default the patch rewrites (`add_argument("--device", default="cuda")`, `def load(device="cuda")`,
    `device = "cuda"`) is held where a device test of a value of the same name in the file stays (`elif device ==
    "cuda":` in the function the value is handed to, whose else raises): on the NPU the new default would reach the
    test unported (gorilla_cli's `ValueError: Invalid device: npu`). The value and its tests go together."""
    outcomes = {id(o.finding): o for o in sites}
    left: dict[str, tuple[Finding, str | None]] = {}
    for _, finding in guarded.present:
        edit = kb.rules[finding.rule].edit if finding.rule in kb.rules else None
        outcome = outcomes.get(id(finding))
        if edit is None or edit.kind != "device_test" or finding.reach in _OFF_NPU or (
                outcome is not None and outcome.rewritten):
            continue
        node = guarded.node_of(finding)
        name = _tested_name(node) if node is not None else None
        if name is not None and name not in left:
            left[name] = (finding, outcome.reason if outcome is not None else eligible(finding, options))
    if not left:
        return
    for outcome in sites:
        edit = kb.rules[outcome.finding.rule].edit
        if outcome.reason is not None or not outcome.changes or edit is None or edit.kind != "string":
            continue
        literal = tree.descendant_for_byte_range(outcome.changes[0].start, outcome.changes[0].end)
        name = _default_name(literal) if literal is not None else None
        if name in left:
            test, why = left[name]
            outcome.reason = f"the test of {name} at line {test.line} stays ({why or 'not ported'}): a default " \
                             "changed to the NPU would reach it unported; the value and its tests go together"
            outcome.changes.clear()


def _installer(path: str, data: bytes, tree) -> bool:
    """An installer or setup script: named install*/setup*, or one that runs pip (a "pip" argument)."""
    if PurePosixPath(path).stem.lower().startswith(("install", "setup")):
        return True
    if b"pip" not in data:  # bytes test before any walk
        return False
    return any(node.type == "string" and text(node).strip("\"'") == "pip" and node.parent is not None
               and node.parent.type in {"argument_list", "list", "tuple"} for node in walk(tree, limit=200_000))


def _is_argparse_default(parent) -> bool:
    """`default=` in a call that names an option (`add_argument("--device", default=...)`)."""
    return parent.type == "keyword_argument" and text(parent.child_by_field_name("name")) == "default" \
        and parent.parent is not None and parent.parent.type == "argument_list" \
        and any(a.type == "string" and text(a).strip("\"'").startswith("-") for a in parent.parent.named_children)


def _argparse_default(tree, outcome: SiteOutcome) -> bool:
    """The site's change is a string literal given as an option's default (the value the program receives)."""
    if not outcome.changes:
        return False
    node = tree.descendant_for_byte_range(outcome.changes[0].start, outcome.changes[0].end)
    node = node.parent if node is not None and node.type != "string" and node.parent is not None else node
    return node is not None and node.type == "string" and node.parent is not None and _is_argparse_default(node.parent)


def _tested_name(node) -> str | None:
    """The name a device test compares as a string (`device` in `device == "cuda"`, `args.device == "cuda"`); not
    a torch.device's `.type` (`device.type == "cuda"`: another value than the string a default gives)."""
    while node is not None and node.type not in {"comparison_operator", "call"}:
        node = node.parent
    operands = [child for child in node.named_children if child.type in {"identifier", "attribute"}] \
        if node is not None and node.type == "comparison_operator" else []
    return _last_name(operands[0]) if len(operands) == 1 else None


def _last_name(node) -> str | None:
    if node is not None and node.type == "attribute":
        attribute = node.child_by_field_name("attribute")
        return text(attribute) if attribute is not None and text(attribute) != "type" else None
    return text(node) if node is not None and node.type == "identifier" else None


def _default_name(literal) -> str | None:
    """The name a "cuda" literal is the default or initial value of: `--device` of `add_argument(..., default=)`, a
    parameter's default, or the target of `name = "cuda"`."""
    node = literal.parent if literal.type != "string" and literal.parent is not None else literal
    parent = node.parent if node.type == "string" else None
    if parent is None:
        return None
    if _is_argparse_default(parent):
        flags = [text(a).strip("\"'") for a in parent.parent.named_children if a.type == "string"]
        names = [f.lstrip("-").replace("-", "_") for f in flags if f.startswith("--")] or [f for f in flags if f.isidentifier()]
        return names[0] if names else None
    if parent.type in {"default_parameter", "typed_default_parameter"} and parent.child_by_field_name("value") == node:
        return text(parent.child_by_field_name("name"))
    if parent.type == "assignment" and parent.child_by_field_name("right") == node:
        return _last_name(parent.child_by_field_name("left"))
    return None


def _positive(condition, node) -> bool:
    """Is node (the check) the condition itself or a conjunct of it, not negated?"""
    while node is not None and node != condition:
        parent = node.parent
        if parent is None or parent.type == "not_operator" or (
                parent.type == "boolean_operator" and text(parent.child_by_field_name("operator")) != "and"):
            return False
        node = parent
    return node == condition


def _absorb(sites: list[SiteOutcome], data: bytes) -> None:
    """A site whose changes lie inside another site's change (`torch.cuda.current_device()` in `x.cuda(device=...)`,
    the "cuda" literal of `"cuda" if "cuda" in device else "cpu"`) is rewritten through that change: where the outer
    replacement still carries the inner code, the inner replacement is made there; where it does not, the outer one
    replaced it as a whole. Either way the inner site counts as rewritten."""
    done = [o for o in sites if o.reason is None and o.changes]
    for inner in done:
        for change in list(inner.changes):
            outer_site, outer = next(((o, c) for o in done if o is not inner for c in o.changes
                                      if c.start <= change.start and change.end <= c.end
                                      and (c.start, c.end) != (change.start, change.end)), (None, None))
            if outer is None:
                continue
            original = data[change.start: change.end].decode("utf-8")
            index = outer_site.changes.index(outer)
            if original and original in outer.new:
                outer_site.changes[index] = Change(outer.start, outer.end, outer.new.replace(original, change.new),
                                                   outer.rule, outer.comment_at)
                outer_site.uses |= inner.uses
                outer_site.needs_torch |= inner.needs_torch
            inner.changes.remove(change)
            inner.absorbed = True


BRANCH_PARENTS = {"if_statement", "elif_clause", "while_statement", "conditional_expression"}
TEST_PARTS = {"boolean_operator", "not_operator", "parenthesized_expression", "comparison_operator", "call",
              "attribute", "argument_list"}


class Guarded:
    """What a device test or CUDA check decides: the code of the branch it is the condition of, and whether that code
    runs on NPU after the patch."""

    def __init__(self, data: bytes, starts: list[int], present: list[Finding], tree, path: str = "",
                 elsewhere: ImportedDefinitions | None = None, release: str | None = None) -> None:
        self.data, self.starts, self.tree = data, starts, tree
        self.present = [(byte_offset(data, starts, f.line, f.column), f) for f in present]
        self.path, self.elsewhere = path, elsewhere
        self.release = release  # the target torch_npu release's branch: which ATen operators run on the NPU

    def node_of(self, f: Finding):
        begin = byte_offset(self.data, self.starts, f.line, f.column)
        end = byte_offset(self.data, self.starts, f.end_line, f.end_column)
        return self.tree.descendant_for_byte_range(begin, end) if 0 <= begin <= end else None

    def branch_of(self, outcome: SiteOutcome | Finding):
        """(the branching node, its condition) when the site is part of a branch's condition, else None."""
        node = self.node_of(outcome if isinstance(outcome, Finding) else outcome.finding)
        while node is not None and node.parent is not None and node.parent.type in TEST_PARTS:
            node = node.parent
        parent = node.parent if node is not None else None
        if parent is None or parent.type not in BRANCH_PARENTS:
            return None
        condition = parent.named_children[1] if parent.type == "conditional_expression" \
            and parent.named_child_count == 3 else parent.child_by_field_name("condition")
        if condition is None or not (condition.start_byte <= node.start_byte and node.end_byte <= condition.end_byte):
            return None
        branch = parent.parent if parent.type == "elif_clause" else parent
        return branch, condition

    @functools.cached_property
    def _definitions(self) -> dict:
        """name → node of the file's module-level functions and classes (decorators included)."""
        return module_definitions(self.tree)

    @functools.cached_property
    def _imported(self) -> dict:
        """local name → the module it is imported from (as written, dots included) and its name there, of the file's
        top-level `from module import name [as local]` statements."""
        return top_level_from_imports(self.tree)

    @functools.cached_property
    def _kernel_free_names(self) -> frozenset[str]:
        """Local names the file's top-level imports bind to what runs no CUDA kernel: the standard library
        (`from contextlib import nullcontext`), torch outside torch.cuda (`import torch as th`, `DDP`) and packages
        with no accelerator code (`from mpi4py import MPI`)."""
        def kernel_free(module: str) -> bool:
            return module.split(".")[0] in sys.stdlib_module_names or _torch_api(module) \
                or load_knowledge().host_only(module)
        names = {local for local, (module, _) in self._imported.items() if kernel_free(module)}
        for child in self.tree.named_children:
            if child.type == "import_statement":
                for item in child.children_by_field_name("name"):
                    module = item.child_by_field_name("name") if item.type == "aliased_import" else item
                    alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                    if module is not None and kernel_free(self._text(module)):
                        names.add(self._text(alias) if alias is not None else self._text(module).split(".")[0])
        return frozenset(names)

    def _ported_project_call(self, called: str) -> bool:
        """Does `f` (`from .mod import f`) or `mod.f` (`from . import mod`) name a definition of another project file
        in which the port leaves no finding (improved-diffusion's `dist_util.dev()`, whose CUDA check it ports)?"""
        if self.elsewhere is None:
            return False
        head, _, name = called.rpartition(".")
        if not head:
            module, original = self._imported.get(name, (None, None))
            return module is not None and self.elsewhere.ported(self.path, module, original)
        if "." in head or head not in self._imported:
            return False
        module, original = self._imported[head]
        return self.elsewhere.ported(self.path, module + original if module.endswith(".") else f"{module}.{original}",
                                     name)

    def _text(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def why_held(self, outcome: SiteOutcome, sites: list[SiteOutcome]) -> str | None:
        """None when the branch the site decides may run on NPU after the patch, else why it is held."""
        found = self.branch_of(outcome)
        if found is None:
            if outcome.test in {None, "value"} or (outcome.test == "widen" and outcome.statement is not None
                                                   and outcome.statement.type == "assert_statement"):
                return None
            return "the test's answer is kept or passed on (an assignment, a return, an argument): where it leads " \
                   "is not known here, review it"
        branch, condition = found
        # what the branch may keep: the sites the patch rewrites, and constructs that run on the NPU as written (DDP)
        done = {id(o.finding) for o in sites if o.rewritten} | {id(f) for _, f in self.present if _runs_on_npu(f)}
        for offset, finding in self.present:
            if not branch.start_byte <= offset < branch.end_byte or finding is outcome.finding:
                continue
            if id(finding) not in done:
                return f"the branch it decides keeps {finding.rule} at line {finding.line}: on NPU it would run CUDA-only code"
        for name, definition in named_definitions(branch, self._definitions, skip=condition):
            for offset, finding in self.present:
                if definition.start_byte <= offset < definition.end_byte and id(finding) not in done:
                    return (f"the branch it decides selects {name}, which keeps {finding.rule} at line {finding.line}: "
                            "on NPU it would run CUDA-only code")
        if self.elsewhere is not None and self._imported:
            for name, (module, original) in named_definitions(branch, self._imported, skip=condition):
                finding = self.elsewhere.kept_in(self.path, module, original)
                if finding is not None:
                    return (f"the branch it decides selects {name}, which keeps {finding.rule} at "
                            f"{finding.path}:{finding.line}: on NPU it would run CUDA-only code")
        opened = _opened_arm(condition, self.node_of(outcome.finding))
        provider = cuda_provider_named(opened)
        if provider is not None:
            return (f"the branch it decides picks ONNX Runtime's {provider}, not a torch device: true on NPU it would "
                    "ask for that provider there; the NPU's is CANNExecutionProvider (onnxruntime-cann), by hand")
        missing = _aten_without_npu_kernel(opened, self.release)
        if missing is not None:
            return (f"the branch it decides runs {missing}, an ATen operator with no NPU kernel at torch_npu "
                    f"{self.release} (knowledge/operators/npu_aten.toml): the NPU needs its own route for this path")
        # a check that opens its own arm to the NPU (`if <check>: return torch.device("cuda:0")`) is judged by that arm
        # below; one that opens the rest of the block (`if not <check>: return`) guards code this branch does not show
        if branch.type != "conditional_expression" and _jumps(branch) \
                and opened != condition.parent.child_by_field_name("consequence"):
            return "the branch it decides leaves the block early: the code after it is what it guards, review it"
        rewritten = [(c.start, c.end) for o in sites if o.reason is None for c in o.changes]
        risky = _opaque_call(branch, condition, rewritten, self._kernel_free_names, self._ported_project_call)
        if risky is not None:
            return f"the branch it decides calls {risky}, which may be CUDA-only: review it by hand"
        return None


_BUILTINS = frozenset(dir(builtins))
# Calls a guarded branch may make and still run on NPU: modules whose functions are not kernels, and tensor, module
# and container methods that torch_npu implements for NPU tensors as for CUDA ones.
_SAFE_ROOTS = frozenset({"torch", "os", "sys", "math", "time", "logging", "logger", "log", "warnings", "np", "numpy",
                         "json", "random", "dist", "_device", "_ascend_device", "_port_device"})
_SAFE_METHODS = frozenset({
    "to", "cpu", "float", "half", "bfloat16", "int", "long", "bool", "contiguous", "view", "reshape", "pin_memory",
    "clone", "detach", "copy_", "record_stream", "item", "numpy", "tolist", "size", "dim", "fill_", "zero_",
    "unsqueeze", "squeeze", "permute", "transpose", "type", "append", "extend", "update", "get", "pop", "format",
    "join", "split", "strip", "keys", "values", "items", "info", "debug", "warning", "print", "add_", "mul_", "div_",
    "sum", "mean", "max", "min", "eval", "train", "state_dict", "load_state_dict", "parameters", "requires_grad_",
    "set_device", "synchronize", "empty_cache", "manual_seed", "manual_seed_all", "move",
})


def _torch_api(module: str) -> bool:
    """A torch module other than the CUDA-only ones: what it offers runs on NPU tensors as on CUDA ones."""
    return (module == "torch" or module.startswith("torch.")) and not module.startswith(
        ("torch.cuda", "torch.backends.cuda", "torch.backends.cudnn"))


def _runs_on_npu(finding: Finding) -> bool:
    rule = load_knowledge().rules.get(finding.rule)
    return rule is not None and rule.runs_on_npu


def _opened_arm(condition, check):
    """The arm a rewritten check opens to the NPU: the consequence when the check is the condition or a conjunct of
    it and asks "is it CUDA" (not `!=` / `not in`), else the whole branching statement (every arm is looked at)."""
    clause = condition.parent
    negated = check is not None and check.type == "comparison_operator" and any(
        " ".join(text(op).split()) in {"!=", "not in"} for op in check.children_by_field_name("operators"))
    if check is None or negated or not _positive(condition, check):
        return clause.parent if clause.type == "elif_clause" else clause
    if clause.type == "conditional_expression":
        return clause.named_children[0]
    return clause.child_by_field_name("consequence") or clause


ATEN_PREFIX = "torch.ops.aten."


def _aten_without_npu_kernel(arm, release: str | None) -> str | None:
    """The first `torch.ops.aten.<op>[.<overload>](...)` call in arm (outside nested definitions) whose operator the
    release does not run on the NPU (no NPU kernel: a CPU fallback or an error), else None. A packet call
    (`torch.ops.aten.op(...)`) runs only when every overload of it the table knows does."""
    if release is None or arm is None:
        return None
    coverage = load_coverage()
    for node in walk(arm, prune={"function_definition", "class_definition", "lambda"}):
        function = node.child_by_field_name("function") if node.type == "call" else None
        name = text(function) if function is not None and function.type == "attribute" else ""
        if name.startswith(ATEN_PREFIX):
            op, _, overload = name[len(ATEN_PREFIX):].partition(".")
            wanted = [op if overload in {"", "default"} else f"{op}.{overload}"]
            if not overload:
                wanted += [key for key in coverage.kernel if key.startswith(f"{op}.")]
            if not all(coverage.runs(key, release) for key in wanted):
                return name
    return None


def _opaque_call(branch, condition, rewritten: list[tuple[int, int]], standard: frozenset[str] = frozenset(),
                 ported: Callable[[str], bool] = lambda called: False) -> str | None:
    """The first call in the branch (outside its condition and nested definitions) that may run a CUDA-only kernel: a
    bare function that is not a builtin nor one of `standard` (names the file imports from the standard library:
    `from contextlib import nullcontext`, the other arm of CosyVoice's `torch.cuda.stream(...) if
    torch.cuda.is_available() else nullcontext()`; or from torch: `DDP`, and aliases of torch modules: `th.device`), a launch through a subscript (Triton's `kernel[grid](...)`), or a
    method that is not a known tensor, module or container method on an object outside the safe modules. Calls the
    patch rewrites (rewritten: byte ranges of its changes) go through the device module; `ported(name)` says a call
    names a project definition in which the patch leaves nothing."""
    stack = [branch]
    while stack:
        node = stack.pop()
        if node.type in {"function_definition", "class_definition", "lambda"} or node == condition:
            continue
        function = node.child_by_field_name("function") if node.type == "call" else None
        if function is not None and {(node.start_byte, node.end_byte), (function.start_byte, function.end_byte)} \
                & set(rewritten):
            stack.extend(node.child_by_field_name("arguments").children if node.child_by_field_name("arguments") else [])
            stack.append(function.child_by_field_name("object") or function)
            continue
        if node.type == "call":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "subscript":
                return text(function)
            if function is not None and function.type == "identifier" and text(function) not in _BUILTINS \
                    and text(function) not in standard and not ported(text(function)):
                return text(function)
            if function is not None and function.type == "attribute":
                root = function
                while root.type in {"attribute", "call", "subscript"} and root.named_child_count:
                    root = root.named_children[0]
                method = text(function.child_by_field_name("attribute"))
                if text(root) not in _SAFE_ROOTS and text(root) not in standard \
                        and text(root) not in sys.stdlib_module_names and method not in _SAFE_METHODS \
                        and not ported(text(function)):
                    return text(function)
        stack.extend(node.children)
    return None


def _jumps(branch) -> bool:
    """Does the branch return, raise, break or continue (outside nested definitions)?"""
    return any(node.type in _JUMPS for child in branch.children
               for node in walk(child, prune=_NESTED_SCOPES, named=False))


_JUMPS = frozenset({"return_statement", "raise_statement", "break_statement", "continue_statement"})
_NESTED_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


def _function_of(tree, data: bytes, starts: list[int], finding: Finding) -> int:
    """The start byte of the function a finding is in (-1: module level)."""
    node = tree.descendant_for_byte_range(*(2 * [byte_offset(data, starts, finding.line, finding.column)]))
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node.start_byte if node is not None else -1


def _picked_by(literal, check: Change) -> bool:
    """The literal is what `"cuda" if <check> else ...` picks when the check (a change's byte range) holds."""
    node = literal
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    parent = node.parent
    if parent is None or parent.type != "conditional_expression" or len(parent.children) < 3 or parent.children[0] != node:
        return False
    condition = parent.children[2]
    return condition.start_byte <= check.start and check.end <= condition.end_byte


def _entry_setup(options: PortOptions) -> list[str]:
    if options.style == "npu":
        lines = ["import torch_npu  # noqa: F401  # ascend: port (Step 0: registers the NPU device)"]
        if options.transfer_to_npu:
            lines += [f"# ascend: port --transfer-to-npu. {TRANSFER_NOTE}",
                      "from torch_npu.contrib import transfer_to_npu  # noqa: F401"]
        return lines
    lines = [
        "import importlib.util  # ascend: port (Step 0: load torch_npu where it is installed)",
        "",
        "if importlib.util.find_spec(\"torch_npu\") is not None:",
        "    import torch_npu  # noqa: F401",
    ]
    if options.transfer_to_npu:
        lines += [f"    # ascend: port --transfer-to-npu. {TRANSFER_NOTE}",
                  "    from torch_npu.contrib import transfer_to_npu  # noqa: F401"]
    return lines + [""]


def render_device_module(uses: set[str]) -> str:
    template = load_device_module()
    parts = [template.header.strip("\n") + "\n"]
    for piece in template.function:
        if piece.name in uses:
            parts.append("\n\n" + piece.code.strip("\n") + "\n")
    return "".join(parts)
