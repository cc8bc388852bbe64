"""Capability checks that test a CUDA build of torch, and callers that assert their result.

A function that returns a test of the CUDA build (`return torch.version.cuda is not None and
torch.cuda.is_bf16_supported() and nccl.version() >= (2, 10)`, often inside `try: ... except Exception: return False`)
answers False on Ascend with or without transfer_to_npu: torch_npu runs on a CPU build of torch, so
`torch.version.cuda` is None, and the shim patches neither it nor `torch.cuda.nccl` (Ascend/pytorch v2.12.0-26.1.0,
torch_npu/contrib/transfer_to_npu.py patches torch.cuda's names from torch_npu.npu.__all__ and
`torch.distributed.is_nccl_available`, nothing of torch.version). Read alone, the try/except makes its findings
optional (a CUDA-only feature with a fallback). Where a caller asserts the result (`assert check_bloat16_supported()`,
`if not check(): raise`), False is fatal: the check must be rewritten for the NPU, at the caller's reach (round 19
openvla class V2: the default mixed-precision training asserts its bf16 check). One item per check: the first
build read of the return statement (its other operands go with the same rewrite and stay as they were).

Per file (`read`): the functions whose return statements hold a CUDA-build read (their name and the rows of those
statements), and the names called in an assert's condition or in an `if not name(...): raise`. Project-wide
(`asserted_checks`): the build-check findings (DEV125 torch.version.cuda, DEV134 torch.cuda.nccl) that sit in such a
return statement of a function some product file asserts come back to code that runs (the first of each statement),
the reason naming the caller.
"""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.context.guards import import_statements, only_raises
from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.core.findings import FindingFactory
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

WORDS = ("version.cuda", "nccl")  # a file spells one of these, or it holds no build check
MAX_CHECKS = 50  # build checks kept per file
MAX_ASSERTED = 100  # asserted calls kept per file


ASSERT_QUERY = r"""
(assert_statement) @assert
(if_statement condition: (not_operator) consequence: (block (raise_statement))) @raising
(if_statement condition: (parenthesized_expression) consequence: (block (raise_statement))) @raising
(if_statement condition: (boolean_operator) consequence: (block (raise_statement))) @raising
"""
RETURN_QUERY = "(return_statement) @return"
ASSERT_WORDS = frozenset({b"assert", b"raise"})
RETURN_WORDS = frozenset({b"return"})


def read(root: Node, text: str, build_names: frozenset[str],
         imports: Callable[[], list[Node]] | None = None) -> tuple[list[tuple[str, int, int]], list[tuple[str, int]]]:
    """(name, first row, last row) of each return statement (1-based rows) holding a CUDA-build read, with its
    function's name; and (name, row) of the calls an assert or a raise-unless tests. `imports`: the tree's import
    statements in source order where the caller has them (a unit's combined query: Unit.import_statements), else a
    query of their own finds them."""
    checks: list[tuple[str, int, int]] = []
    if any(word in text for word in WORDS):
        aliases = _aliases(imports() if imports is not None else import_statements(root))
        for node in parsing.captures_around(parsing.query("python", RETURN_QUERY), root, RETURN_WORDS).get("return", []):
            if len(checks) < MAX_CHECKS and _reads_build(node, aliases, build_names):
                function = _function(node)
                name = function.child_by_field_name("name") if function is not None else None
                if name is not None:
                    checks.append((parsing.text(name), node.start_point.row + 1, node.end_point.row + 1))
    asserted: list[tuple[str, int]] = []
    if "assert" in text or "raise" in text:
        found = parsing.captures_around(parsing.query("python", ASSERT_QUERY), root, ASSERT_WORDS)
        for node in found.get("assert", []):
            if node.named_children:
                asserted += [(n, node.start_point.row + 1) for n in _tested_calls(node.named_children[0], negated=False)]
        for node in found.get("raising", []):
            condition, body = node.child_by_field_name("condition"), node.child_by_field_name("consequence")
            if condition is not None and body is not None and only_raises(body):
                asserted += [(n, node.start_point.row + 1) for n in _tested_calls(condition, negated=True)]
    return checks, list(dict.fromkeys(asserted))[:MAX_ASSERTED]


