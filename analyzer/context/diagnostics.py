"""A CUDA test whose guarded code is only a debugging aid: on Ascend the test is false, the aid is skipped, and what
runs on the device is the same (reach `cosmetic` for the test; the aids it guards run only on CUDA).

audiocraft 896ec7c solvers/musicgen.py:365: `check_synchronization_points = idx == 1 and self.device == 'cuda'`, then
`if check_synchronization_points: torch.cuda.set_sync_debug_mode('warn')` ... `('default')`, and the flag handed to
`self._prepare_tokens_and_attributes(batch, check_synchronization_points)`, whose parameter gates the same switch
(`if self.device == "cuda" and check_synchronization_points:`, :321 and :346).

A statement is diagnostic when it calls a debugging or profiling aid (the conventions' diagnostic_calls), shows a
message (display.py's message calls), reads a clock into a name, releases a cache (whose own finding reports the
release), or makes a tensor and drops it (a device probe: `torch.zeros((2, 2)).cuda()` as a statement, the
conventions' probe_factories); a `for` loop of such statements is one too. A gate's code is a debugging aid when every statement is
diagnostic and at least one calls an aid (a body of messages alone is guards.py's "only guards a message"). A
synchronize is none, even before a clock read: porters give it an NPU arm (timm 234f9757 train.py:1057, `if
args.synchronize_step and device.type == 'cuda': torch.cuda.synchronize()` before `time_now = time.time()`, a line of
benchmarks/port_commits.toml); display.py's `if torch.cuda.is_available(): torch.cuda.synchronize()` right before a
clock read is its own narrower case.

The test must hold only on CUDA where the aid runs: a positive CUDA test that is the if-statement's condition or one
term of its `and` (not under `or` or `not`), with no elif or else, directly or through a name assigned such a test
(`flag = idx == 1 and self.device == "cuda"`) and tested as a term of an `and`. The test itself is cosmetic only when
everything it decides is such a gate: a name assigned it must be used, after the assignment in its function, only in
such gates or handed to a function of the same file (a method of the same class through `self.`) whose parameter is
used only in such gates. A flag handed anywhere else (a method a base class in another file defines) may decide more,
and the test stays what it is; the aids behind its own gates still run only on CUDA.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ascend_feasibility.analyzer.context.display import DisplaySites
from ascend_feasibility.analyzer.context.guards import Condition, _same
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.knowledge.models import GuardConventions
from tree_sitter import Node

MAX_NODES = 4000  # a walk over one function or body
MAX_USES = 20  # uses of a flag
MAX_LOOP_DEPTH = 3
MOVES = frozenset({"cuda", "to"})  # what moves a probe's tensor to the device
# what may surround an aid's value that a name keeps for a report: arithmetic, rounding, literals
FIGURE = " (a figure only reported)"
FIGURE_FUNCTIONS = frozenset({"round", "float", "int", "abs"})
FIGURE_PARTS = frozenset({"call", "argument_list", "attribute", "identifier", "binary_operator", "parenthesized_expression",
                          "integer", "float", "unary_operator", "keyword_argument"})
ASSIGNMENT_PARTS = {"boolean_operator", "parenthesized_expression", "comparison_operator", "call", "attribute",
                    "argument_list", "not_operator", "identifier", "string", "integer", "subscript"}


@dataclass(frozen=True)
class DebugAid:
    gates: tuple[Node, ...]  # the test's own gates whose code is a debugging aid: it runs only on CUDA
    whole: bool  # everything the test decides is such a gate (its own or a callee's)
    aids: tuple[str, ...]  # the aids' names, for the reason

    def reason(self, test: Node) -> str:
        if any(aid.endswith(FIGURE) for aid in self.aids):
            return (f"line {test.start_point.row + 1}: the test guards only debugging aids or figures a log, metric or "
                    f"progress event reports ({', '.join(self.aids)}); on Ascend the NPU shows no figure there, and what "
                    "runs on the device is the same")
        return (f"line {test.start_point.row + 1}: the test guards only a debugging aid ({', '.join(self.aids)}); "
                "on Ascend the aid is skipped and what runs on the device is the same")


class DebugAids:
    def __init__(self, guards: GuardConventions, display: DisplaySites, condition: Callable[[Node], Condition]) -> None:
        self.names = frozenset(n for n in guards.diagnostic_calls if not n.endswith(".*"))
        self.spaces = tuple(n[:-1] for n in guards.diagnostic_calls if n.endswith(".*"))  # "torch.cuda.nvtx."
        self.clock_calls = frozenset(guards.clock_calls)
        self.companions = frozenset(guards.release_companions)  # a synchronize: makes a memory figure exact
        self.probe_factories = frozenset(guards.probe_factories)
        self.display = display
        self.condition = condition

    def guarded(self, test: Node, statement: Node | None, imports: ImportTable, released: frozenset[int]) -> DebugAid | None:
        """What the CUDA test at `test` guards, when it is a debugging aid: `statement` is the if-statement whose
        condition holds the test, or None for a test assigned to a name."""
        if statement is not None:
            condition = statement.child_by_field_name("condition")
            aids = self._gate_aids(statement, imports, released)
            if condition is None or aids is None or not self._cuda_term(test, condition):
                return None
            return DebugAid((statement,), True, aids)
        assignment = _assignment_of(test)
        if assignment is None or not self._cuda_term(test, assignment.child_by_field_name("right")):
            return None
        name = parsing.text(assignment.child_by_field_name("left"))
        own, whole, aids = [], True, set()
        for use in _uses_after(assignment, name):
            gate = _gate_of(use)
            found = self._gate_aids(gate, imports, released) if gate is not None else None
            if found is not None:
                own.append(gate)
                aids.update(found)
                continue
            handed = self._handed_aids(use, imports, released)
            if handed is None:
                whole = False
            else:
                aids.update(handed)
        if not own and not (whole and aids):
            return None
        return DebugAid(tuple(own), whole and bool(aids), tuple(sorted(aids)))

    # a gate and its code -------------------------------------------------------------------------------------
    def _gate_aids(self, statement: Node, imports: ImportTable, released: frozenset[int]) -> tuple[str, ...] | None:
        """The aids an if-statement without elif guards, when its body is a debugging aid. An else arm may only
        put a placeholder where the body puts a figure (`else: peak_mem.append(0)`, `else: vram_mb = 0`): the
        report then shows 0 off CUDA, and nothing else differs."""
        if statement.type != "if_statement" or any(c.type == "elif_clause" for c in statement.children):
            return None
        body = statement.child_by_field_name("consequence")
        others = [c.child_by_field_name("body") for c in statement.children if c.type == "else_clause"]
        if body is None or not all(other is not None and _placeholders(other) for other in others):
            return None
        aids: set[str] = set()
        syncs: list[Node] = []
        if not self._diagnostic(body, imports, released, aids, 0, syncs) or not aids:
            return None
        if syncs and self._clock_follows(statement):
            return None  # the synchronize also times what the clock read next measures: porters keep it
        return tuple(sorted(aids))

    def _clock_follows(self, statement: Node) -> bool:
        """The statement after the gate (comments skipped) reads a clock."""
        following = parsing.next_code_sibling(statement)
        if following is None:
            return False
        for node in parsing.walk(following, limit=MAX_NODES):
            function = node.child_by_field_name("function") if node.type == "call" else None
            if function is not None and parsing.text(function) in self.clock_calls:
                return True
        return False

    def _diagnostic(self, block: Node, imports: ImportTable, released: frozenset[int], aids: set[str], depth: int,
                    syncs: list[Node] | None = None) -> bool:
        """`syncs`: where given, a synchronize right before an aid's statistic may stand beside it (collected
        there): it only makes the statistic exact (`torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(
        device)`), unless a clock read follows the gate (_gate_aids). One after the statistic waits for the device
        (rules_torch_cuda.toml's DEV104 example)."""
        for statement in (s for s in block.named_children if s.type != "comment"):
            if statement.type == "pass_statement" or self._reads_clock_into_name(statement):
                continue
            figure = self._reported_figure(statement, imports) or self._appended_figure(statement, imports)
            if figure is not None:
                aids.add(figure)
                continue
            if statement.type == "for_statement" and depth < MAX_LOOP_DEPTH:
                body = statement.child_by_field_name("body")
                if body is None or not self._diagnostic(body, imports, released, aids, depth + 1):
                    return False
                continue
            call = _call_statement(statement)
            if call is None:
                return False
            if statement.start_point.row in released:
                continue
            function = call.child_by_field_name("function")
            if syncs is not None and function is not None and function.type in {"attribute", "identifier"} \
                    and qualified_name(function, imports) in self.companions:
                if not self._statistic_next(statement, imports):
                    return False  # a synchronize after the statistic, or alone: it waits for the device
                syncs.append(call)
                continue
            name = self._aid(call, imports) or self._probe(call, imports)
            if name is not None:
                aids.add(name)
            elif self.display.is_message_call(call):
                aids.update(self._aids_within(call, imports))
            else:
                return False
        return True

    def _statistic_next(self, statement: Node, imports: ImportTable) -> bool:
        """The statement after `statement` (comments skipped) reads or resets a memory statistic: an aid's call or a
        figure (`torch.cuda.synchronize()` then `torch.cuda.reset_peak_memory_stats(device)`)."""
        following = parsing.next_code_sibling(statement)
        if following is None:
            return False
        if self._reported_figure(following, imports) or self._appended_figure(following, imports):
            return True
        call = _call_statement(following)
        return call is not None and self._aid(call, imports) is not None

    def _aid(self, call: Node, imports: ImportTable) -> str | None:
        function = call.child_by_field_name("function")
        name = qualified_name(function, imports) if function is not None and function.type in {"attribute", "identifier"} else None
        if name is None:
            return None
        return name if name in self.names or name.startswith(self.spaces) else None

    def _probe(self, call: Node, imports: ImportTable) -> str | None:
        """A call statement that makes a tensor and drops it (`torch.zeros((2, 2)).cuda()`, `torch.empty(1,
        device="cuda")`): its factory's name."""
        function = call.child_by_field_name("function")
        if function is not None and function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) in MOVES:
            inner = function.child_by_field_name("object")  # `.cuda()` / `.to(...)` on the made tensor
            if inner is not None and inner.type == "call":
                call, function = inner, inner.child_by_field_name("function")
        if function is None or function.type not in {"attribute", "identifier"}:
            return None
        name = qualified_name(function, imports)
        return f"{name} (a device probe)" if name in self.probe_factories else None

    def _aids_within(self, call: Node, imports: ImportTable) -> set[str]:
        """The aids a message shows (`logger.warning(torch.cuda.memory_summary(device=i))`)."""
        found = set()
        for node in parsing.walk(call.child_by_field_name("arguments"), limit=MAX_NODES):
            if node.type == "call":
                name = self._aid(node, imports)
                if name is not None:
                    found.add(name)
        return found

    def _reported_figure(self, statement: Node, imports: ImportTable) -> str | None:
        """`peak_gb = round(torch.cuda.max_memory_allocated() / 1e9, 2)`: a name given an aid's value (a memory
        statistic), with plain arithmetic around it, and afterwards only shown or handed on as a named field of a call
        or a dict (a progress event's `peak_memory_gb=peak_gb or None`, `{"peak_mem": peak_gb}`), never tested or passed
        by position: a figure for a log, metric or user interface (round 17: unsloth studio's trainers). The aid's
        name, marked so, or None."""
        assignment = parsing.statement_assignment(statement)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if left is None or left.type != "identifier" or right is None:
            return None
        found = self._figure(right, imports)
        uses = _uses_after(_placeholder_gate(statement) or assignment, parsing.text(left)) if found is not None else []
        if not uses or not all(self._reported(use) for use in uses):
            return None
        return found + FIGURE

    def _figure(self, value: Node, imports: ImportTable) -> str | None:
        """The aid whose value `value` is, with plain arithmetic and rounding around it; None for anything else."""
        found = None
        for node in parsing.walk(value, limit=200):
            if node.type == "call":
                name = self._aid(node, imports)
                if name is not None:
                    found = name
                elif parsing.text(node.child_by_field_name("function")) not in FIGURE_FUNCTIONS:
                    return None
            elif node.type not in FIGURE_PARTS:
                return None
        return found

    def _appended_figure(self, statement: Node, imports: ImportTable) -> str | None:
        """`peak_mem.append(torch.cuda.max_memory_allocated(device) / 2**20)` onto a list whose every later use is
        another append or a report (a named field of a call or a dict, or shown): a figure of a benchmark's table
        (round 27 B2 C2, A2 C12)."""
        call = _call_statement(statement)
        function = call.child_by_field_name("function") if call is not None else None
        arguments = call.child_by_field_name("arguments") if call is not None else None
        if function is None or function.type != "attribute" or arguments is None or len(arguments.named_children) != 1 \
                or parsing.text(function.child_by_field_name("attribute")) != "append":
            return None
        holder = function.child_by_field_name("object")
        found = self._figure(arguments.named_children[0], imports)
        if holder is None or holder.type != "identifier" or found is None:
            return None
        uses = _uses_after(statement, parsing.text(holder))
        if not uses or not all(_appended_to(use) or self._reported(use) for use in uses):
            return None
        return found + FIGURE

    def _reported(self, use: Node) -> bool:
        """The value of a keyword argument or a dict entry (through `or`, arithmetic and round()), or shown."""
        child, parent = use, use.parent
        while parent is not None and (parent.type in {"boolean_operator", "parenthesized_expression", "binary_operator"}
                                      or (parent.type == "argument_list" and parent.parent is not None
                                          and parsing.text(parent.parent.child_by_field_name("function")) in FIGURE_FUNCTIONS)):
            child, parent = (parent.parent, parent.parent.parent) if parent.type == "argument_list" else (parent, parent.parent)
        if parent is not None and parent.type in {"keyword_argument", "pair"} and _same(parent.child_by_field_name("value"), child):
            return True
        return self.display.shown(use)

    def _reads_clock_into_name(self, statement: Node) -> bool:
        """`t0 = time.perf_counter()`."""
        assignment = parsing.statement_assignment(statement)
        right = assignment.child_by_field_name("right") if assignment is not None else None
        function = right.child_by_field_name("function") if right is not None and right.type == "call" else None
        return function is not None and parsing.text(function) in self.clock_calls

    # the test ------------------------------------------------------------------------------------------------
    def _cuda_term(self, test: Node, top: Node | None) -> bool:
        """`test` (a comparison, `.startswith("cuda")`, `x.is_cuda`, `torch.cuda.is_available` of its call) is one
        term of `top`'s `and`, or all of `top`, and a positive CUDA test (not an argument of another call, not under
        `not` or `or`)."""
        if top is None:
            return False
        if test.parent is not None and test.parent.type == "call" and _same(test.parent.child_by_field_name("function"), test):
            test = test.parent
        if not any(_same(term, test) for term in _and_terms(top)):
            return False
        read = self.condition(test)
        return read.cuda and not read.npu and not read.negated

    # a flag handed to a function of the file -----------------------------------------------------------------
    def _handed_aids(self, use: Node, imports: ImportTable, released: frozenset[int]) -> set[str] | None:
        """`self._prepare(batch, flag)`: the aids the callee's parameter gates, when it is used only in gates of
        debugging aids; None when the callee is not in this file or uses the parameter otherwise."""
        parameter, function = _parameter_for(use)
        if parameter is None:
            return None
        uses = _uses_after(function.child_by_field_name("parameters"), parameter, scope=function)
        if not uses:
            return None
        found: set[str] = set()
        for inner in uses:
            gate = _gate_of(inner)
            aids = self._gate_aids(gate, imports, released) if gate is not None else None
            if aids is None:
                return None
            found.update(aids)
        return found


