"""Features that switch themselves off outside CUDA: a class one of whose methods sets a flag of its own False (or a
handle None) under a device test that excludes NPU, and whose other code runs only while the flag is set.

composer's MemorySnapshot and OOMObserver callbacks: `init` reads the model's device and, `if model_device.type not in
('cuda', 'meta')`, warns and sets `self._enabled = False`; batch_start and batch_end return unless `self._enabled`, and
the OOM hook is registered only `if self._enabled:`. On an NPU (ported natively, or under transfer_to_npu, where the
device type is still `npu`) nothing behind the flag runs: those sites are `cuda-only-guarded`, with the gate in their
reason. The gate itself (a device test with no NPU arm) stays a finding of its own.

The switch is `self.X` when some method assigns `self.X = False` (or `None`) in the body of an if/elif whose condition
is a CUDA test that excludes NPU (`device.type != "cuda"`, `not torch.cuda.is_available()`), or in the else of a
positive one (`if device.type == "cuda": ... else:`), when that branch only warns or logs that the feature is off
(besides such assignments and a return: a silent `self.scaler = None` is a fallback the port gives an NPU arm), and no
method but `__init__` sets it to anything else outside the gate's CUDA arm (a later `self.X = True` would turn it back
on). Or the "returns" shape: `__init__` sets `self.X = False`/`None`, and the one method that sets it to anything else
does so only after `if <that CUDA test>: warn(...); return`.
Where a site sits is switches.py's reading (the branch a true `self.X` takes, after `if not self.X: return`, or a
method every call of which in the file is so reached), with two additions: `if self.X is None: return` / `if self.X
is not None:` for a handle, and a function nested in a method that the method only passes on (a callback it
registers) is reached where those references are. In the gate's own method a test of the flag counts only after the
gate: before it the flag is still on.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import WARNINGS, Guard, GuardReader
from ascend_feasibility.analyzer.context.switches import (
    MAX_CLASS_NODES,
    ExplainedGuard,
    SwitchReader,
    _enclosing,
    _nested,
    exit_ifs_before,
)
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

OFF_VALUES = frozenset({"False", "None"})
OFF_LENGTHS = frozenset(len(value) for value in OFF_VALUES)
ASSIGNMENTS = "(assignment) @assignment"
MAX_REFERENCE_NODES = 20000
_ASSIGNMENT = frozenset({"assignment"})  # the class's walk reads an assignment whole


class DeviceOffSwitches(SwitchReader):
    def __init__(self, guards: GuardReader) -> None:
        # switches.py's state, without its hooks into the guard reader (on_by_default stays the opt-in reader's)
        self.guards = guards
        self.argument_objects = frozenset()
        self.mainstream = frozenset()
        self.feature_tokens = frozenset()
        self._feature = True
        self._options = None
        self._memo = {}
        guards.unit_resets.append(self._forget_unit)

    def guard(self, node: Node, feature: bool = True) -> Guard | None:
        """The gate when the site runs only while a flag its class switches off outside CUDA is on."""
        cls = _enclosing(node, "class_definition")
        if cls is None or not self._switches(cls):  # read once per class: most classes have none
            return None
        return self._reached(node, 0)

    # the switches ------------------------------------------------------------------------------------------------
    def _switches(self, cls: Node) -> dict[str, tuple[Node, Node, str]]:
        return self._remember(("off", cls.id), lambda: _device_off_switches(cls, self._excludes_npu))

    def _excludes_npu(self, condition: Node, negated: bool) -> bool:
        """A CUDA test without an NPU arm, read the way round the branch needs (`negated`: the body runs off CUDA)."""
        read = self.guards.condition(condition)
        return read.cuda and not read.npu and not read.other and read.negated == negated

    # what a test of the flag says ------------------------------------------------------------------------------
    def _on(self, condition: Node | None, statement: Node) -> ExplainedGuard | None:
        if condition is None:
            return None
        found = self._remember(("on", condition.id), lambda: self._switch(condition, 0))
        return ExplainedGuard("cuda-only-guarded", found[0], why=found[1]) if found is not None else None

    def _switch_term(self, node: Node, depth: int):
        if node.type == "comparison_operator":  # `self.handle is not None`
            node = _none_compared(node, "is not")
            if node is None:
                return None
        if node.type != "attribute":
            return None
        holder, attribute = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        cls = _enclosing(node, "class_definition")
        if holder is None or attribute is None or parsing.text(holder) != "self" or cls is None:
            return None
        name = parsing.text(attribute)
        gate = self._switches(cls).get(name)
        if gate is None:
            return None
        statement, method, value = gate
        if method.start_byte <= node.start_byte < statement.end_byte:
            return None  # a test in the gate's method before the gate: the flag is still on there
        why = (f"`self.{name}` is {value} on any device but CUDA, "
               "and this runs only while it is set")
        return statement, why

    def _early_exit(self, child: Node) -> ExplainedGuard | None:
        """`if not self.X: return` or `if self.X is None: return` before the site."""
        for statement, condition, _, _ in exit_ifs_before(child):
            tested = None
            if condition.type == "not_operator":
                tested = condition.child_by_field_name("argument")
            elif condition.type == "comparison_operator":
                tested = _none_compared(condition, "is")
            found = self._on(tested, statement) if tested is not None else None
            if found is not None:
                return found
        return None

    def _calls_of(self, function: Node) -> list[Node]:
        """Calls as switches.py reads them; for a function nested in a method and never called, the places the
        method passes it on (`register_hook(oom_observer)`)."""
        calls = super()._calls_of(function)
        if calls or not _nested(function):
            return calls
        name_node, outer = function.child_by_field_name("name"), _enclosing(function, "function_definition")
        body = outer.child_by_field_name("body") if outer is not None else None
        if name_node is None or body is None:
            return calls
        name = parsing.text(name_node)
        return [current for current in parsing.walk(body, limit=MAX_REFERENCE_NODES, prune=lambda n: n.id == function.id)
                if current.type == "identifier" and parsing.text(current) == name]


def _none_compared(condition: Node, operator: str) -> Node | None:
    """X of `X is None` (operator "is") or `X is not None` ("is not")."""
    parts = condition.named_children
    operators = [c.type for c in condition.children if not c.is_named]
    if len(parts) == 2 and parts[1].type == "none" and operators == [operator]:
        return parts[0]
    return None


def _sets_off(cls: Node) -> bool:
    """Whether the class assigns False or None to a `self.<name>` anywhere: every gate, and every value `__init__`
    leaves a flag at, is such an assignment. A query finds the assignments (most classes make none, and need no walk)."""
    for assignment in parsing.captures(parsing.query("python", ASSIGNMENTS), cls).get("assignment", []):
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if right is not None and right.end_byte - right.start_byte in OFF_LENGTHS and parsing.text(right) in OFF_VALUES:
            text = parsing.text(left) if left is not None else ""
            if text.startswith("self.") and text.count(".") == 1:
                return True
    return False


def _device_off_switches(cls: Node, excludes_npu) -> dict[str, tuple[Node, Node, str]]:
    """name → (the gate, its method, the value that leaves it off) for each `self.<name>` the class switches off
    outside CUDA: set False/None under the gate, or set on only after a gate that returns (`if device.type !=
    "cuda": warn(...); return` ... `self.handle = open(...)`) while `__init__` leaves it False/None."""
    if not _sets_off(cls):
        return {}
    gates: dict[str, tuple[Node, Node, str]] = {}
    initial: dict[str, str] = {}  # what __init__ sets it to, when that is False/None
    others: dict[str, list[Node]] = {}  # set on, or to a value not known, outside __init__
    returning: set[str] = set()
    for current in parsing.walk(cls, limit=MAX_CLASS_NODES, prune=_ASSIGNMENT):
        if current.type == "assignment":
            left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
            text = parsing.text(left) if left is not None else ""
            if right is not None and text.startswith("self.") and text.count(".") == 1:
                name, value = text[5:], parsing.text(right)
                method = _enclosing(current, "function_definition")
                method_name = method.child_by_field_name("name") if method is not None else None
                in_init = method_name is not None and parsing.text(method_name) == "__init__"
                if value not in OFF_VALUES:
                    if not in_init:
                        others.setdefault(name, []).append(current)
                elif in_init:
                    initial.setdefault(name, value)
                elif method is not None and name not in gates:
                    gate = _gate_of(current, method, excludes_npu)
                    if gate is not None:
                        gates[name] = (gate, method, value)
    for name, assignments in others.items():
        if name in gates or name not in initial:
            continue
        method = _enclosing(assignments[0], "function_definition")
        gate = _returning_gate(assignments[0], method, excludes_npu) if method is not None else None
        if gate is not None and all(gate.end_byte <= a.start_byte < method.end_byte for a in assignments):
            gates[name] = (gate, method, initial[name])
            returning.add(name)
    # the gate may set it on where the device is CUDA: in its CUDA arm, or after it returns
    return {name: gate for name, gate in gates.items() if name in returning
            or all(gate[0].start_byte <= other.start_byte < gate[0].end_byte for other in others.get(name, []))}


def _returning_gate(assignment: Node, method: Node, excludes_npu) -> Node | None:
    """An if-statement before the assignment (in its block or an enclosing one, within its method) that returns
    off CUDA after saying so."""
    child = assignment
    while child.parent is not None and child.id != method.id:
        if child.parent.type == "block":
            for statement, condition, body, last in exit_ifs_before(child):
                if last == "return_statement" and excludes_npu(condition, True) and _announces_off(body):
                    return statement
        child = child.parent
    return None


def _gate_of(assignment: Node, method: Node, excludes_npu) -> Node | None:
    """The if-statement around the assignment (the nearest one, within its method) that runs it only off CUDA."""
    child, parent = assignment, assignment.parent
    while parent is not None and parent.id != method.id:
        if parent.type in {"if_statement", "elif_clause"} and child.type == "block" \
                and child.id == getattr(parent.child_by_field_name("consequence"), "id", None):
            condition = parent.child_by_field_name("condition")
            statement = parent if parent.type == "if_statement" else parent.parent
            return statement if condition is not None and excludes_npu(condition, True) and _announces_off(child) else None
        if parent.type == "else_clause":
            statement = parent.parent
            arms = [c for c in statement.children if c.type == "elif_clause"] if statement is not None else [None]
            condition = statement.child_by_field_name("condition") if statement is not None else None
            return (statement if condition is not None and not arms and excludes_npu(condition, False)
                    and _announces_off(child) else None)
        child, parent = parent, parent.parent
    return None


def _announces_off(block: Node) -> bool:
    """The branch only switches the feature off and says so: warnings or log calls (one at least), assignments of
    False/None to the class's attributes, a return. A silent `self.scaler = None` is a fallback the port mirrors
    with an NPU arm, not a feature that declares itself CUDA-only."""
    said = False
    for statement in (c for c in block.named_children if c.type != "comment"):
        if statement.type in {"return_statement", "pass_statement"}:
            continue
        inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if inner is not None and inner.type == "assignment":
            left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
            if left is None or right is None or not parsing.text(left).startswith("self.") or parsing.text(right) not in OFF_VALUES:
                return False
            continue
        function = inner.child_by_field_name("function") if inner is not None and inner.type == "call" else None
        if function is None or parsing.text(function).rsplit(".", 1)[-1] not in WARNINGS:
            return False
        said = True
    return said
