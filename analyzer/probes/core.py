"""Probes: for each pattern the knowledge base maps to a replacement, a reference implementation (what the CUDA
code computes, in plain PyTorch), the candidate replacements, realistic input shapes and tolerances per dtype.

The runner checks each candidate's availability, compares it with a float32 (or float64) reference, times it
against the reference on the same device, and notes CPU fallback. It writes calibration JSON, schema version "1".

This module imports only the standard library and (lazily) torch and torch_npu: `ascend-feasibility probe export`
copies it verbatim into a standalone script for hosts that cannot install the analyzer.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import importlib
import importlib.util
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

SCHEMA_VERSION = "1"
SIZES = ("small", "medium", "large")
DEVICE_CHOICES = ("auto", "npu", "cuda", "cpu")
DTYPE_NAMES = ("float64", "float32", "bfloat16", "float16")
SLOWER_FACTOR = 1.1  # a candidate slower than the reference by more than this is "slower"
# A candidate also passes when its error is at most this multiple of the reference implementation's own error at
# the same dtype: low-precision CUDA code carries that error too, so it is not the replacement's fault.
BASELINE_FACTOR = 2.0
WARMUP = 2
REPEATS = {"small": 10, "medium": 5, "large": 3}
# Fixed by the runner, not the probe: every tolerance is |candidate − reference| ≤ atol + rtol·|reference|.
TOLERANCE = {"float64": (1e-10, 1e-8), "float32": (1e-4, 1e-3), "bfloat16": (5e-2, 5e-2), "float16": (1e-2, 1e-2)}
FALLBACK_PATTERNS = ("fall back to run on the CPU", "npu_cpu_fallback", "not currently supported on the NPU backend")
# Compatibility table (torch_npu release → torch, CANN); filled in by `probe export`, passed in by the CLI.
COMPATIBILITY: list[dict] = []


# ---- probe definitions --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    name: str
    run: Callable  # (inputs: dict, torch) -> Tensor or tuple of Tensors, like the reference
    devices: tuple[str, ...] = ("cpu", "cuda", "npu")
    needs: str | None = None  # "module.attr" that must exist, e.g. "torch_npu.npu_rms_norm"
    dtype: str | None = None  # runs only at this dtype (a precision candidate), else at each of the probe's dtypes
    forward_only: bool = False  # no backward: compared on the forward output only
    setup: Callable | None = None  # (torch) -> undo callable, around the candidate's runs (switches such as HF32)
    calibrates: bool = True  # False: measured for information, not counted for the probe's rules


@dataclass(frozen=True)
class Probe:
    name: str
    rules: tuple[str, ...]  # knowledge-base codes this probe calibrates
    description: str
    shapes: dict  # size -> parameters of make_inputs
    make_inputs: Callable  # (params, dtype, device, generator, torch) -> dict of tensors
    reference: Callable  # (inputs, torch) -> outputs
    candidates: tuple[Candidate, ...]
    dtypes: tuple[str, ...] = ("float32", "bfloat16", "float16")
    grad_inputs: tuple[str, ...] = ()  # inputs that get gradients: the probe then checks forward + backward
    reference_dtype: str = "float32"  # the accuracy reference's dtype
    reference_on_cpu: bool = False  # compute the accuracy reference on the CPU (float64 needs it on NPU)
    regenerate_reference_inputs: bool = False  # build the reference's inputs in its dtype instead of converting
    tolerance: dict = field(default_factory=dict)  # dtype -> (atol, rtol), overriding TOLERANCE
    min_devices: int = 1


def _randn(shape, dtype, device, generator, torch, scale=1.0):
    return (torch.randn(shape, generator=generator, dtype=torch.float32) * scale).to(device=device, dtype=dtype)


# attention: q, k, v in the flash-attn layout (batch, seq, heads, head_dim); causal
def _attention_inputs(p, dtype, device, generator, torch):
    b, s, n, d = p["batch"], p["seq"], p["heads"], p["head_dim"]
    kv = p.get("kv_seq", s)
    return {
        "q": _randn((b, p.get("q_seq", s), n, d), dtype, device, generator, torch),
        "k": _randn((b, kv, n, d), dtype, device, generator, torch),
        "v": _randn((b, kv, n, d), dtype, device, generator, torch),
    }


def _manual_attention(inputs, torch, causal=True):
    q, k, v = (inputs[name].transpose(1, 2) for name in ("q", "k", "v"))
    scale = 1.0 / math.sqrt(q.shape[-1])
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    if causal:
        lq, lk = scores.shape[-2], scores.shape[-1]
        mask = torch.ones(lq, lk, dtype=torch.bool, device=scores.device).triu(lk - lq + 1)  # bottom-right aligned
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores.float(), dim=-1).to(q.dtype)
    return torch.matmul(weights, v).transpose(1, 2)


def _sdpa(inputs, torch, causal=True):
    q, k, v = (inputs[name].transpose(1, 2) for name in ("q", "k", "v"))
    if causal and q.shape[-2] != k.shape[-2]:
        lq, lk = q.shape[-2], k.shape[-2]
        keep = torch.ones(lq, lk, dtype=torch.bool, device=q.device).tril(lk - lq)
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    else:
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return out.transpose(1, 2)


def _npu_fusion_attention(inputs, torch, causal=True):
    import torch_npu

    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    kwargs = {"scale": 1.0 / math.sqrt(q.shape[-1]), "keep_prob": 1.0}
    if causal:
        kwargs["atten_mask"] = torch.ones(2048, 2048, dtype=torch.bool, device=q.device).triu(1)
        kwargs["sparse_mode"] = 3  # flash-attn's bottom-right alignment
    return torch_npu.npu_fusion_attention(q, k, v, q.shape[2], "BSND", **kwargs)[0]


def _npu_fused_infer_attention(inputs, torch):
    import torch_npu

    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    return torch_npu.npu_fused_infer_attention_score(
        q, k, v, num_heads=q.shape[2], input_layout="BSND", scale=1.0 / math.sqrt(q.shape[-1])
    )[0]


# RMSNorm, LLaMA style: upcast to float32, normalise, cast back, scale
def _norm_inputs(p, dtype, device, generator, torch):
    shape = (p["batch"], p["seq"], p["hidden"])
    return {"x": _randn(shape, dtype, device, generator, torch),
            "weight": (1 + _randn((p["hidden"],), torch.float32, "cpu", generator, torch, 0.1)).to(device=device, dtype=dtype),
            "bias": _randn((p["hidden"],), dtype, device, generator, torch, 0.1)}


EPS = 1e-6


def _rms_norm_reference(inputs, torch):
    x = inputs["x"]
    hidden = x.float()
    hidden = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + EPS)
    return inputs["weight"] * hidden.to(x.dtype)


def _layer_norm_reference(inputs, torch):
    x = inputs["x"].float()
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).pow(2).mean(-1, keepdim=True)
    out = (x - mean) * torch.rsqrt(var + 1e-5)
    return (out * inputs["weight"].float() + inputs["bias"].float()).to(inputs["x"].dtype)


# RoPE: the complex-arithmetic form LLaMA's CUDA code uses, on interleaved pairs
def _rope_inputs(p, dtype, device, generator, torch):
    b, s, n, d = p["batch"], p["seq"], p["heads"], p["head_dim"]
    freqs = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    angles = torch.outer(torch.arange(s, dtype=torch.float32), freqs)  # (s, d/2)
    return {"x": _randn((b, s, n, d), dtype, device, generator, torch),
            "cos": angles.cos().to(device), "sin": angles.sin().to(device)}


def _rope_complex(inputs, torch):
    x = inputs["x"]
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    rotation = torch.polar(torch.ones_like(inputs["cos"]), torch.atan2(inputs["sin"], inputs["cos"]))
    out = torch.view_as_real(pairs * rotation[None, :, None, :]).flatten(-2)
    return out.to(x.dtype)


def _rope_real(inputs, torch):
    x = inputs["x"]
    even, odd = x[..., 0::2], x[..., 1::2]
    cos = inputs["cos"][None, :, None, :].to(x.dtype)
    sin = inputs["sin"][None, :, None, :].to(x.dtype)
    return torch.stack((even * cos - odd * sin, odd * cos + even * sin), dim=-1).flatten(-2)


def _npu_rotary_mul(inputs, torch):
    import torch_npu

    x = inputs["x"]
    half = torch.cat((x[..., 0::2], x[..., 1::2]), dim=-1)  # de-interleave to the rotate_half layout
    cos = torch.cat((inputs["cos"], inputs["cos"]), dim=-1)[None, :, None, :].to(x.dtype)
    sin = torch.cat((inputs["sin"], inputs["sin"]), dim=-1)[None, :, None, :].to(x.dtype)
    out = torch_npu.npu_rotary_mul(half.contiguous(), cos, sin)
    d = x.shape[-1] // 2
    return torch.stack((out[..., :d], out[..., d:]), dim=-1).flatten(-2)


# gated activations: x = [a | b] on the last dimension
def _gated_inputs(p, dtype, device, generator, torch):
    return {"x": _randn((p["batch"], p["seq"], 2 * p["intermediate"]), dtype, device, generator, torch)}


def _swiglu_reference(inputs, torch):
    a, b = inputs["x"].chunk(2, dim=-1)
    return torch.nn.functional.silu(a) * b


def _geglu_reference(inputs, torch):
    hidden, gate = inputs["x"].chunk(2, dim=-1)  # diffusers' GEGLU: hidden * gelu(gate)
    return hidden * torch.nn.functional.gelu(gate)


def _npu_geglu(inputs, torch):
    import torch_npu

    return torch_npu.npu_geglu(inputs["x"], dim=-1, approximate=0, activate_left=False)[0]


# softmax + cross-entropy over a vocabulary
def _ce_inputs(p, dtype, device, generator, torch):
    tokens = p["batch"] * p["seq"]
    return {"logits": _randn((tokens, p["vocab"]), dtype, device, generator, torch, 2.0),
            "target": torch.randint(0, p["vocab"], (tokens,), generator=generator).to(device)}


def _ce_reference(inputs, torch):
    logp = torch.log_softmax(inputs["logits"].float(), dim=-1)
    return -logp.gather(1, inputs["target"][:, None]).mean()


# matmul: the float32 product (CUDA with TF32 off) against lower-precision candidates
def _matmul_inputs(p, dtype, device, generator, torch):
    return {"a": _randn((p["m"], p["k"]), dtype, device, generator, torch),
            "b": _randn((p["k"], p["n"]), dtype, device, generator, torch)}


def _matmul_as(dtype_name):
    def run(inputs, torch):
        dtype = getattr(torch, dtype_name)
        return torch.matmul(inputs["a"].to(dtype), inputs["b"].to(dtype))
    return run


def _hf32_on(torch):
    import torch_npu  # noqa: F401  (registers torch.npu)

    before = torch.npu.matmul.allow_hf32
    torch.npu.matmul.allow_hf32 = True

    def undo():
        torch.npu.matmul.allow_hf32 = before
    return undo


# float64 schedules and timestep embeddings (diffusion) computed in float32 on the device
def _schedule_inputs(p, dtype, device, generator, torch):
    steps = p["steps"]
    return {"betas": torch.linspace(1e-4, 0.02, steps, dtype=torch.float64).to(dtype=dtype, device=device if dtype != torch.float64 else "cpu"),
            "t": torch.randint(0, steps, (p["batch"],), generator=generator).to(device if dtype != torch.float64 else "cpu")}


def _schedule(inputs, torch):
    betas, t = inputs["betas"], inputs["t"]
    alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
    half = 128
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=betas.dtype, device=betas.device) / half)
    args = t[:, None].to(betas.dtype) * freqs[None]
    embedding = torch.cat((torch.cos(args), torch.sin(args)), dim=-1)
    return alphas_cumprod.sqrt(), (1 - alphas_cumprod).sqrt(), embedding


# one AdamW step over LLM-like parameters
def _adamw_inputs(p, dtype, device, generator, torch):
    shapes = [(p["hidden"], p["hidden"])] * p["layers"] + [(p["hidden"],)] * p["layers"]
    params = [_randn(s, dtype, device, generator, torch) for s in shapes]
    grads = [_randn(s, dtype, device, generator, torch, 0.01) for s in shapes]
    return {f"p{i}": t for i, t in enumerate(params)} | {f"g{i}": t for i, t in enumerate(grads)}


def _adamw_with(make_optimizer):
    def run(inputs, torch):
        count = len(inputs) // 2
        params = [torch.nn.Parameter(inputs[f"p{i}"].clone()) for i in range(count)]
        for i, param in enumerate(params):
            param.grad = inputs[f"g{i}"].clone()
        optimizer = make_optimizer(params, torch)
        for _ in range(3):
            optimizer.step()
        return tuple(param.detach() for param in params)
    return run


def _torch_adamw(params, torch):
    return torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01, foreach=False)


def _torch_adamw_fused(params, torch):
    return torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01, fused=True)


def _npu_fused_adamw(params, torch):
    import torch_npu

    return torch_npu.optim.NpuFusedAdamW(params, lr=1e-3, weight_decay=0.01)


ATTENTION_SHAPES = {  # LLM decoder blocks; medium/large also cover DiT-XL (1152 = 16 × 72) token counts
    "small": {"batch": 1, "seq": 128, "heads": 4, "head_dim": 64},
    "medium": {"batch": 2, "seq": 1024, "heads": 16, "head_dim": 128},
    "large": {"batch": 4, "seq": 4096, "heads": 32, "head_dim": 128},
}
DIFFUSION_ATTENTION_SHAPES = {  # DiT blocks: 16 heads of 72 (hidden 1152), latent tokens of 256², 512², 1024² images
    "small": {"batch": 2, "seq": 256, "heads": 16, "head_dim": 72},
    "medium": {"batch": 4, "seq": 1024, "heads": 16, "head_dim": 72},
    "large": {"batch": 8, "seq": 4096, "heads": 16, "head_dim": 72},
}
DECODE_SHAPES = {  # one new token against a KV cache
    "small": {"batch": 1, "q_seq": 1, "seq": 256, "kv_seq": 256, "heads": 8, "head_dim": 64},
    "medium": {"batch": 8, "q_seq": 1, "seq": 2048, "kv_seq": 2048, "heads": 32, "head_dim": 128},
    "large": {"batch": 32, "q_seq": 1, "seq": 8192, "kv_seq": 8192, "heads": 32, "head_dim": 128},
}
NORM_SHAPES = {
    "small": {"batch": 2, "seq": 128, "hidden": 1024},
    "medium": {"batch": 4, "seq": 2048, "hidden": 4096},
    "large": {"batch": 8, "seq": 4096, "hidden": 8192},
}
GATED_SHAPES = {
    "small": {"batch": 2, "seq": 128, "intermediate": 1024},
    "medium": {"batch": 4, "seq": 2048, "intermediate": 11008},
    "large": {"batch": 8, "seq": 4096, "intermediate": 14336},
}
ROPE_SHAPES = {
    "small": {"batch": 1, "seq": 128, "heads": 4, "head_dim": 64},
    "medium": {"batch": 2, "seq": 2048, "heads": 32, "head_dim": 128},
    "large": {"batch": 4, "seq": 8192, "heads": 32, "head_dim": 128},
}
CE_SHAPES = {
    "small": {"batch": 2, "seq": 64, "vocab": 8192},
    "medium": {"batch": 4, "seq": 1024, "vocab": 32000},
    "large": {"batch": 8, "seq": 2048, "vocab": 128256},
}
MATMUL_SHAPES = {
    "small": {"m": 256, "k": 512, "n": 256},
    "medium": {"m": 4096, "k": 4096, "n": 4096},
    "large": {"m": 8192, "k": 8192, "n": 8192},
}
SCHEDULE_SHAPES = {
    "small": {"steps": 1000, "batch": 16},
    "medium": {"steps": 1000, "batch": 256},
    "large": {"steps": 4000, "batch": 4096},
}
ADAMW_SHAPES = {
    "small": {"hidden": 256, "layers": 4},
    "medium": {"hidden": 2048, "layers": 8},
    "large": {"hidden": 4096, "layers": 16},
}

NPU = ("npu",)
PROBES: tuple[Probe, ...] = (
    Probe("attention-training", ("ATT001", "ATT010", "ATT050"),
          "Causal attention forward and backward in flash-attn's (batch, seq, heads, head_dim) layout.",
          ATTENTION_SHAPES, _attention_inputs, _manual_attention,
          (Candidate("torch.nn.functional.scaled_dot_product_attention", _sdpa),
           Candidate("torch_npu.npu_fusion_attention", _npu_fusion_attention, NPU, "torch_npu.npu_fusion_attention")),
          grad_inputs=("q", "k", "v"), tolerance={"bfloat16": (6e-2, 6e-2), "float16": (2e-2, 2e-2)}),
    Probe("attention-diffusion", ("ATT010", "ATT050"),
          "Bidirectional (non-causal) attention of DiT blocks, head_dim 72, forward and backward.",
          DIFFUSION_ATTENTION_SHAPES, _attention_inputs, functools.partial(_manual_attention, causal=False),
          (Candidate("torch.nn.functional.scaled_dot_product_attention", functools.partial(_sdpa, causal=False)),
           Candidate("torch_npu.npu_fusion_attention", functools.partial(_npu_fusion_attention, causal=False), NPU,
                     "torch_npu.npu_fusion_attention")),
          grad_inputs=("q", "k", "v"), tolerance={"bfloat16": (6e-2, 6e-2), "float16": (2e-2, 2e-2)}),
    Probe("attention-inference", ("ATT003", "ATT020"),
          "Decode-step attention: one query token against a KV cache, forward only.",
          DECODE_SHAPES, _attention_inputs, _manual_attention,
          (Candidate("torch.nn.functional.scaled_dot_product_attention", _sdpa),
           Candidate("torch_npu.npu_fused_infer_attention_score", _npu_fused_infer_attention, NPU,
                     "torch_npu.npu_fused_infer_attention_score"),
           Candidate("torch_npu.npu_fusion_attention", _npu_fusion_attention, NPU, "torch_npu.npu_fusion_attention")),
          tolerance={"bfloat16": (6e-2, 6e-2), "float16": (2e-2, 2e-2)}),
    Probe("rms-norm", ("PRC020",), "LLaMA RMSNorm (float32 upcast inside) forward and backward.",
          NORM_SHAPES, _norm_inputs, _rms_norm_reference,
          (Candidate("torch.nn.functional.rms_norm",
                     lambda i, torch: torch.nn.functional.rms_norm(i["x"], (i["x"].shape[-1],), i["weight"], EPS),
                     needs="torch.nn.functional.rms_norm"),
           Candidate("torch_npu.npu_rms_norm", lambda i, torch: __import__("torch_npu").npu_rms_norm(i["x"], i["weight"], EPS)[0],
                     NPU, "torch_npu.npu_rms_norm")),
          grad_inputs=("x", "weight")),
    Probe("layer-norm", (), "LayerNorm forward and backward against a hand-written float32 one.",
          NORM_SHAPES, _norm_inputs, _layer_norm_reference,
          (Candidate("torch.nn.functional.layer_norm",
                     lambda i, torch: torch.nn.functional.layer_norm(i["x"], (i["x"].shape[-1],), i["weight"], i["bias"])),
           Candidate("torch_npu.npu_layer_norm_eval",
                     lambda i, torch: __import__("torch_npu").npu_layer_norm_eval(i["x"], (i["x"].shape[-1],), i["weight"], i["bias"]),
                     NPU, "torch_npu.npu_layer_norm_eval", forward_only=True)),
          grad_inputs=("x", "weight", "bias")),
    Probe("rope", ("PRC030",), "Rotary embedding: complex arithmetic (LLaMA) against real cos/sin tables.",
          ROPE_SHAPES, _rope_inputs, _rope_complex,
          (Candidate("real cos/sin (plain PyTorch)", _rope_real),
           Candidate("torch_npu.npu_rotary_mul", _npu_rotary_mul, NPU, "torch_npu.npu_rotary_mul")),
          grad_inputs=("x",)),
    Probe("swiglu", (), "SwiGLU: silu(a) · b for x = [a | b], forward and backward.",
          GATED_SHAPES, _gated_inputs, _swiglu_reference,
          (Candidate("torch_npu.npu_swiglu", lambda i, torch: __import__("torch_npu").npu_swiglu(i["x"], dim=-1),
                     NPU, "torch_npu.npu_swiglu"),),
          grad_inputs=("x",)),
    Probe("geglu", (), "GEGLU (diffusers): hidden · gelu(gate) for x = [hidden | gate], forward and backward.",
          GATED_SHAPES, _gated_inputs, _geglu_reference,
          (Candidate("torch_npu.npu_geglu", _npu_geglu, NPU, "torch_npu.npu_geglu"),),
          grad_inputs=("x",)),
    Probe("cross-entropy", (), "Softmax cross-entropy over an LLM vocabulary, forward and backward.",
          CE_SHAPES, _ce_inputs, _ce_reference,
          (Candidate("torch.nn.functional.cross_entropy",
                     lambda i, torch: torch.nn.functional.cross_entropy(i["logits"], i["target"])),),
          grad_inputs=("logits",)),
    Probe("matmul-precision", ("PRC010",), "Matmul in float32 against bfloat16, float16 and HF32 (Ascend's TF32).",
          MATMUL_SHAPES, _matmul_inputs, _matmul_as("float32"),
          (Candidate("matmul bfloat16", _matmul_as("bfloat16"), dtype="bfloat16", calibrates=False),
           Candidate("matmul float16", _matmul_as("float16"), dtype="float16", calibrates=False),
           Candidate("matmul float32 with HF32", _matmul_as("float32"), NPU, "torch_npu.npu", dtype="float32", setup=_hf32_on)),
          dtypes=("float32",), tolerance={"bfloat16": (0.5, 2e-2), "float16": (0.1, 5e-3), "float32": (2e-2, 1e-2)}),
    Probe("float64-to-float32", ("PRC001", "PRC006", "PRC007"),
          "Diffusion schedule and timestep embedding in float32 on the device against float64 on the CPU.",
          SCHEDULE_SHAPES, _schedule_inputs, _schedule,
          (Candidate("float32 on the device", _schedule, dtype="float32"),),
          dtypes=("float32",), reference_dtype="float64", reference_on_cpu=True, regenerate_reference_inputs=True,
          tolerance={"float32": (1e-3, 1e-3)}),
    Probe("adamw-step", (), "Three AdamW steps over LLM-like parameters (float32).",
          ADAMW_SHAPES, _adamw_inputs, _adamw_with(_torch_adamw),
          (Candidate("torch.optim.AdamW(fused=True)", _adamw_with(_torch_adamw_fused)),
           Candidate("torch_npu.optim.NpuFusedAdamW", _adamw_with(_npu_fused_adamw), NPU, "torch_npu.optim.NpuFusedAdamW")),
          dtypes=("float32",), tolerance={"float32": (1e-5, 1e-4)}),
    Probe("collectives", ("DST001", "DST020"),
          "all_reduce (SUM, AVG), all_gather and reduce_scatter across the devices of this host.",
          {"small": {"numel": 1 << 16}, "medium": {"numel": 1 << 22}, "large": {"numel": 1 << 26}},
          lambda p, dtype, device, generator, torch: {}, lambda inputs, torch: (),
          (Candidate("hccl/nccl collectives", lambda inputs, torch: ()),), dtypes=("float32",), min_devices=2),
)


def probe_names() -> list[str]:
    return [probe.name for probe in PROBES]


def listing() -> list[str]:
    lines = []
    for probe in PROBES:
        lines.append(f"{probe.name}  [{', '.join(probe.rules) or 'no rule: measured for information'}]")
        lines.append(f"    {probe.description}")
        for candidate in probe.candidates:
            where = "" if candidate.devices == ("cpu", "cuda", "npu") else f"  ({'/'.join(candidate.devices)} only)"
            lines.append(f"    - {candidate.name}{where}")
    return lines


# ---- environment ----------------------------------------------------------------------------------------------------

_ENVIRONMENT_SNIPPET = r'''
import json, os, platform, sys
info = {"python": platform.python_version(), "platform": platform.platform(), "torch": None, "torch_error": None,
        "torch_npu": None, "torch_npu_error": None, "cuda": None, "devices": {}, "device_names": {}, "cann": None}
try:
    import torch
    info["torch"] = torch.__version__
    info["cuda"] = torch.version.cuda
except BaseException as exc:
    info["torch_error"] = f"{type(exc).__name__}: {exc}"
if info["torch"] is not None:
    try:
        import torch_npu
        info["torch_npu"] = getattr(torch_npu, "__version__", "unknown")
        try:  # torch_npu's own answer, from CANN 8.1.RC1 on
            from torch_npu.utils import get_cann_version
            info["cann"] = get_cann_version(module="CANN") or None
        except BaseException:
            pass
    except ModuleNotFoundError as exc:
        if exc.name != "torch_npu":
            info["torch_npu_error"] = f"{type(exc).__name__}: {exc}"
    except BaseException as exc:
        info["torch_npu_error"] = f"{type(exc).__name__}: {exc}"
    for kind in ("npu", "cuda"):
        module = getattr(torch, kind, None)
        try:
            if module is not None and module.is_available():
                info["devices"][kind] = module.device_count()
                info["device_names"][kind] = module.get_device_name(0)
        except BaseException:
            pass
print("@@ENV@@" + json.dumps(info))
'''

# Under the toolkit home (…/ascend-toolkit/latest, or …/ascend-toolkit with latest/ below), most telling first.
CANN_VERSION_FILES = (
    "{arch}-linux/ascend_toolkit_install.info", "latest/{arch}-linux/ascend_toolkit_install.info",
    "compiler/version.info", "latest/compiler/version.info", "version.cfg", "latest/version.cfg",
)


def detect_environment(python: str | None = None, env: dict | None = None, timeout: float = 300,
                       table: list[dict] | None = None) -> dict:
    """What this host has: Python, torch, torch_npu, CANN, driver, devices. torch is imported in a child process,
    because a torch_npu without CANN makes `import torch` itself fail and leaves the importing process unusable."""
    info = {"python": platform.python_version(), "platform": platform.platform(), "torch": None, "torch_error": None,
            "torch_npu": None, "torch_npu_error": None, "cuda": None, "devices": {}, "device_names": {}}
    try:
        done = subprocess.run([python or sys.executable, "-c", _ENVIRONMENT_SNIPPET], capture_output=True, text=True,
                              timeout=timeout, env=env)
        marker = next((line for line in done.stdout.splitlines() if line.startswith("@@ENV@@")), None)
        if marker is None:
            info["torch_error"] = f"the environment check crashed (exit {done.returncode}): {_tail(done.stderr)}"
        else:
            info.update(json.loads(marker[len("@@ENV@@"):]))
    except (OSError, subprocess.SubprocessError) as exc:
        info["torch_error"] = f"the environment check could not run: {exc}"
    info["cann"] = info.get("cann") or _cann_version()
    info["driver"] = _driver_version()
    info["problems"] = diagnose(info)
    info["compatibility"] = check_compatibility(info.get("torch"), info.get("torch_npu"), info["cann"], table)
    return info


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


def _ascend_home() -> str:
    return os.environ.get("ASCEND_HOME_PATH") or os.environ.get("ASCEND_TOOLKIT_HOME") or "/usr/local/Ascend/ascend-toolkit"


def _cann_version() -> str | None:
    home = _ascend_home()
    for name in CANN_VERSION_FILES:
        version = _read_version(os.path.join(home, name.format(arch=platform.machine())))
        if version:
            return version.rsplit(":", 1)[-1]  # version.cfg writes "[7.0.0.5.242:7.0.RC1]"
    return None


def _driver_version() -> str | None:
    return _read_version("/usr/local/Ascend/driver/version.info")


def _read_version(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(65536)
    except OSError:
        return None
    match = re.search(r"^\s*(?:Version|version|toolkit_running_version|runtime_running_version)\s*=\s*\[?([^\]\s]+)", text, re.M)
    return match.group(1) if match else None


KNOWN_FAILURES = (
    ("Failed to load the backend extension: torch_npu",
     "torch_npu is installed but could not load, and torch loads it automatically, so `import torch` fails. Source the "
     "CANN environment (e.g. `source /usr/local/Ascend/ascend-toolkit/set_env.sh`) or, to run without the NPU, set "
     "TORCH_DEVICE_BACKEND_AUTOLOAD=0."),
    ("Two accelerators cannot be used at the same time",
     "torch_npu refuses to load beside another accelerator (for example a CUDA build of torch). Install the CPU build "
     "of torch with the matching torch_npu, or run the probes on the CUDA device without torch_npu."),
    ("libhccl.so", "torch_npu cannot find the CANN libraries (libhccl.so): install CANN at the version the "
     "compatibility table names and source its set_env.sh before running."),
    ("libascendcl.so", "torch_npu cannot find the CANN runtime (libascendcl.so): install CANN and source its set_env.sh."),
    ("No module named 'torch'", "torch is not installed: install the torch version that your torch_npu requires "
     "(the CPU build on Ascend hosts)."),
)


def diagnose(info: dict) -> list[dict]:
    problems = []
    for field_name in ("torch_error", "torch_npu_error"):
        message = info.get(field_name)
        if not message:
            continue
        advice = next((text for needle, text in KNOWN_FAILURES if needle in message), None)
        problems.append({"where": field_name.split("_error")[0], "error": message,
                         "advice": advice or "unexpected error: see the message above"})
    if info.get("torch") is None and not info.get("torch_error"):
        problems.append({"where": "torch", "error": "torch is not installed", "advice": KNOWN_FAILURES[-1][1]})
    if info.get("torch_npu") and not info.get("cann"):
        problems.append({"where": "cann", "error": "no CANN version file found",
                         "advice": "set ASCEND_HOME_PATH (source set_env.sh) so the CANN version can be checked"})
    return problems


def check_compatibility(torch_version: str | None, torch_npu_version: str | None, cann: str | None,
                        table: list[dict] | None = None) -> dict:
    """torch_npu requires exactly its torch (major.minor.patch) and names its CANN: check them against the table."""
    table = COMPATIBILITY if table is None else table
    if not torch_npu_version:
        return {"status": "not-applicable", "message": "torch_npu is not loaded: no torch/torch_npu/CANN fit to check"}
    row = next((r for r in table if r["torch_npu"] == _base_version(torch_npu_version)), None) or \
        next((r for r in table if r["torch_npu"] == torch_npu_version), None)
    if row is None:
        return {"status": "unknown", "message": f"torch_npu {torch_npu_version} is not in the compatibility table"}
    problems = []
    if torch_version and _release(torch_version) != _release(row["torch"]):
        problems.append(f"torch {torch_version} installed, torch_npu {row['torch_npu']} requires torch {row['torch']}")
    if cann and not cann.startswith(row["cann"].split(".RC")[0].split(".alpha")[0]):
        problems.append(f"CANN {cann} installed, torch_npu {row['torch_npu']} is released with CANN {row['cann']}")
    if problems:
        return {"status": "mismatch", "message": "; ".join(problems)}
    return {"status": "ok", "message": f"torch_npu {row['torch_npu']} fits torch {row['torch']} and CANN {row['cann']}"}


def _release(version: str) -> str:
    return ".".join(re.split(r"[+]", version)[0].split(".")[:3])


def _base_version(version: str) -> str:
    return version.split("+")[0]


# ---- running --------------------------------------------------------------------------------------------------------

def pick_device(requested: str, torch) -> tuple[str, int]:
    """The device type to run on and how many such devices there are."""
    available = {}
    for kind in ("npu", "cuda"):
        module = getattr(torch, kind, None)
        try:
            if module is not None and module.is_available():
                available[kind] = module.device_count()
        except Exception:  # a half-installed backend answers with errors
            pass
    if requested == "auto":
        for kind in ("npu", "cuda"):
            if kind in available:
                return kind, available[kind]
        return "cpu", 1
    if requested == "cpu":
        return "cpu", 1
    if requested not in available:
        raise RuntimeError(f"--device {requested}: no {requested} device is available here")
    return requested, available[requested]


def _import_torch_npu_if_present() -> None:
    if importlib.util.find_spec("torch_npu") is not None:
        importlib.import_module("torch_npu")


def _resolve(path: str) -> bool:
    module_name, _, attribute = path.partition(".")
    try:
        target = importlib.import_module(module_name)
    except Exception:
        return False
    for part in attribute.split(".") if attribute else ():
        target = getattr(target, part, None)
        if target is None:
            return False
    return True


def _synchronize(torch, device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()
    elif device == "npu":
        torch.npu.synchronize()


def _as_tuple(outputs) -> tuple:
    return outputs if isinstance(outputs, tuple) else (outputs,)


def _execute(probe: Probe, function, inputs: dict, torch, forward_only: bool = False) -> tuple:
    """Outputs of `function`, followed by the gradients of the probe's grad inputs (same upstream gradient)."""
    if not probe.grad_inputs or forward_only:
        with torch.no_grad():
            return tuple(t.detach() for t in _as_tuple(function(inputs, torch)))
    prepared = {k: (v.detach().clone().requires_grad_(True) if k in probe.grad_inputs else v) for k, v in inputs.items()}
    outputs = _as_tuple(function(prepared, torch))
    generator = torch.Generator().manual_seed(7)
    loss = sum((out.float() * torch.randn(out.shape, generator=generator).to(out.device)).sum() for out in outputs)
    loss.backward()
    return tuple(t.detach() for t in outputs) + tuple(prepared[name].grad for name in probe.grad_inputs)


