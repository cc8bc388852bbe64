"""`.cuda(<a device name>)`: what transfer_to_npu makes of the argument of `.cuda()` (Ascend/pytorch
v2.12.0-26.1.0).

The shim aliases the methods and leaves their arguments alone (torch_npu/contrib/transfer_to_npu.py:
`torch.Tensor.cuda = torch.Tensor.npu`, `torch.nn.Module.cuda = torch.nn.Module.npu`; neither is in the wrapped lists
that rewrite "cuda" to "npu"). `Module.npu(device)` builds `torch.device("npu", device)` (torch_npu/utils/_module.py),
which takes an index only: a "cuda:0" string or a torch.device raises TypeError. `Tensor.npu` is torch's generated
privateuse1 method (torch_npu/_init/registry/backend.py, torch/utils/backend_registration.py
_normalization_device): a string becomes a torch.device, and a device whose type is not "npu" raises RuntimeError.
So `.cuda()`, `.cuda(0)`, `.cuda(local_rank)` run under the shim, and `.cuda("cuda:0")`, `.cuda(f"cuda:{rank}")`,
`.cuda(torch.device("cuda", 0))` (or a name the function binds once to one of those) raise."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.domains.device import literals
from ascend_feasibility.domains.device.test_arms import assigned_once
from tree_sitter import Node

TORCH_DEVICE = frozenset({"torch.device"})
MAX_SCOPE_NODES = 50_000  # the walk over a function for a name's uses


def device_argument(call: Node) -> Node | None:
    """The device argument of a `.cuda(...)` call: its first positional argument, or its `device=` keyword."""
    args = call.child_by_field_name("arguments")
    for child in args.named_children if args is not None else ():
        if child.type == "keyword_argument":
            if parsing.text(child.child_by_field_name("name")) == "device":
                return child.child_by_field_name("value")
        elif child.type not in {"comment", "list_splat", "dictionary_splat"}:
            return child
    return None


def names_a_device(value: Node | None, imports: ImportTable) -> bool:
    """Is the value a CUDA device name or object (a "cuda..." string, f-string or formatting, `torch.device(...)`),
    directly or through a name its function (or module) binds once to one?"""
    if value is not None and value.type == "identifier":
        value = assigned_once(value)
    if value is None:
        return False
    if value.type == "string":
        return literals.device_literal(value) is not None
    if value.type in {"binary_operator", "call"} and _whole_literal(value):
        return True
    if value.type == "call":
        function = value.child_by_field_name("function")
        return function is not None and function.type in {"identifier", "attribute"} \
            and qualified_name(function, imports) in TORCH_DEVICE
    return False


def _whole_literal(value: Node) -> bool:
    """`"cuda:" + str(rank)`, `"cuda:{}".format(rank)`: the literal device_literal reports is the value itself."""
    for string in parsing.walk(value, limit=200):
        if string.type == "string":
            literal = literals.device_literal(string)
            if literal is not None and literal.node == value:
                return True
    return False


def only_cuda_method_argument(literal: Node) -> bool:
    """Is the literal bound to a name (`device = f"cuda:{rank}"`) whose every use in its function is the device
    argument of a `.cuda()` call, which the shim does not rewrite? (A name read nowhere is not such a literal.)"""
    assignment = literal.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("right") != literal:
        return False
    binding = parsing.named_binding(assignment)
    if binding is None or binding[1] is None:
        return False
    name, scope = binding
    uses = [n for n in parsing.identifiers_named(scope, name, MAX_SCOPE_NODES)
            if n != assignment.child_by_field_name("left") and not _keyword_name(n)]
    return bool(uses) and all(_is_cuda_device_argument(use) for use in uses)


def _is_cuda_device_argument(use: Node) -> bool:
    parent = use.parent
    if parent is not None and parent.type == "keyword_argument":
        if parsing.text(parent.child_by_field_name("name")) != "device" or parent.child_by_field_name("value") != use:
            return False
        parent = parent.parent
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    if call is None or call.type != "call":
        return False
    function = call.child_by_field_name("function")
    name = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else None
    return name is not None and parsing.text(name) == "cuda" and device_argument(call) == use


def _keyword_name(identifier: Node) -> bool:
    """`device` in `f(device=...)`: a keyword's name, not a read of the variable."""
    parent = identifier.parent
    return parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("name") == identifier
