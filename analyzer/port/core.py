"""`ascend-feasibility port`: from the report's findings to rewritten files, a device module and entry-point setup.

Only sites in product code that runs on Ascend are rewritten, reach `runs` or `cosmetic` (a printed memory figure
is worth the NPU's number; tests, examples, guarded, other-backend and NPU-path code are left as they are), and only for rules whose fix is `safe` (plus `unsafe` ones with --unsafe), each through
its rule's edit spec. Nothing is written here: the caller turns the result into a patch or applies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.core.models import Finding, Report
from ascend_feasibility.analyzer.port.edits import (
    Change,
    SiteOutcome,
    Style,
    cuda_literals,
    line_starts_of,
    plan_literal,
    plan_note,
    plan_site,
)
from ascend_feasibility.analyzer.port.files import (
    FileRewrite,
    after_torch_import,
    binds_torch,
    check,
    compose,
    has_relative_import,
    identifiers,
    import_point,
    imports_torch_npu,
)
from ascend_feasibility.analyzer.port.shell import SHELL_SUFFIXES, plan_shell
from ascend_feasibility.analyzer.reading.parsing import parse
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained
from ascend_feasibility.knowledge import KnowledgeError, load_context_conventions, load_device_module, load_knowledge

STYLES = ("agnostic", "npu")
SAFE_PATH = re.compile(r"^[A-Za-z0-9_./-]+$")  # paths git writes unquoted in a diff header
DEVICE_NAMES = ("_device", "_ascend_device", "_port_device")
TRANSFER_NOTE = (
    "transfer_to_npu patches torch at run time: torch.cuda.* and \"cuda\" go to the NPU, torch.jit.script is "
    "disabled, torch.cuda.DoubleTensor becomes a float type, is_cuda and torch.cuda.is_available() turn true on NPU"
)

PORTED_REACHES = frozenset({"runs", "cosmetic"})


@dataclass
class PortOptions:
    style: str = "agnostic"
    unsafe: bool = False
    only: frozenset[str] = frozenset()
    transfer_to_npu: bool = False


@dataclass
class PortResult:
    rewrites: list[FileRewrite] = field(default_factory=list)  # changed files, path order
    new_files: dict[str, str] = field(default_factory=dict)  # path -> content (the device module)
    unpatched: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    outcomes: list[SiteOutcome] = field(default_factory=list)  # every rewritable site, rewritten or not
    skipped_sites: list[tuple[Finding, str]] = field(default_factory=list)  # sites not attempted, and why
    device_module: str | None = None
    entries: list[str] = field(default_factory=list)


def eligible(finding: Finding, options: PortOptions) -> str | None:
    """None when port may rewrite this finding's site, else why not."""
    rule = load_knowledge().rules.get(finding.rule)
    if rule is None:
        return "unknown rule"
    if rule.edit is None and (not options.unsafe or finding.severity == "info"):
        return "display-only rule"
    if options.only and finding.rule not in options.only:
        return "not in --only"
    if rule.fix == "unsafe" and not options.unsafe:
        return "unsafe fix (use --unsafe)"
    if finding.suppressed:
        return "suppressed"
    shell = finding.path.endswith(SHELL_SUFFIXES) and rule.edit is not None and rule.edit.shell is not None
    if finding.cell is not None or not (finding.path.endswith(".py") or shell):
        return "not a Python module"
    if finding.role != "product":
        return f"{finding.role} code"
    if finding.reach not in PORTED_REACHES:
        return f"reach {finding.reach}"
    return None


