"""A CUDA build branch (OPS062) whose kernels all have a route without an NPU build.

OPS062's own advice is an NPU arm for the build (NpuExtension) and a port of each kernel. That holds where some kernel
needs an Ascend C port. Where every kernel under the build's folder is replaced by a PyTorch composition or a
torch_npu operator (the inventory's replacement_path: InternImage's DCNv3, whose class route is the project's own
DCNv3_pytorch), an NPU arm has nothing to compile: the work is skipping the build and making the import optional.
The rule's `pytorch-route` variant says so; this pass decides where it holds, which only the whole project shows."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.analyzer.core.findings import uncounted_severity
from ascend_feasibility.analyzer.core.models import CustomOpRow, EffortHours, Finding, ReplacementText
from ascend_feasibility.domains.base import ProjectRun

DETECTOR = "cuda-extension-build-branch"
FACET = "pytorch-route"
NO_BUILD_PATHS = frozenset({"pytorch", "fused-op"})  # routes that need nothing compiled for the NPU
ROUTE_HOURS = (0.5, 2.0)  # skip the install, guard setup.py: the import itself is OPS013's


def built_without_port(findings: list[Finding], kernels: list[CustomOpRow], run: ProjectRun) -> list[Finding]:
    """OPS062 findings whose build folder's native kernels all have a PyTorch or torch_npu route, given that variant's
    advice, severity and hours; the others as they were."""
    rule = next((r for r in run.kb.rules.values() if r.match.detector == DETECTOR), None)
    variant = next((v for v in rule.variants if v.when == [FACET]), None) if rule is not None else None
    if variant is None or variant.replacement is None:
        return findings
    native = [row for row in kernels if row.kind in {"cuda", "cpp"}]
    result = []
    for finding in findings:
        if finding.rule == rule.code and not finding.suppressed:
            routes = _routes(finding.path, native)
            if routes:
                severity = variant.severity or finding.severity
                if not finding.counted:
                    severity = uncounted_severity(severity)
                shown = ", ".join(routes)
                finding = finding.model_copy(update={
                    "replacement": ReplacementText(en=variant.replacement.en.replace("{npu}", shown),
                                                   zh=variant.replacement.zh.replace("{npu}", shown)),
                    "severity": severity,
                    "effort_hours": EffortHours(low=ROUTE_HOURS[0], high=ROUTE_HOURS[1]),
                })
        result.append(finding)
    return result


def _routes(build: str, kernels: list[CustomOpRow]) -> list[str]:
    """The kernel classes under the build file's folder when each has a route needing no NPU build ([] when one
    does not, or there is none). A build at the project root weighs every kernel of the project: stricter, never
    looser, than the kernels it compiles."""
    folder = str(PurePosixPath(build).parent)
    own = [row for row in kernels if folder == "." or row.path.startswith(folder + "/")]
    if not own or any(row.replacement_path not in NO_BUILD_PATHS for row in own):
        return []
    return sorted({row.classification for row in own})
