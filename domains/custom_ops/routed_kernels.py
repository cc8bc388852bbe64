"""The kernels of extension ops the project also computes in plain PyTorch (pytorch_routes.py): optional, with the
twin named, and one finding where the file chooses (or should choose) the twin.

An op reaches its kernels through the C++ function its binding names (`m.def("gather_scatter", &GatherScatter)`): a
kernel belongs to the op when that function launches it, or when a native file that writes the function's name (the
header defining the dispatcher, gather_scatter.h: `GatherScatterCuda(...)` / `GatherScatterCpu(...)`), in the kernel's
folder or one above and binding nothing itself (or that one op only), writes the name of a host function launching it. Only ops bound once
in the project are judged: `forward` bound by two extensions could be either."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.written_names import writes_word
from ascend_feasibility.analyzer.core.findings import Located, Place
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, KernelRecord, RouteRecord

DETECTOR = "cuda-extension-op-pytorch-twin"
KERNEL_RULES = frozenset({"OPS001", "OPS002"})
FUNCTION_RULE = "OPS040"
QUICK = (0.0, 0.5)  # a test to change, or nothing
HOST_SOURCES = (".cpp", ".cc", ".cxx", ".c")
CPU_SUFFIXES = ("_cpu", "Cpu", "CPU")


def routed_kernels(facts: CustomOpFacts) -> dict[int, tuple[RouteRecord, list[KernelRecord]]]:
    """id(route) → the route and the native kernels of its ops."""
    if not (facts.routes and facts.bindings and facts.kernels):
        return {}
    function_of, words = op_functions(facts)
    found = {}
    for route in facts.routes:
        functions = {function_of[op] for op in route.ops if op in function_of}
        if not functions:
            continue
        if route.kind == "cpu-arm":
            cpu = _cpu_implementation(functions, facts)
            if cpu is None:
                continue
            route = replace(route, route=cpu)
        kernels = kernels_of(functions, facts, words)
        if kernels:
            found[id(route)] = (route, kernels)
    return found


def op_functions(facts: CustomOpFacts) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Each op bound once in the project → its C++ function; and the native files whose words link functions to the
    kernels they launch: files binding nothing, and a file binding one op only (fused_bias_act.cpp defines the bound
    fused_bias_act() calling fused_bias_act_op(), the .cu's launcher): its words are that op's."""
    bound = Counter(op for b in facts.bindings for op in b.ops)
    function_of = {op: function.lstrip("&").split("::")[-1] for b in facts.bindings for op, function in b.ops.items()
                   if bound[op] == 1}
    ops_of = Counter()
    for b in facts.bindings:
        ops_of[b.path] += len(b.ops)
    words = [(w.path, w.words) for w in facts.native_words if ops_of[w.path] <= 1]
    return function_of, words


def kernels_of(functions: set[str], facts: CustomOpFacts, words: list[tuple[str, str]]) -> list[KernelRecord]:
    """The native (CUDA/C++) kernels the bound C++ functions launch."""
    return [k for k in facts.kernels if k.kind in {"cuda", "cpp"} and _launched_for(k, functions, words)]


def confirmed_routes(facts: CustomOpFacts, routed: dict) -> list[RouteRecord]:
    """The routes to report: every twin; a forward-only Function only where its op has a CPU implementation."""
    return [r for r in facts.routes if r.kind != "cpu-arm"] + [r for r, _ in routed.values() if r.kind == "cpu-arm"]


def _cpu_implementation(functions: set[str], facts: CustomOpFacts) -> str | None:
    """The CPU function the dispatcher of a bound op calls (`MarchingCubes` → `MarchingCubesCpu`), written by a host
    C++ source of the project (not CUDA, not a header, not a binding file): compiled in a build without CUDA."""
    binding_files = {b.path for b in facts.bindings}
    sources = [w for w in facts.native_words if w.path.endswith(HOST_SOURCES) and w.path not in binding_files]
    for function in sorted(functions):
        name = next(cpu_variants(function, sources), None)
        if name is not None:
            return name
    return None


