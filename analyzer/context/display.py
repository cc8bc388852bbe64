"""Sites whose value only shows up in a message, a printed report, a timeout or a list of accepted names: what runs
on the device does not depend on them, so they cost nothing to port (`cosmetic`).

- an argument of a print, log or warning call (`print(torch.cuda.is_available())` in a notebook launcher, a project's
  own `log_message(...)`, a progress bar's `set_description(...)`) or a progress bar's text (`pbar.desc = ...`);
- an argument of the exception a `raise` builds (`raise NotImplementedError(f"... {torch.cuda.is_available()}")`):
  the raise happens whatever the value, which only goes into its message;
- a value of a report table, a dict whose keys are phrases (`{"GPU type": torch.cuda.get_device_name()}`);
- the condition of a conditional expression that picks between two numbers
  (`seconds = 1800 if self.backend != "nccl" else 600`);
- a backend name in a list of accepted names (`["nccl", "gloo", "mpi"]`);
- a value assigned to a name that is only shown in those ways (an environment report);
- a read of an environment variable (the CUDA device mask) whose value only fills a log or names a logger or its log
  file (analyzer/context/logged_reads.py);
- the condition of an `if` whose every arm only shows a message (`if torch.cuda.is_bf16_supported(): print("pass
  --bf16")`, qlora.py): the value decides whether a hint is printed, nothing else; an arm may also add a phrase to a
  text (`if not torch.cuda.is_available(): DESCRIPTION += "<p>Running on CPU ...</p>"`, PixArt-alpha's Gradio apps),
  which for a CUDA check is this module's business too (filework keeps the checks that only print or raise), or set
  a name to a text built from string literals whose every later use is shown (dino's MetricLogger.log_every: `if
  torch.cuda.is_available(): log_msg = delimiter.join([..., "max mem: {memory:.0f}"])` `else:` the same without
  it, then only `print(log_msg.format(...))`): the value chooses what a log line says;
- a value handed to a user-interface keyword that only decides its look or what it precomputes for display
  (`gr.Examples(..., cache_examples=CACHE_EXAMPLES)`);
- a CUDA timing call (an event, a synchronize) in the arm of an environment or debug switch for timing (`time_bench =
  os.getenv("TIME_BENCH")`, `if time_bench:`), or a synchronize (and a check guarding only it) right before a clock
  read (`torch.cuda.synchronize()`, then `t1 = time.perf_counter()` for a printed time).
Only findings of rules that read state (checks, queries, names) qualify: a call that moves data or launches work in a
print still runs.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import CALLED_ONLY_UNDER, MAX_DEPTH, Guard
from ascend_feasibility.analyzer.context.logged_reads import LoggedReads
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge.models import GuardConventions
from packaging.version import Version
from tree_sitter import Node

NUMBERS = {"integer", "float", "unary_operator"}  # a timeout or a size; a string can be the device chosen
STATEMENTS = {"expression_statement", "return_statement", "if_statement", "for_statement", "while_statement",
              "function_definition", "class_definition", "block", "module", "with_statement"}


class DisplaySites:
    def __init__(self, guards: GuardConventions, torch: str | None = None) -> None:
        """`torch`: the target's torch release; the queries that stop raising without CUDA at a release are display
        symbols at or after it (none without a target)."""
        self.rules = frozenset(guards.display_rules)
        since = {name for name, first in guards.display_symbols_since.items()
                 if torch is not None and Version(torch).release >= Version(first).release}
        self.symbols = frozenset(guards.display_symbols) | since
        self.check_rules = frozenset(guards.check_rules)
        self.guarded_symbols = frozenset(guards.guarded_display_symbols)
        self.message_calls = frozenset(guards.message_calls)
        self.message_prefixes = tuple(guards.message_call_prefixes)
        self.message_attributes = frozenset(guards.message_attributes)
        self.ui_keywords = frozenset(guards.ui_keywords)
        self.backend_names = frozenset(guards.backend_names)
        self.timing_symbols = frozenset(guards.timing_symbols)
        self.timing_words = frozenset(guards.timing_words)
        self.environment_reads = frozenset(guards.environment_reads)
        self.clock_calls = frozenset(guards.clock_calls)
        self.log_read_rules = frozenset(guards.log_read_rules)
        self.logged_reads = LoggedReads(self, frozenset(guards.logger_name_calls), self.environment_reads)

    def cosmetic(self, node: Node, rule: str, symbol: str = "") -> Guard | None:
        timing = self._timing(node) if symbol in self.timing_symbols else None
        if timing is not None:
            return timing
        if symbol in self.guarded_symbols and _under_cuda_check(node):
            return self._shown(node) or self._shown_through_name(node, through_calls=True)
        if rule in self.log_read_rules:
            return self.logged_reads.cosmetic(node)
        if rule not in self.rules and symbol not in self.symbols:
            return None
        # a CUDA check's own condition that only decides a message is the check's business (filework's "the check
        # only guards a message"); a query's is decided here
        conditions = rule not in self.check_rules
        return (self._shown(node, conditions, texts=True) or self._shown_through_name(node)
                or self._in_shown_function(node))

    # timing diagnostics ----------------------------------------------------------------------------------------
    def _timing(self, node: Node) -> Guard | None:
        child, parent, depth = node, node.parent, 0
        statement = None  # the statement holding the site, directly in a block or the module
        while parent is not None and depth < MAX_DEPTH and parent.type != "function_definition":
            if statement is None and parent.type in {"block", "module"}:
                statement = child
            if parent.type in {"if_statement", "elif_clause"} and _same(child, parent.child_by_field_name("consequence")):
                condition = parent.child_by_field_name("condition")
                if condition is not None and self._timing_switch(condition):
                    return Guard("cosmetic", parent, "a timing switch: the events and synchronizes only time what is printed")
            child, parent, depth = parent, parent.parent, depth + 1
        return self._before_clock(statement) if statement is not None else None

    def _timing_switch(self, condition: Node) -> bool:
        """`os.getenv("TIME_BENCH")`, `"TIMING" in os.environ`, or a name assigned one in the function (`time_bench`),
        alone or as one term of an `and`."""
        while condition.type in {"parenthesized_expression", "not_operator"} and condition.named_children:
            if condition.type == "not_operator":
                return False
            condition = condition.named_children[0]
        if condition.type == "boolean_operator":
            operator = condition.child_by_field_name("operator")
            return operator is not None and parsing.text(operator) == "and" and any(
                self._timing_switch(side) for side in condition.named_children)
        if condition.type == "identifier":
            right = _assigned_before(condition)
            return right is not None and self._environment_read(right)
        return self._environment_read(condition)

    def _environment_read(self, node: Node) -> bool:
        if node.type == "call":
            function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
            return (function is not None and parsing.text(function) in self.environment_reads and first is not None
                    and first.type == "string" and self._names_timing(parsing.text(first)))
        if node.type == "subscript":  # os.environ["TIME_BENCH"]
            value, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
            return (value is not None and parsing.text(value).endswith("environ") and index is not None
                    and self._names_timing(parsing.text(index)))
        if node.type == "comparison_operator" and len(node.named_children) == 2:  # "TIME_BENCH" in os.environ
            key, holder = node.named_children
            return parsing.text(holder).endswith("environ") and key.type == "string" and self._names_timing(parsing.text(key))
        return False

    def _names_timing(self, text: str) -> bool:
        words = {w for w in text.strip("'\"").lower().replace("-", "_").split("_") if w}
        return bool(words & self.timing_words)

    def _before_clock(self, statement: Node) -> Guard | None:
        """`if torch.cuda.is_available(): torch.cuda.synchronize()` right before a clock read: skipped without CUDA,
        it only makes the time printed next honest. Up to two plain assignments that call nothing but a lookup may
        come between (TripoSR's Timer.end: `start_time = self.items.pop(name)`, then `delta = time.time() -
        start_time`, only logged)."""
        outer = statement
        if statement.type == "expression_statement" and statement.parent is not None and statement.parent.parent is not None:
            holder = statement.parent.parent
            body = holder.child_by_field_name("consequence") if holder.type == "if_statement" else None
            if (body is not None and _same(body, statement.parent) and len(body.named_children) == 1
                    and not any(c.type in {"elif_clause", "else_clause"} for c in holder.children)):
                outer = holder  # `if torch.cuda.is_available(): torch.cuda.synchronize()`
        if outer.type != "if_statement" or not _checks_cuda(outer.child_by_field_name("condition")):
            return None  # a bare synchronize raises on a host without CUDA: it must change, whatever it is for
        body = outer.child_by_field_name("consequence")
        only = body.named_children if body is not None else []
        if (len(only) != 1 or not _synchronizes(only[0])
                or any(c.type in {"elif_clause", "else_clause"} for c in outer.children)):
            return None
        following, between = outer.next_named_sibling, 0
        while following is not None and (following.type == "comment" or (
                between < MAX_BETWEEN_CLOCK and not self._reads_clock(following) and _only_binds(following))):
            between += following.type != "comment"
            following = following.next_named_sibling
        if following is None or not self._reads_clock(following):
            return None
        return Guard("cosmetic", following, "a synchronize before a clock read: it only times what is printed")

    def _reads_clock(self, statement: Node) -> bool:
        for current in parsing.walk(statement, limit=200):
            if current.type == "call":
                function = current.child_by_field_name("function")
                if function is not None and parsing.text(function) in self.clock_calls:
                    return True
        return False

    def _shown_through_name(self, node: Node, through_calls: bool = False) -> Guard | None:
        """`pt_cuda_available = torch.cuda.is_available()` whose every later use is shown (an environment report:
        `info = {"PyTorch version (GPU?)": f"{pt_version} ({pt_cuda_available})"}`). `through_calls`: a use may also
        be an argument of a function of the module whose parameter is only shown, directly or through one name
        (`print_gpu_stats(init_gpu_memory)`, whose `peak = init_gpu_memory - free` is only logged)."""
        assignment, depth = node.parent, 0
        while assignment is not None and assignment.type != "assignment" and assignment.type not in STATEMENTS and depth < 12:
            assignment, depth = assignment.parent, depth + 1
        left = assignment.child_by_field_name("left") if assignment is not None and assignment.type == "assignment" else None
        if left is None or left.type != "identifier" or assignment.parent is None or assignment.parent.type == "assignment":
            return None  # `config["sp"] = sp = min(sp, torch.cuda.device_count())` also stores the value
        name, scope = parsing.text(left), parsing.enclosing(assignment, {"function_definition", "module"})
        uses = [current for current in parsing.identifiers_named(scope, name, 20000) if current.start_byte >= assignment.end_byte]
        if not uses or len(uses) > 20:
            return None
        if not all(self._shown(use) or (through_calls and self._shown_by_callee(use)) for use in uses):
            return None
        return Guard("cosmetic", assignment)

    def _in_shown_function(self, node: Node) -> Guard | None:
        """The site is in a top-level function that only computes a value (its statements are ifs, trys, returns,
        assignments to plain names and messages) and whose every call in the module is shown (round 26 B1 row 3,
        Fooocus's `get_torch_device_name(device)`: `if device.type == "cuda": return "{} {}".format(...)`, called
        only in `print("Device:", get_torch_device_name(get_torch_device()))`): the test only chooses a text. A
        public function's reason says so in CALLED_ONLY_UNDER's words, so that propagation.py restores the site where
        another file of the project names the function."""
        function, depth = node.parent, 0
        while function is not None and function.type != "function_definition" and depth < MAX_DEPTH:
            function, depth = function.parent, depth + 1
        if function is None or function.parent is None or function.parent.type != "module":
            return None
        body, name_node = function.child_by_field_name("body"), function.child_by_field_name("name")
        if body is None or name_node is None or not self._only_computes(body, 0):
            return None
        name = parsing.text(name_node)
        uses = [use for use in parsing.identifiers_named(function.parent, name, 20000)
                if not function.start_byte <= use.start_byte < function.end_byte]
        if not uses or len(uses) > 20:
            return None
        calls = []
        for use in uses:
            call = use.parent
            if call is None or call.type != "call" or not _same(call.child_by_field_name("function"), use):
                return None  # handed on, imported, decorated: used some other way
            if self._shown(call) is None and self._shown_through_name(call) is None:
                return None
            calls.append(call)
        lines = ", ".join(str(c.start_point.row + 1) for c in calls[:5])
        return Guard("cosmetic", calls[0], f"{name}() {CALLED_ONLY_UNDER} (line {lines}): the value it returns is only shown")

    def _only_computes(self, block: Node, depth: int) -> bool:
        if depth > 6:
            return False
        for statement in block.named_children:
            if statement.type in {"comment", "pass_statement", "return_statement"}:
                continue
            if statement.type in {"if_statement", "try_statement"}:
                parts = [c for c in statement.named_children if c.type in {"block", "elif_clause", "else_clause",
                                                                           "except_clause", "finally_clause"}]
                blocks = [b for part in parts for b in ([part] if part.type == "block" else
                                                         [c for c in part.named_children if c.type == "block"])]
                if not all(self._only_computes(b, depth + 1) for b in blocks):
                    return False
                continue
            inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
            if inner is not None and inner.type == "assignment" and inner.child_by_field_name("left") is not None \
                    and inner.child_by_field_name("left").type == "identifier":
                continue
            if inner is not None and inner.type == "call" and self.is_message_call(inner):
                continue
            return False
        return True

    def _shown_by_callee(self, use: Node) -> bool:
        """`use` is the i-th positional argument of a call of a function defined at the module's top level, whose
        i-th parameter is only shown there, or only assigned into names that are only shown."""
        arguments = use.parent
        call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None or function.type != "identifier":
            return False
        position = [c for c in arguments.named_children].index(use) if use in arguments.named_children else -1
        root = parsing.root_of(call)
        name = parsing.text(function)
        definition = next((d for d in root.named_children if d.type == "function_definition"
                           and parsing.text(d.child_by_field_name("name")) == name), None)
        parameters = definition.child_by_field_name("parameters") if definition is not None else None
        if parameters is None or position < 0 or position >= len(parameters.named_children):
            return False
        parameter = parameters.named_children[position]
        if parameter.type not in {"identifier", "typed_parameter"}:
            return False
        ident = parameter if parameter.type == "identifier" else parameter.named_children[0]
        body = definition.child_by_field_name("body")
        return body is not None and self._only_shown_in(body, parsing.text(ident), depth=1)

    def _only_shown_in(self, body: Node, name: str, depth: int) -> bool:
        uses = [current for current in parsing.identifiers_named(body, name, 5000) if not _assigned_here(current)]
        if not uses or len(uses) > 20:
            return False
        for use in uses:
            if self._shown(use):
                continue
            target = _assigned_name(use) if depth > 0 else None
            if target is None or not self._only_shown_in(body, target, depth - 1):
                return False
        return True

    def shown(self, node: Node) -> bool:
        """Does the value at `node` only show up in a message, a report table or a progress bar's text?"""
        return self._shown(node) is not None

    def _shown(self, node: Node, conditions: bool = False, texts: bool = False) -> Guard | None:
        """`conditions`: the condition of an if whose arms only show messages counts as shown; `texts`: so does one
        whose arms only show messages or add phrases to a text, at least one such phrase."""
        child, parent, depth = node, node.parent, 0
        while parent is not None and depth < MAX_DEPTH and child.type not in STATEMENTS:
            if parent.type == "argument_list" and self.is_message_call(parent.parent):
                return Guard("cosmetic", parent.parent)
            if parent.type == "assignment" and _same(child, parent.child_by_field_name("right")) and self._shown_attribute(parent):
                return Guard("cosmetic", parent)
            if parent.type == "pair" and _same(child, parent.child_by_field_name("value")) and _is_report_table(parent.parent):
                return Guard("cosmetic", parent.parent)
            if parent.type == "conditional_expression" and _picks_literals(child, parent):
                return Guard("cosmetic", parent)
            if parent.type in {"list", "tuple", "set"} and child.type == "string" and self._backend_list(parent):
                return Guard("cosmetic", parent)
            if parent.type == "keyword_argument" and _same(child, parent.child_by_field_name("value")) \
                    and parsing.text(parent.child_by_field_name("name")) in self.ui_keywords:
                return Guard("cosmetic", parent)
            if (conditions or texts) and parent.type in {"if_statement", "elif_clause"} \
                    and _same(child, parent.child_by_field_name("condition")):
                return self._decides_message(parent, texts=not conditions)
            child, parent, depth = parent, parent.parent, depth + 1
        return None

    def _decides_message(self, clause: Node, texts: bool = False) -> Guard | None:
        """The if-statement holding `clause`, when every arm of it only shows messages or adds phrases to a text:
        its condition decides which message is shown, nothing else (a raise stops the program, so it is no message
        here). `texts`: only where some arm adds a phrase (an if of messages alone is left to the caller)."""
        statement = clause if clause.type == "if_statement" else clause.parent
        if statement is None or statement.type != "if_statement":
            return None
        arms = [statement.child_by_field_name("consequence")] + [
            c.child_by_field_name("consequence") if c.type == "elif_clause" else c.child_by_field_name("body")
            for c in statement.children if c.type in {"elif_clause", "else_clause"}]
        if not all(arm is not None and self._only_messages(arm) for arm in arms):
            return None
        if texts and not any(_adds_phrase(s) or self._sets_shown_text(s) for arm in arms for s in arm.named_children):
            return None
        if any(self._sets_shown_text(s) for arm in arms for s in arm.named_children):
            return Guard("cosmetic", statement, "the condition only chooses the text of a message that is only shown")
        return Guard("cosmetic", statement, "the condition only decides whether a message is shown")

    def _only_messages(self, block: Node) -> bool:
        statements = [s for s in block.named_children if s.type != "comment"]
        return bool(statements) and all(_adds_phrase(s) or self._sets_shown_text(s) or (
            s.type == "expression_statement" and len(s.named_children) == 1 and s.named_children[0].type == "call"
            and s.named_children[0].parent is not None and s.named_children[0].parent.type != "raise_statement"
            and self.is_message_call(s.named_children[0])) for s in statements)

    def _sets_shown_text(self, statement: Node) -> bool:
        """`log_msg = self.delimiter.join([header, "eta: {eta}", "max mem: {memory:.0f}"])`: a name given a text
        (string literals, joined, formatted or added to names) whose every later use in its function is shown
        (`print(log_msg.format(...))`): the statement only chooses what a message says (round 19: dino's
        MetricLogger.log_every, a format with or without "max mem")."""
        assignment = parsing.statement_assignment(statement)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if left is None or left.type != "identifier" or right is None or not _is_text(right):
            return False
        uses = parsing.later_uses(assignment, left)
        return uses is not None and 0 < len(uses) <= 20 and all(self._shown(use) is not None for use in uses)

    def is_message_call(self, call: Node | None) -> bool:
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None:
            return False
        if call.parent is not None and call.parent.type == "raise_statement":
            return True
        name = parsing.text(function).rsplit(".", 1)[-1]
        if name in self.message_calls:
            return True
        # a prefixed name is a project's own logger only where its value is dropped: `log_message(...)` as a
        # statement, not `F.log_softmax(logits.double(), dim=1)` or `dist.log_prob(x)`, whose value is computed on
        return name.startswith(self.message_prefixes) and call.parent is not None \
            and call.parent.type == "expression_statement"

    def _shown_attribute(self, assignment: Node) -> bool:
        """`pbar.desc = f"{mem:>10}..."`: the value goes to a progress bar's text."""
        left = assignment.child_by_field_name("left")
        attribute = left.child_by_field_name("attribute") if left is not None and left.type == "attribute" else None
        return attribute is not None and parsing.text(attribute) in self.message_attributes

    def _backend_list(self, collection: Node) -> bool:
        """Two or more process-group backend names, at least one not NCCL's (`["nccl", "gloo", "mpi"]`)."""
        names = [parsing.text(c).strip("'\"").lower() for c in collection.named_children if c.type == "string"]
        known = [n for n in names if n in self.backend_names]
        return len(known) >= 2 and len(known) == len(names) and any(n != "nccl" for n in known)


def _checks_cuda(condition: Node | None) -> bool:
    """`torch.cuda.is_available()` or `x.is_cuda`: false on a host without CUDA."""
    if condition is None:
        return False
    if condition.type == "call":
        function = condition.child_by_field_name("function")
        return function is not None and parsing.text(function) == "torch.cuda.is_available"
    return condition.type == "attribute" and parsing.text(condition.child_by_field_name("attribute")) == "is_cuda"


MAX_BETWEEN_CLOCK = 2  # statements between a timing synchronize and its clock read
LOOKUPS = frozenset({"pop", "get"})  # calls that only look a value up


def _only_binds(statement: Node) -> bool:
    """`start_time = self.items.pop(name)`: a plain assignment whose right side calls nothing but a lookup."""
    assignment = parsing.statement_assignment(statement)
    right = assignment.child_by_field_name("right") if assignment is not None else None
    if right is None:
        return False
    for current in parsing.walk(right, limit=200):
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is None or function.type != "attribute" \
                    or parsing.text(function.child_by_field_name("attribute")) not in LOOKUPS:
                return False
    return True


def _synchronizes(statement: Node) -> bool:
    """`torch.cuda.synchronize()`, `stream.synchronize()`: a statement that only waits for the device."""
    call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    return function is not None and parsing.text(function).rsplit(".", 1)[-1] == "synchronize"


def _assigned_before(name: Node) -> Node | None:
    """The right side of the last `name = ...` before `name` in its function (or module), searched statement by
    statement up the blocks holding it."""
    text, current, depth = parsing.text(name), name, 0
    while current is not None and depth < MAX_DEPTH and current.type not in {"function_definition", "module"}:
        sibling, seen = current.prev_named_sibling, 0
        while sibling is not None and seen < 200:
            seen += 1
            if sibling.type == "expression_statement" and sibling.named_children:
                assignment = sibling.named_children[0]
                left = assignment.child_by_field_name("left") if assignment.type == "assignment" else None
                if left is not None and left.type == "identifier" and parsing.text(left) == text:
                    return assignment.child_by_field_name("right")
            sibling = sibling.prev_named_sibling
        current, depth = current.parent, depth + 1
    return None


def _picks_literals(child: Node, expression: Node) -> bool:
    parts = expression.named_children
    return len(parts) == 3 and _same(child, parts[1]) and all(p.type in NUMBERS for p in (parts[0], parts[2]))


def _is_report_table(dictionary: Node | None) -> bool:
    """A dict literal whose keys are all strings, phrases among them (`"PyTorch version"`, `"GPU type"`): a table to
    show."""
    if dictionary is None or dictionary.type != "dictionary":
        return False
    keys = [p.child_by_field_name("key") for p in dictionary.named_children if p.type == "pair"]
    return (bool(keys) and all(k is not None and k.type == "string" for k in keys)
            and any(" " in parsing.text(k) for k in keys))


def _under_cuda_check(node: Node) -> bool:
    """The site is in the body of `if torch.cuda.is_available():` (or `x.is_cuda`), so it never runs without CUDA."""
    child, parent, depth = node, node.parent, 0
    while parent is not None and depth < MAX_DEPTH and parent.type not in {"function_definition", "module"}:
        if parent.type in {"if_statement", "elif_clause"} and _same(child, parent.child_by_field_name("consequence")) \
                and _checks_cuda(parent.child_by_field_name("condition")):
            return True
        child, parent, depth = parent, parent.parent, depth + 1
    return False


def _assigned_here(identifier: Node) -> bool:
    """`peak = ...`: the name being bound, not a use of it."""
    parent = identifier.parent
    return parent is not None and parent.type == "assignment" and _same(identifier, parent.child_by_field_name("left"))


def _assigned_name(node: Node) -> str | None:
    """The plain name the statement holding `node` assigns its value to (`peak = init - free` for `init`)."""
    current, depth = node, 0
    while current.parent is not None and current.parent.type not in STATEMENTS and depth < 12:
        current, depth = current.parent, depth + 1
        if current.type == "assignment":
            left = current.child_by_field_name("left")
            right = current.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and right.start_byte <= node.start_byte:
                return parsing.text(left)
            return None
    return None


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte and a.type == b.type


def _adds_phrase(statement: Node) -> bool:
    """`TEXT += "<p>Running on CPU ...</p>"`: a phrase (a string literal holding a space, never a device name or a
    path) appended to a name; text for people to read, whatever the name feeds later."""
    expression = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    if expression is None or expression.type != "augmented_assignment":
        return False
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    operator = expression.child_by_field_name("operator")
    if left is None or right is None or left.type != "identifier" or parsing.text(operator) != "+=":
        return False
    return right.type == "string" and " " in parsing.text(right)


TEXT_OPERATORS = frozenset({"+", "%"})
TEXT_METHODS = frozenset({"join", "format"})
TEXT_PARTS = frozenset({"identifier", "attribute", "integer", "float"})  # values a text shows


def _is_text(value: Node, depth: int = 0) -> bool:
    """Is `value` a text built from string literals: a string, or strings and names (the values shown) put together
    with `+`, `%`, `str.join`, `str.format` or `str()`, with at least one string literal?"""
    return _text_parts(value, depth) is True


def _text_parts(value: Node, depth: int) -> bool | None:
    """True: a text holding a string literal; False: a value a text may show (a name); None: anything else."""
    if depth > 12:
        return None
    if value.type in {"string", "concatenated_string"}:
        return True
    if value.type in TEXT_PARTS:
        return False
    if value.type == "parenthesized_expression" and len(value.named_children) == 1:
        return _text_parts(value.named_children[0], depth + 1)
    if value.type == "binary_operator":
        operator = value.child_by_field_name("operator")
        if operator is None or parsing.text(operator) not in TEXT_OPERATORS:
            return None
        parts = [_text_parts(side, depth + 1) for side in (value.child_by_field_name("left"), value.child_by_field_name("right"))
                 if side is not None]
        return None if None in parts else any(parts)
    if value.type in {"list", "tuple"}:
        parts = [_text_parts(item, depth + 1) for item in value.named_children]
        return None if None in parts or not parts else any(parts)
    if value.type == "call":
        function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        items = [a.child_by_field_name("value") if a.type == "keyword_argument" else a for a in arguments.named_children]
        parts = [_text_parts(item, depth + 1) for item in items if item is not None]
        if None in parts:
            return None
        if function.type == "identifier" and parsing.text(function) == "str":
            return any(parts) if parts else None
        method = function.child_by_field_name("attribute") if function.type == "attribute" else None
        if method is None or parsing.text(method) not in TEXT_METHODS:
            return None
        receiver = _text_parts(function.child_by_field_name("object"), depth + 1)
        return None if receiver is None else receiver or any(parts)
    return None

