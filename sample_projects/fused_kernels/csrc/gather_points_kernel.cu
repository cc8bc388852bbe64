#include <cuda_runtime.h>
#include <torch/extension.h>

__global__ void gather_points_kernel(int b, int c, int n, int m, const float* points, const int* idx, float* out) {
  int bs_idx = blockIdx.z;
  int c_idx = blockIdx.y;
  int pt_idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (bs_idx >= b || c_idx >= c || pt_idx >= m) return;
  out[(bs_idx * c + c_idx) * m + pt_idx] = points[(bs_idx * c + c_idx) * n + idx[bs_idx * m + pt_idx]];
}

torch::Tensor gather_points_cuda(torch::Tensor points, torch::Tensor idx) {
  int b = points.size(0), c = points.size(1), n = points.size(2), m = idx.size(1);
  auto out = torch::zeros({b, c, m}, points.options());
  dim3 blocks((m + 255) / 256, c, b);
  gather_points_kernel<<<blocks, 256>>>(b, c, n, m, points.data_ptr<float>(), idx.data_ptr<int>(), out.data_ptr<float>());
  cudaDeviceSynchronize();
  return out;
}
