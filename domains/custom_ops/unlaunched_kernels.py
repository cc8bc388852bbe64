"""Kernels no code of the project launches: a `__global__` function whose only launchers are host functions nothing
calls. metaseq's Megatron softmax header (scaled_masked_softmax.h) defines `scaled_softmax_warp_forward`, launched
only by `dispatch_scaled_softmax_forward`; the extension's .cu calls the masked dispatchers and no file names that one,
so the kernel never runs and is no port.

Judged per native file holding kernels, only where every caller is in view: the extensions compiling it are all known
(custom_ops/extension_files.py). In that file the roots are the functions any other file writes (by words: a comment counts, which only
keeps more code reached), those a binding binds, those its top level names (a launching macro, a table of pointers)
and names too short to judge; whatever the roots name within the file runs. A C++ function runs only where its name
is written, so a function nothing names is never called. The rest, when it holds a kernel, is `optional`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import writers
from ascend_feasibility.domains.custom_ops.binding_reach import closure
from ascend_feasibility.domains.custom_ops.extension_files import compiling_extensions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ProjectRun
    from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, NativeUnitRecord


def unlaunched_kernels(facts: CustomOpFacts, run: ProjectRun) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the kernels (and the host functions launching them) nothing calls."""
    kernel_files = {k.path for k in facts.kernels if k.kind in {"cuda", "cpp"}}
    if not kernel_files or not facts.extensions:
        return {}
    judged = compiling_extensions(kernel_files, facts, run)
    if not judged:
        return {}
    texts = [*run.modules, *facts.native_words]
    bound = {function for binding in facts.bindings for function in binding.ops.values()}
    result: dict[str, list[tuple[int, int, str]]] = {}
    for record in facts.natives:
        if record.path in judged:
            kernels = {k.name for k in facts.kernels if k.path == record.path}
            ranges = _dead_ranges(record, kernels, bound, texts)
            if ranges:
                result[record.path] = ranges
    return result


def _dead_ranges(record: NativeUnitRecord, kernels: set[str], bound: set[str],
                 texts: list) -> list[tuple[int, int, str]]:
    calls: dict[str, set[str]] = {}
    top: set[str] = set()
    for name, _, _, mentions in record.functions:
        (calls.setdefault(name, set()) if name else top).update(mentions)
    defined = set(calls)
    elsewhere = writers(defined, [t for t in texts if t.path != record.path])
    roots = {name for name in defined
             if elsewhere.get(name) or name in bound or name in top or len(name) < 4 or name == "main"}
    reached = closure(roots, calls, defined)
    dead_kernels = (kernels & defined) - reached
    if not dead_kernels:
        return []
    launchers = {k: sorted(n for n in defined if k in calls[n] and n != k) for k in dead_kernels}
    dead_kernels = {k for k in dead_kernels if launchers[k]}  # launched from host code that never runs
    dead_hosts = {n for k in dead_kernels for n in launchers[k]}
    ranges = []
    for name, first, last, _ in record.functions:
        if name in dead_kernels:
            hosts = ", ".join(f"{n}()" for n in launchers[name])
            ranges.append((first, last, f"line {first}: kernel {name} is launched only from {hosts}, which no code of "
                                        "the project calls or binds: it never runs, no port"))
        elif name in dead_hosts:
            ranges.append((first, last, f"line {first}: {name}() launches only kernels nothing else launches, and no "
                                        "code of the project calls or binds it: it never runs"))
    return ranges
