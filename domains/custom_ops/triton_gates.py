"""Triton version gates that choose NVIDIA's libdevice import path, and plain module-level imports of it.

`if compare_version("triton", operator.ge, "3.0.0"): from triton.language.extra(.cuda).libdevice import tanh`
`else: from triton.language.math import tanh`: triton-ascend has its own version line, so the gate holds on Ascend
too and takes the NVIDIA path. The gate is reported once, at its condition, unless the condition already names the
NPU.

`from triton.language.extra.cuda import libdevice` at a module's top level (VILA b760c34 llava/model/realquantize/
division_transpose.py:6, imported on every `import llava.model`): triton-ascend has no such module, so importing the
module fails on Ascend, and with it every module that imports it, whether or not a kernel using libdevice ever runs.
The import line is reported (the uses of libdevice inside kernels are OPS032's); an import inside a try, an if or a
function is not this (it has a fallback, or runs only when called)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from ascend_feasibility.domains.python_words import words
from tree_sitter import Node

QUERY = r"""
(if_statement) @gate
(module (import_from_statement) @module_import)
(module (import_statement) @module_import)
"""

NVIDIA_PATH = "triton.language.extra"
CUDA_LIBDEVICE = "triton.language.extra.cuda"  # the module and its libdevice: NVIDIA's only


class _TritonGateScan(PythonScan):
    QUERY = QUERY
    QUERY_ALONE = True  # its trigger is rare, and it captures every if statement

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
        for statement in found.get("module_import", []):
            if _imports_from(statement, CUDA_LIBDEVICE):
                self.hit("triton-cuda-libdevice-import", " ".join(parsing.text(statement).split())[:120], statement)
        return self.hits


def _imports_from(block: Node, prefix: str) -> bool:
    for current in parsing.walk(block, prune=_NOT_ENTERED):
        if current.type == "import_from_statement":
            module = current.child_by_field_name("module_name")
            if module is not None and "".join(parsing.text(module).split()).startswith(prefix):
                return True
        elif current.type == "import_statement":
            if any("".join(parsing.text(name).split()).startswith(prefix) for name in current.children_by_field_name("name")):
                return True
    return False


_NOT_ENTERED = frozenset({"import_from_statement", "import_statement", "function_definition", "class_definition"})


class TritonGateScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("libdevice",)
    scan_class = _TritonGateScan
