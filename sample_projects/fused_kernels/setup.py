from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fused-kernels",
    version="0.3.0",
    packages=find_packages(),
    ext_modules=[
        CUDAExtension(
            name="fused_kernels._C",
            sources=["csrc/bindings.cpp", "csrc/rms_norm_kernel.cu", "csrc/gather_points_kernel.cu"],
            extra_compile_args={"nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    install_requires=["torch>=2.1", "triton>=2.1"],
)
