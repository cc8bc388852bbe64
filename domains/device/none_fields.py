"""Fields of a CUDA query's result that torch_npu's counterpart leaves None, used where None raises.

torch.cuda.get_device_properties maps to torch.npu.get_device_properties under transfer_to_npu, whose NPUDeviceProp
binds major, minor, max_threads_per_multi_processor, warp_size, ... as std::optional fields it never sets
(Ascend/pytorch v2.12.0-26.1.0 torch_npu/csrc/npu/Module.cpp:69-85, 146-165, 201-263), so they read None. Compared
(`props.major < 6`), computed with (`n // props.warp_size`) or negated, None raises TypeError: the shim's mapping is
no automatic port of that site (round 26 B2 row 30: Fooocus's should_use_fp16 reads `props.major < 6`). A field only
shown, stored or handed on raises nothing there, and the finding keeps its automatic migration."""

from __future__ import annotations

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
        if field in none_fields and _operand(read) and field not in found:
            found.append(field)
    return found


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
