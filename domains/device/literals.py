"""Recognising CUDA device literals in Python syntax: "cuda", "cuda:0", f"cuda:{rank}", "cuda:" + str(i)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import literal_is_docstring
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

_PLAIN = re.compile(r"cuda(:\d+)?")
_FSTRING = re.compile(r"cuda:\{[^{}]+\}")
_FORMAT_TEMPLATE = re.compile(r"cuda:(%d|%s|%i|\{\d*\})")
_LOG_CALL_SUFFIXES = ("print", "info", "debug", "warning", "warn", "error", "exception", "critical", "log", "write")


@dataclass(frozen=True)
class DeviceLiteral:
    node: Node  # the expression to report: the string, or the whole "cuda:" + x expression
    formatted: bool  # built from a runtime value (an f-string, concatenation or formatting)
    npu_text: str


def string_parts(node: Node) -> tuple[str, str]:
    """(prefix letters in lower case, the text between the quotes) of a `string` node."""
    start, end = node.children[0], node.children[-1]
    prefix = parsing.text(start).rstrip("'\"").lower()
    inner = node.text[start.end_byte - node.start_byte : end.start_byte - node.start_byte]
    return prefix, inner.decode("utf-8", errors="replace")


def device_literal(node: Node) -> DeviceLiteral | None:
    """The CUDA device literal this `string` node is, or None."""
    if node.type != "string" or node.child_count < 2:
        return None
    prefix, inner = string_parts(node)
    if "b" in prefix:
        return None
    has_interpolation = any(child.type == "interpolation" for child in node.children)
    if "f" in prefix and has_interpolation:
        if _FSTRING.fullmatch(inner):
            return DeviceLiteral(node, True, _to_npu(parsing.text(node)))
        return None
    if _PLAIN.fullmatch(inner):
        return DeviceLiteral(node, False, _to_npu(parsing.text(node)))
    parent = node.parent
    if parent is None:
        return None
    if inner == "cuda:" and parent.type == "binary_operator" and _is_left_of(parent, node, "+"):
        return DeviceLiteral(parent, True, _to_npu(parsing.text(parent)))
    if _FORMAT_TEMPLATE.fullmatch(inner):
        if parent.type == "binary_operator" and _is_left_of(parent, node, "%"):
            return DeviceLiteral(parent, True, _to_npu(parsing.text(parent)))
        if parent.type == "attribute" and parsing.text(parent).endswith(".format"):
            call = parent.parent
            if call is not None and call.type == "call":
                return DeviceLiteral(call, True, _to_npu(parsing.text(call)))
    return None


def _is_left_of(binary: Node, node: Node, operator: str) -> bool:
    left = binary.child_by_field_name("left")
    op = binary.child_by_field_name("operator")
    return left is not None and left.id == node.id and op is not None and parsing.text(op) == operator


def _to_npu(source: str) -> str:
    """The literal for NPU: its device name, and any torch.cuda call inside an f-string or format argument."""
    return source.replace("torch.cuda.", "torch.npu.").replace("cuda", "npu", 1)


is_docstring = literal_is_docstring


def is_message_argument(node: Node) -> bool:
    """Is this an argument of print/logging/warnings/write? Messages are not device strings."""
    args = node.parent
    if args is not None and args.type == "keyword_argument":
        args = args.parent
    if args is None or args.type != "argument_list":
        return False
    call = args.parent
    function = call.child_by_field_name("function") if call is not None else None
    return function is not None and parsing.text(function).endswith(_LOG_CALL_SUFFIXES)


def is_lookup_key(node: Node) -> bool:
    """`config["cuda"]` and `{"cuda": ...}` keys name settings, not devices."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "subscript":
        value = parent.child_by_field_name("value")
        return value is not None and value.id != node.id
    if parent.type == "pair":
        key = parent.child_by_field_name("key")
        return key is not None and key.id == node.id
    return False


def inside(node: Node, types: set[str], stop: set[str] = frozenset({"block", "module"})) -> Node | None:
    """The nearest ancestor of one of `types` below the enclosing statement block."""
    current = node.parent
    while current is not None and current.type not in stop:
        if current.type in types:
            return current
        current = current.parent
    return None


def in_annotation(node: Node) -> bool:
    """Is the node inside a type annotation (a parameter's or an annotated assignment's type, a return type:
    `Literal["cpu", "cuda", "mps"]`)? Nothing reads it as a device at run time."""
    return inside(node, {"type"}, stop={"block", "module", "lambda"}) is not None


def names_npu(node: Node) -> bool:
    """Is this a string literal naming an NPU device ("npu", "npu:0", f"npu:{rank}")?"""
    if node.type != "string" or node.child_count < 2:
        return False
    _, inner = string_parts(node)
    return inner == "npu" or inner.startswith("npu:")


def names_device_family(node: Node) -> bool:
    """A backend name used as a key, not a device: `("cuda", 8)` in an expectation table keyed by
    (device type, compute capability)."""
    parent = node.parent
    if parent is None or parent.type != "tuple":
        return False
    items = parent.named_children
    return len(items) == 2 and items[0].id == node.id and items[1].type == "integer"


# torch device types (and AWS Neuron's, which projects list beside them); "npu" is left out on purpose.
DEVICE_TYPES = frozenset({"cuda", "cpu", "mps", "xpu", "hpu", "xla", "mlu", "musa", "meta", "ipu", "mtia", "neuron",
                          "vulkan", "privateuseone", "rocm"})


