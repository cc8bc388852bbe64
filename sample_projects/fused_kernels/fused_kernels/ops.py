import torch

from fused_kernels import _C


class FusedRMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return _C.rms_norm(x, weight, eps)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        variance = x.pow(2).mean(-1, keepdim=True)
        return grad * weight * torch.rsqrt(variance + ctx.eps), None, None


def rms_norm(x, weight, eps=1e-6):
    return FusedRMSNorm.apply(x, weight, eps)


def gather_points(points, idx):
    return _C.gather_points(points.contiguous(), idx.int())
