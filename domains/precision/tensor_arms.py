"""Code that runs only for a Python number, not for a tensor.

diffusers' timestep embedding starts with `if not torch.is_tensor(timesteps):` and only there turns a Python number
into a tensor, picking `torch.float32 if is_mps else torch.float64` for a float. Callers that pass a tensor (a
scheduler's `timesteps`, `torch.randint(...)`) never run that arm, so the float64 it picks is reached only by a caller
that passes a Python float.

Where that arm turns the number into a one-element tensor (`timesteps = torch.tensor([timesteps], dtype=dtype, ...)`,
then `timesteps.expand(batch)`) and the float64 choice is that tensor's dtype, the float64 holds one Python scalar: a
Python float already is a double, the NPU keeps a float64 factory's dtype, and the value is broadcast, not
accumulated, so there is no precision to lose (`scalar_from_number`, round 30 A1 44, A2 71/74, B1 16/22, B2 26-49).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

PYTHON_NUMBER_ARM = "python-number-arm"
SCALAR_FROM_NUMBER = "scalar-from-number"
TENSOR_FACTORIES = {"torch.tensor", "torch.as_tensor"}
MAX_ARM_NODES = 5000  # nodes of a python-number arm read for the tensor it builds
SCOPES = {"function_definition", "lambda", "module", "class_definition"}


def python_number_arm(node: Node) -> bool:
    """The node sits in the arm of an `if` that runs only when a value is not a tensor: the body of
    `if not torch.is_tensor(x):` / `if not isinstance(x, torch.Tensor):`, or the `else` of the positive test."""
    return number_arm(node) is not None


def scalar_from_number(conditional: Node) -> bool:
    """The dtype `conditional` picks (`torch.float32 if is_mps else torch.float64`) is, in its python-number arm, the
    dtype of a one-element tensor built from the tested value: `torch.tensor([x], dtype=<it>)`, or `dtype=name` after
    `name = <it>`."""
    found = number_arm(conditional)
    if found is None:
        return False
    arm, tested = found
    holder = conditional.parent
    while holder is not None and holder.type == "parenthesized_expression":
        holder = holder.parent
    if holder is not None and holder.type == "keyword_argument":
        call = holder.parent.parent if holder.parent is not None else None
        return call is not None and call.type == "call" and _scalar_tensor(call, tested, holder.child_by_field_name("value"), "")
    if holder is None or holder.type != "assignment" or holder.child_by_field_name("left") is None \
            or holder.child_by_field_name("left").type != "identifier":
        return False
    name = parsing.text(holder.child_by_field_name("left"))
    return any(node.type == "call" and node.start_byte > holder.end_byte and _scalar_tensor(node, tested, None, name)
               for node in parsing.walk(arm, limit=MAX_ARM_NODES))


def _scalar_tensor(call: Node, tested: str, value: Node | None, name: str) -> bool:
    """`torch.tensor([tested], dtype=...)` whose dtype keyword is `value` (the node) or the identifier `name`."""
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or parsing.text(function) not in TENSOR_FACTORIES:
        return False
    first = arguments.named_children[0] if arguments.named_children else None
    if first is None or first.type != "list" or len(first.named_children) != 1 \
            or parsing.text(first.named_children[0]) != tested:
        return False
    for argument in arguments.named_children:
        if argument.type == "keyword_argument" and parsing.text(argument.child_by_field_name("name")) == "dtype":
            given = argument.child_by_field_name("value")
            while given is not None and given.type == "parenthesized_expression" and given.named_children:
                given = given.named_children[0]
            if value is not None:
                return given is not None and given.id == _unwrapped(value).id
            return given is not None and given.type == "identifier" and parsing.text(given) == name
    return False


def _unwrapped(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def number_arm(node: Node) -> tuple[Node, str] | None:
    """(the arm, the tested value's text) of the python-number arm holding `node` (python_number_arm)."""
    child, current = node, node.parent
    while current is not None and current.type not in SCOPES:
        if current.type == "if_statement":
            condition = current.child_by_field_name("condition")
            consequence = current.child_by_field_name("consequence")
            in_body = consequence is not None and consequence.id == child.id
            in_else = child.type == "else_clause"
            negated = condition is not None and condition.type == "not_operator"
            test = condition.child_by_field_name("argument") if negated else condition
            tested = _tensor_test(test) if test is not None else None
            if tested is not None and ((negated and in_body) or (not negated and in_else)):
                return child, tested
        child, current = current, current.parent
    return None


def _tensor_test(test: Node) -> str | None:
    """The tested value's text of `torch.is_tensor(x)` or `isinstance(x, torch.Tensor)`, else None."""
    test = _unwrapped(test)
    if test.type != "call":
        return None
    function = parsing.text(test.child_by_field_name("function"))
    arguments = test.child_by_field_name("arguments")
    tested = arguments.named_children if arguments is not None else []
    if function in {"torch.is_tensor", "is_tensor"} and len(tested) == 1:
        return parsing.text(tested[0])
    if function != "isinstance" or len(tested) != 2:
        return None
    return parsing.text(tested[0]) if parsing.text(tested[1]) in {"torch.Tensor", "Tensor"} else None
