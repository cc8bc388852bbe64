"""Dtype asserts and device buffers that only serve an autograd Function's kernel call are sites of the Function's
finding (OPS040), not findings of their own (analyzer/context/kernel_contract.py)."""

from tests.helpers import scan

FUNCTION = '''import torch
from torch.utils.cpp_extension import load
wkv_cuda = load(name="wkv", sources=["wkv_op.cpp", "wkv_cuda.cu"])
class WKV(torch.autograd.Function):
    @staticmethod
    def forward(ctx, r, k):
        assert r.dtype == torch.bfloat16
        assert k.dtype == torch.bfloat16
        y = torch.empty(r.shape, device='cuda')
        wkv_cuda.forward(r, k, y)
        return y
    @staticmethod
    def backward(ctx, gy):
        gr = torch.zeros(gy.shape, device='cuda').contiguous()
        gk = torch.zeros(gy.shape, device='cuda')
        gk.add_(1)
        wkv_cuda.backward(gy, gr, gk)
        gr = torch.sum(gr, dim=0)
        return gr, gk
'''


def test_contract_sites_fold_into_the_functions_finding():
    findings = scan(FUNCTION, "python", path="model.py").findings
    function = next(f for f in findings if f.rule == "OPS040")
    assert function.sites == ["model.py:4", "model.py:7", "model.py:8", "model.py:9", "model.py:14"]
    assert "not counted on their own" in function.message.en and "不单独计数" in function.message.zh
    assert not [f for f in findings if f.rule == "PRC005"]
    # gk is written by PyTorch code (gk.add_) before the kernel takes it: it keeps its own finding
    assert [f.line for f in findings if f.rule == "DEV001"] == [15]


def test_outside_a_kernel_function_nothing_folds():
    plain = FUNCTION.replace("wkv_cuda.forward(r, k, y)", "y.copy_(r * k)").replace(
        "wkv_cuda.backward(gy, gr, gk)", "gr.copy_(gy)")
    findings = scan(plain, "python", path="model.py").findings
    assert not [f for f in findings if f.rule == "OPS040"]
    assert [f.line for f in findings if f.rule == "PRC005"] == [7, 8]
    assert [f.line for f in findings if f.rule == "DEV001"] == [9, 14, 15]


def test_torch_own_operators_are_no_kernel():
    code = FUNCTION.replace("wkv_cuda.forward(r, k, y)", "torch.ops.aten.mm(r, k)").replace(
        "wkv_cuda.backward(gy, gr, gk)", "torch.ops.aten.add(gy, gr)")
    findings = scan(code, "python", path="model.py").findings
    assert not [f for f in findings if f.rule == "OPS040"]
    assert [f.line for f in findings if f.rule == "PRC005"] == [7, 8]


def test_a_triton_launchs_buffers_stay():
    """triton-ascend keeps a Triton kernel and its wrapper: the wrapper's buffer on "cuda" is still to change."""
    code = '''import torch
class Multihot(torch.autograd.Function):
    @staticmethod
    def forward(ctx, indices):
        out = torch.empty(indices.shape, dtype=torch.bool, device="cuda")
        _multihot_kernel[(4,)](indices, out)
        return out
'''
    findings = scan(code, "python", path="m.py").findings
    assert [f.line for f in findings if f.rule == "DEV001"] == [5]
    assert next(f for f in findings if f.rule == "OPS040").sites == []
