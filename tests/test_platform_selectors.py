"""Backends only the project's other platforms select by name (analyzer/context/platform_selectors.py): a vLLM-style
project with an NPU platform whose `get_attn_backend_cls` returns SDPA and a CUDA platform whose same method returns a
block-sparse backend built on a separately built kernel package (Triton kernels and a CUDA extension). On Ascend the NPU platform is the one in use, so the
kernels (imported only by that backend, whose module other code imports for a helper) never run there."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.platform_selectors import platform_methods
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import write_tree

INTERFACE = '''import enum


class AttentionBackendEnum(enum.Enum):
    SPARSE_ATTN = enum.auto()
    SAGE_ATTN = enum.auto()
    TORCH_SDPA = enum.auto()


class Platform:
    device_type: str

    @classmethod
    def get_attn_backend_cls(cls, selected_backend, head_size):
        raise NotImplementedError
'''

CUDA = '''import torch

from pkg.platforms.interface import AttentionBackendEnum, Platform


class CudaPlatform(Platform):
    device_name: str = "cuda"
    device_type: str = "cuda"

    @classmethod
    def get_attn_backend_cls(cls, selected_backend, head_size):
        if selected_backend == AttentionBackendEnum.SAGE_ATTN:
            return "pkg.attention.backends.sage_attn.SageAttentionBackend"
        elif selected_backend == AttentionBackendEnum.SPARSE_ATTN:
            return "pkg.attention.backends.sparse_attn.SparseAttentionBackend"
        return "pkg.attention.backends.sdpa.SDPABackend"

    @classmethod
    def get_worker_cls(cls):
        return "pkg.worker.default_worker.DefaultWorker"
'''

NPU_CONSTANT = '''from pkg.platforms.interface import Platform


class NPUPlatform(Platform):
    device_name: str = "npu"
    device_type: str = "npu"
    device_control_env_var: str = "ASCEND_RT_VISIBLE_DEVICES"

    @classmethod
    def get_attn_backend_cls(cls, selected_backend, head_size):
        return "pkg.attention.backends.sdpa.SDPABackend"

    @classmethod
    def get_worker_cls(cls):
        return "pkg.worker.ascend_worker.AscendWorker"
'''

DEFAULT_WORKER = '''import torch


class DefaultWorker:
    def sync(self):
        torch.cuda.synchronize()
'''

ASCEND_WORKER = '''import torch


class AscendWorker:
    def sync(self):
        torch.npu.synchronize()
'''

# the NPU worker builds on the default one: that module runs on Ascend too
ASCEND_SUBCLASS = '''from pkg.worker.default_worker import DefaultWorker


class AscendWorker(DefaultWorker):
    pass
'''

NPU_LADDER = NPU_CONSTANT.replace('''        return "pkg.attention.backends.sdpa.SDPABackend"''', '''        if selected_backend == AttentionBackendEnum.SPARSE_ATTN:
            return "pkg.attention.backends.sparse_attn.SparseAttentionBackend"
        return "pkg.attention.backends.sdpa.SDPABackend"''').replace(
    "import Platform", "import AttentionBackendEnum, Platform")

NPU_INHERITED = NPU_CONSTANT.replace('''        return "pkg.attention.backends.sdpa.SDPABackend"''',
                                     '''        return super().get_attn_backend_cls(selected_backend, head_size)''')

PLATFORMS = '''import importlib


def _qualname():
    try:
        import torch_npu  # noqa: F401
        return "pkg.platforms.npu.NPUPlatform"
    except ImportError:
        return "pkg.platforms.cuda.CudaPlatform"


module, name = _qualname().rsplit(".", 1)
current_platform = getattr(importlib.import_module(module), name)()
'''

SELECTOR = '''import importlib
import os

from pkg.platforms import current_platform
from pkg.platforms.interface import AttentionBackendEnum


def get_attn_backend(head_size):
    name = os.environ.get("PKG_ATTENTION_BACKEND")
    selected = AttentionBackendEnum[name] if name else None
    module, cls = current_platform.get_attn_backend_cls(selected, head_size).rsplit(".", 1)
    return getattr(importlib.import_module(module), cls)
'''

SDPA = '''import torch.nn.functional as F


class SDPABackend:
    @staticmethod
    def forward(q, k, v):
        return F.scaled_dot_product_attention(q, k, v)
'''

SPARSE = '''import torch

from pkg_kernels.block_sparse import block_sparse_forward


def tile_indices(seq_len, tile):
    return torch.arange(seq_len).view(-1, tile)


class SparseAttentionBackend:
    @staticmethod
    def forward(q, k, v):
        return block_sparse_forward(q, k, v, torch.empty_like(q))
'''

SAGE = '''import torch
from sageattention import sageattn


class SageAttentionBackend:
    @staticmethod
    def forward(q, k, v):
        out = sageattn(q, k, v, tensor_layout="HND", is_causal=False)
        torch.cuda.synchronize()
        return out
'''

KERNEL = '''import triton
import triton.language as tl

from pkg_kernels import _C


@triton.jit
def _block_sparse_fwd_kernel(Q, K, V, Out, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    s = tl.load(Q + offs) * tl.load(K + offs)
    p = tl.exp(s - tl.max(s, 0))
    tl.store(Out + offs, p * tl.load(V + offs))


def block_sparse_forward(q, k, v, out):
    _block_sparse_fwd_kernel[(triton.cdiv(q.numel(), 128),)](q, k, v, out, BLOCK=128)
    return out


def block_sparse_backward(q, k, grad):
    return _C.block_sparse_bwd(q, k, grad)
'''

KERNEL_SETUP = '''from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="pkg-kernels",
    ext_modules=[CUDAExtension("pkg_kernels._C", ["csrc/block_sparse.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
'''

NATIVE = '''#include <torch/extension.h>

__global__ void block_sparse_bwd_kernel(const float* q, const float* k, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = q[i] * k[i];
}

torch::Tensor block_sparse_bwd(torch::Tensor q, torch::Tensor k, torch::Tensor grad) {
    auto out = torch::empty_like(q);
    int n = q.numel();
    block_sparse_bwd_kernel<<<(n + 255) / 256, 256>>>(q.data_ptr<float>(), k.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("block_sparse_bwd", &block_sparse_bwd);
}
'''

DENOISING = '''import torch

from pkg.attention.backends.sparse_attn import tile_indices
from pkg.attention.selector import get_attn_backend


def denoise(latents, steps):
    backend = get_attn_backend(64)
    tiles = tile_indices(latents.shape[1], 4)
    for _ in range(steps):
        latents = backend.forward(latents, latents, latents)
    return latents, tiles
'''

GENERATE = '''import torch

from pkg.pipelines.denoising import denoise


def main():
    latents = torch.randn(1, 64, 128, 64)
    print(denoise(latents, 4))


if __name__ == "__main__":
    main()
'''


def _tree(tmp_path, npu: str, ascend_worker: str = ASCEND_WORKER):
    return write_tree(tmp_path, {
        "pkg/worker/__init__.py": "", "pkg/worker/default_worker.py": DEFAULT_WORKER,
        "pkg/worker/ascend_worker.py": ascend_worker,
        "pyproject.toml": "[project]\nname = \"pkg\"\ndependencies = [\"torch\", \"triton\"]\n",
        "pkg/__init__.py": "", "pkg/attention/__init__.py": "", "pkg/attention/backends/__init__.py": "",
        "pkg/pipelines/__init__.py": "", "kernels/pkg_kernels/__init__.py": "",
        "kernels/setup.py": KERNEL_SETUP, "kernels/csrc/block_sparse.cu": NATIVE,
        "pkg/platforms/__init__.py": PLATFORMS, "pkg/platforms/interface.py": INTERFACE,
        "pkg/platforms/cuda.py": CUDA, "pkg/platforms/npu.py": npu,
        "pkg/attention/selector.py": SELECTOR, "pkg/attention/backends/sdpa.py": SDPA,
        "pkg/attention/backends/sparse_attn.py": SPARSE, "pkg/attention/backends/sage_attn.py": SAGE,
        "kernels/pkg_kernels/block_sparse.py": KERNEL, "pkg/pipelines/denoising.py": DENOISING, "generate.py": GENERATE,
    })


def _kernel(report):
    return next(f for f in report.findings if f.rule == "OPS030" and f.path == "kernels/pkg_kernels/block_sparse.py")


def _native(report):
    return [f for f in report.findings if f.path in {"kernels/csrc/block_sparse.cu", "kernels/setup.py"}]


def test_a_kernel_only_a_backend_the_npu_platform_never_selects_imports_is_other_backend(tmp_path):
    """NPUPlatform.get_attn_backend_cls returns SDPA whatever is selected: the block-sparse kernels, imported only by
    the backend only CudaPlatform returns, are other-backend (the backend's module is imported by the denoising stage
    for a helper, so it loads, but its kernels run only where it is selected); the sage backend, loaded only by its
    name, is other-backend too; SDPA, the NPU platform's one choice, runs."""
    report = analyze(_tree(tmp_path, NPU_CONSTANT), AnalyzeOptions(jobs=1))
    kernel = _kernel(report)
    assert kernel.reach == "other-backend" and kernel.severity == "info"
    assert "pkg/attention/backends/sparse_attn.py" in kernel.reach_reason
    assert "NPU platform uses another backend" in kernel.reach_reason
    sage = [f for f in report.findings if f.path == "pkg/attention/backends/sage_attn.py" and f.role == "product"]
    assert sage and all(f.reach == "other-backend" for f in sage)
    assert "NPUPlatform (pkg/platforms/npu.py) uses pkg.attention.backends.sdpa.SDPABackend" in sage[0].reach_reason
    assert "CudaPlatform.get_attn_backend_cls()" in sage[0].reach_reason
    sdpa = [f for f in report.findings if f.path == "pkg/attention/backends/sdpa.py"]
    assert sdpa and all(f.reach == "runs" for f in sdpa)  # not "loaded by name only": the NPU platform picks it
    # the kernel package's CUDA extension, loaded only by that kernel module, and its own build: nothing required
    native = _native(report)
    assert {f.rule for f in native} >= {"OPS001", "OPS020"}
    assert all(f.reach != "runs" and f.severity == "info" for f in native)
    assert all("only other platforms select" in f.reach_reason for f in native)
    assert report.verdict.verdict == "feasible"
    worker = next(f for f in report.findings if f.path == "pkg/worker/default_worker.py")
    assert worker.reach == "other-backend" and "NPUPlatform.get_worker_cls" not in worker.reach_reason
    assert "CudaPlatform.get_worker_cls() returns 'pkg.worker.default_worker.DefaultWorker'" in worker.reach_reason


