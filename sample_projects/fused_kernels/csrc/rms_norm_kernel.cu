#include <cuda_runtime.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

template <typename T>
__device__ float warp_reduce_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    v += __shfl_xor_sync(0xffffffff, v, offset);
  }
  return v;
}

template <typename T>
__global__ void rms_norm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w,
                                int hidden, float eps) {
  __shared__ float partial[32];
  const T* row = x + blockIdx.x * hidden;
  float sum = 0.f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    float v = static_cast<float>(row[i]);
    sum += v * v;
  }
  sum = warp_reduce_sum<T>(sum);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  float rstd = rsqrtf(partial[0] / hidden + eps);
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    out[blockIdx.x * hidden + i] = static_cast<T>(static_cast<float>(row[i]) * rstd) * w[i];
  }
}

torch::Tensor rms_norm_cuda(torch::Tensor x, torch::Tensor weight, double eps) {
  auto out = torch::empty_like(x);
  const int hidden = x.size(-1);
  const int rows = x.numel() / hidden;
  auto stream = at::cuda::getCurrentCUDAStream();
  rms_norm_kernel<float><<<rows, 256, 0, stream>>>(out.data_ptr<float>(), x.data_ptr<float>(),
                                                   weight.data_ptr<float>(), hidden, static_cast<float>(eps));
  return out;
}
