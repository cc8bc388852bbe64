"""DataParallel built only to load a checkpoint saved from a DataParallel model, then unwrapped at once.

`model = torch.nn.DataParallel(RAFT(args)); model.load_state_dict(torch.load(path)); model = model.module` (round 31
B1 C2, rows 2 and 17): the wrapper only adds the `module.` prefix the checkpoint's keys carry, and the bare module is
taken back before anything calls it. No single-process multi-device run happens. torch's DataParallel.__init__ checks
the devices' balance only when the device type is "cuda" and otherwise only moves the module (to the first device when
it is the only one), so building it on an NPU host works as written.

The shape: the call's value is bound to a name; the statements after it in the same block use that name only as
`W.load_state_dict(...)`, `W.module` or a method that returns no output of the wrapper's forward (`W.eval()`,
`W.to(...)`), until one binds `W.module` (`model = model.module`). A call of the wrapper (`W(x)`), any other use (passed
on, returned, stored) or a block that ends before the unwrapping keeps the finding.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

HARMLESS = frozenset({"load_state_dict", "module", "eval", "to", "cpu", "cuda", "float", "half", "requires_grad_"})
MAX_STATEMENTS = 50  # the unwrapping follows the load within a few lines


def unwrapped_after_load(call: Node) -> bool:
    """Is this DataParallel call bound to a name that the same block only loads a state dict into (or moves) and then
    unwraps with `.module`?"""
    bound = parsing.name_bound_by_statement(call)
    if bound is None:
        return False
    left, statement = bound
    name = parsing.text(left)
    loaded = False
    following = statement.next_named_sibling
    for _ in range(MAX_STATEMENTS):
        if following is None:
            return False
        if _unwraps(following, name):
            return loaded
        uses = _uses(following, name)
        if uses is None:
            return False
        loaded |= "load_state_dict" in uses
        following = following.next_named_sibling
    return False


def _unwraps(statement: Node, name: str) -> bool:
    """`x = W.module` (W.module alone on the right)."""
    assignment = parsing.statement_assignment(statement)
    right = assignment.child_by_field_name("right") if assignment is not None else None
    return right is not None and right.type == "attribute" and parsing.text(right) == f"{name}.module"


def _uses(statement: Node, name: str) -> set[str] | None:
    """The attributes the statement reads of `name` (each use `W.attr`, attr harmless); None for any other use, a
    rebinding of the name included."""
    found: set[str] = set()
    for node in parsing.walk(statement, limit=5000):
        if node.type != "identifier" or parsing.text(node) != name:
            continue
        parent = node.parent
        if parent is None or parent.type != "attribute" or parent.child_by_field_name("object") != node:
            return None
        attribute = parsing.text(parent.child_by_field_name("attribute") or parent)
        if attribute not in HARMLESS:
            return None
        found.add(attribute)
    return found
