"""Plain records of custom operators that files contribute and the project-level inventory links together."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class KernelRecord:
    name: str
    path: str
    line: int
    end_line: int
    kind: str  # cuda, triton, cpp, cupy, numba
    features: list[str] = field(default_factory=list)
    host_callers: list[str] = field(default_factory=list)  # host functions in the same file that launch it
    ub_estimate_bytes: int | None = None
    block_sizes: dict[str, int] = field(default_factory=dict)
    cell: int | None = None
    kernel_class: str = "other"  # what it computes, as the scanner classified it
    code: str = ""  # a hash of its tokens, comments and spacing aside (native.code_digest); "" where not read
    # a Triton kernel its file names only at its definition and at launches, each in the body of an `if` whose else
    # arm in the same function goes on without it: (the if's line, its test); triton_fallbacks.py reads it
    else_arm: tuple[int, str] | None = None


@dataclass
class BindingRecord:
    path: str
    line: int
    macro: str
    module: str
    ops: dict[str, str]  # op name → bound C++ function


@dataclass
class ExtensionRecord:
    """A build of native code: CUDAExtension/CppExtension in setup.py, cpp_extension.load, CMake CUDA."""

    name: str
    path: str
    line: int
    sources: list[str]
    cuda: bool = False  # builds CUDA code (CUDAExtension, or a loader given CUDA sources)
    listed: bool = False  # `sources` is the whole list: every source a plain string, none joined at run time
    folders: list[str] = field(default_factory=list)  # folders `sources` collects by walking them, from the builder's
    # folder ("." where the walked folder is unread: phases/walked_folders.py)
    installs: list[tuple[str, str]] = field(default_factory=list)  # (package, folder from the builder's) its setup()
    # installs under another name than the folder's (installed_packages.py)


@dataclass
class ImportSite:
    """An absolute import in Python code, by the dotted name it loads (`from fairseq import libnat_cuda`:
    fairseq.libnat_cuda), kept where it may name an extension the project builds."""

    module: str
    path: str
    line: int
    column: int  # 1-based
    end_column: int
    snippet: str
    cell: int | None = None
    function: str = ""  # the function the import sits in ("" at module level: it runs when the module loads)
    gate: str = ""  # in a function, the condition of the `if` whose body holds the import (`model_uses_exllama`)
    gate_line: int = 0
    caught: bool = False  # in a try whose handler catches the ImportError and carries on
    # the nearest `if` holding the import whose CUDA test transfer_to_npu makes true (`torch.cuda.is_available()`)
    shim_gate: str = ""
    shim_gate_line: int = 0


@dataclass
class CallRecord:
    """A Python call that may reach a custom op: `kernel[grid](...)` or `module.op(...)`."""

    name: str  # qualified name, or the kernel name for a Triton launch
    path: str
    line: int
    cell: int | None
    triton_launch: bool = False


@dataclass
class NativeUnitRecord:
    """A CUDA/C++ file with kernels or bindings: the headers it includes, each function it defines with the file's own
    functions it names, and what its code calls or launches (native.NativeFile)."""

    path: str
    includes: list[str]
    functions: list[tuple[str, int, int, list[str]]]  # (name, first line, last line, the file's own functions it names)
    called: list[str]  # the functions and kernels its code calls or launches


@dataclass
class NativeWords:
    """The words a CUDA/C++ file that may belong to a torch extension writes (written_names.word_string): who may call
    a host function, which only a file writing its name can (binding_reach.py)."""

    path: str
    words: str


@dataclass
class RouteRecord:
    """An extension op the project also computes in plain PyTorch (custom_ops/pytorch_routes.py)."""

    path: str
    route: str  # the PyTorch twin
    route_line: int
    ops: tuple[str, ...]  # the extension ops the code it stands for calls
    definitions: tuple[str, ...]  # that code's module-level definitions (the autograd Functions among them)
    kind: str  # device-test, cpu-test, flag, sibling, cpu-arm
    line: int  # the test choosing between them, or the twin's extension-calling definition
    test: str
    shim: bool  # a test transfer_to_npu makes true for NPU tensors


@dataclass
class HostRuntimeRecord:
    """A CUDA/C++ file that writes `cuda`: the CUDA runtime names it declares itself outside a CUDA-only preprocessor
    arm (`typedef void* cudaStream_t;` for its CPU build), the project headers it includes, each with whether only a
    CUDA build compiles that include (`#ifdef __CUDACC__`, or the file is a .cu), and the arms each macro of the
    project's own selects (`#ifdef MMCV_WITH_CUDA`): the build may define it only for CUDA."""

    path: str
    declared: list[str]
    includes: list[tuple[str, int, bool]]  # (the include's path, its line, only a CUDA build compiles it)
    arms: list[tuple[str, int, int, int]] = field(default_factory=list)  # (macro, first line, last line, #if line)


