"""A TensorRT plugin's native code (scout14 class: InternImage's tensorrt/modulated_deform_conv_v3, mmdeploy's DCNv3
plugin) runs only inside a TensorRT engine: other-backend, uncounted. A kernel a torch extension compiles or binds in
the same folder stays counted."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

PLUGIN_HEADER = ("#include <cublas_v2.h>\n#include \"trt_plugin_base.hpp\"\n"
                 "class TRTDCNv3 : public TRTPluginBase {\n public:\n"
                 "  nvinfer1::IPluginV2DynamicExt *clone() const override;\n"
                 "  int enqueue(const void *const *inputs, void *const *outputs, cudaStream_t stream) override;\n};\n")
KERNEL = ("#include <cuda_fp16.h>\n#include \"trt_dcn_kernel.hpp\"\n"
          "__global__ void dcnv3_im2col_gpu_kernel(const float* input, float* output) {\n"
          "  __shared__ float t[32];\n  output[threadIdx.x] = input[threadIdx.x];\n}\n")
BINDING = ("#include <torch/extension.h>\nvoid dcn_forward(torch::Tensor x);\n"
           "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"forward\", &dcn_forward);\n}\n")


def _kernel_findings(tmp_path, files):
    write_tree(tmp_path, files)
    return [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.path.endswith("kernel.cu")]


def test_a_tensorrt_plugins_kernels_are_another_backends(tmp_path):
    found = _kernel_findings(tmp_path, {"tensorrt/dcn/trt_dcn.hpp": PLUGIN_HEADER, "tensorrt/dcn/trt_dcn_kernel.cu": KERNEL,
                                        "model.py": "import torch\n"})
    assert found and all(f.reach == "other-backend" and "TensorRT plugin" in (f.reach_reason or "") for f in found)


def test_a_kernel_beside_a_torch_binding_stays_counted(tmp_path):
    found = _kernel_findings(tmp_path, {"ops/dcn/trt_dcn.hpp": PLUGIN_HEADER, "ops/dcn/trt_dcn_kernel.cu": KERNEL,
                                        "ops/dcn/binding.cpp": BINDING, "model.py": "import torch\n"})
    assert found and all(f.reach == "runs" for f in found)
    found = _kernel_findings(tmp_path / "b", {"ops/dcn/dcn_kernel.cu": KERNEL, "model.py": "import torch\n"})
    assert found and all(f.reach == "runs" for f in found)


TENSORRT_CMAKE = ("cmake_minimum_required(VERSION 3.10)\nproject(demo)\nfind_package(CUDA REQUIRED)\n"
                  "add_executable(demo main.cpp)\ntarget_link_libraries(demo {libs})\n")


def _cmake_findings(tmp_path, libs):
    write_tree(tmp_path, {"deploy/CMakeLists.txt": TENSORRT_CMAKE.format(libs=libs),
                          "deploy/main.cpp": "int main() { return 0; }\n", "model.py": "import torch\n"})
    return [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.path.endswith("CMakeLists.txt")]


def test_the_cmake_build_of_a_tensorrt_deployment_is_another_backends(tmp_path):
    """YOLOP's toolkits/deploy (round 38): `target_link_libraries(yolop nvinfer)` beside `find_package(CUDA ...)`. The
    CUDA build is TensorRT's, replaced by ATC/OM on Ascend, not a torch_npu target to add."""
    found = _cmake_findings(tmp_path, "PRIVATE nvinfer cudart")
    assert found and all(f.reach == "other-backend" for f in found)
    assert all("links nvinfer" in f.reach_reason and "ATC/OM" in f.reach_reason for f in found)


def test_a_cmake_build_without_tensorrt_or_with_libtorch_stays_counted(tmp_path):
    found = _cmake_findings(tmp_path / "a", "cudart")
    assert found and all(f.reach == "runs" for f in found)
    found = _cmake_findings(tmp_path / "b", "nvinfer ${TORCH_LIBRARIES}")
    assert found and all(f.reach == "runs" for f in found)


def test_the_cmake_file_of_a_plugin_folder_is_another_backends(tmp_path):
    """A plugin folder's CMake file that names its CUDA sources, linking TensorRT through a variable of its own."""
    write_tree(tmp_path, {"tensorrt/dcn/trt_dcn.hpp": PLUGIN_HEADER, "tensorrt/dcn/trt_dcn_kernel.cu": KERNEL,
                          "tensorrt/dcn/CMakeLists.txt": "find_package(CUDA REQUIRED)\ncuda_add_library(dcn SHARED "
                          "trt_dcn_kernel.cu)\ntarget_link_libraries(dcn ${TRT_LIBS})\n", "model.py": "import torch\n"})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.path.endswith("CMakeLists.txt")]
    assert found and all(f.reach == "other-backend" and "TensorRT plugin folder" in f.reach_reason for f in found)
