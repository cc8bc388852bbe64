"""Whether a complex RoPE table (torch.polar) is built on the host: no complex op of it reaches the NPU.

LlamaGen's and fish-speech's `precompute_freqs_cis(seq_len: int, n_elem: int, base: int = 10000)` (round 23 A1 C7
row 21, A2 C8 row 90, verdicts V3) build `freqs` from `torch.arange(0, n_elem, 2)` with no device, take
`torch.polar(torch.ones_like(freqs), freqs)` and stack `.real`/`.imag` into a real cache at once (rotary_use.real_table);
the module's `__init__` stores that real cache, and `.to(device)` moves only it. torch.polar then runs on the CPU, once,
and the NPU never sees a complex tensor: nothing to port.

The table counts as built on the host when, in the function that makes it:
- every parameter is a scalar: annotated int/float/bool/str (Optional too) or defaulting to a literal, so no tensor
  (with its device) comes in; `self` is none (an attribute may hold a device tensor);
- no call gives a `device=` other than `<local>.device` of a tensor the function made itself (`torch.arange(seq_len,
  device=freqs.device)`), and no `.cuda()`/`.npu()`/`.to(...)` moves a value (a `.to(torch.float32)` or
  `.to(dtype=...)` only converts);
- the file sets no default device (`torch.set_default_device`, `with torch.device(...)`), under which a factory with no
  device makes device tensors.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.host_values import sets_default_device
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

HOST_TABLE = "host-table"
SCALAR_TYPES = frozenset({"int", "float", "bool", "str", "None", "Optional", "Union"})
LITERALS = frozenset({"integer", "float", "string", "true", "false", "none", "unary_operator"})
MOVES = frozenset({"cuda", "npu", "to", "type_as", "pin_memory"})
CONVERT_KEYWORDS = frozenset({"dtype", "copy", "non_blocking", "memory_format"})
MAX_NODES = 5_000
MAX_MODULE_NODES = 100_000
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})


def built_on_host(polar: Node) -> bool:
    """Is the function making this torch.polar table one that only makes host tensors (the module docstring)?"""
    function = polar.parent
    while function is not None and function.type not in {"function_definition", "class_definition", "module"}:
        function = function.parent
    if function is None or function.type != "function_definition":
        return False
    parameters = function.child_by_field_name("parameters")
    names = set()
    for parameter in parameters.named_children if parameters is not None else []:
        name = _scalar_parameter(parameter)
        if name is None:
            return False
        names.add(name)
    body = function.child_by_field_name("body")
    try:
        nodes = list(parsing.walk(body, limit=MAX_NODES, prune=_NESTED, strict=True))
    except parsing.WalkLimit:
        return False
    for node in nodes:
        if node.type == "keyword_argument" and parsing.text(node.child_by_field_name("name")) == "device" \
                and not _own_device(node.child_by_field_name("value"), names):
            return False
        if node.type == "call" and _moves(node):
            return False
    return not _sets_default_device(function)


def _scalar_parameter(parameter: Node) -> str | None:
    """The parameter's name where it holds a scalar by its annotation or literal default, else None."""
    if parameter.type in {"typed_parameter", "typed_default_parameter"}:
        kind = parameter.child_by_field_name("type")
        words = {parsing.text(n) for n in parsing.walk(kind, limit=50) if n.type == "identifier"} if kind is not None else set()
        if words and words <= SCALAR_TYPES:
            return _name(parameter)
    if parameter.type in {"default_parameter", "typed_default_parameter"}:
        value = parameter.child_by_field_name("value")
        if value is not None and value.type in LITERALS:
            return _name(parameter)
    return None


def _name(parameter: Node) -> str | None:
    named = parameter.child_by_field_name("name")
    if named is not None:
        return parsing.text(named)
    identifier = next((c for c in parameter.named_children if c.type == "identifier"), None)
    return parsing.text(identifier) if identifier is not None else None


def _own_device(value: Node | None, parameters: set[str]) -> bool:
    """`x.device` of a local tensor (not a parameter's)."""
    if value is None or value.type != "attribute" or parsing.text(value.child_by_field_name("attribute")) != "device":
        return False
    owner = value.child_by_field_name("object")
    return owner is not None and owner.type == "identifier" and parsing.text(owner) not in parameters


def _moves(call: Node) -> bool:
    """A `.cuda()`/`.npu()`/`.type_as(t)` call, or a `.to(...)` that names more than a dtype."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return False
    method = parsing.text(function.child_by_field_name("attribute"))
    if method not in MOVES:
        return False
    if method != "to":
        return True
    arguments = call.child_by_field_name("arguments")
    for argument in arguments.named_children if arguments is not None else []:
        if argument.type == "comment":
            continue
        if argument.type == "keyword_argument":
            if parsing.text(argument.child_by_field_name("name")) not in CONVERT_KEYWORDS:
                return True
        elif not (argument.type == "attribute" and parsing.text(argument.child_by_field_name("object")) == "torch"):
            return True  # a device, a string, another tensor: a move
    return False


def _sets_default_device(node: Node) -> bool:
    """Does the file set a default device (host_values.sets_default_device, or any `with torch.device(...)`)?"""
    if sets_default_device(node):
        return True
    root = parsing.root_of(node)
    try:
        for current in parsing.walk(root, limit=MAX_MODULE_NODES, strict=True):
            if current.type == "call":
                callee = parsing.text(current.child_by_field_name("function"))
                if callee.endswith("device") and current.parent is not None and current.parent.type in {"with_item", "as_pattern"}:
                    return True
    except parsing.WalkLimit:
        return True
    return False