def test_a_backend_the_npu_platform_also_returns_keeps_its_reach(tmp_path):
    """The NPU platform's own ladder returns the block-sparse backend when it is selected: its kernels may run on
    Ascend, as before; an NPU method returning something other than a string (the base class's choice) decides
    nothing."""
    report = analyze(_tree(tmp_path, NPU_LADDER), AnalyzeOptions(jobs=1))
    assert _kernel(report).reach == "runs"
    assert any(f.rule == "OPS001" and f.reach == "runs" for f in _native(report))
    report = analyze(_tree(tmp_path, NPU_INHERITED), AnalyzeOptions(jobs=1))
    assert _kernel(report).reach == "runs"


def test_an_npu_platform_only_a_test_defines_selects_nothing(tmp_path):
    """A test's stand-in NPU platform is not the product's: the CUDA platform's backends keep their reach."""
    tree = _tree(tmp_path, NPU_CONSTANT)
    (tree / "pkg/platforms/npu.py").unlink()
    write_tree(tree, {"tests/test_platforms.py": NPU_CONSTANT})
    report = analyze(tree, AnalyzeOptions(jobs=1))
    assert _kernel(report).reach == "runs"


def test_a_module_the_npu_code_imports_is_no_unselected_backend(tmp_path):
    """The NPU platform's worker subclasses the worker only CudaPlatform returns: that module loads on Ascend."""
    report = analyze(_tree(tmp_path, NPU_CONSTANT, ASCEND_SUBCLASS), AnalyzeOptions(jobs=1))
    worker = next(f for f in report.findings if f.path == "pkg/worker/default_worker.py")
    assert "only other platforms select" not in (worker.reach_reason or "")
    assert _kernel(report).reach == "other-backend"  # the attention backends are still decided


