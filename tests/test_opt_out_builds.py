"""A CUDAExtension in an arm the project's own sys.argv flag leaves out (metaseq's `if "--no_apex" not in sys.argv:`)
names the flag in its advice; it is low ("leave it out of the build") where nothing loads the extension on the default
path, and keeps its severity, naming the load to guard, where an unguarded import runs."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

SETUP = """import sys
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

ext_modules = []
if "--no_fused" not in sys.argv:
    ext_modules.append(CUDAExtension("fused_norm_cuda", sources=["csrc/norm.cpp", "csrc/norm_kernel.cu"]))
    ext_modules.append(CUDAExtension("fused_dense_cuda", sources=["csrc/dense.cpp", "csrc/dense_kernel.cu"]))
else:
    sys.argv.remove("--no_fused")
setup(name="pkg", ext_modules=ext_modules, cmdclass={"build_ext": BuildExtension})
"""
KERNEL = """#include <torch/extension.h>

__global__ void {name}_kernel(float* d, const float* s) {{
  __shared__ float t[32];
  d[0] = s[0];
}}

torch::Tensor {name}_forward(torch::Tensor x) {{
  {name}_kernel<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>());
  return x;
}}
"""
BINDING = """#include <torch/extension.h>

torch::Tensor {name}_forward(torch::Tensor x);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{
  m.def("forward", &{name}_forward, "forward");
}}
"""
MODEL = """import torch

try:
    import fused_norm_cuda
    HAS_FUSED_NORM = True
except ImportError:
    HAS_FUSED_NORM = False

import fused_dense_cuda


def norm(x):
    if HAS_FUSED_NORM:
        return fused_norm_cuda.forward(x)
    return torch.nn.functional.layer_norm(x, x.shape[-1:])


def dense(x):
    return fused_dense_cuda.forward(x)
"""


def _builds(tmp_path) -> dict[int, object]:
    files = {"setup.py": SETUP, "pkg/__init__.py": "", "pkg/model.py": MODEL,
             "csrc/norm.cpp": BINDING.format(name="norm"), "csrc/norm_kernel.cu": KERNEL.format(name="norm"),
             "csrc/dense.cpp": BINDING.format(name="dense"), "csrc/dense_kernel.cu": KERNEL.format(name="dense"),
             "train.py": "from pkg.model import dense, norm\n\nif __name__ == '__main__':\n    print(dense, norm)\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    return {f.line: f for f in report.findings if f.rule == "OPS020"}


def test_an_opted_out_build_names_the_flag_and_follows_what_loads_it(tmp_path):
    builds = _builds(tmp_path)
    norm, dense = builds[7], builds[8]
    assert norm.replacement.en.startswith(
        "The project's own install leaves this build out with `--no_fused` (sys.argv test at line 6): install with it;")
    assert norm.replacement.en == dense.replacement.en  # one text for the arm: one estimate item
    assert "Nothing loads fused_norm_cuda on the default path (the project falls back" \
           in norm.message.en
    assert norm.severity == "low"
    assert ("fused_dense_cuda is loaded by code that may run on the default path (pkg/model.py:9): guard that load "
            "first") in dense.message.en
    assert dense.severity == "high"
