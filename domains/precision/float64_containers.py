"""A float64 tensor stored into a container item whose values are grouped, put on the device and reduced.

metaseq's `all_reduce_dict`: `cpu_data[k] = t.to(dtype=torch.double)` (in the arm where `t` is not on the device),
then, in a nested function the dict is passed to, `buf = torch.cat([t.view(-1) for t in data.values()]).to(device=device)`
and `all_reduce(buf, group=group)`. The move keeps float64 (torch_npu's ToKernelNpu.cpp replaces only a dtype-only cast
of a device tensor), so HCCL's reducing collective sees float64 and raises.

The tensor must be made on the host (a factory without a device, or a dtype-only cast of a tensor its arm says is off
the device) and the group moved to the device, or made on the device (a factory with a device). A dtype-only cast of a
device tensor becomes float32 on the NPU: it is left to the dtype's own rule.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.precision.float64_use import (
    GROUPING,
    SCOPES,
    call_of_dtype,
    follow_to_reduction,
    moves_to_device,
)
from ascend_feasibility.domains.python_refs import keywords
from tree_sitter import Node

FACTORIES = {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange"}
CASTS = {"to", "type"}
MAX_NODES = 20000


def reduced_through_container(dtype: Node) -> str | None:
    """The symbol for a float64 dtype whose tensor is stored into `container[key]`, grouped from the container's values,
    on the device, and reduced; None otherwise."""
    call = call_of_dtype(dtype)
    if call is None:
        return None
    made = _where_made(call)
    if made is None:
        return None
    assignment = parsing.assignment_of(call)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    owner = left.child_by_field_name("value") if left is not None and left.type == "subscript" else None
    if owner is None or owner.type != "identifier":
        return None
    scope = parsing.enclosing(assignment, {"function_definition"})
    if scope is None:
        return None
    for grouping in _groupings(scope, parsing.text(owner), assignment.end_byte):
        placed = moves_to_device(grouping)
        held = placed or (grouping if made == "device" else None)
        bound = parsing.assignment_of(held) if held is not None else None
        name = bound.child_by_field_name("left") if bound is not None else None
        if name is None or name.type != "identifier":
            continue
        within = parsing.enclosing(bound, SCOPES | {"module"})
        if within is not None and follow_to_reduction(within, parsing.text(name), bound.end_byte):
            return " ".join(parsing.text(call).split())[:100]
    return None




def _where_made(call: Node) -> str | None:
    """`host` (a factory without a device; a dtype-only cast of a tensor the arm says is off the device), `device` (a
    factory given a device), else None."""
    last = parsing.callee_name(call)
    named = keywords(call)
    if last in FACTORIES:
        device = named.get("device")
        if device is None:
            return "host"
        return None if "cpu" in parsing.text(device) else "device"
    function = call.child_by_field_name("function")
    if last not in CASTS or "device" in named or function is None or function.type != "attribute":
        return None
    receiver = function.child_by_field_name("object")
    if receiver is None or receiver.type != "identifier":
        return None
    return "host" if _arm_says_off_device(call, parsing.text(receiver)) else None


def _arm_says_off_device(node: Node, name: str) -> bool:
    """Inside an `if`/`elif` arm whose condition is `name.device.type != ...`, `name.device != ...` or
    `not name.is_cuda`: the tensor is not on the device there."""
    arm = parsing.enclosing(node, {"if_statement", "elif_clause", "function_definition"})
    if arm is None or arm.type == "function_definition":
        return False
    condition = arm.child_by_field_name("condition")
    body = arm.child_by_field_name("consequence")
    if condition is None or body is None or not body.start_byte <= node.start_byte < body.end_byte:
        return False
    if condition.type == "not_operator":
        operand = condition.child_by_field_name("argument")
        return operand is not None and parsing.text(operand) == f"{name}.is_cuda"
    if condition.type != "comparison_operator" or "!=" not in [c.type for c in condition.children]:
        return False
    sides = {parsing.text(c) for c in condition.named_children}
    return bool(sides & {f"{name}.device.type", f"{name}.device"})


def _groupings(scope: Node, container: str, after: int) -> list[Node]:
    """`torch.cat`/`stack` calls over the container's values after a byte: in the scope, and in a function nested in it
    that the container is passed to (by the parameter's name there)."""
    found = []
    nested = {parsing.text(d.child_by_field_name("name")): d for d in parsing.walk(scope, limit=MAX_NODES)
              if d.type == "function_definition" and d is not scope}
    for node in parsing.walk(scope, limit=MAX_NODES):
        if node.type != "call" or node.end_byte <= after:
            continue
        if parsing.callee_name(node) in GROUPING and _over_values(node, container):
            found.append(node)
        function = node.child_by_field_name("function")
        definition = nested.get(parsing.text(function)) if function is not None and function.type == "identifier" else None
        parameter = _parameter_given(node, definition, container) if definition is not None else None
        if parameter is not None:
            found.extend(g for g in parsing.walk(definition, limit=MAX_NODES)
                         if g.type == "call" and parsing.callee_name(g) in GROUPING and _over_values(g, parameter))
    return found


def _parameter_given(call: Node, definition: Node, container: str) -> str | None:
    """The parameter of `definition` that `call` passes the container to, by position."""
    arguments = call.child_by_field_name("arguments")
    parameters = definition.child_by_field_name("parameters")
    if arguments is None or parameters is None:
        return None
    values = [a for a in arguments.named_children if a.type != "comment"]
    names = [p for p in parameters.named_children if p.type in {"identifier", "typed_parameter", "default_parameter",
                                                                  "typed_default_parameter"}]
    for value, parameter in zip(values, names):
        if value.type == "identifier" and parsing.text(value) == container:
            name = parameter if parameter.type == "identifier" else (parameter.child_by_field_name("name")
                                                                     or parameter.named_children[0])
            return parsing.text(name)
    return None


def _over_values(grouping: Node, container: str) -> bool:
    """The first argument is the container, `C.values()`, `list(C.values())`, or a comprehension over either."""
    arguments = grouping.child_by_field_name("arguments")
    values = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    if not values:
        return False
    first = values[0]
    if first.type in {"list_comprehension", "generator_expression"}:
        clause = next((c for c in first.named_children if c.type == "for_in_clause"), None)
        first = clause.child_by_field_name("right") if clause is not None else None
    elif first.type == "call" and parsing.callee_name(first) in {"list", "tuple"}:
        inner = first.child_by_field_name("arguments")
        first = inner.named_children[0] if inner is not None and inner.named_children else None
    return first is not None and parsing.text(first) in {container, f"{container}.values()"}
