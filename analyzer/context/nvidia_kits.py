"""NVIDIA-only accelerator kits: a folder of modules built on an NVIDIA-only runtime (TensorRT, TensorRT-LLM) beside
the project's plain PyTorch code, which nothing outside the folder imports.

HunyuanDiT's mllm/trtllm/ builds TensorRT-LLM engines for the captioner (build_visual_engine.py imports tensorrt and
tensorrt_llm, run.py and run_llava.py drive the engines, convert_checkpoint.py converts weights with tensorrt_llm) and is
run in NVIDIA's Triton container; the captioner itself is mllm/caption_demo.py, plain PyTorch. On Ascend the kit cannot
run at all (its runtime has no Ascend build) and nothing in it is ported: the user runs the PyTorch path. So the kit is
one finding, optional, at its first import of the runtime, its other sites listed there (a `.cuda()` or a
`set_device` inside is not a port item of its own).

A folder is a kit when at least half of the Python modules of its tree (two or more) are the kit's, no Python module
outside it imports one of them, and product code outside it imports torch (the PyTorch path). A module is the kit's
when it imports such a runtime at its top level; where the tree shows an NVIDIA deployment (a Triton model repository,
Triton's Python backend or client, a script launching tritonserver, trtllm-serve or trtllm-build, a Dockerfile FROM
Triton's image) also when it imports one inside a function, sits in a model repository's version folder, or is
imported by a module of the kit (CosyVoice's runtime/triton_trtllm/, round 19: `import tensorrt` inside load_trt, one
model.py per model_repo/<name>/1/). The kit is judged at the highest folder whose tree meets that, so long as each of
its subfolders holding Python holds a kit module and the modules directly in it are mostly the kit's (the PyTorch
path beside a kit, HunyuanDiT's mllm/caption_demo.py, is never taken in). A deployment (serving evidence, not an engine
build) keeps its one item counted where it ran: the runtime's package, with the Ascend serving route.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import import_names
from ascend_feasibility.analyzer.core.findings import FindingFactory, Place
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding, Text
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.dockerfile import shell_view
from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes, read_contained

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts
    from ascend_feasibility.knowledge.models import BackendConventions

MAX_SITES = 100
MAX_SCRIPT_BYTES = 1 << 20
MAX_CONFIG_BYTES = 1 << 20
COMMANDS = "(command name: (command_name) @name) @command"
SEVERITY_RANK = {"blocker": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
# a serving deployment's package item belongs to what it serves, whichever of its files (a conversion script) it sits in
SERVING_PHASES = ("inference",)


@dataclass(frozen=True)
class Kit:
    runtimes: tuple[str, ...]  # the runtimes its modules import, in name order
    serving: bool  # a deployment the project ships (Triton, trtllm-serve), not only an engine build
    # the project's PyTorch code outside the kit serves inference itself (F5-TTS's infer/ beside runtime/triton_trtllm/):
    # the deployment is an alternative to it, not the only way to serve
    pytorch_inference: bool = False


def nvidia_kits(facts: list[ModuleFacts], context: ProjectContext, backends: BackendConventions, packages: set[str],
                files=(), root: Path | None = None) -> dict[str, Kit]:
    """Kit folder → what it is built on. `files` are the project's files (path, absolute, kind, size): its scripts
    and Dockerfiles are read for launches; `root` is where a model repository's configuration files are looked for."""
    runtimes = frozenset(backends.nvidia_runtimes)
    if not runtimes or not any(_top(name) in runtimes for f in facts for name in f.imports):
        return {}
    python = [f for f in facts if f.module and f.path.endswith(".py") and context.of(f.path).role in COUNTED_ROLES]
    paths = {f.path for f in python}
    top_level: dict[str, set[str]] = {}
    anywhere: dict[str, set[str]] = {}
    for f in python:
        nested = set(f.nested_imports)
        found = {_top(name) for name in f.imports} & runtimes
        if found:
            anywhere[f.path] = found
            if found := {_top(name) for name in f.imports if name not in nested} & runtimes:
                top_level[f.path] = found
    evidence = _Evidence(backends, files, root)
    kits: dict[str, Kit] = {}
    for folder in sorted({parent for path in anywhere for parent in _folders(path)}, key=lambda p: (p.count("/"), p)):
        if folder == "src" or any(folder.startswith(k + "/") for k in kits) or any(
                part in context.own_packages and part in runtimes for part in folder.split("/")):
            continue  # the project's src/, inside a kit already, or the runtime's own sources
        inside = folder + "/"
        tree = [f for f in python if f.path.startswith(inside)]
        serving = any(anywhere.get(f.path, set()) & set(backends.nvidia_serving_modules) for f in tree) \
            or any(evidence.versioned(f.path) for f in tree) or evidence.scripts_serve(inside)
        members = {f.path for f in tree if f.path in top_level}
        if serving or evidence.scripts_build(inside):
            members |= {f.path for f in tree if f.path in anywhere or evidence.versioned(f.path)}
            members = _with_imported(members, tree, packages)
        if not _mostly_kit(members, tree, inside):
            continue
        names = {name for f in tree for name in import_names(f.path, f.module, packages)}
        outside = [f for f in python if not f.path.startswith(inside)]
        if any(_loads(f, name, names, paths) for f in outside for name in f.imports):
            continue  # the rest of the project loads it: not a kit beside the product, part of it
        if not any(_top(name) == "torch" for f in outside for name in f.imports):
            continue  # no PyTorch path beside it: the kit is the product
        kits[folder] = Kit(tuple(sorted(set().union(*(anywhere.get(p, set()) for p in members)))), serving,
                           any(f.evidence.get("inference", 0) > 0 for f in outside))
    return kits


