"""The reach of one site from the Python code around it: does it run on Ascend?

Walking up from the site, the first guard that decides wins:
- an if/elif chain (or a conditional expression) one of whose conditions checks for NPU: `npu-path`;
- the body of a check for another accelerator (`torch.version.hip`, `device.type == "mps"`, `is_xpu_available()`)
  or for a CUDA build of torch (`torch.version.cuda`): `other-backend`;
- the body of a CUDA check (`x.is_cuda`, `torch.cuda.is_available()`, `device.type == "cuda"`) around a CUDA-only
  feature (a kernel, a fused attention library) whose other branch is a fallback, not a `raise`; and test-skip
  decorators that need CUDA: `cuda-only-guarded`;
- the body of an availability gate (`is_flash_attn_2_available()`, `HAS_TRITON`), an import inside
  `try: ... except ImportError:`, a CUDA-only feature inside a `try` whose handler falls back: `optional`;
- the project's own NPU split, `try: import torch_npu ... except ImportError: ...`: the try body is what runs on
  Ascend (its imports are not optional there), the except arm is the other backends' code: `other-backend`.
The else branch of a check runs wherever the check is false, Ascend included: it decides nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ascend_feasibility.analyzer.context.dispatch_chains import backend_words, cuda_arm, dispatch_chain
from ascend_feasibility.analyzer.context.function_objects import function_names, may_be_function, tested_name
from ascend_feasibility.analyzer.context.import_succeeded import has_import_attempt, named_only_after_import
from ascend_feasibility.analyzer.context.literal_flags import IN_FUNCTION, literal_flag, substring_note
from ascend_feasibility.analyzer.context.predicate_helpers import PredicateHelpers
from ascend_feasibility.analyzer.context.shim_chains import shim_covered_device_choice
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import CALLS_QUERY, ImportTable
from ascend_feasibility.knowledge.models import BackendConventions, GuardConventions
from tree_sitter import Node

MAX_DEPTH = 400  # ancestors walked from a site; deeper nesting is read as ordinary code
MAX_CONDITION_NODES = 400
HELPER_DEPTH = 4  # predicate helpers read through helpers they call
MAX_CONSTANT_NODES = 200_000  # nodes of a unit walked for the occurrences of its constants
IMPORTS = {"import_statement", "import_from_statement", "future_import_statement"}
DECORATORS = "(decorator) @decorator"
ASSIGNMENTS = "(assignment) @assignment"
IMPORT_STATEMENTS_QUERY = "[(import_statement) (import_from_statement)] @import"


@dataclass(frozen=True)
class Guard:
    reach: str
    node: Node  # the statement that decided
    note: str = ""  # why that statement decides, where its first line does not say it

    def reason(self) -> str:
        first = parsing.text(self.node).splitlines()[0].strip() if self.node.text else ""
        if len(first) > 100:
            first = first[:97] + "..."
        return f"line {self.node.start_point.row + 1}: {first}" + (f" ({self.note})" if self.note else "")


FLAG_NOTE = "the switch `{name}`"  # a Guard's note naming the flag an optional arm needs (switches.switches_of_reason)


def flag_note(name: str) -> str:
    return FLAG_NOTE.format(name=name)


CALLED_ONLY_UNDER = "is called only under it"
_CALLED_ONLY_UNDER = re.compile(r"(?P<name>[A-Za-z_]\w*)\(\) " + re.escape(CALLED_ONLY_UNDER) + r" \(line ")


def public_callers_name(reason: str | None) -> str | None:
    """The public function a guard of its callers in one file decided for (GuardReader._callers_guard): the caller
    checks that no other file of the project names it."""
    found = _CALLED_ONLY_UNDER.search(reason or "")
    return found["name"] if found is not None else None


LIBRARY_CLASS_REASON = re.compile(r"line \d+: ([A-Za-z_][A-Za-z_0-9]*)")


def library_class_of(reason: str | None) -> str | None:
    """The class a library-class guard's reason names (GuardReader._library_class: `line 331: QKVFlashAttention`)."""
    found = LIBRARY_CLASS_REASON.fullmatch(reason or "")
    return found.group(1) if found else None


@dataclass(frozen=True)
class Condition:
    npu: bool = False
    other: bool = False
    cuda: bool = False
    gate: bool = False  # a library's availability (is_flash_attn_2_available(), HAS_TRITON)
    flag: bool = False  # an opt-in flag (config.use_triton, args.compile)
    negated: bool = False


