"""Branches that cannot run at the target torch: `dead-at-target`.

A condition is evaluated only when it is made of what the analyzer can read without running anything:
- comparisons of torch's version with a literal version: `torch.__version__ < "2.3"`,
  `version.parse(torch.__version__) >= version.parse("2.3")`, `Version(torch.__version__).release < (2, 3)`
  is not read; a name assigned such a value in the same unit (`torch_version = version.parse(torch.__version__)`),
  and the version helpers of common libraries (`is_torch_version(">=", "2.1")`, `required_torch_version(min_version=2.6)`);
- feature gates on torch's own attributes that exist at the target (`hasattr(torch, "accelerator")`), from the table
  in knowledge/context/conventions.toml;
- `not`, `and`, `or` of those (an unknown operand makes `and` false only through a false operand, `or` true only
  through a true one).
Anything else is unknown and decides nothing.
"""

from __future__ import annotations

import operator

from ascend_feasibility.analyzer.reading import parsing
from packaging.version import InvalidVersion, Version
from tree_sitter import Node

MAX_NODES = 200
COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
TORCH = "torch"  # the marker of "torch's version" while reading an expression


class VersionReader:
    def __init__(self, torch: str, features: dict[str, str], helpers: list[str]) -> None:
        self.torch = Version(torch)
        self.features = {name: Version(first) for name, first in features.items()}
        self.helpers = frozenset(helpers)
        self._names: dict[tuple[int, str], object] = {}

    def start_unit(self) -> None:
        self._names.clear()

    def evaluate(self, condition: Node, budget: list[int] | None = None) -> bool | None:
        """True or False at the target torch, or None when the condition is not only about torch's version."""
        budget = budget if budget is not None else [MAX_NODES]
        budget[0] -= 1
        if budget[0] < 0:
            return None
        kind = condition.type
        if kind == "parenthesized_expression" and condition.named_children:
            return self.evaluate(condition.named_children[0], budget)
        if kind == "not_operator":
            argument = condition.child_by_field_name("argument")
            value = self.evaluate(argument, budget) if argument is not None else None
            return None if value is None else not value
        if kind == "boolean_operator":
            left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
            op = condition.child_by_field_name("operator")
            values = [self.evaluate(side, budget) if side is not None else None for side in (left, right)]
            if op is not None and op.type == "and":
                return False if False in values else (True if values == [True, True] else None)
            return True if True in values else (False if values == [False, False] else None)
        if kind == "comparison_operator":
            return self._comparison(condition, budget)
        if kind == "call":
            return self._call(condition, budget)
        if kind == "identifier":
            value = self._named(condition, budget)
            return value if isinstance(value, bool) else None
        return None

    def _comparison(self, node: Node, budget: list[int]) -> bool | None:
        operands = node.named_children
        operators = [c.type for c in node.children if not c.is_named]
        if len(operands) != 2 or len(operators) != 1 or operators[0] not in COMPARE:
            return None
        left, right = (self._value(o, budget) for o in operands)
        op = operators[0]
        if left == TORCH and isinstance(right, Version):
            return COMPARE[op](self.torch, right)
        if right == TORCH and isinstance(left, Version):
            return COMPARE[FLIPPED[op]](self.torch, left)
        return None

    def _call(self, call: Node, budget: list[int]) -> bool | None:
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        name = parsing.text(function)
        args = [a for a in arguments.named_children if a.type != "comment"]
        if name == "hasattr" and len(args) == 2 and args[1].type == "string":
            owner = parsing.text(args[0])
            attribute = _string(args[1])
            first = self.features.get(f"{owner}.{attribute}")
            return None if first is None else self.torch >= first
        if name.rsplit(".", 1)[-1] not in self.helpers:
            return None
        positional = [a for a in args if a.type != "keyword_argument"]
        keywords = {parsing.text(a.child_by_field_name("name")): a.child_by_field_name("value")
                    for a in args if a.type == "keyword_argument" and a.child_by_field_name("name") is not None}
        if len(positional) == 2 and positional[0].type == "string":  # is_torch_version(">=", "2.1")
            op = _string(positional[0])
            wanted = _version(positional[1])
            if op in COMPARE and wanted is not None:
                return COMPARE[op](self.torch, wanted)
            return None
        low = keywords.get("min_version") or (positional[0] if positional else None)
        high = keywords.get("max_version")
        result = True
        for bound, op in ((low, operator.ge), (high, operator.le)):
            if bound is None:
                continue
            wanted = _version(bound)
            if wanted is None:
                return None
            result = result and op(self.torch, wanted)
        return result if (low is not None or high is not None) else None

    def _value(self, node: Node, budget: list[int]):
        """TORCH for torch's version, a Version for a literal one, else None."""
        budget[0] -= 1
        if budget[0] < 0:
            return None
        text = parsing.text(node)
        if text in {"torch.__version__", "torch.version.__version__"}:
            return TORCH
        literal = _version(node)
        if literal is not None:
            return literal
        parsed = _parsed_argument(node)
        if parsed is not None:
            return self._value(parsed, budget)
        if node.type == "attribute" and parsing.text(node).endswith((".base_version", ".public")):
            inner = node.child_by_field_name("object")
            return self._value(inner, budget) if inner is not None else None
        if node.type == "identifier":
            value = self._named(node, budget)
            return value if value == TORCH or isinstance(value, Version) else None
        return None

    def _named(self, identifier: Node, budget: list[int]):
        """The value of a module-level (or same-block) assignment to this name, read once per unit."""
        name = parsing.text(identifier)
        scopes = _scopes(identifier)
        key = (scopes[0].start_byte if scopes else -1, name)
        if key in self._names:
            return self._names[key]
        self._names[key] = None  # no cycles
        value = None
        for scope in scopes:
            assigned = _assignment(scope, name)
            if assigned is not None:
                value = self._value(assigned, budget)
                if value is None:
                    value = self.evaluate(assigned, budget)
                break
        self._names[key] = value
        return value


