"""A parameter's device-string default that the function never uses as a device: `device_map="cuda:0"` in a model
constructor whose body reads `device_map` only in `if device_map == "auto":` and builds its own `f"cuda:{rank}"` in
every arm (lmms-eval's model wrappers, round 24 A1 C2 and A2 C1), or `device: str = "cuda:0"` that the body never
names. Changing the literal to "npu:0" changes nothing that runs, so it is no device string to port (DEV001 is not
reported); the arms' own strings are the sites.

Per file (`read`): the defaults (`name="cuda:0"`, `name: str = "cuda"`) of a `def`'s parameters that are a plain CUDA
device literal, where every read of the name in the function's body is
- an operand of `==`/`!=` against string literals that do not spell "cuda" (`device_map == "auto"`), of `in`/`not in`
  testing the name against a tuple, list or set of such strings (`device_map in ("auto", "balanced")`), or of
  `is`/`is not` None: neither "cuda:0" nor "npu:0" passes such a test, so the port changes no branch taken; or
- after a first mention that rebinds it unconditionally at the body's top level (`device = pick_device()` before any
  other read): the default is overwritten before it is used.
No read at all counts as well. A body naming `locals` or `vars` (which read every parameter), a nested definition or
lambda reading the name, `"cuda" in device` (its value tested) or any other read keep the default a finding.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit, register_query
from ascend_feasibility.domains.device.literals import device_literal
from ascend_feasibility.domains.device.unread_constants import named_field
from tree_sitter import Node

DEFAULTS = """
(default_parameter value: (string) @value)
(typed_default_parameter value: (string) @value)
(default_parameter value: (call arguments: (argument_list (string) @inner)))
(typed_default_parameter value: (call arguments: (argument_list (string) @inner)))
(default_parameter value: (call arguments: (argument_list (keyword_argument value: (string) @inner))))
(typed_default_parameter value: (call arguments: (argument_list (keyword_argument value: (string) @inner))))
"""
DEFAULTS_QUERY = register_query("string_defaults", DEFAULTS, alone=True)
MAX_DEFAULTS = 2000
MAX_BODY_NODES = 50_000
EQUALITY = frozenset({"==", "!="})
MEMBERSHIP = frozenset({"in", "not in"})
IDENTITY = frozenset({"is", "is not"})
SEQUENCES = frozenset({"tuple", "list", "set"})
WHOLE_SCOPE_READERS = frozenset({"locals", "vars"})


def read(unit: Unit) -> list[int]:
    """Lines of the unit's device-literal parameter defaults the function never uses as a device. Findings are
    placed by line, one a rule: a line that holds any other device literal of a signature is not given."""
    dead: set[int] = set()
    kept: set[int] = set()
    for value in unit.captures(DEFAULTS_QUERY).get("value", [])[:MAX_DEFAULTS]:
        literal = device_literal(value)
        if literal is None:
            continue
        parameter, function = value.parent, value.parent.parent.parent  # default → parameters → def (or lambda)
        name = parameter.child_by_field_name("name")
        body = function.child_by_field_name("body") if function is not None else None
        if literal.formatted or name is None or name.type != "identifier" or function.type != "function_definition" \
                or body is None:
            kept.add(value.start_point.row + 1)
            continue
        (dead if _unused(body, parsing.text(name)) else kept).add(value.start_point.row + 1)
    # a device literal elsewhere in a signature (`x=torch.device("cuda")`) keeps its line too
    for string in unit.captures(DEFAULTS_QUERY).get("inner", []):
        if device_literal(string) is not None:
            kept.add(string.start_point.row + 1)
    return sorted(dead - kept)


def _unused(body: Node, name: str) -> bool:
    """Whether no read of `name` in `body` uses the default's value as a device."""
    try:
        reads = [node for node in parsing.walk(body, limit=MAX_BODY_NODES, strict=True)
                 if node.type == "identifier" and not named_field(node)
                 and (parsing.text(node) == name or parsing.text(node) in WHOLE_SCOPE_READERS)]
    except parsing.WalkLimit:
        return False
    if any(parsing.text(node) in WHOLE_SCOPE_READERS for node in reads):
        return False
    rebound_at = _rebinding(body, name)
    return all(_only_compared(node) or (rebound_at is not None and node.start_byte >= rebound_at) for node in reads)


def _rebinding(body: Node, name: str) -> int | None:
    """The start of the body's first top-level statement naming `name` when it is `name = <value not naming it>`."""
    for statement in body.named_children:
        if not _names(statement, name):
            continue
        assignment = parsing.statement_assignment(statement)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if left is None or right is None or left.type != "identifier" or parsing.text(left) != name \
                or _names(right, name):
            return None
        return statement.start_byte
    return None


def _names(node: Node, name: str) -> bool:
    return any(n.type == "identifier" and parsing.text(n) == name and not named_field(n)
               for n in parsing.walk(node, limit=MAX_BODY_NODES))


def _only_compared(node: Node) -> bool:
    """`node` is an operand of a comparison whose outcome is the same for "cuda:0" and "npu:0"."""
    comparison = node.parent
    if comparison is None or comparison.type != "comparison_operator":
        return False
    operands = comparison.named_children
    operators = [parsing.text(child) for child in comparison.children if not child.is_named]
    if len(operands) != 2 or len(operators) != 1:
        return False  # a chained comparison: not judged
    operator, other = operators[0], operands[1] if operands[0] == node else operands[0]
    if operator in IDENTITY:
        return other.type == "none"
    if operator in EQUALITY:
        return _plain_string(other)
    if operator in MEMBERSHIP:  # the name tested against a collection, not a substring tested in the name
        return operands[0] == node and other.type in SEQUENCES and all(_plain_string(c) for c in other.named_children)
    return False


def _plain_string(node: Node) -> bool:
    """A string literal without interpolation that does not spell "cuda"."""
    return node.type == "string" and not any(child.type == "interpolation" for child in node.children) \
        and "cuda" not in parsing.text(node).lower()

