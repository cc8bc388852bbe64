"""Where a float64 tensor made on the device goes, read in the function that makes it.

`t = torch.tensor([count, total], dtype=torch.float64, device="cuda")` is followed by name, in source order, to the
end of its function:
- `reduced`: it (or a list it is appended to and the tensor stacked or concatenated from that list) is passed to a
  reducing collective, `dist.all_reduce` / `reduce` / `reduce_scatter` (and their coalesced and tensor forms). torch_npu's
  HCCL process group rejects float64 there (ProcessGroupHCCL.cpp checkSupportedDataType), so a multi-NPU run raises.
- `reported`: every use hands a number back to the host (`.item()`, `.tolist()`, `.cpu()`, `.numpy()`, `float(t)`,
  `int(t)`, `print`), reads the tensor's metadata (`.device`, `.shape`), or passes it to a collective that takes any
  dtype (`broadcast`, `all_gather`): the float64 value only feeds reporting. Nothing is computed on it on the device.
- `elementwise`: a literal list made on the device whose every use is element-wise arithmetic or an operator with a
  DOUBLE kernel on the NPU (dtype_premises.elementwise_table): float64 is kept there and computed as on CUDA.
- None otherwise: any other use (arithmetic, returning it, storing it, passing it to another function) or a tensor
  that is not made on the device (a factory without `device=`, a cast of an existing tensor: `.to(torch.float64)` of
  an NPU tensor is replaced by float32 there, so no collective sees float64).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.precision.dtype_premises import elementwise_table
from ascend_feasibility.domains.python_refs import keywords
from tree_sitter import Node

FACTORIES = {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "randn", "rand",
             "randint", "eye"}
REDUCING = {"all_reduce", "reduce", "reduce_scatter", "all_reduce_coalesced", "reduce_scatter_tensor",
            "_reduce_scatter_base", "reduce_scatter_tensor_coalesced", "all_reduce_multigpu", "reduce_multigpu"}
ANY_DTYPE = {"broadcast", "all_gather", "all_gather_into_tensor", "_all_gather_base", "gather", "scatter", "send",
             "recv", "isend", "irecv", "broadcast_multigpu", "all_gather_multigpu"}
HOST_READS = {"item", "tolist", "cpu", "numpy"}
HOST_CALLS = {"float", "int", "str", "print", "repr", "round"}
METADATA = {"device", "shape", "dtype", "ndim", "is_cuda", "size", "numel", "dim"}
SAME_TENSOR = {"view", "reshape", "flatten", "clone", "contiguous", "detach", "squeeze", "unsqueeze"}
GROUPING = {"stack", "cat", "concat", "concatenate"}
SCOPES = {"function_definition", "lambda", "class_definition"}
MAX_NODES = 20000


DETECTORS = {"reduced": "float64-reduced-collective", "reported": "float64-reported-value",
             "elementwise": "float64-elementwise-table"}


def fate_hit(dtype: Node) -> tuple[str, str] | None:
    """(detector, symbol) for a float64 dtype whose tensor is reduced or only reported, else None (the dtype's own
    rule applies)."""
    call = _making_call(dtype)
    kind = fate(dtype, call) if call is not None else None
    if kind is None:
        return None
    return DETECTORS[kind], " ".join(parsing.text(call).split())[:100]


def fate(dtype: Node, call: Node | None = None) -> str | None:
    """`reduced`, `reported`, `elementwise` (dtype_premises.elementwise_table) or None for the tensor made by the call
    this dtype argument belongs to."""
    call = call or _making_call(dtype)
    if call is None:
        return None
    assignment = parsing.assignment_of(call)
    if assignment is None:
        return None
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return None
    scope = parsing.enclosing(assignment, SCOPES | {"module"})
    if scope is None:
        return None
    kind = _follow(scope, parsing.text(left), assignment.end_byte)
    if kind is None and elementwise_table(call, parsing.text(left), assignment.end_byte):
        return "elementwise"
    return kind


def call_of_dtype(dtype: Node) -> Node | None:
    """The call whose argument (positional or keyword) the dtype is: `torch.zeros(n, dtype=torch.float64)`."""
    parent = dtype.parent
    if parent is not None and parent.type == "keyword_argument":
        parent = parent.parent
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    return call if call is not None and call.type == "call" else None


def _making_call(dtype: Node) -> Node | None:
    """The factory call that makes a tensor on a device with this dtype: `torch.zeros(n, dtype=..., device=d)`."""
    call = call_of_dtype(dtype)
    if call is None:
        return None
    function = call.child_by_field_name("function")
    if function is None or parsing.text(function).rsplit(".", 1)[-1] not in FACTORIES:
        return None
    device = keywords(call).get("device")
    if device is not None and "cpu" not in parsing.text(device):
        return call
    return _moved_to_device(call)


def _moved_to_device(call: Node) -> Node | None:
    """`torch.tensor(x, dtype=torch.float64).cuda()` / `.npu()` / `.to(device)`: the move keeps float64 (torch_npu
    replaces only a dtype-only cast of a device tensor, ToKernelNpu.cpp), so the moved tensor is the one made on the
    device. A `.to(...)` counts only where an argument names a device, so `.to(torch.float32)` and `.to(other)`
    (which take a new dtype) do not."""
    member = call.parent
    if member is None or member.type != "attribute" or member.child_by_field_name("object") != call:
        return None
    moved = member.parent
    if moved is None or moved.type != "call":
        return None
    name = parsing.text(member.child_by_field_name("attribute"))
    if name in {"cuda", "npu"}:
        return moved
    arguments = moved.child_by_field_name("arguments")
    if name != "to" or arguments is None or "dtype" in keywords(moved):
        return None
    values = [parsing.text(a) for a in arguments.named_children if a.type != "comment"]
    named = any(k in v for v in values for k in ("device", "cuda", "npu"))
    return moved if named and not any("float" in v or "double" in v for v in values) else None


def follow_to_reduction(scope: Node, name: str, after: int) -> bool:
    """Does the tensor named `name` after byte `after` reach a reducing collective (or a wrapper of one) before any use
    that could replace it? Later uses do not matter: the collective raises first."""
    return _follow(scope, name, after, stop_at_reduce=True) == "reduced"


def moves_to_device(call: Node) -> Node | None:
    """The `.cuda()` / `.npu()` / `.to(device)` call that moves the tensor `call` makes, else None."""
    return _moved_to_device(call)


def _follow(scope: Node, name: str, after: int, *, stop_at_reduce: bool = False) -> str | None:
    """Follow the tensor's names through the scope after byte `after`."""
    held = {name}  # names that hold the tensor (or a list of such tensors)
    pending: list[tuple[int, str, bool]] = []  # (end of an assignment, name, holds after it)
    reduced = computed = False
    read = 0
    identifiers = _identifiers_after(scope, after)
    if identifiers is None:
        return None
    for node in identifiers:
        while pending and pending[0][0] <= node.start_byte:
            _, bound, holds = pending.pop(0)
            (held.add if holds else held.discard)(bound)
        text = parsing.text(node)
        parent = node.parent
        if parent is not None and _named_field(parent, node):
            continue  # `x.t`, `f(t=...)`: a member or a keyword, not the name
        if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node:
            right = parent.child_by_field_name("right")
            pending.append((parent.end_byte, text, right is not None and _derived(right, held)))
            pending.sort()
            continue
        if text not in held:
            continue
        use = _use(node)
        if use == "keep" and parent is not None and parent.type == "argument_list":
            owner = _appended_to(parent.parent)
            if owner is not None:
                held.add(owner)  # `deltas.append(delta)`: the list holds it now
        if use is None:
            return None
        if use == "reduce":
            if stop_at_reduce:
                return "reduced"
            reduced = True
        elif use == "compute":
            computed = True
        elif use == "read":
            read += 1
    if reduced:
        return "reduced"
    return "reported" if read and not computed else None


