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



# detectron2's box_iou_rotated: the dispatcher in a header (`if (boxes1.device().is_cuda()) ... return
# box_iou_rotated_cpu(...)`), the CPU implementation in a .cpp written only over at::Tensor (no "torch" or "cuda"
# word of its own), the binding in a file binding several ops (round 29 B2 row 35)
IOU_HEADER = """#pragma once
#include <torch/types.h>
at::Tensor box_iou_rotated_cpu(const at::Tensor& boxes1, const at::Tensor& boxes2);
at::Tensor box_iou_rotated_cuda(const at::Tensor& boxes1, const at::Tensor& boxes2);
inline at::Tensor box_iou_rotated(const at::Tensor& boxes1, const at::Tensor& boxes2) {
  if (boxes1.device().is_cuda()) {
    return box_iou_rotated_cuda(boxes1.contiguous(), boxes2.contiguous());
  }
  return box_iou_rotated_cpu(boxes1.contiguous(), boxes2.contiguous());
}
"""
IOU_CPU = """#include "box_iou_rotated.h"
at::Tensor box_iou_rotated_cpu(const at::Tensor& boxes1, const at::Tensor& boxes2) {
  at::Tensor ious = at::empty({boxes1.size(0), boxes2.size(0)}, boxes1.options());
  return ious;
}
"""
IOU_CUDA = """#include <ATen/ATen.h>
#include "box_iou_rotated.h"
__global__ void box_iou_rotated_cuda_kernel(const int n1, const int n2, const float* b1, const float* b2, float* out) {
  __shared__ float block[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  block[threadIdx.x] = b1[i];
  __syncthreads();
  out[i] = block[threadIdx.x] * b2[i];
}
at::Tensor box_iou_rotated_cuda(const at::Tensor& boxes1, const at::Tensor& boxes2) {
  at::Tensor ious = at::empty({boxes1.size(0), boxes2.size(0)}, boxes1.options());
  box_iou_rotated_cuda_kernel<<<1, 64>>>(0, 0, nullptr, nullptr, nullptr);
  return ious;
}
"""
IOU_BINDING = """#include <torch/extension.h>
#include "box_iou_rotated/box_iou_rotated.h"
#include "nms/nms.h"
TORCH_LIBRARY(boxes, m) {
  m.def("box_iou_rotated", &box_iou_rotated);
  m.def("nms_rotated", &nms_rotated);
}
"""
IOU_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "setup(name='pkg', ext_modules=[CUDAExtension('pkg._C', ['csrc/vision.cpp', "
             "'csrc/box_iou_rotated/box_iou_rotated_cpu.cpp', 'csrc/box_iou_rotated/box_iou_rotated_cuda.cu'])])\n")
IOU_PY = "import torch\n\n\ndef pairwise_iou(b1, b2):\n    return torch.ops.boxes.box_iou_rotated(b1, b2)\n"


def _iou_kernel(tmp_path, cpu_source: str | None):
    tree = {"setup.py": IOU_SETUP, "csrc/vision.cpp": IOU_BINDING, "csrc/box_iou_rotated/box_iou_rotated.h": IOU_HEADER,
            "csrc/box_iou_rotated/box_iou_rotated_cuda.cu": IOU_CUDA, "pkg/__init__.py": "", "pkg/boxes.py": IOU_PY}
    if cpu_source is not None:
        tree["csrc/box_iou_rotated/box_iou_rotated_cpu.cpp"] = cpu_source
    write_tree(tmp_path, tree)
    findings = analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
    return next(f for f in findings if f.rule == "OPS002" and f.path.endswith("box_iou_rotated_cuda.cu"))


def test_a_cpu_implementation_written_only_over_aten_is_a_twin(tmp_path):
    kernel = _iou_kernel(tmp_path / "a", IOU_CPU)
    assert (kernel.severity, kernel.effort_hours.high) == ("high", 8.0)
    assert "box_iou_rotated_cpu()" in kernel.replacement.en
    # not flagged: no CPU implementation in the tree keeps the blocker
    assert _iou_kernel(tmp_path / "b", None).severity == "blocker"