def port(root: Path, report: Report, options: PortOptions) -> PortResult:
    kb = load_knowledge()
    result = PortResult()
    by_path: dict[str, list[Finding]] = {}
    for finding in report.findings:
        why = eligible(finding, options)
        if why is None:
            by_path.setdefault(finding.path, []).append(finding)
        elif kb.rules.get(finding.rule) is not None:
            result.skipped_sites.append((finding, why))
    conventions = load_context_conventions().roles
    entries = sorted(
        e.path for e in report.phase_matrix.entries
        if e.path.endswith(".py") and file_role(e.path, conventions) == "product"
    ) if report.phase_matrix is not None else []
    result.entries = entries
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
    # a project with its own NPU code has a device abstraction already (DeepSpeed's accelerators): no second one
    own_abstraction = any(MODULE_MARK not in (previous_module(root, path) or "") for path in report.project.npu_code)
    module_path = _device_module_path(root, report, by_path, parsed) \
        if options.style == "agnostic" and not own_abstraction else None
    if module_path is not None and previous_module(root, module_path) is not None \
            and MODULE_MARK not in (previous_module(root, module_path) or ""):
        module_path = str(PurePosixPath(module_path).with_name("_ascend_device.py"))  # the project's own _device.py
        if previous_module(root, module_path) is not None and MODULE_MARK not in (previous_module(root, module_path) or ""):
            module_path = None
    relative = module_path is not None and any(
        has_relative_import(tree) for path, (_, tree) in parsed.items() if _inside(path, PurePosixPath(module_path).parent)
    )
    uses: set[str] = set()
    for path in sorted(parsed):
        data, tree = parsed[path]
        # in the npu style torch.npu needs torch_npu loaded: without entry points, each patched file loads it
        entry = "entry" if path in entries else "fallback" if options.style == "npu" and not entries else None
        located = module_path, relative, entry, _package_chain(root, path), own_abstraction
        rewrite, file_uses = _rewrite_file(path, data, tree, by_path.get(path, []), options, located)
        result.outcomes.extend(rewrite.sites)
        if rewrite.problem is not None:
            result.unpatched.append((path, rewrite.problem))
            continue
        if rewrite.new is not None and rewrite.new != rewrite.old:
            result.rewrites.append(rewrite)
            uses |= file_uses
    result.rewrites.sort(key=lambda r: r.path)
    if module_path is not None and uses:
        earlier = previous_module(root, module_path)
        content = render_device_module(uses | offered_by(earlier or ""))
        problem = check(module_path, content)
        if problem is not None:  # a broken knowledge template: never write it
            raise KnowledgeError(f"knowledge/port/device_module.toml: the device module {problem}")
        if earlier is None:
            result.new_files[module_path] = content
        elif earlier != content:  # an earlier port's module: the union of what both runs use
            result.rewrites.append(FileRewrite(module_path, earlier, content))
            result.rewrites.sort(key=lambda r: r.path)
        result.device_module = module_path
    return result


MODULE_MARK = "Written by ascend-feasibility port"  # in the device module and in verify_npu.py


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
    new, outcomes = plan_shell(data, tree, [(f, kb.rules[f.rule].edit) for f in findings])
    result.outcomes += outcomes
    if new is not None:
        result.rewrites.append(FileRewrite(path, data.decode("utf-8"), new, outcomes))


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


def _device_module_path(root: Path, report: Report, by_path: dict[str, list[Finding]], parsed: dict) -> str:
    """<pkg>/_device.py for the project's own package with the most files to rewrite, else <name>_device.py."""
    candidates = {base for package in report.project.own_packages
                  for base in (PurePosixPath(package), PurePosixPath("src") / package) if _is_package(root, base)}
    # a namespace package at the top (Megatron-LM's megatron/ without __init__.py) holding packages counts too
    candidates |= {PurePosixPath(PurePosixPath(path).parts[0]) for path in by_path
                   if len(PurePosixPath(path).parts) > 2 and _package_chain(root, path)}
    counts = {base: sum(1 for path in by_path if path in parsed and _inside(path, base)) for base in candidates}
    best = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    if best and best[0][1] > 0:
        return f"{best[0][0]}/_device.py"
    slug = re.sub(r"[^a-z0-9_]", "_", (report.project.name or "project").lower()).strip("_") or "project"
    if slug[0].isdigit():
        slug = f"p{slug}"
    return f"{slug}_device.py"


