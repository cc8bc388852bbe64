"""Is a scripted object only called? `self.f = torch.jit.script(m)` whose every later use in the file is `self.f(x)`.

transfer_to_npu turns torch.jit.script into a pass-through (`_jit_script` returns its argument), so a ScriptModule
that is only called behaves the same eagerly: nothing to port. Saving (`.save`, torch.jit.save), exporting, inspecting
(`.graph`, `.code`), returning or handing the object on are uses a pass-through changes, as is any use this file
cannot see: the object must be bound to a plain name or a `self` attribute, and each of its other occurrences must be
the callee of a call or another assignment to it.

A legacy ScriptModule's `torch.jit.script_method` (or an alias of it, `MyFunction = torch.jit.script_method`) becomes
the identity under transfer_to_npu (`_jit_script_method` returns its function), so its methods run as plain Python.
That changes nothing unless the module is saved, traced, exported or inspected; `file_keeps_script` says whether the
file does any of that to anything (a conservative, file-wide test: any `.save(`, `.code` or `.graph` counts).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 50_000  # the walk over the scope holding the binding
# attribute names and from-imported callees that save, trace, export or inspect a ScriptModule (torch.jit.save,
# m.save, torch.jit.trace/trace_module, torch.onnx.export, torch.export.export, torch.jit.freeze, m.code, m.graph)
KEEPING_ATTRIBUTES = frozenset({"save", "save_to_buffer", "trace", "trace_module", "export", "freeze", "code", "graph",
                                "inlined_graph", "code_with_constants"})
KEEPING_CALLEES = frozenset({"save", "trace", "trace_module", "export", "freeze"})


def file_keeps_script(root: Node, cache: dict) -> bool:
    """Whether the file saves, traces, exports or inspects anything a ScriptModule could be (True when too big)."""
    if "keeps_script" not in cache:
        cache["keeps_script"] = _keeps_script(root)
    return cache["keeps_script"]


def _keeps_script(root: Node) -> bool:
    try:
        for node in parsing.walk(root, limit=MAX_NODES * 4, strict=True):
            if node.type == "attribute":
                attribute = node.child_by_field_name("attribute")
                if attribute is not None and parsing.text(attribute) in KEEPING_ATTRIBUTES:
                    return True
            elif node.type == "call":
                callee = node.child_by_field_name("function")
                if callee is not None and callee.type == "identifier" and parsing.text(callee) in KEEPING_CALLEES:
                    return True
    except parsing.WalkLimit:
        return True
    return False


def only_called(call: Node) -> bool:
    """`call` (a torch.jit.script call) is assigned to a name or `self.<attr>` used in its scope only as a callee."""
    assignment = parsing.assignment_of(call)
    if assignment is None:
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
    def named_here(node: Node) -> bool:
        return node.type == kind and parsing.text(node) == name

    called = False
    try:
        for node in parsing.walk(scope, limit=MAX_NODES, prune=named_here, strict=True):
            if named_here(node):
                if _bound_here(node):
                    continue
                if not _is_callee(node):
                    return False
                called = True
    except parsing.WalkLimit:
        return False
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
