"""The CUDA runtime calls of an extension's host files, where the extension's own kernels are port items.

CenterPoint's det3d/ops/iou3d_nms/src/iou3d_nms.cpp (round 41) wraps its NMS kernel launch in cudaMalloc/cudaMemcpy/
cudaFree around the mask: eleven OPS067 findings, each an aclrt rewrite. But the kernel in iou3d_nms_kernel.cu, which
the same extension compiles, is an item of its own (replaced by a DrivingSDK operator or ported to Ascend C), and the
host calls that feed it go with that port: one finding per host file, at its first call, the file's other calls listed
as its sites. A host file of no extension whose kernels are items (a standalone C++ application using the CUDA
runtime) keeps a finding per call (cuda_runtime.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.core.models import Text
from ascend_feasibility.domains.custom_ops.cuda_only_headers import HOST_RUNTIME_DETECTOR
from ascend_feasibility.domains.custom_ops.extension_files import compiling_extensions

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.core.models import Finding
    from ascend_feasibility.domains.base import ProjectRun
    from ascend_feasibility.domains.custom_ops.records import CustomOpFacts


def fold_extension_host_runtime(findings: list[Finding], facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    codes = {r.code for r in run.kb.rules.values() if r.match.detector == HOST_RUNTIME_DETECTOR}
    host = [f for f in findings if f.rule in codes and f.counted]
    if not host:
        return findings
    kernel_files = {k.path for k in facts.kernels if k.kind == "cuda"}
    items = {f.path for f in findings if f.domain == "custom_ops" and f.path in kernel_files and f.rule not in codes
             and f.counted}
    ported = {name for names in compiling_extensions(items, facts, run).values() for name in names}
    owners = compiling_extensions({f.path for f in host}, facts, run)
    folded = {path for path, names in owners.items() if names & ported}
    if not folded:
        return findings
    by_file: dict[str, list[Finding]] = {}
    for finding in host:
        if finding.path in folded:
            by_file.setdefault(finding.path, []).append(finding)
    kept: dict[int, Finding] = {}
    dropped: set[int] = set()
    for path, group in by_file.items():
        first, rest = group[0], group[1:]
        names = sorted(owners[path] & ported)
        calls = ", ".join(dict.fromkeys(f.symbol for f in group))
        message = Text(
            en=f"{first.message.en} The file is host code of extension {', '.join(names)}, whose CUDA kernels are port "
               f"items of their own: its CUDA runtime calls ({calls}) go with that port, one item, its {len(group)} "
               "sites listed.",
            zh=f"{first.message.zh} 该文件是扩展 {'、'.join(names)} 的主机侧代码，其 CUDA 内核已单独列为迁移项：文件中的 CUDA "
               f"运行时调用（{calls}）随内核一并迁移，作为一项，{len(group)} 处位置列为 sites。")
        kept[id(first)] = first.model_copy(update={"message": message,
                                                   "sites": [f"{f.path}:{f.line}" for f in group]})
        dropped.update(id(f) for f in rest)
    return [kept.get(id(f), f) for f in findings if id(f) not in dropped]
