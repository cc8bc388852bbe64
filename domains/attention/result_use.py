"""Which results of a call that returns a tuple the code keeps: flash-attn's private forward returns the output and
its softmax LSE (and more). Where only the output is kept (`out, *_ = f(...)`, `out, _, _ = f(...)`, `f(...)[0]`,
or the other names bound are never read in the function), the call is a plain forward, not an LSE merge.

Facet: `output-only`.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

OUTPUT_ONLY = "output-only"
MAX_NODES = 20_000  # the walk over the function for reads of the other names
PATTERNS = {"pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list"}


def output_facet(call: Node) -> str | None:
    """`output-only` where the call's first result is the only one the code keeps, else None."""
    parent = call.parent
    while parent is not None and parent.type == "parenthesized_expression":
        call, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "subscript" and parent.child_by_field_name("value") == call:
        index = parent.child_by_field_name("subscript")
        return OUTPUT_ONLY if index is not None and parsing.text(index) == "0" else None
    if parent.type != "assignment" or parent.child_by_field_name("right") != call:
        return None
    left = parent.child_by_field_name("left")
    if left is None or left.type not in PATTERNS:
        return None
    targets = [t for t in left.named_children if t.type != "comment"]
    if len(targets) < 2 or targets[0].type != "identifier":
        return None
    rest = []
    for target in targets[1:]:
        if target.type == "list_splat_pattern":
            target = target.named_children[0] if target.named_children else None
        if target is None or target.type != "identifier":
            return None
        rest.append(parsing.text(target))
    kept = {name for name in rest if not name.startswith("_")}
    if kept and _read(kept, parent):
        return None
    return OUTPUT_ONLY


def _read(names: set[str], assignment: Node) -> bool:
    """Whether any of `names` is read in the assignment's function (or module) outside the assignment's targets."""
    scope = parsing.enclosing(assignment, {"function_definition", "module"})
    if scope is None:
        return True
    left = assignment.child_by_field_name("left")
    try:  # a nested function reading a name counts: it may be a closure over it
        for node in parsing.walk(scope.child_by_field_name("body") or scope, limit=MAX_NODES, strict=True):
            if node.type == "identifier" and parsing.text(node) in names \
                    and not (left.start_byte <= node.start_byte < left.end_byte):
                return True
    except parsing.WalkLimit:
        return True  # too large to read whole: the names may be read
    return False
