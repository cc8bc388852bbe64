import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _swiglu_fwd_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    a = tl.load(a_ptr + row * stride + offs, mask=mask, other=0).to(tl.float32)
    b = tl.load(b_ptr + row * stride + offs, mask=mask, other=0)
    c = a * tl.sigmoid(a) * b
    tl.store(c_ptr + row * stride + offs, c, mask=mask)


def swiglu(a, b):
    c = torch.empty_like(a)
    n_rows, n_cols = a.shape
    _swiglu_fwd_kernel[(n_rows,)](a, b, c, a.stride(0), n_cols, BLOCK_SIZE=BLOCK)
    return c