def _top(name: str) -> str:
    return name.split(".")[0]


def _folders(path: str) -> list[str]:
    """The folders holding `path`, the root's top-level one first, the root itself left out."""
    parts = path_view(path).parts[:-1]
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _with_imported(members: set[str], tree: list[ModuleFacts], packages: set[str]) -> set[str]:
    """The members and the tree's modules they import (a kit's helpers: the model next to a Triton model.py)."""
    by_name = {name: f.path for f in tree for name in import_names(f.path, f.module, packages)}
    by_path = {f.path: f for f in tree}
    found, pending = set(members), list(members)
    while pending:
        for name in by_path[pending.pop()].imports:
            parts = name.split(".")
            target = next((by_name[n] for n in (".".join(parts[:i]) for i in range(len(parts), 0, -1)) if n in by_name), None)
            if target is not None and target not in found:
                found.add(target)
                pending.append(target)
    return found


def _mostly_kit(members: set[str], tree: list[ModuleFacts], inside: str) -> bool:
    """Two or more kit modules, at least half of the tree's, at least half of those directly in the folder, and one in
    each subfolder holding Python."""
    if len(members) < 2 or 2 * len(members) < len(tree):
        return False
    direct = [f.path for f in tree if "/" not in f.path[len(inside):]]
    if 2 * len(members.intersection(direct)) < len(direct):
        return False
    subfolders = {f.path[len(inside):].split("/", 1)[0] for f in tree if "/" in f.path[len(inside):]}
    return all(any(m.startswith(f"{inside}{sub}/") for m in members) for sub in subfolders)


def _loads(f: ModuleFacts, name: str, names: set[str], paths: set[str]) -> bool:
    """Whether `name`, imported by `f` outside the folder, is one of the folder's modules: a bare name is a module of
    the importer's own folder first (`import model` beside a model.py of its own)."""
    known = next((k for k in names if name == k or name.startswith(k + ".")), None)
    if known is None:
        return False
    if "." in known:
        return True
    parent = path_view(f.path).parent
    local = f"{known}.py" if parent == "." else f"{parent}/{known}.py"
    return local not in paths and local.removesuffix(".py") + "/__init__.py" not in paths


