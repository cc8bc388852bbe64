"""A kernel launched only from a host function no code of the project calls is optional (metaseq's Megatron softmax
header: scaled_softmax_warp_forward behind dispatch_scaled_softmax_forward, which nothing calls); its sibling launched
from a dispatcher the extension's .cu calls runs, and so does the dead one where a file out of view could include the
header."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

HEADER = """#pragma once
#include <cuda_runtime.h>

template <typename T>
__global__ void plain_softmax_warp_forward(T* dst, const T* src) {
  __shared__ float t[32];
  dst[0] = src[0];
}

template <typename T>
__global__ void masked_softmax_warp_forward(T* dst, const T* src, const bool* mask) {
  __shared__ float t[32];
  dst[0] = mask[0] ? -10000 : src[0];
}

template <typename T>
void dispatch_plain_softmax_forward(T* dst, const T* src) {
  plain_softmax_warp_forward<T><<<1, 32>>>(dst, src);
}

template <typename T>
void dispatch_masked_softmax_forward(T* dst, const T* src, const bool* mask) {
  masked_softmax_warp_forward<T><<<1, 32>>>(dst, src, mask);
}
"""
CUDA = """#include <torch/extension.h>
#include "fused_softmax.h"

torch::Tensor fwd_cuda(torch::Tensor x, torch::Tensor mask) {
  auto out = torch::empty_like(x);
  dispatch_masked_softmax_forward<float>(out.data_ptr<float>(), x.data_ptr<float>(), mask.data_ptr<bool>());
  return out;
}
"""
BINDING = """#include <torch/extension.h>

torch::Tensor fwd_cuda(torch::Tensor x, torch::Tensor mask);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &fwd_cuda, "forward");
}
"""
SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='pkg', ext_modules=[CUDAExtension('pkg.kernels.fused_softmax_cuda', sources=["
         "'pkg/kernels/fused_softmax.cpp', 'pkg/kernels/fused_softmax_cuda.cu'])], cmdclass={'build_ext': BuildExtension})\n")
MODEL = ("import torch\nfrom pkg.kernels import fused_softmax_cuda\n\n\ndef attend(x, mask):\n"
         "    return fused_softmax_cuda.forward(x, mask)\n")


def _tree(**changes: str) -> dict[str, str]:
    files = {"setup.py": SETUP, "pkg/__init__.py": "", "pkg/kernels/__init__.py": "", "pkg/model.py": MODEL,
             "pkg/kernels/fused_softmax.h": HEADER, "pkg/kernels/fused_softmax_cuda.cu": CUDA,
             "pkg/kernels/fused_softmax.cpp": BINDING,
             "train.py": "from pkg.model import attend\n\nif __name__ == '__main__':\n    print(attend)\n"}
    files.update(changes)
    return files


def _kernels(report) -> dict[int, object]:
    return {f.line: f for f in report.findings if f.rule == "OPS001" and f.path.endswith("fused_softmax.h")}


def test_a_kernel_only_an_uncalled_dispatcher_launches_is_optional_and_says_so(tmp_path):
    kernels = _kernels(analyze(write_tree(tmp_path, _tree()), AnalyzeOptions(jobs=1)))
    assert kernels[5].reach == "optional"
    assert ("kernel plain_softmax_warp_forward is launched only from dispatch_plain_softmax_forward(), which no code "
            "of the project calls or binds") in kernels[5].reach_reason
    assert kernels[11].reach == "runs"  # the .cu calls its dispatcher


def test_a_dispatcher_another_source_calls_keeps_its_kernel(tmp_path):
    cuda = CUDA.replace("  return out;", "  dispatch_plain_softmax_forward<float>(out.data_ptr<float>(), "
                                         "x.data_ptr<float>());\n  return out;")
    kernels = _kernels(analyze(write_tree(tmp_path, _tree(**{"pkg/kernels/fused_softmax_cuda.cu": cuda})),
                               AnalyzeOptions(jobs=1)))
    assert kernels[5].reach == "runs"


def test_a_header_a_native_file_outside_the_listed_build_includes_is_not_judged(tmp_path):
    other = '#include <torch/extension.h>\n#include "fused_softmax.h"\n\nvoid helper() {}\n'
    kernels = _kernels(analyze(write_tree(tmp_path, _tree(**{"pkg/kernels/other_op.cu": other})),
                               AnalyzeOptions(jobs=1)))
    assert kernels[5].reach == "runs"
