"""float64 that reaches the device through a name or a backend condition.

`freqs_dtype = torch.float64` and later `torch.arange(..., dtype=freqs_dtype)`: the dtype travels through a local
name, which the literal-dtype rule (PRC001) does not see. `dtype = torch.float32 if is_mps else torch.float64` is
the other common form: the code already knows a backend without float64 and picks float32 for it; that condition
is reported once, where the NPU belongs beside the other backend.

A name is followed only inside its own scope (function, or module), and only when every binding of that name in the
scope is a double-precision dtype: a name rebound to something else is left alone.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.precision.float64_use import fate_hit
from ascend_feasibility.domains.precision.python_scanner import COMPLEX128, FLOAT64, _used_as_device_dtype
from ascend_feasibility.domains.precision.tensor_arms import (
    PYTHON_NUMBER_ARM,
    SCALAR_FROM_NUMBER,
    python_number_arm,
    scalar_from_number,
)
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, unit_references
from ascend_feasibility.domains.python_words import words
from tree_sitter import Node

QUERY = r"""
(assignment left: (identifier) @bound_name)
(keyword_argument value: (identifier) @dtype_name)
(argument_list (identifier) @dtype_name)
"""

WIDE = FLOAT64 | COMPLEX128
SCOPES = {"function_definition", "lambda", "module"}
# a condition that names one of these backends already special-cases a device without float64
NO_FLOAT64_BACKENDS = {"mps"}
NPU_TOKENS = {"npu"}


class _DtypeFlowScan(PythonScan):
    QUERY = QUERY
    QUERY_ALONE = True  # every assignment and argument name, needed only where float64 is spelled

    def run(self) -> list[Hit]:
        wide_values: dict[int, str] = {}  # id of a value node that is a double-precision dtype → its name
        reported_conditions: set[int] = set()
        for reference in unit_references(self.unit):
            if reference.name not in WIDE:
                continue
            node = reference.node
            parent = node.parent
            if parent is not None and parent.type == "parenthesized_expression":
                node, parent = parent, parent.parent
            if parent is not None and parent.type == "conditional_expression" and _is_branch(parent, node):
                if self._backend_condition(parent, reported_conditions):
                    continue
                wide_values[parent.id] = reference.name
            else:
                wide_values[node.id] = reference.name
        if not wide_values:
            return self.hits
        found = self.captures()
        bindings, bound = self._bindings(found.get("bound_name", []), wide_values)
        for use in found.get("dtype_name", []):
            binding = _visible_binding(use, bindings, bound)
            if binding is None or use.start_byte < binding[0].end_byte or not _used_as_device_dtype(use):
                continue
            where = fate_hit(use) if binding[1] in FLOAT64 else None
            if where is not None:  # reduced across NPUs (HCCL rejects float64) or only reported
                self.hit(where[0], where[1], use)
            else:
                self.hit("float64-dtype-variable", f"{parsing.text(use)} = {binding[1]}", use)
        return self.hits

    def _backend_condition(self, conditional: Node, reported: set[int]) -> bool:
        """`torch.float32 if is_mps else torch.float64`: report once; True when the condition names a backend
        without float64 (and not the NPU already)."""
        condition = _condition(conditional)
        if condition is None:
            return False
        tokens = words(condition)
        if not tokens & NO_FLOAT64_BACKENDS:
            return False
        if not tokens & NPU_TOKENS and conditional.id not in reported and not _cpu_table(conditional):
            reported.add(conditional.id)
            facets = (PYTHON_NUMBER_ARM,) if python_number_arm(conditional) else ()
            if facets and scalar_from_number(conditional):
                facets += (SCALAR_FROM_NUMBER,)
            self.hit("float64-backend-condition", " ".join(parsing.text(condition).split()), conditional, facets=facets)
        return True

    def _bindings(self, names: list[Node], wide_values: dict[int, str]):
        """(scope id, name) → (first assignment, dtype) for names bound only to double-precision dtypes, and the
        (scope id, name) of every assignment."""
        result: dict[tuple[int, str], tuple[Node, str]] = {}
        rebound: set[tuple[int, str]] = set()
        bound: set[tuple[int, str]] = set()
        for name in names:
            assignment = name.parent
            value = assignment.child_by_field_name("right")
            key = (_scope(assignment).id, parsing.text(name))
            dtype = wide_values.get(value.id) if value is not None else None
            bound.add(key)
            if dtype is None:
                rebound.add(key)
            elif key not in result:
                result[key] = (assignment, dtype)
        return {key: value for key, value in result.items() if key not in rebound}, bound


def _visible_binding(use: Node, bindings: dict, bound: set[tuple[int, str]]) -> tuple[Node, str] | None:
    """The binding a name refers to: its own scope's, else the nearest enclosing scope that assigns it."""
    name = parsing.text(use)
    scope = _scope(use)
    while True:
        key = (scope.id, name)
        if key in bound:
            return bindings.get(key)
        if scope.parent is None:
            return None
        scope = _scope(scope)


