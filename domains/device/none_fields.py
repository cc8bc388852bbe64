"""Fields of a CUDA query's result that torch_npu's counterpart leaves None, used where None raises.

torch.cuda.get_device_properties maps to torch.npu.get_device_properties under transfer_to_npu, whose NPUDeviceProp
binds major, minor, max_threads_per_multi_processor, warp_size, ... as std::optional fields it never sets
(Ascend/pytorch v2.12.0-26.1.0 torch_npu/csrc/npu/Module.cpp:69-85, 146-165, 201-263), so they read None. Compared
(`props.major < 6`), computed with (`n // props.warp_size`) or negated, None raises TypeError: the shim's mapping is
no automatic port of that site (round 26 B2 row 30: Fooocus's should_use_fp16 reads `props.major < 6`). A field only
shown, stored or handed on raises nothing there, and the finding keeps its automatic migration.

A field stored (`self.major = prop.major`, `major = prop.major`) is followed: to any `<obj>.major` in the same class
(metaseq's CudaEnvironment formats `env.major` in a static method of the class), or to the local's later uses in its
scope. Formatting None with a non-empty spec (`"{:2d}".format(env.major)`, `f"{major:.1f}"`) raises TypeError too
(object.__format__ accepts only an empty spec); a plain `{}` or a `!r`/`!s` conversion shows "None"."""

from __future__ import annotations

import string

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

NONE_FIELD_COMPUTED = "none-field-computed"  # DEV121's facet: a field torch_npu leaves None is compared or computed with
NONE_EQUALITY = "none-equality"  # DEV120's facet: the value torch_npu answers None is only tested for (in)equality
EQUALITIES = frozenset({"==", "!="})
MEMBERSHIPS = frozenset({"in", "not in"})
OPERATIONS = frozenset({"comparison_operator", "binary_operator", "unary_operator", "augmented_assignment"})
MAX_NODES = 20_000


def computed_none_fields(call: Node, none_fields: frozenset[str]) -> list[str]:
    """The fields of `none_fields` read from what `call` returns (`f(...).major`, or `props = f(...)` then
    `props.major` in the same scope) where the read is an operand of a comparison, an arithmetic or unary operator."""
    reads = []
    parent = call.parent
    if parent is not None and parent.type == "attribute" and _same(parent.child_by_field_name("object"), call):
        reads.append(parent)
    elif parent is not None and parent.type == "assignment" and _same(parent.child_by_field_name("right"), call):
        binding = parsing.named_binding(parent)
        if binding is not None:
            name, scope = binding
            for node in parsing.walk(scope, limit=MAX_NODES):
                if node.type == "identifier" and node.start_byte >= parent.end_byte and parsing.text(node) == name:
                    holder = node.parent
                    if holder is not None and holder.type == "attribute" and _same(holder.child_by_field_name("object"), node):
                        reads.append(holder)
    found = []
    for read in reads:
        field = parsing.text(read.child_by_field_name("attribute"))
        if field in none_fields and field not in found and (_raises_on_none(read) or _stored_then_raises(read)):
            found.append(field)
    return found


def _raises_on_none(node: Node) -> bool:
    return _operand(node) or _formatted_with_spec(node)


def _stored_then_raises(read: Node) -> bool:
    """`self.major = prop.major` then `<obj>.major` in the class, or `major = prop.major` then `major` in the scope,
    where None raises."""
    assignment = read.parent
    if assignment is None or assignment.type != "assignment" or not _same(assignment.child_by_field_name("right"), read):
        return False
    left = assignment.child_by_field_name("left")
    if left is not None and left.type == "identifier":
        name = parsing.text(left)
        scope = parsing.enclosing(assignment, {"function_definition", "module"})
        return any(node.type == "identifier" and node.start_byte >= assignment.end_byte and parsing.text(node) == name
                   and _raises_on_none(node) for node in parsing.walk(scope, limit=MAX_NODES))
    owner = left.child_by_field_name("object") if left is not None and left.type == "attribute" else None
    if owner is None or parsing.text(owner) != "self":
        return False
    attribute = parsing.text(left.child_by_field_name("attribute"))
    body = parsing.enclosing(assignment, {"class_definition"})
    return body is not None and any(
        node.type == "attribute" and not _same(node, left) and parsing.text(node.child_by_field_name("attribute")) == attribute
        and _raises_on_none(node) for node in parsing.walk(body, limit=MAX_NODES))


def _formatted_with_spec(node: Node) -> bool:
    """`f"{node:2d}"`, or `node` given to `"...{:2d}...".format(...)` at a field with a non-empty spec."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is not None and parent.type == "interpolation":
        kinds = {child.type for child in parent.children}
        return "format_specifier" in kinds and "type_conversion" not in kinds
    if parent is not None and parent.type == "keyword_argument":
        key = parsing.text(parent.child_by_field_name("name"))
        node, parent = parent, parent.parent
    else:
        key = None
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None else None
    template = function.child_by_field_name("object") if function is not None and function.type == "attribute" else None
    if template is None or template.type not in {"string", "concatenated_string"} \
            or parsing.text(function.child_by_field_name("attribute")) != "format":
        return False
    positional = [a for a in parent.named_children if a.type not in {"comment", "keyword_argument"}]
    position = next((i for i, a in enumerate(positional) if _same(a, node)), None) if key is None else None
    return _spec_at(template, key, position)


def _spec_at(template: Node, key: str | None, position: int | None) -> bool:
    """Does the template's field for a keyword or a position carry a non-empty spec and no conversion?"""
    literal = "".join(parsing.text(c) for c in parsing.walk(template, limit=MAX_NODES) if c.type == "string_content")
    automatic = 0
    try:
        fields = list(string.Formatter().parse(literal))
    except ValueError:
        return False
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if name == "":
            name, automatic = str(automatic), automatic + 1
        head = name.split(".", 1)[0].split("[", 1)[0]
        if head == (key if key is not None else str(position)):
            return bool(spec) and conversion is None
    return False


def _operand(read: Node) -> bool:
    parent = read.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    return parent is not None and parent.type in OPERATIONS


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte and a.type == b.type


def only_equality_operand(call: Node) -> bool:
    """Is `call`'s value only an operand of `==`/`!=`, or the left operand of `in`/`not in`, in one comparison
    (`torch.cuda.get_device_capability(i) == (7, 5)`)? torch_npu's None then makes the test False (`!=`: True), with no
    TypeError: the code takes its branch for other cards (round 30 B2 row 40). An ordering (`>= (8, 0)`), an index,
    an unpacking or the right operand of `in` (`8 in cap`) raises instead."""
    node, parent = call, call.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None or parent.type != "comparison_operator":
        return False
    operators = {parsing.text(op) for op in parent.children_by_field_name("operators")}
    operands = parent.named_children
    if len(operands) != 2 or not operators:
        return False
    return operators <= EQUALITIES or (operators <= MEMBERSHIPS and _same(operands[0], node))
