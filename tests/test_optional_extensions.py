"""Extensions and kernels the project can do without (scout13 class N1, TGI): an extension whose import sets a flag
in a try the code then checks with a PyTorch arm, an orphan extension no Python of the project imports, and a Triton
kernel launched only where a test's else arm computes the same. Their kernels, host code, bindings and builders are
optional; the same trees with the fallback taken away stay counted."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

KERNEL = "__global__ void {name}_kernel(const float* input, float* output) {{\n  __shared__ float t[32];\n}}\n"
BINDING = ("#include <torch/extension.h>\nvoid {name}_forward(torch::Tensor x);\n"
           "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{\n  m.def(\"forward\", &{name}_forward);\n}}\n")
HOST = ("#include <cuda_runtime.h>\nvoid prepare(int device) {\n  cudaSetDevice(device);\n"
        "  cudaStream_t stream;\n  cudaStreamCreate(&stream);\n}\n")
SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='{name}', ext_modules=[CUDAExtension(name='{name}', sources=['{name}/ext.cpp', "
         "'{name}/buffers.cu', '{name}/kernel.cu'])], cmdclass={{'build_ext': BuildExtension}})\n")
LAYER = """import torch

FAST_ENABLED = False
if torch.cuda.is_available():
    try:
        from fast_kernels import forward

        FAST_ENABLED = True
    except ImportError:
        pass


def attention(x):
    if FAST_ENABLED and x.shape[-1] < 4096:
        return forward(x)
    else:
        return torch.softmax(x, dim=-1)
"""
META = """import torch
import triton
import triton.language as tl


def has_triton():
    return torch.cuda.is_available()


def to_ragged(tables, lengths, out):
    if has_triton():
        ragged_copy_kernel[(len(lengths),)](tables, out, 128, BLOCK=128)
    else:
        offset = 0
        for i, n in enumerate(lengths):
            out[offset:offset + n] = tables[i][:n]
            offset += n
    return out


@triton.jit
def ragged_copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(dst + offsets, tl.load(src + offsets, mask=offsets < n), mask=offsets < n)
"""


def _extension(name: str) -> dict[str, str]:
    return {f"server/{name}/setup.py": SETUP.format(name=name),
            f"server/{name}/{name}/ext.cpp": BINDING.format(name=name),
            f"server/{name}/{name}/buffers.cu": HOST,
            f"server/{name}/{name}/kernel.cu": KERNEL.format(name=name)}


def _tree(layer: str = LAYER, meta: str = META, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {"server/setup.py": "from setuptools import setup\nsetup(name='pkg', packages=['pkg'])\n",
            "server/pkg/__init__.py": "from pkg import layers, meta\n",
            "server/pkg/layers.py": layer, "server/pkg/meta.py": meta,
            "server/pkg/log.py": "import logging\nlogging.warning('orphan_kernels not installed')\n",
            **_extension("fast_kernels"), **_extension("orphan_kernels"), **(extra or {})}


def _of(report, folder: str):
    found = [f for f in report.findings if f.path.startswith(folder) and f.rule.startswith("OPS")]
    assert {f.path.rsplit("/", 1)[-1] for f in found} >= {"kernel.cu", "buffers.cu", "setup.py"}, found
    return found


def test_an_extension_whose_flag_the_code_checks_with_a_pytorch_arm_is_optional(tmp_path):
    report = analyze(write_tree(tmp_path, _tree()), AnalyzeOptions(jobs=1))
    found = _of(report, "server/fast_kernels/")
    assert all(f.reach == "optional" for f in found), [(f.rule, f.path, f.reach) for f in found]
    assert all("the code that checks FAST_ENABLED (server/pkg/layers.py:14)" in f.reach_reason for f in found)


def test_the_flag_never_set_false_before_the_try_keeps_the_extension_counted(tmp_path):
    layer = LAYER.replace("FAST_ENABLED = False\n", "")
    report = analyze(write_tree(tmp_path, _tree(layer)), AnalyzeOptions(jobs=1))
    kernels = [f for f in _of(report, "server/fast_kernels/") if f.path.endswith("kernel.cu")]
    assert kernels and all(f.reach == "runs" for f in kernels)


def test_an_extension_no_python_imports_is_optional_with_its_host_code_and_builder(tmp_path):
    report = analyze(write_tree(tmp_path, _tree()), AnalyzeOptions(jobs=1))
    found = _of(report, "server/orphan_kernels/")
    assert all(f.reach == "optional" for f in found), [(f.rule, f.path, f.reach) for f in found]
    assert "which no Python file of the project imports or loads by name" in found[0].reach_reason
    assert "fast_kernels" in found[0].reach_reason


def test_an_extension_some_python_imports_or_loads_by_name_stays_counted(tmp_path):
    for user in ("import orphan_kernels\n", "import importlib\nEXT = importlib.import_module('orphan_kernels')\n"):
        report = analyze(write_tree(tmp_path, _tree(extra={"server/pkg/other.py": user})), AnalyzeOptions(jobs=1))
        kernels = [f for f in _of(report, "server/orphan_kernels/") if f.path.endswith("kernel.cu")]
        assert kernels and all(f.reach == "runs" for f in kernels), user


def test_a_triton_kernel_launched_only_where_the_else_arm_computes_the_same_is_optional(tmp_path):
    report = analyze(write_tree(tmp_path, _tree()), AnalyzeOptions(jobs=1))
    kernel = next(f for f in report.findings if f.path == "server/pkg/meta.py" and f.rule == "OPS030")
    assert kernel.reach == "optional"
    assert "launched only where `if has_triton():` (line 11) holds" in kernel.reach_reason


def test_a_triton_kernel_launched_without_an_else_arm_stays_counted(tmp_path):
    meta = META.replace("    else:\n        offset = 0\n        for i, n in enumerate(lengths):\n"
                        "            out[offset:offset + n] = tables[i][:n]\n            offset += n\n",
                        "    else:\n        raise RuntimeError('needs triton')\n")
    report = analyze(write_tree(tmp_path, _tree(meta=meta)), AnalyzeOptions(jobs=1))
    kernel = next(f for f in report.findings if f.path == "server/pkg/meta.py" and f.rule == "OPS030")
    assert kernel.reach == "runs"


def test_a_size_test_or_an_else_arm_launching_another_kernel_is_no_fallback(tmp_path):
    """Megatron-LM's gdp/common.py: `if D <= 512:` one kernel, else a kernel for large rows; both run on the NPU."""
    for test, arm in (("x.shape[-1] <= 512", "            offset += n\n"),
                      ("has_triton()", "            offset += n\n        other_kernel[(1,)](tables, out, 128, BLOCK=128)\n")):
        meta = META.replace("    if has_triton():", f"    if {test}:").replace("            offset += n\n", arm)
        report = analyze(write_tree(tmp_path, _tree(meta=meta)), AnalyzeOptions(jobs=1))
        kernel = next(f for f in report.findings if f.path == "server/pkg/meta.py" and f.rule == "OPS030")
        assert kernel.reach == "runs", test
