"""Small predicate helpers of a file: a call in a condition stands for the test the helper returns.

`def supports_host_descriptor(): return is_cuda() and torch.cuda.get_device_capability()[0] >= 9`, with
`def is_cuda(): return triton.runtime.driver.active.get_current_target().backend == "cuda"`, and
`if supports_host_descriptor() and not (...): desc = TensorDescriptor(...) else: desc = q`: the branch is taken
where the helper's test holds, so it is guarded by that test as much as by the test written out. So is
`if self._streams_chunk_copies(z, out):` where the method returns `z.device.type == "cuda" and out.is_pinned()`.

A helper is a function or method of the same file whose body (past a docstring) is one `return` of a test (a
comparison, `and`/`or`, `not`) or of a call of another helper, defined once under its name in the file, so a call names it without doubt: `name(...)` for a function,
`self.name(...)`, `cls.name(...)` or `Class.name(...)` for a method. Helpers call helpers: the guard reader reads a
helper's expression as a condition in turn (guards.GuardReader._helper_tests), to a bounded depth; a helper that
names itself in its return stands for nothing."""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_CONDITION_NODES = 400
MAX_CHAIN = 4  # helpers returning a call of a helper, read in as many rounds
BOOLEAN = frozenset({"comparison_operator", "boolean_operator", "not_operator", "true", "false"})
RECEIVERS = frozenset({"self", "cls"})
DEFINITIONS = "(function_definition) @function"
CLASSES = "(class_definition name: (identifier) @name)"


class PredicateHelpers:
    def __init__(self) -> None:
        self._helpers: dict[str, Node] | None = None  # name → the expression its one return gives
        self._classes: frozenset[str] = frozenset()
        self._root: Node | None = None
        # the unit's tree, its function definitions and its class names, when the unit's combined query has them
        # (set per unit by the core): read from there, no query of its own over the tree
        self.unit_definitions: Callable[[], tuple[Node, list[Node], list[Node]]] | None = None

    def start_unit(self) -> None:
        self._helpers = None
        self._root = None

    def helper_of(self, call: Node) -> Node | None:
        """The expression the helper a call names returns, or None where the call names no helper of the file."""
        helpers = self._unit_helpers(call)  # first: it reads the file's class names too
        name = self._callee(call) if helpers else None
        return helpers.get(name) if name is not None else None

    def _callee(self, call: Node) -> str | None:
        function = call.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "identifier":
            return parsing.text(function)
        if function.type == "attribute":
            receiver, attribute = function.child_by_field_name("object"), function.child_by_field_name("attribute")
            if receiver is not None and attribute is not None and receiver.type == "identifier" and (
                    parsing.text(receiver) in RECEIVERS or parsing.text(receiver) in self._classes):
                return parsing.text(attribute)
        return None

    def _unit_helpers(self, node: Node) -> dict[str, Node]:
        """name → returned expression of each helper in the file of `node` (read once per unit)."""
        root = parsing.root_of(node)
        if self._helpers is None or self._root is None or self._root != root:
            self._root = root
            given = self.unit_definitions() if self.unit_definitions is not None else None
            if given is not None and given[0] == root:
                functions, class_names = given[1], given[2]
            else:
                functions = parsing.captures(parsing.query("python", DEFINITIONS), root).get("function", [])
                class_names = parsing.captures(parsing.query("python", CLASSES), root).get("name", [])
            definitions: dict[str, list[Node]] = {}
            for function in functions:
                name = function.child_by_field_name("name")
                if name is not None:
                    definitions.setdefault(parsing.text(name), []).append(function)
            self._classes = frozenset(parsing.text(n) for n in class_names)
            candidates = {}
            for name, functions in definitions.items():
                value = _one_return(functions[0]) if len(functions) == 1 else None
                if value is not None and not _calls_itself(value, name):
                    candidates[name] = value
            # a test, or a call of a helper that is one (`return is_cuda()`): a helper returning a tensor or a device
            # (`return torch.arange(n, device=torch.cuda.current_device())`) stands for no test
            self._helpers = {name: value for name, value in candidates.items() if _boolean(value)}
            for _ in range(MAX_CHAIN):
                more = {name: value for name, value in candidates.items() if name not in self._helpers
                        and _unwrapped(value).type == "call" and self._callee(_unwrapped(value)) in self._helpers}
                if not more:
                    break
                self._helpers.update(more)
        return self._helpers


def _one_return(function: Node) -> Node | None:
    """The expression of a function body that is only `return <expression>` (a docstring and comments aside)."""
    body = function.child_by_field_name("body")
    if body is None:
        return None
    statements = [s for s in body.named_children if s.type != "comment"]
    if statements and statements[0].type == "expression_statement" and statements[0].named_children \
            and statements[0].named_children[0].type == "string":
        statements = statements[1:]  # the docstring
    if len(statements) != 1 or statements[0].type != "return_statement" or not statements[0].named_children:
        return None
    return statements[0].named_children[0]


def _unwrapped(value: Node) -> Node:
    while value.type == "parenthesized_expression" and value.named_children:
        value = value.named_children[0]
    return value


def _boolean(value: Node) -> bool:
    """Is the returned expression a test (a comparison, `and`/`or`, `not`)?"""
    return _unwrapped(value).type in BOOLEAN


def _calls_itself(value: Node, name: str) -> bool:
    return any(node.type == "identifier" and parsing.text(node) == name
               for node in parsing.walk(value, limit=MAX_CONDITION_NODES))
