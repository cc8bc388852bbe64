"""Code reached only after an error whose message reads like CUDA's out-of-memory error: `cuda-only-guarded`.

Round 27 (A2 C8 row 95, B2 C5 row 33): detectron2's `retry_if_cuda_oom` runs `func` inside
`with _ignore_torch_cuda_oom(): return func(...)`, a context manager whose handler swallows a RuntimeError only
`if "CUDA out of memory. " in str(e)` and re-raises any other. What follows the `with` (`torch.cuda.empty_cache()`,
the retry on CPU) runs only after such an error was swallowed. torch_npu's caching allocator raises "NPU out of
memory. Tried to allocate ..." (Ascend/pytorch v2.12.0-26.1.0, torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:1321,
`TORCH_CHECK_WITH(OutOfMemoryError, false, retmsg)`), so on Ascend the text never matches, the error propagates, and
the fallback never runs: the item to port is the text test (widen it to "out of memory" or catch
torch.OutOfMemoryError), not the calls behind it.

Two shapes, both with the message texts from the guard conventions (`cuda_error_texts`):
- the consequence of `if "<CUDA text>" in <message>:` (or the `and` of it with other terms);
- a statement after `with helper():` in the same block, where the `with` body leaves its block (return/raise) and
  `helper` is a `@contextmanager` function of the file whose every except arm re-raises unless such a test holds.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import Guard
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_SIBLINGS = 50  # statements read back from a site for the swallowing `with`
LEAVES = {"return_statement", "raise_statement"}


class OomTextReader:
    def __init__(self, texts: list[str]) -> None:
        """`texts`: lower-cased fragments of CUDA's error messages that torch_npu never writes ("cuda out of memory")."""
        self.texts = tuple(t.lower() for t in texts)

    def matched_text(self, condition: Node | None) -> Node | None:
        """The `"<CUDA text>" in x` test that must hold for `condition` to hold (itself, or a term of an `and`)."""
        while condition is not None and condition.type == "parenthesized_expression" and condition.named_children:
            condition = condition.named_children[0]
        if condition is None:
            return None
        if condition.type == "boolean_operator":
            operator = condition.child_by_field_name("operator")
            if operator is None or parsing.text(operator) != "and":
                return None
            return self.matched_text(condition.child_by_field_name("left")) or \
                self.matched_text(condition.child_by_field_name("right"))
        if condition.type != "comparison_operator" or len(condition.named_children) != 2:
            return None
        operators = [parsing.text(c) for c in condition.children if not c.is_named]
        literal = condition.named_children[0]
        if operators != ["in"] or literal.type != "string":
            return None
        value = parsing.text(literal).lower()
        return condition if any(text in value for text in self.texts) else None

    def arm(self, child: Node, statement: Node) -> Guard | None:
        """The consequence of `if "<CUDA text>" in str(e):` (not its elif or else arms)."""
        if statement.type != "if_statement" or not _same(child, statement.child_by_field_name("consequence")):
            return None
        test = self.matched_text(statement.child_by_field_name("condition"))
        return Guard("cuda-only-guarded", test, _WHY) if test is not None else None

    def after_swallow(self, child: Node) -> Guard | None:
        """A statement after `with helper(): ... return ...`, `helper` swallowing only CUDA-text errors."""
        sibling, seen = child.prev_named_sibling, 0
        while sibling is not None and seen < MAX_SIBLINGS:
            seen += 1
            if sibling.type == "with_statement":
                test = self._swallowing(sibling)
                if test is not None:
                    return Guard("cuda-only-guarded", test, _WHY + f" (swallowed by the `with` at line "
                                                              f"{sibling.start_point.row + 1})")
            sibling = sibling.prev_named_sibling
        return None

    def _swallowing(self, statement: Node) -> Node | None:
        body = statement.child_by_field_name("body")
        if body is None or not any(s.type in LEAVES for s in body.named_children):
            return None  # the with body may fall through: what follows runs without an error
        for item in _with_calls(statement):
            function = item.child_by_field_name("function")
            if function is None or function.type != "identifier":
                continue
            definition = _module_function(statement, parsing.text(function))
            test = self._swallow_test(definition) if definition is not None else None
            if test is not None:
                return test
        return None

    def _swallow_test(self, definition: Node) -> Node | None:
        """The text test of a `@contextmanager` whose every except arm re-raises unless the test holds."""
        holder = definition.parent
        if holder is None or holder.type != "decorated_definition" or not any(
                parsing.text(d).lstrip("@").strip().rsplit(".", 1)[-1] == "contextmanager" for d in holder.children if d.type == "decorator"):
            return None
        body = definition.child_by_field_name("body")
        tries = [s for s in body.named_children if s.type == "try_statement"] if body is not None else []
        clauses = [c for t in tries for c in t.children if c.type == "except_clause"]
        tests = [self._reraise_unless(c) for c in clauses]
        return tests[0] if tests and all(t is not None for t in tests) else None

    def _reraise_unless(self, clause: Node) -> Node | None:
        """`except RuntimeError as e: if "<CUDA text>" in str(e): <no raise> else: raise`: the text test."""
        block = next((c for c in clause.named_children if c.type == "block"), None)
        statements = [s for s in block.named_children if s.type != "comment"] if block is not None else []
        if len(statements) != 1 or statements[0].type != "if_statement":
            return None
        statement = statements[0]
        test = self.matched_text(statement.child_by_field_name("condition"))
        others = [c for c in statement.children if c.type in {"elif_clause", "else_clause"}]
        consequence = statement.child_by_field_name("consequence")
        if test is None or len(others) != 1 or others[0].type != "else_clause" or consequence is None:
            return None
        other = others[0].child_by_field_name("body")
        raises = other is not None and any(s.type == "raise_statement" for s in other.named_children)
        swallowed = not any(s.type == "raise_statement" for s in consequence.named_children)
        return test if raises and swallowed else None


_WHY = ("reached only after an error whose message reads like CUDA's out-of-memory error; torch_npu's reads "
        "\"NPU out of memory.\", so on Ascend the test fails and this never runs: widen the text test (\"out of "
        "memory\") or catch torch.OutOfMemoryError")


def _with_calls(statement: Node) -> list[Node]:
    clause = next((c for c in statement.children if c.type == "with_clause"), None)
    found = []
    for item in clause.named_children if clause is not None else []:
        value = item.child_by_field_name("value") or (item.named_children[0] if item.named_children else None)
        if value is not None and value.type == "call":
            found.append(value)
    return found


def _module_function(node: Node, name: str) -> Node | None:
    """The function `name` defined at the top of the module holding `node`."""
    root = parsing.root_of(node)
    for statement in root.named_children:
        definition = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if definition is not None and definition.type == "function_definition" and \
                parsing.text(definition.child_by_field_name("name")) == name:
            return definition
    return None


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte and a.type == b.type