def _methods(source: str):
    return platform_methods(parsing.parse("python", source.encode("utf-8")), source)


def test_platform_classes_are_read_by_the_accelerator_they_name():
    """A class attribute naming an accelerator (a string or an enum member), or calls of torch.npu, make a platform
    class; a class naming none, or a method returning an f-string, is read as such."""
    assert _methods(CUDA)[:1] == [("CudaPlatform", "cuda", 11, "get_attn_backend_cls", (
        "pkg.attention.backends.sage_attn.SageAttentionBackend",
        "pkg.attention.backends.sparse_attn.SparseAttentionBackend", "pkg.attention.backends.sdpa.SDPABackend"), True)]
    assert _methods(NPU_CONSTANT)[0][:2] == ("NPUPlatform", "npu")
    enum_named = NPU_CONSTANT.replace('    device_name: str = "npu"\n    device_type: str = "npu"\n',
                                      "    _enum = PlatformEnum.ROCM\n")
    assert _methods(enum_named)[0][1] == "rocm"
    by_calls = NPU_CONSTANT.replace('    device_name: str = "npu"\n    device_type: str = "npu"\n',
                                    '    device_type: str = ""\n\n    def set_device(cls, d):\n        torch.npu.set_device(d)\n')
    assert _methods(by_calls)[0][1] == "npu"
    unnamed = NPU_CONSTANT.replace('"npu"', '"accelerator"')
    assert _methods(unnamed) == []
    formatted = CUDA.replace('return "pkg.attention.backends.sdpa.SDPABackend"', 'return f"pkg.{head_size}.Backend"')
    assert _methods(formatted)[0][5] is False