def _errors(candidate: tuple, reference: tuple, atol: float, rtol: float, torch) -> dict:
    max_abs = mean_abs = max_rel = mean_rel = 0.0
    passed = len(candidate) == len(reference)
    total = 0
    for got, want in zip(candidate, reference):
        got64 = got.detach().to("cpu", torch.float64)
        want64 = want.detach().to("cpu", torch.float64)
        if got64.shape != want64.shape:
            return {"max_abs": None, "mean_abs": None, "max_rel": None, "mean_rel": None, "passed": False,
                    "note": f"shape {tuple(got64.shape)} != reference {tuple(want64.shape)}"}
        diff = (got64 - want64).abs()
        if not torch.isfinite(got64).all() and torch.isfinite(want64).all():
            passed = False
        relative = diff / want64.abs().clamp_min(1e-6)
        count = diff.numel()
        if count:
            max_abs, max_rel = max(max_abs, float(diff.max())), max(max_rel, float(relative.max()))
            mean_abs += float(diff.sum())
            mean_rel += float(relative.sum())
            total += count
            passed = passed and bool((diff <= atol + rtol * want64.abs()).all())
    return {"max_abs": _finite(max_abs), "mean_abs": _finite(mean_abs / total if total else 0.0),
            "max_rel": _finite(max_rel), "mean_rel": _finite(mean_rel / total if total else 0.0), "passed": passed}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _time(function, torch, device: str, repeats: int) -> dict:
    for _ in range(WARMUP):
        function()
    _synchronize(torch, device)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        _synchronize(torch, device)
        samples.append((time.perf_counter() - start) * 1000.0)
    samples.sort()
    p95 = samples[min(len(samples) - 1, math.ceil(0.95 * len(samples)) - 1)]
    return {"median_ms": round(statistics.median(samples), 4), "p95_ms": round(p95, 4), "repeats": repeats}


