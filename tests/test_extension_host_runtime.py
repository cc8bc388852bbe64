"""The CUDA runtime calls of an extension's host files go with the port of the extension's kernels: one finding per
file, its calls listed as sites (round 41 CenterPoint iou3d_nms.cpp); a standalone CUDA runtime app keeps one per call."""

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree as write

SETUP = '''from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name="nms", ext_modules=[CUDAExtension("nms_cuda", ["src/nms.cpp", "src/nms_kernel.cu"])],
      cmdclass={"build_ext": BuildExtension})
'''
HOST = '''#include <torch/extension.h>
#include <cuda_runtime_api.h>

void nms_launcher(const float *boxes, unsigned long long *mask, int n);

int nms_gpu(at::Tensor boxes, at::Tensor keep) {
  int n = boxes.size(0);
  unsigned long long *mask_data = NULL;
  cudaMalloc((void **)&mask_data, n * sizeof(unsigned long long));
  nms_launcher(boxes.data_ptr<float>(), mask_data, n);
  std::vector<unsigned long long> mask_cpu(n);
  cudaMemcpy(&mask_cpu[0], mask_data, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  cudaFree(mask_data);
  return n;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("nms_gpu", &nms_gpu, "nms"); }
'''
KERNEL = '''__global__ void nms_kernel(const float *boxes, unsigned long long *mask, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { mask[i] = boxes[i] > 0.5f ? 1ULL : 0ULL; }
}

void nms_launcher(const float *boxes, unsigned long long *mask, int n) {
  nms_kernel<<<(n + 255) / 256, 256>>>(boxes, mask, n);
}
'''
CALLER = "import torch\nimport nms_cuda\n\n\ndef nms(boxes, keep):\n    return nms_cuda.nms_gpu(boxes, keep)\n"
APP = '''#include <cuda_runtime_api.h>

int main() {
  float *buffer = nullptr;
  cudaMalloc((void **)&buffer, 1024);
  cudaFree(buffer);
  return 0;
}
'''


def _host_findings(tmp_path, files):
    write(tmp_path, {"requirements.txt": "torch\n", **files})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return [f for f in report.findings if f.rule == "OPS067"]


def test_an_extensions_host_runtime_calls_are_one_item_with_its_kernels(tmp_path):
    found = _host_findings(tmp_path, {"setup.py": SETUP, "src/nms.cpp": HOST, "src/nms_kernel.cu": KERNEL,
                                      "nms.py": CALLER, "app/main.cpp": APP})
    assert [(f.path, f.line) for f in found if f.path == "app/main.cpp"] == [("app/main.cpp", n) for n in (1, 5, 6)]
    found = [f for f in found if f.path == "src/nms.cpp"]
    assert [f.line for f in found] == [2]
    assert found[0].sites == ["src/nms.cpp:2", "src/nms.cpp:9", "src/nms.cpp:12", "src/nms.cpp:13"]
    assert "cudaFree()" in found[0].message.en and "nms_cuda" in found[0].message.en


def test_a_standalone_cuda_runtime_app_keeps_a_finding_per_call(tmp_path):
    found = _host_findings(tmp_path, {"app/main.cpp": APP})
    assert [f.line for f in found] == [1, 5, 6]
