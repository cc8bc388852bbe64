"""CUDA and C++ sources: __global__ kernels with the features that make a port hard, the host functions that
launch them, and the Python bindings (PYBIND11_MODULE, TORCH_LIBRARY, TORCH_LIBRARY_IMPL) that expose them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ascend_feasibility.analyzer.context.written_names import NAME_BYTES
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.custom_ops.host_functions import host_functions
from ascend_feasibility.domains.custom_ops.kernel_body import Shape, body_shape, loops_in, softmax_in
from tree_sitter import Node

LAUNCH_PATTERN = "(call_expression function: (_) @launched (kernel_call_syntax))"  # CUDA grammar only
QUERY = r"""
(preproc_function_def name: (identifier) @macro_name value: (preproc_arg) @macro_value)
(function_definition) @function
(preproc_include path: (_) @include)
(gnu_asm_expression) @asm
(type_qualifier) @qualifier
(call_expression function: (identifier) @called)
(call_expression function: (qualified_identifier) @called)
(call_expression function: (template_function name: (_) @called_template))
(qualified_identifier) @qualified
"""

LIBRARIES = {
    "cublas": "cuBLAS", "cublasLt": "cuBLASLt", "cudnn": "cuDNN", "cutlass": "CUTLASS", "cute": "CuTe",
    "cub/": "CUB", "thrust/": "Thrust", "nccl": "NCCL", "cufft": "cuFFT", "curand": "cuRAND", "cusparse": "cuSPARSE",
    "mma.h": "WMMA", "cuda_fp8": "FP8 types",
}
WARP_INTRINSICS = ("__shfl", "__ballot", "__syncwarp", "__activemask", "__any_sync", "__all_sync", "__reduce_")
RUNTIME_FAMILIES = {
    "cudaMalloc": "memory", "cudaFree": "memory", "cudaMemcpy": "memory", "cudaMemset": "memory", "cudaHostAlloc": "memory",
    "cudaStream": "streams", "cudaEvent": "events", "cudaGraph": "graphs", "cudaLaunch": "launch",
    "cudaFuncSetAttribute": "launch", "cudaDeviceSynchronize": "sync", "cudaGetDevice": "device", "cudaSetDevice": "device",
    "cuLaunch": "driver", "cuModule": "driver", "cuMem": "driver",
}
COOPERATING = {"atomics", "warp intrinsics", "inline PTX", "tensor-core MMA"}
BINDING_MACROS = {"PYBIND11_MODULE", "TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL"}


@dataclass
class NativeKernel:
    name: str
    line: int  # 1-based
    end_line: int
    features: list[str] = field(default_factory=list)
    parameters: str = ""  # the parameter list as written: its types and names say what the kernel takes (int8_t *A)
    code: str = ""  # a hash of its tokens, comments and spacing aside: the same kernel copied into another file
    shape: Shape | None = None  # what its body shows it computes (kernel_body.py): a recurrence, elementwise math
    softmax: bool | None = None  # does its body compute an exponential or a max (kernel_body.softmax_in); None: unknown


@dataclass
class Binding:
    macro: str  # PYBIND11_MODULE, TORCH_LIBRARY, TORCH_LIBRARY_IMPL ...
    module: str  # the module or namespace name as written
    dispatch_key: str  # CUDA for TORCH_LIBRARY_IMPL(ns, CUDA, m); empty otherwise
    ops: dict[str, str]  # python/op name → bound C++ function
    line: int


@dataclass
class NativeFile:
    kernels: list[NativeKernel] = field(default_factory=list)
    launches: dict[str, list[str]] = field(default_factory=dict)  # host function → kernels it launches
    bindings: list[Binding] = field(default_factory=list)
    file_features: list[str] = field(default_factory=list)
    runtime_calls: dict[str, int] = field(default_factory=dict)  # family → count
    cuda_includes: bool = False  # includes a CUDA header (cuda_runtime.h, ATen/cuda/..., c10/cuda/...)
    storage_includes: bool = False  # includes cuFile (GPUDirect Storage)
    includes: list[str] = field(default_factory=list)  # the headers it includes, as written
    # every function it defines, bindings left out: (name, first line, last line, the file's own functions its body
    # names): what custom_ops/binding_reach.py follows from a binding to a kernel
    functions: list[tuple[str, int, int, list[str]]] = field(default_factory=list)
    called: list[str] = field(default_factory=list)  # what its code calls or launches, by plain name
    host: set[str] = field(default_factory=set)  # functions that are host code, read where it binds (host_functions.py)

    @property
    def uses_cuda(self) -> bool:
        """Does this file's own code touch CUDA (a binding of CPU or host-only code does not)?"""
        return bool(self.kernels or self.launches or self.runtime_calls or self.file_features or self.cuda_includes)


