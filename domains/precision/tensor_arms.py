"""Code that runs only for a Python number, not for a tensor.

diffusers' timestep embedding starts with `if not torch.is_tensor(timesteps):` and only there turns a Python number
into a tensor, picking `torch.float32 if is_mps else torch.float64` for a float. Callers that pass a tensor (a
scheduler's `timesteps`, `torch.randint(...)`) never run that arm, so the float64 it picks is reached only by a caller
that passes a Python float.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

PYTHON_NUMBER_ARM = "python-number-arm"
SCOPES = {"function_definition", "lambda", "module", "class_definition"}


def python_number_arm(node: Node) -> bool:
    """The node sits in the arm of an `if` that runs only when a value is not a tensor: the body of
    `if not torch.is_tensor(x):` / `if not isinstance(x, torch.Tensor):`, or the `else` of the positive test."""
    child, current = node, node.parent
    while current is not None and current.type not in SCOPES:
        if current.type == "if_statement":
            condition = current.child_by_field_name("condition")
            consequence = current.child_by_field_name("consequence")
            in_body = consequence is not None and consequence.id == child.id
            in_else = child.type == "else_clause"
            negated = condition is not None and condition.type == "not_operator"
            test = condition.child_by_field_name("argument") if negated else condition
            if test is not None and _tensor_test(test) and ((negated and in_body) or (not negated and in_else)):
                return True
        child, current = current, current.parent
    return False


def _tensor_test(test: Node) -> bool:
    """`torch.is_tensor(x)` or `isinstance(x, torch.Tensor)`."""
    while test.type == "parenthesized_expression" and test.named_children:
        test = test.named_children[0]
    if test.type != "call":
        return False
    function = parsing.text(test.child_by_field_name("function"))
    arguments = test.child_by_field_name("arguments")
    if function in {"torch.is_tensor", "is_tensor"}:
        return True
    if function != "isinstance" or arguments is None or len(arguments.named_children) != 2:
        return False
    kind = arguments.named_children[1]
    return parsing.text(kind) in {"torch.Tensor", "Tensor"}
