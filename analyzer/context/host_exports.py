"""TorchScript exported on the host: `torch.jit.save(torch.jit.script(build_model()), path)` in a file whose code, and
the project code loaded with it, selects no device at all.

DEV503 warns that transfer_to_npu makes torch.jit.script a pass-through, so saving a ScriptModule breaks under it. A
port adds that shim only to code that runs on a device; code that names no device (no `cuda`/`npu`/`gpu`/`device`
word in a name or a string, no `.to(...)`, `.cuda()` or `.npu()` call, no torch_npu import) builds and scripts its
model on the CPU and saves the same file on any host (a checkpoint loaded with `map_location="cpu"`, or with none,
stays there). Round 32 B1 row 22, B2 row 48: an export script whose whole project has no device code.

Per file (phases facts, `selects_device`), read with tree-sitter where the bytes can name a device (may_select).
Per project (host_exports, only when a DEV503 is above info): the code loaded with the finding's file is every file
that imports it, directly or not, and everything those import (cudnn_ops.import_edges). When none of it selects a
device, the finding goes to info, listed and not counted, saying why.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.cudnn_ops import import_edges, reached
from ascend_feasibility.analyzer.core.findings import nothing_to_port
from ascend_feasibility.analyzer.core.models import Finding, Text
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

RULES = frozenset({"DEV503"})
MAX_NODES = 200_000  # past this many nodes a file counts as selecting a device
BYTE_MARKS = (b"cuda", b"npu", b"gpu", b"dev", b"accelerator", b".to", b"map_location")  # in lowered bytes
DEVICE_NAMES = frozenset({"cuda", "npu", "gpu", "gpus", "accelerator"})  # parts of a name that choose a device
DEVICE_STRINGS = DEVICE_NAMES | {"device", "devices"}  # parts of a string that do (`"--device"`, `"cuda:0"`)
DTYPES = frozenset({"float", "float16", "float32", "float64", "half", "double", "bfloat16", "int", "int8", "int16",
                    "int32", "int64", "long", "short", "uint8", "bool", "complex64", "complex128", "cfloat",
                    "channels_last", "contiguous_format"})
WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")  # the parts of one identifier or string, not source text
NOTE = Text(
    en="Here it does not apply: no code loaded with this file (what imports it and what that imports, {count} files) "
       "selects a device (no cuda, npu or device name, no .to(), .cuda() or torch_npu import), so the model is "
       "scripted and saved on the host, the same on any machine, and no port adds transfer_to_npu to it.",
    zh="此处不适用：与该文件一同加载的代码（导入它的文件及其导入的文件，共 {count} 个）没有选择任何设备（没有 cuda、npu 或 "
       "device 名称，没有 .to()、.cuda() 或 torch_npu 导入），因此模型在主机上脚本化并保存，在任何机器上结果相同，"
       "迁移也不会给它加上 transfer_to_npu。",
)
NOTHING = Text(
    en="Nothing to port: keep the export as it is, and run it without transfer_to_npu.",
    zh="无需迁移：保持该导出不变，并在不加载 transfer_to_npu 的情况下运行。",
)


def may_select(data: bytes) -> bool:
    lowered = data.lower()
    return any(mark in lowered for mark in BYTE_MARKS)


def selects_device(root: Node, data: bytes) -> bool:
    """Whether the file's code chooses a device: a cuda/npu/gpu word in a name, a device word in a string, a
    `torch.device(...)`, `.cuda()` or `.npu()` call, a `.to(...)` that is neither a dtype cast nor a move to another
    tensor's `.device`, or a `map_location` other than "cpu" or a function. Reading a tensor's `.device` and handing it
    on (`torch.ones(n, device=x.device)`) follows the model and chooses nothing. True when too big to read."""
    if not may_select(data):
        return False
    try:
        for node in parsing.walk(root, limit=MAX_NODES, strict=True):
            kind = node.type
            if kind == "identifier" and _device_word(parsing.text(node), DEVICE_NAMES):
                return True
            if kind == "string_content" and _device_word(parsing.text(node), DEVICE_STRINGS):
                return True
            if kind == "call" and _selecting_call(node):
                return True
            if kind == "keyword_argument" and _remote_map_location(node):
                return True
    except parsing.WalkLimit:
        return True
    return False


def _selecting_call(call: Node) -> bool:
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "attribute":
        return False
    last = parsing.text(callee.child_by_field_name("attribute"))
    if last == "device":
        return True  # torch.device("cuda", i), or any `x.device(...)`
    if last in {"cuda", "npu"}:
        return True
    return last == "to" and not _casts_only(call)


def _remote_map_location(keyword: Node) -> bool:
    name, value = keyword.child_by_field_name("name"), keyword.child_by_field_name("value")
    if name is None or value is None or parsing.text(name) != "map_location":
        return False
    if value.type == "lambda":
        return False
    if value.type == "string":
        return parsing.text(value).strip("'\"").lower() != "cpu"
    return not (value.type == "call" and parsing.text(value).replace(" ", "") in {'torch.device("cpu")', "torch.device('cpu')"})


def _casts_only(call: Node) -> bool:
    """`x.to(torch.float)`, `x.to(dtype=y.dtype)`, `x.to(dtype)`, `x.to(y.device)`: a dtype cast or a move to where
    another tensor already is, no device chosen."""
    arguments = call.child_by_field_name("arguments")
    values = [] if arguments is None else arguments.named_children
    if not values:
        return False
    for value in values:
        if value.type == "keyword_argument":
            name = value.child_by_field_name("name")
            if name is None or parsing.text(name) not in {"dtype", "device", "non_blocking", "copy", "memory_format"}:
                return False
            value = value.child_by_field_name("value")
        if value is None or not (_dtype_like(value) or _followed_device(value)):
            return False
    return True


def _followed_device(value: Node) -> bool:
    """`x.device`: the device another tensor is already on."""
    return value.type == "attribute" and parsing.text(value.child_by_field_name("attribute")) == "device"


def _dtype_like(value: Node) -> bool:
    if value.type == "attribute":
        owner, attribute = value.child_by_field_name("object"), value.child_by_field_name("attribute")
        last = parsing.text(attribute)
        return (parsing.text(owner) == "torch" and last in DTYPES) or last == "dtype"
    if value.type == "identifier":
        return parsing.text(value).lower().endswith("dtype")
    return value.type in {"true", "false"}


def _device_word(text: str, words: frozenset[str]) -> bool:
    return any(part.lower() in words for part in WORD.findall(text[:200]))


def host_exports(findings: list[Finding], facts: list[ModuleFacts]) -> list[Finding]:
    asked = {f.path for f in findings if f.rule in RULES and f.severity != "info" and not f.suppressed}
    if not asked:
        return findings
    by_facts = {f.path: f for f in facts}
    by_path = set(by_facts)
    edges = import_edges(facts)
    reverse: dict[str, set[str]] = defaultdict(set)
    for source, targets in edges.items():
        for target in targets:
            reverse[target].add(source)
    host: dict[str, int] = {}  # export's file → how many files load with it, where none selects a device
    for path in asked:
        if path not in by_path:
            continue
        scope = reached(reached({path}, reverse), edges)
        if not any(by_facts[p].device_choice() for p in sorted(scope) if p in by_facts):  # stops at the first
            host[path] = len(scope)
    if not host:
        return findings
    result = []
    for finding in findings:
        if finding.rule in RULES and finding.path in host and finding.severity != "info" and not finding.suppressed:
            count = host[finding.path]
            finding = nothing_to_port(finding, Text(en=NOTE.en.format(count=count), zh=NOTE.zh.format(count=count)),
                                      NOTHING)
        result.append(finding)
    return result
