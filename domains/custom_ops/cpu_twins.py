"""CUDA kernels whose extension binds a CPU implementation of the same op: no blocker.

A bound op's C++ function that dispatches on the tensor's device (`if (V.get_device() == -1) return
rasterize_image_cpu(...); else return rasterize_image_gpu(...);`, `x.is_cuda()`) to a CPU implementation written in a
host C++ source of the project (`rasterize_image_cpu`, `..Cpu`, `..CPU`) has a route on Ascend without any kernel
port: build the host sources without the .cu files (a CppExtension) and hand the op CPU tensors (`.cpu()`, then
`.to(device)` on the result). An OPS002 kernel of that op is then no 24-80 h blocker but a few hours' work; an Ascend C
port is only a speed-up. The rule's `cpu-twin` variant says so; this pass decides where it holds, which only the whole
project shows (the binding, the dispatcher and the kernel sit in different files)."""

from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.written_names import writes_any, writes_word
from ascend_feasibility.analyzer.core.findings import uncounted_severity
from ascend_feasibility.analyzer.core.models import EffortHours, Finding, ReplacementText, Text
from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts
from ascend_feasibility.domains.custom_ops.routed_kernels import HOST_SOURCES, cpu_variants, kernels_of, op_functions

DETECTOR = "cuda-kernel-no-equivalent"
FACET = "cpu-twin"
GPU_SUFFIXES = ("_gpu", "Gpu", "GPU", "_cuda", "Cuda", "CUDA")
# the words of a device test in C++: `x.is_cuda()`, `x.is_cpu()`, `x.get_device() == -1`, `x.device().type() == kCUDA`
DEVICE_TEST_WORDS = ("is_cuda", "is_cpu", "get_device", "kCUDA", "kCPU")


def cpu_twins(facts: CustomOpFacts) -> dict[tuple[str, int], str]:
    """(path, line) of each native kernel of a bound op whose dispatcher picks a CPU implementation by device → the
    name of that CPU implementation. An op bound in several places (two vendored copies of one library, each binding
    `box_iou_rotated`) is judged again within the folder of each binding, where only that copy's files speak."""
    found = _twins(facts)
    bound = Counter(op for b in facts.bindings for op in b.ops)
    for folder in sorted({PurePosixPath(b.path).parent for b in facts.bindings if any(bound[op] > 1 for op in b.ops)}):
        for key, (cpu, direct) in _twins(_within(facts, folder)).items():
            if key not in found or (direct and not found[key][1]):
                found[key] = (cpu, direct)
    return {key: cpu for key, (cpu, _) in found.items()}


def _within(facts: CustomOpFacts, folder: PurePosixPath) -> CustomOpFacts:
    """The bindings, kernels and native words of the files in `folder` or below."""
    def inside(path: str) -> bool:
        return folder == PurePosixPath(".") or folder in PurePosixPath(path).parents
    return CustomOpFacts(kernels=[k for k in facts.kernels if inside(k.path)],
                         bindings=[b for b in facts.bindings if inside(b.path)],
                         native_words=[w for w in facts.native_words if inside(w.path)])


def _twins(facts: CustomOpFacts) -> dict[tuple[str, int], tuple[str, bool]]:
    """(path, line) → (the CPU implementation, whether the op's CUDA arm launches the kernel itself)."""
    if not (facts.bindings and facts.kernels):
        return {}
    function_of, words = op_functions(facts)
    bound = {function.lstrip("&").split("::")[-1] for b in facts.bindings for function in b.ops.values()}
    host = [w for w in facts.native_words if w.path.endswith(HOST_SOURCES)]
    found: dict[tuple[str, int], tuple[str, bool]] = {}
    for function in sorted(set(function_of.values())):
        cpu = _dispatched_cpu(function, host, facts, bound)
        if cpu is None:
            continue
        # the dispatcher's CUDA arm (`rasterize_image_gpu`) launches the kernels; a binding file binding several ops
        # is not among `words`, so the arm is what links the op to them
        arms = {function} | {function + suffix for suffix in GPU_SUFFIXES
                             if any(writes_word(w.words, function) and writes_word(w.words, function + suffix)
                                    for w in facts.native_words)}
        for kernel in kernels_of(arms, facts, words):
            if kernel.kind != "cuda":
                continue
            key = (kernel.path, kernel.line)
            # the op whose CUDA arm launches the kernel names its twin (RoIAlignRotatedForward: forward_cpu), before
            # an op that reaches it only through words of a file that also names other ops (a header declaring both,
            # a copied error string `"ROIAlign_backward_cuda"` in the .cu)
            direct = kernel.name in arms or bool(arms & set(kernel.host_callers))
            if key not in found or (direct and not found[key][1]):
                found[key] = (cpu, direct)
    return found


def _dispatched_cpu(function: str, host, facts: CustomOpFacts, bound: set[str]) -> str | None:
    """The CPU implementation `function` dispatches to: a name `function` + a CPU suffix that a host source writes
    (compiled without CUDA), not itself bound (then it is an op of its own, not an arm), and that a native file writing
    `function` and a device test also writes (the dispatcher)."""
    for name in cpu_variants(function, host):
        if name in bound:
            continue
        if any(writes_word(w.words, function) and writes_word(w.words, name) and writes_any(w.words, DEVICE_TEST_WORDS)
               for w in facts.native_words):
            return name
    return None


def with_cpu_twin(findings: list[Finding], facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    """OPS002 findings at kernels with a CPU twin, given the rule's `cpu-twin` variant: its severity, hours and texts
    with the CPU implementation named; the others as they were."""
    rule = next((r for r in run.kb.rules.values() if r.match.detector == DETECTOR), None)
    variant = next((v for v in rule.variants if v.when == [FACET]), None) if rule is not None else None
    if variant is None or variant.replacement is None or variant.message is None:
        return findings
    twins = cpu_twins(facts)
    if not twins:
        return findings
    result = []
    for finding in findings:
        cpu = twins.get((finding.path, finding.line)) \
            if finding.rule == rule.code and finding.reach == "runs" and not finding.suppressed else None
        if cpu is not None:
            severity = variant.severity or finding.severity
            if not finding.counted:
                severity = uncounted_severity(severity)
            low, high = variant.effort_hours or (finding.effort_hours.low, finding.effort_hours.high)
            symbol = finding.symbol
            finding = finding.model_copy(update={
                "message": Text(en=_fill(variant.message.en, symbol, cpu), zh=_fill(variant.message.zh, symbol, cpu)),
                "replacement": ReplacementText(en=_fill(variant.replacement.en, symbol, cpu),
                                               zh=_fill(variant.replacement.zh, symbol, cpu)),
                "severity": severity,
                "effort_hours": EffortHours(low=low, high=high),
            })
        result.append(finding)
    return result


def _fill(text: str, symbol: str, cpu: str) -> str:
    return text.replace("{symbol}", symbol).replace("{npu}", f"{cpu}()")
