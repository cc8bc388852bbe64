"""C/C++ sites inside a preprocessor branch on the NPU build (`#if defined(__ENABLE_CANN__)` ... `#else` ...,
`#ifdef USE_NPU`, `#ifndef __ENABLE_CANN__`): the project already builds an NPU variant of this code, so either arm
is its NPU port's business (`npu-path`), as DeepSpeed's csrc does with aclrtSynchronizeStream beside
cudaStreamSynchronize."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import MAX_DEPTH, Guard
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

BRANCHES = {"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"}
NPU_MACRO_TOKENS = ("CANN", "NPU", "ASCEND")


def npu_branch(node: Node) -> Guard | None:
    current, depth = node.parent, 0
    while current is not None and depth < MAX_DEPTH:
        if current.type in BRANCHES and _names_npu(current):
            return Guard("npu-path", current)
        current, depth = current.parent, depth + 1
    return None


def _names_npu(branch: Node) -> bool:
    condition = branch.child_by_field_name("condition") or branch.child_by_field_name("name")
    if condition is None:
        return False
    text = parsing.text(condition).upper()
    return any(token in text for token in NPU_MACRO_TOKENS)


def cuda_build_branch(node: Node, macros: frozenset[str]) -> Guard | None:
    """The preprocessor arm around the node that only a CUDA build compiles: the then-arm of `#ifdef WITH_CUDA`,
    `#if defined(__CUDACC__) && ...`, or the `#else` of `#ifndef WITH_CUDA` / `#if !defined(WITH_CUDA)`, for a macro
    only a CUDA build defines (knowledge/custom_ops/acl_runtime.toml's cuda_build_macros). The build an Ascend host
    makes never sees that code."""
    current, depth = node, 0
    while current.parent is not None and depth < MAX_DEPTH:
        parent = current.parent
        if parent.type in BRANCHES and current != parent.child_by_field_name("alternative"):
            macro = _required(parent, macros, positive=True)
            if macro is not None:
                return Guard("cuda-only-guarded", parent, f"only a CUDA build defines {macro}")
        elif parent.type in BRANCHES and current.type == "preproc_else":
            macro = _required(parent, macros, positive=False)
            if macro is not None:
                return Guard("cuda-only-guarded", current, f"the #else of a test for no {macro}: only a CUDA build defines it")
        current, depth = parent, depth + 1
    return None


def _required(branch: Node, macros: frozenset[str], positive: bool) -> str | None:
    """The CUDA-build macro the branch's condition needs defined (positive) or, for its `#else`, needs undefined."""
    if branch.type in {"preproc_ifdef", "preproc_elifdef"}:
        name = branch.child_by_field_name("name")
        negated = branch.children[0].type in {"#ifndef", "#elifndef"}
        if name is None or parsing.text(name) not in macros or negated == positive:
            return None
        return parsing.text(name)
    condition = branch.child_by_field_name("condition")
    return _needs(condition, macros, positive) if condition is not None else None


def _needs(expression: Node, macros: frozenset[str], positive: bool) -> str | None:
    """The macro `expression` being true (positive) or false needs defined: `M`, `defined(M)`, `defined(M) && X`,
    `defined(M) || defined(N)` of two such macros, and for false, `!defined(M)` alone."""
    kind = expression.type
    if kind == "parenthesized_expression" and expression.named_children:
        return _needs(expression.named_children[0], macros, positive)
    if kind == "unary_expression" and parsing.text(expression).startswith("!"):
        argument = expression.child_by_field_name("argument")
        return _needs(argument, macros, not positive) if argument is not None else None
    if kind == "binary_expression" and positive:
        operator = expression.child_by_field_name("operator")
        left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
        if operator is not None and operator.type == "&&":
            return _needs(left, macros, True) or _needs(right, macros, True)
        if operator is not None and operator.type == "||":  # `defined(__CUDACC__) || defined(__NVCC__)`: every side
            first = _needs(left, macros, True)
            return first if first is not None and _needs(right, macros, True) is not None else None
        return None
    if not positive:
        return None
    if kind == "preproc_defined" and expression.named_children:
        expression = expression.named_children[0]
    if expression.type == "identifier" and parsing.text(expression) in macros:
        return parsing.text(expression)
    return None


class _EveryMacro:
    def __contains__(self, name: object) -> bool:
        return True


EVERY_MACRO = _EveryMacro()


def macro_arms(branch: Node) -> list[tuple[str, int, int, int]]:
    """The arms of a preprocessor branch that one macro being defined selects: (macro, first row, last row, the
    directive's row), for the then-arm of `#ifdef M` / `#if defined(M) && ...` and the `#else` of `#ifndef M`. Which
    macros only a CUDA build defines is the project's build to say (custom_ops/build_branches.py)."""
    arms = []
    alternative = branch.child_by_field_name("alternative")
    last = (alternative.start_point.row - 1) if alternative is not None else branch.end_point.row
    macro = _required(branch, EVERY_MACRO, positive=True)
    if macro is not None:
        arms.append((macro, branch.start_point.row, last, branch.start_point.row))
    if alternative is not None and alternative.type == "preproc_else":
        macro = _required(branch, EVERY_MACRO, positive=False)
        if macro is not None:
            arms.append((macro, alternative.start_point.row, alternative.end_point.row, alternative.start_point.row))
    return arms