class GuardReader:
    def __init__(self, guards: GuardConventions, backends: BackendConventions, disabled_values: tuple[str, ...] = ()) -> None:
        self.guards = guards
        self.npu_tokens = frozenset(backends.npu)
        self.npu_packages = frozenset(backends.npu_packages)
        self.other_tokens = frozenset(backends.other)
        self.definition_names = frozenset(backends.definition_names)
        self.platform_gates = frozenset(backends.platform_gates)
        self.cuda_tokens = frozenset(t for name in guards.cuda for t in name.lower().split("_") if t != "is" and t != "use")
        self.dispatch_words = backend_words(guards, backends)
        self.feature_domains = frozenset(guards.cuda_only_feature_domains)
        self.import_errors = frozenset(guards.import_errors)
        self.cuda_only_packages = frozenset(guards.cuda_only_packages)
        self.broad_errors = frozenset(guards.broad_errors)  # handlers that catch whatever a CUDA error class would
        self.flag_rules = frozenset(guards.flag_rules)
        self.cuda_only_rules = frozenset(guards.cuda_only_rules)  # CUDA-only things: guarded like a CUDA-only feature
        self.cuda_only_choices = frozenset(guards.cuda_only_choices)
        self.fallback_features = frozenset(guards.fallback_features)
        from ascend_feasibility.analyzer.context.oom_text import OomTextReader  # it builds on Guard
        self.oom_text = OomTextReader(guards.cuda_error_texts)  # fallbacks behind CUDA's OOM message text
        self._selecting = False  # reading a chooser's own conditions (_selected_by_gates)
        self.disabled_values = frozenset(disabled_values)  # values that switch a setting off (`!= NO`: opt-in)
        self._registers_npu_here: tuple[tuple[int, int], bool] | None = None
        self._conditions: dict[tuple[int, int, int], Condition] = {}
        self.predicates = PredicateHelpers()  # the file's one-return helpers a condition calls (predicate_helpers.py)
        self._helper_depth = 0
        self._calls: dict[str, list[Node]] | None = None
        self._after_import: dict[int, Guard | None] = {}  # _named_after_import, by the definition's start (per unit)
        self._import_attempt: bool | None = None  # the unit holds a CUDA-only import attempt (has_import_attempt)
        self._method_bindings: dict[str, list[Node]] | None = None  # method_bindings
        self._assignments_read: tuple[Node, list[Node]] | None = None  # _assignments
        self._import_table: tuple[Node, ImportTable] | None = None  # _imports_of
        # the unit's CALLS_QUERY captures, when its combined query has them (set per unit by the core)
        self.unit_calls: Callable[[], dict[str, list[Node]]] | None = None
        # the unit's tree and its import statements in source order, when its combined query has them (set per unit
        # by the core): import_statements reads them from there
        self.unit_imports: Callable[[], tuple[Node, list[Node]]] | None = None
        # the unit's tree and its assignments in source order, from its combined query (set per unit by the core)
        self.unit_assignments: Callable[[], tuple[Node, list[Node]]] | None = None
        self._walks: dict[tuple[int, bool, bool], tuple[Guard | None, int | None]] = {}  # guard_of's memory
        self._literal_flags: dict[int, tuple[bool, Node, bool] | None] = {}  # a condition's literal flag
        self._flag_assignments: dict[tuple[int, str], Node | None] = {}  # a tested name's only assignment (literal_flags)
        self._function_names: frozenset[str] | None = None  # names the unit binds only to a function (function_objects.py)
        self._import_options: frozenset[str] | None = None  # the option tests guarding an import in the unit
        self._wheel_picker: tuple[int, Guard | None] | None = None  # the unit's CUDA-wheel picker gate (_cuda_wheel_picker)
        self.versions = None  # a versions.VersionReader at the target torch: branches that cannot run there
        # does an opt-in flag's condition default on (`use_flash_attn=True`)? then it is no opt-in (switches.py)
        self.on_by_default: Callable[[Node], bool] | None = None
        self.unit_resets: list[Callable[[], None]] = []  # readers built on this one that remember a unit too

    def guard_of_import(self, statement: Node) -> Guard | None:
        """An import of a CUDA-only feature: guarded where it stands, or inside a helper function every call of
        which (in the same file) is guarded: `def dtw_cuda(x): from .triton_ops import dtw_kernel` called only under
        `if x.is_cuda: try: ... except: fallback`."""
        if statement.parent is not None and statement.parent.type == "module":
            return None  # a module-level import: nothing around it decides (the common case, asked for every import)
        guard = self.guard_of(statement, "custom_ops")
        if guard is not None:
            return guard
        function = statement.parent
        while function is not None and function.type != "function_definition":
            function = function.parent
        name = function.child_by_field_name("name") if function is not None else None
        if name is None:
            return None
        calls = self.calls_named(function).get(parsing.text(name), [])
        guards = [self.guard_of(call, "custom_ops") for call in calls[:50]]
        if not guards or any(g is None for g in guards):
            return None
        return guards[0]

    def guard_of_callers(self, node: Node, domain: str, rule: str = "") -> Guard | None:
        """A site in a module-private helper (`def _triton_autotune(...)`) every call of which in the unit is behind
        the same kind of guard (`if HAS_TRITON and config.use_triton: ... _triton_autotune(...)`): the helper runs only
        where its callers' guard lets it. The site may sit deeper, in a function or class the helper defines (the
        `forward` of an autograd Function built inside `def _conv2d_gradfix(...)`): nothing the helper defines runs
        unless it runs."""
        current, depth = node.parent, 0
        while current is not None and depth < MAX_DEPTH:
            function = current
            if current.type == "decorated_definition":  # a decorator's argument: its function
                function = current.child_by_field_name("definition") or current
            if function.type == "function_definition" and not (
                    current.type == "function_definition" and current.parent is not None
                    and current.parent.type == "decorated_definition"):  # read once, from its decorated_definition
                guard = self._callers_guard(function, domain, rule, node)
                if guard is not None:
                    return guard
            if function.type in {"class_definition", "function_definition"}:
                guard = self._named_after_import(function)
                if guard is not None:
                    return guard
            current, depth = current.parent, depth + 1
        return None

    def _callers_guard(self, function: Node, domain: str, rule: str, site: Node) -> Guard | None:
        """The guard every call of `function` in the unit has. A public function's callers may sit in other files, so
        it is read only for a site that calls a name the file imports in a try whose ImportError handler marks the
        import missing (`FLASH_ATTN_4_AVAILABLE = False`, `xops = None`): where the import fails such a call fails
        too, so the project's other callers need the same gate, and the file's own gate is the one they use. Its
        reason says so in CALLED_ONLY_UNDER's words: propagation.py restores the site where another file names the
        function, since those callers may call it with no gate at all (Wan2.1's model calls `flash_attention()`
        directly; only the file's own `attention()`, which nothing calls, checks FLASH_ATTN_2_AVAILABLE first)."""
        name_node = function.child_by_field_name("name")
        if name_node is None:
            return None
        name = parsing.text(name_node)
        if name.startswith("__") or (not name.startswith("_") and not self._through_gated_import(site)
                                     and not self._calls_gated_import(function)):
            return None
        calls = [c for c in [*self.calls_named(function).get(name, []), *self.method_bindings(function).get(name, [])]
                 if not (function.start_byte <= c.start_byte < function.end_byte)]
        if not calls or len(calls) > 50:
            return None
        guards = [self.guard_of(call, domain, rule) for call in calls]
        if any(g is None for g in guards) or len({g.reach for g in guards}) != 1:
            return None
        if name.startswith("_"):
            return guards[0]
        lines = ", ".join(str(c.start_point.row + 1) for c in calls[:5])
        return Guard(guards[0].reach, guards[0].node,
                     f"{name}() {CALLED_ONLY_UNDER} (line {lines})" + (f"; {guards[0].note}" if guards[0].note else ""))

    def checked_body(self, root: Node, start: tuple[int, int], end: tuple[int, int]) -> Node | None:
        """The if-statement whose condition holds this site, when the condition checks for CUDA (a negated check
        only when its body just raises or warns: `if x.device.type != "cuda": raise ...`)."""
        node = root.descendant_for_point_range(start, end)
        depth = 0
        while node is not None and node.parent is not None and depth < MAX_DEPTH:
            parent = node.parent
            if parent.type in {"if_statement", "elif_clause"} and _same(node, parent.child_by_field_name("condition")):
                condition = self.condition(node)
                if not condition.cuda or condition.npu:
                    return None
                body = parent.child_by_field_name("consequence")
                if condition.negated and not (body is not None and (only_raises_or_warns(body) or exits_early(body))):
                    return None
                return parent
            if parent.type in {"block", "module"}:
                return None
            node, depth = parent, depth + 1
        return None

    def calls_named(self, node: Node) -> dict[str, list[Node]]:
        """Calls in the unit by the called name (read once per unit)."""
        if self._calls is None:
            root = parsing.root_of(node)
            found = self.unit_calls() if self.unit_calls is not None else parsing.captures(parsing.query("python", CALLS_QUERY), root)
            self._calls = defaultdict(list)
            for callee in sorted(found.get("called", []) + found.get("method", []), key=lambda callee: callee.start_byte):
                self._calls[parsing.text(callee)].append(callee)
        return self._calls

    def method_bindings(self, node: Node) -> dict[str, list[Node]]:
        """`self.NAME` bound, not called, as the right side of an assignment (`self.forward = self.efficient_forward`
        under `if XFORMERS_IS_AVAILBLE and temporal_length is None:`), by NAME (read once per unit): the method runs
        where that binding is made, so the binding's guard is a caller's guard."""
        if self._method_bindings is None:
            self._method_bindings = defaultdict(list)
            for assignment in self._assignments(parsing.root_of(node)):
                right = assignment.child_by_field_name("right")
                if right is None or right.type != "attribute":
                    continue
                owner, attribute = right.child_by_field_name("object"), right.child_by_field_name("attribute")
                if owner is not None and attribute is not None and owner.type == "identifier" and parsing.text(owner) == "self":
                    self._method_bindings[parsing.text(attribute)].append(right)
        return self._method_bindings

    def _assignments(self, root: Node) -> list[Node]:
        """The first 5000 assignments of the tree `root`, in source order: one query per unit for the method bindings
        and the availability flags' derived names alike."""
        if self._assignments_read is None or self._assignments_read[0] != root:
            given = self.unit_assignments() if self.unit_assignments is not None else None
            found = (given[1] if given is not None and given[0] == root else
                     parsing.captures(parsing.query("python", ASSIGNMENTS), root).get("assignment", []))[:5000]
            self._assignments_read = (root, found)
        return self._assignments_read[1]

    def _imports_of(self, node: Node) -> ImportTable:
        """The import table of the tree holding `node` (built once per unit)."""
        root = node
        while root.parent is not None:
            root = root.parent
        if self._import_table is None or self._import_table[0] != root:
            table = ImportTable()
            statements = self.import_statements(root)
            table.add_captures({"import": [s for s in statements if s.type == "import_statement"],
                                "import_from": [s for s in statements if s.type == "import_from_statement"]})
            self._import_table = (root, table)
        return self._import_table[1]

    def import_statements(self, root: Node) -> list[Node]:
        """The import and from-import statements of the tree `root`, in source order: the unit's combined query's
        where the core gives them for this tree, else a query of their own."""
        given = self.unit_imports() if self.unit_imports is not None else None
        if given is not None and given[0] == root:
            return given[1]
        return import_statements(root)

    def is_feature(self, domain: str, rule: str = "") -> bool:
        """A CUDA-only feature (a kernel, a fused library), an opt-in flag's rule or a CUDA-only thing."""
        return domain in self.feature_domains or rule in self.flag_rules or rule in self.cuda_only_rules

    def guard_of(self, node: Node, domain: str, rule: str = "") -> Guard | None:
        """The guard that decides the reach of a finding of `domain` (and `rule`) at `node`.

        Sites in one statement share most of their walk up the tree: what a walk found from each node it passed is
        kept for the unit, with how many steps further up it was decided, so a later walk reaching that node stops
        there (unless its own depth bound would have stopped it first)."""
        feature = self.is_feature(domain, rule)
        is_import = False
        passed: list[tuple[tuple[int, bool, bool], int]] = []
        child, parent, depth = node, node.parent, 0
        decided: Guard | None = None
        while parent is not None and depth < MAX_DEPTH:
            if child.type in IMPORTS:
                is_import = True
            key = (child.id, feature, is_import)
            known = self._walks.get(key)
            if known is not None and (known[1] is None or depth + known[1] < MAX_DEPTH):
                decided, steps = known
                depth = None if steps is None else depth + steps
                break
            passed.append((key, depth))
            decided = self._step(child, parent, feature, is_import)
            if decided is not None:
                break
            child, parent, depth = parent, parent.parent, depth + 1
        else:
            if parent is not None:
                return None  # stopped by the depth bound: nothing learnt about the nodes passed
            depth = None  # reached the module: no guard, at any depth
        for key, at in passed:
            self._walks[key] = (decided, None if depth is None else depth - at)
        return decided

    def _step(self, child: Node, parent: Node, feature: bool, is_import: bool) -> Guard | None:
        kind = parent.type
        if kind == "if_statement":
            return self.oom_text.arm(child, parent) or self._if_chain(child, parent, feature, is_import)
        if kind == "conditional_expression":
            return self._conditional(child, parent, feature)
        if kind == "try_statement" and child.type == "block":
            return self._try(parent, feature, is_import)
        if kind == "except_clause" and child.type == "block":
            return self._npu_split_fallback(parent)
        if kind == "except_clause":
            return self._cuda_error_clause(parent)
        if kind == "decorated_definition":
            return self._decorators(parent)
        if kind == "pair":
            return self._cuda_row(child, parent)
        if kind == "class_definition" and feature:
            return self._library_class(parent)
        if kind in NAMED_DEFINITIONS and self.definition_names:
            named = self._named_for_other(child, parent)
            if named is not None:
                return named
        if kind == "module":
            return self._cuda_wheel_picker(parent)
        if kind == "block":
            left = (_after_exit(child) or self._other_backend_exit(child) or self.oom_text.after_swallow(child)
                    or self._import_fallback_return(child))
            if left is not None:
                return left
        if kind == "block" and self.versions is not None:
            left = self._left_at_target(child, parent)
            if left is not None:
                return left
        if kind == "block" and feature:
            return self._early_exit(child, parent)
        return None

    # if / elif / else ------------------------------------------------------------------------------------------
    def _if_chain(self, child: Node, statement: Node, feature: bool, is_import: bool = False) -> Guard | None:
        arms = [(statement.child_by_field_name("condition"), statement.child_by_field_name("consequence"))]
        others = []
        for clause in statement.children:
            if clause.type == "elif_clause":
                arms.append((clause.child_by_field_name("condition"), clause))
            elif clause.type == "else_clause":
                others.append(clause)
        if self.versions is not None:
            dead = self._dead_arm(child, statement, arms, others)
            if dead is not None:
                return dead
        decided, dead = self._function_object_arm(child, arms)
        if decided:
            return dead  # None in the arm an uncalled function's test always takes: that test decides nothing
        edited = self._literal_flag_arm(child, statement, arms)
        if edited is not None:
            return edited
        conditions = [self.condition(c) for c, _ in arms if c is not None]
        if any(c.npu for c in conditions):
            return Guard("npu-path", statement)
        dispatch = self._dispatch_cuda_arm(child, statement)
        if dispatch is not None:
            return dispatch
        if len(arms) == 1 and not others and conditions and conditions[0].cuda and not conditions[0].negated:
            twin = self._npu_twin(statement)
            if twin is not None:
                return Guard("npu-path", twin)
        for (condition_node, body), condition in zip(arms, conditions):
            if body is None or condition_node is None or not _same(child, body):
                continue
            fallback = self._fallback(statement, arms, others, body)
            positive = self._positive(condition, statement, feature, fallback, condition_node)
            if (positive is None and feature and not is_import and not condition.cuda and not condition.negated
                    and not self._defaults_on(condition_node) and self._option_of_import(condition_node)):
                return Guard("optional", condition_node,
                             "the same option test guards an import, so the code under it is an optional feature")
            selected = (self._selected_by_gates(condition_node) or self._gated_constant(condition_node)) if positive is not None else None
            if selected is not None and positive.reach == "optional" and not positive.note:
                positive = Guard("optional", positive.node, selected)
            elif positive is not None and positive.reach == "optional" and others and not positive.note \
                    and self.availability_flag(condition_node) \
                    and not only_raises(others[0].child_by_field_name("body") or others[0]):
                dropped = sorted(_keywords(body, self.fallback_features) - _keywords(others[0], self.fallback_features))
                # an elif arm's own test is the gate the reason cites (`elif self.using_xform:`), not the chain's first
                positive = Guard("optional", body if body.type == "elif_clause" else positive.node, _fallback_note(others[0]) + (
                    f"; that arm passes no {', '.join(dropped)}: where it runs, this call's {', '.join(dropped)} is ignored"
                    if dropped else ""))
            return self._flag_named(positive, condition, condition_node)
        if len(conditions) == 1 and conditions[0].negated and others and _same(child, others[0]):
            # `if not get_accelerator().is_triton_supported(): return fallback(...) else: from .kernels import k`:
            # the else branch of a negated check is the branch the check guards (the if-branch is its fallback)
            first = conditions[0]
            held = Condition(first.npu, first.other, first.cuda, first.gate, first.flag, negated=False)
            positive = self._positive(held, statement, feature, fallback=not only_raises(arms[0][1]))
            if positive is not None and positive.reach == "optional" and not positive.note \
                    and self.availability_flag(arms[0][0]) and not only_raises(arms[0][1]):
                # `if flash_attn_func is None: <sdpa> else: flash_attn_func(...)`: the if arm is the fallback
                positive = Guard("optional", positive.node, _fallback_note(arms[0][1], "if"))
            return positive
        return None

    def _dispatch_cuda_arm(self, child: Node, statement: Node) -> Guard | None:
        """The CUDA arm of a per-backend dispatch chain without an NPU arm (`if device.type == "cuda":
        torch.cuda.empty_cache()` beside `if device.type == "xpu": ...`, `if HAS_CUDA: device = torch.device("cuda")
        elif HAS_MPS: ...`): only CUDA takes it, and the gap is the missing NPU arm, reported once at the chain
        (DEV220), not the CUDA arm's own calls."""
        if child.type == "elif_clause":  # the arm's condition or its body
            body = child.child_by_field_name("consequence")
        elif _same(child, statement.child_by_field_name("condition")):
            body = statement.child_by_field_name("consequence")
        else:
            body = child if child.type == "block" else None
        if body is None:
            return None
        chain = dispatch_chain(statement, self.dispatch_words)
        if chain is None or _same(child, chain.head) or not cuda_arm(chain, body, self.dispatch_words):
            return None  # the chain's first condition holds its own finding (DEV220, which subsumes the check there)
        if shim_covered_device_choice(chain, self.dispatch_words, self._imports_of(statement)):
            return None  # a device pick transfer_to_npu answers: its CUDA arm is the one the NPU takes (shim_chains.py)
        return Guard("other-backend", chain.head,
                     f"the CUDA arm of a per-backend chain ({', '.join(sorted(chain.named))}); its gap is a missing npu arm")

    def _npu_twin(self, statement: Node) -> Node | None:
        """`if device_type == 'cuda': ...` followed by `if device_type == 'npu': ...` (two ifs, not one chain): the
        NPU arm is there (timm's init_distributed_device)."""
        subject = _compared(statement.child_by_field_name("condition"))
        if subject is None:
            return None
        sibling, seen = statement.next_named_sibling, 0
        while sibling is not None and seen < 3:
            seen += 1
            if sibling.type == "if_statement":
                condition = sibling.child_by_field_name("condition")
                if condition is not None and _compared(condition) == subject and self.condition(condition).npu:
                    return sibling
            sibling = sibling.next_named_sibling
        return None

    def _dead_arm(self, child: Node, statement: Node, arms, others: list[Node]) -> Guard | None:
        """The arm holding `child` cannot run at the target torch: its condition is false there, or an earlier one
        is true (`if torch_version >= version.parse('2.3'): ... else: <dead>`)."""
        for condition_node, body in arms:
            if condition_node is None:
                return None
            here = _same(child, body) or _same(child, condition_node)
            value = self.versions.evaluate(condition_node)
            if value is True and not here:
                return Guard("dead-at-target", condition_node, self.versions.note(condition_node, True) + ", so this later arm never runs")
            if here:
                if value is False and not _same(child, condition_node):
                    return Guard("dead-at-target", condition_node, self.versions.note(condition_node, False))
                return None
            if value is None:
                return None  # an unknown earlier arm: later arms may run
        return None

    def _function_object_arm(self, child: Node, arms) -> tuple[bool, Guard | None]:
        """(decided, guard) where an arm's condition names a function without calling it (`if is_xformers_available:`,
        function_objects.py): always true, so the arms after it never run (`dead-at-target`, the reason says why), and
        in its own arm the test decides nothing (decided, no guard); `not name` is always false: its arm never runs."""
        for condition_node, body in arms:
            if condition_node is None or _same(child, condition_node):
                return False, None
            here = _same(child, body)
            tested = tested_name(condition_node)
            value = None
            if tested is not None:
                prefixes, suffixes = frozenset(self.guards.gate_prefixes), frozenset(self.guards.gate_suffixes)
                if self._function_names is None:
                    root = parsing.root_of(condition_node)
                    if may_be_function(tested[0], root.text or b"", prefixes, suffixes):  # else it is none of them
                        self._function_names = function_names(root, prefixes, suffixes)
                if self._function_names is not None and tested[0] in self._function_names:
                    value = not tested[1]
            if value is not None and (value is not here):
                return True, Guard("dead-at-target", condition_node, f"`{tested[0]}` names a function and is not called: "
                                   f"the test is always {'true' if value else 'false'}, so this "
                                   f"{'later ' if value else ''}arm never runs")
            if here:
                return value is not None, None
        return False, None

    def _literal_flag_arm(self, child: Node, statement: Node, arms) -> Guard | None:
        """The arm holding `child` is not the one a flag assigned a literal once takes (`HF_MODE = False` before
        `if not HF_MODE: ... else: <here>`): it runs only when the file is edited (literal_flags.py)."""
        for condition_node, body in arms:
            if condition_node is None or _same(child, condition_node):
                return None
            here = _same(child, body)
            if condition_node.id not in self._literal_flags:
                self._literal_flags[condition_node.id] = literal_flag(condition_node, statement, self._flag_assignments)
            read = self._literal_flags[condition_node.id]
            if read is None:
                if here:
                    return None
                continue  # an unknown arm before: it may take the run, never give it to this arm
            value, assignment, in_function = read
            if value is (not here):
                which = "the arms after it" if value else "this arm"
                elsewhere = f" {IN_FUNCTION}" if in_function else ""
                return Guard("optional", condition_node, f"{' '.join(parsing.text(assignment).split())} (line "
                             f"{assignment.start_point.row + 1}) is assigned once and never changed{elsewhere}, so "
                             f"{which} runs only when the file is edited{substring_note(condition_node)}")
            if here:
                return None
        return None

    def _fallback(self, statement: Node, arms, others: list[Node], taken: Node) -> bool:
        """Is there another branch, and is it more than a `raise`?"""
        branches = [body for _, body in arms if not _same(body, taken)] + others
        if not branches:
            following = statement.next_named_sibling
            return following is not None and following.type != "raise_statement"
        return any(not only_raises(branch) for branch in branches)

    def _conditional(self, child: Node, expression: Node, feature: bool) -> Guard | None:
        parts = expression.named_children
        if len(parts) < 3:
            return None
        if self.versions is not None and (_same(child, parts[0]) or _same(child, parts[2])):
            value = self.versions.evaluate(parts[1])
            if value is not None and value != _same(child, parts[0]):
                other = "the value after `else`" if value else "the value before `if`"
                return Guard("dead-at-target", parts[1], f"{self.versions.note(parts[1], value)}, so {other} is never taken")
        condition = self.condition(parts[1])
        if condition.npu or any(_names_npu_literal(p, self.npu_tokens) for p in (parts[0], parts[2])):
            return Guard("npu-path", expression)
        if _same(child, parts[0]):
            return self._flag_named(self._positive(condition, expression, feature, fallback=True, condition_node=parts[1]),
                                    condition, parts[1])
        if _same(child, parts[2]):
            flipped = Condition(condition.npu, condition.other, condition.cuda, condition.gate, condition.flag,
                                not condition.negated)
            return self._positive(flipped, expression, feature, fallback=True)
        return None

    def _positive(self, condition: Condition, statement: Node, feature: bool, fallback: bool,
                  condition_node: Node | None = None) -> Guard | None:
        """The guard a site inside the branch taken when `condition` holds gets."""
        if condition.negated:
            return None
        if condition.other and not condition.cuda:
            return Guard("other-backend", statement)
        if condition.cuda and feature and fallback:
            return Guard("cuda-only-guarded", statement)
        if (condition.gate or (condition.flag and feature and not self._defaults_on(condition_node))) and not condition.cuda:
            return Guard("optional", statement)
        return None

    def _flag_named(self, positive: Guard | None, condition: Condition, condition_node: Node) -> Guard | None:
        """An optional arm a flag alone decides, its note naming the flag (when the condition reads one), so that a
        project turning it on (switched_on.py: a config's `use_fp16=True`) restores it. A note another reading gave
        (a gate's selection, a fallback) stays."""
        if positive is None or positive.reach != "optional" or positive.note or condition.gate or not condition.flag:
            return positive
        flags = self.flag_names(condition_node)
        return Guard("optional", positive.node, flag_note(flags[0])) if len(flags) == 1 else positive

    def flag_names(self, condition_node: Node) -> list[str]:
        """The distinct flag-shaped words a condition reads (`use_fp16` of `cfg.get("use_fp16", False)`)."""
        return list(dict.fromkeys(word for word in _words(condition_node) if self.is_flag(word) and word.isidentifier()))

    def _option_of_import(self, condition_node: Node) -> bool:
        """`condition_node` reads an option (an environment variable, args/config) and the same test, word for word,
        guards an import elsewhere in the unit (the import itself keeps its own reading: an if/else choosing between
        two imports must not make one of them optional) (`elif 'mamba' in os.environ["RWKV_MY_TESTING"]: from mamba_ssm import
        Mamba` and, in a class, the same elif building `Mamba(...)`): the call has the reach of the import it needs."""
        test = " ".join(parsing.text(condition_node).split())
        if not any(word in test for word in OPTION_WORDS):
            return False  # every test in the set spells an option word (the whole unit's walk is not needed)
        if self._import_options is None:
            root = parsing.root_of(condition_node)
            self._import_options = _import_option_tests(root, self.import_statements)
        return test in self._import_options

    def _defaults_on(self, condition_node: Node | None) -> bool:
        return condition_node is not None and self.on_by_default is not None and self.on_by_default(condition_node)

    def _named_for_other(self, child: Node, parent: Node) -> Guard | None:
        """The body of a function or class, or the value of a binding, whose name says it is another accelerator's
        (`def _ensure_rocm_torch():`, `_MLX_STUDIO_ADAMW_ALIASES = frozenset(...)`): only that accelerator uses it,
        as a file named so (context/project.py)."""
        if parent.type == "assignment":
            name = parent.child_by_field_name("left")
            if name is None or name.type != "identifier" or not _same(child, parent.child_by_field_name("right") or name):
                return None
        else:
            name = parent.child_by_field_name("name")
            if name is None or not _same(child, parent.child_by_field_name("body") or name):
                return None
        parts = {part.lower() for part in NAME_PARTS.findall(parsing.text(name))}
        named = sorted(parts & self.definition_names)
        if not named or parts & (self.cuda_tokens | self.npu_tokens | NOT_ONE_BACKEND):
            return None
        return Guard("other-backend", name, f"{named[0]} code by its name")

    def _cuda_wheel_picker(self, module: Node) -> Guard | None:
        """A script of top-level statements only (no function or class to import) that prints or runs a `pip install`
        and raises unless torch is one of a list of CUDA builds (unsloth's _auto_install.py: `cuda =
        str(torch.version.cuda)` ... `if cuda not in ("11.8", "12.1", ...): raise RuntimeError(...)`, then the pip line
        for the matching cuXXX wheel): an installer for CUDA wheels. On Ascend torch.version.cuda is None, so it
        raises there; nothing in it is a port item. Read once per unit."""
        if self._wheel_picker is not None and self._wheel_picker[0] == module.id:
            return self._wheel_picker[1]
        found = None
        source = module.text or b""
        if b"pip install" in source and any(name.encode() in source for name in self.guards.cuda_build):
            found = _cuda_version_gate(module, tuple(self.guards.cuda_build))
        self._wheel_picker = (module.id, found)
        return found

    def _other_backend_exit(self, child: Node) -> Guard | None:
        """A statement after `if not <another accelerator's probe>: return ...` (or raise) in the same block runs only
        on that accelerator (`if not LlamaCppBackend._torch_is_rocm(torch): return arch_by_id` before reading the
        gfx arch of each device): on Ascend the block is left there first."""
        for sibling, condition_node, body in _prior_ifs(child):
            if _leaves_block(body) and any(token in parsing.text(condition_node).lower() for token in self.other_tokens):
                condition = self.condition(condition_node)
                if condition.negated and condition.other and not condition.cuda and not condition.npu:
                    return Guard("other-backend", sibling, "the block is left here unless it runs on that accelerator")
        return None

    def _left_at_target(self, child: Node, block: Node) -> Guard | None:
        """A statement after `if <true at the target torch>: return ...` (or raise, continue, break) in the same block
        never runs there: `if _use_pytorch_1_11_api: return False` before `if input.device.type != 'cuda':`."""
        for sibling, condition_node, body in _prior_ifs(child):
            if _leaves_block(body) and self.versions.evaluate(condition_node) is True:
                return Guard("dead-at-target", sibling,
                             self.versions.note(condition_node, True) + ", and the block is left there first")
        return None

    def _import_fallback_return(self, child: Node) -> Guard | None:
        """`if not XFORMERS_AVAILABLE: return super().forward(x)` before the library's calls, the flag a module-level
        `try: from xformers.ops import ...` sets False in its ImportError handler (round 33 B2 class 1): where the
        import is missing, as on Ascend, the function returns through the project's own fallback first, so what
        follows runs only where the library is installed (`optional`). An arm that only raises is no fallback."""
        for sibling, condition, body in _prior_ifs(child):
            while condition.type == "parenthesized_expression" and condition.named_children:
                condition = condition.named_children[0]
            if condition.type == "not_operator" and _ends_in(body, "return_statement") and not only_raises(body):
                tested = condition.child_by_field_name("argument")
                if tested is not None and tested.type == "identifier" and self.availability_flag(tested):
                    return Guard("optional", sibling, _fallback_note(body, "if"))
        return None

    def _early_exit(self, child: Node, block: Node) -> Guard | None:
        """`if not x.is_cuda: return fallback(x)` before a kernel guards what follows it."""
        for sibling, condition_node, body in _prior_ifs(child):
            if _ends_in(body, "return_statement"):
                condition = self.condition(condition_node)
                if condition.npu:
                    return Guard("npu-path", sibling)
                if condition.negated and condition.cuda:
                    return Guard("cuda-only-guarded", sibling)
        return None

    def _cuda_row(self, child: Node, pair: Node) -> Guard | None:
        """The value of the "cuda" row of a per-backend table (`{"cuda": torch.cuda.synchronize, "xpu": ...}`): only
        CUDA looks it up; Ascend needs its own row (DEV009 at the table)."""
        key, table = pair.child_by_field_name("key"), pair.parent
        if key is None or _same(child, key) or key.type != "string" or table is None or table.type != "dictionary":
            return None
        if parsing.text(key).strip("'\"").lower() != "cuda":
            return None
        names = [parsing.text(p.child_by_field_name("key") or p).strip("'\"").lower().split(":")[0]
                 for p in table.named_children if p.type == "pair"]
        backends = self.other_tokens | self.npu_tokens | {"cuda", "cpu", "meta"}
        if len(names) >= 2 and all(name in backends for name in names):
            return Guard("other-backend", pair)
        return None

    # try / except, decorators --------------------------------------------------------------------------------
    def _try(self, statement: Node, feature: bool, is_import: bool) -> Guard | None:
        body = statement.child_by_field_name("body")
        if body is None or self._npu_import(statement) is not None:
            return None  # the try body of `try: import torch_npu`: what runs on Ascend, decided further up
        for clause in statement.children:
            if clause.type != "except_clause":
                continue
            caught = _caught_names(clause)
            if is_import and (not caught or caught & self.import_errors) and not only_raises(clause):
                return Guard("optional", clause)
            if feature and not only_raises(clause):
                return Guard("optional", clause)
        return None

    def _cuda_error_clause(self, clause: Node) -> Guard | None:
        """`except torch.cuda.CudaError as e:` followed, in the same try, by a broader handler (`except Exception`)
        doing the same (InternVL's model_worker.py): on NPU the CUDA clause never matches and the broader one gives
        the same result, so the CUDA exception type needs no change."""
        if not self._tokens_of_clause(clause) & self.cuda_tokens:
            return None
        body = next((c for c in clause.named_children if c.type == "block"), None)
        if body is None:
            return None
        later = clause.next_named_sibling
        while later is not None and later.type == "except_clause":
            caught = _caught_names(later)
            if not caught or caught & self.broad_errors:
                other = next((c for c in later.named_children if c.type == "block"), None)
                if other is not None and self._effects(body, _alias(clause)) == self._effects(other, _alias(later)):
                    return Guard("cuda-only-guarded", clause,
                                 f"never matches on NPU; the handler at line {later.start_point.row + 1} does the same")
            later = later.next_named_sibling
        return None

    def _effects(self, block: Node, alias: str) -> list[tuple[str, str]]:
        """The shape of a handler body without its statements that only show a message (`print(...)`,
        `traceback.print_exc()`, `logger.error(...)`): two handlers that differ only in what they print or log give
        the same result (round 26 verdict V5: a CudaError handler and the `except Exception` after it return the same
        error reply, the second one also printing a traceback)."""
        kept = [statement for statement in block.named_children
                if statement.type != "comment" and not self._only_shows(statement)]
        return [leaf for statement in kept for leaf in _shape(statement, alias)]

    def _only_shows(self, statement: Node) -> bool:
        call = statement.named_children[0] if statement.type == "expression_statement" and len(statement.named_children) == 1 else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None:
            return False
        name = parsing.text(function).rsplit(".", 1)[-1]
        return name in self.guards.message_calls or name.startswith(tuple(self.guards.message_call_prefixes))

    def _tokens_of_clause(self, clause: Node) -> set[str]:
        return _tokens_of(sorted(_caught_names(clause)))

    def _npu_import(self, attempt: Node) -> Node | None:
        """The statement of a try body that imports a package only Ascend has (`import torch_npu`), if any."""
        body = attempt.child_by_field_name("body")
        for statement in body.named_children if body is not None else ():
            if statement.type in IMPORTS and _imported_roots(statement) & self.npu_packages:
                return statement
        return None

    def _npu_split_fallback(self, clause: Node) -> Guard | None:
        """The ImportError arm of `try: import torch_npu ... except ImportError: from .utils.comm import ...`: taken
        only where torch_npu does not import, so never on Ascend, where the try body runs instead."""
        attempt = clause.parent
        if attempt is None or attempt.type != "try_statement":
            return None
        caught = _caught_names(clause)
        if caught and not caught & self.import_errors:
            return None
        npu = self._npu_import(attempt)
        if npu is None:
            return None
        name = sorted(_imported_roots(npu) & self.npu_packages)[0]
        return Guard("other-backend", clause,
                     f"taken only where {name} does not import; on Ascend the NPU arm at line {npu.start_point.row + 1} runs")

    def _decorators(self, definition: Node) -> Guard | None:
        """Test-skip decorators that need CUDA; registrations into a backend registry that also registers an NPU
        backend (diffusers' attention dispatch registers `_native_npu` beside flash and xformers)."""
        for decorator in definition.children:
            if decorator.type != "decorator":
                continue
            words = _words(decorator)
            tokens = _tokens_of(words)
            if any(skip in words for skip in self.guards.test_skips) and (tokens & self.cuda_tokens):
                return Guard("cuda-only-guarded", decorator)
            if "register" in tokens and not tokens & self.npu_tokens and self._registers_npu(definition):
                return Guard("npu-path", decorator)
        return None

    def start_unit(self) -> None:
        """Forget what was learnt about the previous unit's tree."""
        self._registers_npu_here = None
        # names an ImportError handler binds to None, and those it defines again (read once per unit)
        self._fallbacks: tuple[set[str], dict[str, Node]] | None = None
        self._derived: dict[str, str] | None = None  # names assigned `... and <availability flag>` → the flag
        self._choosers_read: dict[str, tuple[str, list[tuple[str | None, Node | None]]]] | None = None  # _choosers
        self._constants: dict[str, tuple[int, list[Node] | None]] | None = None  # _unit_constants
        self._conditions.clear()
        self.predicates.start_unit()
        self._walks.clear()
        self._literal_flags.clear()
        self._flag_assignments.clear()
        self._function_names = None  # names the unit binds only to a function (function_objects.py)
        self._import_options = None
        self._calls = None
        self._after_import.clear()
        self._import_attempt = None
        self._method_bindings = None
        self._assignments_read = None
        self._import_table = None
        self._wheel_picker = None
        for reset in self.unit_resets:
            reset()
        if self.versions is not None:
            self.versions.start_unit()

    def _registers_npu(self, node: Node) -> bool:
        """Does this unit register an NPU backend anywhere (read once per unit's tree)?"""
        root = parsing.root_of(node)
        span = (root.start_byte, root.end_byte)
        if self._registers_npu_here is None or self._registers_npu_here[0] != span:
            decorators = parsing.captures(parsing.query("python", DECORATORS), root).get("decorator", [])
            found = any("register" in tokens and tokens & self.npu_tokens for tokens in map(self._tokens, decorators[:2000]))
            self._registers_npu_here = (span, found)
        return self._registers_npu_here[1]

    def _library_class(self, definition: Node) -> Guard | None:
        """A class named for a CUDA-only library (`class QKVFlashAttention`): loaded where the library is. Its reason
        is `line N: ClassName` (library_class_of reads the name back)."""
        name = definition.child_by_field_name("name")
        lowered = parsing.text(name).lower() if name is not None else ""
        if any(token in lowered for token in self.guards.library_class_tokens) and "npu" not in lowered:
            return Guard("optional", name)
        return None

    # conditions ------------------------------------------------------------------------------------------------
    def condition(self, node: Node) -> Condition:
        """What a condition checks (read once per unit: every site inside an if-chain asks about all its arms)."""
        key = (node.start_byte, node.end_byte, node.kind_id)
        cached = self._conditions.get(key)
        if cached is None:
            cached = self._conditions[key] = self._read_condition(node)
        return cached

    def _read_condition(self, node: Node) -> Condition:
        negated = False
        while node.type in {"not_operator", "parenthesized_expression"}:
            if node.type == "not_operator":
                negated = not negated
                node = node.child_by_field_name("argument") or node.named_children[-1]
            else:
                node = node.named_children[0] if node.named_children else node
                if node.type == "parenthesized_expression" and not node.named_children:
                    break
        # `plugin.backend != DynamoBackend.NO` switches a feature on: an opt-in flag, not a negated check
        switched_on = not negated and self._switches_on(node)
        # `xops is not None`, where an ImportError handler binds xops to None, tests that the import worked: a gate
        present = self._import_fallback(node)
        text = parsing.text(node)
        words = _legacy_types_dropped(_words(node))
        tokens = _tokens_of(words)
        cuda_build = any(name in text for name in self.guards.cuda_build)
        presence = _none_test(node) if cuda_build or tokens & self.other_tokens else None
        if presence is not None:
            # `torch.version.hip is not None` asks for a ROCm build (and `is None` rules it out): a backend probe's
            # presence test, not a negated check
            negated = negated != (presence == "is")
        elif node.type == "comparison_operator" and any(op.type in {"!=", "not in", "is not"} for op in node.children) and not present:
            negated = not negated and not switched_on
        elif present and _none_test(node) == "is":
            # `if flash_attn_func is None:` where the ImportError handler binds it to None asks that the import failed:
            # the if arm is the fallback, the else arm the import's path (round 24 B1 row 1)
            negated = not negated
        # another platform or a library is what the branch needs only where the condition asks for it, not where it
        # rules it out: `(fp16 or bf16) and not (deepspeed or is_torch_tpu_available())` is the GPU path
        asked = _words(node, skip_negated=True)
        helper_npu, helper_cuda, helper_negated = self._helper_tests(node)
        return Condition(
            npu=bool(tokens & self.npu_tokens) or helper_npu,
            other=bool(_tokens_of(asked) & self.other_tokens) or any(w in self.platform_gates for w in asked) or cuda_build,
            cuda=(bool(tokens & self.cuda_tokens) or helper_cuda) and not cuda_build,
            gate=present or any(self._is_gate(word) for word in asked) or self._chooses_cuda_only(node)
            or self._selected_by_gates(node) is not None or self._gated_constant(node) is not None,
            flag=switched_on or any(self.is_flag(word) for word in words),
            negated=negated != helper_negated,
        )

    def _helper_tests(self, node: Node) -> tuple[bool, bool, bool]:
        """(NPU test, CUDA test, negated) that the file's predicate helpers called in a condition stand for
        (predicate_helpers.py): `if supports_host_descriptor():` with `def supports_host_descriptor(): return is_cuda()
        and ...` tests for CUDA as the written-out test would. A condition that is one helper call takes the helper's
        test whole, negation included (`def _slow(x): return x.device.type != "cuda"`); a helper called as a term of a
        larger condition adds only a positive CUDA test, and an NPU test wherever it stands (an arm that also takes
        NPU tensors)."""
        if self._helper_depth >= HELPER_DEPTH:
            return False, False, False
        self._helper_depth += 1
        try:
            value = self.predicates.helper_of(node) if node.type == "call" else None
            if value is not None:
                held = self._read_condition(value)  # not kept: read at this depth
                return held.npu, held.cuda, held.negated and (held.cuda or held.npu)
            npu = cuda = False
            for call in parsing.walk(node, limit=MAX_CONDITION_NODES, prune=_NEGATING):
                value = self.predicates.helper_of(call) if call.type == "call" else None
                if value is None:
                    continue
                held = self._read_condition(value)  # not kept: read at this depth
                npu = npu or held.npu
                cuda = cuda or (held.cuda and not held.negated )
            return npu, cuda, False
        finally:
            self._helper_depth -= 1

    def _import_fallback(self, node: Node) -> bool:
        """`xops is not None` / `if xops:` where a module-level `try: import xformers.ops as xops` binds `xops = None`
        in its ImportError handler: the name is the import's availability, a gate like HAS_XFORMERS (also as one
        operand of an `and`)."""
        if node.type == "boolean_operator" and any(op.type == "and" for op in node.children):
            return any(self._import_fallback(part) for part in node.named_children)
        if node.type == "comparison_operator":
            operands = node.named_children
            if len(operands) == 2 and operands[0].type == "identifier" and [op.type for op in node.children if not op.is_named] == ["=="]:
                # `FLASH_VER == 2` where the try sets FLASH_VER = 2 after the import and the handler None
                mark = self._unit_fallbacks(node)[3].get(parsing.text(operands[0]))
                return mark is not None and mark == parsing.text(operands[1])
            if len(operands) != 2 or operands[1].type != "none" or not any(op.type in {"is", "is not"} for op in node.children):
                return False
            node = operands[0]
        if node.type == "identifier" and parsing.text(node) in self._unit_fallbacks(node)[0]:
            return True
        return node.type in {"identifier", "attribute"} and parsing.text(node) in self._requires_fallback(node)

    def availability_flag(self, condition: Node) -> str | None:
        """The try-import flag a condition tests (`has_flash_attn`, also through `self.use_flash_attn = ... and
        has_flash_attn`), or None."""
        # an attribute is read whole: `self.has_flash_attn` is not the flag `has_flash_attn`
        for current in parsing.walk(condition, limit=MAX_CONDITION_NODES, prune=_ATTRIBUTE):
            if current.type in {"identifier", "attribute"}:
                text = parsing.text(current)
                if current.type == "identifier" and text in self._unit_fallbacks(current)[0]:
                    return text
                derived = self._requires_fallback(current).get(text)
                if derived is not None:
                    return derived
        return None

    def _requires_fallback(self, node: Node) -> dict[str, str]:
        """Names every assignment of which in the unit `and`s an availability flag in (`self.use_flash_attn =
        config.use_flash_attn and has_flash_attn`) or tests a name the import's handler binds to None for presence
        (`flash_attn_available = flash_attn_func is not None`): true only where the import worked, so a gate as well."""
        if self._derived is None:
            root = parsing.root_of(node)
            flags = self._unit_fallbacks(node)[0]
            derived: dict[str, str] = {}
            for _ in range(DERIVED_ROUNDS if flags else 0):
                # a second round reads names derived from derived ones: `using_flash = self.using_flash and ...`
                gated: dict[str, str | None] = {}  # name → the flag every assignment of it and-s in, None if not all do
                for assignment in self._assignments(root):
                    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
                    if left is None or right is None or left.type not in {"identifier", "attribute"}:
                        continue
                    flag = _and_flag(right, flags, derived)
                    gated[parsing.text(left)] = flag if gated.get(parsing.text(left), flag) == flag else None
                found = {name: flag for name, flag in gated.items() if flag is not None}
                if found == derived:
                    break
                derived = found
            self._derived = derived
        return self._derived

    def forced_off(self, name: str, node: Node) -> Node | None:
        """The `if not HAS_XFORMERS:` (or `if xops is None:`) statement of the unit whose block sets `name` to
        False/None, the test being a try-import's availability (`try: import xformers.ops as xops; HAS_XFORMERS =
        True / except ImportError: HAS_XFORMERS = False`): the switch `name` is off wherever the import failed,
        whatever a config asks (round 28 B1 row 4). None where no such statement exists."""
        if not self._unit_fallbacks(node)[0]:
            return None
        for assignment in self._assignments(parsing.root_of(node)):
            left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
            if left is None or right is None or right.type not in {"false", "none"} or parsing.text(left) != name:
                continue
            statement = assignment.parent
            block = statement.parent if statement is not None and statement.type == "expression_statement" else None
            test = block.parent if block is not None and block.type == "block" else None
            condition = test.child_by_field_name("condition") if test is not None and test.type == "if_statement" else None
            if condition is None or not _same(block, test.child_by_field_name("consequence")):
                continue
            tested = condition.child_by_field_name("argument") if condition.type == "not_operator" else (
                condition.named_children[0] if _none_test(condition) == "is" else None)
            if tested is not None and tested.type == "identifier" and self._import_fallback(tested):
                return test
        return None

    def _through_gated_import(self, site: Node) -> bool:
        """Does the site call (or is it) a name a fallback import binds (_import_fallback_names' third part)?"""
        name = site
        while name.type in {"call", "attribute"}:
            name = name.child_by_field_name("function" if name.type == "call" else "object")
            if name is None:
                return False
        return name.type == "identifier" and parsing.text(name) in self._unit_fallbacks(site)[2]

    def _named_after_import(self, definition: Node) -> Guard | None:
        """A module-level class or function the file names only in a try body after an import there, the try's
        ImportError handler carrying on (import_succeeded.py: metaseq's FusedAdamV1 after `fused_adam_cuda`)."""
        if definition.start_byte in self._after_import:
            return self._after_import[definition.start_byte]
        if self._import_attempt is None:
            self._import_attempt = has_import_attempt(parsing.root_of(definition), self.import_errors,
                                                      self._cuda_extension)
        found = named_only_after_import(definition, self.import_errors, self._cuda_extension) \
            if self._import_attempt else None
        if found is None:
            self._after_import[definition.start_byte] = None
            return None
        name = parsing.text(definition.child_by_field_name("name"))
        lines = ", ".join(str(line) for line in found.uses[:5])
        note = f"{name}() {CALLED_ONLY_UNDER} (line {lines}), after `{found.module}` is imported" if found.uses else \
            f"{name} is defined only after `{found.module}` is imported"
        guard = Guard("optional", found.attempt, f"{note}; where the import fails the handler falls back")
        self._after_import[definition.start_byte] = guard
        return guard

    def _cuda_extension(self, module: str) -> bool:
        """A module that never imports on Ascend: a CUDA-only package, a CUDA extension package, or a module named as
        projects name their own CUDA extensions."""
        root = module.split(".")[0]
        return root in self.cuda_only_packages or root in self.guards.cuda_extension_packages or \
            module.rsplit(".", 1)[-1].endswith(tuple(self.guards.cuda_extension_suffixes))

    def _calls_gated_import(self, function: Node) -> bool:
        """Does the function call a name a fallback import of a CUDA extension binds (metaseq's
        `multi_tensor_l2_total_norm` calls amp_C's `multi_tensor_l2norm`)? It is then the import's user: a caller in another file needs the import's gate too,
        so the file's gate of its calls speaks for every site in it (round 35 B1 class 2)."""
        calls = self.calls_named(function)
        bindings = self._imports_of(function).bindings
        return any(function.start_byte <= call.start_byte < function.end_byte
                   for name in self._unit_fallbacks(function)[2] if self._cuda_extension(bindings.get(name, ""))
                   for call in calls.get(name, []))

    def _unit_fallbacks(self, node: Node) -> tuple[set[str], dict[str, Node], set[str], dict[str, str]]:
        """What the unit's import fallbacks bind (_import_fallback_names), read once per unit."""
        if self._fallbacks is None:
            root = parsing.root_of(node)
            self._fallbacks = _import_fallback_names(root, self.import_errors, self.cuda_only_packages)
        return self._fallbacks

    def fallback_definition(self, node: Node) -> Guard | None:
        """A use of a name whose import falls back to a definition of the project's own when it fails (apex's
        FusedRMSNorm imported as RMSNorm, else a local RMSNorm class): on Ascend the local one runs."""
        root_name = node
        while root_name.type in {"call", "attribute"}:
            root_name = root_name.child_by_field_name("function" if root_name.type == "call" else "object")
            if root_name is None:
                return None
        if root_name.type != "identifier":
            return None
        handler = self._unit_fallbacks(node)[1].get(parsing.text(root_name))
        return Guard("optional", handler) if handler is not None else None

    def _chooses_cuda_only(self, node: Node) -> bool:
        """`comm_backend == "deepep"` / `impl in ("fa3", "flash_attention_3")`: a config value naming a CUDA-only
        library selects this branch."""
        if node.type != "comparison_operator" or not any(op.type in {"==", "in"} for op in node.children):
            return False
        strings = [c for c in node.named_children if c.type == "string"]
        for collection in (c for c in node.named_children if c.type in {"tuple", "list", "set"}):
            strings += [c for c in collection.named_children if c.type == "string"]
        values = [parsing.text(s).strip("'\"").lower() for s in strings]
        return bool(values) and all(v in self.cuda_only_choices for v in values) and not _default_choice(node, values)

    def _selected_by_gates(self, node: Node) -> str | None:
        """`IMPL == "flash_attention_4"` where the module sets `IMPL = choose()` once and `choose` returns that string
        only in arms of an availability gate (`elif FLASH_ATTN_4_AVAILABLE: return "flash_attention_4"`) beside a
        default that returns another (`else: return "torch"`): the value is the import's availability by another name,
        so a test for it is a gate (a user's forced choice, `return os.environ[...]`, is an option)."""
        if node.type != "comparison_operator":
            return None
        from ascend_feasibility.analyzer.context.backend_selectors import compared_values
        compared = compared_values(node)
        if compared is None or compared[1] not in {"==", "in"}:
            return None
        chooser = self._choosers(node).get(compared[0])
        if chooser is None or self._selecting:
            return None  # (a chooser that tests its own name reads no further)
        returned = [(value, condition) for value, condition in chooser[1] if value is not None]
        chosen = [condition for value, condition in returned if value in compared[2]]
        self._selecting = True
        try:
            gated = bool(chosen) and len(chosen) < len(returned) and all(
                condition is not None and self.condition(condition).gate and not self.condition(condition).negated
                for condition in chosen)
        finally:
            self._selecting = False
        if not gated:
            return None
        default = next((value for value, condition in reversed(returned) if condition is None), None)
        return (f"{compared[0]} comes from {chooser[0]}(), which picks it only under an availability gate"
                + (f", else \"{default}\"" if default is not None else ""))

    def _gated_constant(self, node: Node) -> str | None:
        """`backend == FLASH_DENSE` where FLASH_DENSE is a module-level constant the file assigns a literal once and
        gives as a value (returns, assigns, passes) only under availability gates (`if HAS_FLASH_ATTENTION: return
        FLASH_DENSE`, `FLASH_DENSE if HAS_FLASH_ATTENTION else SDPA`): the name holds it only where the library
        imported, so the test is that gate too. Another file could give it as well: the reason says the file is the
        only one that names it, in literal_flags.IN_FUNCTION's words (propagation.py restores the site otherwise)."""
        if node.type != "comparison_operator" or [op.type for op in node.children if not op.is_named] != ["=="] \
                or len(node.named_children) != 2 or self._selecting:
            return None
        constants = self._unit_constants(node)
        named = [c for c in node.named_children if c.type == "identifier" and parsing.text(c) in constants]
        if len(named) != 1:
            return None
        name = parsing.text(named[0])
        line, uses = constants[name]
        self._selecting = True  # a use under a test of the same constant reads no further
        try:
            gates = [self._gate_above(use) for use in uses]
        finally:
            self._selecting = False
        if not gates or any(g is None for g in gates):
            return None
        lines = ", ".join(str(g.start_point.row + 1) for g in gates[:5])
        return (f"{name} (line {line}) is given as a value only under an availability gate (line {lines}) "
                f"{IN_FUNCTION}")

    def _gate_above(self, node: Node) -> Node | None:
        """The condition of the nearest if/elif arm or conditional value holding `node` that is a (non-negated)
        availability gate; None where the first condition met says nothing of one."""
        child, parent, depth = node, node.parent, 0
        while parent is not None and depth < MAX_DEPTH:
            condition = None
            if parent.type in {"if_statement", "elif_clause"} and _same(child, parent.child_by_field_name("consequence") or parent):
                condition = parent.child_by_field_name("condition")
            elif parent.type == "conditional_expression" and len(parent.named_children) >= 3 and _same(child, parent.named_children[0]):
                condition = parent.named_children[1]
            if condition is not None:
                read = self.condition(condition)
                if read.gate and not read.negated:
                    return condition
            child, parent, depth = parent, parent.parent, depth + 1
        return None

    def _unit_constants(self, node: Node) -> dict[str, tuple[int, list[Node]]]:
        """Module-level names assigned a string or integer literal once, at module level, and bound nowhere else in
        the unit: name → (the assignment's line, the occurrences that give it as a value, not those a comparison
        reads). Read once per unit: the assignments first (the module's own statements), the whole unit only where a
        test reads one of them; nothing where the unit is too large to read whole."""
        if self._constants is None:
            root = parsing.root_of(node)
            literal: dict[str, list[int]] = defaultdict(list)
            for line in root.named_children:
                assignment = parsing.statement_assignment(line)
                left = assignment.child_by_field_name("left") if assignment is not None else None
                right = assignment.child_by_field_name("right") if assignment is not None else None
                if left is not None and left.type == "identifier" and right is not None and right.type in {"string", "integer"}:
                    literal[parsing.text(left)].append(left.start_point.row + 1)
            self._constants = {name: (lines[0], None) for name, lines in literal.items() if len(lines) == 1}
        if not any(c.type == "identifier" and parsing.text(c) in self._constants for c in node.named_children):
            return {}
        if any(uses is None for _, uses in self._constants.values()):
            found: dict[str, list[Node]] = {name: [] for name in self._constants}
            bound: set[str] = set()
            try:
                for current in parsing.walk(parsing.root_of(node), limit=MAX_CONSTANT_NODES, strict=True):
                    if current.type == "identifier" and parsing.text(current) in found:
                        role = _occurrence(current)
                        if role == "bound":
                            bound.add(parsing.text(current))
                        elif role == "value":
                            found[parsing.text(current)].append(current)
            except parsing.WalkLimit:
                found, bound = {}, set()
            self._constants = {name: (line, found[name]) for name, (line, _) in self._constants.items()
                               if name in found and name not in bound}
        return self._constants

    def _choosers(self, node: Node) -> dict[str, tuple[str, list[tuple[str | None, Node | None]]]]:
        """Module-level names assigned exactly once, from a call of a module-level function of the unit: name → the
        function's name and its returns as (the string returned or None, the condition of the if/elif arm holding it or None)."""
        if self._choosers_read is None:
            root = parsing.root_of(node)
            functions = {parsing.text(d.child_by_field_name("name")): d for d in root.named_children
                         if d.type == "function_definition" and d.child_by_field_name("name") is not None}
            assigned: dict[str, list[Node]] = defaultdict(list)
            for line in root.named_children:
                assignment = parsing.statement_assignment(line)
                left = assignment.child_by_field_name("left") if assignment is not None else None
                if left is not None and left.type == "identifier":
                    assigned[parsing.text(left)].append(assignment.child_by_field_name("right"))
            self._choosers_read = {}
            for name, values in assigned.items():
                value = values[0] if len(values) == 1 else None
                called = value.child_by_field_name("function") if value is not None and value.type == "call" else None
                function = functions.get(parsing.text(called)) if called is not None and called.type == "identifier" else None
                if function is not None:
                    self._choosers_read[name] = (parsing.text(called), _returns(function))
        return self._choosers_read

    def _switches_on(self, node: Node, depth: int = 0) -> bool:
        """`x != NO` (alone or as a term of an `and`): true when a setting is anything but off."""
        if node.type == "boolean_operator" and depth < 8:
            operator = node.child_by_field_name("operator")
            if operator is not None and parsing.text(operator) == "and":
                return any(self._switches_on(side, depth + 1) for side in (node.child_by_field_name("left"), node.child_by_field_name("right")) if side is not None)
            return False
        if node.type != "comparison_operator" or not any(op.type == "!=" for op in node.children):
            return False
        operands = node.named_children
        if len(operands) != 2:
            return False
        last = operands[1]
        word = parsing.text(last.child_by_field_name("attribute") if last.type == "attribute" else last).strip("'\"")
        return word in self.disabled_values

    def _is_gate(self, word: str) -> bool:
        g = self.guards
        if word in g.always_available:
            return False
        lowered = word.lower()
        if lowered.startswith(tuple(g.gate_prefixes)) and word.endswith(tuple(g.gate_suffixes)):
            return True
        if word.isupper() and (word.startswith(tuple(g.gate_upper_prefixes)) or word.endswith(tuple(g.gate_suffixes))):
            return True
        return False

    def is_flag(self, word: str) -> bool:
        lowered = word.lower()
        return lowered in self.guards.flag_words or lowered.startswith(tuple(self.guards.flag_prefixes))

    def _tokens(self, node: Node) -> set[str]:
        return _tokens_of(_words(node))