def test_kernels_in_a_folder_without_init_inside_the_kernel_package_follow_their_importer(tmp_path):
    """The kernel package keeps its Triton kernels in a folder without __init__.py (a namespace package under
    pkg_kernels) and lives under python/ in its own project folder: `pkg_kernels.triton_kernels.block_sparse` is
    still that file, so it is what only the unselected backend imports (round 18)."""
    tree = _tree(tmp_path, NPU_CONSTANT)
    (tree / "kernels/pkg_kernels/block_sparse.py").unlink()
    (tree / "kernels/pkg_kernels/__init__.py").unlink()
    write_tree(tree, {
        "kernels/python/pkg_kernels/__init__.py": "",
        "kernels/python/pkg_kernels/triton_kernels/block_sparse.py": KERNEL,
        "pkg/attention/backends/sparse_attn.py": SPARSE.replace(
            "from pkg_kernels.block_sparse import", "from pkg_kernels.triton_kernels.block_sparse import"),
    })
    report = analyze(tree, AnalyzeOptions(jobs=1))
    kernel = next(f for f in report.findings
                  if f.rule == "OPS030" and f.path == "kernels/python/pkg_kernels/triton_kernels/block_sparse.py")
    assert kernel.reach == "other-backend" and kernel.severity == "info"
    assert "pkg/attention/backends/sparse_attn.py" in kernel.reach_reason
