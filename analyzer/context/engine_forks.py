"""Copies of a serving engine's internals: a module that imports the engine's internal packages at its top level
(`vllm.worker.worker_base.WorkerBase`, `vllm.executor.executor_base`, `vllm.distributed.device_communicators.pynccl_utils`),
not its public API (`from vllm import LLM, SamplingParams`) nor the layers a model plugin is written against, is a fork
of the engine's worker, model runner or executor (LlamaGen's autoregressive/serve/, a copy of vLLM 0.4.1's).

On Ascend such a file is not edited line by line: the engine's Ascend route (vllm-ascend) brings its own NPU worker,
model runner and graph capture, for the engine releases it supports, so the fork is re-based on that route or
replaced as a whole. Its device lines (`torch.cuda.set_device`, `torch.cuda.graph`, NCCL variables) are the engine's,
not the project's: they become sites of one item, the engine's dependency finding where the report has one, and
otherwise the fork's first finding, optional. The port leaves every such file as it is (report.project.deployments).
The internal packages are data (knowledge/context/conventions.toml `engine_internals`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.core.findings import FindingFactory, Place
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding, Text

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.context.project import ProjectContext
    from ascend_feasibility.domains.base import ModuleFacts

MAX_SITES = 100
PACKAGE_RULE = "DEP001"  # a package that needs replacing on Ascend: the item the fork's lines belong to
PIN_RULE = "DEP004"  # a pin older than the release the package's Ascend route starts at


def engine_forks(facts: list[ModuleFacts], context: ProjectContext, internals: list[str]) -> dict[str, str]:
    """Path → the engine's package, for the project's Python modules importing one of `internals` at their top level."""
    forks: dict[str, str] = {}
    for f in facts:
        if not f.path.endswith(".py") or context.of(f.path).role not in COUNTED_ROLES:
            continue
        nested = set(f.nested_imports)
        hit = next((name for name in f.imports if name not in nested and _internal(name, internals)), None)
        if hit is not None:
            forks[f.path] = hit.split(".")[0]
    return _with_copied_siblings(facts, context, forks)


def _with_copied_siblings(facts: list[ModuleFacts], context: ProjectContext, forks: dict[str, str]) -> dict[str, str]:
    """The rest of a copied package: a module in a fork's folder that imports a sibling module of that folder and no
    module of the project outside it is part of the same copy (ChatTTS's velocity/model_runner.py, vLLM 0.2.7's model
    runner, imports only the copy's configs, sequence and sampling modules, and its CUDA-graph capture is the engine's:
    round 25 B1 17, B2 38). A module importing the project's own code elsewhere (its model) is the project's glue."""
    if not forks:
        return forks
    python = [f for f in facts if f.path.endswith(".py") and f.module]
    folder_of = {f.module: f.path.rpartition("/")[0] for f in python}
    # a copy is a package folder of its own: the root's scripts importing each other are no copy
    engine_of = {folder: engine for f in python if (engine := forks.get(f.path)) is not None
                 and (folder := f.path.rpartition("/")[0])}
    result = dict(forks)
    for f in python:
        folder = f.path.rpartition("/")[0]
        if f.path in result or folder not in engine_of or context.of(f.path).role not in COUNTED_ROLES:
            continue
        folders = [_project_folder(name, folder_of) for name in f.imports]
        if folder in folders and all(where in {None, folder} for where in folders):
            result[f.path] = engine_of[folder]
    return result


def _project_folder(name: str, folder_of: dict[str, str]) -> str | None:
    """The folder of the project module an import names (`pkg.mod` or `pkg.mod.Name`), None where it names none."""
    parts = name.split(".")
    return next((folder_of[".".join(parts[:end])] for end in range(len(parts), 0, -1)
                 if ".".join(parts[:end]) in folder_of), None)


def _internal(name: str, internals: list[str]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in internals)


def _package_of(symbol: str) -> str:
    """The distribution a dependency finding's symbol names (`vllm`, `vllm==0.4.1`, `vllm.worker`)."""
    name = re.match(r"[A-Za-z0-9_-]*", symbol or "").group()
    return name.lower().replace("-", "_")


def fold_forks(findings: list[Finding], forks: dict[str, str], factory: FindingFactory) -> list[Finding]:
    """Each engine's fork findings become sites of one item: the engine's dependency finding (the package item the
    route replaces), else the first fork finding, optional."""
    if not forks:
        return findings
    groups: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.path in forks and not finding.suppressed and finding.domain != "dependencies":
            groups[forks[finding.path]].append(finding)
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    for engine, group in groups.items():
        files = sorted({f.path for f in group})
        sites = [f"{f.path}:{f.line}" for f in group]
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        where = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        note = Text(en=f"{where} copy {engine}'s internal worker/model-runner code: on Ascend they are re-based on "
                       f"{engine}'s Ascend route or replaced as a whole, not edited line by line; their "
                       f"{len(group)} device findings are listed as sites.",
                    zh=f"{where} 复制了 {engine} 的内部 worker/model runner 代码：在昇腾上应基于 {engine} 的昇腾路径重建"
                       f"或整体替换，而非逐行修改；其 {len(group)} 处设备发现作为位置列出。")
        items = [f for f in findings if f.domain == "dependencies" and not f.suppressed
                 and _package_of(f.symbol) == engine and f.role in COUNTED_ROLES]
        # the package item (DEP001: replace the engine) before a pin's (DEP004: an older release)
        package = min(items, key=lambda f: (f.rule != PACKAGE_RULE, f.path, f.line), default=None)
        if package is not None:
            # the engine's pins below the route's first release (DEP004) are the same re-base: one item, not two
            pins = [f for f in items if f is not package and package.rule == PACKAGE_RULE and f.rule == PIN_RULE]
            en = " ".join([package.message.en, note.en, *(f"{f.path}:{f.line}: {f.message.en}" for f in pins)])
            zh = " ".join([package.message.zh, note.zh, *(f"{f.path}:{f.line}：{f.message.zh}" for f in pins)])
            kept[id(package)] = package.model_copy(update={
                "sites": [*(package.sites or [f"{package.path}:{package.line}"]),
                          *(site for f in pins for site in (f.sites or [f"{f.path}:{f.line}"])), *sites],
                "message": Text(en=en, zh=zh)})
            dropped.update(id(f) for f in [*group, *pins])
            continue
        first = group[0]
        reason = (f"a copy of {engine}'s internals ({where}): the engine's Ascend route replaces it, it is not "
                  "ported line by line")
        relocated = factory.relocate(first, Place(first.role, "optional", reason))
        kept[id(first)] = relocated.model_copy(update={
            "sites": sites, "message": Text(en=f"{relocated.message.en} {note.en}", zh=f"{relocated.message.zh} {note.zh}")})
        dropped.update(id(f) for f in group if f is not first)
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]
