"""A CUDA test whose other arm only leaves a handle None, which code outside any check then uses.

`if SYSTEM == "cuda": quantization = load_kernel(...) else: quantization = None` looks like a fast path with an
equal else (both arms bind the same name), but the else binds nothing usable: where the same module (or class, for
`self.x`) later calls `quantization.scaled_int8_quant(...)`, calls the handle, or asserts `quantization is not None`
outside a check, on Ascend that line raises (an AttributeError on None, a failed assert). That is a missing NPU arm,
not a skipped optimisation (TGI w8a8_int.py:14 with :166/:211, adapters/lora.py:23 with :141/:258).

A use counts as checked where an enclosing `if`/`elif`/`while`, a conditional expression or an `and` tests the handle
itself (`if quantization is not None:`, `x and x.f()`) or a flag set under such a test (`if SYSTEM == "cuda" and quantization is
not None: CUTLASS_FP8_AVAILABLE = ...`, then `if CUTLASS_FP8_AVAILABLE: quantization.cutlass_scaled_mm(...)`), a positive CUDA test opens the arm it sits in, a `try` holds
it, or an earlier `if` of an enclosing block tests the handle (`if x is None: return`). Uses under another backend's
test (`if SYSTEM == "ipex": ... else: punica_sgmv.f()`) are not checks: on the NPU the else runs. Where the scope
returns the gate's own test from a function (`def can_use_marlin(...): return SYSTEM == "cuda" and ...`), the code
using the handle is selected through that predicate elsewhere: no finding of this kind.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device import literals
from tree_sitter import Node

MAX_NODES = 20_000  # the walk over one module or class for uses
NEGATIVE = frozenset({"!=", "not in"})


def none_handles(arm: Node) -> tuple[str, ...]:
    """The names (identifiers, `self.x`) an arm only sets to None: every statement of it is such an assignment."""
    statements = [s for s in arm.named_children if s.type != "comment"]
    names: list[str] = []
    for statement in statements:
        assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if assignment is None or assignment.type != "assignment":
            return ()
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or right.type != "none" or left.type not in {"identifier", "attribute"}:
            return ()
        names.append(parsing.text(left))
    return tuple(names)


def unchecked_use(statement: Node, names: tuple[str, ...]) -> Node | None:
    """The first call of a handle's attribute (`h.f(...)`), call of the handle, or `assert h ...` in the handle's scope
    (the module for a name, the class for `self.x`) outside `statement` and outside a check, or None."""
    if not names:
        return None
    scope = _scope(statement, attribute=any("." in n for n in names))
    wanted = set(names)
    condition = statement.child_by_field_name("condition")
    gate = " ".join(parsing.text(condition).split()) if condition is not None else ""
    checks = {name: {name} for name in names}  # a handle and the flags set from a test of it
    uses: list[tuple[Node, str]] = []
    for node in parsing.walk(scope, limit=MAX_NODES, prune=lambda n: n.id == statement.id, source_order=True):
        if node.id == statement.id:
            continue
        if node.type == "return_statement" and gate and _holds_comparison(node, gate):
            return None  # a predicate repeating the gate (`return SYSTEM == "cuda" and ...`): callers select through it
        if node.type == "if_statement":
            for name in names:
                if _mentions(node.child_by_field_name("condition"), name):
                    checks[name].update(_assigned_flags(node))
        handle = _used_handle(node, wanted)
        if handle is not None:
            uses.append((node, handle))
    return next((use for use, handle in uses if not _checked(use, checks[handle], scope)), None)


def _scope(statement: Node, attribute: bool) -> Node:
    node = statement
    while node.parent is not None:
        node = node.parent
        if attribute and node.type == "class_definition":
            return node
    return node


def _used_handle(node: Node, wanted: set[str]) -> str | None:
    if node.type == "call":
        function = node.child_by_field_name("function")
        if function is None:
            return None
        if parsing.text(function) in wanted:
            return parsing.text(function)
        holder = function.child_by_field_name("object") if function.type == "attribute" else None
        if holder is not None and parsing.text(holder) in wanted:
            return parsing.text(holder)
    elif node.type == "assert_statement":
        condition = node.named_children[0] if node.named_children else None
        return next((name for name in wanted if condition is not None and _mentions(condition, name)), None)
    return None


def _assigned_flags(statement: Node) -> set[str]:
    """The plain names an if statement's arms bind directly (`CUTLASS_FP8_AVAILABLE = ...` under `if ... quantization
    is not None:`): flags that say whether the handle is there."""
    found: set[str] = set()
    bodies = [statement.child_by_field_name("consequence")]
    bodies += [c.child_by_field_name("body") for c in statement.children_by_field_name("alternative") if c.type == "else_clause"]
    for body in bodies:
        for child in body.named_children if body is not None else []:
            assignment = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
            left = assignment.child_by_field_name("left") if assignment is not None and assignment.type == "assignment" else None
            if left is not None and left.type == "identifier":
                found.add(parsing.text(left))
    return found


def _holds_comparison(node: Node, gate: str) -> bool:
    return any(current.type == "comparison_operator" and " ".join(parsing.text(current).split()) == gate
               for current in parsing.walk(node, limit=500))


def _checked(use: Node, handle: set[str], scope: Node) -> bool:
    child, parent = use, use.parent
    while parent is not None and child.id != scope.id:
        if parent.type in {"if_statement", "elif_clause", "while_statement"}:
            condition = parent.child_by_field_name("condition")
            if condition is not None and condition.id != child.id:
                if _mentions(condition, handle):
                    return True
                if parent.child_by_field_name("consequence") == child and _positive_cuda_test(condition):
                    return True
        elif parent.type == "conditional_expression" and any(_mentions(p, handle) for p in parent.named_children[1:2]):
            return True
        elif parent.type == "boolean_operator":
            left = parent.child_by_field_name("left")
            if left is not None and left.id != child.id and _mentions(left, handle):
                return True
        elif parent.type == "try_statement" and parent.child_by_field_name("body") == child:
            return True
        elif parent.type == "block":
            sibling = child.prev_named_sibling
            while sibling is not None:
                if sibling.type == "if_statement" and _mentions(sibling.child_by_field_name("condition"), handle):
                    return True  # `if h is None: return ...` before the use
                sibling = sibling.prev_named_sibling
        child, parent = parent, parent.parent
    return False


def _mentions(node: Node | None, handle: str | set[str]) -> bool:
    if node is None:
        return False
    wanted = {handle} if isinstance(handle, str) else handle
    return any(current.type in {"identifier", "attribute"} and parsing.text(current) in wanted
               for current in parsing.walk(node, limit=500))


def _positive_cuda_test(condition: Node) -> bool:
    for current in parsing.walk(condition, limit=500):
        if current.type == "comparison_operator":
            operators = {parsing.text(o) for o in current.children_by_field_name("operators")}
            if not operators & NEGATIVE and any(literals.cuda_literal_in(o) is not None for o in current.named_children):
                return True
    return False