def _use(node: Node) -> str | None:
    """What one occurrence of a held name does: reduce, read (to the host), keep (metadata, a collective that takes
    any dtype, grouping into a list or a stack), compute (in place), or None for anything else."""
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "attribute" and parent.child_by_field_name("object") == node:
        member = parsing.text(parent.child_by_field_name("attribute"))
        called = parent.parent is not None and parent.parent.type == "call"
        if member in METADATA or (called and member in {"append", "extend"}):
            return "keep"  # metadata; a list of such tensors growing
        if member in HOST_READS and called:
            return "read"
        if called and member.endswith("_") and not member.startswith("_"):
            return "compute"  # `delta.add_(x)`: the tensor stays float64 on the device
        if called and member in SAME_TENSOR and _assigned_value(parent.parent):
            return "keep"
        return None
    if parent.type == "keyword_argument":
        parent = parent.parent
    if parent is None or parent.type != "argument_list" or parent.parent is None or parent.parent.type != "call":
        return None
    function = parent.parent.child_by_field_name("function")
    if function is None:
        return None
    callee = parsing.text(function)
    last = callee.rsplit(".", 1)[-1]
    if _distributed(function) and last in REDUCING:
        return "reduce"
    if function.type == "identifier" and _wraps_reduction(parent.parent, node):
        return "reduce"
    if _distributed(function) and last in ANY_DTYPE:
        return "keep"
    if callee in HOST_CALLS or last in {"info", "warning", "debug", "log"}:
        return "read"
    if _appended_to(parent.parent) is not None:
        return "keep"  # the list now holds it (_follow follows the list)
    if last in GROUPING and _assigned_value(parent.parent):
        return "keep"
    return None


