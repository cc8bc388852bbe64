"""A Dockerfile built FROM a CUDA base image is the CUDA build: the port replaces the image as a whole by a CANN one
(DEV212 says so at the FROM line: install the target's torch and torch_npu, drop the CUDA-only steps). Its package
lines (`pip install torch==2.5.1`, `conda install pytorch-cuda=11.8`, a flash-attn wheel) are that image's, not one
port item each picking its own torch_npu release: they are shown with the image's line as their reason, uncounted.

Only the dependencies domain's lines fold so: an environment variable set in the image (an NCCL setting) keeps its
own finding, since the Ascend image needs its HCCL counterpart."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.findings import FindingFactory, Place
from ascend_feasibility.analyzer.core.models import Finding

DOMAIN = "dependencies"


def fold_into_cuda_images(findings: list[Finding], factory: FindingFactory) -> list[Finding]:
    code = next(r.code for r in factory.kb.rules.values() if r.match.detector == "cuda-base-image")
    images: dict[str, Finding] = {}
    for finding in findings:
        if finding.rule == code and finding.counted:
            images.setdefault(finding.path, finding)
    if not images:
        return findings
    result = []
    for finding in findings:
        image = images.get(finding.path)
        if image is not None and finding.domain == DOMAIN and finding.counted:
            finding = factory.relocate(finding, Place(
                finding.role, "other-backend",
                f"{finding.path}:{image.line}: a package line of the CUDA image this file builds ({image.symbol}), "
                f"which the port replaces by a CANN image ({code} at that line)"))
        result.append(finding)
    return result
