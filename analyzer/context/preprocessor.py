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