def _fell_back(records, outputs: tuple, device: str) -> bool:
    text = " ".join(str(r.message) for r in records)
    if any(pattern.lower() in text.lower() for pattern in FALLBACK_PATTERNS):
        return True
    return device != "cpu" and any(getattr(t, "device", None) is not None and t.device.type == "cpu" for t in outputs)


def _verdict(result: dict) -> str:
    if not result["available"]:
        return "missing"
    if result.get("error"):
        return "error"
    if not result["accuracy"]["passed"]:
        return "wrong"
    if result["fell_back_to_cpu"]:
        return "fallback"
    reference, candidate = result["reference_timing"], result["candidate_timing"]
    if reference and candidate and candidate["median_ms"] > reference["median_ms"] * SLOWER_FACTOR:
        return "slower"
    return "good"


def run_probe(probe: Probe, size: str, device: str, device_count: int, torch, repeats: int | None = None,
              progress: Callable | None = None) -> list[dict]:
    """Every candidate of one probe at one size, at each dtype that applies."""
    results = []
    for candidate in probe.candidates:
        dtypes = (candidate.dtype,) if candidate.dtype else probe.dtypes
        for dtype_name in dtypes:
            result = _run_candidate(probe, candidate, size, dtype_name, device, device_count, torch, repeats)
            results.append(result)
            if progress:
                progress(f"{probe.name} {size} {candidate.name} {dtype_name}")
    return results