def _occurrence(name: Node) -> str:
    """What an occurrence of a module-level constant does: "bound" (assigned again, a parameter, a loop target),
    "read" (an operand of a comparison or an item of a collection one reads, `backend in (A, B)`; a keyword's or an
    attribute's name, which is no occurrence), "definition" (the module-level assignment itself) or "value" (returned,
    assigned, passed: handed on)."""
    parent = name.parent
    if parent is None:
        return "value"
    kind = parent.type
    if kind in {"keyword_argument", "default_parameter", "typed_default_parameter"}:
        return "value" if _same(name, parent.child_by_field_name("value") or parent) else (
            "read" if kind == "keyword_argument" else "bound")
    if kind == "attribute":
        return "value" if _same(name, parent.child_by_field_name("object") or parent) else "read"
    if kind == "assignment" and _same(name, parent.child_by_field_name("left") or parent):
        statement = parent.parent
        return "definition" if statement is not None and statement.parent is not None and statement.parent.type == "module" else "bound"
    if kind in {"augmented_assignment", "for_statement", "parameters", "global_statement", "nonlocal_statement",
                "named_expression", "pattern_list", "tuple_pattern", "list_pattern", "as_pattern_target",
                "for_in_clause", "typed_parameter", "dotted_name", "aliased_import", "function_definition",
                "class_definition"}:
        if kind in {"for_statement", "for_in_clause"} and not _same(name, parent.child_by_field_name("left") or parent):
            return "value"
        if kind == "augmented_assignment" and not _same(name, parent.child_by_field_name("left") or parent):
            return "value"
        return "bound"
    if kind == "comparison_operator":
        return "read"
    if kind in {"tuple", "list", "set"} and parent.parent is not None and parent.parent.type == "comparison_operator":
        return "read"
    return "value"


