"""The words a small Python expression names, for conditions that pick a backend or a version
(`is_mps or device.type == "npu"`, `compare_version("triton", operator.ge, "3.0.0")`): one reading, shared with the
context's dispatch chains (analyzer/context/dispatch_chains.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import words

__all__ = ["words"]
