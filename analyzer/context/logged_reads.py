"""Reads of an environment variable whose value only names or fills a log: they choose no device (reach `cosmetic`).

Round 26 (A1 row 35, B1 rows 10 and 15, B2 rows 35 and 48): a logger helper suffixes the logger's name with the GPU
mask (`if "CUDA_VISIBLE_DEVICES" in os.environ: name = name + "_GPU" + os.environ["CUDA_VISIBLE_DEVICES"]`, then
`logging.getLogger(name)` and a log file named after it), and a GPU report logs it (`if "CUDA_VISIBLE_DEVICES" not
in os.environ: logger.info("... fallback")` `else: gpu_id = os.environ["CUDA_VISIBLE_DEVICES"]`,
`logger.info(f"ENV: CUDA_VISIBLE_DEVICES = {gpu_id}")`). On Ascend the mask is unset, the log says so or its name lacks
the suffix, and nothing that runs on the device changes.

A read (`os.environ[...]`, `os.environ.get(...)`, `os.getenv(...)` of the variable the finding names) is cosmetic when
its value flows only into messages (display.py's message calls) or into the name of a logger or its log file (the
conventions' logger_name_calls: `logging.getLogger`, `FileHandler`), directly or through names assigned from it (two
levels: `name = name + "_GPU" + mask`, then `log_file = os.path.join(log_dir, name + ".log")`). A subscript read
raises KeyError where the variable is unset, so it also needs a guard: the consequence of `if "NAME" in os.environ:`
or the else of `if "NAME" not in os.environ:` (or the same as a conditional expression's test). A membership test
(`"NAME" in os.environ`) is cosmetic when it is an if-statement's condition whose every arm only shows messages or
assigns names whose every later use is logged so.

A value that reaches anything else (`torch.cuda.set_device(int(gpu_id))`, a device string `f"cuda:{gpu_id}"` handed on,
a subprocess environment, an attribute of an object) keeps the finding.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import MAX_DEPTH, Guard
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

STOPS = {"expression_statement", "return_statement", "if_statement", "for_statement", "while_statement",
         "function_definition", "class_definition", "block", "module", "with_statement", "elif_clause", "else_clause"}
MAX_USES = 20
NAME_LEVELS = 2  # names a value may pass through on its way to a log


class LoggedReads:
    def __init__(self, display, logger_name_calls: frozenset[str], environment_reads: frozenset[str]) -> None:
        """`display`: the DisplaySites whose message calls show a value."""
        self.display = display
        self.logger_name_calls = logger_name_calls
        self.environment_reads = environment_reads

    def cosmetic(self, literal: Node) -> Guard | None:
        """The guard making the read or test of the variable named by the string `literal` cosmetic, else None."""
        if literal.type != "string":
            return None
        name = parsing.text(literal).strip("'\"")
        parent = literal.parent
        if parent is None:
            return None
        if parent.type == "comparison_operator" and _membership(parent) is not None:
            return self._test_only_logs(parent)
        read, raises = _read_of(literal, self.environment_reads)
        if read is None:
            return None
        if raises and not _guarded(read, name):
            return None  # KeyError where the variable is unset, which it is on Ascend
        if self._logged(read, NAME_LEVELS):
            return Guard("cosmetic", read, "the value only names or fills a log")
        return None

    def _test_only_logs(self, comparison: Node) -> Guard | None:
        child, parent = comparison, comparison.parent
        while parent is not None and parent.type in {"not_operator", "parenthesized_expression"}:
            child, parent = parent, parent.parent
        if parent is None or parent.type != "if_statement" or not _same(child, parent.child_by_field_name("condition")):
            return None
        arms = [parent.child_by_field_name("consequence")] + [
            c.child_by_field_name("consequence") if c.type == "elif_clause" else c.child_by_field_name("body")
            for c in parent.children if c.type in {"elif_clause", "else_clause"}]
        if not all(arm is not None and self._arm_only_logs(arm) for arm in arms):
            return None
        return Guard("cosmetic", parent, "every arm only logs or names a log")

    def _arm_only_logs(self, block: Node) -> bool:
        statements = [s for s in block.named_children if s.type != "comment"]
        if not statements:
            return False
        for statement in statements:
            inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
            if inner is None:
                return False
            if inner.type == "call" and self.display.is_message_call(inner):
                continue
            if inner.type == "assignment" and self._name_logged(inner, NAME_LEVELS):
                continue
            return False
        return True

    def _logged(self, value: Node, levels: int) -> bool:
        """Does the value at `value` reach only a message or a logger's (log file's) name?"""
        child, parent, depth = value, value.parent, 0
        while parent is not None and depth < MAX_DEPTH and parent.type not in STOPS:
            if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call":
                call = parent.parent
                if self.display.is_message_call(call) or self._names_logger(call):
                    return True
            if parent.type == "assignment":
                return _same(child, parent.child_by_field_name("right")) and self._name_logged(parent, levels)
            child, parent, depth = parent, parent.parent, depth + 1
        return False

    def _name_logged(self, assignment: Node, levels: int) -> bool:
        """`name = <value>` (a plain name, not a chained assignment) whose every later use in its function (or
        module) is logged."""
        left = assignment.child_by_field_name("left")
        if levels <= 0 or left is None or left.type != "identifier" or assignment.parent is None \
                or assignment.parent.type == "assignment":
            return False
        uses = parsing.later_uses(assignment, left)
        return uses is not None and 0 < len(uses) <= MAX_USES and all(self._logged(use, levels - 1) for use in uses)

    def _names_logger(self, call: Node) -> bool:
        function = call.child_by_field_name("function")
        return function is not None and parsing.text(function).rsplit(".", 1)[-1] in self.logger_name_calls


def _read_of(literal: Node, environment_reads: frozenset[str]) -> tuple[Node | None, bool]:
    """The expression reading the variable `literal` names, and whether it raises when the variable is unset."""
    parent = literal.parent
    if parent.type == "subscript" and _same(literal, parent.child_by_field_name("subscript")):
        holder = parent.child_by_field_name("value")
        if holder is not None and parsing.text(holder).endswith("environ"):
            return parent, True
        return None, False
    if parent.type == "argument_list" and parent.named_children and _same(literal, parent.named_children[0]):
        call = parent.parent
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is not None and parsing.text(function) in environment_reads:
            return call, False
    return None, False


def _membership(comparison: Node) -> tuple[str, bool] | None:
    """`"NAME" in os.environ` -> ("NAME", True); `not in` -> ("NAME", False); anything else None."""
    if len(comparison.named_children) != 2:
        return None
    key, holder = comparison.named_children
    if key.type != "string" or not parsing.text(holder).endswith("environ"):
        return None
    operators = [parsing.text(c) for c in comparison.children if not c.is_named]
    if operators == ["in"]:
        return parsing.text(key).strip("'\""), True
    if operators == ["not", "in"] or operators == ["not in"]:
        return parsing.text(key).strip("'\""), False
    return None


def _guarded(read: Node, name: str) -> bool:
    """The read runs only where the variable is set: in the consequence of `if "NAME" in os.environ:`, the else of
    `if "NAME" not in os.environ:`, or the matching part of a conditional expression."""
    child, parent, depth = read, read.parent, 0
    while parent is not None and depth < MAX_DEPTH and parent.type not in {"function_definition", "module"}:
        if parent.type == "if_statement":
            test = _membership_of(parent.child_by_field_name("condition"))
            if test is not None and test[0] == name:
                in_consequence = _same(child, parent.child_by_field_name("consequence"))
                in_else = child.type == "else_clause"
                if (test[1] and in_consequence) or (not test[1] and in_else):
                    return True
        if parent.type == "conditional_expression" and len(parent.named_children) == 3:
            value, condition, other = parent.named_children
            test = _membership_of(condition)
            if test is not None and test[0] == name and (
                    (test[1] and _same(child, value)) or (not test[1] and _same(child, other))):
                return True
        child, parent, depth = parent, parent.parent, depth + 1
    return False


def _membership_of(condition: Node | None) -> tuple[str, bool] | None:
    while condition is not None and condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    if condition is not None and condition.type == "comparison_operator":
        return _membership(condition)
    return None


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte and a.type == b.type
