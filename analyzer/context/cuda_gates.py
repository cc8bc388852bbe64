"""CUDA checks that gate a CUDA-only feature, read from the code around a check (or any site) beyond its own findings.

A CUDA check (`torch.cuda.is_available()`, `x.is_cuda`, `device.type == "cuda"`) is right as it stands on Ascend when
what it lets through is CUDA-only, so skipping it there is the correct behaviour:
- its body imports or calls a CUDA-only package or function (flash_attn, xformers, nunchaku, pynvml, cuFile,
  `torch._inductor.cudagraph_mark_step_begin()`), even where that import has no finding of its own;
- it is assigned to a name (`cuda_available = torch.cuda.is_available()`, `can_use_cuda_kernels = (... and
  torch.cuda.is_available() and ...)`) that later if-statements test: their bodies decide;
- it is `and`-ed with a compute-capability query (`torch.cuda.is_available() and
  torch.cuda.get_device_capability()[0] >= 7`): a capability number only means something on NVIDIA GPUs;
- any site after an earlier statement that already excludes NPU: `if not torch.cuda.is_available(): raise`, an
  import of a CUDA-only package that raises when it is missing, a call of a same-file helper that raises unless the
  tensors are on CUDA, or the else branch of such a check.
And in a project whose accelerator abstraction has an NPU implementation (DeepSpeed's `get_accelerator()` with
accelerator/npu_accelerator.py), a comparison of the abstraction's name with "cuda" selects CUDA-only features on
purpose: the project already has its NPU path (`npu-path`).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.default_built import built_by_default
from ascend_feasibility.analyzer.context.device_off_switches import DeviceOffSwitches
from ascend_feasibility.analyzer.context.guards import (
    MAX_DEPTH,
    Guard,
    GuardReader,
    _same,
    _words,
    only_raises,
    only_raises_or_warns,
)
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_SIBLINGS = 60
MAX_CONTRACT_NODES = 400  # nodes of an assert's condition read for an availability call
MAX_USER_DEPTH = 3  # a class used by a class used by ... a guarded function
MAX_USERS = 20
FEATURE_DOMAIN = "custom_ops"  # uses of a CUDA-only class are read as a CUDA-only feature's sites
MAX_BODY_NODES = 4000
ASSIGNMENTS = {"assignment", "augmented_assignment"}
MAX_FLAG_USES = 200
_COMPARISON = frozenset({"comparison_operator"})
CONDITION_PARTS = {"boolean_operator", "not_operator", "parenthesized_expression"}


def _enclosing(node: Node):
    """(child, parent) pairs from a site up to its function, class or module (that one included)."""
    child, parent, depth = node, node.parent, 0
    while parent is not None and depth < MAX_DEPTH:
        yield child, parent
        if parent.type in {"function_definition", "class_definition", "module"}:
            return
        child, parent, depth = parent, parent.parent, depth + 1


def _earlier(statement: Node):
    """The statements before this one in its block, nearest first (bounded)."""
    sibling, seen = statement.prev_named_sibling, 0
    while sibling is not None and seen < MAX_SIBLINGS:
        seen += 1
        yield sibling
        sibling = sibling.prev_named_sibling


def _first_operand(chain: Node) -> Node:
    """The leftmost operand of an `and`/`or` chain (`a and b and c` is `(a and b) and c`)."""
    while chain.type == "boolean_operator" and chain.child_by_field_name("left") is not None:
        chain = chain.child_by_field_name("left")
    return chain


def _none_test(statement: Node) -> str | None:
    """`if NAME is None:` → NAME."""
    condition = statement.child_by_field_name("condition")
    if condition is None or condition.type != "comparison_operator" or len(condition.named_children) != 2:
        return None
    operators = [c.type for c in condition.children if not c.is_named]
    left, right = condition.named_children
    if operators == ["is"] and right.type == "none" and left.type in {"identifier", "attribute"}:
        return parsing.text(left)
    return None


class CudaGates:
    def __init__(self, reader: GuardReader, npu_accelerator: str | None) -> None:
        self.reader = reader
        guards = reader.guards
        self.packages = frozenset(guards.cuda_only_packages)
        self.calls = frozenset(guards.cuda_only_calls)
        self.capability = frozenset(guards.capability_calls)
        self.card_names = frozenset(guards.card_name_calls)
        self.accelerator_calls = frozenset(guards.accelerator_calls)
        self.name_tokens = tuple(guards.cuda_only_name_tokens)
        self.library_tokens = tuple(guards.library_class_tokens)
        self.availability = tuple(guards.availability_checks)
        self.npu_accelerator = npu_accelerator  # the project's NPU accelerator file, when it has one
        self.device_off = DeviceOffSwitches(reader)  # flags a class switches off outside CUDA (composer's callbacks)
        self._excluding: dict[int, Guard | None] = {}  # per unit: node id → an earlier statement excluding NPU
        self._excludes: dict[int, bool] = {}  # per unit: statement id → does it exclude NPU
        self._users: dict[tuple[int, int], Guard | None] = {}  # per unit: (site, depth) → its users' guard

    def start_unit(self) -> None:
        """Forget what was learnt about the previous unit's tree."""
        self._excluding.clear()
        self._excludes.clear()
        self._users.clear()

    # the check's own statement -----------------------------------------------------------------------------------
    def accelerator_choice(self, node: Node) -> Guard | None:
        """`get_accelerator().device_name() == 'cuda'` in a project with an NPU accelerator: npu-path."""
        if self.npu_accelerator is None:
            return None
        current, depth = node, 0
        while current is not None and depth < MAX_DEPTH:
            if current.type == "comparison_operator" and self._names_accelerator(current):
                return Guard("npu-path", current)
            if current.type in {"if_statement", "elif_clause"}:
                condition = current.child_by_field_name("condition")
                if condition is not None and self._compares_accelerator(condition):
                    return Guard("npu-path", current)
            if current.type in {"function_definition", "class_definition", "module"}:
                return None
            current, depth = current.parent, depth + 1
        return None

    def _names_accelerator(self, comparison: Node) -> bool:
        """The comparison calls the accelerator abstraction, directly or through a name the enclosing function
        assigned from it (`accelerator = get_accelerator()` ... `accelerator.device_name() == 'cuda'`)."""
        words = set(_words(comparison))
        if words & self.accelerator_calls:
            return True
        function, depth = comparison.parent, 0
        while function is not None and function.type != "function_definition" and depth < MAX_DEPTH:
            function, depth = function.parent, depth + 1
        body = function.child_by_field_name("body") if function is not None else None
        for statement in body.named_children[:MAX_SIBLINGS] if body is not None else []:
            assignment = parsing.statement_assignment(statement)
            if assignment is None:
                continue
            left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
            if (left is not None and right is not None and left.type == "identifier" and parsing.text(left) in words
                    and right.type == "call" and set(_words(right.child_by_field_name("function") or right)) & self.accelerator_calls):
                return True
        return False

    def _compares_accelerator(self, condition: Node) -> bool:
        return any(current.type == "comparison_operator" and self._names_accelerator(current)
                   for current in parsing.walk(condition, limit=200, prune=_COMPARISON))

    def capability_pair(self, node: Node, later_only: bool = False) -> Guard | None:
        """A CUDA availability check and a capability query joined by `and`. `later_only`: only for a site after the
        chain's first operand, which runs only once the operands before it hold (round 20 A2 row 99: the third
        operand of `"cuda" in device and get_device_properties(device).major >= 7 and not get_device_name()...`
        shares the pair's reach)."""
        current, top, depth = node, None, 0
        while current is not None and depth < 12:
            if current.type == "boolean_operator":
                top = current
            elif current.type not in {"parenthesized_expression", "call", "attribute", "argument_list", "subscript",
                                      "comparison_operator", "not_operator", "identifier", "integer"}:
                break
            current, depth = current.parent, depth + 1
        if top is None or not any(c.type == "and" for c in top.children):
            return None
        if later_only and node.start_byte < _first_operand(top).end_byte:
            return None
        words = set(_words(top))
        if not words & self.capability:
            return None
        tokens = self.reader._tokens(top)
        if not tokens & self.reader.cuda_tokens:
            return None
        return Guard("cuda-only-guarded", top)

    def gated_body(self, statement: Node) -> bool:
        """Does the body of this CUDA check (an if-statement) import or call a CUDA-only package or function?"""
        body = statement.child_by_field_name("consequence")
        return body is not None and self._uses_cuda_only(body)

    def card_model_test(self, body: Node, depth: int = 0) -> Node | None:
        """The string a CUDA check's body looks for in a card's model name, where that is all the body does: every
        statement a loop over the devices or an `if` comparing `get_device_name(i)` (or a device's properties) with a
        literal (`if "NVIDIA GB10" in str(torch.cuda.get_device_name(i)).upper(): fast_inference = False`), whose own
        body tests nothing more. A workaround for one NVIDIA card model: no Ascend NPU is that card."""
        statements = [c for c in body.named_children if c.type != "comment"]
        found = None
        for statement in statements:
            if statement.type == "for_statement" and depth < 2:
                inner = statement.child_by_field_name("body")
                found = self.card_model_test(inner, depth + 1) if inner is not None else None
            elif statement.type == "if_statement" and not statement.children_by_field_name("alternative"):
                found = self._card_name_literal(statement.child_by_field_name("condition"))
            else:
                found = None
            if found is None:
                return None
        return found

    def _card_name_literal(self, condition: Node | None) -> Node | None:
        if condition is None or not set(_words(condition)) & self.card_names:
            return None
        return next((c for c in parsing.walk(condition, limit=200) if c.type == "string"
                     and parsing.text(c).strip("'\"").strip()), None)

    def assigned_checks(self, node: Node) -> list[Node]:
        """The if-statements (after the assignment, in the same block) testing the name a CUDA check is assigned to."""
        current, depth = node, 0
        assignment = None
        while current is not None and depth < 12:
            if current.type in ASSIGNMENTS:
                assignment = current
                break
            if current.type in {"block", "module", "if_statement", "function_definition"}:
                return []
            current, depth = current.parent, depth + 1
        if assignment is None:
            return []
        left = assignment.child_by_field_name("left")
        if left is None or left.type != "identifier":
            return []
        name = parsing.text(left)
        statement = assignment.parent if assignment.parent is not None and assignment.parent.type == "expression_statement" else assignment
        if _module_level(statement):
            return self.flag_uses(statement, name)
        found, sibling, seen = [], statement.next_named_sibling, 0
        while sibling is not None and seen < MAX_SIBLINGS:
            seen += 1
            if sibling.type == "if_statement":
                condition = sibling.child_by_field_name("condition")
                if condition is not None and name in _words(condition):
                    found.append(sibling)
            sibling = sibling.next_named_sibling
        return found

    def flag_uses(self, statement: Node, name: str) -> list[Node]:
        """A module-level flag (`HAS_CUDA = torch.cuda.is_available()`, also in a try/except): the if-statements of
        the unit that test it, when every other mention of the name is one of those tests or a new value for it
        (`HAS_CUDA = False` in the handler). Empty when some use is anything else (`pin_memory=HAS_CUDA`, a choice
        of device, an import elsewhere cannot be seen): then the definition is judged as a check of its own."""
        root = parsing.root_of(statement)
        mentions = parsing.captures(parsing.query("python", f'((identifier) @name (#eq? @name "{name}"))'), root).get("name", [])
        if len(mentions) > MAX_FLAG_USES:
            return []
        tests: dict[int, Node] = {}
        for mention in mentions:
            parent = mention.parent
            if parent is not None and parent.type in ASSIGNMENTS and _same(parent.child_by_field_name("left"), mention):
                continue  # the definition, or another value for the flag
            test = _tested_by(mention)
            if test is None:
                return []
            tests[test.id] = test
        return sorted(tests.values(), key=lambda t: t.start_byte)

    def name_gate(self, statement: Node) -> bool:
        """An if-statement testing a CUDA check's name: right on Ascend when it only raises/warns when the name is
        false (`if not cuda_available: raise`), or its body uses a CUDA-only package."""
        condition = statement.child_by_field_name("condition")
        body = statement.child_by_field_name("consequence")
        if condition is None or body is None:
            return False
        negated = condition.type == "not_operator"
        if negated:
            return only_raises_or_warns(body)
        return self._uses_cuda_only(body)

    def _names_library(self, name: str) -> bool:
        """A class named for a CUDA-only library (FlashAttention, XFormersAttention): an alternative implementation."""
        lowered = name.lower()
        return "npu" not in lowered and any(token in lowered for token in self.library_tokens)

    def _names_cuda_only(self, name: str) -> bool:
        lowered = name.lower()
        return any(token in lowered for token in self.name_tokens)

    def named_cuda_only(self, statement: Node) -> Node | None:
        """The function or class around a check whose name marks an NVIDIA-only feature (ActionCudaGraphManager,
        _capture_cuda_graph): the check decides whether that feature is used, and off CUDA it is not."""
        current, depth = statement.parent, 0
        while current is not None and depth < MAX_DEPTH:
            if current.type in {"function_definition", "class_definition"}:
                name = current.child_by_field_name("name")
                if name is not None and self._names_cuda_only(parsing.text(name)):
                    return current
            current, depth = current.parent, depth + 1
        return None

    def users_guarded(self, node: Node, depth: int = 0) -> Guard | None:
        """A site in a class, or a method, that the unit uses only where a CUDA check has already passed: torchtitan's
        CUDAGraphWrapper is built only in wrap_with_cuda_graph after `if not (device_type == "cuda" and ...): return
        fwd_bwd_fn`, and _CUDAGraphManager.maybe_initialize is called only from that wrapper. Every use of the class
        (or call of the method) is read as a CUDA-only feature's would be; the class must be module-private or named
        for an NVIDIA-only feature (another file may build a public class)."""
        if depth > MAX_USER_DEPTH:
            return None
        key = (node.id, depth)
        if key in self._users:
            return self._users[key]
        self._users[key] = None  # a use inside its own users: undecided
        decided = None
        for scope in self._scopes(node):
            name = scope.child_by_field_name("name")
            text = parsing.text(name) if name is not None else ""
            uses = [use for use in self.reader.calls_named(node).get(text, [])
                    if not (scope.start_byte <= use.start_byte < scope.end_byte)]
            if not uses or len(uses) > MAX_USERS:
                continue
            guards = [self.reader.guard_of(use, FEATURE_DOMAIN) or self.users_guarded(use, depth + 1) for use in uses]
            if all(g is not None and g.reach == "cuda-only-guarded" for g in guards):
                decided = Guard("cuda-only-guarded", guards[0].node, f"{text} is used only where this CUDA check has passed")
                break
            flags = [self._gated(g.node) if g is not None and g.reach == "optional" else None for g in guards]
            if all(flags):
                # InternVL's FlashAttention, built only `if self.use_flash_attn:` (= config.use_flash_attn and
                # has_flash_attn, the flag of a try-import of flash_attn): what the class holds is optional as well
                flag = next((f for f in flags if f is not True), None)
                decided = Guard("optional", guards[0].node, f"{text} is built only where "
                                + (f"the import flag {flag} holds" if flag else "this availability check holds"))
                break
        self._users[key] = decided
        return decided

    def _gated(self, statement: Node) -> str | bool:
        """Is this if-chain (or conditional expression) an availability gate (is_X_available(), HAS_X, a try-import's
        flag), not an opt-in flag a user may turn on wherever the library is missing? The try-import flag it tests
        where there is one, else True or False."""
        if statement.type == "conditional_expression":
            parts = statement.named_children
            conditions = [parts[1]] if len(parts) >= 3 else []
        elif statement.type == "if_statement":
            conditions = [statement.child_by_field_name("condition")] + [
                c.child_by_field_name("condition") for c in statement.children if c.type == "elif_clause"]
        else:
            return False
        gates = [c for c in conditions if c is not None and self.reader.condition(c).gate]
        return next((f for f in map(self.reader.availability_flag, gates) if f), bool(gates))

    def _scopes(self, node: Node):
        """The method and the module-level class around a site that may be asked about their uses: a method of a
        class that qualifies, and the class itself when it is module-private or named for an NVIDIA-only feature."""
        function, current, depth = None, node.parent, 0
        while current is not None and depth < MAX_DEPTH:
            if current.type == "function_definition" and function is None:
                function = current
            if current.type == "class_definition":
                outer = current.parent.parent if current.parent is not None and current.parent.type == "decorated_definition" else current.parent
                name = current.child_by_field_name("name")
                text = parsing.text(name) if name is not None else ""
                if outer is None or outer.type != "module" or not (text.startswith("_") or self._names_cuda_only(text)
                                                                   or self._names_library(text)):
                    return
                body = current.child_by_field_name("body")
                if function is not None and body is not None and function.parent is not None and function.parent.id == body.id:
                    yield function
                yield current
                return
            current, depth = current.parent, depth + 1

    def class_npu_branch(self, node: Node) -> Guard | None:
        """A finding about a whole class (a hand-written RMSNorm, reported on its `class` line) whose body already
        has an NPU branch (`if is_torch_npu_available(): return torch_npu.npu_rms_norm(...)`): npu-path."""
        current, depth = node, 0
        while current is not None and current.type != "class_definition" and depth < 6:
            if current.type == "block":
                return None  # inside the body (a class's header holds no block): not about the whole class
            current, depth = current.parent, depth + 1
        body = current.child_by_field_name("body") if current is not None else None
        if body is None or node.start_byte >= body.start_byte:
            return None
        for item in parsing.walk(body, limit=MAX_BODY_NODES):
            if item.type in {"if_statement", "elif_clause"}:
                condition = item.child_by_field_name("condition")
                if condition is not None and self.reader.condition(condition).npu:
                    return Guard("npu-path", item)
        return None

    # what came before a site -----------------------------------------------------------------------------------
    def detection_cascade(self, node: Node) -> Guard | None:
        """A site in one step of a detection cascade after a step that detects NPU: `if accelerator_name is None:
        try: import torch_npu; accelerator_name = "npu"` ... `if accelerator_name is None: if torch.cuda.is_available():
        accelerator_name = "cuda"` (DeepSpeed's real_accelerator.py): on Ascend an earlier step has already decided."""
        for child, parent in _enclosing(node):
            name = _none_test(child) if parent.type in {"block", "module"} and child.type == "if_statement" else None
            if name is None:
                continue
            for sibling in _earlier(child):
                if sibling.type == "if_statement" and _none_test(sibling) == name and self._assigns_npu(sibling, name):
                    return Guard("npu-path", sibling)
        return None

    def _assigns_npu(self, statement: Node, name: str) -> bool:
        for current in parsing.walk(statement.child_by_field_name("consequence"), limit=MAX_BODY_NODES):
            if current.type == "assignment":
                left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
                if (left is not None and right is not None and right.type == "string" and parsing.text(left) == name
                        and set(w.lower() for w in _words(right)) & self.reader.npu_tokens):
                    return True
        return False

    def excluded_before(self, node: Node) -> Guard | None:
        """An earlier statement (in the site's block or an enclosing one, within its function) that already
        excludes NPU."""
        for child, parent in _enclosing(node):
            if parent.type in {"else_clause", "elif_clause", "block", "module"}:
                key = child.id
                if key not in self._excluding:  # sites in one statement ask about the same statements before it
                    self._excluding[key] = self._excluding_before(child, parent)
                if self._excluding[key] is not None:
                    return self._excluding[key]
        return None

    def _excluding_before(self, child: Node, parent: Node) -> Guard | None:
        if parent.type == "else_clause" or (parent.type == "elif_clause" and not _same(child, parent.child_by_field_name("condition"))):
            statement = parent.parent
            arm = self._earlier_raising_arm(statement, parent) if statement is not None and statement.type == "if_statement" else None
            if arm is not None:
                return Guard("cuda-only-guarded", arm)
        if parent.type in {"block", "module"}:
            for sibling in _earlier(child):
                excludes = self._excludes.get(sibling.id)
                if excludes is None:  # the statements of a block are asked about by every later one
                    excludes = self._excludes[sibling.id] = self._excludes_npu(sibling)
                if excludes:
                    return Guard("cuda-only-guarded", sibling)
        return None

    def _excludes_npu(self, statement: Node) -> bool:
        kind = statement.type
        if kind == "if_statement":
            # a constructor's no-CUDA raise that the default path reaches (analyzer/context/default_built.py) is a device
            # check: what follows it runs wherever the check is ported, and is priced with it
            return (not any(c.type in {"elif_clause", "else_clause"} for c in statement.children)
                    and self._raises_unless_cuda(statement) and built_by_default(statement) is None)
        if kind == "assert_statement":
            condition = statement.named_children[0] if statement.named_children else None
            return condition is not None and self._is_cuda_condition(condition, positive=True) and not self._is_precondition(condition)
        if kind in {"import_statement", "import_from_statement"}:
            return self._imports_cuda_only(statement)
        if kind == "try_statement":
            body = statement.child_by_field_name("body")
            handlers = [c for c in statement.children if c.type == "except_clause"]
            if body is None or not handlers or not all(only_raises(h) for h in handlers):
                return False
            return any(s.type in {"import_statement", "import_from_statement"} and self._imports_cuda_only(s)
                       for s in body.named_children)
        if kind == "expression_statement" and statement.named_children and statement.named_children[0].type == "call":
            return self._calls_cuda_check(statement.named_children[0])
        return False

    def _earlier_raising_arm(self, statement: Node, clause: Node) -> Node | None:
        """An arm before `clause` in this if/elif chain that raises unless CUDA is there (`elif not
        torch.cuda.is_available(): raise ...` before the else that probes xformers on "cuda")."""
        if self._raises_unless_cuda(statement):
            return statement
        for arm in statement.children:
            if _same(arm, clause):
                return None
            if arm.type == "elif_clause" and self._raises_unless_cuda(arm):
                return arm
        return None

    def _raises_unless_cuda(self, statement: Node) -> bool:
        """`if not torch.cuda.is_available(): raise ...` / `if x.device.type != "cuda": raise ...`."""
        condition = statement.child_by_field_name("condition")
        body = statement.child_by_field_name("consequence")
        if condition is None or body is None or not only_raises(body):
            return False
        return self._is_cuda_condition(condition, positive=False)

    def _is_precondition(self, condition: Node) -> bool:
        """An assert that CUDA is there at all (`assert torch.cuda.is_available()`, `torch.cuda.device_count() > 0`):
        the program's precondition. Natively it stops the program on Ascend, under transfer_to_npu it passes, and
        what follows it is the main path either way (openvla's finetune.py before set_device and DDP, CosyVoice's
        train_utils.py before DDP), not code that only CUDA runs. Other CUDA asserts keep excluding NPU: a function's
        input contract (`assert q.is_cuda`) or a CUDA-only feature's state (`assert self.cuda_graph is None`). An
        `if not torch.cuda.is_available(): raise ...` too: that is how a CUDA-only feature's arm says so (DeepSpeed's
        wf6af16 quantization, heuristics.py:96)."""
        stack, seen = [condition], 0
        while stack and seen < MAX_CONTRACT_NODES:
            node, seen = stack.pop(), seen + 1
            if node.type == "call":
                function = node.child_by_field_name("function")
                called = "".join(parsing.text(function).split()) if function is not None else ""
                if any(called == name or called.endswith("." + name) for name in self.availability):
                    return True
            stack.extend(node.children)
        return False

    def _is_cuda_condition(self, condition: Node, positive: bool) -> bool:
        read = self.reader.condition(condition)
        return read.cuda and not read.npu and read.negated != positive

    def _calls_cuda_check(self, call: Node) -> bool:
        """A call of a function of this unit whose body starts by raising unless the tensors are on CUDA
        (diffusers' `_check_device_cuda(query, key, value)`)."""
        function = call.child_by_field_name("function")
        if function is None or function.type != "identifier":
            return False
        definition = self._definition(call, parsing.text(function))
        body = definition.child_by_field_name("body") if definition is not None else None
        if body is None:
            return False
        return any(s.type == "if_statement" and self._raises_unless_cuda(s) for s in body.named_children[:MAX_SIBLINGS])

    def _definition(self, node: Node, name: str) -> Node | None:
        root = parsing.root_of(node)
        for child in root.named_children:
            target = child
            if target.type == "decorated_definition":
                target = target.child_by_field_name("definition") or target
            if target.type == "function_definition":
                defined = target.child_by_field_name("name")
                if defined is not None and parsing.text(defined) == name:
                    return target
        return None

    def _imports_cuda_only(self, statement: Node) -> bool:
        for child in statement.named_children:
            if child.type in {"dotted_name", "aliased_import"} or child.type == "relative_import":
                name = parsing.text(child).split(" as ")[0].lstrip(".")
                if name.split(".")[0] in self.packages:
                    return True
            if statement.type == "import_from_statement":
                break  # only the module of `from X import y` says what is imported
        return False

    def _uses_cuda_only(self, body: Node) -> bool:
        for current in parsing.walk(body, limit=MAX_BODY_NODES):
            if current.type in {"import_statement", "import_from_statement"} and self._imports_cuda_only(current):
                return True
            if current.type == "call":
                function = current.child_by_field_name("function")
                if function is not None:
                    text = parsing.text(function)
                    if text.rsplit(".", 1)[-1] in self.calls or text.split(".")[0] in self.packages:
                        return True
                    if self._names_cuda_only(text.rsplit(".", 1)[-1]):
                        return True  # check_nvlink_connectivity(fabric)
        return False


def _module_level(statement: Node) -> bool:
    """A statement of the module itself, also inside a module-level try or if (no function or class around it)."""
    current = statement.parent
    while current is not None:
        if current.type in {"function_definition", "class_definition", "lambda"}:
            return False
        if current.type == "module":
            return True
        current = current.parent
    return False


def _tested_by(name: Node) -> Node | None:
    """The if-statement whose condition is this name (alone, negated, or a term of and/or), else None."""
    child, parent = name, name.parent
    while parent is not None and parent.type in CONDITION_PARTS:
        child, parent = parent, parent.parent
    if parent is not None and parent.type in {"if_statement", "elif_clause"} and _same(parent.child_by_field_name("condition"), child):
        return parent if parent.type == "if_statement" else None
    return None
