"""CUDA kernels whose extension binds a CPU implementation of the same op (domains/custom_ops/cpu_twins.py): the
op's dispatcher picks `<function>_cpu` by the tensor's device, so OPS002 is no 24-80 h blocker but a CPU build.
Round 26 A2 row 71 / B2 row 36: a rasterizer whose bound function tests `V.get_device() == -1`."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

DISPATCH = """#include <torch/extension.h>
std::vector<torch::Tensor> rasterize_image_gpu(torch::Tensor V, torch::Tensor F);
std::vector<torch::Tensor> rasterize_image_cpu(torch::Tensor V, torch::Tensor F) {
  auto out = torch::zeros_like(V);
  return {out};
}
std::vector<torch::Tensor> rasterize_image(torch::Tensor V, torch::Tensor F) {
  int device_id = V.get_device();
  if (device_id == -1)
    return rasterize_image_cpu(V, F);
  else
    return rasterize_image_gpu(V, F);
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("rasterize_image", &rasterize_image, "rasterize");
}
"""
KERNEL = """#include <torch/extension.h>
__global__ void rasterizeImagecoordsKernelGPU(const float* V, const int* F, int* zbuffer, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicMin(zbuffer + F[i], (int)V[i]);
}
std::vector<torch::Tensor> rasterize_image_gpu(torch::Tensor V, torch::Tensor F) {
  rasterizeImagecoordsKernelGPU<<<1, 32>>>(nullptr, nullptr, nullptr, 0);
  return {V};
}
"""
SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
         "setup(name='pkg', ext_modules=[CUDAExtension('rast_kernel', ['lib/rast/rasterizer.cpp', "
         "'lib/rast/rasterizer_gpu.cu'])])\n")
RENDER = "import torch\nimport rast_kernel\n\n\ndef render(v, f):\n    return rast_kernel.rasterize_image(v, f)\n"


def _kernel(tmp_path, dispatch: str):
    write_tree(tmp_path, {"setup.py": SETUP, "lib/rast/rasterizer.cpp": dispatch,
                          "lib/rast/rasterizer_gpu.cu": KERNEL, "render.py": RENDER})
    findings = analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
    return next(f for f in findings if f.rule == "OPS002" and f.path == "lib/rast/rasterizer_gpu.cu")


def test_a_kernel_whose_op_dispatches_to_a_cpu_implementation_is_a_cpu_build(tmp_path):
    kernel = _kernel(tmp_path, DISPATCH)
    assert (kernel.severity, kernel.reach) == ("high", "runs")
    assert (kernel.effort_hours.low, kernel.effort_hours.high) == (2.0, 8.0)
    assert "rasterize_image_cpu()" in kernel.message.en and "rasterizeImagecoordsKernelGPU" in kernel.message.en
    assert "CppExtension" in kernel.replacement.en and "rasterize_image_cpu()" in kernel.replacement.en


def test_no_cpu_implementation_or_no_device_test_keeps_the_blocker(tmp_path):
    # the CUDA arm only: nothing the host build computes
    cuda_only = DISPATCH.replace("  int device_id = V.get_device();\n  if (device_id == -1)\n"
                                 "    return rasterize_image_cpu(V, F);\n  else\n", "")
    cuda_only = cuda_only.replace("rasterize_image_cpu", "rasterize_image_ref")
    assert _kernel(tmp_path / "a", cuda_only).severity == "blocker"
    # a `_cpu` function written but not picked by any device test: a helper, not an arm
    no_test = DISPATCH.replace("  int device_id = V.get_device();\n  if (device_id == -1)\n"
                               "    return rasterize_image_cpu(V, F);\n  else\n", "")
    assert _kernel(tmp_path / "b", no_test).severity == "blocker"
    # a `_cpu` function bound as an op of its own is no arm of the dispatcher
    bound = DISPATCH.replace('  m.def("rasterize_image", &rasterize_image, "rasterize");\n',
                             '  m.def("rasterize_image", &rasterize_image, "rasterize");\n'
                             '  m.def("rasterize_image_cpu", &rasterize_image_cpu, "cpu");\n')
    assert _kernel(tmp_path / "c", bound).severity == "blocker"


def test_a_dispatcher_in_a_file_binding_several_ops_links_its_kernels_through_its_cuda_arm(tmp_path):
    # Hunyuan3D-2's rasterizer.cpp binds three ops beside the dispatcher: its words belong to no single op, so the
    # kernel is found through the arm the dispatcher calls (`rasterize_image_gpu`, which launches it)
    several = DISPATCH.replace('m.def("rasterize_image", &rasterize_image, "rasterize");',
                               'm.def("rasterize_image", &rasterize_image, "rasterize");\n'
                               '  m.def("build_hierarchy", &build_hierarchy, "hierarchy");')
    several = several.replace("PYBIND11_MODULE", "std::vector<torch::Tensor> build_hierarchy(torch::Tensor V) {\n"
                              "  return {V};\n}\nPYBIND11_MODULE")
    kernel = _kernel(tmp_path, several)
    assert (kernel.severity, kernel.effort_hours.high) == ("high", 8.0)
    assert "rasterize_image_cpu()" in kernel.replacement.en