def cpu_variants(function: str, sources) -> Iterator[str]:
    """`function` with each CPU suffix (`_cpu`, `Cpu`, `CPU`), in that order, where one of `sources` writes it."""
    for suffix in CPU_SUFFIXES:
        name = function + suffix
        if any(writes_word(w.words, name) for w in sources):
            yield name


def _launched_for(kernel: KernelRecord, functions: set[str], words: list[tuple[str, str]]) -> bool:
    if kernel.name in functions or functions & set(kernel.host_callers):
        return True
    folder = PurePosixPath(kernel.path).parent
    for path, written in words:
        here = PurePosixPath(path).parent
        if (here == folder or here in folder.parents) and any(writes_word(written, f) for f in functions) \
                and any(writes_word(written, h) for h in kernel.host_callers):
            return True
    return False


def route_findings(routes: list[RouteRecord], run: ProjectRun) -> list[Finding]:
    """One finding per route, where the file chooses it (device-test, flag) or at the definition that should."""
    code = next((r.code for r in run.kb.rules.values() if r.match.detector == DETECTOR), None)
    if code is None:
        return []
    findings = []
    for route in routes:
        place = run.context.of(route.path)
        snippet = f"if {route.test}:" if route.test else (route.definitions[0] if route.kind == "cpu-arm" else route.route)
        facets = tuple(f for f in (route.kind, "shim" if route.shim else "") if f)
        npu = f"{route.route}()" if route.kind == "cpu-arm" else f"{route.route}() ({route.path}:{route.route_line})"
        located = Located(code, ", ".join(route.ops), route.path, route.line, 1, len(snippet) + 1, snippet,
                          matched=route.test or route.route, npu=npu,
                          role=place.role, reach=place.reach, reach_reason=place.reason, facets=facets,
                          effort=QUICK if route.kind in {"device-test", "cpu-test"} else None)
        findings.append(run.factory.build_located(located, 0))
    return findings


def relocate_routed(findings: list[Finding], routed: dict[int, tuple[RouteRecord, list[KernelRecord]]],
                    run: ProjectRun) -> list[Finding]:
    """The routed ops' kernel findings and the Functions the twin stands for (OPS040), counted as running, made
    optional: the project's PyTorch code is the port, the kernels only a speed-up."""
    if not routed:
        return findings
    reasons: dict[tuple[str, int], str] = {}
    functions: dict[tuple[str, str], str] = {}
    for route, kernels in routed.values():
        why = _reason(route)
        for kernel in kernels:
            reasons.setdefault((kernel.path, kernel.line), why)
        for name in route.definitions:
            functions.setdefault((route.path, name), why)
    result = []
    for finding in findings:
        why = None
        if finding.reach == "runs":
            if finding.rule in KERNEL_RULES:
                why = reasons.get((finding.path, finding.line))
            elif finding.rule == FUNCTION_RULE:
                why = functions.get((finding.path, (finding.symbol or "").split(" ", 1)[0]))
        result.append(finding if why is None else run.factory.relocate(finding, Place(finding.role, "optional", why)))
    return result


def _reason(route: RouteRecord) -> str:
    at = f"{route.route}() ({route.path}:{route.route_line})"
    ops = ", ".join(route.ops)
    if route.kind == "cpu-arm":
        return (f"this op ({ops}) is forward only (its autograd Function's backward raises or is absent) and the "
                f"extension's CPU implementation {route.route}() builds without CUDA: on Ascend a device hop (.cpu(), "
                f"then .to(device)) is the port and this kernel only a speed-up")
    if route.kind == "device-test":
        how = f"the test at {route.path}:{route.line} sends non-CUDA tensors to it"
    elif route.kind == "cpu-test":
        how = (f"the test at {route.path}:{route.line} sends only CPU tensors to it, and sending non-CUDA devices "
               "there is the one change")
    elif route.kind == "flag":
        how = f"the test at {route.path}:{route.line} selects it"
    else:
        how = "nothing selects it yet"
    return (f"the project computes this op ({ops}) in plain PyTorch too, {at}; {how}: on Ascend that code is the "
            f"port and this kernel only a speed-up")