def _wraps_reduction(call: Node, value: Node) -> bool:
    """`all_reduce_sum(buf)` where the module defines `def all_reduce_sum(tensor, ...)` whose body passes that parameter
    to `dist.all_reduce` / `reduce` / `reduce_scatter`: a one-level project wrapper of a reducing collective."""
    arguments = call.child_by_field_name("arguments")
    values = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    if value not in values or values.index(value) != 0:
        return False  # the wrappers seen take the tensor first; a keyword or later position is not read
    name = parsing.text(call.child_by_field_name("function"))
    definition = next((d for d in parsing.function_definitions(parsing.root_of(call))
                       if parsing.text(d.child_by_field_name("name")) == name), None)
    parameters = definition.child_by_field_name("parameters") if definition is not None else None
    first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
    if first is not None and first.type != "identifier":
        first = first.child_by_field_name("name") or (first.named_children[0] if first.named_children else None)
    if first is None or first.type != "identifier":
        return False
    tensor = parsing.text(first)
    for inner in parsing.walk(definition.child_by_field_name("body"), limit=MAX_NODES):
        function = inner.child_by_field_name("function") if inner.type == "call" else None
        if function is None or function.type != "attribute" or not _distributed(function):
            continue
        if parsing.text(function.child_by_field_name("attribute")) not in REDUCING:
            continue
        given = inner.child_by_field_name("arguments")
        passed = [a for a in given.named_children if a.type != "comment"] if given is not None else []
        if passed and passed[0].type == "identifier" and parsing.text(passed[0]) == tensor:
            return True
    return False


def _derived(right: Node, held: set[str]) -> bool:
    """Does the assigned value hold the tensor: `torch.stack(deltas)`, `t.view(-1)`, `t`?"""
    if right.type == "identifier":
        return parsing.text(right) in held
    if right.type != "call":
        return False
    function = right.child_by_field_name("function")
    arguments = right.child_by_field_name("arguments")
    if function is None or arguments is None:
        return False
    last = parsing.text(function).rsplit(".", 1)[-1]
    if last in GROUPING:
        values = [a for a in arguments.named_children if a.type != "comment"]
        return bool(values) and values[0].type == "identifier" and parsing.text(values[0]) in held
    if function.type == "attribute" and last in SAME_TENSOR:
        owner = function.child_by_field_name("object")
        return owner is not None and owner.type == "identifier" and parsing.text(owner) in held
    return False


def _named_field(parent: Node, node: Node) -> bool:
    field = {"attribute": "attribute", "keyword_argument": "name"}.get(parent.type)
    return field is not None and parent.child_by_field_name(field) == node


def _appended_to(call: Node | None) -> str | None:
    """`deltas.append(delta)`: the list's name."""
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if function is None or function.type != "attribute":
        return None
    owner = function.child_by_field_name("object")
    member = parsing.text(function.child_by_field_name("attribute"))
    return parsing.text(owner) if member in {"append", "extend"} and owner is not None and owner.type == "identifier" else None


def _assigned_value(call: Node | None) -> bool:
    return call is not None and call.parent is not None and call.parent.type == "assignment" and call.parent.child_by_field_name("right") == call


def _distributed(function: Node) -> bool:
    """`dist.all_reduce`, `torch.distributed.all_reduce`, or a bare imported `all_reduce` (never `functools.reduce`)."""
    if function.type == "identifier":
        return parsing.text(function) != "reduce"
    owner = function.child_by_field_name("object") if function.type == "attribute" else None
    text = parsing.text(owner) if owner is not None else ""
    return text.endswith(("dist", "distributed"))


def _identifiers_after(scope: Node, after: int) -> list[Node] | None:
    """The identifiers of the scope after a byte, in source order, outside nested functions and classes (None for a
    scope too large to read whole)."""
    def passed_over(node: Node) -> bool:  # before `after`, or a nested scope
        return node.end_byte <= after or (node is not scope and node.type in SCOPES)

    try:
        found = [node for node in parsing.walk(scope, limit=MAX_NODES, prune=passed_over, source_order=True, strict=True)
                 if node.type == "identifier" and node.start_byte >= after and node.end_byte > after]
    except parsing.WalkLimit:
        return None
    return sorted(found, key=lambda n: n.start_byte)