class _Evidence:
    """What a folder's files other than its Python show: a model repository, scripts launching the stack."""

    def __init__(self, backends: BackendConventions, files, root: Path | None) -> None:
        self.backends = backends
        self.root = root
        self.scripts = [f for f in files if f.kind in {"shell", "dockerfile"}]
        self._configs: dict[str, bool] = {}
        self._launches: dict[str, tuple[bool, bool]] = {}

    def versioned(self, path: str) -> bool:
        """`path` sits in a version folder of a model repository: <model>/<digits>/ beside <model>/config.pbtxt."""
        parts = path_view(path).parts
        if len(parts) < 3 or not parts[-2].isdigit() or self.root is None:
            return False
        model = "/".join(parts[:-2])
        if model not in self._configs:
            self._configs[model] = any(_readable(self.root, f"{model}/{name}") for name in self.backends.nvidia_model_configs)
        return self._configs[model]

    def scripts_serve(self, inside: str) -> bool:
        return any(self._launch(f)[0] for f in self.scripts if f.path.startswith(inside))

    def scripts_build(self, inside: str) -> bool:
        return any(self._launch(f)[1] for f in self.scripts if f.path.startswith(inside))

    def _launch(self, f) -> tuple[bool, bool]:
        """(serves, builds engines): whether the script or Dockerfile launches a serving command or starts FROM a
        serving image, whether it launches an engine build."""
        if f.path not in self._launches:
            self._launches[f.path] = launches(f.absolute, f.size, f.kind == "dockerfile", self.backends)
        return self._launches[f.path]


def launches(absolute: str, size: int, dockerfile: bool, backends: BackendConventions) -> tuple[bool, bool]:
    try:
        text = read_bytes(absolute, size, MAX_SCRIPT_BYTES).decode("utf-8", "replace")
    except (Unreadable, OSError):
        return False, False
    serving_words = set(backends.nvidia_serving_commands)
    build_words = set(backends.nvidia_kit_commands)
    if not any(word in text for word in (*serving_words, *build_words, *backends.nvidia_serving_images)):
        return False, False
    root = parsing.parse("bash", (shell_view(text) if dockerfile else text).encode("utf-8"))
    serves = builds = False
    for command in parsing.captures(parsing.query("bash", COMMANDS), root).get("command", []):
        name = parsing.text(command.child_by_field_name("name"))
        words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
        if dockerfile and name.upper() == "FROM":
            image = next((w for w in words if not w.startswith("--")), "").lower()
            serves = serves or image.startswith(tuple(backends.nvidia_serving_images))
            continue
        programs = {_program(name, words, backends.process_launchers)}
        serves = serves or bool(programs & serving_words)
        builds = builds or bool(programs & build_words)
    return serves, builds


def _program(name: str, words: list[str], launchers: list[str]) -> str:
    """The program a command runs: its name, or for a launcher (`mpirun -np 1 trtllm-serve serve`) the first word
    that is no option nor an option's number."""
    program = name.rsplit("/", 1)[-1]
    while program in launchers:
        words = [w for w in words if not w.startswith("-") and not w.isdigit() and "=" not in w]
        if not words:
            break
        program, words = words[0].rsplit("/", 1)[-1], words[1:]
    return program


def nvidia_command(node) -> str | None:
    """The NVIDIA-only serving or engine-build program (`tritonserver`, `trtllm-serve`, `trtllm-build`) whose command an
    environment assignment prefixes (`CUDA_VISIBLE_DEVICES=0 mpirun -np 1 trtllm-serve serve`), or None: the variable
    selects GPUs for a program with no Ascend build, so it ports nothing (round 19 B1 (c))."""
    while node is not None and node.type != "variable_assignment":
        node = node.parent
    command = node.parent if node is not None else None
    if command is None or command.type != "command" or command.child_by_field_name("name") is None:
        return None
    backends = _backends()
    words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
    program = _program(parsing.text(command.child_by_field_name("name")), words, backends.process_launchers)
    return program if program in (*backends.nvidia_serving_commands, *backends.nvidia_kit_commands) else None


@functools.cache
def _backends() -> BackendConventions:
    from ascend_feasibility.knowledge import load_context_conventions

    return load_context_conventions().backends


def _readable(root: Path, relative: str) -> bool:
    try:
        read_contained(root, relative, MAX_CONFIG_BYTES)
    except (Unreadable, OSError):
        return False
    return True


