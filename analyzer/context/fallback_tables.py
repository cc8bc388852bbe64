"""A CUDA-only attention class that its builders pick from a table only while its library imports: a configuration
choice with a fallback, not code that has to be rewritten.

sgm's `BasicTransformerBlock.ATTENTION_MODES = {"softmax": CrossAttention, "softmax-xformers":
MemoryEfficientCrossAttention}` picks the class by `attn_mode`, and the constructor rewrites the mode first:
`if attn_mode != "softmax" and not XFORMERS_IS_AVAILABLE: attn_mode = "softmax"`, where XFORMERS_IS_AVAILABLE is the
flag a `try: import xformers` sets False in its ImportError handler (GuardReader._import_fallback). On Ascend, where
xformers does not install, the builder takes the other entry (SDPA): the xformers site inside the class is
`optional`, and the work is dropping xformers (or setting the mode to the table's other key), not a fused-op port.

A site counts only when every table of the file that holds the class, in a holder the file uses (a class named
again in the file, or a module-level table), has such a fallback: `if not FLAG: mode = "<other key>"` (or `mode =
"<key>" if FLAG else "<other key>"`) in the holder. A class built by an if-chain (`make_attn`'s `elif attn_type ==
"vanilla-xformers": return MemoryEfficientAttnBlock(...)`) has no table and stays as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.switches import ExplainedGuard
from ascend_feasibility.analyzer.reading import parsing

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.context.guards import GuardReader
    from tree_sitter import Node

MAX_NODES = 200_000


def fallback_table(node: Node, guards: GuardReader) -> ExplainedGuard | None:
    """`optional` for a site inside a class every used table of its file picks only while a try-import's flag is
    true (the module docstring), with the fallback as the reason; None otherwise."""
    holder = parsing.enclosing(node, {"class_definition"})
    name_node = holder.child_by_field_name("name") if holder is not None else None
    if name_node is None:
        return None
    name = parsing.text(name_node)
    unit = parsing.root_of(node)
    found = None
    for table, key in _tables_holding(unit, name):
        owner = parsing.enclosing(table, {"class_definition"})
        if owner is not None and not _used(unit, owner):
            continue  # a table of a class the file never builds (sgm's BasicTransformerSingleLayerBlock)
        fallback = _fallback(owner if owner is not None else unit, _keys(table), key, guards)
        if fallback is None:
            return None  # a builder that picks the class whatever the import did
        found = found or (fallback, key)
    if found is None:
        return None
    (statement, flag, other), key = found
    return ExplainedGuard("optional", statement, why=(
        f"{name} is picked from its table (\"{key}\") only while {flag} is true, and {flag} is false where the "
        f"import fails, as on Ascend: the builder falls back to \"{other}\". Drop the package (or set the mode to "
        f"\"{other}\") and that entry runs instead of a port of this call"))


def _tables_holding(unit: Node, name: str) -> list[tuple[Node, str]]:
    """(dict literal, its key) for each `{"key": name, "other": ...}` of string keys in the unit."""
    result = []
    for value in parsing.identifiers_named(unit, name, MAX_NODES):
        pair = value.parent
        if pair is None or pair.type != "pair" or pair.child_by_field_name("value") != value:
            continue
        key = _string(pair.child_by_field_name("key"))
        table = pair.parent
        if key is not None and table is not None and table.type == "dictionary" and len(_keys(table)) > 1:
            result.append((table, key))
    return result


def _keys(table: Node) -> set[str]:
    return {k for pair in table.named_children if pair.type == "pair"
            for k in (_string(pair.child_by_field_name("key")),) if k is not None}


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    content = [c for c in node.named_children if c.type == "string_content"]
    if len(content) == 1 and len(node.named_children) == 3:  # start, content, end: no interpolation
        return parsing.text(content[0])
    return None


def _used(unit: Node, owner: Node) -> bool:
    name = owner.child_by_field_name("name")
    return name is not None and len(parsing.identifiers_named(unit, parsing.text(name), MAX_NODES)) > 1


def _fallback(scope: Node, keys: set[str], key: str, guards: GuardReader) -> tuple[Node, str, str] | None:
    """(the statement, the flag, the other key) where `scope` rewrites a mode to another key of the table when a
    try-import's flag is false: `if ... not FLAG: mode = "other"`, or `mode = "key" if FLAG else "other"`."""
    for current in parsing.walk(scope, limit=MAX_NODES):
        if current.type == "if_statement":
            flag = _negated_flag(current.child_by_field_name("condition"), guards)
            body = current.child_by_field_name("consequence")
            if flag is None or body is None:
                continue
            for statement in body.named_children:
                assignment = parsing.statement_assignment(statement)
                other = _string(assignment.child_by_field_name("right")) if assignment is not None else None
                if other in keys and other != key:
                    return current, flag, other
        elif current.type == "conditional_expression":
            parts = current.named_children
            if len(parts) == 3 and _string(parts[0]) == key and _string(parts[2]) in keys - {key} \
                    and parts[1].type == "identifier" and guards._import_fallback(parts[1]):
                statement = parsing.enclosing(current, {"expression_statement"}) or current
                return statement, parsing.text(parts[1]), _string(parts[2])
    return None


def _negated_flag(condition: Node | None, guards: GuardReader) -> str | None:
    """The try-import flag `not FLAG` tests in a condition (alone or as an `and` operand)."""
    if condition is None:
        return None
    if condition.type == "boolean_operator" and any(op.type == "and" for op in condition.children):
        return next((f for part in condition.named_children for f in (_negated_flag(part, guards),) if f), None)
    if condition.type == "parenthesized_expression" and condition.named_children:
        return _negated_flag(condition.named_children[0], guards)
    if condition.type == "not_operator":
        operand = condition.child_by_field_name("argument")
        if operand is not None and operand.type == "identifier" and guards._import_fallback(operand):
            return parsing.text(operand)
    return None
