"""NVIDIA-only accelerator kits: a folder of modules built on an NVIDIA-only runtime (TensorRT, TensorRT-LLM) beside
the project's plain PyTorch code, which nothing outside the folder imports.

HunyuanDiT's mllm/trtllm/ builds TensorRT-LLM engines for the captioner (build_visual_engine.py imports tensorrt and
tensorrt_llm, run.py and run_llava.py drive the engines, convert_checkpoint.py converts weights with tensorrt_llm) and is
run in NVIDIA's Triton container; the captioner itself is mllm/caption_demo.py, plain PyTorch. On Ascend the kit cannot
run at all (its runtime has no Ascend build) and nothing in it is ported: the user runs the PyTorch path. So the kit is
one finding, optional, at its first import of the runtime, its other sites listed there (a `.cuda()` or a
`set_device` inside is not a port item of its own).

A folder is a kit when at least half of its Python modules (two or more) import such a runtime at their top level, no
Python module outside it imports one of its modules, and product code outside it imports torch (the PyTorch path).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import import_names
from ascend_feasibility.analyzer.core.findings import FindingFactory, Place
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding, Text

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

MAX_SITES = 100


def nvidia_kits(facts: list[ModuleFacts], context: ProjectContext, runtimes: frozenset[str],
                packages: set[str]) -> dict[str, str]:
    """Kit folder → the runtime its modules import (the first in name order)."""
    if not runtimes or not any(name.split(".")[0] in runtimes for f in facts for name in f.imports):
        return {}
    python = [f for f in facts if f.module and f.path.endswith(".py") and context.of(f.path).role in COUNTED_ROLES]
    by_folder: dict[str, list[ModuleFacts]] = defaultdict(list)
    for f in python:
        by_folder[path_view(f.path).parent].append(f)
    kits: dict[str, str] = {}
    for folder, members in by_folder.items():
        if folder in {".", "src"} or any(part in context.own_packages and part in runtimes for part in folder.split("/")):
            continue  # the project's root, or the runtime's own sources
        using = {}
        for f in members:
            nested = set(f.nested_imports)
            found = sorted({name.split(".")[0] for name in f.imports if name not in nested} & runtimes)
            if found:
                using[f.path] = found[0]
        if len(using) < 2 or 2 * len(using) < len(members):
            continue
        inside = folder + "/"
        names = {name for f in members for name in import_names(f.path, f.module, packages)}
        outside = [f for f in python if not f.path.startswith(inside)]
        if any(name == known or name.startswith(known + ".") for f in outside for name in f.imports for known in names):
            continue  # the rest of the project loads it: not a kit beside the product, part of it
        if not any(name.split(".")[0] == "torch" for f in outside for name in f.imports):
            continue  # no PyTorch path beside it: the kit is the product
        kits[folder] = sorted(using.values())[0]
    return kits


def fold_kits(findings: list[Finding], kits: dict[str, str], factory: FindingFactory) -> list[Finding]:
    """Each kit's findings become one, optional: the first that names the runtime (its import), else the first,
    with every site of the kit listed and the PyTorch path as the advice."""
    if not kits:
        return findings
    groups: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        folder = next((k for k in kits if finding.path.startswith(k + "/")), None)
        if folder is not None and not finding.suppressed:
            groups[folder].append(finding)
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    for folder, group in groups.items():
        runtime = kits[folder]
        first = next((f for f in group if f.symbol.split(".")[0].replace("-", "_") == runtime), group[0])
        files = len({f.path for f in group})
        reason = (f"{folder}/ is an NVIDIA-only accelerator kit: its modules import {runtime}, which has no Ascend "
                  "build, nothing outside the folder imports them, and the project's PyTorch code runs beside it")
        relocated = factory.relocate(first, Place(first.role, "optional", reason))
        sites = [f"{f.path}:{f.line}" + (f" (cell {f.cell})" if f.cell else "") for f in group]
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        message = Text(
            en=f"{relocated.message.en} NVIDIA-only accelerator ({folder}/, built on {runtime}): on Ascend use the "
               f"project's PyTorch path instead; its {len(group)} findings in {files} files are listed as sites, "
               "not port items one by one.",
            zh=f"{relocated.message.zh} 仅限 NVIDIA 的加速套件（{folder}/，基于 {runtime}）：在昇腾上改用项目的 PyTorch "
               f"路径；其 {files} 个文件中的 {len(group)} 处发现作为位置列出，不逐项迁移。")
        kept[id(first)] = relocated.model_copy(update={"sites": sites, "message": message})
        dropped.update(id(f) for f in group if f is not first)
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]