def fold_kits(findings: list[Finding], kits: dict[str, Kit], factory: FindingFactory,
              route: Text | None = None) -> list[Finding]:
    """Each kit's findings become one: the first that names a runtime (its import), else the first, with every site of
    the kit listed and the PyTorch path as the advice; optional, except a deployment's package item where it ran
    (its dependency finding on the runtime, counted once, with `route`: how to serve on Ascend) and the deployment is
    the project's only way to serve: beside the project's own PyTorch inference it is an alternative, optional."""
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
        kit = kits[folder]
        named = [f for f in group if f.symbol.split(".")[0].replace("-", "_") in kit.runtimes]
        package = sorted((f for f in named if f.domain == "dependencies" and f.reach == "runs"),
                         key=lambda f: SEVERITY_RANK[f.severity])
        first = package[0] if kit.serving and package else (named or group)[0]
        runtime = ", ".join(kit.runtimes)
        files = len({f.path for f in group})
        sites = [f"{f.path}:{f.line}" + (f" (cell {f.cell})" if f.cell else "") for f in group]
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        if kit.serving and first.reach == "runs" and first.domain == "dependencies" and not kit.pytorch_inference:
            advice = route or Text(en="on Ascend use the project's PyTorch path instead",
                                   zh="在昇腾上改用项目的 PyTorch 路径")
            listed = _listed_as_sites(len(group), files)
            message = Text(
                en=f"{first.message.en} {folder}/ is an NVIDIA serving deployment ({runtime}) that has no Ascend "
                   f"build: {advice.en}; {listed.en}",
                zh=f"{first.message.zh} {folder}/ 是 NVIDIA 推理服务部署（{runtime}），没有昇腾版本：{advice.zh}；{listed.zh}")
            kept[id(first)] = first.model_copy(update={"sites": sites, "message": message, "phases": list(SERVING_PHASES)})
        elif kit.serving and first.domain == "dependencies" and first.reach == "runs":
            reason = (f"{folder}/ is an alternative NVIDIA serving deployment ({runtime}); the PyTorch path is what "
                      "the port moves")
            relocated = factory.relocate(first, Place(first.role, "optional", reason))
            advice = route or Text(en="on Ascend use the project's PyTorch path instead",
                                   zh="在昇腾上改用项目的 PyTorch 路径")
            listed = _listed_as_sites(len(group), files)
            message = Text(
                en=f"{relocated.message.en} {folder}/ is an NVIDIA serving deployment ({runtime}) beside the project's "
                   f"own PyTorch inference, with no Ascend build: {advice.en}; {listed.en}",
                zh=f"{relocated.message.zh} {folder}/ 是项目自身 PyTorch 推理之外的 NVIDIA 推理服务部署（{runtime}），"
                   f"没有昇腾版本：{advice.zh}；{listed.zh}")
            kept[id(first)] = relocated.model_copy(update={"sites": sites, "message": message, "phases": list(SERVING_PHASES)})
        else:
            reason = (f"{folder}/ is an NVIDIA-only accelerator kit: its modules import {runtime}, which has no Ascend "
                      "build, nothing outside the folder imports them, and the project's PyTorch code runs beside it")
            relocated = factory.relocate(first, Place(first.role, "optional", reason))
            listed = _listed_as_sites(len(group), files)
            message = Text(
                en=f"{relocated.message.en} NVIDIA-only accelerator ({folder}/, built on {runtime}): on Ascend use the "
                   f"project's PyTorch path instead; {listed.en}",
                zh=f"{relocated.message.zh} 仅限 NVIDIA 的加速套件（{folder}/，基于 {runtime}）：在昇腾上改用项目的 PyTorch "
                   f"路径；{listed.zh}")
            kept[id(first)] = relocated.model_copy(update={"sites": sites, "message": message})
        dropped.update(id(f) for f in group if f is not first)
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]


def _listed_as_sites(findings: int, files: int) -> Text:
    return Text(en=f"its {findings} findings in {files} files are listed as sites, not port items one by one.",
                zh=f"其 {files} 个文件中的 {findings} 处发现作为位置列出，不逐项迁移。")
