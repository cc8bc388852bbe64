"""The probes: for each pattern the knowledge base maps to a replacement, a reference implementation (what the
CUDA code computes, in plain PyTorch), the candidate replacements, realistic input shapes and tolerances per dtype.

The probe modules (catalog, environment, runner, standalone) import only the standard library, torch and each
other: `ascend-feasibility probe export` joins them into one script for hosts that cannot install the analyzer.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Callable

SIZES = ("small", "medium", "large")
DTYPE_NAMES = ("float64", "float32", "bfloat16", "float16")
# Every tolerance is |candidate − reference| ≤ atol + rtol·|reference|; a probe may override one dtype's.
TOLERANCE = {"float64": (1e-10, 1e-8), "float32": (1e-4, 1e-3), "bfloat16": (5e-2, 5e-2), "float16": (1e-2, 1e-2)}


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
    collective: bool = False  # runs one process per device (runner._run_collectives), not the compare path


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
          (Candidate("hccl/nccl collectives", lambda inputs, torch: ()),), dtypes=("float32",), min_devices=2,
          collective=True),
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