def _default_choice(comparison: Node, values: list[str]) -> bool:
    """`mode == "flash"` inside `def attention(q, k, v, mode="flash")`: the choice is the function's default, taken
    wherever a call leaves it out, so no option a user turns on (HunyuanVideo's attention(), whose callers pass
    no mode: the flash call runs on every forward)."""
    from ascend_feasibility.analyzer.context.switches import _enclosing, _parameter

    names = [c for c in comparison.named_children if c.type == "identifier"]
    function = _enclosing(comparison, "function_definition") if len(names) == 1 else None
    parameter = _parameter(function, parsing.text(names[0])) if function is not None else None
    default = parameter[1] if parameter is not None else None
    return default is not None and default.type == "string" and parsing.text(default).strip("'\"").lower() in values


def _keywords(block: Node, wanted: frozenset[str]) -> set[str]:
    """The `wanted` keyword arguments calls in the block pass."""
    return {parsing.text(n.child_by_field_name("name")) for n in parsing.walk(block, limit=MAX_CONDITION_NODES * 5)
            if n.type == "keyword_argument" and n.child_by_field_name("name") is not None
            and parsing.text(n.child_by_field_name("name")) in wanted}


def _fallback_note(other: Node, arm: str = "else") -> str:
    """Where the gate fails (the import missing, as on Ascend) the other arm runs: its first statement."""
    body = other.child_by_field_name("body") or other
    first = body.named_children[0] if body.named_children else body
    text = " ".join(parsing.text(first).split())
    return (f"where the import is missing the {arm} arm (line {other.start_point.row + 1}) runs: "
            f"{text[:97] + '...' if len(text) > 100 else text}")


