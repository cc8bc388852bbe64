"""A CUDA extension build whose every listed source, and its folder, is absent from the tree cannot compile: its
builder is optional (domains/custom_ops/absent_sources.py; NAFNet's BasicSR setup.py, round 34 B1 17)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='ops', ext_modules=[CUDAExtension(name='ops.fused_ext', sources=['ops/src/fused.cpp', "
         "'ops/src/fused_kernel.cu'])], cmdclass={'build_ext': BuildExtension})\n")
KERNEL = "__global__ void k(float *x) { x[threadIdx.x] = 0.0f; }\n"


def _build(tmp_path, extra):
    files = {"setup.py": SETUP, "app/__init__.py": "", "app/train.py": "import torch\n", **extra}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    return next(f for f in report.findings if f.rule == "OPS020" and f.path == "setup.py")


def test_a_build_of_sources_the_tree_does_not_hold_is_optional(tmp_path):
    found = _build(tmp_path, {})
    assert found.reach == "optional" and not found.counted
    assert found.reach_reason == ("builds ops.fused_ext (setup.py:3) from sources the tree does not hold "
                                  "(ops/src/fused.cpp, ops/src/fused_kernel.cu, nor their folders): it cannot compile")


@pytest.mark.parametrize("extra", [
    {"ops/src/fused_kernel.cu": KERNEL},  # one source is there
    {"ops/src/other.cu": KERNEL},  # its folder is there: a step may generate the rest
    {".gitmodules": '[submodule "ops"]\n\tpath = ops\n\turl = https://example.com/ops.git\n'},  # a submodule may hold it
])
def test_a_build_whose_sources_may_be_there_stays_counted(tmp_path, extra):
    assert _build(tmp_path, extra).reach == "runs"