def analyze_native(unit: Unit) -> NativeFile:
    cached = unit.cache.get("native")
    if cached is not None:
        return cached
    result = NativeFile()
    source = QUERY + LAUNCH_PATTERN if unit.kind == "cuda" else QUERY
    found = parsing.captures(parsing.query(unit.kind, source), unit.tree())
    libraries = sorted({label for node in found.get("include", []) for key, label in LIBRARIES.items() if key in parsing.text(node)})
    result.file_features += libraries
    result.includes = [parsing.text(node).strip('<>"') for node in found.get("include", [])]
    included = [include.lower() for include in result.includes]
    result.cuda_includes = any("cuda" in text for text in included)
    result.storage_includes = any("cufile" in text for text in included)
    if any("at::cuda" in parsing.text(n) or "c10::cuda" in parsing.text(n) for n in found.get("qualified", [])):
        result.file_features.append("ATen CUDA API")
    for node in found.get("called", []):
        name = parsing.text(node)
        for prefix, family in RUNTIME_FAMILIES.items():
            if name.startswith(prefix):
                result.runtime_calls[family] = result.runtime_calls.get(family, 0) + 1
    # `#define DEFINE_KERNEL(name, ...) __global__ void name(...)`: uses of the macro define kernels
    kernel_macros = {
        parsing.text(name) for name, value in zip(found.get("macro_name", []), found.get("macro_value", []))
        if "__global__" in parsing.text(value)
    }
    defined = [(function, _function(function, result, unit.kind, kernel_macros)) for function in found.get("function", [])]
    if result.kernels:  # what each kernel's body computes; a call to a looping helper is a loop
        own_loops = frozenset(_plain_name(parsing.text(name)) for function, _ in defined
                              if (name := _declarator_name(function.child_by_field_name("declarator"))) is not None
                              and loops_in(function))
        own = {_plain_name(parsing.text(name)): function for function, _ in defined
               if (name := _declarator_name(function.child_by_field_name("declarator"))) is not None}
        for function, kernel in defined:
            if kernel is not None:
                kernel.shape = body_shape(function, own_loops)
                kernel.softmax = softmax_in(function, own)
                if kernel.shape == "elementwise" and COOPERATING & set(kernel.features):
                    kernel.shape = None  # threads that add into one counter or trade values are no elementwise math
    for node in found.get("launched", []):
        host = _enclosing_function_name(node)
        if host:
            result.launches.setdefault(host, []).append(parsing.text(node).split("<")[0].strip())
    result.functions = _function_mentions(unit, found)
    result.called = _called(found)
    if result.bindings:
        result.host = host_functions(unit.tree(), unit.source.data, result.functions,
                                     {kernel.name for kernel in result.kernels}, set(result.launches))
    unit.cache["native"] = result
    return result


def _function(function: Node, result: NativeFile, language: str, kernel_macros: set[str]) -> NativeKernel | None:
    """The kernel `function` defines (added to `result`), or None; a binding is added to `result` too."""
    declarator = function.child_by_field_name("declarator")
    name_node = _declarator_name(declarator)
    if name_node is None:
        return None
    name = parsing.text(name_node)
    if name in BINDING_MACROS:
        result.bindings.append(_binding(name, function, language))
        return None
    if name in kernel_macros:
        params = declarator.child_by_field_name("parameters")
        first = params.named_children[0] if params is not None and params.named_children else None
        name = parsing.text(first) if first is not None else name
    elif not any(child.type == "__global__" or parsing.text(child) == "__global__" for child in function.children[:3]):
        return None
    params = declarator.child_by_field_name("parameters")
    kernel = NativeKernel(name, function.start_point.row + 1, function.end_point.row + 1,
                          parameters=parsing.text(params) if params is not None else "", code=code_digest(function))
    body_text = parsing.text(function.child_by_field_name("body")) if function.child_by_field_name("body") else ""
    if "__shared__" in body_text or "extern __shared__" in body_text:
        kernel.features.append("shared memory")
    if any(token in body_text for token in WARP_INTRINSICS):
        kernel.features.append("warp intrinsics")
    if "asm" in body_text and ("asm(" in body_text.replace(" ", "") or "asmvolatile" in body_text.replace(" ", "")):
        kernel.features.append("inline PTX")
    if "wmma::" in body_text or "mma.sync" in body_text or "wgmma" in body_text:
        kernel.features.append("tensor-core MMA")
    if "atomic" in body_text:
        kernel.features.append("atomics")
    if function.parent is not None and function.parent.type == "template_declaration":
        kernel.features.append("templates")
    result.kernels.append(kernel)
    return kernel