def _and_terms(node: Node) -> list[Node]:
    while node.type == "parenthesized_expression" and len(node.named_children) == 1:
        node = node.named_children[0]
    operator = node.child_by_field_name("operator") if node.type == "boolean_operator" else None
    if operator is not None and parsing.text(operator) == "and":
        return [t for side in node.named_children for t in _and_terms(side)]
    return [node]


def _appended_to(use: Node) -> bool:
    """`use.append(...)`."""
    parent = use.parent
    return (parent is not None and parent.type == "attribute" and _same(parent.child_by_field_name("object"), use)
            and parsing.text(parent.child_by_field_name("attribute")) == "append"
            and parent.parent is not None and parent.parent.type == "call")


def _placeholder_gate(statement: Node) -> Node | None:
    """The if-statement whose body holds `statement` and whose else arm only puts placeholders (`else: vram_mb = 0`):
    the name's uses that matter follow the whole statement."""
    block = statement.parent
    gate = block.parent if block is not None else None
    if gate is None or gate.type != "if_statement" or not _same(gate.child_by_field_name("consequence"), block):
        return None
    others = [c.child_by_field_name("body") for c in gate.children if c.type in {"elif_clause", "else_clause"}]
    return gate if len(others) == 1 and others[0] is not None and _placeholders(others[0]) else None


