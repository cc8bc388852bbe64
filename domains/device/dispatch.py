"""Backend dispatch chains without an NPU arm.

An `if/elif` chain whose conditions name CUDA and at least one other accelerator backend (ROCm, XPU, MPS, MLU,
HPU, MUSA, XLA), in two or more of its arms, picks a device, a platform, its dependencies or a per-device property (the core count used for
kernel grids) backend by backend: the code is built for more than one backend and the NPU needs its own arm. The
chain is reported once, at its head, unless one of its conditions, or a condition it is nested in, already names
the NPU (or Ascend)."""

from __future__ import annotations

from tree_sitter import Node

from analyzer import parsing
from domains.base import Hit
from domains.python_refs import PythonDomainScanner, PythonScan
from domains.python_words import words

QUERY = r"""
(if_statement alternative: (elif_clause)) @chain
"""

CUDA_WORDS = {"cuda"}
OTHER_BACKENDS = {"rocm", "hip", "xpu", "mps", "mlu", "hpu", "musa", "xla"}
NPU_WORDS = {"npu", "ascend"}


class _DispatchScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list[Hit]:
        for chain in self.captures().get("chain", []):
            conditions = [chain.child_by_field_name("condition")] + [
                clause.child_by_field_name("condition") for clause in chain.children_by_field_name("alternative")
                if clause.type == "elif_clause"
            ]
            per_arm = [words(c) for c in conditions if c is not None]
            named = set().union(*per_arm)
            arms = sum(1 for arm in per_arm if arm & (CUDA_WORDS | OTHER_BACKENDS))
            if arms < 2 or not named & CUDA_WORDS or not named & OTHER_BACKENDS or named & NPU_WORDS:
                continue
            if not _inside_npu_branch(chain):
                backends = ", ".join(sorted((named & (CUDA_WORDS | OTHER_BACKENDS))))
                head = conditions[0]
                self.hit("backend-dispatch-without-npu", f"{' '.join(parsing.text(head).split())[:80]} ({backends})", head)
        return self.hits


def _inside_npu_branch(node: Node) -> bool:
    """Inside a branch of a condition that names the NPU (`if x.device.type != "npu": <chain> else: <NPU path>`)."""
    current = node.parent
    while current is not None:
        if current.type in {"if_statement", "elif_clause"}:
            condition = current.child_by_field_name("condition")
            if condition is not None and words(condition) & NPU_WORDS:
                return True
        current = current.parent
    return False


class BackendDispatchScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("xpu", "mps", "rocm", "mlu", "hpu", "musa", "hip", "xla")
    scan_class = _DispatchScan
