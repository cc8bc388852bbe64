"""Device lines inside the wrapper of a CUDA kernel compiled outside torch (CuPy) are sites of the kernel's OPS050
finding, not findings of their own (analyzer/context/kernel_wrapper.py); CuPy's compile_with_cache and a memoized
launcher make OPS050 as RawKernel does (domains/custom_ops/python_scanner.py)."""

import pytest

from tests.helpers import scan

WRAPPER = '''import collections
import os
import cupy
import torch
cache = {}
def kernel_source(name, source):
    if "device" not in cache:
        cache["device"] = torch.cuda.get_device_name()
    cache[name] = source
    return name
@cupy.memoize(for_each_device=True)
def launch(key):
    if "CUDA_HOME" not in os.environ:
        os.environ["CUDA_HOME"] = cupy.cuda.get_cuda_path()
    return BUILD
class splat_func(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.new_zeros(x.shape)
        if x.is_cuda == True:
            launch(kernel_source("splat", "..."))(grid=(1, 1, 1), block=(512, 1, 1), args=[x.data_ptr()],
                stream=collections.namedtuple("Stream", "ptr")(torch.cuda.current_stream().cuda_stream))
        elif x.is_cuda != True:
            assert False
        return out
def other(x):
    if x.is_cuda:
        return x.cpu()
    return x
'''
COMPILE = 'cupy.cuda.compile_with_cache(cache[key], ("-I " + os.environ["CUDA_HOME"],)).get_function("splat_out")'
RAW = 'cupy.RawKernel(cache[key], "splat_out")'


@pytest.mark.parametrize("build, line, symbol", [
    (COMPILE, 15, 'cupy.cuda.compile_with_cache(splat_out)'),
    (RAW, 15, 'cupy.RawKernel(splat_out)'),
    ("load_module(cache[key])", 11, "cupy.memoize(launch)"),  # the memoized launcher itself: no builder inside
])
def test_the_wrappers_device_lines_are_sites_of_the_kernel(build, line, symbol):
    findings = scan(WRAPPER.replace("BUILD", build), "python", path="splat.py").findings
    kernels = [f for f in findings if f.rule == "OPS050"]
    assert [(f.line, f.symbol) for f in kernels] == [(line, symbol)]
    # the device-name cache key (helper only the launch uses), CUDA_HOME (the launcher), the is_cuda tests and the
    # stream (the autograd Function launching it)
    assert {s for s in kernels[0].sites} >= {"splat.py:8", "splat.py:13", "splat.py:20", "splat.py:22", "splat.py:23"}
    assert "NPU pointers" in kernels[0].message.en
    # nothing of the wrapper is advised on its own (no `.is_npu` test sending NPU tensors into the CUDA kernel)
    assert not [f for f in findings if f.rule.startswith("DEV") and f.line < 26]
    # a function outside the wrapper keeps its own finding
    assert [f.line for f in findings if f.rule == "DEV006"] == [27]


def test_without_a_cuda_kernel_the_device_lines_stay():
    code = WRAPPER.replace("@cupy.memoize(for_each_device=True)\n", "").replace("BUILD", "load_module(cache[key])")
    findings = scan(code, "python", path="splat.py").findings
    assert not [f for f in findings if f.rule == "OPS050"]
    assert [f.line for f in findings if f.rule == "DEV006"] == [19, 22, 26]


def test_a_plain_function_launching_the_kernel_keeps_its_lines():
    """Only an autograd Function's methods are the wrapper: a plain function doing other device work beside the
    launch keeps its own findings."""
    code = WRAPPER.replace("BUILD", COMPILE) + '''def run(x):
    if x.is_cuda:
        launch("splat")
    return x.cuda()
'''
    findings = scan(code, "python", path="splat.py").findings
    assert [f.line for f in findings if f.rule == "DEV006"] == [27, 31]