def _placeholders(block: Node) -> bool:
    """Every statement puts a number or None into a name or a list: `vram_mb = 0`, `peak_mem.append(0)`."""
    statements = [s for s in block.named_children if s.type != "comment"]
    for statement in statements:
        assignment = parsing.statement_assignment(statement)
        if assignment is not None:
            left, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
            if left is None or left.type != "identifier":
                return False
        else:
            call = _call_statement(statement)
            function = call.child_by_field_name("function") if call is not None else None
            arguments = call.child_by_field_name("arguments") if call is not None else None
            if function is None or function.type != "attribute" or arguments is None or len(arguments.named_children) != 1 \
                    or parsing.text(function.child_by_field_name("attribute")) != "append":
                return False
            value = arguments.named_children[0]
        if value is None or value.type not in {"integer", "float", "none"}:
            return False
    return bool(statements)


def _call_statement(statement: Node) -> Node | None:
    call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    return call if call is not None and call.type == "call" else None


def _assignment_of(test: Node) -> Node | None:
    """The `name = <expression holding the test>` statement's assignment."""
    current, depth = test, 0
    while current.parent is not None and current.parent.type in ASSIGNMENT_PARTS and depth < 12:
        current, depth = current.parent, depth + 1
    parent = current.parent
    if parent is None or parent.type != "assignment" or not _same(parent.child_by_field_name("right"), current):
        return None
    left = parent.child_by_field_name("left")
    holder = parent.parent
    if left is None or left.type != "identifier" or holder is None or holder.type != "expression_statement":
        return None
    return parent


