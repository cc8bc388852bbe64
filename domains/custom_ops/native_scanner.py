"""The custom_ops domain over CUDA/C++ sources and CMake files."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.domains.base import Hit, Scanner, Span, Unit, bilingual
from ascend_feasibility.domains.custom_ops.kernel_body import class_for_shape, class_of_backward
from ascend_feasibility.domains.custom_ops.native import analyze_native
from ascend_feasibility.domains.custom_ops.records import (
    BindingRecord,
    CustomOpFacts,
    ExtensionRecord,
    KernelRecord,
    NativeUnitRecord,
)
from ascend_feasibility.domains.rule_index import RuleIndex

HARD_FEATURES = {"tensor-core MMA", "inline PTX", "CUTLASS", "CuTe"}
CMAKE_CUDA_COMMANDS = {"enable_language", "find_package", "project", "cuda_add_library", "cuda_add_executable", "set"}


class NativeSourceScanner(Scanner):
    domain = "custom_ops"
    kinds = frozenset({"cuda", "cpp"})
    triggers = ("__global__", "PYBIND11_MODULE", "TORCH_LIBRARY")

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb, "custom_ops")

    def scan(self, unit: Unit) -> list[Hit]:
        native = analyze_native(unit)
        facts = unit.cache.setdefault("custom_ops", CustomOpFacts())
        hits = []
        if native.functions or native.bindings:  # a binding file's includes declare what it binds
            facts.natives.append(NativeUnitRecord(unit.path, native.includes, native.functions, native.called))
        callers_of: dict[str, list[str]] = {}
        for host, kernels in native.launches.items():
            for kernel in kernels:
                callers_of.setdefault(kernel, []).append(host)
        bound_ops = {op for binding in native.bindings for op in binding.ops}
        classes = {}
        for kernel in native.kernels:
            related = [*callers_of.get(kernel.name, []), *(bound_ops if len(native.kernels) == 1 else [])]
            named = self.kb.classify_kernel(kernel.name, *related, PurePosixPath(unit.path).stem, signature=kernel.parameters)
            classes[kernel.name] = class_for_shape(self.kb, named, kernel.shape, kernel.softmax)
        for kernel in native.kernels:
            features = kernel.features + native.file_features
            kernel_class = class_of_backward(self.kb, kernel.name, classes[kernel.name], classes)
            facts.kernels.append(
                KernelRecord(kernel.name, unit.path, kernel.line, kernel.end_line, "cuda", features,
                             callers_of.get(kernel.name, []), kernel_class=kernel_class.name, code=kernel.code)
            )
            bump = 1 if HARD_FEATURES & set(features) else 0
            tier = ["low", "medium", "high"][min(["low", "medium", "high"].index(kernel_class.tier) + bump, 2)]
            detector = "cuda-kernel-no-equivalent" if kernel_class.path == "ascend-c" else "cuda-kernel"
            detail = f"{kernel.name} ({kernel_class.name}" + (f"; {', '.join(features)}" if features else "") + ")"
            span = Span(kernel.line - 1, 0, kernel.line - 1, len(unit.source.line_bytes(kernel.line - 1)))
            hits.append(Hit(self.index.code_for(detector), detail, span, bilingual(kernel_class.replacement.en, kernel_class.replacement.zh),
                            effort=self.kb.effort_tiers[tier]))
        for binding in native.bindings:
            facts.bindings.append(BindingRecord(unit.path, binding.line, binding.macro, binding.module, binding.ops))
            span = Span(binding.line - 1, 0, binding.line - 1, len(unit.source.line_bytes(binding.line - 1)))
            ops = ", ".join(sorted(binding.ops)) or "no ops found"
            if binding.macro == "TORCH_LIBRARY_IMPL" and binding.dispatch_key == "CUDA":
                hits.append(Hit(self.index.code_for("torch-library-cuda-impl"), f"{binding.module}: {ops}", span))
            elif native.storage_includes:
                hits.append(Hit(self.index.code_for("gpudirect-storage-binding"), f"{binding.macro}({binding.module}): {ops}", span))
            elif binding.macro != "PYBIND11_MODULE" or native.uses_cuda or _binds_cuda(binding):
                host = sorted(op for op, function in binding.ops.items() if function in native.host)
                ported = [op for op in binding.ops if op not in host]
                hits.append(Hit(self.index.code_for("extension-binding"), f"{binding.macro}({binding.module}): {ops}", span,
                                npu=_host_ops_text(host, ported) if host else None, facets=(HOST_OPS,) if host else ()))
        return hits


HOST_OPS = "host-ops"  # some bound functions are host code (host_functions.py): a CPU build, no port


def _host_ops_text(host: list[str], ported: list[str]) -> str:
    """`bfs_cluster` is host code ...; the ops left to port: `ballquery_batch_p`."""
    named = ", ".join(f"`{op}`" for op in host)
    rest = ", ".join(f"`{op}`" for op in sorted(ported)) or "none"
    return f"{named} (host C++: no kernel, no CUDA API); the ops that need an NPU route: {rest}"


def _binds_cuda(binding) -> bool:
    """A frontend file that binds functions defined in .cu files (multi_tensor_adam_cuda): its own code has no CUDA."""
    return any("cuda" in name.lower() for name in (*binding.ops, *binding.ops.values()))


class CMakeCudaScanner(Scanner):
    domain = "custom_ops"
    kinds = frozenset({"build"})
    triggers = ("CUDA",)

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb, "custom_ops")

    def wants(self, unit: Unit) -> bool:
        name = PurePosixPath(unit.path).name
        return (name == "CMakeLists.txt" or name.endswith(".cmake")) and super().wants(unit)

    def scan(self, unit: Unit) -> list[Hit]:
        facts = unit.cache.setdefault("custom_ops", CustomOpFacts())
        hits = []
        codes = [line.split("#", 1)[0] for line in unit.source.text.split("\n")]
        compiles_cuda = None
        for row, code in enumerate(codes):
            command = code.strip().split("(", 1)[0].strip().lower()
            if command not in CMAKE_CUDA_COMMANDS or "CUDA" not in code:
                continue
            if command == "set" and "CMAKE_CUDA" not in code:
                continue
            facets: tuple[str, ...] = ()
            effort = None
            if command == "find_package" and "REQUIRED" not in _arguments(codes, row).split():
                if compiles_cuda is None:
                    compiles_cuda = any(_names_cuda_source(c) for c in codes)
                if not compiles_cuda:  # a probe whose result only switches options: the build goes on without CUDA
                    facets, effort = (OPTIONAL_PROBE,), PROBE_EFFORT
            line = unit.source.text.split("\n")[row]
            hits.append(Hit(self.index.code_for("cmake-cuda"), code.strip(), Span(row, 0, row, len(line.encode("utf-8"))),
                            facets=facets, effort=effort))
            facts.extensions.append(ExtensionRecord(PurePosixPath(unit.path).parent.name or "cmake", unit.path, row + 1, []))
        return hits


OPTIONAL_PROBE = "optional-probe"
PROBE_EFFORT = (0.0, 0.5)
MAX_COMMAND_LINES = 10


def _arguments(codes: list[str], row: int) -> str:
    """The text of the CMake command starting at `row` up to its closing parenthesis (a few lines at most), with the
    parentheses as spaces: `find_package(CUDA\n  REQUIRED)` → ' CUDA   REQUIRED '."""
    text = " ".join(codes[row:row + MAX_COMMAND_LINES])
    start = text.find("(")
    end = text.find(")", start)
    return text[start + 1:end if end > start else len(text)] if start >= 0 else ""


def _names_cuda_source(code: str) -> bool:
    """A CMake line naming a CUDA translation unit (`add_library(k kernel.cu)`, `file(GLOB s *.cu)`): the build
    compiles CUDA where CUDA is found. A .cuh header alone compiles nothing."""
    for separator in "()\"';":
        code = code.replace(separator, " ")
    return any(token.endswith(".cu") for token in code.split())