ALIGN_HEADER = """#pragma once
#include <torch/types.h>
at::Tensor align_forward_cpu(const at::Tensor& input);
at::Tensor align_backward_cpu(const at::Tensor& grad);
at::Tensor align_forward_cuda(const at::Tensor& input);
at::Tensor align_backward_cuda(const at::Tensor& grad);
inline at::Tensor align_forward(const at::Tensor& input) {
  if (input.is_cuda()) { return align_forward_cuda(input); }
  return align_forward_cpu(input);
}
inline at::Tensor align_backward(const at::Tensor& grad) {
  if (grad.is_cuda()) { return align_backward_cuda(grad); }
  return align_backward_cpu(grad);
}
"""
ALIGN_CPU = """#include <torch/extension.h>
#include "align.h"
at::Tensor align_forward_cpu(const at::Tensor& input) { return input.clone(); }
at::Tensor align_backward_cpu(const at::Tensor& grad) { return grad.clone(); }
"""
ALIGN_CUDA = """#include <ATen/ATen.h>
#include "align.h"
__global__ void AlignForwardKernel(const float* in, float* out) {
  __shared__ float block[32];
  block[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = block[31 - threadIdx.x];
}
__global__ void AlignBackwardKernel(const float* g, float* out) {
  __shared__ float block[32];
  block[threadIdx.x] = g[threadIdx.x];
  __syncthreads();
  atomicAdd(out + threadIdx.x, block[31 - threadIdx.x]);
}
at::Tensor align_forward_cuda(const at::Tensor& input) { AlignForwardKernel<<<1, 32>>>(nullptr, nullptr); return input; }
at::Tensor align_backward_cuda(const at::Tensor& grad) { AlignBackwardKernel<<<1, 32>>>(nullptr, nullptr); return grad; }
"""
ALIGN_BINDING = """#include <torch/extension.h>
#include "align/align.h"
TORCH_LIBRARY(ops, m) {
  m.def("align_forward", &align_forward);
  m.def("align_backward", &align_backward);
}
"""


def test_each_kernel_is_told_the_cpu_twin_of_the_op_whose_cuda_arm_launches_it(tmp_path):
    # round 29 B2 row 43: the header names both ops, so the forward kernel was told the backward's twin
    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "setup(name='pkg', ext_modules=[CUDAExtension('pkg._C', ['csrc/vision.cpp', "
             "'csrc/align/align_cpu.cpp', 'csrc/align/align_cuda.cu'])])\n")
    use = "import torch\n\n\ndef align(x):\n    return torch.ops.ops.align_forward(x)\n"
    write_tree(tmp_path, {"setup.py": setup, "csrc/vision.cpp": ALIGN_BINDING, "csrc/align/align.h": ALIGN_HEADER,
                          "csrc/align/align_cpu.cpp": ALIGN_CPU, "csrc/align/align_cuda.cu": ALIGN_CUDA,
                          "pkg/__init__.py": "", "pkg/align.py": use})
    kernels = {f.symbol.split(" ")[0]: f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
               if f.rule == "OPS002" and f.path == "csrc/align/align_cuda.cu"}
    assert "align_forward_cpu()" in kernels["AlignForwardKernel"].replacement.en
    assert "align_backward_cpu()" in kernels["AlignBackwardKernel"].replacement.en


