"""Is a CUDA setting test a choice of implementation, not of device?

`prefetch_mode = opt['datasets']['train'].get('prefetch_mode')`, then `if prefetch_mode is None or prefetch_mode ==
'cpu': prefetcher = CPUPrefetcher(loader) elif prefetch_mode == 'cuda': prefetcher = CUDAPrefetcher(loader, opt)`
(round 34 B2 class 4, NAFNet basicsr/train.py:212). The value names a class, not a device: nothing in the function
hands it to torch.device, `.to`, map_location or a `device=` keyword, so a native port has no reason to set it to
"npu" (the test would then raise there), and on Ascend the arm runs only where the user asks for that implementation;
the class's own torch.cuda calls (CUDAPrefetcher's streams) are that port, with their own findings.

The signal: the test compares a name (or attribute) with strings; every other read of it in the enclosing function is
another such comparison or a message's interpolation (`f'Use {prefetch_mode} prefetch dataloader'`); and the arm the
test opens assigns a name from a call of a class (a CapWords name) that another arm of the same if statement assigns
from another class. A value used in any other way (passed to a call, returned, stored) may be a device: not this.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_FUNCTION_NODES = 20_000
_VALUE_OPERANDS = frozenset({"string", "none", "tuple", "list", "set", "concatenated_string"})


def picked_class(test: Node) -> str | None:
    """The class the CUDA arm builds, where `test` picks between classes on a setting read nowhere else (None
    otherwise)."""
    subject = _subject(test)
    statement, body = _arm_of(test)
    if subject is None or statement is None or body is None:
        return None
    built = _built_classes(body)
    if not built:
        return None
    others: dict[str, str] = {}
    for other in _bodies(statement):
        if other.id != body.id:
            others.update(_built_classes(other))
    picked = next((cls for target, cls in built.items() if target in others and others[target] != cls), None)
    if picked is None:
        return None
    function = test.parent
    while function is not None and function.type not in {"function_definition", "module"}:
        function = function.parent
    return picked if function is not None and _only_compared_or_shown(function, parsing.text(subject)) else None


def _subject(test: Node) -> Node | None:
    if test.type != "comparison_operator":
        return None
    operands = [o for o in test.named_children if o.type not in _VALUE_OPERANDS]
    if len(operands) != 1 or operands[0].type not in {"identifier", "attribute"}:
        return None
    return operands[0]


def _arm_of(test: Node) -> tuple[Node | None, Node | None]:
    """The if statement and the block of the arm whose whole condition is `test` (or one `or`/`and` term of it)."""
    child, parent = test, test.parent
    while parent is not None and parent.type in {"boolean_operator", "parenthesized_expression"}:
        child, parent = parent, parent.parent
    if parent is None or parent.type not in {"if_statement", "elif_clause"}:
        return None, None
    if parent.child_by_field_name("condition") is None or parent.child_by_field_name("condition").id != child.id:
        return None, None
    statement = parent if parent.type == "if_statement" else parent.parent
    return statement, parent.child_by_field_name("consequence")


def _bodies(statement: Node) -> list[Node]:
    bodies = [statement.child_by_field_name("consequence")]
    for clause in statement.children_by_field_name("alternative"):
        bodies.append(clause.child_by_field_name("consequence") if clause.type == "elif_clause"
                      else clause.child_by_field_name("body"))
    return [b for b in bodies if b is not None]


def _built_classes(body: Node) -> dict[str, str]:
    """target → class, for the block's own statements `target = SomeClass(...)`."""
    found = {}
    for statement in body.named_children:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        assignment = statement.named_children[0]
        if assignment.type != "assignment":
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or right.type != "call":
            continue
        function = right.child_by_field_name("function")
        name = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
        if name[:1].isupper() and any(c.islower() for c in name):
            found[parsing.text(left)] = name
    return found


def _only_compared_or_shown(function: Node, subject: str) -> bool:
    for node in parsing.walk(function, limit=MAX_FUNCTION_NODES):
        if node.type not in {"identifier", "attribute"} or parsing.text(node) != subject:
            continue
        parent = node.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == node:
            return False  # `prefetch_mode.lower()`, `setting.device`: used, not only compared
        if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node:
            continue
        if parent is not None and parent.type == "comparison_operator" and all(
                o == node or o.type in _VALUE_OPERANDS for o in parent.named_children):
            continue
        if _in_interpolation(node):
            continue
        return False
    return True


def _in_interpolation(node: Node) -> bool:
    current = node.parent
    while current is not None and current.type not in {"call", "block", "module"}:
        if current.type == "interpolation":
            return True
        current = current.parent
    return False
