"""One-time steps (adopting DeepSpeed's NPU accelerator, MindSpeed for Megatron, a DeepSpeed config review):
one finding per project that lists its sites, not one per call site or config file; one edit of a file (deleting
the nvidia-* lines of a pip freeze): one finding per file; one setting repeated in config files or launch scripts:
one finding with its sites."""

from __future__ import annotations

import re
from collections import defaultdict

from ascend_feasibility.analyzer.core.models import Finding, Text
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.discovery import classify

MAX_SITES = 100
CONFIG_KINDS = frozenset({"yaml", "json"})
SHELL_KIND = "shell"


def drop_without_cause(findings: list[Finding], needs: dict[str, frozenset[str]]) -> list[Finding]:
    """A rule's findings go when the project has none of the findings it needs (DST013, the FSDP2 mesh reminder,
    where no DeviceMesh is built on "cuda": the default mesh of fully_shard follows the accelerator)."""
    present = {f.rule for f in findings if not f.suppressed}
    missing = {rule for rule, wanted in needs.items() if wanted and not present & wanted}
    return [f for f in findings if f.rule not in missing] if missing else findings


def drop_subsumed(findings: list[Finding], added: list[Finding], subsumes: dict[str, frozenset[str]],
                  per_symbol: frozenset[str] = frozenset()) -> list[Finding]:
    """A project-level finding (`added`) drops the findings its rule subsumes on its line, as a scanner's finding does
    on its own (OPS091, an extension's gate that transfer_to_npu makes true for NPU tensors, drops DEV104's and
    DEV006's `auto` at the same test: there that alias is the hazard, not the fix). A rule in `per_symbol` drops only
    those about its own symbol there: DEP012 on `torch==2.0.1+cu118` takes DEP005 on that pin, not DEP005 on the
    `torchvision==0.15.2+cu118` the same `pip install` line names."""
    lines: dict[tuple, set[str]] = {}
    for finding in added:
        dropped = subsumes.get(finding.rule)
        if dropped:
            symbol = finding.symbol if finding.rule in per_symbol else None
            lines.setdefault((finding.path, finding.cell, finding.line, symbol), set()).update(dropped)
    if not lines:
        return findings
    return [f for f in findings if f.rule not in lines.get((f.path, f.cell, f.line, None), ())
            and f.rule not in lines.get((f.path, f.cell, f.line, f.symbol), ())]


def collapse_project_scoped(findings: list[Finding], project_rules: set[str],
                            file_rules: frozenset[str] = frozenset(),
                            symbol_rules: frozenset[str] = frozenset()) -> list[Finding]:
    """`findings` in report order; each project-scoped rule keeps one finding (the first site that counts, else the
    first site) carrying every site of the rule; each file-scoped rule one such finding per file; each symbol-scoped
    rule one per symbol among the sites alike in what the report counts and says of them (reach, role, why), its
    message saying how many."""
    groups: dict[tuple[str, ...], list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.suppressed:
            continue
        if finding.rule in project_rules:
            groups[(finding.rule, "")].append(finding)
        elif finding.rule in file_rules:
            groups[(finding.rule, finding.path)].append(finding)
        elif finding.rule in symbol_rules:
            groups[(finding.rule, "symbol", finding.symbol, finding.reach, finding.role, finding.reach_reason or "")].append(finding)
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    for key, group in groups.items():
        if len(group) < 2:
            continue
        first = next((f for f in group if f.counted), group[0])
        # each file's own place first, then the sites it listed (its importers), each once
        sites = list(dict.fromkeys([*(_site(f) for f in group), *(site for f in group for site in f.sites
                                                                   if not site.startswith("... "))]))
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        update: dict = {"sites": sites}
        if key[1:2] != ("symbol",) and first.rule in file_rules:
            update["message"] = Text(
                en=f"{first.message.en} The file has it at {len(group)} sites (every site listed), counted once: one "
                   "piece of work settles them all.",
                zh=f"{first.message.zh} 该文件中共有 {len(group)} 处（已列出全部位置），只计一次：一项工作即可全部解决。")
        if key[1:2] == ("symbol",):
            files = len({f.path for f in group})
            update["message"] = Text(
                en=f"{first.message.en} The same is at {len(group)} sites in {files} files (every site listed), "
                   "counted once: one piece of work settles them all.",
                zh=f"{first.message.zh} 同样的情况出现在 {files} 个文件的 {len(group)} 处（已列出全部位置），"
                   "只计一次：一项工作即可全部解决。")
        kept[id(first)] = first.model_copy(update=update)
        dropped.update(id(f) for f in group if f is not first)
    if not kept:
        return findings
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]


_SITE = re.compile(r"^(?P<path>.+):(?P<line>\d+)(?: \(cell (?P<cell>\d+)\))?$")


def _own_sites(finding: Finding) -> bool:
    """Are the finding's sites, if any, all in its own file (an autograd Function's or a CUDA kernel's sites in its
    wrapper, analyzer/core/filework.py): a copy of the file holds the same ones, so the finding folds with its copies'
    (round 32 B1 row 2: four byte-identical softsplat.py)."""
    return all(site.startswith(f"{finding.path}:") for site in finding.sites or [])


