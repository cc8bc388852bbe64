"""Extension loaders whose only call is a comment: the load, the native sources only they list and the autograd
Functions reading a kernel handle only they bind are `optional` (analyzer/context/unhooked_loaders.py,
domains/phases/unhooked_loaders.py; round 25 B1 C1 rows 5, 9, 11, 15, B2 C1 rows 25, 30, 31, 41, verdicts V1)."""

from __future__ import annotations

import ascend_feasibility.analyzer.core.filework  # noqa: F401  (imports every module that registers a query)
import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases.facts import collect_python

from tests.helpers import write_tree

# FunASR's rwkv_attention.py, reduced: the loader sets the module global the Function reads; its call is commented out
ATTENTION = '''import os
import torch
from torch.utils.cpp_extension import load

wkv_kernel = None


class WKVLinearAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return wkv_kernel.forward(x)


def load_wkv_kernel(size):
    global wkv_kernel
    module_dir = os.path.dirname(__file__)
    wkv_kernel = load(name=f"wkv_{size}", sources=[f"{module_dir}/cuda/wkv_op.cpp", f"{module_dir}/cuda/wkv_cuda.cu"])


class SelfAttention(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        # load_wkv_kernel(size)
        self.size = size

    def forward(self, x):
        return WKVLinearAttention.apply(x)
'''
KERNEL = ("#include <cuda_runtime.h>\n__global__ void kernel_forward(float *y, const float *x, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n")
BINDING = ('#include <torch/extension.h>\nvoid forward(torch::Tensor x) {}\nTORCH_LIBRARY(wkv, m) {\n'
           '  m.def("forward", forward);\n}\n')


def _findings(root, attention=ATTENTION, extra=None):
    write_tree(root, {"app/__init__.py": "from .attention import SelfAttention\n", "app/attention.py": attention,
                      "app/cuda/wkv_cuda.cu": KERNEL, "app/cuda/wkv_op.cpp": BINDING,
                      "run.py": "from app import SelfAttention\nm = SelfAttention(4)\n", **(extra or {})})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {(f.path, f.rule): f for f in report.findings if f.rule in {"OPS001", "OPS002", "OPS010", "OPS021", "OPS040"}}


def test_a_loader_called_only_in_a_comment_leaves_its_kernels_and_function_optional(tmp_path):
    found = _findings(tmp_path)
    assert set(found) == {("app/attention.py", "OPS021"), ("app/attention.py", "OPS040"),
                          ("app/cuda/wkv_cuda.cu", "OPS001"), ("app/cuda/wkv_op.cpp", "OPS010")}
    assert all(f.reach == "optional" and not f.counted for f in found.values())
    assert "`load_wkv_kernel()` builds an extension and its only call is commented out" in \
        found["app/attention.py", "OPS021"].reach_reason
    assert found["app/cuda/wkv_cuda.cu", "OPS001"].reach_reason.startswith("built only by `load_wkv_kernel()`")
    assert "the kernel handle stays None" in found["app/attention.py", "OPS040"].reach_reason


@pytest.mark.parametrize("attention", [
    # a live call, however guarded: the extension is built on that path
    ATTENTION.replace("        # load_wkv_kernel(size)\n", "        if torch.cuda.is_available():\n"
                      "            load_wkv_kernel(size)\n"),
    # passed on as a value (a registry, a callback): a reference is a use
    ATTENTION + "\nLOADERS = {'wkv': load_wkv_kernel}\n",
    # named in a string a lookup may use
    ATTENTION + "\nKERNELS = ['load_wkv_kernel']\n",
])
def test_a_loader_with_a_live_reference_or_no_commented_call_keeps_its_kernels_counted(tmp_path, attention):
    found = _findings(tmp_path, attention)
    assert found and all(f.reach == "runs" for f in found.values())


