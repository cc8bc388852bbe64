"""The custom_ops domain: CUDA/C++ extensions, Triton kernels, autograd Functions, cupy and numba kernels."""
