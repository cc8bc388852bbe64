"""The project's custom-operator inventory: every kernel with what it computes, who calls it, and the path and
effort of its port. Triton launches are matched by kernel name; CUDA kernels reach Python through bindings
whose ops are called on the extension module."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.models import CustomOpRow, Text
from ascend_feasibility.domains.custom_ops.native_scanner import HARD_FEATURES
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts
from ascend_feasibility.knowledge import KnowledgeBase

MAX_CALLERS = 50  # per kernel row; the rest are counted


def build_inventory(facts: CustomOpFacts, kb: KnowledgeBase) -> list[CustomOpRow]:
    triton_defined = {(r.path, r.name) for r in facts.kernels if r.kind == "triton"}
    triton_callers: dict[tuple[str | None, str], list[str]] = {}
    for call in facts.calls:
        if call.triton_launch:
            # A launch in the file that defines a kernel of that name is that kernel's; others are matched by name.
            owner = call.path if (call.path, call.name) in triton_defined else None
            triton_callers.setdefault((owner, call.name), []).append(_where(call.path, call.line, call.cell))
    extension_names = {e.name.split(".")[-1] for e in facts.extensions} | {e.name for e in facts.extensions}
    python_callers_of_op: dict[str, list[str]] = {}
    for call in facts.calls:
        if call.triton_launch or "." not in call.name:
            continue
        module, _, op = call.name.rpartition(".")
        if module.split(".")[-1] in extension_names or module in extension_names:
            python_callers_of_op.setdefault(op, []).append(_where(call.path, call.line, call.cell))
    kernels_by_host: dict[str, list[tuple[str, str]]] = {}  # host function → kernels it launches, any file
    for record in facts.kernels:
        for host in record.host_callers:
            kernels_by_host.setdefault(host, []).append((record.path, record.name))
    kernel_callers: dict[tuple[str, str], list[str]] = {}
    for binding in facts.bindings:
        for op, function in binding.ops.items():
            for key in kernels_by_host.get(function, []):
                kernel_callers.setdefault(key, []).extend(python_callers_of_op.get(op, []))

    rows = []
    first_of: dict[tuple[str, str, str], str] = {}  # (kind, name, code) → where the first copy is
    for record in sorted(facts.kernels, key=lambda r: (r.path, r.line)):
        first = first_of.setdefault((record.kind, record.name, record.code), _where(record.path, record.line, record.cell)) \
            if record.code else None
        callers = list(record.host_callers)
        if record.kind == "triton":
            callers += triton_callers.get((record.path, record.name), []) + triton_callers.get((None, record.name), [])
        callers += kernel_callers.get((record.path, record.name), [])
        callers = sorted(set(callers))
        if len(callers) > MAX_CALLERS:
            callers = callers[:MAX_CALLERS] + [f"... {len(callers) - MAX_CALLERS} more"]
        kernel_class = kb.kernel_class(record.kernel_class)
        tier = kernel_class.tier
        if record.kind == "cuda" and HARD_FEATURES & set(record.features):
            tier = _raise(tier)
        path = kernel_class.path
        if record.kind == "triton" and path == "ascend-c":
            path = "triton-ascend"  # a Triton kernel can be ported as Triton first
        rows.append(
            CustomOpRow(
                kernel=record.name,
                path=record.path,
                line=record.line,
                kind=record.kind,
                lines_of_code=record.end_line - record.line + 1,
                classification=kernel_class.name,
                features=sorted(set(record.features)),
                callers=callers,
                replacement_path=path,
                replacement=Text(en=kernel_class.replacement.en, zh=kernel_class.replacement.zh),
                effort_tier=tier,
                ub_estimate_bytes=record.ub_estimate_bytes,
                same_code_as=first if first is not None and not first.startswith(f"{record.path}:") else None,
            )
        )
    return rows


def _raise(tier: str) -> str:
    order = ["low", "medium", "high"]
    return order[min(order.index(tier) + 1, 2)]


def _where(path: str, line: int, cell: int | None) -> str:
    return f"{path}:{line}" + (f" (cell {cell})" if cell is not None else "")