def _site(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}" + (f" (cell {finding.cell})" if finding.cell else "")


def parse_site(site: str) -> tuple[str, int, int | None] | None:
    """(path, line, cell) of a site written by `_site`; None for the "... N more" tail."""
    match = _SITE.match(site)
    if match is None:
        return None
    return match["path"], int(match["line"]), int(match["cell"]) if match["cell"] else None


def config_file(path: str) -> bool:
    """Is the file a YAML or JSON config (by its name)?"""
    return classify(path.rsplit("/", 1)[-1]) in CONFIG_KINDS


def _shell_file(path: str) -> bool:
    return classify(path.rsplit("/", 1)[-1]) == SHELL_KIND


def setting_files(finding: Finding) -> list[str]:
    """The files a finding stands for: every file of a setting `fold_repeated_settings` folded, else its own."""
    if not (finding.sites and (config_file(finding.path) or _shell_file(finding.path))):
        return [finding.path]
    paths = [where[0] for where in map(parse_site, finding.sites) if where is not None]
    return list(dict.fromkeys([finding.path, *paths]))


def shell_setting(finding: Finding) -> str | None:
    """The value a launch script's line gives the finding's variable (`export NCCL_IB_HCA="^=mlx5_0"` -> `^=mlx5_0`,
    quotes dropped), or None where the line assigns it no single value of its own (a read, a cut-off line)."""
    root = parsing.parse("bash", finding.snippet.encode("utf-8"))
    if root.has_error:
        return None
    values: set[str] = set()
    for node in parsing.walk(root):
        if node.type == "variable_assignment":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and parsing.text(name) == finding.symbol:
                text = parsing.text(value) if value is not None else ""
                quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in "'\""
                values.add(text[1:-1] if quoted else text)
    return values.pop() if len(values) == 1 else None


