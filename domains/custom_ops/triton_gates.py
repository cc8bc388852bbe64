"""Triton version gates that choose NVIDIA's libdevice import path.

`if compare_version("triton", operator.ge, "3.0.0"): from triton.language.extra(.cuda).libdevice import tanh`
`else: from triton.language.math import tanh`: triton-ascend has its own version line, so the gate holds on Ascend
too and takes the NVIDIA path. The gate is reported once, at its condition, unless the condition already names the
NPU."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from ascend_feasibility.domains.python_words import words
from tree_sitter import Node

QUERY = r"""
(if_statement) @gate
"""

NVIDIA_PATH = "triton.language.extra"


class _TritonGateScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list[Hit]:
        found = self.captures()
        for gate in found.get("gate", []):
            condition, body = gate.child_by_field_name("condition"), gate.child_by_field_name("consequence")
            if condition is None or body is None:
                continue
            named = words(condition)
            if "triton" not in named or "version" not in named or "npu" in named:
                continue
            if _imports_from(body, NVIDIA_PATH):
                self.hit("triton-version-gate", " ".join(parsing.text(condition).split())[:120], condition)
        return self.hits


def _imports_from(block: Node, prefix: str) -> bool:
    stack = [block]
    while stack:
        current = stack.pop()
        if current.type == "import_from_statement":
            module = current.child_by_field_name("module_name")
            if module is not None and "".join(parsing.text(module).split()).startswith(prefix):
                return True
        elif current.type == "import_statement":
            if any("".join(parsing.text(name).split()).startswith(prefix) for name in current.children_by_field_name("name")):
                return True
        elif current.type not in {"function_definition", "class_definition"}:
            stack.extend(current.named_children)
    return False


class TritonGateScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("libdevice",)
    scan_class = _TritonGateScan
