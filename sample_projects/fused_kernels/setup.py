from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

ext_modules = [
    CUDAExtension(
        name="fused_kernels._C",
        sources=["csrc/bindings.cpp", "csrc/rms_norm_kernel.cu", "csrc/gather_points_kernel.cu"],
        extra_compile_args={"nvcc": ["-O3", "--use_fast_math"]},
    )
]
if CUDA_HOME is not None:  # the Hopper build of the norm kernel, where the toolkit can target sm_90
    ext_modules.append(
        CUDAExtension(
            name="fused_kernels._C_sm90",
            sources=["csrc/bindings.cpp", "csrc/rms_norm_kernel.cu"],
            extra_compile_args={"nvcc": ["-O3", "-gencode=arch=compute_90,code=sm_90"]},
        )
    )

setup(
    name="fused-kernels",
    version="0.3.0",
    packages=find_packages(),
    ext_modules=ext_modules,
    cmdclass={"build_ext": BuildExtension},
    install_requires=["torch>=2.1", "triton>=2.1"],
)
