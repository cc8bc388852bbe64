"""bf16 capability gates that only ask about CUDA: `transformers.utils.is_torch_bf16_gpu_available()`.

Reported where it is called, unless the statement around the call already asks about the NPU
(`is_torch_bf16_gpu_available() or (is_torch_npu_available() and torch.npu.is_bf16_supported())`)."""

from __future__ import annotations

from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, unit_references
from ascend_feasibility.domains.python_words import words
from tree_sitter import Node

BF16_GPU_GATES = {
    "transformers.utils.is_torch_bf16_gpu_available",
    "transformers.utils.import_utils.is_torch_bf16_gpu_available",
    "transformers.is_torch_bf16_gpu_available",
}
NPU_WORDS = {"npu", "ascend"}
STATEMENTS = {"expression_statement", "return_statement", "if_statement", "elif_clause", "while_statement", "assert_statement"}


class _Bf16GateScan(PythonScan):
    def run(self) -> list[Hit]:
        for reference in unit_references(self.unit):
            if reference.call is not None and reference.name in BF16_GPU_GATES and not _asks_npu(reference.call):
                self.hit("bf16-gpu-capability-gate", reference.name, reference.call)
        return self.hits


def _asks_npu(call: Node) -> bool:
    statement = call
    while statement is not None and statement.type not in STATEMENTS:
        statement = statement.parent
    if statement is None:
        return False
    if statement.type in {"if_statement", "elif_clause", "while_statement"}:
        statement = statement.child_by_field_name("condition")
    return bool(words(statement) & NPU_WORDS)


class Bf16GateScanner(PythonDomainScanner):
    domain = "precision"
    triggers = ("is_torch_bf16_gpu_available",)
    scan_class = _Bf16GateScan
