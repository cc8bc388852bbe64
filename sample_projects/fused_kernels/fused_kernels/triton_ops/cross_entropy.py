import torch
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 32768}, num_warps=16, num_stages=2),
        triton.Config({"BLOCK_SIZE": 65536}, num_warps=32, num_stages=1),
    ],
    key=["n_cols"],
)
@triton.jit
def _cross_entropy_fwd_kernel(logits_ptr, labels_ptr, loss_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    logits = tl.load(logits_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
    label = tl.load(labels_ptr + row)
    m = tl.max(logits, 0)
    lse = m + libdevice.log(tl.sum(tl.exp(logits - m), 0))
    target = tl.load(logits_ptr + row * stride + label).to(tl.float32)
    tl.store(loss_ptr + row, lse - target)


class TritonCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, labels):
        loss = torch.empty(logits.shape[0], device=logits.device, dtype=torch.float32)
        _cross_entropy_fwd_kernel[(logits.shape[0],)](logits, labels, loss, logits.stride(0), logits.shape[1])
        return loss.mean()

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("training uses torch.nn.functional.cross_entropy")
