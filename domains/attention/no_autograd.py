"""Does a site run with autograd off, so that no backward pass can go through it?

ATT022's harms (a double backward through attention, reference numerics of a gradient check) need autograd. A math-path
request inside `with torch.no_grad():` / `with torch.inference_mode():`, in a function decorated `@torch.no_grad()` /
`@torch.inference_mode()`, or in a function that the unit calls only from such code (gpt-fast's `decode_n_tokens`,
called from a `@torch.inference_mode()` `generate`), has none; the NPU's fused kernel is what it gets, and nothing
breaks. A unit that runs a backward (`.backward(...)`, `torch.autograd.grad(...)`) keeps the request: its gradients
may be checked elsewhere in the same code."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from tree_sitter import Node

NO_AUTOGRAD = "no-autograd"
GRAD_OFF = frozenset({"no_grad", "inference_mode"})
BACKWARD_CALLS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
_MAX_CALLERS = 3  # how many caller levels are followed inside the unit
_WALK_LIMIT = 200_000


def no_autograd_facet(node: Node, imports) -> str | None:
    """NO_AUTOGRAD where `node` runs with autograd off and its unit runs no backward, else None."""
    root = parsing.root_of(node)
    calls = [n for n in parsing.walk(root, limit=_WALK_LIMIT) if n.type == "call"]
    if any(_is_backward(call, imports) for call in calls):
        return None
    return NO_AUTOGRAD if _grad_off(node, calls, imports, _MAX_CALLERS, set()) else None


def _grad_off(node: Node, calls: list[Node], imports, depth: int, seen: set[int]) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "with_statement" and any(_turns_grad_off(item, imports) for item in _with_values(current)):
            return True
        if current.type == "function_definition":
            decorated = current.parent if current.parent is not None and current.parent.type == "decorated_definition" \
                else None
            if decorated is not None and any(_turns_grad_off(d.named_children[0], imports)
                                             for d in decorated.named_children if d.type == "decorator" and d.named_children):
                return True
            return depth > 0 and current.id not in seen and _callers_grad_off(current, calls, imports, depth, seen)
        current = current.parent
    return False


def _callers_grad_off(function: Node, calls: list[Node], imports, depth: int, seen: set[int]) -> bool:
    """Every call of `function` in the unit (by its name, `f(...)` or `self.f(...)`) runs with autograd off; False
    where nothing in the unit calls it (its callers are elsewhere and unknown)."""
    name_node = function.child_by_field_name("name")
    if name_node is None:
        return False
    name = parsing.text(name_node)
    callers = [c for c in calls if parsing.callee_name(c) == name
               and not (function.start_byte <= c.start_byte < function.end_byte)]
    seen = seen | {function.id}
    return bool(callers) and all(_grad_off(c, calls, imports, depth - 1, seen) for c in callers)


def _with_values(statement: Node) -> list[Node]:
    clause = next((c for c in statement.named_children if c.type == "with_clause"), None)
    items = clause.named_children if clause is not None else []
    values = []
    for item in items:
        value = item.child_by_field_name("value") if item.type == "with_item" else item
        if value is not None and value.type == "as_pattern":
            value = value.named_children[0] if value.named_children else None
        if value is not None:
            values.append(value)
    return values


def _turns_grad_off(expression: Node, imports) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()`, `@torch.no_grad` (not `torch.inference_mode(False)`)."""
    target = expression
    if expression.type == "call":
        args = expression.child_by_field_name("arguments")
        if args is not None and any(parsing.text(a) == "False" or (a.type == "keyword_argument" and parsing.text(
                a.child_by_field_name("value")) == "False") for a in args.named_children):
            return False
        target = expression.child_by_field_name("function")
    if target is None or target.type not in {"identifier", "attribute"}:
        return False
    name = qualified_name(target, imports) or parsing.text(target)
    return name.split(".")[-1] in GRAD_OFF and name.split(".")[0] == "torch"


def _is_backward(call: Node, imports) -> bool:
    function = call.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) == "backward":
        return True
    if function.type not in {"identifier", "attribute"}:
        return False
    return (qualified_name(function, imports) or "") in BACKWARD_CALLS
