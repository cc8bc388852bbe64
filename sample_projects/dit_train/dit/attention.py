"""Attention backends for the DiT blocks: flash-attn when installed, xformers, else PyTorch SDPA."""
import torch
import torch.nn.functional as F

try:
    from flash_attn import flash_attn_func, flash_attn_varlen_func
    HAS_FLASH = True
except ImportError:
    HAS_FLASH = False

try:
    import xformers.ops as xops
    from xformers.ops.fmha.attn_bias import BlockDiagonalMask
except ImportError:
    xops = None


def attention(q, k, v, backend="flash", causal=False, dropout_p=0.0):
    """q, k, v: (batch, seq, heads, head_dim)."""
    if backend == "flash" and HAS_FLASH:
        return flash_attn_func(q, k, v, dropout_p=dropout_p, causal=causal)
    if backend == "xformers" and xops is not None:
        return xops.memory_efficient_attention(q, k, v, p=dropout_p)
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=True):
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, is_causal=causal)
    return out.transpose(1, 2)


def packed_attention(q, k, v, seqlens):
    """Sequences of different lengths packed along the first axis."""
    if HAS_FLASH:
        cu = torch.tensor([0] + list(torch.cumsum(torch.tensor(seqlens), 0)), dtype=torch.int32, device=q.device)
        return flash_attn_varlen_func(q, k, v, cu, cu, max(seqlens), max(seqlens))
    bias = BlockDiagonalMask.from_seqlens(seqlens)
    return xops.memory_efficient_attention(q[None], k[None], v[None], attn_bias=bias)[0]


def reference_attention(q, k, v, scale):
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    return weights @ v
