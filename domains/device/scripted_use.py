"""Is a scripted object only called? `self.f = torch.jit.script(m)` whose every later use in the file is `self.f(x)`.

transfer_to_npu turns torch.jit.script into a pass-through (`_jit_script` returns its argument), so a ScriptModule
that is only called behaves the same eagerly: nothing to port. Saving (`.save`, torch.jit.save), exporting, inspecting
(`.graph`, `.code`), returning or handing the object on are uses a pass-through changes, as is any use this file
cannot see: the object must be bound to a plain name or a `self` attribute, and each of its other occurrences must be
the callee of a call or another assignment to it.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 50_000  # the walk over the scope holding the binding


def only_called(call: Node) -> bool:
    """`call` (a torch.jit.script call) is assigned to a name or `self.<attr>` used in its scope only as a callee."""
    assignment = call.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("right") != call:
        return False
    target = assignment.child_by_field_name("left")
    if target is None:
        return False
    if target.type == "identifier":
        scope = _scope(assignment, ("function_definition", "module"))
        kind = "identifier"
    elif target.type == "attribute" and parsing.text(target.child_by_field_name("object")) == "self":
        scope = _scope(assignment, ("class_definition", "module"))
        kind = "attribute"
    else:
        return False
    if scope is None:
        return False
    name = parsing.text(target)
    stack, seen, called = [scope], 0, False
    while stack:
        seen += 1
        if seen > MAX_NODES:
            return False
        node = stack.pop()
        if node.type == kind and parsing.text(node) == name:
            if _bound_here(node):
                continue
            if not _is_callee(node):
                return False
            called = True
            continue
        stack.extend(node.named_children)
    return called


def _scope(node: Node, kinds: tuple[str, ...]) -> Node | None:
    current = node.parent
    while current is not None and current.type not in kinds:
        current = current.parent
    return current


def _bound_here(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node


def _is_callee(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "call" and parent.child_by_field_name("function") == node
