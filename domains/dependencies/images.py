"""A Dockerfile built FROM a CUDA base image is the CUDA build: the port replaces the image as a whole by a CANN one
(DEV212 says so at the FROM line: install the target's torch and torch_npu, drop the CUDA-only steps). Its package
lines (`pip install torch==2.5.1`, `conda install pytorch-cuda=11.8`, a flash-attn wheel) are that image's, not one
port item each picking its own torch_npu release: they are shown with the image's line as their reason, uncounted.

One line stays counted: the image's torch pin that no torch_npu release fits, where no counted line elsewhere moves
the project's torch (round 32 V5: lama's only torch pin, `torch==1.8.1`, is in its CUDA image). The image is swapped
for a CANN one (DEV212), but the code written for that torch still moves to the target's: the environment item's torch
re-pin, priced once at that line (knowledge/phases/plan.toml `grows`). A Dockerfile of another backend (ROCm, a CPU
image) is no CUDA image and folds nothing here.

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
    repin = _image_repin(findings, images, factory)
    result = []
    for finding in findings:
        image = images.get(finding.path)
        if image is not None and finding.domain == DOMAIN and finding.counted and finding is not repin:
            finding = factory.relocate(finding, Place(
                finding.role, "other-backend",
                f"{finding.path}:{image.line}: a package line of the CUDA image this file builds ({image.symbol}), "
                f"which the port replaces by a CANN image ({code} at that line)"))
        result.append(finding)
    return result


TORCH_LINES = ("torch-version-fit", "torch-pin-off-target", "torch-version-no-fit", "torch-not-declared")
REPIN = "torch-version-no-fit"


def _image_repin(findings: list[Finding], images: dict[str, Finding], factory: FindingFactory) -> Finding | None:
    """The CUDA images' torch line that no torch_npu release fits (the one with the largest hours: a further file's
    line of the same move is priced at the first, SAME_REPIN_EFFORT), where the images hold the project's only torch
    lines: no finding outside them, in an environment that runs, reads a torch pin or its absence (a manifest's or an
    install document's torch, fitting or not, sets the project's torch; DEP013 at an import says it declares none; a
    hosted notebook's or an opt-in file's install, optional, sets nothing)."""
    detectors = {r.code: r.match.detector for r in factory.kb.rules.values() if r.match.detector in TORCH_LINES}
    if any(f.rule in detectors and f.path not in images and f.reach == "runs" and not f.suppressed for f in findings):
        return None
    pins = [f for f in findings if detectors.get(f.rule) == REPIN and f.path in images and f.severity == "high"
            and f.counted]
    return max(pins, key=lambda f: (f.effort_hours.high, f.effort_hours.low), default=None)
