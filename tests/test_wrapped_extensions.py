"""Native code of a helper-built extension whose Python wrappers nothing the project runs reaches is optional
(analyzer/context/wrapped_extensions.py; round 42 B1 class 1: MapTR's vendored mmdetection3d builds each op with
`make_cuda_ext(name=..., module=...)`, re-exports every wrapper from mmdet3d/ops/__init__.py, and calls only some)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import recognised

from tests.helpers import write_tree

SETUP = """import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension


def make_cuda_ext(name, module, sources):
    return CUDAExtension(name='{}.{}'.format(module, name),
                         sources=[os.path.join(*module.split('.'), p) for p in sources])


setup(name='geolib', ext_modules=[
    make_cuda_ext(name='fps_ext', module='geolib.ops.fps', sources=['src/fps.cpp', 'src/fps_cuda.cu']),
    make_cuda_ext(name='pool_ext', module='geolib.ops.pool', sources=['src/pool.cpp', 'src/pool_cuda.cu']),
], cmdclass={'build_ext': BuildExtension})
"""
WRAPPER = """import torch
from torch.autograd import Function

from . import {ext}


class {cls}(Function):
    @staticmethod
    def forward(ctx, points, n):
        out = torch.zeros(n, dtype=torch.int32, device=points.device)
        {ext}.{op}(points, n, out)
        return out


{fn} = {cls}.apply
"""
BINDING = """#include <torch/extension.h>
void {op}_launcher(const float* p, int n, int* out);
void {op}(at::Tensor points, int n, at::Tensor out) {{
  {op}_launcher(points.data_ptr<float>(), n, out.data_ptr<int>());
}}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{ m.def("{op}", &{op}, "{op}"); }}
"""
KERNEL = """#include <cuda_runtime.h>
__global__ void {op}_kernel(const float* p, int n, int* out) {{
  __shared__ float buf[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ buf[threadIdx.x] = p[i]; out[i] = (int)buf[threadIdx.x]; }}
}}
void {op}_launcher(const float* p, int n, int* out) {{
  {op}_kernel<<<(n + 63) / 64, 64>>>(p, n, out);
}}
"""
OPS_INIT = "from .fps import furthest_point_sample\nfrom .pool import bev_pool\n\n__all__ = ['furthest_point_sample', 'bev_pool']\n"
APP = """import torch
from geolib.ops import bev_pool


class Encoder(torch.nn.Module):
    def forward(self, x):
        return bev_pool(x, 4)


if __name__ == "__main__":
    Encoder()(torch.zeros(4))
"""


def _tree(app: str = APP) -> dict[str, str]:
    files = {"app/train.py": app, "geolib/setup.py": SETUP, "geolib/geolib/__init__.py": "",
             "geolib/geolib/ops/__init__.py": OPS_INIT}
    for pkg, ext, cls, fn, op in (("fps", "fps_ext", "FurthestPointSampling", "furthest_point_sample", "fps_forward"),
                                  ("pool", "pool_ext", "BevPool", "bev_pool", "bev_pool_forward")):
        folder = f"geolib/geolib/ops/{pkg}"
        files[f"{folder}/__init__.py"] = f"from .{pkg} import {fn}\n\n__all__ = ['{fn}']\n"
        files[f"{folder}/{pkg}.py"] = WRAPPER.format(ext=ext, cls=cls, fn=fn, op=op)
        files[f"{folder}/src/{pkg}.cpp"] = BINDING.format(op=op)
        files[f"{folder}/src/{pkg}_cuda.cu"] = KERNEL.format(op=op)
    return files


def _reach(report, name: str) -> list[tuple[str, str, str]]:
    return [(f.rule, f.reach, f.reach_reason or "") for f in report.findings if f.path.endswith(name)]


def test_kernels_of_an_op_only_re_exported_are_optional_and_the_called_op_keeps_its_kernels(tmp_path):
    report = analyze(write_tree(tmp_path, _tree()), AnalyzeOptions(jobs=1))
    unused = _reach(report, "ops/fps/src/fps_cuda.cu")
    assert unused and all(reach == "optional" for _, reach, _ in unused)
    assert all(why.startswith("only re-exported; no project code or config calls it: the extension is used only in "
                              "FurthestPointSampling (geolib/geolib/ops/fps/fps.py)") for _, _, why in unused)
    assert all(recognised(why) for _, _, why in unused)  # the report translates it
    used = _reach(report, "ops/pool/src/pool_cuda.cu")
    assert used and all(reach == "runs" for _, reach, _ in used)


def test_an_op_the_project_calls_keeps_its_kernels(tmp_path):
    app = APP.replace("from geolib.ops import bev_pool", "from geolib.ops import bev_pool, furthest_point_sample")
    app = app.replace("return bev_pool(x, 4)", "return bev_pool(furthest_point_sample(x, 4), 4)")
    report = analyze(write_tree(tmp_path, _tree(app)), AnalyzeOptions(jobs=1))
    kernels = _reach(report, "ops/fps/src/fps_cuda.cu")
    assert kernels and all(reach == "runs" for _, reach, _ in kernels)
