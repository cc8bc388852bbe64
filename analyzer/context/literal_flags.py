"""A module-level `if` on a flag the file assigns a literal once: `HF_MODE = False` ... `if not HF_MODE: ... else: ...`.

The arm the literal does not take runs only when someone edits the file, as an opt-in does. Read only where the answer
is the file's own text: the `if` sits at the module level after the assignment (it runs at import, so no other
module can set the flag before it), the assignment is the name's only binding in the unit (no second assignment,
`global`, loop, `with`, import or walrus), and every other occurrence of the name is read in a condition or passed as
an argument. The condition is the name, `not` of it, or either in parentheses."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 100_000
LITERALS = {"true": True, "false": False}
# where an occurrence of the flag is only read
READS = frozenset({"not_operator", "boolean_operator", "parenthesized_expression", "comparison_operator",
                   "conditional_expression", "argument_list", "if_statement", "elif_clause", "while_statement"})


def literal_flag(condition: Node, statement: Node) -> tuple[bool, Node] | None:
    """The value `condition` of the module-level if-statement `statement` has, and the assignment that fixes it."""
    if statement.parent is None or statement.parent.type != "module":
        return None
    negated = False
    node = condition
    while node.type in {"parenthesized_expression", "not_operator"}:
        if node.type == "not_operator":
            negated = not negated
            node = node.child_by_field_name("argument")
        else:
            node = node.named_children[0] if len(node.named_children) == 1 else None
        if node is None:
            return None
    if node.type != "identifier":
        return None
    assignment = _only_assignment(statement.parent, parsing.text(node), statement.start_byte)
    if assignment is None:
        return None
    value = LITERALS[assignment.child_by_field_name("right").type]
    return value != negated, assignment


def _only_assignment(module: Node, name: str, before: int) -> Node | None:
    """The module-level `name = True|False` before byte `before`, when it is the name's only binding in the unit."""
    found = None
    stack, seen = [module], 0
    while stack:
        seen += 1
        if seen > MAX_NODES:
            return None
        node = stack.pop()
        if node.type == "identifier" and parsing.text(node) == name:
            parent = node.parent
            if (parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node
                    and found is None and parent.parent is not None and parent.parent.type == "expression_statement"
                    and parent.parent.parent == module and parent.end_byte <= before):
                right = parent.child_by_field_name("right")
                if right is None or right.type not in LITERALS:
                    return None
                found = parent
                continue
            if parent is None or parent.type not in READS or parent.type in {"if_statement", "elif_clause", "while_statement"} and parent.child_by_field_name("condition") != node:
                return None
            continue
        stack.extend(node.named_children)
    return found
