"""Reads of a command-line option besides `args.x`, for the arms an option decides (domains/phases/facts.py):
- `getattr(args, "x", False)`: fairseq-style projects (metaseq) declare options as dataclass fields and read them
  from a namespace that may lack them (`getattr(self.args, "sequence_parallel", False)`);
- a name bound once to such a read or to a test of an option (`is_sequence_parallel = getattr(self.args,
  "sequence_parallel", False)` then `if is_sequence_parallel:`; `self.use_alibi = getattr(args, "alibi", False)` in
  a class then `if self.use_alibi:`): testing the name tests what it holds.
A name bound more than once (or a parameter) may hold anything else, so it is no read."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

ENUM_BASES = frozenset({"Enum", "StrEnum"})
ATTRIBUTE_BINDINGS = """
(assignment left: (attribute) @target)
(augmented_assignment left: (attribute) @target)
(pattern_list (attribute) @target)
(tuple_pattern (attribute) @target)
"""


def getattr_read(node: Node, objects: frozenset[str]) -> tuple[str, Node | None] | None:
    """`getattr(args, "x")` / `getattr(self.args, "x", default)` on an argument object: ("x", the default node)."""
    if node.type != "call":
        return None
    function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if function is None or parsing.text(function) != "getattr" or arguments is None:
        return None
    items = [a for a in arguments.named_children if a.type != "comment"]
    if len(items) not in (2, 3) or items[1].type != "string" or any(
            c.type == "interpolation" for c in items[1].named_children):
        return None
    if parsing.text(items[0]).rsplit(".", 1)[-1] not in objects:
        return None
    name = "".join(parsing.text(c) for c in items[1].named_children if c.type == "string_content")
    return (name, items[2] if len(items) == 3 else None) if name.isidentifier() else None


def bound_value(node: Node) -> Node | None:
    """The right side of the one binding of a local (`x`) or of `self.x` that `node` names: the local bound once in
    its function, before the test and not as a parameter; `self.x` assigned once in its class. None otherwise."""
    from ascend_feasibility.analyzer.context.switches import PARAMETER_REBINDINGS, _enclosing, _parameter

    if node.type == "identifier":
        scope = _enclosing(node, "function_definition")
        if scope is None or _parameter(scope, parsing.text(node)) is not None:
            return None
        query, name = PARAMETER_REBINDINGS, parsing.text(node)
    elif node.type == "attribute" and parsing.text(node.child_by_field_name("object") or node) == "self":
        scope, query, name = _enclosing(node, "class_definition"), ATTRIBUTE_BINDINGS, parsing.text(node)
    else:
        return None
    body = scope.child_by_field_name("body") if scope is not None else None
    if body is None:
        return None
    # the cursor visits only the nodes around the name's occurrences: a binding of it spells it
    targets = [t for t in parsing.captures_around(parsing.query("python", query), body, frozenset({name.encode()}))
               .get("target", []) if parsing.text(t) == name]
    if len(targets) != 1 or targets[0].parent is None or targets[0].parent.type != "assignment" \
            or targets[0].parent.child_by_field_name("left") != targets[0]:
        return None
    if node.type == "identifier" and targets[0].start_byte > node.start_byte:
        return None
    return targets[0].parent.child_by_field_name("right")


def passed_option(value: Node, objects: frozenset[str]) -> tuple[str, str] | None:
    """`ModelParallelMultiheadAttention(..., attn_variant=getattr(args, "attn_variant", "default"))` (or
    `attn_variant=args.attn_variant`): (the callee's name, "attn_variant"), a keyword handing on the option of its own
    name, for `value` the keyword's value. The callee's parameter then holds the option's value."""
    keyword = value.parent
    if keyword is None or keyword.type != "keyword_argument" or keyword.child_by_field_name("value") != value:
        return None
    name = parsing.text(keyword.child_by_field_name("name") or keyword)
    read = getattr_read(value, objects)
    if read is None and value.type == "attribute":
        holder = value.child_by_field_name("object")
        if holder is not None and parsing.text(holder).rsplit(".", 1)[-1] in objects:
            read = parsing.text(value.child_by_field_name("attribute") or value), None
    call = keyword.parent.parent if keyword.parent is not None else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if read is None or read[0] != name or function is None:
        return None
    return parsing.text(function).rsplit(".", 1)[-1], name


def enum_members(root: Node) -> list[tuple[str, str, str]]:
    """(class, member, value) of the module-level enums' string members (`class AttentionVariants(str, Enum):
    XFORMERS = "xformers_default"`): an arm testing `== AttentionVariants.XFORMERS` needs the option to hold that value
    (opt_in.switched_options), which is what a launcher passes."""
    found = []
    for statement in root.named_children:
        cls = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if cls is None or cls.type != "class_definition":
            continue
        bases = cls.child_by_field_name("superclasses")
        if bases is None or not any(parsing.text(b).rsplit(".", 1)[-1] in ENUM_BASES for b in bases.named_children):
            continue
        name, body = cls.child_by_field_name("name"), cls.child_by_field_name("body")
        for line in body.named_children if body is not None and name is not None else []:
            assignment = line.named_children[0] if line.type == "expression_statement" and line.named_children else None
            left = assignment.child_by_field_name("left") if assignment is not None and assignment.type == "assignment" \
                else None
            right = assignment.child_by_field_name("right") if left is not None else None
            if left is not None and left.type == "identifier" and right is not None and right.type == "string" \
                    and not any(c.type == "interpolation" for c in right.named_children):
                value = "".join(parsing.text(c) for c in right.named_children if c.type == "string_content")
                found.append((parsing.text(name), parsing.text(left), value))
    return found
