"""One extension op, one item: an autograd Function whose every launch calls the project's compiled extension
(`fused_act_ext.fused_bias_act(...)` in FusedLeakyReLUFunction and in FusedLeakyReLUFunctionBackward) is ported with
the kernels that op launches, which the report already lists (OPS001 or OPS002, one finding per operator:
operators.py; OpenPCDet's QuickCumsumCuda over bev_pool's OPS002 kernels, round 36 A1 class 4). Its
OPS040 finding folds into that kernel finding as a site, not priced again. The op reaches its kernels through the
binding (`m.def("fused_bias_act", &fused_bias_act)`) as routed_kernels.py reads it. A Function whose kernel is
elsewhere (a Triton launch, an op of another package, an op bound twice or not at all) keeps its own finding, and so
does one counted where its kernel is not (the kernel's finding is optional or its role not counted while the
Function runs): folding it would drop work from the estimate."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.project_scope import MAX_SITES
from ascend_feasibility.analyzer.core.models import Finding, Text
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts
from ascend_feasibility.domains.custom_ops.routed_kernels import FUNCTION_RULE, KERNEL_RULES, kernels_of, op_functions


def fold_extension_functions(findings: list[Finding], facts: CustomOpFacts) -> list[Finding]:
    if not (facts.function_ops and facts.bindings and facts.kernels):
        return findings
    function_of, words = op_functions(facts)
    # each kernel's place → the kernel finding listing it (its own place, or a site after the operator fold)
    holder: dict[str, Finding] = {}
    for finding in findings:
        if finding.rule in KERNEL_RULES and not finding.suppressed:
            for site in (f"{finding.path}:{finding.line}", *finding.sites):
                holder.setdefault(site, finding)
    targets: dict[tuple[str, int], Finding] = {}
    for path, line, ops in facts.function_ops:
        if not all(op in function_of for op in ops):
            continue  # an op of no binding of the project's, or bound twice: its kernel is not known
        kernels = kernels_of({function_of[op] for op in ops}, facts, words)
        held = {id(holder[k]): holder[k] for k in (f"{k.path}:{k.line}" for k in kernels) if k in holder}
        if len(held) == 1:
            targets[(path, line)] = next(iter(held.values()))
    folded: dict[int, list[Finding]] = {}
    kernel_of: dict[int, Finding] = {}
    for finding in findings:
        kernel = targets.get((finding.path, finding.line)) if finding.rule == FUNCTION_RULE else None
        if kernel is None or finding.suppressed or not _covers(kernel, finding):
            continue
        folded.setdefault(id(kernel), []).append(finding)
        kernel_of[id(kernel)] = kernel
    if not folded:
        return findings
    dropped = {id(f) for group in folded.values() for f in group}
    updated = {}
    for key, functions in folded.items():
        kernel = kernel_of[key]
        sites = list(kernel.sites)  # the operator's other kernels, where operators.py folded them
        sites += [f"{f.path}:{f.line}" for f in functions if f"{f.path}:{f.line}" not in sites]
        if len(sites) > MAX_SITES:
            sites = sites[:MAX_SITES] + [f"... {len(sites) - MAX_SITES} more"]
        names = ", ".join((f.symbol or "").split(" ", 1)[0] for f in functions)
        message = Text(
            en=f"{kernel.message.en} The autograd Function{'s' if len(functions) > 1 else ''} calling this op "
               f"({names}; listed as sites) {'are' if len(functions) > 1 else 'is'} ported with it, not again.",
            zh=f"{kernel.message.zh} 调用该算子的 autograd Function（{names}；已列为位置）随它一起迁移，不再单独计算。",
        )
        updated[key] = kernel.model_copy(update={"sites": sites, "message": message})
    return [updated.get(id(f), f) for f in findings if id(f) not in dropped]


def _covers(kernel: Finding, function: Finding) -> bool:
    """The kernel's finding counts wherever the Function's does: the same reach and role, or a running kernel."""
    return kernel.reach == "runs" and kernel.role == function.role or (
        kernel.reach, kernel.role) == (function.reach, function.role)