def device_collection(node: Node) -> Node | None:
    """The list, tuple or set of device types this literal is one of (`("cuda", "neuron")`, `["cpu", "cuda"]`), when
    every item is a plain device-type string and there are at least two: a collection of supported or tested devices,
    where Ascend needs "npu" added, not "cuda" replaced. None otherwise."""
    parent = node.parent
    if parent is None or parent.type not in {"list", "tuple", "set"}:
        return None
    items = parent.named_children
    if len(items) < 2 or any(item.type == "comment" for item in items):
        return None  # (a comment inside would end up inside the suggested edit)
    for item in items:
        if item.type != "string" or item.child_count < 2:
            return None
        prefix, inner = string_parts(item)
        if prefix or inner.split(":")[0] not in DEVICE_TYPES:
            return None
    return parent


def device_table(node: Node) -> Node | None:
    """The dict this "cuda" key belongs to when its keys are device types, two or more, none of them "npu"
    (`{"cuda": torch.cuda.synchronize, "xpu": torch.xpu.synchronize, "cpu": ...}`): a per-backend dispatch table
    whose gap on Ascend is a missing "npu" row, not its "cuda" row."""
    pair = node.parent
    if pair is None or pair.type != "pair" or pair.child_by_field_name("key") is None or pair.child_by_field_name("key").id != node.id:
        return None
    table = pair.parent
    if table is None or table.type != "dictionary":
        return None
    keys = [p.child_by_field_name("key") for p in table.named_children if p.type == "pair"]
    names = [string_parts(k)[1].split(":")[0] for k in keys if k is not None and k.type == "string" and k.child_count >= 2]
    known = [n for n in names if n in DEVICE_TYPES]
    if len(known) < 2 or len(known) != len(keys) or "npu" in names:
        return None
    return table


def already_npu_aware(node: Node) -> bool:
    """The literal sits beside an NPU one: a list of supported devices, a device-type table, an enum of
    device kinds. Such code already handles Ascend, and reporting it would be noise."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type in {"list", "tuple", "set"}:
        return any(names_npu(sibling) for sibling in parent.named_children)
    if parent.type == "pair" and parent.parent is not None and parent.parent.type == "dictionary":
        return any(
            names_npu(part) for pair in parent.parent.named_children if pair.type == "pair" for part in pair.named_children
        )
    if parent.type == "assignment":
        statement = parent.parent
        block = statement.parent if statement is not None else None
        if block is not None and block.type == "block" and block.parent is not None and block.parent.type == "class_definition":
            return any(
                names_npu(child.child_by_field_name("right"))
                for stmt in block.named_children
                if stmt.type == "expression_statement"
                for child in stmt.named_children
                if child.type == "assignment" and child.child_by_field_name("right") is not None
            )
    return False


def cuda_literal_in(node: Node) -> DeviceLiteral | None:
    """A device literal that is `node` itself or an element of a tuple/list/set `node`."""
    if node.type == "string":
        return device_literal(node)
    if node.type in {"tuple", "list", "set", "parenthesized_expression"}:
        for child in node.named_children:
            found = cuda_literal_in(child)
            if found is not None:
                return found
    return None


@functools.cache
def build_names() -> frozenset[str]:
    """Names of builds and native backends that are never a torch device type (rocm, vulkan, metal)."""
    return frozenset(load_context_conventions().backends.build_names)


def plain_word(node: Node) -> str | None:
    """The text of a plain string literal up to a device index (`cuda:0` → `cuda`), lower case; None otherwise."""
    if node.type != "string" or node.child_count < 2 or any(c.type == "interpolation" for c in node.children):
        return None
    prefix, inner = string_parts(node)
    return None if "b" in prefix else inner.split(":")[0].lower()


def names_builds(words: list[str | None]) -> bool:
    """Words of builds or prebuilt flavours: one names a build (rocm, vulkan, metal), and none is a torch device type
    other than cuda and cpu, which builds are named for too (`("auto", "cpu", "cuda", "rocm", "vulkan")`). "rocm"
    decides nothing alone (device_family_builds: `["cuda", "rocm"]` is diffusers' device family), and beside "xpu"
    or "mps" (`{"cuda", "rocm", "xpu"}`) it is a project's own name for a device backend."""
    names = build_names()
    devices_only = (DEVICE_TYPES | {"npu"}) - names - {"cuda", "cpu"}
    decisive = names - frozenset(load_context_conventions().backends.device_family_builds)
    return any(w in decisive for w in words) and not any(w in devices_only for w in words)


def build_flavour(node: Node) -> bool:
    """A "cuda" that names a build, a prebuilt flavour or a native backend, not a torch device: an item of a list,
    tuple or set of plain strings whose words name builds (names_builds: `("cuda", "hip", "vulkan")`,
    `choices=["auto", "cpu", "vulkan", "rocm", "cuda"]`), or a `return` value of a function whose plain returns do (a
    prebuilt picker: `return "metal"` ... `return "cuda"` ... `return "rocm"`). Such a string reaches no torch device
    sink."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type in {"list", "tuple", "set"}:
        words = [plain_word(item) for item in parent.named_children]
        return None not in words and names_builds(words)
    if parent.type == "return_statement":
        function = parent.parent
        while function is not None and function.type not in {"function_definition", "lambda", "module"}:
            function = function.parent
        if function is None or function.type != "function_definition":
            return False
        return names_builds([plain_word(value) for value in _returned_literals(function)])
    return False


def _returned_literals(function: Node) -> list[Node]:
    """The plain values of the function's own `return` statements (not those of functions defined inside it)."""
    found, stack = [], [function.child_by_field_name("body")]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        if current.type == "return_statement":
            found.extend(c for c in current.named_children if c.type == "string")
            continue
        stack.extend(c for c in current.named_children if c.type not in {"function_definition", "lambda", "class_definition"})
    return found