def _returns(function: Node) -> list[tuple[str | None, Node | None]]:
    """The returns of a function whose body is an if/elif/else chain of returns (and nothing that returns
    elsewhere): (the plain string returned or None, the condition of its arm, None for else or the body)."""
    body = function.child_by_field_name("body")
    found: list[tuple[str | None, Node | None]] = []
    for statement in body.named_children if body is not None else []:
        if statement.type == "return_statement":
            found.append((_returned_string(statement), None))
        elif statement.type == "if_statement":
            arms = [(statement.child_by_field_name("condition"), statement.child_by_field_name("consequence"))]
            arms += [(c.child_by_field_name("condition"), c.child_by_field_name("consequence"))
                     for c in statement.children if c.type == "elif_clause"]
            arms += [(None, c.child_by_field_name("body")) for c in statement.children if c.type == "else_clause"]
            for condition, block in arms:
                lines = block.named_children if block is not None else []
                if len(lines) != 1 or lines[0].type != "return_statement":
                    return []
                found.append((_returned_string(lines[0]), condition))
        elif statement.type not in {"expression_statement", "comment"} or any(
                n.type == "return_statement" for n in parsing.walk(statement, limit=200)):
            return []
    return found


def _returned_string(statement: Node) -> str | None:
    value = statement.named_children[0] if statement.named_children else None
    content = [c for c in value.named_children if c.type == "string_content"] if value is not None and value.type == "string" else []
    return parsing.text(content[0]) if len(content) == 1 else None


