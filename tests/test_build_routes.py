"""OPS062 (a build that selects CUDAExtension by availability) says what its else arm does, and advises by the
kernels' routes: where each kernel under the build has a PyTorch or torch_npu route, skip the build, not a port."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

SETUP = """import glob
import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension

sources = glob.glob('src/*.cpp')
extension = CppExtension
if torch.cuda.is_available() and CUDA_HOME is not None:
    extension = CUDAExtension
    sources += glob.glob('src/cuda/*.cu')
else:
{else_arm}
setup(name='ops', ext_modules=[extension('{name}', sources)])
"""


def _ops062(tmp_path: Path, else_arm: str, kernel: str, name: str):
    write_tree(tmp_path, {
        "ops/setup.py": SETUP.replace("{else_arm}", else_arm).replace("{name}", name),
        "ops/src/cuda/k.cu": f"__global__ void {kernel}(float* out, const float* x, int n) {{ out[0] = x[0]; }}\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return next(f for f in report.findings if f.rule == "OPS062")


def test_an_else_arm_that_raises_and_kernels_with_a_pytorch_route_skip_the_build(tmp_path: Path):
    """InternImage's ops_dcnv3/setup.py: `else: raise NotImplementedError`, and DCNv3's route is the project's own
    PyTorch DCNv3: installing fails on Ascend, and the work is not building it (low, under 2 h), not an NPU arm."""
    finding = _ops062(tmp_path, "    raise NotImplementedError('Cuda is not available')", "dcnv3_im2col_gpu_kernel", "DCNv3")
    assert "installing this package fails" in finding.message.en and "CPU-only" not in finding.message.en
    assert finding.replacement.en.startswith("Do not build this extension on Ascend")
    assert "deformable_conv_v3" in finding.replacement.en and "NpuExtension" not in finding.replacement.en
    assert finding.severity == "low" and finding.effort_hours.high <= 2.0


def test_a_cpu_else_arm_and_a_kernel_to_port_keep_the_npu_arm_advice(tmp_path: Path):
    finding = _ops062(tmp_path, "    sources = sources", "fused_recurrence_scan_kernel", "fused")
    assert "CPU-only" in finding.message.en and "installing this package fails" not in finding.message.en
    assert "NpuExtension" in finding.replacement.en and finding.severity == "high"
