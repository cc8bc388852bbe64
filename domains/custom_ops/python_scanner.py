"""The custom_ops domain over Python: Triton kernels (with an on-chip buffer estimate), NVIDIA-only Triton
features, autograd Functions around custom kernels, cupy and numba CUDA kernels, and extension builds and loads.
It also records kernels, launches and calls for the project-level inventory."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.kernel_contract import (
    COMPILED_MARKERS,
    MMCV_LOADERS,
    custom_namespace,
    extension_aliases,
    torch_own_binding,
)
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import CALLS_BY_NAME_QUERY, bilingual
from ascend_feasibility.domains.custom_ops.installed_packages import installed_packages
from ascend_feasibility.domains.custom_ops.pytorch_routes import may_route, pytorch_routes
from ascend_feasibility.domains.custom_ops.records import CallRecord, CustomOpFacts, ExtensionRecord, KernelRecord
from ascend_feasibility.domains.custom_ops.routed_kernels import FUNCTION_RULE
from ascend_feasibility.domains.custom_ops.source_kinds import builds_host_only
from ascend_feasibility.domains.custom_ops.triton_fallbacks import launched_with_else_arm
from ascend_feasibility.domains.phases.walked_folders import collected_folders
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference, argument, keywords, unit_references
from tree_sitter import Node

QUERY = r"""
(decorated_definition definition: (function_definition name: (identifier) @kernel_name)) @decorated
(call function: (subscript value: [(identifier) (attribute)] @launched)) @launch
(class_definition superclasses: (argument_list) @bases) @class
(module (expression_statement (assignment left: (identifier) @constant right: [(integer) (binary_operator)] @value)))
(assignment left: (identifier) right: (identifier) @aliased)
"""

TRITON_DECORATORS = {"triton.jit", "triton.autotune", "triton.heuristics", "triton.runtime.jit.jit"}
NVIDIA_ONLY_TRITON = (
    "triton.language.extra.cuda", "triton.language.extra.libdevice", "triton.language.math.libdevice",
    "triton.language.inline_asm_elementwise", "triton.language.make_tensor_descriptor",
    "triton.language._experimental_descriptor_load", "triton.language._experimental_descriptor_store",
    "triton.tools.experimental_descriptor", "triton.tools.tensor_descriptor",
)
EXTENSION_BUILDERS = {
    "torch.utils.cpp_extension.CUDAExtension": "CUDAExtension",
    "torch.utils.cpp_extension.CppExtension": "CppExtension",
}
JIT_LOADER = "torch.utils.cpp_extension.load"  # ✘ on NPU; load_inline is ✔ for C++ sources
INLINE_LOADER = "torch.utils.cpp_extension.load_inline"
# CuPy's CUDA kernel builders: the classes, and the compile call whose module's get_function launches a kernel
# (`cupy.cuda.compile_with_cache(code).get_function(name)`, round 32 B1 row 2, verdict V6)
CUPY_KERNELS = {"cupy.RawKernel", "cupy.ElementwiseKernel", "cupy.ReductionKernel", "cupy.RawModule",
                "cupy.cuda.compile_with_cache"}
CUPY_MEMOIZE = "cupy.memoize"  # `@cupy.memoize(for_each_device=True) def launch(...)`: a cached CUDA kernel launcher
NUMBA_CUDA_JIT = {"numba.cuda.jit"}
AUTOGRAD_FUNCTION = {"torch.autograd.Function", "torch.autograd.function.Function"}
KNOWN_ROOTS = frozenset({"torch", "numpy", "os", "sys", "math", "triton", "logging", "json", "re", "time", "random",
                         "functools", "itertools", "collections", "typing", "dataclasses", "pathlib", "einops"})
FP32_BYTES = 4
MAX_MODULE_STATEMENTS = 5000  # module-level statements read for kernels made by a call (`f = triton.jit(f)`)
MMCV_OPS_HOURS = (0.25, 1.0)  # an autograd Function over mmcv's compiled ops: look its ops up, choose the build


class _CustomOpsScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list:
        self.facts = CustomOpFacts()
        self.unit.cache["custom_ops"] = self.facts
        if may_route(self.unit.source.data):
            self.facts.routes = pytorch_routes(self.unit.tree(), self.unit.path, self.unit.import_statements(),
                                               query_set.unit_captures(self.unit, CALLS_BY_NAME_QUERY).get("called", []))
        found = self.captures()
        self.constants: dict[str, int] = {}
        for name, value in zip(found.get("constant", []), found.get("value", [])):
            number = _evaluate(value, self.constants)
            if number is not None:
                self.constants[parsing.text(name)] = number
        launches = self._launches(found.get("launch", []))
        self.jit_functions = {}  # @triton.jit functions of this unit by name: the helpers a kernel's body calls
        for node in found.get("decorated", []):
            definition = node.child_by_field_name("definition")
            if definition is not None and definition.type == "function_definition" and "triton" in "".join(
                    parsing.text(d) for d in node.named_children if d.type == "decorator"):
                self.jit_functions[parsing.text(definition.child_by_field_name("name"))] = definition
        wrapped = self._wrapped_kernels() if b"triton" in self.unit.source.data else {}
        for name, (definition, _, _) in wrapped.items():
            self.jit_functions.setdefault(name, definition)
        for node in found.get("decorated", []):
            self._decorated(node, launches)
        for definition, wrappers, bound in wrapped.values():
            self._triton_kernel(definition, wrappers, [self._wrapper_name(w) for w in wrappers],
                                [call for name in bound for call in launches.get(name, [])])
        for reference in unit_references(self.unit):
            self._reference(reference)
        self.aliases: frozenset[str] | None = None  # names bound to a loaded extension, read for the first Function
        self.mmcv_aliases: frozenset[str] = frozenset()  # those bound by mmcv's ext_loader.load_ext
        functions = {}  # the unit's autograd Functions: name -> (class node, methods by name)
        for node in found.get("class", []):
            methods = self._function_methods(node)
            if methods is not None:
                functions[parsing.text(node.child_by_field_name("name"))] = (node, methods)
        if functions:
            self._autograd_functions(functions)
        for node in found.get("aliased", []):
            self._aliased_builder(node)
        return self.hits

    def _aliased_builder(self, node: Node) -> None:
        """`extension = CUDAExtension` ... `extension('DCNv3', sources, ...)` (InternImage's setup.py): the extension is
        recorded at the call; the build itself is reported where the toolkit is checked."""
        builder = EXTENSION_BUILDERS.get(qualified_name(node, self.imports) or "")
        if builder is None:
            return
        for call in _alias_calls(node):
            ext = _string(argument(call, 0, "name")) or "?"
            line = call.start_point.row + 1
            known = next((e for e in self.facts.extensions if e.line == line and e.name == ext), None)
            if known is not None:  # `extension = CppExtension` first, `extension = CUDAExtension` where CUDA is found
                known.cuda |= builder == "CUDAExtension"
                continue
            sources = _strings(argument(call, 1, "sources"))
            self.facts.extensions.append(ExtensionRecord(ext, self.unit.path, line, sources,
                                                         builder == "CUDAExtension" or _cuda_sources(sources),
                                                         _all_literal(argument(call, 1, "sources")),
                                                         collected_folders(argument(call, 1, "sources"), self.imports),
                                                         installed_packages(call)))

    # Triton -------------------------------------------------------------------------------------------
    def _launches(self, calls: list[Node]) -> dict[str, list[Node]]:
        launches: dict[str, list[Node]] = {}
        for call in calls:
            subscript = call.child_by_field_name("function")
            value = subscript.child_by_field_name("value")
            name = parsing.text(value).split(".")[-1]
            launches.setdefault(name, []).append(call)
            self.facts.calls.append(CallRecord(name, self.unit.path, call.start_point.row + 1, self.unit.cell, True))
        return launches

    def _decorated(self, decorated: Node, launches: dict[str, list[Node]]) -> None:
        decorators = [d for d in decorated.named_children if d.type == "decorator"]
        names = [self._decorator_name(d) for d in decorators]
        definition = decorated.child_by_field_name("definition")
        kernel = parsing.text(definition.child_by_field_name("name"))
        if any(n in NUMBA_CUDA_JIT for n in names):
            if any(_numba_device_function(d) for d, n in zip(decorators, names) if n in NUMBA_CUDA_JIT):
                return  # `@cuda.jit(device=True)`: no launch of its own, compiled into the kernels calling it
            self._record(kernel, definition, "numba").kernel_class = self.index.kb.classify_kernel(kernel).name
            self.hit("numba-cuda-kernel", kernel, definition.child_by_field_name("name"))
            return
        if not any(n in TRITON_DECORATORS for n in names):
            return
        self._triton_kernel(definition, decorators, names, launches.get(kernel, []))

    def _wrapped_kernels(self) -> dict[str, tuple[Node, list[Node], set[str]]]:
        """Module-level functions made Triton kernels by a call instead of a decorator (unsloth's RoPE:
        `_rope_embedding = triton.jit(_rope_embedding)` then `= triton.heuristics({...})(_rope_embedding)`, or
        `kernel = triton.jit(_fn)`): name → (the definition, the wrapping calls, the names the kernel is bound to)."""
        definitions: dict[str, Node] = {}
        wrapping: dict[str, tuple[list[Node], set[str]]] = {}
        for statement in self.unit.tree().named_children[:MAX_MODULE_STATEMENTS]:
            if statement.type == "function_definition":
                definitions[parsing.text(statement.child_by_field_name("name"))] = statement
                continue
            assignment = parsing.statement_assignment(statement)
            right = assignment.child_by_field_name("right") if assignment is not None else None
            left = assignment.child_by_field_name("left") if assignment is not None else None
            if right is None or right.type != "call" or left is None or left.type != "identifier":
                continue
            arguments = right.child_by_field_name("arguments")
            wrapped = arguments.named_children if arguments is not None else []
            if len(wrapped) != 1 or wrapped[0].type != "identifier" or self._wrapper_name(right) not in TRITON_DECORATORS:
                continue
            name = parsing.text(wrapped[0])
            entry = wrapping.get(name) or next((w for w in wrapping.values() if name in w[1]), None)
            if entry is None:
                entry = wrapping[name] = ([], {name})
            entry[0].append(right)
            entry[1].add(parsing.text(left))
        return {name: (definitions[name], calls, bound) for name, (calls, bound) in wrapping.items() if name in definitions}

    def _wrapper_name(self, call: Node) -> str:
        """`triton.jit(f)` → triton.jit; `triton.autotune(configs=...)(f)` → triton.autotune."""
        function = call.child_by_field_name("function")
        if function is not None and function.type == "call":
            function = function.child_by_field_name("function")
        if function is None or function.type not in {"identifier", "attribute"}:
            return ""
        return qualified_name(function, self.imports) or ""

    def _triton_kernel(self, definition: Node, decorators: list[Node], names: list[str], launched: list[Node]) -> None:
        """A Triton kernel: `decorators` are its decorators or the calls that wrap it, `launched` its launches."""
        kernel = parsing.text(definition.child_by_field_name("name"))
        if not launched and _is_device_helper(definition):
            return  # `@triton.jit def silu(x): return ...`: inlined into the kernels that call it, ported with them
        record = self._record(kernel, definition, "triton")
        record.else_arm = launched_with_else_arm(kernel, launched, self.unit.source.data)
        record.block_sizes = self._block_sizes(definition, decorators, launched)
        record.ub_estimate_bytes = _ub_estimate(definition, record.block_sizes)
        # Its own name first, then the classes and functions that launch it (DeepSpeed's `_fwd_kernel` is launched
        # by `triton_flash_attn.forward`), then the file's name.
        kernel_class = self.index.kb.classify_kernel(kernel, *_launchers(launched), PurePosixPath(self.unit.path).stem,
                                                     body=_triton_calls(definition, self.jit_functions),
                                                     signature=parsing.text(definition.child_by_field_name("parameters")),
                                                     context=_float8_words(self.unit.source.data))
        record.kernel_class = kernel_class.name
        self.hit("triton-kernel", f"{kernel} ({kernel_class.name})", definition.child_by_field_name("name"),
                 bilingual(kernel_class.replacement.en, kernel_class.replacement.zh), effort=self.index.kb.effort_tiers[_tier(kernel_class.tier, bump=0)])
        uses_cube = "tl.dot(" in "".join(parsing.text(definition).split())  # operands go to the cube unit, not the UB
        if record.ub_estimate_bytes is not None and record.ub_estimate_bytes > UB_BYTES_SMALLEST and not uses_cube:
            self.hit("triton-ub-overflow-risk", f"{kernel}: ~{record.ub_estimate_bytes // 1024} KiB per program",
                     definition.child_by_field_name("name"))
        for decorator, name in zip(decorators, names):
            if name == "triton.autotune" and ("num_warps" in parsing.text(decorator) or "num_stages" in parsing.text(decorator)):
                self.hit("triton-gpu-tuning", f"{kernel} autotune configs", decorator)

    def _decorator_name(self, decorator: Node) -> str:
        expression = decorator.named_children[0] if decorator.named_children else None
        if expression is not None and expression.type == "call":
            expression = expression.child_by_field_name("function")
        if expression is None or expression.type not in {"identifier", "attribute"}:
            return ""
        return qualified_name(expression, self.imports) or ""

    def _record(self, name: str, definition: Node, kind: str) -> KernelRecord:
        record = KernelRecord(name, self.unit.path, definition.start_point.row + 1, definition.end_point.row + 1, kind,
                              cell=self.unit.cell)
        self.facts.kernels.append(record)
        return record

    def _block_sizes(self, definition: Node, decorators: list[Node], launches: list[Node]) -> dict[str, int]:
        """tl.constexpr sizes from defaults, autotune configs, launch keywords and module constants (the largest)."""
        sizes: dict[str, int] = {}

        def offer(name: str, value_node: Node | None) -> None:
            value = self._int_value(value_node)
            if value is not None and value > 0:
                sizes[name] = max(value, sizes.get(name, 0))

        parameters = definition.child_by_field_name("parameters")
        constexprs = []
        for parameter in parameters.named_children if parameters is not None else []:
            text = parsing.text(parameter)
            if "constexpr" in text:
                name = parsing.text(parameter.named_children[0]) if parameter.named_children else text.split(":")[0]
                constexprs.append(name)
                if parameter.type == "typed_default_parameter":
                    offer(name, parameter.child_by_field_name("value"))
        for decorator in decorators:
            for pair in parsing.captures(parsing.query("python", "(pair) @pair"), decorator).get("pair", []):
                key = parsing.text(pair.child_by_field_name("key")).strip("'\"")
                if key in constexprs:
                    offer(key, pair.child_by_field_name("value"))
        for call in launches:
            for key, value in keywords(call).items():
                if key in constexprs:
                    offer(key, value)
        return {k: v for k, v in sizes.items() if k.upper().startswith("BLOCK") or "SIZE" in k.upper()}

    def _int_value(self, node: Node | None) -> int | None:
        return _evaluate(node, self.constants) if node is not None else None

    # Other kernels, extensions, autograd --------------------------------------------------------------
    def _reference(self, reference: Reference) -> None:
        name, call = reference.name, reference.call
        if name.startswith(NVIDIA_ONLY_TRITON):
            self.hit("triton-nvidia-only", name, reference.node)
        elif name in CUPY_KERNELS and call is not None:
            kernel = _kernel_name(call) or name.rsplit(".", 1)[-1]
            self._record(kernel, call, "cupy").kernel_class = self.index.kb.classify_kernel(kernel).name
            self.hit("cupy-kernel", f"{name}({kernel})", call)
        elif name == CUPY_MEMOIZE and call is not None:
            launcher = _memoized_function(call)
            # one finding per launcher: a kernel builder inside it is reported at its own call
            if launcher is not None and not any(qualified_name(c.child_by_field_name("function"), self.imports) in CUPY_KERNELS
                                                for c in parsing.walk(launcher) if c.type == "call"):
                kernel = parsing.text(launcher.child_by_field_name("name"))
                self._record(kernel, call, "cupy").kernel_class = self.index.kb.classify_kernel(kernel).name
                self.hit("cupy-kernel", f"{name}({kernel})", call)
        elif name in EXTENSION_BUILDERS and call is not None:
            ext = _string(argument(call, 0, "name")) or "?"
            sources = _strings(argument(call, 1, "sources"))
            self.facts.extensions.append(ExtensionRecord(ext, self.unit.path, call.start_point.row + 1, sources,
                                                         EXTENSION_BUILDERS[name] == "CUDAExtension" or _cuda_sources(sources),
                                                         _all_literal(argument(call, 1, "sources")),
                                                         collected_folders(argument(call, 1, "sources"), self.imports),
                                                         installed_packages(call)))
            if EXTENSION_BUILDERS[name] == "CUDAExtension":  # a CppExtension builds with the host compiler
                detector = "cuda-home-guarded-extension" if _under_cuda_home_check(call) else "native-extension-build"
                self.hit(detector, f"CUDAExtension({ext})", call)
        elif name == JIT_LOADER and call is not None:
            ext = _string(argument(call, 0, "name")) or "?"
            sources = _strings(argument(call, 1, "sources"))
            self.facts.extensions.append(ExtensionRecord(ext, self.unit.path, call.start_point.row + 1, sources,
                                                         _cuda_sources(sources), folders=collected_folders(
                                                             argument(call, 1, "sources"), self.imports)))
            host_only = builds_host_only(call, argument(call, 1, "sources"), sources)
            self.hit("cpp-extension-jit-load", f"load({ext})", call, facets=("host-only",) if host_only else ())
        elif name == INLINE_LOADER and call is not None and "cuda_sources" in keywords(call):
            ext = _string(argument(call, 0, "name")) or "?"
            self.facts.extensions.append(ExtensionRecord(ext, self.unit.path, call.start_point.row + 1, [], True))
            self.hit("native-extension-build", f"load_inline({ext}, cuda_sources=...)", call)
        elif call is not None and "." in name and name.split(".")[0] not in KNOWN_ROOTS:
            self.facts.calls.append(CallRecord(name, self.unit.path, call.start_point.row + 1, self.unit.cell))

    def _function_methods(self, cls: Node) -> dict[str, Node] | None:
        """The methods of a torch.autograd.Function subclass by name; None for any other class."""
        bases = cls.child_by_field_name("superclasses")
        if bases is None or not any(qualified_name(b, self.imports) in AUTOGRAD_FUNCTION for b in bases.named_children
                                    if b.type in {"identifier", "attribute"}):
            return None
        return {parsing.text(d.child_by_field_name("name")): d
                for d in parsing.function_definitions(cls.child_by_field_name("body"))}

    def _autograd_functions(self, functions: dict[str, tuple[Node, dict[str, Node]]]) -> None:
        """Each Function whose forward or backward launches custom kernels, itself or through another kernel Function
        of the unit it applies (StyleGAN2's FusedLeakyReLUFunction.backward applies FusedLeakyReLUFunctionBackward,
        which calls the extension): one finding naming both directions. A Function that is another's backward pass
        (the unit applies it only inside other Functions' backward methods; where the unit never applies it, its name
        ends in Backward) serves training only: facet backward-pass, and its class line in facts.backward_functions (its finding's phase)."""
        if self.aliases is None:
            self.aliases = frozenset(extension_aliases(self.unit.tree()))
            self.mmcv_aliases = frozenset(extension_aliases(self.unit.tree(), MMCV_LOADERS)) if self.aliases else frozenset()
        direct = {name: [m for m in ("forward", "backward") if m in methods and _launches_custom_code(methods[m], self.aliases)]
                  for name, (_, methods) in functions.items()}
        kernels = {name for name, custom in direct.items() if custom}
        applied = _applied_functions(self.unit.tree(), set(functions)) if len(functions) > 1 else []
        for name, (cls, methods) in functions.items():
            custom = [m for m in ("forward", "backward") if m in direct[name] or m in methods and any(
                other != name and other in kernels and _inside(node, methods[m]) for other, node in applied)]
            if not custom:
                continue
            mmcv = self.mmcv_aliases
            seen = ("mmcv-ops",) if mmcv and all(_launches_custom_code(methods[m], mmcv) for m in custom) else ()
            uses = [node for other, node in applied if other == name]
            if all(_in_backward_of(node, functions, name) for node in uses) if uses else name.endswith("Backward"):
                seen += (BACKWARD_PASS,)
                self.facts.backward_functions.append((self.unit.path, cls.start_point.row + 1))
            if not seen or seen == (BACKWARD_PASS,):
                ops = _extension_ops_only([methods[m] for m in direct[name]], self.aliases)
                if ops:
                    self.facts.function_ops.append((self.unit.path, cls.start_point.row + 1, ops))
            # mmcv's ops: check them in mmcv's ops table and pick its NPU build (the mmcv build itself is DEP001's)
            self.hit("autograd-function-custom-kernel", f"{name} ({' and '.join(custom)})", cls.child_by_field_name("name"),
                     facets=seen, **({"effort": MMCV_OPS_HOURS} if "mmcv-ops" in seen else {}))


BACKWARD_PASS = "backward-pass"  # OPS040's facet: a Function that is another Function's backward (training only)
APPLY_QUERY = "(attribute object: (identifier) @function attribute: (identifier) @method)"


def backward_pass_phase(findings: list, backward_functions: list[tuple[str, int]]) -> list:
    """OPS040 at a Function that is another Function's backward pass runs in training only: its finding declares the
    training phase (domains/phases/plan.py finding_phases keeps declared phases the project has), whatever its file's
    phases."""
    sites = set(backward_functions)
    if not sites:
        return findings
    return [f.model_copy(update={"phases": ["training"]}) if f.rule == FUNCTION_RULE and (f.path, f.line) in sites else f
            for f in findings]


def _applied_functions(tree: Node, names: set[str]) -> list[tuple[str, Node]]:
    """Each `Name.apply` reference (a call or an alias `f = Name.apply`) of the unit's Functions."""
    found = parsing.captures(parsing.query("python", APPLY_QUERY), tree)
    return [(parsing.text(function), function) for function, method in zip(found.get("function", []), found.get("method", []))
            if parsing.text(method) == "apply" and parsing.text(function) in names]


def _inside(node: Node, definition: Node) -> bool:
    return definition.start_byte <= node.start_byte and node.end_byte <= definition.end_byte


def _in_backward_of(node: Node, functions: dict[str, tuple[Node, dict[str, Node]]], name: str) -> bool:
    """Is the reference inside the backward method of another of the unit's Functions?"""
    return any(other != name and "backward" in methods and _inside(node, methods["backward"])
               for other, (_, methods) in functions.items())


UB_BYTES_SMALLEST = 192 * 1024  # Ascend910B4: 1,572,864 bits (Liger-Kernel ascend-ub-manager-design.md)


def _cuda_sources(sources: list[str]) -> bool:
    """A build given .cu sources compiles CUDA whatever its builder (fairseq's CppExtension("fairseq.libnat_cuda", ...))."""
    return any(source.endswith((".cu", ".cuh")) for source in sources)


ALIAS_CALLS_QUERY = "(call function: (identifier) @function) @call"


def _alias_calls(builder: Node) -> list[Node]:
    """Calls of the name a builder is assigned to (`extension = CUDAExtension` ... `extension(...)`), in its function."""
    assignment = builder.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("right") is None \
            or assignment.child_by_field_name("right").id != builder.id:
        return []
    target = assignment.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return []
    scope = assignment
    while scope.parent is not None and scope.type not in {"function_definition", "module"}:
        scope = scope.parent
    found = parsing.captures(parsing.query("python", ALIAS_CALLS_QUERY), scope)
    name = parsing.text(target)
    return [call for function, call in zip(found.get("function", []), found.get("call", [])) if parsing.text(function) == name]


def _numba_device_function(decorator: Node) -> bool:
    """`@cuda.jit(device=True)` (or `@numba.cuda.jit("f4(f4)", device=True, inline=True)`): a numba CUDA device
    function, callable only from kernels, not a kernel launched on a grid."""
    expression = decorator.named_children[0] if decorator.named_children else None
    if expression is None or expression.type != "call":
        return False
    device = keywords(expression).get("device")
    return device is not None and parsing.text(device) == "True"


def _tier(tier: str, bump: int) -> str:
    order = ["low", "medium", "high"]
    return order[min(order.index(tier) + bump, 2)]


TILE_QUERY = r"""
(assignment left: (identifier) @lhs right: (_) @rhs)
(call function: (attribute object: (identifier) @module attribute: (identifier) @function) arguments: (argument_list) @args)
"""


def _ub_estimate(definition: Node, sizes: dict[str, int]) -> int | None:
    """Bytes one program keeps on chip, roughly: one fp32 tile for each tl.load/tl.store whose addresses use a
    tl.arange-derived offset, and each tl.zeros/tl.full, where a tile spans the block sizes its tl.arange ranges
    use (two of them when the kernel broadcasts to 2-D). Scalar loads (one element) are not tiles."""
    if not sizes:
        return None
    found = parsing.captures(parsing.query("python", TILE_QUERY), definition)
    vectors: set[str] = set()
    for _ in range(3):  # offsets derived from offsets: offs = tl.arange(...); cols = start + offs
        for lhs, rhs in zip(found.get("lhs", []), found.get("rhs", [])):
            text = parsing.text(rhs)
            if "tl.arange" in text or any(_mentions(text, name) for name in vectors):
                vectors.add(parsing.text(lhs))
    tiles = 0
    for module, function, args in zip(found.get("module", []), found.get("function", []), found.get("args", [])):
        if parsing.text(module) != "tl":
            continue
        name = parsing.text(function)
        first = parsing.text(args.named_children[0]) if args.named_children else ""
        if name in {"zeros", "full"}:
            tiles += 1
        elif name in {"load", "store"} and ("tl.arange" in first or any(_mentions(first, v) for v in vectors)):
            tiles += 1
    if tiles == 0:
        return None
    compact = "".join(parsing.text(definition).split())
    used = sorted((v for k, v in sizes.items() if f"tl.arange(0,{k})" in compact), reverse=True) or sorted(sizes.values(), reverse=True)
    two_d = "[:,None]" in compact or "[None,:]" in compact
    elements = used[0] * (used[1] if two_d and len(used) > 1 else 1)
    return tiles * elements * FP32_BYTES


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


_OPERATORS = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__, "//": int.__floordiv__, "<<": int.__lshift__}


_MAX_CONSTANT = 1 << 40
_MAX_OPERATIONS = 64  # nesting of the expression


TRITON_CALLS_QUERY = "(call function: (attribute attribute: (identifier) @called)) (call function: (identifier) @called)"
MAX_HELPERS = 32


def _triton_calls(definition: Node, helpers: dict[str, Node]) -> Counter[str]:
    """The calls a Triton kernel's body makes, by last name (`tl.dot` → dot), with those of the @triton.jit helpers of
    the same file it calls (flash-attention's `_bwd_kernel` computes through `_bwd_kernel_one_col_block`)."""
    calls: Counter[str] = Counter()
    pending, seen = [definition], set()
    while pending and len(seen) < MAX_HELPERS:
        current = pending.pop()
        if current.id in seen:
            continue
        seen.add(current.id)
        for node in parsing.captures(parsing.query("python", TRITON_CALLS_QUERY), current).get("called", []):
            name = parsing.text(node)
            calls[name] += 1
            if node.parent.type == "call" and name in helpers:  # a plain call of a helper in this file
                pending.append(helpers[name])
    return calls


KERNEL_EFFECTS = ("tl.store", "tl.atomic_", "tl.program_id", "tl.device_print", ".store(", "atomic_")


def _is_device_helper(definition: Node) -> bool:
    """A @triton.jit function that returns a value and neither writes memory nor reads its program id: a device
    function (`softplus`, `silu`) called from kernels, not a kernel launched on a grid."""
    body = definition.child_by_field_name("body")
    if body is None:
        return False
    text = "".join(parsing.text(body).split())
    if any(effect.replace(" ", "") in text for effect in KERNEL_EFFECTS):
        return False
    returns = parsing.captures(parsing.query("python", "(return_statement (_)) @returned"), body).get("returned", [])
    return bool(returns)


def _evaluate(node: Node, constants: dict[str, int], depth: int = 0) -> int | None:
    """Integer constants such as `MAX_FUSED_SIZE = 65536 // 4` (no calls, no floats). Operands and results stay
    below 2**40 and shifts below 64 bits, checked before anything is computed."""
    if node is None or depth > _MAX_OPERATIONS:
        return None
    if node.type == "integer":
        text = parsing.text(node).replace("_", "")
        if len(text) > 16 or not (text.isdigit() or text.lower().startswith(("0x", "0o", "0b"))):
            return None
        try:
            value = int(text, 0)
        except ValueError:  # 0123 and the like
            return None
        return value if value < _MAX_CONSTANT else None
    if node.type == "identifier":
        return constants.get(parsing.text(node))
    if node.type == "binary_operator":
        operator = parsing.text(node.child_by_field_name("operator"))
        left = _evaluate(node.child_by_field_name("left"), constants, depth + 1)
        right = _evaluate(node.child_by_field_name("right"), constants, depth + 1)
        if operator not in _OPERATORS or left is None or right is None or (operator == "//" and right == 0):
            return None
        if operator == "<<" and not 0 <= right < 64:
            return None
        result = _OPERATORS[operator](left, right)
        return result if 0 <= result < _MAX_CONSTANT else None
    return None


def _under_cuda_home_check(node: Node) -> bool:
    """Does `node` sit in the taken arm of an `if`/`elif`/conditional expression whose condition reads CUDA_HOME
    (`if CUDA_HOME is not None:`)? On a host without the CUDA toolkit that arm is skipped, not failed."""
    child, parent = node, node.parent
    while parent is not None:
        condition = None
        if parent.type in {"if_statement", "elif_clause"} and child == parent.child_by_field_name("consequence"):
            condition = parent.child_by_field_name("condition")
        elif parent.type == "conditional_expression" and len(parent.named_children) == 3 and child == parent.named_children[0]:
            condition = parent.named_children[1]
        if condition is not None and _reads_cuda_home(condition):
            return True
        child, parent = parent, parent.parent
    return False


def _reads_cuda_home(condition: Node) -> bool:
    return any(current.type in {"identifier", "string_content"} and parsing.text(current) == "CUDA_HOME"
               for current in parsing.walk(condition))


def _launchers(launches: list[Node]) -> list[str]:
    """Names of the classes (then functions) around the launches of a kernel, nearest first, without repeats."""
    classes, functions = [], []
    for launch in launches[:20]:
        current, depth = launch.parent, 0
        while current is not None and depth < 200:
            if current.type in {"class_definition", "function_definition"}:
                name = current.child_by_field_name("name")
                target = classes if current.type == "class_definition" else functions
                if name is not None and parsing.text(name) not in target:
                    target.append(parsing.text(name))
            current, depth = current.parent, depth + 1
    return classes + functions


def _launches_custom_code(definition: Node, aliases: frozenset[str] = frozenset()) -> bool:
    """A kernel launch (`kernel[grid](...)`) or a call into a compiled extension (`ext._C.op(...)`, `*_cuda.op`,
    `*_ext.op`, a TORCH_LIBRARY op `torch.ops.<namespace torch does not own>.op`) in the method's code (comments and strings do not count)."""
    for node in parsing.walk(definition, limit=20000):
        if node.type == "call":
            function = node.child_by_field_name("function")
            if function is not None:
                if function.type == "subscript":
                    return True
                compact = "".join(parsing.text(function).split())
                if torch_own_binding(function):
                    continue  # an ATen op through torch's own bindings (`torch._C._jit_get_operation('aten::...')`)
                if "_C." in compact or "_cuda." in compact or "_ext." in compact or custom_namespace(function):
                    return True
                if function.type == "attribute" and compact.split(".", 1)[0] in aliases:  # `ext_module.op(...)`
                    return True
    return False


def _extension_ops_only(definitions: list[Node], aliases: frozenset[str]) -> tuple[str, ...]:
    """The ops the methods call on a compiled extension (`fused_act_ext.fused_bias_act(...)` → fused_bias_act), or
    nothing where one of them launches other custom code (a Triton kernel, a TORCH_LIBRARY op): its kernel is
    elsewhere."""
    ops: set[str] = set()
    for definition in definitions:
        for node in parsing.walk(definition, limit=20000):
            if node.type != "call" or (function := node.child_by_field_name("function")) is None:
                continue
            if function.type == "subscript" or custom_namespace(function):
                return ()
            compact = "".join(parsing.text(function).split())
            if function.type == "attribute" and (any(m in compact for m in COMPILED_MARKERS)
                                                 or compact.split(".", 1)[0] in aliases):
                ops.add(parsing.text(function.child_by_field_name("attribute")))
    return tuple(sorted(ops))


def _kernel_name(call: Node) -> str | None:
    """cupy.RawKernel(code, "name"): the second argument; ElementwiseKernel(..., name=...);
    compile_with_cache(code).get_function("name"): get_function's argument."""
    callee = parsing.text(call.child_by_field_name("function"))
    if callee.endswith("compile_with_cache"):
        outer = call.parent
        if outer is not None and outer.type == "attribute" and parsing.text(outer.child_by_field_name("attribute")) == "get_function" \
                and outer.parent is not None and outer.parent.type == "call":
            return _string(argument(outer.parent, 0, "name"))
        return None
    return _string(argument(call, 1, "name")) if "RawKernel" in callee else _string(keywords(call).get("name"))


def _memoized_function(call: Node) -> Node | None:
    """The function a `@cupy.memoize(...)` decorator call decorates."""
    decorator = call.parent
    decorated = decorator.parent if decorator is not None and decorator.type == "decorator" else None
    definition = decorated.child_by_field_name("definition") if decorated is not None and decorated.type == "decorated_definition" else None
    return definition if definition is not None and definition.type == "function_definition" else None


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "string" or node.child_count < 2:
        return None
    start, end = node.children[0], node.children[-1]
    return node.text[start.end_byte - node.start_byte : end.start_byte - node.start_byte].decode("utf-8", "replace")


def _strings(node: Node | None) -> list[str]:
    if node is not None and node.type == "identifier":
        node = _bound_literal(node)
    if node is None or node.type not in {"list", "tuple"}:
        return []
    return [s for s in (_string(item) for item in node.named_children) if s]


def _all_literal(node: Node | None) -> bool:
    """Is every source of a builder's list a plain string (none joined or formatted at run time)?"""
    if node is not None and node.type == "identifier":
        node = _bound_literal(node)
    if node is None or node.type not in {"list", "tuple"}:
        return False
    return all(item.type == "string" and not any(c.type == "interpolation" for c in item.named_children)
               for item in node.named_children)


_NESTED_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


def _bound_literal(name: Node) -> Node | None:
    """The list or tuple a name is bound to where it is used (`srcs = ["sam2/csrc/connected_components.cu"]` ...
    `CUDAExtension("sam2._C", srcs)`): the one assignment of the name in the enclosing function (or module) body,
    when its value is a literal; None when it is assigned more than once or otherwise."""
    scope = parsing.enclosing(name, {"function_definition", "module"})
    if scope is None:
        return None
    body = scope.child_by_field_name("body") if scope.type == "function_definition" else scope
    text = parsing.text(name)
    values = []
    for node in parsing.walk(body, prune=_NESTED_SCOPES):
        if node.type in {"assignment", "augmented_assignment"}:
            left = node.child_by_field_name("left")
            if left is not None and parsing.text(left) == text:
                values.append(node.child_by_field_name("right") if node.type == "assignment" else None)
    return values[0] if len(values) == 1 else None


class CustomOpsPythonScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("triton", "cpp_extension", "Function", "cupy", "numba", "](", "_C", "Extension")
    scan_class = _CustomOpsScan


FLOAT8_DTYPES = (b"float8_e4m3fn", b"float8_e4m3fnuz", b"float8_e5m2", b"float8_e5m2fnuz", b"float8_e8m0fnu")


def _float8_words(data: bytes) -> str:
    """The float8 dtypes a module names (`torch.float8_e4m3fn` in act_quant's output buffer): its kernels' (de)quantizers
    are FP8 ones (knowledge.classify_kernel narrows by them)."""
    if b"float8_" not in data:
        return ""
    return " ".join(name.decode() for name in FLOAT8_DTYPES if name in data)

