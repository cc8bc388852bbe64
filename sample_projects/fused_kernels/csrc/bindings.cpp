#include <torch/extension.h>

torch::Tensor rms_norm_cuda(torch::Tensor x, torch::Tensor weight, double eps);
torch::Tensor gather_points_cuda(torch::Tensor points, torch::Tensor idx);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("rms_norm", &rms_norm_cuda, "Fused RMSNorm (CUDA)");
  m.def("gather_points", &gather_points_cuda, "Gather points by index (CUDA)");
}