def test_an_op_two_vendored_copies_bind_is_judged_within_each_copy(tmp_path):
    # round 29 B2 row 35: two detectron2 copies each bind `box_iou_rotated`; an op bound twice was judged nowhere
    tree = {"pkg/__init__.py": "", "pkg/boxes.py": IOU_PY}
    # (the second copy's kernel differs a little: an identical copy would be folded into the first as a duplicate)
    for copy, cpu, cuda in (("first", IOU_CPU, IOU_CUDA), ("second", None, IOU_CUDA.replace("* b2[i]", "* b2[i] + 1.0f"))):
        tree |= {f"{copy}/setup.py": IOU_SETUP, f"{copy}/csrc/vision.cpp": IOU_BINDING,
                 f"{copy}/csrc/box_iou_rotated/box_iou_rotated.h": IOU_HEADER,
                 f"{copy}/csrc/box_iou_rotated/box_iou_rotated_cuda.cu": cuda}
        if cpu is not None:
            tree[f"{copy}/csrc/box_iou_rotated/box_iou_rotated_cpu.cpp"] = cpu
    write_tree(tmp_path, tree)
    kernels = {f.path.split("/")[0]: f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
               if f.rule == "OPS002" and f.path.endswith("box_iou_rotated_cuda.cu")}
    # flagged: the copy that compiles a CPU implementation; not flagged: the copy without one keeps the blocker
    assert (kernels["first"].severity, kernels["first"].effort_hours.high) == ("high", 8.0)
    assert "box_iou_rotated_cpu()" in kernels["first"].replacement.en
    assert kernels["second"].severity == "blocker"


SOLO_HEADER = """#pragma once
#include <torch/types.h>
at::Tensor solo_backward_cpu(const at::Tensor& grad);
at::Tensor solo_backward_cuda(const at::Tensor& grad);
inline at::Tensor solo_backward(const at::Tensor& grad) {
  if (grad.is_cuda()) { return solo_backward_cuda(grad); }
  return solo_backward_cpu(grad);
}
"""
SOLO_CPU = '#include <torch/extension.h>\n#include "solo.h"\nat::Tensor solo_backward_cpu(const at::Tensor& g) { return g; }\n'


def test_a_copy_own_arm_names_the_twin_before_a_string_naming_another_ops_arm(tmp_path):
    # round 29 (IDM-VTON): both detectron2 copies bind the align ops; a .cu keeps a copied error string naming another
    # op's CUDA arm (`"ROIAlign_backward_cuda"`), which linked its kernels to that op's twin in the whole-project pass
    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "setup(name='pkg', ext_modules=[CUDAExtension('pkg._C', ['csrc/vision.cpp', "
             "'csrc/align/align_cpu.cpp', 'csrc/align/align_cuda.cu'])])\n")
    tree = {"pkg/__init__.py": "", "pkg/align.py": "import torch\n\n\ndef align(x):\n    return torch.ops.ops.align_forward(x)\n",
            "first/csrc/solo/solo.h": SOLO_HEADER, "first/csrc/solo/solo_cpu.cpp": SOLO_CPU,
            "first/csrc/solo/bind.cpp": '#include <torch/extension.h>\n#include "solo.h"\n'
                                        'TORCH_LIBRARY(solo, m) {\n  m.def("solo_backward", &solo_backward);\n}\n'}
    for copy, cuda in (("first", ALIGN_CUDA),
                       ("second", ALIGN_CUDA.replace("block[31 - threadIdx.x];\n}", 'block[30 - threadIdx.x];\n}', 1)
                        + 'const char* checked_from = "solo_backward_cuda";\n')):
        tree |= {f"{copy}/setup.py": setup, f"{copy}/csrc/vision.cpp": ALIGN_BINDING,
                 f"{copy}/csrc/align/align.h": ALIGN_HEADER, f"{copy}/csrc/align/align_cpu.cpp": ALIGN_CPU,
                 f"{copy}/csrc/align/align_cuda.cu": cuda}
    write_tree(tmp_path, tree)
    kernels = {f.symbol.split(" ")[0]: f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
               if f.rule == "OPS002" and f.path == "second/csrc/align/align_cuda.cu"}
    assert "align_forward_cpu()" in kernels["AlignForwardKernel"].replacement.en
    assert "align_backward_cpu()" in kernels["AlignBackwardKernel"].replacement.en