def _package_chain(root: Path, path: str) -> bool:
    """The file is at the root, or in a package (its folder has __init__.py) whose folders from the root are all
    identifiers (namespace packages allowed): it is imported with the root on sys.path."""
    parts = PurePosixPath(path).parts[:-1]
    if not parts:
        return True
    return _is_package(root, PurePosixPath(*parts)) and all(part.isidentifier() for part in parts)


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
    if _inside(path, package) and relative and not entry:
        level = len(here.parent.parts) - len(package.parts) + 1
        return f"from {'.' * level} import {name}{suffix}"
    if _inside(path, package) or (package.parts[0] != "src" and (len(here.parts) == 1 or root_on_path)):
        return f"from {dotted} import {name}{suffix}"
    return None


def _rewrite_file(path, data, tree, findings, options, located) -> tuple[FileRewrite, set[str]]:
    module_path, relative, entry, root_on_path, own_abstraction = located
    kb = load_knowledge()
    rewrite = FileRewrite(path, data.decode("utf-8"))
    taken = identifiers(tree)
    alias = next((name for name in DEVICE_NAMES if name not in taken), None)
    style = Style(options.style, alias or DEVICE_NAMES[0])
    starts = line_starts_of(data)
    notes: list[tuple[int, str]] = []
    for finding in sorted(findings, key=lambda f: (f.line, f.column, f.rule)):
        if kb.rules[finding.rule].edit is None:  # display-only, with --unsafe: a comment with the plan
            note = plan_note(tree, data, starts, finding)
            if note is not None:
                notes.append(note)
            rewrite.sites.append(SiteOutcome(finding, reason="display-only: a comment with the plan"
                                             if note is not None else "display-only"))
            continue
        rule = kb.rules[finding.rule]
        outcome = plan_site(tree, data, starts, finding, rule.edit, style, rule.match.env_vars is not None)
        rewrite.sites.append(outcome)
    device_import = None
    if any(o.uses for o in rewrite.sites if o.reason is None):
        device_import = _module_import(path, module_path, relative, entry, style.dev, root_on_path) \
            if module_path and alias else None
        if device_import is None:
            for outcome in rewrite.sites:
                if outcome.uses and outcome.reason is None:
                    outcome.reason = "the project has its own NPU code: route this through its device abstraction" \
                        if own_abstraction else "no import path from this file to the device module"
                    outcome.changes.clear()
    _hold_cuda_checks(tree, rewrite.sites, kb, style)
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
    at = import_point(tree, data)
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


def _hold_cuda_checks(tree, sites: list[SiteOutcome], kb, style: Style) -> None:
    """Sites whose rewrite changes what a comparison or a CUDA check in the same statement sees (the edit's `guard`):
    `stays` holds a site when its statement keeps a "cuda" literal the patch does not rewrite; `selects` rewrites a
    CUDA check only where it selects a "cuda" literal that the patch rewrites (in `"cuda" if check else "cpu"` the
    literal is rewritten with the check), since the rewritten check turns true on NPU."""
    literal_edit = next((r.edit for r in kb.rules.values()
                         if r.edit is not None and r.edit.kind == "string" and "cuda" in r.edit.values), None)
    changed = True
    while changed:
        changed = False
        rewritten = {(c.start, c.end) for o in sites if o.reason is None for c in o.changes}
        for outcome in sites:
            edit = kb.rules[outcome.finding.rule].edit
            if outcome.reason is not None or not outcome.changes or edit.guard is None or outcome.statement is None:
                continue
            literals = cuda_literals(outcome.statement)
            stays = [n for n in literals if (n.start_byte, n.end_byte) not in rewritten]
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
                outcome.reason = "the check guards CUDA-only code, not a device choice: review what it guards"
            else:
                continue
            outcome.changes.clear()
            changed = True
            break


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