def _uses_after(start: Node | None, name: str, scope: Node | None = None) -> list[Node]:
    """The mentions of `name` after `start` in its function (or module); empty when there are too many to read or
    the name is bound again."""
    if start is None:
        return []
    if scope is None:
        scope = parsing.enclosing(start, {"function_definition", "module"})
    if scope is None:
        return []
    uses = []
    try:
        for node in parsing.walk(scope, limit=MAX_NODES, strict=True):
            if node.type == "identifier" and node.start_byte >= start.end_byte and parsing.text(node) == name:
                parent = node.parent
                if parent is not None and parent.type in {"assignment", "augmented_assignment"} and _same(parent.child_by_field_name("left"), node):
                    return []
                if parent is not None and parent.type == "attribute" and not _same(parent.child_by_field_name("object"), node):
                    continue  # `x.name`: another thing of that name
                if parent is not None and parent.type == "keyword_argument" and _same(parent.child_by_field_name("name"), node):
                    continue  # `f(name=...)`: the keyword, not a use
                uses.append(node)
    except parsing.WalkLimit:
        return []
    if len(uses) > MAX_USES:
        return []
    return sorted(uses, key=lambda n: n.start_byte)


def _gate_of(name: Node) -> Node | None:
    """The if-statement whose condition has this name as one term of its `and` (or as the whole condition)."""
    child, parent = name, name.parent
    while parent is not None and parent.type in {"boolean_operator", "parenthesized_expression"}:
        child, parent = parent, parent.parent
    if parent is None or parent.type != "if_statement" or not _same(parent.child_by_field_name("condition"), child):
        return None
    return parent if any(_same(t, name) for t in _and_terms(child)) else None