def fold_script_lines(findings: list[Finding]) -> list[Finding]:
    """A launch script that sets one variable on several lines (eight `CUDA_VISIBLE_DEVICES=0..7 python ...` jobs) needs
    one change, made the same way on each line: one finding per rule, variable and script, at its first line, the
    other lines as its sites (port still completes each line). Lines alike in what the report counts (severity, reach
    and its reason, role) fold together, whatever value each gives; a line that only reads the variable stays apart."""
    groups: dict[tuple, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.suppressed or finding.sites or not _shell_file(finding.path) or shell_setting(finding) is None:
            continue
        groups[(finding.rule, finding.path, finding.symbol, finding.severity, finding.reach, finding.reach_reason or "",
                finding.role)].append(finding)

    def note(first: Finding, group: list[Finding]) -> Text | None:
        if len(group) < 2:
            return None
        return Text(
            en=f"{first.message.en} The script sets {first.symbol} on {len(group)} lines (every line listed), counted "
               "once: the same change on each line settles them all.",
            zh=f"{first.message.zh} 该脚本在 {len(group)} 行中设置 {first.symbol}（已列出全部行），只计一次：在每行做同样的修改"
               "即可全部解决。")
    return _folded(findings, groups, note)


def fold_repeated_cells(findings: list[Finding]) -> list[Finding]:
    """A notebook that repeats one statement in many cells (a tutorial's `model = build(cfg).cuda()` once per model
    section) needs one change, made the same way in each cell, as a Python module's repeated site is one edit pass of
    its file: one finding per rule and statement (its stripped text) in the file, at its first cell, the other cells as
    its sites. Port edits no cell, so nothing it would rewrite is lost. Only findings alike in what the report counts
    (symbol, severity, reach and its reason, role) fold, so a cell that differs keeps its own finding."""
    groups: dict[tuple, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.suppressed or finding.sites or finding.cell is None:
            continue
        groups[(finding.rule, finding.path, finding.snippet.strip(), finding.symbol, finding.severity, finding.reach,
                finding.reach_reason or "", finding.role)].append(finding)

    def note(first: Finding, group: list[Finding]) -> Text | None:
        cells = {f.cell for f in group}
        if len(cells) < 2:
            return None
        return Text(
            en=f"{first.message.en} The same statement is in {len(cells)} cells of this notebook (every site listed), "
               "counted once: the same change in each cell settles them all.",
            zh=f"{first.message.zh} 同一语句出现在该笔记本的 {len(cells)} 个单元格中（已列出全部位置），只计一次：在每个单元格做"
               "同样的修改即可全部解决。")
    return _folded(findings, groups, note)


def _folded(findings: list[Finding], groups: dict[tuple, list[Finding]], note) -> list[Finding]:
    """Each group `note` gives a message for (else None): one finding, its first, with the group's sites and that
    message; the others dropped."""
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    for group in groups.values():
        first = group[0]
        message = note(first, group)
        if message is None:
            continue
        # each file's own place first, then the sites it listed (its importers), each once
        sites = list(dict.fromkeys([*(_site(f) for f in group), *(site for f in group for site in f.sites
                                                                   if not site.startswith("... "))]))
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        kept[id(first)] = first.model_copy(update={"sites": sites, "message": message})
        dropped.update(id(f) for f in group if f is not first)
    if not kept:
        return findings
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]


def fold_repeated_settings(findings: list[Finding], edited: frozenset[str] = frozenset()) -> list[Finding]:
    """The same setting in several files is one decision, made once, so one finding at its first file, every file
    listed as a site and counted in the message: one rule, one key path and value (the symbol `run.device: cuda`) in
    YAML/JSON config files (edit them all with one substitution, or adopt transfer_to_npu); one variable with one value
    (`export NCCL_IB_HCA=mlx5_0`) in launch scripts, with the same advice, where port does not rewrite the rule's sites
    (`edited`: each script needs its own edit). Only findings alike in what the report counts (severity, reach, role)
    fold together, so a test config never hides behind a product one; different values of a variable stay apart. A
    config finding that already lists sites (a package's importers, instruct-pix2pix's pytorch-lightning in
    environment.yaml and stable_diffusion/environment.yaml) folds too, every finding's own place and sites merged."""
    groups: dict[tuple, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.suppressed:
            continue
        alike = (finding.rule, finding.symbol, finding.severity, finding.reach, finding.role)
        if config_file(finding.path):
            groups[("config", *alike)].append(finding)
        elif finding.sites:
            continue
        elif finding.rule not in edited and _shell_file(finding.path):
            value = shell_setting(finding)
            if value is not None:
                groups[("shell", *alike, value, finding.replacement.en, finding.replacement.code)].append(finding)
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    for key, group in groups.items():
        files = {f.path for f in group}
        if len(files) < 2:
            continue
        first = group[0]
        # each file's own place first, then the sites it listed (its importers), each once
        sites = list(dict.fromkeys([*(_site(f) for f in group), *(site for f in group for site in f.sites
                                                                   if not site.startswith("... "))]))
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        if key[0] == "config":
            message = Text(
                en=f"{first.message.en} The same setting is in {len(files)} config files (every site listed); "
                   "one change decides them all.",
                zh=f"{first.message.zh} 同一设置出现在 {len(files)} 个配置文件中（已列出全部位置），一次修改即可统一处理。",
            )
        else:
            message = Text(
                en=f"{first.message.en} The same setting ({first.symbol} with the same value) is in {len(files)} "
                   "launch scripts (every site listed); one decision settles them all.",
                zh=f"{first.message.zh} 同一设置（取值相同的 {first.symbol}）出现在 {len(files)} 个启动脚本中"
                   "（已列出全部位置），一次决定即可统一处理。",
            )
        kept[id(first)] = first.model_copy(update={"sites": sites, "message": message})
        dropped.update(id(f) for f in group if f is not first)
    if not kept:
        return findings
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]


def fold_identical_files(findings: list[Finding], digests: dict[str, str | None]) -> list[Finding]:
    """Byte-identical copies of a file (OLMo vendors lm_eval twice: efficiency_benchmark/dependencies and
    previous_version/.../dependencies hold the same models/gpt2.py) are one piece of work, done once and copied: each
    finding of the copies is reported once, at the first path, the others listed as its sites. Only findings alike in
    where they sit and what the report says of them (rule, line, column, symbol, severity, reach and its reason,
    role) fold, so a copy whose context differs (a test copy, an unreached one) keeps its own. A finding with sites in
    its own file only (a kernel's wrapper) folds too, the copies' lines added to its sites."""
    paths_of: dict[str, list[str]] = defaultdict(list)
    for path, digest in digests.items():
        if digest:
            paths_of[digest].append(path)
    digest_of = {path: digest for digest, paths in paths_of.items() if len(paths) > 1 for path in paths}
    if not digest_of:
        return findings
    firsts: dict[tuple, Finding] = {}
    copies: dict[int, list[str]] = defaultdict(list)
    dropped: set[int] = set()
    for finding in findings:
        digest = digest_of.get(finding.path)
        if digest is None or finding.suppressed or not _own_sites(finding):
            continue
        key = (digest, finding.rule, finding.cell, finding.line, finding.column, finding.symbol, finding.severity,
               finding.reach, finding.reach_reason, finding.role)
        first = firsts.setdefault(key, finding)
        if first is not finding and first.path != finding.path:
            copies[id(first)].append(_site(finding))
            dropped.add(id(finding))
    if not copies:
        return findings
    result = []
    for finding in findings:
        if id(finding) in dropped:
            continue
        more = copies.get(id(finding))
        if more:
            message = Text(en=f"{finding.message.en} The same file is copied byte for byte at {len(more)} more "
                              f"{'path' if len(more) == 1 else 'paths'} (listed as sites), counted once.",
                           zh=f"{finding.message.zh} 同一文件另有 {len(more)} 份逐字节相同的副本（已列为位置），只计一次。")
            finding = finding.model_copy(update={"sites": [*(finding.sites or [_site(finding)]), *more][:MAX_SITES],
                                                 "message": message})
        result.append(finding)
    return result
