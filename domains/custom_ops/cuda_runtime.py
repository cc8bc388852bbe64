"""The CUDA runtime API in host C/C++ code, one finding per line with its AscendCL counterpart: calls
(`cudaStreamSynchronize(stream)` → aclrtSynchronizeStream), and in a file that makes such calls, the types of its
variables and fields (`cudaStream_t _streams[2]` → aclrtStream) and its includes (`#include <cuda_runtime.h>` →
acl/acl.h). A file that only declares CUDA types in signatures (a kernel library's header) is left to its kernels. Code inside a preprocessor branch on the NPU (`#if defined(__ENABLE_CANN__)`
... `#else` ...) is the project's own NPU port: analyzer/context/preprocessor.py gives it the npu-path reach; code in an
arm only a CUDA build compiles (`#ifdef WITH_CUDA`) is cuda-only-guarded. Each file leaves a HostRuntimeRecord (the
CUDA names it declares for its build without CUDA, its includes, its macros' arms) for cuda_only_headers.py."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.preprocessor import cuda_build_branch, macro_arms
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit, Scanner, Span, Unit
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, HostRuntimeRecord
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.knowledge import load_acl_runtime

QUERY = r"""
((call_expression function: (identifier) @call) (#match? @call "^cuda[A-Z]"))
((type_identifier) @type (#match? @type "^cuda[A-Z][A-Za-z]*_t$"))
(preproc_include path: (_) @include)
((type_definition declarator: (type_identifier) @declared) (#match? @declared "^cuda[A-Z]"))
((type_definition declarator: (pointer_declarator declarator: (type_identifier) @declared)) (#match? @declared "^cuda[A-Z]"))
((alias_declaration name: (type_identifier) @declared) (#match? @declared "^cuda[A-Z]"))
((preproc_def name: (identifier) @declared) (#match? @declared "^cuda[A-Z]"))
[(preproc_ifdef) (preproc_if) (preproc_elif)] @arm
"""
NO_COUNTERPART = "no one-to-one AscendCL call: see the runtime interfaces of acl/acl_rt.h"
NVCC_SUFFIX = ".cu"  # only nvcc compiles it (a .cuh is a header: its includer decides)
SIGNATURES = {"parameter_declaration", "optional_parameter_declaration", "function_declarator", "parameter_list"}


class CudaRuntimeHostScanner(Scanner):
    domain = "custom_ops"
    kinds = frozenset({"cuda", "cpp"})
    triggers = ("cuda", "CUDA")  # CUDA: a file that only tests `#ifdef __CUDACC__` may include the nvcc-only headers

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.code = RuleIndex(kb, "custom_ops").code_for("cuda-runtime-host-call")
        self.table = load_acl_runtime()
        self.cuda_macros = frozenset(self.table.cuda_build_macros)

    def scan(self, unit: Unit) -> list[Hit]:
        found = parsing.captures(parsing.query(unit.kind, QUERY), unit.tree())
        self._record(unit, found)
        if unit.kind == "cuda" and "__global__" in unit.source.text:
            return []  # a kernel file: its kernel findings carry the port of the whole file
        hits, rows = [], set()
        calls = [(n, self._call(n)) for n in found.get("call", [])]
        if not calls:
            return []  # declarations alone (a kernel library's header: `cudaStream_t stream);`) go with its kernels
        declared = {n.id for n in found.get("declared", [])}
        sites = calls + [(n, self._type(n)) for n in found.get("type", []) if not _in_signature(n) and n.id not in declared]
        sites += [(n, self._include(n)) for n in found.get("include", [])]
        # one finding per line, a call before a type: `CHECK(cudaMemcpyAsync(..., (cudaStream_t) s))` is the call's
        # (a type the project declares for its build without CUDA is dropped later: cuda_only_headers.py)
        ordered = sorted(((n, s) for n, s in sites if s is not None),
                         key=lambda item: (item[0].start_point.row, not item[1][0].endswith("()"), item[0].start_byte))
        for node, (symbol, npu) in ordered:
            row = node.start_point.row
            if row in rows:
                continue
            rows.add(row)
            hits.append(Hit(self.code, symbol, Span.of(node), npu))
        return hits

    def _record(self, unit: Unit, found: dict) -> None:
        """What the project pass needs (cuda_only_headers.py): the names this file declares for a build without CUDA,
        and its includes, each with whether only a CUDA build compiles it."""
        nvcc_only = unit.path.endswith(NVCC_SUFFIX)
        macros = self.cuda_macros
        declared = sorted({parsing.text(n) for n in found.get("declared", []) if not nvcc_only and cuda_build_branch(n, macros) is None})
        includes = [(parsing.text(n).strip('<>"'), n.start_point.row + 1, nvcc_only or cuda_build_branch(n, macros) is not None)
                    for n in found.get("include", [])]
        arms = [(macro, first + 1, last + 1, row + 1) for node in found.get("arm", []) for macro, first, last, row in macro_arms(node)
                if macro not in macros]  # those are settled per site (analyzer/core/filework.py)
        unit.cache.setdefault("custom_ops", CustomOpFacts()).host_runtime.append(HostRuntimeRecord(unit.path, declared, includes, arms))

    def _call(self, node) -> tuple[str, str] | None:
        name = parsing.text(node)
        entry = self.table.calls.get(name)
        if entry is None:
            return f"{name}()", NO_COUNTERPART
        return f"{name}()", entry.acl + (f" ({entry.note})" if entry.note else "")

    def _type(self, node) -> tuple[str, str] | None:
        name = parsing.text(node)
        return (name, self.table.types[name]) if name in self.table.types else None

    def _include(self, node) -> tuple[str, str] | None:
        header = parsing.text(node).strip("<>\"")
        return (f"#include <{header}>", self.table.includes[header]) if header in self.table.includes else None


def _in_signature(node) -> bool:
    """A type in a function's parameters or its declared return type: it changes with the calls that use it."""
    current, depth = node.parent, 0
    while current is not None and depth < 6:
        if current.type in SIGNATURES:
            return True
        if current.type in {"function_definition", "declaration"}:
            declarator = current.child_by_field_name("declarator")
            return declarator is not None and declarator.type == "function_declarator"
        current, depth = current.parent, depth + 1
    return False