DERIVED_ROUNDS = 3  # names derived from an availability flag through at most this many assignments


def _and_flag(value: Node, flags: set[str], derived: dict[str, str]) -> str | None:
    """The availability flag an assigned value holds only where the import worked: the flag itself or a name derived
    from it as one operand of an `and` (`config.use_flash_attn and has_flash_attn`, `... and self.using_flash`), or a
    presence test of a name the import's failure leaves None (`flash_attn_func is not None`, also inside an `and`)."""
    operands = [value]
    while operands and operands[0].type == "boolean_operator" and any(op.type == "and" for op in operands[0].children):
        operands = operands[0].named_children + operands[1:]
    if len(operands) == 1 and operands[0] is value and value.type in {"identifier", "attribute"}:
        return None  # a plain copy (`x = has_flash_attn`) is read as before: only `and`s and presence tests derive
    for part in operands:
        if part.type == "identifier" and parsing.text(part) in flags:
            return parsing.text(part)
        if part.type in {"identifier", "attribute"} and parsing.text(part) in derived:
            return derived[parsing.text(part)]
        if _none_test(part) == "is not" and part.named_children[0].type == "identifier" \
                and parsing.text(part.named_children[0]) in flags:
            # `flash_attn_available = flash_attn_func is not None`: the import's presence by another name
            return parsing.text(part.named_children[0])
    return None


