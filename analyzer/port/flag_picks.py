"""A CUDA check bound to a flag that picks the device the patch rewrites (round 28 port hunk 12).

`use_cuda = torch.cuda.is_available()` then `device = torch.device("cuda" if use_cuda else "cpu")`: the flag is the
device choice's condition. When the patch rewrites the picked "cuda" literal (to the device module's type) and leaves
the flag, the NPU host still picks "cpu" (the flag is False there). So the check is a device choice, rewritten with
the picks (`use_cuda = _device.is_available()`), not a guard of CUDA-only code.

The signal is structure: the check's statement assigns it (alone) to a name, and somewhere in the file a conditional
expression whose condition is that bare name picks a "cuda" literal that a change of the patch covers.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.port.edits import cuda_literals
from ascend_feasibility.analyzer.reading.parsing import root_of, text, walk
from tree_sitter import Node

MAX_NODES = 200_000


def flag_picks_rewritten_device(statement: Node, rewritten: list[tuple[int, int]]) -> bool:
    """Does `statement` (`flag = <check>`) bind a flag that picks a "cuda" literal the patch rewrites?"""
    assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    if assignment is None or assignment.type != "assignment":
        return False
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return False
    name = text(left)
    root = root_of(statement)
    for node in walk(root, limit=MAX_NODES):
        if node.type != "conditional_expression" or len(node.named_children) < 3:
            continue
        picked, condition = node.named_children[0], node.named_children[1]
        if condition.type != "identifier" or text(condition) != name:
            continue
        if any(any(start <= literal.start_byte and literal.end_byte <= end for start, end in rewritten)
               for literal in cuda_literals(picked)):
            return True
    return False
