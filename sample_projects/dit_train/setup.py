import glob
import os

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension


def get_extensions():
    define_macros = []
    sources = glob.glob("dit/csrc/*.cpp")
    if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
        define_macros += [("WITH_CUDA", None)]
        extension = CUDAExtension
        sources += glob.glob("dit/csrc/cuda/*.cu")
    elif torch.backends.mps.is_available():
        extension = CppExtension
    else:
        extension = CppExtension
    return [extension(name="dit._ops", sources=sources, define_macros=define_macros)]


setup(
    name="dit-train",
    packages=find_packages(),
    ext_modules=get_extensions(),
    cmdclass={"build_ext": BuildExtension},
)
