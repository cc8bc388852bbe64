"""A device test whose only work is a rank suffix: `if self.device == "cuda": self.device += f":{local_rank}"`.

With a native port's "npu" the test is false and only the suffix is lost: one device keeps "npu" (== "npu:0"), and
only a multi-device run puts every rank on device 0 (round 22 A2 row 97). No CUDA-only code hides behind the test.

The same choice written as one value, `torch.device(f"{d}:{gpu_id}" if d == "cuda" else d)` (round 30 B1 row 17):
its other arm passes the setting through, so "npu" gives torch.device("npu"), the current NPU, and only the index is
dropped (`passes_setting_through`). Written as a statement, `if d != "cuda": kwargs["device_map"] = {"": d}` (round 31
A2 row 51, B1 row 21): the arm a non-CUDA value takes uses that value itself as the device, so "npu" places the model
on the NPU and nothing is lost (`non_cuda_arm_uses_setting`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

EQUAL = frozenset({"==", "in"})


def only_adds_rank_suffix(test: Node) -> bool:
    """Is the comparison the whole test of an `if` (no elif or else) whose body is one statement appending
    `":..."` to the compared name (`x += f":{rank}"`, `x = f"{x}:{rank}"`, `x = x + ":" + str(rank)`)?"""
    statement = test.parent
    if statement is None or statement.type != "if_statement" or statement.child_by_field_name("condition") != test:
        return False
    if statement.children_by_field_name("alternative"):
        return False
    if not {parsing.text(op) for op in test.children_by_field_name("operators")} <= EQUAL:
        return False
    body = statement.child_by_field_name("consequence")
    statements = [c for c in (body.named_children if body is not None else []) if c.type != "comment"]
    if len(statements) != 1 or statements[0].type != "expression_statement" or not statements[0].named_children:
        return False
    change = statements[0].named_children[0]
    left, right = change.child_by_field_name("left"), change.child_by_field_name("right")
    if left is None or right is None or left.type not in {"identifier", "attribute"}:
        return False
    name = parsing.text(left)
    if name not in {parsing.text(o) for o in test.named_children}:
        return False
    if change.type == "augmented_assignment":
        return parsing.text(change.child_by_field_name("operator")) == "+=" and _starts_with_colon(right)
    if change.type != "assignment":
        return False
    if right.type == "binary_operator" and parsing.text(right.child_by_field_name("left")) == name:
        return parsing.text(right.child_by_field_name("operator")) == "+" and _starts_with_colon(
            right.child_by_field_name("right"))
    return right.type == "string" and _string_text(right).startswith("{" + name + "}:")


def passes_setting_through(test: Node) -> bool:
    """Is the comparison (`d == "cuda"`) the whole condition of a conditional value whose other arm is the compared
    name itself and whose CUDA arm is that name with an index suffix (`f"{d}:{i}"`, `d + ":" + str(i)`)?"""
    holder = test.parent
    if holder is None or holder.type != "conditional_expression":
        return False
    parts = holder.named_children
    if len(parts) != 3 or parts[1] != test:
        return False
    if not {parsing.text(op) for op in test.children_by_field_name("operators")} <= EQUAL:
        return False
    suffixed, other = parts[0], parts[2]
    name = parsing.text(other)
    if other.type not in {"identifier", "attribute"} or name not in {parsing.text(o) for o in test.named_children}:
        return False
    terms = []
    while suffixed.type == "binary_operator" and parsing.text(suffixed.child_by_field_name("operator")) == "+":
        terms.append(suffixed.child_by_field_name("right"))
        suffixed = suffixed.child_by_field_name("left")
    if terms:  # `d + ":" + str(i)`: the name, then a term that starts with the colon
        return parsing.text(suffixed) == name and _starts_with_colon(terms[-1])
    return suffixed.type == "string" and _string_text(suffixed).startswith("{" + name + "}:")


def non_cuda_arm_uses_setting(test: Node) -> bool:
    """Is the comparison (`d != "cuda"`) the whole condition of an `if` without elif or else whose every statement
    assigns the compared name as a device: the name itself, `{"": d}` (a device map placing the whole model on it) or
    `torch.device(d)`?"""
    statement = test.parent
    if statement is None or statement.type != "if_statement" or statement.child_by_field_name("condition") != test:
        return False
    if statement.children_by_field_name("alternative"):
        return False
    if not {parsing.text(op) for op in test.children_by_field_name("operators")} <= {"!=", "not in"}:
        return False
    names = {parsing.text(o) for o in test.named_children if o.type in {"identifier", "attribute"}}
    if len(names) != 1:
        return False
    name = names.pop()

    def places_on_setting(assignment: Node) -> bool:
        right = assignment.child_by_field_name("right")
        return right is not None and _device_from(right, name)
    return parsing.each_statement_is(statement.child_by_field_name("consequence"), "assignment", places_on_setting)


def _device_from(value: Node, name: str) -> bool:
    """`d`, `{"": d}` or `torch.device(d)`: the setting used as the device, unchanged."""
    if value.type in {"identifier", "attribute"}:
        return parsing.text(value) == name
    if value.type == "dictionary":
        pairs = value.named_children
        key = pairs[0].child_by_field_name("key") if len(pairs) == 1 and pairs[0].type == "pair" else None
        return key is not None and key.type == "string" and _string_text(key) == "" \
            and parsing.text(pairs[0].child_by_field_name("value")) == name
    if value.type == "call":
        function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
        given = arguments.named_children if arguments is not None else []
        return function is not None and parsing.text(function) in {"torch.device", "device"} and len(given) == 1 \
            and parsing.text(given[0]) == name
    return False


def _starts_with_colon(node: Node | None) -> bool:
    """`":"`, `f":{rank}"`, `":" + str(rank)`: a string that starts with the colon of a device index."""
    while node is not None and node.type == "binary_operator":
        node = node.child_by_field_name("left")
    return node is not None and node.type == "string" and _string_text(node).startswith(":")


def _string_text(node: Node) -> str:
    """The string's text between its quotes, prefix (f, r) left out."""
    text = parsing.text(node)
    start = next((i for i, c in enumerate(text) if c in "'\""), 0)
    quote = text[start]
    return text[start:].strip(quote)
