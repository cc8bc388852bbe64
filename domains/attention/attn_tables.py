"""Attention class tables that transformers' own choice indexes.

A Hugging Face modeling file (copied into a project or not) picks its attention class as
`QWEN2_ATTENTION_CLASSES[config._attn_implementation]`, a dict keyed "eager", "sdpa", "flash_attention_2". The index is
the `attn_implementation` that from_pretrained receives, and transformers' default where none is passed is "sdpa"
(or "eager"), never flash_attention_2. So in such a file:

- the table's "flash_attention_2" entry runs only where the project asks transformers for flash_attention_2 (ATT030
  reports that request where it is made); the entry itself is no project registry to extend (ATT033's premise);
- a module-level `if is_flash_attn_2_available():` whose body only imports the flash-attn functions decides nothing:
  on Ascend the imports are skipped and the table's "sdpa" entry runs (ATT031's "check the fallback" is answered).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device import literals
from tree_sitter import Node

TRANSFORMERS_TABLE = "transformers-table"  # ATT033's facet: the key's table is indexed by config._attn_implementation
IMPORTS_FOR_TABLE = "imports-for-transformers-table"  # ATT031's facet: an import-only gate beside such a table
CHOICE_ATTRIBUTE = "_attn_implementation"
_WALK_LIMIT = 200_000


def transformers_tables(root: Node) -> frozenset[str]:
    """The names of the unit's module-level dict literals with an "sdpa" key that some subscript indexes by
    `<x>._attn_implementation`."""
    indexed = set()
    for node in parsing.walk(root, limit=_WALK_LIMIT):
        if node.type != "subscript":
            continue
        value, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
        if (value is not None and value.type == "identifier" and index is not None and index.type == "attribute"
                and parsing.text(index.child_by_field_name("attribute")) == CHOICE_ATTRIBUTE):
            indexed.add(parsing.text(value))
    tables = set()
    for statement in root.named_children:
        assignment = parsing.statement_assignment(statement)
        if assignment is None:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if (left is not None and left.type == "identifier" and parsing.text(left) in indexed and right is not None
                and right.type == "dictionary" and "sdpa" in _string_keys(right)):
            tables.add(parsing.text(left))
    return frozenset(tables)


def in_transformers_table(key: Node) -> bool:
    """Is the string `key` a key of a dict literal that is one of its unit's transformers tables?"""
    pair = key.parent
    dictionary = pair.parent if pair is not None else None
    assignment = dictionary.parent if dictionary is not None else None
    if dictionary is None or dictionary.type != "dictionary" or assignment is None or assignment.type != "assignment":
        return False
    left = assignment.child_by_field_name("left")
    return left is not None and left.type == "identifier" and \
        parsing.text(left) in transformers_tables(parsing.root_of(key))


def import_only_gate(node: Node) -> bool:
    """Is `node` in the condition of a module-level `if` whose branches hold only imports (and `pass`), in a unit
    with a transformers table? The gate then only binds the flash-attn functions the table's flash entry uses."""
    statement = literals.inside(node, {"if_statement"}, stop={"block", "module"})
    if statement is None or statement.parent is None or statement.parent.type != "module":
        return False
    condition = statement.child_by_field_name("condition")
    if condition is None or not (condition.start_byte <= node.start_byte and node.end_byte <= condition.end_byte):
        return False
    blocks = [statement.child_by_field_name("consequence")]
    for branch in statement.named_children:
        if branch.type in {"elif_clause", "else_clause"}:
            blocks.append(branch.child_by_field_name("consequence") or branch.child_by_field_name("body"))
    for block in blocks:
        if block is None or not all(s.type in {"import_statement", "import_from_statement", "pass_statement",
                                               "comment"} for s in block.named_children):
            return False
    return bool(transformers_tables(parsing.root_of(node)))


def _string_keys(dictionary: Node) -> set[str]:
    keys = set()
    for pair in dictionary.named_children:
        key = pair.child_by_field_name("key") if pair.type == "pair" else None
        if key is not None and key.type == "string":
            keys.add(literals.string_parts(key)[1])
    return keys