def _none_test(node: Node) -> str | None:
    """"is" or "is not" for `X is None` / `X is not None`, else None."""
    if node.type != "comparison_operator" or len(node.named_children) != 2 or node.named_children[1].type != "none":
        return None
    operators = [op.type for op in node.children if not op.is_named]
    return "is not" if operators == ["is not"] else "is" if operators == ["is"] else None


def _tokens_of(words: list[str]) -> set[str]:
    """The lower-case parts of identifiers and strings (`is_torch_npu_available` → is, torch, npu, available)."""
    tokens: set[str] = set()
    for word in words:
        tokens.update(t for t in word.lower().replace(":", "_").replace("-", "_").split("_") if t)
    return tokens


def _compared(condition: Node | None) -> str | None:
    """What `device_type == 'cuda'` compares with a string (`device_type`), for an equality test."""
    if condition is None or condition.type != "comparison_operator" or len(condition.named_children) != 2:
        return None
    left, right = condition.named_children
    if right.type == "string" and left.type in {"identifier", "attribute"}:
        return parsing.text(left)
    if left.type == "string" and right.type in {"identifier", "attribute"}:
        return parsing.text(right)
    return None


def _legacy_types_dropped(words: list[str]) -> list[str]:
    """`isinstance(t, torch.cuda.BoolTensor)` tests a tensor's dtype: the `cuda` before a legacy tensor type does not
    make the condition a CUDA check (an NPU tensor needs the branch just as much)."""
    return [w for i, w in enumerate(words)
            if not (w == "cuda" and i + 1 < len(words) and words[i + 1].endswith(("Tensor", "Storage")))]


def _words(node: Node, skip_negated: bool = False) -> list[str]:
    """Identifiers and string contents under a node (bounded); with `skip_negated`, none under an inner `not`,
    `!=` or `not in` (what the condition rules out)."""
    words, stack, seen = [], [node], 0
    while stack and seen < MAX_CONDITION_NODES:
        current = stack.pop()
        seen += 1
        if skip_negated and seen > 1 and (current.type == "not_operator" or (
                current.type == "comparison_operator" and any(op.type in {"!=", "not in"} for op in current.children))):
            continue
        if current.type == "identifier":
            words.append(parsing.text(current))
        elif current.type == "string_content":
            words.append(parsing.text(current))
        else:
            stack.extend(reversed(current.children))
    return words


def _names_npu_literal(node: Node, npu_tokens: frozenset[str]) -> bool:
    if node.type != "string":
        return False
    return any(word.lower().split(":")[0] in npu_tokens for word in _words(node))


def _import_fallback_names(root: Node, import_errors: frozenset[str], cuda_only: frozenset[str] = frozenset()
                           ) -> tuple[set[str], dict[str, Node], set[str], dict[str, str]]:
    """What module-level `try` imports fall back to when the import fails: the names the ImportError handler binds to
    None, or to False where the try body set them True after the import (`has_flash_attn = True` / `has_flash_attn =
    False`): availability flags; the names it defines again, with the handler (a fallback implementation:
    `except ImportError: class RMSNorm(nn.Module): ...`); and the names such a try imports where its handler binds
    an availability flag (missing where the import failed); and the value each such flag has where the import worked
    (`FLASH_VER = 2` in the try, `FLASH_VER = None` in the handler: `FLASH_VER == 2` tests the import too). A name
    the module binds to None before a try imports it from a CUDA-only package (`cuda_only`, conventions.toml) and
    whose handler only goes on (`except ImportError: pass`) is such a None as well."""
    to_none: set[str] = set()
    redefined: dict[str, Node] = {}
    gated: set[str] = set()
    marks: dict[str, str] = {}
    preset: set[str] = set()  # names a module-level `name = None` (also `a = b = None`) binds before a try imports them
    for statement in root.named_children:
        preset |= _none_bindings(statement)
        body = statement.child_by_field_name("body") if statement.type == "try_statement" else None
        if body is None:
            continue
        imported = {parsing.import_bound_name(line, name) for line in body.named_children
                    if line.type in {"import_statement", "import_from_statement"}
                    for name in line.children_by_field_name("name")}
        silent = _silent_handler(statement, import_errors) if preset & imported else None
        if silent is not None:
            imported_cuda_only = {parsing.import_bound_name(line, name) for line in body.named_children
                                  if line.type in {"import_statement", "import_from_statement"}
                                  and _imported_roots(line) & cuda_only for name in line.children_by_field_name("name")}
            # `name = None` / `try: from xformers.ops import name` / `except ImportError: pass`: the sentinel stays
            # None where the import failed, as if the handler bound it (round 28 A1 C9, B2 C4)
            kept = (imported_cuda_only & preset) - _rebound(silent)
            to_none |= kept
            gated |= kept
        # `has_flash_attn = True` / `FLASH_VER = 2` after the import: a mark of its success (the handler unsets it)
        set_on = {name: text for name, value, text in _constant_assignments(body)
                  if value in MARK_VALUES} if imported else {}
        for clause in statement.children:
            caught = _caught_names(clause) if clause.type == "except_clause" else None
            if caught is None or (caught and not caught & import_errors):
                continue
            block = next((c for c in clause.named_children if c.type == "block"), None)
            if block is None or any(line.type == "raise_statement" for line in block.named_children):
                continue  # the failure goes on: nothing falls back
            for line in block.named_children:
                definition = line.child_by_field_name("definition") if line.type == "decorated_definition" else line
                if definition.type in {"class_definition", "function_definition"}:
                    name = definition.child_by_field_name("name")
                    if name is not None and parsing.text(name) in imported:
                        redefined[parsing.text(name)] = clause
                    continue
                assignment = parsing.statement_assignment(line)
                if assignment is None:
                    continue
                left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
                if left is None or right is None or left.type != "identifier":
                    continue
                if parsing.text(left) in set_on and right.type in {"false", "none"}:
                    to_none.add(parsing.text(left))
                    marks[parsing.text(left)] = set_on[parsing.text(left)]
                    gated |= imported - redefined.keys()
                    continue
                if parsing.text(left) not in imported:
                    continue
                if right.type == "none":
                    to_none.add(parsing.text(left))
                    gated.add(parsing.text(left))
                else:
                    redefined[parsing.text(left)] = clause
    return to_none, redefined, gated, marks


MARK_VALUES = frozenset({"true", "integer", "string"})  # literals a try body sets to mark that its import worked


def _none_bindings(statement: Node) -> set[str]:
    """The names a module-level statement binds to None: `name = None`, `a = b = None`."""
    assignment = parsing.statement_assignment(statement)
    names: set[str] = set()
    while assignment is not None:
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return set()
        names.add(parsing.text(left))
        if right.type == "none":
            return names
        assignment = right if right.type == "assignment" else None
    return set()


def _silent_handler(statement: Node, import_errors: frozenset[str]) -> Node | None:
    """The block of a `try` statement's handler that catches an import's failure and lets the program go on (no
    raise), else None."""
    if statement.type != "try_statement":
        return None
    for clause in statement.children:
        caught = _caught_names(clause) if clause.type == "except_clause" else None
        if caught is None or (caught and not caught & import_errors):
            continue
        block = next((c for c in clause.named_children if c.type == "block"), None)
        if block is not None and not any(line.type == "raise_statement" for line in block.named_children):
            return block
    return None


def _rebound(block: Node) -> set[str]:
    """The names a handler's block binds (assigns, defines or imports) directly."""
    names: set[str] = set()
    for line in block.named_children:
        definition = line.child_by_field_name("definition") if line.type == "decorated_definition" else line
        if definition.type in {"class_definition", "function_definition"}:
            name = definition.child_by_field_name("name")
            names |= {parsing.text(name)} if name is not None else set()
        elif definition.type in {"import_statement", "import_from_statement"}:
            names |= {parsing.import_bound_name(definition, name) for name in definition.children_by_field_name("name")}
        else:
            assignment = parsing.statement_assignment(line)
            left = assignment.child_by_field_name("left") if assignment is not None else None
            names |= {parsing.text(left)} if left is not None and left.type == "identifier" else set()
    return names


def _constant_assignments(block: Node) -> list[tuple[str, str, str]]:
    """`name = True` / `name = False` / `name = None` / `name = 2` / `name = "v2"` statements directly in a block:
    (name, node type of the value, its text)."""
    found = []
    for line in block.named_children:
        assignment = parsing.statement_assignment(line)
        if assignment is None:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier" and right.type in {"true", "false", "none", *MARK_VALUES}:
            found.append((parsing.text(left), right.type, parsing.text(right)))
    return found


def import_is_caught(statement: Node, import_errors: frozenset[str]) -> bool:
    """An import in the body of a `try` whose `except` catches its failure and does more than raise: it cannot stop the
    program (`try: import xformers.ops as xops` / `except ImportError: xops = None`)."""
    current = statement
    while current.parent is not None and current.type not in {"function_definition", "class_definition"}:
        parent = current.parent
        body = parent.child_by_field_name("body") if parent.type == "try_statement" else None
        if body is not None and body.id == current.id:
            for clause in parent.children:
                if clause.type == "except_clause":
                    caught = _caught_names(clause)
                    if (not caught or caught & import_errors) and not only_raises(clause):
                        return True
        current = parent
    return False


def import_statements(root: Node) -> list[Node]:
    """The import and from-import statements of a tree, in source order (by a query of their own)."""
    return parsing.captures(parsing.query("python", IMPORT_STATEMENTS_QUERY), root).get("import", [])


def _imported_roots(statement: Node) -> set[str]:
    """The top-level packages an import statement loads (`import torch_npu as tn`, `from torch_npu.contrib import x`)."""
    if statement.type == "import_from_statement":
        module = statement.child_by_field_name("module_name")
        names = [module] if module is not None else []
    else:
        names = [n.child_by_field_name("name") if n.type == "aliased_import" else n
                 for n in statement.children_by_field_name("name")]
    # the first identifier of the dotted name, read from the tree (`import torch_npu<TAB>as tn`, `import torch_npu .npu`
    # are the same import); a relative module (`from .utils import x`) has none: ""
    return {parsing.text(n.named_children[0]) if n.type == "dotted_name" and n.named_children else ""
            for n in names if n is not None}


def _caught_names(clause: Node) -> set[str]:
    names = set()
    for child in clause.named_children:
        if child.type == "block":
            break
        names.update(_words(child))
    return names


def _alias(clause: Node) -> str:
    """The name an except clause binds (`except E as e`: e), or ""."""
    for child in clause.named_children:
        if child.type == "as_pattern":
            target = child.child_by_field_name("alias")
            if target is not None:
                return parsing.text(target).strip()
        if child.type == "block":
            break
    return ""


def _shape(block: Node, alias: str) -> list[tuple[str, str]]:
    """A handler body's leaves, with strings (its messages) and the clause's bound name blanked: two handlers of the
    same shape differ only in what they print."""
    leaves = []
    for current in parsing.walk(block, limit=MAX_CONDITION_NODES * 10, prune=_STRING, named=False, source_order=True):
        if current.type == "string":
            leaves.append(("string", ""))
        elif current.child_count == 0:
            text = parsing.text(current)
            leaves.append((current.type, "" if alias and text == alias else text))
    return leaves


def only_raises(branch: Node) -> bool:
    """An if-branch, else-branch or except-clause that does nothing but raise."""
    body = branch.child_by_field_name("body") or branch.child_by_field_name("consequence") or branch
    statements = [c for c in (body.named_children if body.type == "block" else [body]) if c.type != "comment"]
    if branch.type == "except_clause":
        blocks = [c for c in branch.named_children if c.type == "block"]
        statements = [c for c in blocks[0].named_children if c.type != "comment"] if blocks else []
    return bool(statements) and all(s.type == "raise_statement" for s in statements)