def asserted_checks(findings: list[Finding], checks: dict[str, list[tuple[str, int, int]]],
                    asserted: dict[str, list[tuple[str, int]]], context: ProjectContext, factory: FindingFactory,
                    rules: frozenset[str]) -> list[Finding]:
    """The build-check findings in the return statement of a function a product file asserts, back in code that
    runs (at the rule's severity), the reason naming the first asserting call."""
    callers: dict[str, tuple[str, int]] = {}
    for path, calls in asserted.items():
        if context.of(path).role in COUNTED_ROLES:
            for name, row in calls:
                callers.setdefault(name, (path, row))
    if not callers:
        return findings
    first: dict[tuple[str, int], tuple[Finding, str]] = {}  # (path, return row) → its first build read: one item
    for finding in findings:
        if finding.rule in rules and finding.reach in {"optional", "cuda-only-guarded"} and finding.role in COUNTED_ROLES:
            statement = next(((n, start) for n, start, last in checks.get(finding.path, ())
                              if start <= finding.line <= last and n in callers), None)
            key = (finding.path, statement[1]) if statement is not None else None
            if key is not None and (key not in first or (finding.line, finding.column) < (first[key][0].line, first[key][0].column)):
                first[key] = (finding, statement[0])
    restored = {id(f): name for f, name in first.values()}
    result = []
    for finding in findings:
        name = restored.get(id(finding))
        if name is not None:
            path, row = callers[name]
            reason = (f"{name}() returns this test, False on Ascend with or without transfer_to_npu, and {path}:{row} "
                      f"asserts its result: the program stops there until the check asks the NPU "
                      f"(e.g. torch.npu.is_bf16_supported(), torch.distributed.is_hccl_available())")
            finding = factory.restore(finding).model_copy(update={"reach_reason": reason})
        result.append(finding)
    return result


def _reads_build(statement: Node, aliases: dict[str, str], build_names: frozenset[str]) -> bool:
    stack = list(statement.named_children)
    while stack:
        node = stack.pop()
        if node.type == "attribute":
            if _resolved(parsing.text(node), aliases) in build_names:
                return True
        stack.extend(node.named_children)
    return False


def _resolved(dotted: str, aliases: dict[str, str]) -> str:
    dotted = "".join(dotted.split())
    head, _, rest = dotted.partition(".")
    return f"{aliases[head]}.{rest}" if head in aliases and rest else dotted


def _aliases(statements: list[Node]) -> dict[str, str]:
    """`import torch.cuda.nccl as nccl` and `from torch.cuda import nccl` anywhere in the unit (its import
    statements, in source order): nccl → torch.cuda.nccl. Where a name is bound twice the first binding in the source
    wins."""
    found: dict[str, str] = {}
    for node in reversed(statements):
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "aliased_import":
                    name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
                    if name is not None and alias is not None:
                        found[parsing.text(alias)] = parsing.text(name)
        else:
            module = node.child_by_field_name("module_name")
            for child in node.children_by_field_name("name"):
                name = child.child_by_field_name("name") if child.type == "aliased_import" else child
                alias = child.child_by_field_name("alias") if child.type == "aliased_import" else child
                if module is not None and name is not None and alias is not None and module.type == "dotted_name":
                    found[parsing.text(alias)] = f"{parsing.text(module)}.{parsing.text(name)}"
    return found


def _function(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in {"function_definition", "class_definition", "module"}:
        current = current.parent
    return current if current is not None and current.type == "function_definition" else None


def _tested_calls(condition: Node, negated: bool) -> list[str]:
    """The names of the calls whose truth the condition requires: `f()`, `f() and g()`, `x.f()`; under `negated`
    (an `if ...: raise`), `not f()` and `not f() or not g()`."""
    node = condition
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if negated:
        if node.type == "not_operator":
            argument = node.child_by_field_name("argument")
            return _tested_calls(argument, negated=False) if argument is not None else []
        if node.type == "boolean_operator" and node.child_by_field_name("operator").type == "or":
            return [n for side in ("left", "right") for n in _tested_calls(node.child_by_field_name(side), negated=True)]
        return []
    if node.type == "boolean_operator" and node.child_by_field_name("operator").type == "and":
        return [n for side in ("left", "right") for n in _tested_calls(node.child_by_field_name(side), negated=False)]
    if node.type == "call":
        function = node.child_by_field_name("function")
        if function is not None and function.type == "identifier":
            return [parsing.text(function)]
        if function is not None and function.type == "attribute":
            return [parsing.text(function.child_by_field_name("attribute"))]
    return []
