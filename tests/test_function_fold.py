"""One extension op, one item (domains/custom_ops/function_fold.py; round 23 A1 36, class C9): the autograd Functions
calling `<ext>.<op>` of the project's own extension fold into the kernel finding of that op as sites; a Function
whose kernel is elsewhere (Triton) or whose op no binding of the project names keeps its own finding."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

# StyleGAN2's fused_act layout: the binding file defines the bound function, which calls the .cu's launcher
BINDING = ("#include <torch/extension.h>\n"
           "torch::Tensor fused_act_op(const torch::Tensor& x, const torch::Tensor& b);\n"
           "torch::Tensor fused_act(const torch::Tensor& x, const torch::Tensor& b) {\n"
           "  return fused_act_op(x, b);\n}\n"
           "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"fused_act\", &fused_act, \"fused act\");\n}\n")
KERNEL = ("#include <torch/extension.h>\n"
          "__global__ void fused_act_kernel(float* out, const float* x, const float* b, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) { out[i] = x[i] + b[i]; }\n}\n"
          "torch::Tensor fused_act_op(const torch::Tensor& x, const torch::Tensor& b) {\n"
          "  auto out = torch::empty_like(x);\n  fused_act_kernel<<<1, 32>>>(nullptr, nullptr, nullptr, 0);\n"
          "  return out;\n}\n")
WRAPPER = '''import os

import torch
from torch.utils.cpp_extension import load

module_path = os.path.dirname(__file__)
fused_ext = load('fused', sources=[os.path.join(module_path, 'src', 'fused_act.cpp'),
                                   os.path.join(module_path, 'src', 'fused_act_kernel.cu')])


class FusedActBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, g, b):
        return fused_ext.fused_act(g, b)


class FusedAct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, b):
        return fused_ext.fused_act(x, b)

    @staticmethod
    def backward(ctx, g):
        return FusedActBackward.apply(g, g), None


OUT = FusedAct.apply(torch.ones(2), torch.ones(2))
'''


def _findings(tmp_path, wrapper: str, binding: str = BINDING):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops/src/fused_act.cpp": binding,
                          "pkg/ops/src/fused_act_kernel.cu": KERNEL, "pkg/ops/fused_act.py": wrapper,
                          "run.py": "import pkg.ops.fused_act\n"})
    return analyze(tmp_path, AnalyzeOptions(jobs=1)).findings


def test_the_functions_calling_the_projects_extension_op_are_sites_of_its_kernel(tmp_path):
    found = _findings(tmp_path, WRAPPER)
    assert not [f for f in found if f.rule == "OPS040"]
    kernel = next(f for f in found if f.rule == "OPS001")
    assert kernel.path == "pkg/ops/src/fused_act_kernel.cu"
    assert {"pkg/ops/fused_act.py:11", "pkg/ops/fused_act.py:17"} <= set(kernel.sites)
    assert "FusedActBackward, FusedAct; listed as sites" in kernel.message.en


def test_a_triton_launch_or_an_op_no_binding_names_keeps_the_function_item(tmp_path):
    triton = WRAPPER.replace("import torch\n", "import torch\nimport triton\nimport triton.language as tl\n\n\n"
                             "@triton.jit\ndef _bwd(X):\n    tl.store(X, tl.load(X))\n", 1).replace(
        "        return fused_ext.fused_act(g, b)\n", "        _bwd[(1,)](g)\n        return g\n")
    functions = {f.symbol.split(" ", 1)[0] for f in _findings(tmp_path / "a", triton) if f.rule == "OPS040"}
    assert functions == {"FusedActBackward"}  # FusedAct still folds: its own launch is the extension op
    unbound = BINDING.replace('m.def("fused_act", &fused_act, "fused act");', 'm.def("other_act", &fused_act);')
    functions = {f.symbol.split(" ", 1)[0] for f in _findings(tmp_path / "b", WRAPPER, unbound) if f.rule == "OPS040"}
    assert functions == {"FusedActBackward", "FusedAct"}


def test_the_function_folds_into_a_blocker_kernel_too(tmp_path):
    """A kernel no torch_npu operator covers (OPS002, a blocker) holds its Function's item the same way: OpenPCDet's
    autograd Functions over OPS002 kernels were counted beside them (round 36 A1 class 4)."""
    body = ("  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n  int cnt = 0;\n"
            "  for (int k = 0; k < n; ++k) {\n    float d = x[k] - x[i];\n"
            "    if (d * d < b[0]) { if (cnt == 0) { for (int l = 0; l < 8; ++l) out[i * 8 + l] = k; }\n"
            "      out[i * 8 + cnt] = k; ++cnt; if (cnt >= 8) break; }\n  }\n")
    kernel = KERNEL.replace("  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) { out[i] = x[i] + b[i]; }\n", body)
    renamed = {"pkg/__init__.py": "", "pkg/ops/src/fused_act.cpp": BINDING, "pkg/ops/src/fused_act_kernel.cu": kernel,
               "pkg/ops/fused_act.py": WRAPPER, "run.py": "import pkg.ops.fused_act\n"}
    write_tree(tmp_path, {p.replace("fused_act", "bfs_cluster"): text.replace("fused_act", "bfs_cluster")
                          for p, text in renamed.items()})
    found = analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
    assert not [f for f in found if f.rule == "OPS040"]
    blocker = next(f for f in found if f.rule == "OPS002")
    assert {"pkg/ops/bfs_cluster.py:11", "pkg/ops/bfs_cluster.py:17"} <= set(blocker.sites)