def _function_mentions(unit: Unit, found: dict[str, list[Node]]) -> list[tuple[str, int, int, list[str]]]:
    """Each function the file defines (bindings left out) with the file's own functions its body names: calls, launches,
    a kernel's address, a template argument; and an entry named "" with those the top level names. Read from the
    words (bytes.translate, at memory speed; a name in a comment counts too, which only keeps more code reached). Only
    a file with kernels or bindings gets here."""
    spans = []  # (start byte, end byte, name, first line, last line)
    for function in found.get("function", []):
        name_node = _declarator_name(function.child_by_field_name("declarator"))
        if name_node is None:
            continue
        name = _plain_name(parsing.text(name_node))
        if name not in BINDING_MACROS:
            spans.append((function.start_byte, function.end_byte, name, function.start_point.row + 1,
                          function.end_point.row + 1))
    own = {span[2].encode("utf-8") for span in spans}
    data = unit.source.data
    result = []
    outside, position = [], 0  # the text between the functions: macros, tables of kernels, prototypes
    for start, end, name, first, last in sorted(spans):
        named = own.intersection(data[start:end].translate(NAME_BYTES).split())
        result.append((name, first, last, sorted(word.decode("utf-8") for word in named if word != name.encode("utf-8"))))
        if start >= position:
            outside.append(data[position:start])
            position = end
    outside.append(data[position:])
    # a name the file's top level writes (a `#define` that launches a kernel, a table of function pointers) may run
    # from anywhere: an entry named "" holds those names
    top = own.intersection(b" ".join(outside).translate(NAME_BYTES).split())
    if top:
        result.append(("", 0, 0, sorted(word.decode("utf-8") for word in top)))
    return result


def _called(found: dict[str, list[Node]]) -> list[str]:
    """The functions and kernels the file's code calls or launches, by their plain names (not a name in a comment)."""
    nodes = found.get("called", []) + found.get("called_template", []) + found.get("launched", [])
    return sorted({_plain_name(parsing.text(node)) for node in nodes})


def _plain_name(name: str) -> str:
    """`vllm::silu_and_mul_kernel<scalar_t>` → silu_and_mul_kernel."""
    return name.split("<", 1)[0].split("::")[-1].strip()


def _declarator_name(declarator: Node | None) -> Node | None:
    while declarator is not None and declarator.type not in {"identifier", "field_identifier", "qualified_identifier"}:
        declarator = declarator.child_by_field_name("declarator")
    return declarator


def _binding(macro: str, function: Node, language: str) -> Binding:
    declarator = function.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters") if declarator is not None else None
    args = [parsing.text(p) for p in params.named_children] if params is not None else []
    ops: dict[str, str] = {}
    body = function.child_by_field_name("body")
    calls = parsing.captures(parsing.query(language, "(call_expression) @call"), body) if body else {}
    for call in calls.get("call", []):
        callee = call.child_by_field_name("function")
        if callee is None or not parsing.text(callee).endswith((".def", ".impl")):
            continue
        arguments = call.child_by_field_name("arguments")
        values = arguments.named_children if arguments is not None else []
        if not values or values[0].type != "string_literal":
            continue
        op = parsing.text(values[0]).strip('"').split("(")[0].split("::")[-1]
        target = parsing.text(values[1]).lstrip("&").split("::")[-1] if len(values) > 1 else ""
        ops[op] = target
    key = args[1] if macro == "TORCH_LIBRARY_IMPL" and len(args) > 1 else ""
    return Binding(macro, args[0] if args else "", key, ops, function.start_point.row + 1)


def code_digest(node: Node) -> str:
    """A hash of a definition's tokens, comments and spacing aside: AutoGPTQ's cuda_64 and cuda_256 extensions compile
    the same kernels from two files that differ only there (and in the constants the kernels read)."""
    digest = hashlib.blake2b(digest_size=12)
    for current in parsing.walk(node, prune=_COMMENT, named=False, source_order=True):
        if current.type != "comment" and current.child_count == 0:
            digest.update(current.text + b"\0")
    return digest.hexdigest()


_COMMENT = frozenset({"comment"})


def _enclosing_function_name(node: Node) -> str | None:
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            name = _declarator_name(current.child_by_field_name("declarator"))
            return parsing.text(name) if name is not None else None
        current = current.parent
    return None
