"""cuDNN's own switches where nothing cuDNN runs is built: `torch.backends.cudnn.allow_tf32 = False` (PRC011) and
`torch.backends.cudnn.deterministic` (DEV402) act on cuDNN's convolutions, RNNs and CTC loss only. In an RWKV trainer
(linear layers, embeddings and its own CUDA kernels) the switch changed nothing on CUDA, and its NPU mirror
(`torch.npu.conv.allow_hf32`) changes nothing either: the finding stays, at info, saying why, with no effort and no
rewrite kind (listed, not counted).

Per file (phases facts, `cudnn_ops`): does the file name such an operator (`nn.Conv2d`, `F.conv1d`, `torch.conv2d`,
`nn.LSTM`, `nn.CTCLoss`), or load a model or module by name (`torch.hub.load`, `importlib.import_module`)? Read only
where the file's bytes can name one (may_name).
Per project (idle_switches, only when such a finding is above info): the code loaded with the switch's file is every
file that imports it, directly or not, and everything those import. When none of it names such an operator, imports a
library that builds whole models (transformers, timm, torchvision: their layers are out of sight, so such an import
keeps the finding as it is) or imports what builds code by name (hydra's instantiate, a registry), the finding goes to
info. An import the graph cannot resolve to a project file exactly (`from src.model import RWKV` in a script beside
src/) takes the nearest file whose path ends so.
"""

from __future__ import annotations

import functools
from collections import defaultdict, deque
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import nearest_copy, path_view
from ascend_feasibility.analyzer.context.unloaded import import_names, package_folders
from ascend_feasibility.analyzer.core.findings import nothing_to_port
from ascend_feasibility.analyzer.core.models import Finding, Text
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

# bytes one of the operators' names holds (Conv, LSTM, GRU, RNN, CTC, hub, import_module): a file with none is not read
BYTE_MARKS = (b"onv", b"LSTM", b"GRU", b"RNN", b"lstm", b"gru", b"rnn", b"CTC", b"ctc", b"hub", b"import_module")
NOTE = Text(
    en="Here it changes nothing: no code loaded with this file (what imports it and what that imports, {count} "
       "files) builds a convolution, an RNN or a CTC loss, or imports a library that builds whole models, so there "
       "is no cuDNN operator for it to act on, on CUDA or on the NPU.",
    zh="此处它不起任何作用：与该文件一同加载的代码（导入它的文件及其导入的文件，共 {count} 个）没有构建卷积、RNN 或 CTC "
       "损失，也没有导入构建整个模型的库，因此无论在 CUDA 还是 NPU 上，都没有它能作用的 cuDNN 算子。",
)

NOTHING = Text(
    en="Nothing to port: the line can stay or go; it acts on no operator this code builds.",
    zh="无需迁移：该行可保留也可删除；它不作用于这段代码构建的任何算子。",
)


def may_name(data: bytes) -> bool:
    return any(mark in data for mark in BYTE_MARKS)


def is_cudnn_op(name: str) -> bool:
    return name.startswith(_operators())


@functools.cache
def _operators() -> tuple[str, ...]:
    return tuple(load_context_conventions().cudnn.operators)


def idle_switches(findings: list[Finding], facts: list[ModuleFacts]) -> list[Finding]:
    conventions = load_context_conventions().cudnn
    rules = frozenset(conventions.rules)
    asked = {f.path for f in findings if f.rule in rules and f.severity != "info" and not f.suppressed}
    if not asked:
        return findings
    libraries = frozenset(conventions.model_libraries)
    plain = tuple(word.lower() for word in conventions.not_models)
    loaders = tuple(conventions.dynamic_loaders)
    builds = {f.path for f in facts if f.cudnn_ops or _model_import(f.imports, libraries, plain)
              or any(name == loader or name.startswith(loader + ".") for name in f.imports for loader in loaders)}
    edges = import_edges(facts) if builds else {}
    reverse: dict[str, set[str]] = defaultdict(set)
    for source, targets in edges.items():
        for target in targets:
            reverse[target].add(source)
    idle: dict[str, int] = {}  # switch's file → how many files load with it, where none builds a cuDNN operator
    for path in asked:
        scope = reached(reached({path}, reverse), edges)
        if not scope & builds:
            idle[path] = len(scope)
    if not idle:
        return findings
    result = []
    for finding in findings:
        if finding.rule in rules and finding.path in idle and finding.severity != "info":
            # nothing to port and nothing to count (round 32 A1 row 34): no effort, and no rewrite kind
            count = idle[finding.path]
            finding = nothing_to_port(finding, Text(en=NOTE.en.format(count=count), zh=NOTE.zh.format(count=count)),
                                      NOTHING)
        result.append(finding)
    return result


def _model_import(imports: list[str], libraries: frozenset[str], plain: tuple[str, ...]) -> bool:
    """Imports of a library that builds whole models, unless what they import is plainly no model
    (`from transformers import GPT2TokenizerFast`, `import torchvision.transforms`). A file's imports hold the module
    of a `from` import beside the names taken from it: the bare library counts only where no name says more."""
    named: dict[str, bool] = {}  # library → does a name taken from it say what it is
    for name in imports:
        root, _, rest = name.partition(".")
        if root not in libraries:
            continue
        if rest and not any(word in "." + rest.lower() for word in plain):
            return True
        named[root] = named.get(root, False) or bool(rest)
    return not all(named.values())


def import_edges(facts: list[ModuleFacts]) -> dict[str, set[str]]:
    """path → the project files its imports load: by the names Python may load them by, else (a script importing
    `src.model` beside src/, with no package marker) the nearest file whose path ends with the dotted name."""
    python = [f for f in facts if f.path.endswith((".py", ".ipynb"))]
    packages = package_folders(facts)
    by_name: dict[str, set[str]] = defaultdict(set)
    by_stem: dict[str, list[str]] = defaultdict(list)
    for f in python:
        if f.module:
            for name in import_names(f.path, f.module, packages):
                by_name[name].add(f.path)
        view = path_view(f.path)
        by_stem[path_view(view.parent).name if view.name == "__init__.py" else view.stem].append(f.path)
    edges: dict[str, set[str]] = {}
    for f in python:
        found: set[str] = set()
        for name in f.imports:
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                candidates = by_name.get(".".join(parts[:end]), set())
                stems = by_stem.get(parts[end - 1])
                if stems:  # most names end in no project file's stem: no path to build
                    tail = "/".join(parts[:end])
                    ends, whole = (f"/{tail}.py", f"/{tail}/__init__.py"), (f"{tail}.py", f"{tail}/__init__.py")
                    candidates = candidates | {p for p in stems if p.endswith(ends) or p in whole}
                if candidates:  # copies of one module in several trees: the import resolves in its own
                    found.add(nearest_copy(sorted(candidates), f.path))
                    break
        edges[f.path] = found - {f.path}
    return edges



def reached(starts: set[str], edges: dict[str, set[str]]) -> set[str]:
    seen = set(starts)
    queue = deque(sorted(starts))
    while queue:
        for target in edges.get(queue.popleft(), ()):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen
