"""The project's own NPU arm beside a site that is not inside it: the site is `npu-path` when the arm is the port.

Two shapes, both read only in files that mention NPU:
- a library whose NPU mode the project already selects: an import (`from yunchang.kernels import AttnType`) one of
  whose names has its NPU member picked in the arm of an NPU test (`if IS_NPU_AVAILABLE: attn_type = AttnType.NPU`,
  DiffSynth's xdit_context_parallel.py): the project drives the library on NPU, so the import is no porting gap;
- a value the site computes that meets, in a later statement of the same function, a name the function assigns under
  an NPU test (`freqs = freqs.to(torch.complex64) if freqs.device.type == "npu" else freqs` before
  `x_out * freqs`, DiffSynth's rope_apply): the project has adapted this computation for NPU.
A function that merely has some NPU test elsewhere proves nothing about the site: the arm must touch the site's
library or the site's value.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import Guard, GuardReader
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 200_000
MAX_STATEMENTS = 200
IMPORTS = {"import_statement", "import_from_statement"}
ARMS = {"if_statement", "elif_clause", "conditional_expression"}
COMBINING = {"binary_operator", "call"}  # where two values meet (a tuple or a return list only carries them)


class NpuArms:
    def __init__(self, guards: GuardReader) -> None:
        self.guards = guards
        self._used: dict[str, Node] | None = None  # names whose NPU member an NPU arm of the unit picks → the arm
        self._mentions: bool | None = None
        self._arms: dict[int, dict[Node, set[str]]] = {}  # function body → its statements assigning under NPU tests
        guards.unit_resets.append(self._forget_unit)

    def _forget_unit(self) -> None:
        self._used = None
        self._mentions = None
        self._arms = {}

    def guard(self, node: Node) -> Guard | None:
        if not self._mentions_npu(node):
            return None
        statement = _enclosing_import(node)
        if statement is not None:
            return self._library_arm(statement)
        return self._value_arm(node)

    def _mentions_npu(self, node: Node) -> bool:
        if self._mentions is None:
            self._mentions = b"npu" in (parsing.root_of(node).text or b"").lower()
        return self._mentions

    # an imported library used in an NPU arm --------------------------------------------------------------------
    def _library_arm(self, statement: Node) -> Guard | None:
        used = self._names_in_npu_arms(statement)
        for name in statement.children_by_field_name("name"):
            bound = parsing.import_bound_name(statement, name)
            arm = used.get(bound)
            if arm is not None:
                return Guard("npu-path", arm, f"the project already picks {bound}'s NPU member in its NPU arm")
        return None

    def _names_in_npu_arms(self, node: Node) -> dict[str, Node]:
        if self._used is None:
            self._used = {}
            for arm in parsing.walk(parsing.root_of(node), limit=MAX_NODES):
                if arm.type not in ARMS:
                    continue
                condition, taken = _condition_and_arm(arm)
                if condition is None or taken is None or not self._npu_test(condition):
                    continue
                for used in parsing.walk(taken, limit=MAX_NODES):
                    name = self._npu_member(used)
                    if name is not None:
                        self._used.setdefault(name, arm)
        return self._used

    def _npu_member(self, node: Node) -> str | None:
        """`AttnType.NPU`, `Backend.npu_ring`: the name whose NPU member the arm picks (a name merely read there,
        `torch` in `torch.npu.synchronize()` included, says nothing about the library's NPU support)."""
        if node.type != "attribute":
            return None
        holder, member = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if holder is None or member is None or holder.type != "identifier":
            return None
        words = set(parsing.text(member).lower().split("_"))
        return parsing.text(holder) if words & self.guards.npu_tokens and parsing.text(holder) != "torch" else None

    def _npu_test(self, condition: Node) -> bool:
        held = self.guards.condition(condition)
        return held.npu and not held.negated

    # a value that meets a name assigned under an NPU test ------------------------------------------------------
    def _value_arm(self, node: Node) -> Guard | None:
        statement = node
        while statement.parent is not None and not (
                statement.parent.type == "block" and statement.parent.parent is not None
                and statement.parent.parent.type == "function_definition"):
            statement = statement.parent
        if statement.parent is None:
            return None
        arms = self._function_arms(statement.parent)
        if not arms:
            return None  # the common case: no statement of the function assigns under an NPU test
        at = statement.start_byte
        adapted = {name: test for test in arms if test.start_byte < at for name in arms[test]}
        around = node
        while around is not None and around is not statement:
            if around.type in COMBINING:
                own = set(adapted) & _identifiers(around)
                if own:
                    name = sorted(own)[0]
                    return Guard("npu-path", adapted[name], f"the project's NPU arm adapts {name}, which this computation uses")
            around = around.parent
        produced = _assigned(statement)
        later = statement.next_named_sibling
        for _ in range(MAX_STATEMENTS):
            if later is None or not produced:
                return None
            read = _read_names(later)
            for name, test in adapted.items():
                if name in read and name not in produced and _meets(later, produced, name):
                    return Guard("npu-path", test, f"the project's NPU arm adapts {name}, which meets this value at "
                                                   f"line {later.start_point.row + 1}")
            adapted.update({n: later for n in arms.get(later, ())})
            produced |= _assigned(later) if read & produced else set()
            later = later.next_named_sibling
        return None

    def _function_arms(self, body: Node) -> dict[Node, set[str]]:
        """The statements of a function body that assign under an NPU test → the names (read once per body)."""
        key = body.id
        if key not in self._arms:
            self._arms[key] = {line: names for line in body.named_children[:MAX_STATEMENTS * 5]
                               if (names := self._npu_assigned(line))}
        return self._arms[key]

    def _npu_assigned(self, statement: Node) -> set[str]:
        """`name = a if <NPU test> else b` / `if <NPU test>: name = ...`: the names so assigned."""
        found: set[str] = set()
        assignment = parsing.statement_assignment(statement)
        if assignment is not None:
            right = assignment.child_by_field_name("right")
            if right is not None and right.type == "conditional_expression" and len(right.named_children) >= 3 \
                    and self._npu_test(right.named_children[1]):
                found |= _assigned(statement)
        elif statement.type == "if_statement":
            condition = statement.child_by_field_name("condition")
            body = statement.child_by_field_name("consequence")
            if condition is not None and body is not None and self._npu_test(condition):
                for line in body.named_children:
                    found |= _assigned(line)
        return found


def _enclosing_import(node: Node) -> Node | None:
    current, depth = node, 0
    while current is not None and depth < 6:
        if current.type in IMPORTS:
            return current
        current, depth = current.parent, depth + 1
    return None


def _condition_and_arm(arm: Node) -> tuple[Node | None, Node | None]:
    if arm.type == "conditional_expression":
        parts = arm.named_children
        return (parts[1], parts[0]) if len(parts) >= 3 else (None, None)
    return arm.child_by_field_name("condition"), arm.child_by_field_name("consequence")


def _assigned(statement: Node) -> set[str]:
    assignment = parsing.statement_assignment(statement)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    if left is None:
        return set()
    if left.type == "identifier":
        return {parsing.text(left)}
    if left.type in {"pattern_list", "tuple_pattern"}:
        return {parsing.text(c) for c in left.named_children if c.type == "identifier"}
    return set()


def _read_names(statement: Node) -> set[str]:
    assignment = parsing.statement_assignment(statement)
    scope = assignment.child_by_field_name("right") if assignment is not None else statement
    return {parsing.text(n) for n in parsing.walk(scope, limit=2000, enter_root=True)
            if n.type == "identifier"} if scope is not None else set()


def _identifiers(node: Node) -> set[str]:
    return {parsing.text(n) for n in parsing.walk(node, limit=2000) if n.type == "identifier"}


def _meets(statement: Node, produced: set[str], name: str) -> bool:
    """Do `name` and one of `produced` meet in one operation (`x_out * freqs`, `f(x_out, freqs)`) of the statement?"""
    for node in parsing.walk(statement, limit=2000):
        if node.type in COMBINING:
            found = _identifiers(node)
            if name in found and found & produced:
                return True
    return False