def test_a_loader_no_comment_calls_is_not_judged_here(tmp_path):
    # nothing says the project unhooked it: a function nothing names is unreferenced.py's to judge (a library's users
    # may call it), so no finding carries this reason
    for attention in (ATTENTION.replace("        # load_wkv_kernel(size)\n", ""),
                      # a comment naming it, not a call: prose, no use (domains/phases/prose.py), no unhooking either
                      ATTENTION.replace("        # load_wkv_kernel(size)\n", "        # see load_wkv_kernel for the CUDA path\n")):
        found = _findings(tmp_path / str(len(attention)), attention)
        assert found and not any("commented out" in (f.reach_reason or "") for f in found.values())


def test_a_loader_another_file_names_keeps_its_kernels_counted(tmp_path):
    found = _findings(tmp_path, extra={"train.py": "from app.attention import load_wkv_kernel\nload_wkv_kernel(4)\n"})
    assert found and all(f.reach == "runs" for f in found.values())


def test_a_source_a_live_load_also_lists_stays_counted_and_the_dead_one_does_not(tmp_path):
    attention = ATTENTION + ('\n\nkernel = load(name="wkv_live", sources=["app/cuda/wkv_op.cpp"])\n')
    found = _findings(tmp_path, attention)
    assert found["app/cuda/wkv_op.cpp", "OPS010"].reach == "runs"
    assert found["app/cuda/wkv_cuda.cu", "OPS001"].reach == "optional"


def test_a_handle_bound_at_the_top_level_or_by_another_function_keeps_the_function_counted(tmp_path):
    other = ATTENTION + "\n\ndef init_kernel():\n    global wkv_kernel\n    wkv_kernel = object()\n"
    found = _findings(tmp_path, other)
    assert found["app/attention.py", "OPS040"].reach == "runs"
    assert found["app/attention.py", "OPS021"].reach == "optional"  # the loader itself stays unreached


def test_the_reader_keeps_only_loaders_the_file_calls_in_comments_alone():
    facts = collect_python(Unit("app/attention.py", "python", SourceText.from_text(ATTENTION)))
    assert facts.unhooked_loaders == [("load_wkv_kernel", 14, 17, ("/cuda/wkv_cuda.cu", "/cuda/wkv_op.cpp"),
                                       (("WKVLinearAttention", 8, 11),))]
    live = ATTENTION.replace("        # load_wkv_kernel(size)\n", "        load_wkv_kernel(size)  # load_wkv_kernel(size)\n")
    assert collect_python(Unit("app/attention.py", "python", SourceText.from_text(live))).unhooked_loaders == []


def test_package_data_naming_the_kernels_builds_nothing(tmp_path):
    # FunASR's setup.py ships the wkv sources as package data (round 25 A2 row 79): still built only by the loader
    setup = ("from setuptools import setup, find_packages\n"
             "setup(name='app', packages=find_packages(),\n"
             "      package_data={'app': ['cuda/wkv_cuda.cu', 'cuda/*.cpp', 'app/cuda/*']})\n")
    found = _findings(tmp_path, extra={"setup.py": setup})
    assert found["app/cuda/wkv_cuda.cu", "OPS001"].reach == "optional"
    assert found["app/cuda/wkv_op.cpp", "OPS010"].reach == "optional"


def test_a_live_extension_of_the_shipped_kernel_keeps_it_counted(tmp_path):
    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "setup(name='app', package_data={'app': ['cuda/*.cu']},\n"
             "      ext_modules=[CUDAExtension('wkv', sources=['app/cuda/wkv_op.cpp', 'app/cuda/wkv_cuda.cu'])])\n")
    found = _findings(tmp_path, extra={"setup.py": setup})
    assert found["app/cuda/wkv_cuda.cu", "OPS001"].reach == "runs"
    assert found["app/cuda/wkv_op.cpp", "OPS010"].reach == "runs"


def test_the_reader_leaves_package_data_out_of_source_refs_and_words():
    setup = ("from setuptools import setup\n"
             "setup(name='app', package_data={'app': ['cuda/wkv_cuda.cu']},\n"
             "      ext_modules=[Ext('e', sources=['app/csrc/live_kernel.cu'])])\n")
    facts = collect_python(Unit("setup.py", "python", SourceText.from_text(setup)))
    assert facts.source_refs == ["app/csrc/live_kernel.cu"]