def planned_runs(probe: Probe) -> int:
    return sum(1 if c.dtype else len(probe.dtypes) for c in probe.candidates)


def _base_result(probe: Probe, candidate: Candidate, size: str, dtype_name: str, device: str) -> dict:
    return {"probe": probe.name, "rules": list(probe.rules), "candidate": candidate.name, "shape": size,
            "parameters": probe.shapes[size], "dtype": dtype_name, "device": device, "available": True,
            "applicable": True, "reason": None, "error": None, "accuracy": None, "tolerance": None,
            "reference_timing": None, "candidate_timing": None, "speedup": None, "fell_back_to_cpu": False,
            "warnings": [], "verdict": "skipped", "calibrates": candidate.calibrates}


def _run_candidate(probe, candidate, size, dtype_name, device, device_count, torch, repeats) -> dict:
    result = _base_result(probe, candidate, size, dtype_name, device)
    if device not in candidate.devices:
        result.update(applicable=False, available=False, reason=f"runs on {'/'.join(candidate.devices)} only")
        return result
    if probe.min_devices > device_count:
        result.update(applicable=False, available=False,
                      reason=f"needs {probe.min_devices} devices, {device_count} {device} device(s) here")
        return result
    if probe.name == "collectives":
        return _run_collectives(result, probe, size, device, device_count, torch)
    if candidate.needs and not _resolve(candidate.needs):
        result.update(available=False, reason=f"{candidate.needs} is not available in this installation",
                      verdict="missing")
        return result
    undo = None
    try:
        dtype = getattr(torch, dtype_name)
        generator = torch.Generator().manual_seed(1234)
        inputs = probe.make_inputs(probe.shapes[size], dtype, device, generator, torch)
        reference_inputs = _reference_inputs(probe, inputs, size, torch, device)
        expected = _execute(probe, probe.reference, reference_inputs, torch, candidate.forward_only)
        undo = candidate.setup(torch) if candidate.setup else None
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            got = _execute(probe, candidate.run, inputs, torch, candidate.forward_only)
        atol, rtol = probe.tolerance.get(dtype_name, TOLERANCE[dtype_name])
        result["tolerance"] = {"atol": atol, "rtol": rtol, "baseline_factor": BASELINE_FACTOR}
        result["accuracy"] = _errors(got, expected, atol, rtol, torch)
        if not candidate.dtype and dtype_name != probe.reference_dtype:
            baseline = _errors(_execute(probe, probe.reference, inputs, torch, candidate.forward_only), expected, atol, rtol, torch)
            result["accuracy"]["reference_max_abs"] = baseline["max_abs"]
            if not result["accuracy"]["passed"] and baseline["max_abs"] is not None and result["accuracy"]["max_abs"] is not None:
                result["accuracy"]["passed"] = result["accuracy"]["max_abs"] <= BASELINE_FACTOR * baseline["max_abs"]
        result["fell_back_to_cpu"] = _fell_back(records, got, device)
        result["warnings"] = sorted({str(r.message)[:300] for r in records})[:5]
        count = repeats or REPEATS[size]
        if probe.reference_on_cpu:  # today's code runs the reference where the device cannot (float64 on the CPU)
            timing_inputs = reference_inputs
        elif candidate.dtype:
            timing_inputs = probe.make_inputs(probe.shapes[size], getattr(torch, probe.dtypes[0]), device,
                                              torch.Generator().manual_seed(1234), torch)
        else:
            timing_inputs = inputs
        result["candidate_timing"] = _time(lambda: _execute(probe, candidate.run, inputs, torch, candidate.forward_only),
                                           torch, device, count)
        if undo:
            undo()
            undo = None
        result["reference_timing"] = _time(
            lambda: _execute(probe, probe.reference, timing_inputs, torch, candidate.forward_only), torch, device, count)
        if result["candidate_timing"]["median_ms"] > 0:
            result["speedup"] = round(result["reference_timing"]["median_ms"] / result["candidate_timing"]["median_ms"], 3)
    except Exception as exc:  # the probe records the failure; one candidate never stops the run
        result["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
    finally:
        if undo:
            undo()
    result["verdict"] = _verdict(result)
    return result


def _reference_inputs(probe: Probe, inputs: dict, size: str, torch, device: str) -> dict:
    """The inputs of the accuracy reference: the same values in the reference dtype (and on the CPU if asked)."""
    dtype = getattr(torch, probe.reference_dtype)
    target = "cpu" if probe.reference_on_cpu else device
    if probe.regenerate_reference_inputs:
        return probe.make_inputs(probe.shapes[size], dtype, target, torch.Generator().manual_seed(1234), torch)
    return {k: (v.to(device=target, dtype=dtype) if v.is_floating_point() else v.to(target)) for k, v in inputs.items()}


COLLECTIVE_BACKENDS = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}


