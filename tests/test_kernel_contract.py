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


MMCV_FUNCTION = '''import torch
from mmcv.utils import ext_loader
from torch.autograd.function import Function, once_differentiable
from torch.cuda.amp import custom_bwd, custom_fwd

ext_module = ext_loader.load_ext('_ext', ['ms_deform_attn_backward', 'ms_deform_attn_forward'])


class MultiScaleDeformableAttnFunction_fp16(Function):
    @staticmethod
    @custom_fwd(cast_inputs=torch.float16)
    def forward(ctx, value, shapes, locations, weights):
        return ext_module.ms_deform_attn_forward(value, shapes, locations, weights, im2col_step=64)

    @staticmethod
    @once_differentiable
    @custom_bwd
    def backward(ctx, grad_output):
        grad_value = torch.zeros_like(grad_output)
        ext_module.ms_deform_attn_backward(grad_output, grad_value)
        return grad_value
'''


def test_amp_decorators_of_a_kernel_function_go_with_it():
    """The AMP decorators of a Function that only launches mmcv's compiled ops (loaded with ext_loader.load_ext) go
    with the Function's port: sites of its OPS040, not DEV142 findings of their own; so does the import line whose
    names are only those decorators (DEV143)."""
    findings = scan(MMCV_FUNCTION, "python", path="attn.py").findings
    function = next(f for f in findings if f.rule == "OPS040")
    assert sorted(function.sites, key=lambda s: int(s.split(":")[1])) == ["attn.py:4", "attn.py:9", "attn.py:11", "attn.py:17"]
    assert not [f for f in findings if f.rule in {"DEV142", "DEV143"}]


def test_amp_decorators_of_a_pytorch_function_stay():
    code = MMCV_FUNCTION.replace("return ext_module.ms_deform_attn_forward(value, shapes, locations, weights, im2col_step=64)",
                                 "return value * weights").replace(
        "ext_module.ms_deform_attn_backward(grad_output, grad_value)", "grad_value.add_(grad_output)")
    findings = scan(code, "python", path="attn.py").findings
    assert not [f for f in findings if f.rule == "OPS040"]
    assert [f.line for f in findings if f.rule == "DEV142"] == [11, 17]
    assert [f.line for f in findings if f.rule == "DEV143"] == [4]
    # a name of the import used elsewhere keeps the import line a finding of its own
    used = MMCV_FUNCTION + "\n\n@custom_fwd\ndef helper(x):\n    return x\n"
    assert [f.line for f in scan(used, "python", path="attn.py").findings if f.rule == "DEV143"] == [4]