def _cpu_table(conditional: Node) -> bool:
    """`sigmas_dtype = torch.float32 if torch.backends.mps.is_available() else torch.float64`, every later use of the
    name a factory `dtype=` without a device (built on the CPU), and every table so built cast to float32 in the
    function (`sigmas = sigmas.to(torch.float32)`): float64 never reaches the NPU (diffusers' EDM scheduler tables)."""
    assignment = conditional.parent
    if assignment is None or assignment.type != "assignment":
        return False
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return False
    name, scope = parsing.text(left), _scope(assignment)
    uses, built, cast_objects = 0, set(), set()
    for current in parsing.walk(scope, limit=20000):
        if current.type == "identifier" and parsing.text(current) == name and current.start_byte > left.end_byte:
            keyword = current.parent
            call = keyword.parent.parent if keyword is not None and keyword.type == "keyword_argument" and keyword.parent is not None else None
            if call is None or call.type != "call" or parsing.text(keyword.child_by_field_name("name")) != "dtype":
                return False
            function = call.child_by_field_name("function")
            if function is None or not parsing.text(function).startswith("torch.") or parsing.text(function).endswith(".to"):
                return False  # a torch factory builds on the CPU; `.to(sample.device, dtype=...)` moves to the device
            if any(k.type == "keyword_argument" and parsing.text(k.child_by_field_name("name")) == "device"
                   for k in keyword.parent.named_children):
                return False
            uses += 1
            target = call.parent
            if target is not None and target.type == "binary_operator":  # `sigmas = torch.arange(...) / n`
                target = target.parent
            if target is not None and target.type == "assignment" and target.child_by_field_name("left") is not None:
                built.add(parsing.text(target.child_by_field_name("left")))
        elif current.type == "call":
            function = current.child_by_field_name("function")
            text = parsing.text(function) if function is not None else ""
            arguments = parsing.text(current.child_by_field_name("arguments") or current)
            if text.endswith(".float") or (text.endswith(".to") and "float32" in arguments):
                cast_objects.add(text.rsplit(".", 1)[0])
    return uses > 0 and bool(built) and built <= cast_objects  # every table built with it is cast to float32


def _is_branch(conditional: Node, node: Node) -> bool:
    children = conditional.named_children
    return len(children) == 3 and node.id in {children[0].id, children[2].id}


def _condition(conditional: Node) -> Node | None:
    children = conditional.named_children
    return children[1] if len(children) == 3 else None


def _scope(node: Node) -> Node:
    current = node.parent
    while current is not None and current.type not in SCOPES:
        current = current.parent
    return current if current is not None else node


class PrecisionDtypeFlowScanner(PythonDomainScanner):
    domain = "precision"
    triggers = ("float64", "torch.double", "complex128", "cdouble")
    scan_class = _DtypeFlowScan