def _run_collectives(result: dict, probe: Probe, size: str, device: str, device_count: int, torch) -> dict:
    """all_reduce SUM (and AVG where the backend has it), all_gather and reduce_scatter, one process per device,
    checked against the exact results. On the CPU (gloo) it only runs when asked for more than one process."""
    import tempfile

    import torch.multiprocessing as mp

    backend = COLLECTIVE_BACKENDS[device]
    world = min(device_count, 8)
    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "store")
        report = os.path.join(folder, "report.json")
        try:
            mp.spawn(_collective_worker, args=(world, backend, device, probe.shapes[size]["numel"], store, report),
                     nprocs=world, join=True)
            with open(report, encoding="utf-8") as handle:
                measured = json.load(handle)
        except Exception as exc:
            result["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
            result["verdict"] = "error"
            return result
    result["accuracy"] = {"max_abs": measured["max_abs"], "mean_abs": None, "max_rel": None, "mean_rel": None,
                          "passed": measured["passed"]}
    result["candidate_timing"] = measured["timing"]
    result["tolerance"] = {"atol": 1e-5, "rtol": 1e-5}
    result["warnings"] = measured["notes"]
    result["verdict"] = "good" if measured["passed"] else "wrong"
    return result


def _collective_worker(rank, world, backend, device, numel, store, report):
    import torch
    import torch.distributed as dist

    if device == "npu":
        import torch_npu  # noqa: F401
    if device != "cpu":
        getattr(torch, device).set_device(rank)
    dist.init_process_group(backend, init_method=f"file://{store}", rank=rank, world_size=world)
    target = torch.device(device, rank) if device != "cpu" else torch.device("cpu")
    base = torch.arange(numel, dtype=torch.float32, device=target) % 97
    total = sum(range(1, world + 1))
    worst, passed, samples, notes = 0.0, True, [], []
    operations = [(dist.ReduceOp.SUM, base * total)]
    if backend != "gloo":  # gloo has no AVG; HCCL's is a sum then a division in torch_npu
        operations.append((dist.ReduceOp.AVG, base * total / world))
    else:
        notes.append("ReduceOp.AVG not checked: gloo has no AVG")
    for op, expected in operations:
        tensor = base * (rank + 1)
        start = time.perf_counter()
        dist.all_reduce(tensor, op=op)
        _synchronize(torch, device)
        samples.append((time.perf_counter() - start) * 1000)
        error = float((tensor - expected).abs().max())
        worst, passed = max(worst, error), passed and error <= 1e-5 * float(expected.abs().max() + 1)
    gathered = [torch.empty_like(base) for _ in range(world)]
    dist.all_gather(gathered, base + rank)
    passed = passed and all(float((g - (base + r)).abs().max()) == 0 for r, g in enumerate(gathered))
    part = numel // world
    if backend != "gloo":
        chunk = torch.empty(part, dtype=torch.float32, device=target)
        dist.reduce_scatter(chunk, [base[i * part:(i + 1) * part].clone() for i in range(world)])
        passed = passed and float((chunk - world * base[rank * part:(rank + 1) * part]).abs().max()) <= 1e-3
    else:
        notes.append("reduce_scatter not checked: gloo has no reduce_scatter")
    if rank == 0:
        with open(report, "w", encoding="utf-8") as handle:
            json.dump({"max_abs": worst, "passed": passed, "notes": notes,
                       "timing": {"median_ms": round(statistics.median(samples), 4), "p95_ms": round(max(samples), 4),
                                  "repeats": len(samples)}}, handle)
    dist.destroy_process_group()


def run_probes(device: str = "auto", names: list[str] | None = None, sizes: tuple[str, ...] = ("small",),
               repeats: int | None = None, progress: Callable | None = None, environment: dict | None = None) -> dict:
    """Run the chosen probes and return the calibration document (schema version 1)."""
    environment = environment if environment is not None else detect_environment()
    import torch

    _import_torch_npu_if_present()
    chosen = [p for p in PROBES if not names or p.name in names]
    unknown = sorted(set(names or ()) - {p.name for p in PROBES})
    if unknown:
        raise ValueError(f"unknown probe(s): {', '.join(unknown)}; known: {', '.join(probe_names())}")
    kind, count = pick_device(device, torch)
    environment = dict(environment, device_type=kind, device_count=count,
                       device_name=environment.get("device_names", {}).get(kind) or platform.processor() or "cpu")
    total = sum(planned_runs(p) for p in chosen) * len(sizes)
    done = 0

    def step(label: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total, label)

    results = []
    torch.manual_seed(0)
    for size in sizes:
        for probe in chosen:
            results.extend(run_probe(probe, size, kind, count, torch, repeats, step))
    return {
        "schema_version": SCHEMA_VERSION,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "tool": "ascend-feasibility probes",
        "environment": environment,
        "sizes": list(sizes),
        "results": results,
    }


# ---- standalone command line (used by the exported script) -----------------------------------------------------------

def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", choices=DEVICE_CHOICES, default="auto")
    parser.add_argument("--probe", action="append", dest="probes", metavar="NAME", help="run only this probe (repeatable)")
    parser.add_argument("--shapes", choices=SIZES + ("all",), default="small", help="input sizes (default: small)")
    parser.add_argument("--repeats", type=int, metavar="N", help="timed repetitions (default: by size)")
    parser.add_argument("-o", "--output", default="calibration.json", help="where to write the calibration JSON")


def sizes_of(choice: str) -> tuple[str, ...]:
    return SIZES if choice == "all" else (choice,)


def standalone_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Ascend feasibility probes: measure candidate replacements.")
    commands = parser.add_subparsers(dest="command")
    add_run_arguments(commands.add_parser("run", help="run the probes and write calibration JSON"))
    commands.add_parser("env", help="print the environment check")
    commands.add_parser("list", help="list the probes")
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run", *(argv if argv is not None else sys.argv[1:])])
    if args.command == "list":
        print("\n".join(listing()))
        return 0
    environment = detect_environment()
    if args.command == "env":
        print(json.dumps(environment, indent=2))
        return 0 if environment.get("torch") else 2
    if not environment.get("torch"):
        print(json.dumps(environment["problems"], indent=2), file=sys.stderr)
        return 2

    def show(done: int, total: int, label: str) -> None:
        print(f"[{done}/{total}] {label}", file=sys.stderr, flush=True)

    document = run_probes(args.device, args.probes, sizes_of(args.shapes), args.repeats, show, environment)
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