def _scopes(node: Node) -> list[Node]:
    """The blocks around a name, innermost first, up to its function's body, then the module."""
    scopes, current, depth, module = [], node.parent, 0, None
    in_function = True
    while current is not None and depth < 400:
        if current.type == "module":
            module = current
        elif current.type == "block" and in_function:
            scopes.append(current)
        elif current.type in {"function_definition", "class_definition"}:
            in_function = False
        current, depth = current.parent, depth + 1
    return scopes[:8] + ([module] if module is not None else [])


def _assignment(scope: Node, name: str) -> Node | None:
    """The right side of the only assignment to `name` directly in this block (None when assigned twice)."""
    found = None
    for statement in scope.named_children[:2000]:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        assignment = statement.named_children[0]
        if assignment.type != "assignment":
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and left.type == "identifier" and parsing.text(left) == name and right is not None:
            if found is not None:
                return None
            found = right
    return found


PARSERS = frozenset({"parse", "Version", "LooseVersion", "StrictVersion", "parse_version"})


def _parsed_argument(node: Node) -> Node | None:
    """The one argument of `version.parse(x)` / `Version(x)`."""
    if node.type != "call":
        return None
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    name = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
    return args[0] if name in PARSERS and len(args) == 1 else None


def _string(node: Node) -> str:
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def _version(node: Node) -> Version | None:
    if node.type == "string":
        if any(c.type == "interpolation" for c in node.named_children):
            return None  # f"2{x}.1": the value is known only at run time
        text = _string(node)
    elif node.type in {"float", "integer"}:
        text = parsing.text(node)
    elif node.type == "call":
        parsed = _parsed_argument(node)
        return _version(parsed) if parsed is not None else None
    else:
        return None
    if not text or len(text) > 40:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


DECORATED_DEFINITIONS = "(decorated_definition) @definition"  # what legacy_triton_kernels reads


def legacy_triton_kernels(definitions: list[Node]) -> tuple[int, int]:
    """(Triton 1.x kernels, all Triton kernels) among a unit's decorated definitions: a `@triton.jit` function with a
    `**meta` parameter takes its META dict the Triton 1.x way; Triton 2 and later (what torch 2.x ships and
    triton-ascend follows) accept no variable keyword parameters in a kernel (kernels spell out `tl.constexpr`
    parameters instead)."""
    legacy = total = 0
    for definition in definitions[:2000]:
        function = definition.child_by_field_name("definition")
        if function is None or function.type != "function_definition":
            continue
        decorators = [parsing.text(d) for d in definition.children if d.type == "decorator"]
        if not any(d.endswith("jit") or ".jit(" in d for d in decorators):
            continue
        total += 1
        parameters = function.child_by_field_name("parameters")
        if parameters is not None and any(p.type == "dictionary_splat_pattern" for p in parameters.named_children):
            legacy += 1
    return legacy, total
