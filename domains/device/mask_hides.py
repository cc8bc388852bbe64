"""A CUDA device mask written to hide every device, so that what follows runs on the CPU.

Round 39 A1 class 4 (Pointcept pointcept/datasets/preprocessing/concerto/waymo/preprocess_waymo.py:15:
`os.environ["CUDA_VISIBLE_DEVICES"] = "-1"` before `import tensorflow`, to keep TensorFlow on the CPU) and B2 class 4
(yolov7 utils/torch_utils.py:68: `= '-1'` under `if cpu:`, where the device chosen is then `torch.device('cpu')`): the
write asks for no device at all. DEV201's advice, the same value in ASCEND_RT_VISIBLE_DEVICES, ports a device choice,
and there is none here: the code picks the CPU itself, or the hidden devices are another framework's. The item is a
note (info): on an NPU host it is ASCEND_RT_VISIBLE_DEVICES that would hide the NPUs from torch, where that matters.

A write hides every device when its value is the literal "-1" or "" (no id), or when it stands in the arm of an `if`
whose test asks for the CPU: a name whose words include `cpu` (`if cpu:`, `if args.use_cpu:`), or a comparison with
the string "cpu" (`if device == "cpu":`); a negated test (`if not cpu:`) is the device arm."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device import mask_defaults
from tree_sitter import Node

HIDES_ALL = "hides-every-device"  # DEV201's facet
NO_DEVICE = frozenset({"-1", ""})
CPU = "cpu"


def hides_every_device(literal: Node) -> bool:
    """The mask's name `literal` in a write (`X[M] = v`, `X.setdefault(M, v)`, `os.putenv(M, v)`) that hides every
    device (see the module's docstring)."""
    value = _written_value(literal)
    if value is None:
        return False
    if value.type == "string" and not any(c.type == "interpolation" for c in value.named_children) \
            and mask_defaults.content(value).strip() in NO_DEVICE:
        return True
    return _in_cpu_arm(literal)


def _written_value(literal: Node) -> Node | None:
    parent = literal.parent
    if parent is not None and parent.type == "subscript":
        return parsing.assigned_value(parent)
    if parent is not None and parent.type == "argument_list":
        arguments = [a for a in parent.named_children if a.type != "comment"]
        return arguments[1] if len(arguments) == 2 and arguments[0] == literal else None
    return None


def _in_cpu_arm(node: Node) -> bool:
    """The innermost if/elif arm holding the node (in its function) has a test that asks for the CPU."""
    current = node
    while current.parent is not None and current.type not in {"function_definition", "class_definition"}:
        parent = current.parent
        if parent.type in {"if_statement", "elif_clause"} and parent.child_by_field_name("consequence") == current:
            condition = parent.child_by_field_name("condition")
            return condition is not None and _asks_cpu(condition)
        current = parent
    return False


def _asks_cpu(condition: Node) -> bool:
    while condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    if condition.type in {"identifier", "attribute"}:
        last = parsing.text(condition).rsplit(".", 1)[-1].lower()
        return CPU in last.split("_")
    if condition.type == "comparison_operator" and [parsing.text(o) for o in condition.children_by_field_name("operators")] \
            == ["=="]:
        return any(side.type == "string" and mask_defaults.content(side).lower() == CPU
                   for side in condition.named_children)
    return False