@dataclass
class CustomOpFacts:
    kernels: list[KernelRecord] = field(default_factory=list)
    bindings: list[BindingRecord] = field(default_factory=list)
    extensions: list[ExtensionRecord] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    imports: list[ImportSite] = field(default_factory=list)
    natives: list[NativeUnitRecord] = field(default_factory=list)
    native_words: list[NativeWords] = field(default_factory=list)
    routes: list[RouteRecord] = field(default_factory=list)
    host_runtime: list[HostRuntimeRecord] = field(default_factory=list)
    cuda_macros: list[tuple[str, str]] = field(default_factory=list)  # (macro, "setup.py:66") only a CUDA build defines
    # CMake (cmake_options.py): options (name, default ON, "path:line"), `if` arms needing options ON (path, the
    # options, first, last), CUDA sources named (path, line, file name, options the arms around it need), and the
    # options documented builds turn on (`-DNAME=ON`)
    cmake_options: list[tuple[str, bool, str]] = field(default_factory=list)
    cmake_blocks: list[tuple[str, tuple[str, ...], int, int]] = field(default_factory=list)
    cmake_sources: list[tuple[str, int, str, tuple[str, ...]]] = field(default_factory=list)
    build_switches: list[str] = field(default_factory=list)
    cmake_names: list[str] = field(default_factory=list)  # upper-case names CMake commands other than if write or read
    # (path, line, name) of each library a CMake target links (target_link_libraries) and package it finds
    # (find_package): what shows a TensorRT deployment's build (tensorrt_plugins.py)
    cmake_links: list[tuple[str, int, str]] = field(default_factory=list)
    # (path, line) of each kernel Function that is another Function's backward pass (python_scanner BACKWARD_PASS)
    backward_functions: list[tuple[str, int]] = field(default_factory=list)
    # (path, class line, ops) of each kernel Function whose every launch is a call into a compiled extension
    # (`ext.op(...)`): the ops it calls, which function_fold.py matches with the project's kernels through the bindings
    function_ops: list[tuple[str, int, tuple[str, ...]]] = field(default_factory=list)
    # (script path, line, folder) of each folder a shell script installs from source (install_docs.
    # installed_local_folders): which scripts count, the README's or a root install.sh, submodule_extensions.py says
    script_installs: list[tuple[str, int, str]] = field(default_factory=list)

    def extend(self, other: "CustomOpFacts") -> None:
        self.kernels += other.kernels
        self.bindings += other.bindings
        self.extensions += other.extensions
        self.calls += other.calls
        self.imports += other.imports
        self.natives += other.natives
        self.native_words += other.native_words
        self.routes += other.routes
        self.host_runtime += other.host_runtime
        self.cuda_macros += other.cuda_macros
        self.cmake_options += other.cmake_options
        self.cmake_blocks += other.cmake_blocks
        self.cmake_sources += other.cmake_sources
        self.build_switches += other.build_switches
        self.cmake_names += other.cmake_names
        self.cmake_links += other.cmake_links
        self.backward_functions += other.backward_functions
        self.function_ops += other.function_ops
        self.script_installs += other.script_installs