def _parameter_for(use: Node) -> tuple[str | None, Node | None]:
    """The parameter a call of a function of this file (`f(x)` at module level, `self.m(x)` in the same class)
    binds the argument `use` to."""
    holder = use.parent
    keyword = None
    if holder is not None and holder.type == "keyword_argument" and _same(holder.child_by_field_name("value"), use):
        keyword, holder = parsing.text(holder.child_by_field_name("name")), holder.parent
    call = holder.parent if holder is not None and holder.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if function is None:
        return None, None
    definition, skip = _callee(function)
    parameters = definition.child_by_field_name("parameters") if definition is not None else None
    if parameters is None:
        return None, None
    names = [_parameter_name(p) for p in parameters.named_children]
    if keyword is not None:
        return (keyword, definition) if keyword in names else (None, None)
    arguments = holder.named_children
    if any(a.type in {"list_splat", "dictionary_splat", "keyword_argument"} for a in arguments[:arguments.index(use)]):
        return None, None
    position = skip + [i for i, a in enumerate(arguments) if _same(a, use)][0]
    if position >= len(names) or names[position] is None:
        return None, None
    return names[position], definition


def _parameter_name(parameter: Node) -> str | None:
    if parameter.type == "identifier":
        return parsing.text(parameter)
    if parameter.type in {"typed_parameter", "default_parameter", "typed_default_parameter"}:
        name = parameter.child_by_field_name("name") or (parameter.named_children[0] if parameter.named_children else None)
        return parsing.text(name) if name is not None and name.type == "identifier" else None
    return None


def _callee(function: Node) -> tuple[Node | None, int]:
    """The definition a call names in this file, and how many leading parameters the call does not pass (`self`)."""
    if function.type == "identifier":
        root = parsing.root_of(function)
        return _defined(root, parsing.text(function)), 0
    receiver = function.child_by_field_name("object") if function.type == "attribute" else None
    if receiver is None or parsing.text(receiver) != "self":
        return None, 0
    owner = function.parent
    while owner is not None and owner.type != "class_definition":
        owner = owner.parent
    body = owner.child_by_field_name("body") if owner is not None else None
    return (_defined(body, parsing.text(function.child_by_field_name("attribute"))), 1) if body is not None else (None, 0)


def _defined(block: Node, name: str) -> Node | None:
    for child in block.named_children:
        target = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if target is not None and target.type == "function_definition":
            defined = target.child_by_field_name("name")
            if defined is not None and parsing.text(defined) == name:
                return target
    return None
