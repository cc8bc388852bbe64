"""Backend dispatch chains without an NPU arm.

An `if/elif` chain whose conditions name CUDA and at least one other accelerator backend (ROCm, XPU, MPS, MLU,
HPU, MUSA, XLA), in two or more of its arms, picks a device, a platform, its dependencies or a per-device property (the core count used for
kernel grids) backend by backend: the code is built for more than one backend and the NPU needs its own arm. The
chain is reported once, at its head, unless one of its conditions already names the NPU (or Ascend)."""

from __future__ import annotations

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
            if arms >= 2 and named & CUDA_WORDS and named & OTHER_BACKENDS and not named & NPU_WORDS:
                backends = ", ".join(sorted((named & (CUDA_WORDS | OTHER_BACKENDS))))
                head = conditions[0]
                self.hit("backend-dispatch-without-npu", f"{' '.join(parsing.text(head).split())[:80]} ({backends})", head)
        return self.hits


class BackendDispatchScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("xpu", "mps", "rocm", "mlu", "hpu", "musa", "hip", "xla")
    scan_class = _DispatchScan
