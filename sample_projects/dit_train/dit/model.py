import math

import numpy as np
import torch
import torch.nn as nn
from apex.normalization import FusedLayerNorm

from dit.attention import attention


def timestep_embedding(t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(0, half, dtype=torch.float64) / half).to(t.device)
    args = t[:, None].double() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1).float()


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(end)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def apply_rope(x, freqs_cis):
    x_ = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(x_ * freqs_cis).flatten(3).type_as(x)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        norm = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return norm.type_as(x) * self.weight


class DiTBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm = RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.ada = nn.Linear(dim, 2 * dim)

    def forward(self, x, c):
        shift, scale = self.ada(c).chunk(2, dim=-1)
        assert shift.dtype == torch.float32
        h = self.norm(x) * (1 + scale[:, None]) + shift[:, None]
        b, s, _ = h.shape
        q, k, v = self.qkv(h).view(b, s, 3, self.heads, -1).unbind(2)
        return x + attention(q, k, v).reshape(b, s, -1)


class GaussianDiffusion:
    def __init__(self, steps=1000):
        betas = np.linspace(1e-4, 0.02, steps, dtype=np.float64)
        self.alphas_cumprod = np.cumprod(1.0 - betas)

    def extract(self, t, shape):
        out = torch.from_numpy(self.alphas_cumprod).to(device=t.device)[t].float()
        return out.view(-1, *([1] * (len(shape) - 1)))


def as_timestep_tensor(timesteps, sample):
    is_mps = sample.device.type == "mps"
    dtype = torch.float32 if is_mps else torch.float64
    return torch.tensor([timesteps], dtype=dtype, device=sample.device)


def position_table(dim, device):
    table_dtype = torch.float64
    return torch.arange(0, dim, 2, dtype=table_dtype, device=device) / dim


class FinalLayer(nn.Module):
    """DiT's output projection, normalised with apex's fused LayerNorm."""

    def __init__(self, dim, out_dim):
        super().__init__()
        self.norm = FusedLayerNorm(dim, elementwise_affine=False)
        self.proj = nn.Linear(dim, out_dim)

    def forward(self, x):
        return self.proj(self.norm(x))