WARNINGS = {"warn", "warning", "warning_once", "info", "debug", "print", "warnings"}


def only_raises_or_warns(block: Node, depth: int = 0) -> bool:
    """A body that only raises, asserts a query, logs or warns (or passes): it guards a message, not code that runs
    on the device (`if "cuda" in device: assert torch.cuda.is_available()`, a sanity check skipped for "npu:0")."""
    statements = [c for c in block.named_children if c.type != "comment"]
    if not statements:
        return False
    for statement in statements:
        if statement.type in {"raise_statement", "pass_statement"} or _asserts_a_query(statement):
            continue
        if statement.type == "if_statement":  # nested misuse checks: every arm raises or warns
            arms = [statement.child_by_field_name("consequence")] + [
                c.child_by_field_name("consequence") or c.child_by_field_name("body") or c
                for c in statement.children if c.type in {"elif_clause", "else_clause"}]
            arms = [a.named_children[-1] if a is not None and a.type == "else_clause" and a.named_children else a for a in arms]
            if depth < 8 and all(a is not None and a.type == "block" and only_raises_or_warns(a, depth + 1) for a in arms):
                continue
            return False
        call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None or parsing.text(function).rsplit(".", 1)[-1] not in WARNINGS:
            return False
    return True


QUERY_PREFIXES = ("is_", "has_")  # a yes/no query's name: is_available, is_bf16_supported, has_fp8


def _asserts_a_query(statement: Node) -> bool:
    """`assert torch.cuda.is_available()` (with a message or not): an availability question, raised on when it fails.
    An assert of a computed value (`assert abs(total - 171.59) < 1e-2`, a test's expected result on CUDA;
    `assert torch.equal(a, b)`) is not one: the other arm checks other values there, and which arm runs matters."""
    if statement.type != "assert_statement" or not statement.named_children:
        return False
    condition = statement.named_children[0]
    if condition.type == "not_operator":
        condition = condition.child_by_field_name("argument") or condition
    name = parsing.callee_name(condition) if condition.type == "call" else None
    return name is not None and name.startswith(QUERY_PREFIXES)


def only_calls(block: Node, depth: int = 0) -> bool:
    """A body of nothing but call statements (`gc.collect()`, `torch.cuda.empty_cache()`), also inside a `with` block
    (`with torch.cuda.device(i): torch.cuda.empty_cache()`)."""
    statements = [c for c in block.named_children if c.type != "comment"]
    if not statements:
        return False
    for statement in statements:
        if statement.type == "with_statement" and depth < 4:
            inner = statement.child_by_field_name("body")
            if inner is None or not only_calls(inner, depth + 1):
                return False
        elif not (statement.type == "expression_statement" and statement.named_children
                  and statement.named_children[0].type == "call"):
            return False
    return True


def returns_input_unchanged(block: Node) -> bool:
    """`if not (device_type == "cuda" and torch.cuda.is_available()): logger.warning(...); return fwd_bwd_fn`: the
    body warns at most and hands back one of its function's parameters, the eager path a CUDA-only wrapper falls back
    to (torchtitan's wrap_with_cuda_graph)."""
    statements = [c for c in block.named_children if c.type != "comment"]
    if not statements or statements[-1].type != "return_statement" or not statements[-1].named_children:
        return False
    returned = statements[-1].named_children[0]
    if returned.type != "identifier" or not only_raises_or_warns_block(statements[:-1]):
        return False
    function, depth = block.parent, 0
    while function is not None and function.type != "function_definition" and depth < MAX_DEPTH:
        function, depth = function.parent, depth + 1
    parameters = function.child_by_field_name("parameters") if function is not None else None
    names = {parsing.text(p.named_children[0] if p.type != "identifier" and p.named_children else p)
             for p in (parameters.named_children if parameters is not None else [])}
    return parsing.text(returned) in names


def exits_early(block: Node) -> bool:
    """`if not torch.cuda.is_available(): return ""`: the body warns at most and returns (any value, or none): the
    function's own answer for a host without CUDA, given before its CUDA-only part."""
    statements = [c for c in block.named_children if c.type != "comment"]
    return bool(statements) and statements[-1].type == "return_statement" and only_raises_or_warns_block(statements[:-1])


def tries_with_fallback(block: Node) -> bool:
    """`if x.is_cuda: try: return dtw_cuda(x) except (RuntimeError, ...): warnings.warn("falling back")` with the
    fallback after the check (whisper's DTW and median filter): the body is one try whose handlers only warn or pass,
    so skipping it on Ascend is what its own failure path does."""
    statements = [c for c in block.named_children if c.type != "comment"]
    if len(statements) != 1 or statements[0].type != "try_statement":
        return False
    handlers = [c for c in statements[0].children if c.type == "except_clause"]
    if not handlers or any(c.type == "finally_clause" for c in statements[0].children):
        return False
    for handler in handlers:
        blocks = [c for c in handler.named_children if c.type == "block"]
        if not blocks or any(s.type == "raise_statement" for s in blocks[0].named_children):
            return False
        if not only_raises_or_warns(blocks[0]):
            return False
    return True


def only_raises_or_warns_block(statements: list[Node]) -> bool:
    for statement in statements:
        call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None or parsing.text(function).rsplit(".", 1)[-1] not in WARNINGS:
            return False
    return True


NAMED_DEFINITIONS = frozenset({"function_definition", "class_definition", "assignment"})
NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")  # snake_case and CamelCase parts: XPUAccelerator → XPU, Accelerator
NOT_ONE_BACKEND = frozenset({"gpu", "gpus", "cpu", "nvidia"})  # `to_xpu_or_gpu`, `mps_to_cpu`: more than one backend's
LEAVES = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})


def _after_exit(child: Node) -> Guard | None:
    """A statement after a `return`, `raise`, `continue` or `break` of its own block never runs (InternImage's
    sam/main_zero_shot_instance_seg.py: `else: raise NotImplementedError` before the distributed wrapper)."""
    sibling, seen = child.prev_named_sibling, 0
    while sibling is not None and seen < 50:
        seen += 1
        if sibling.type in LEAVES:
            word = sibling.type.split("_")[0]
            return Guard("optional", sibling, f"the block is left by this {word} first: nothing after it runs")
        sibling = sibling.prev_named_sibling
    return None


def _cuda_version_gate(module: Node, cuda_build: tuple[str, ...]) -> Guard | None:
    """The top-level `if <CUDA build version> not in (<version strings>): raise` of a module without definitions, the
    version read directly or through a top-level name bound from it (`cuda = str(torch.version.cuda)`)."""
    statements = module.named_children
    if any(s.type in {"function_definition", "class_definition", "decorated_definition"} for s in statements):
        return None
    names = {parsing.text(left) for s in statements if s.type == "expression_statement" and s.named_children
             and s.named_children[0].type == "assignment"
             for left in [s.named_children[0].child_by_field_name("left")] if left is not None and left.type == "identifier"
             and any(name in parsing.text(s) for name in cuda_build)}
    for statement in statements:
        condition = statement.child_by_field_name("condition") if statement.type == "if_statement" else None
        body = statement.child_by_field_name("consequence") if condition is not None else None
        if body is None or condition.type != "comparison_operator" or not only_raises(body):
            continue
        operands = condition.named_children
        if (len(operands) == 2 and any(op.type == "not in" for op in condition.children)
                and operands[1].type in {"tuple", "list", "set"} and operands[1].named_children
                and all(item.type == "string" for item in operands[1].named_children)
                and (parsing.text(operands[0]) in names or any(name in parsing.text(operands[0]) for name in cuda_build))):
            versions = ", ".join(parsing.text(item).strip("'\"") for item in operands[1].named_children[:8])
            return Guard("other-backend", statement, f"a CUDA-wheel installer script: it raises unless torch is a CUDA "
                                                     f"build of {versions}; on Ascend torch.version.cuda is None")
    return None


def _prior_ifs(child: Node) -> Iterator[tuple[Node, Node, Node]]:
    """(statement, condition, body) of each `if` with no elif or else arm among the 50 statements before `child` in
    its block, nearest first: the early exits the guards read (`if not x.is_cuda: return ...`)."""
    sibling, seen = child.prev_named_sibling, 0
    while sibling is not None and seen < 50:
        seen += 1
        if sibling.type == "if_statement" and not sibling.children_by_field_name("alternative"):
            condition, body = sibling.child_by_field_name("condition"), sibling.child_by_field_name("consequence")
            if condition is not None and body is not None:
                yield sibling, condition, body
        sibling = sibling.prev_named_sibling


def _leaves_block(block: Node) -> bool:
    """Does the block always leave the one around it: its last statement returns, raises, continues or breaks."""
    statements = [c for c in block.named_children if c.type != "comment"]
    return bool(statements) and statements[-1].type in LEAVES


def _ends_in(block: Node, kind: str) -> bool:
    statements = [c for c in block.named_children if c.type != "comment"]
    return bool(statements) and statements[-1].type == kind


def _same(a: Node, b: Node) -> bool:
    return a.start_byte == b.start_byte and a.end_byte == b.end_byte and a.type == b.type


def test_function(node: Node) -> Node | None:
    """The module-level `def test_*():` holding this site (a test kept in a product module and run from its
    `__main__` block), if any."""
    outermost, current, depth = None, node.parent, 0
    while current is not None and depth < MAX_DEPTH:
        if current.type == "function_definition":
            outermost = current
        elif current.type == "class_definition":
            return None
        current, depth = current.parent, depth + 1
    name = outermost.child_by_field_name("name") if outermost is not None else None
    return outermost if name is not None and parsing.text(name).startswith("test_") else None


_ATTRIBUTE = frozenset({"attribute"})


def _NEGATING(node: Node) -> bool:
    """What a condition rules out (`not ...`, `!=`, `not in`): its helper calls are no positive test."""
    return node.type == "not_operator" or (
        node.type == "comparison_operator" and any(op.type in {"!=", "not in"} for op in node.children))


_STRING = frozenset({"string"})
OPTION_WORDS = frozenset({"environ", "getenv", "args", "opt", "opts", "config", "cfg", "hparams"})
IMPORT_STATEMENTS = frozenset({"import_statement", "import_from_statement"})


def _import_option_tests(root: Node, imports: Callable[[Node], list[Node]] = import_statements,
                         limit: int = 200_000) -> frozenset[str]:
    """The conditions (whitespace normalised) of if/elif arms that read an option and hold an import statement (one
    of the arm's own statements). The arms are read from the unit's import statements (`imports`: the unit's combined
    query's, through GuardReader.import_statements); a tree that may hold more than `limit` nodes is walked, as far
    as the limit."""
    if root.descendant_count < limit:
        found = set()
        for statement in imports(root):
            body = statement.parent
            arm = body.parent if body is not None and body.type == "block" else None
            if arm is not None and arm.type in {"if_statement", "elif_clause"} and arm.child_by_field_name("consequence") == body:
                condition = arm.child_by_field_name("condition")
                if condition is not None and _reads_option(condition):
                    found.add(" ".join(parsing.text(condition).split()))
        return frozenset(found)
    found = set()
    for node in parsing.walk(root, limit=limit):
        if node.type in {"if_statement", "elif_clause"}:
            condition, body = node.child_by_field_name("condition"), node.child_by_field_name("consequence")
            if (condition is not None and body is not None and any(c.type in IMPORT_STATEMENTS for c in body.named_children)
                    and _reads_option(condition)):
                found.add(" ".join(parsing.text(condition).split()))
    return frozenset(found)


def _reads_option(condition: Node) -> bool:
    return any(node.type == "identifier" and parsing.text(node) in OPTION_WORDS for node in parsing.walk(condition))
