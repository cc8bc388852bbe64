"""A seeded generator of mutated CUDA/PyTorch project files: truncation, byte flips, unbalanced brackets, odd
unicode (bidi overrides, zero-width and invalid UTF-8 bytes), mixed indentation, NUL bytes. Same seed, same files."""

from __future__ import annotations

import json
import random

SEEDS: dict[str, str] = {
    "train.py": (
        "import torch\nimport torch.distributed as dist\nfrom flash_attn import flash_attn_func\n\n"
        "class Block(torch.nn.Module):\n    def forward(self, q, k, v):\n"
        "        with torch.autocast('cuda', dtype=torch.bfloat16):\n            return flash_attn_func(q, k, v, causal=True)\n\n"
        "def main():\n    dist.init_process_group('nccl')\n    torch.cuda.set_device(0)\n    model = Block().cuda()\n"
        "    x = torch.randn(2, 8, device='cuda:0', dtype=torch.float64)\n    torch.backends.cudnn.benchmark = True\n"
        "    torch.cuda.synchronize()  # ascend: ignore[DEV101]\n\nif __name__ == '__main__':\n    main()\n"
    ),
    "kernel.py": (
        "import triton\nimport triton.language as tl\nBLOCK = 1 << 10\n\n@triton.jit\n"
        "def add(x, y, out, n, BLOCK: tl.constexpr):\n    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(out + i, tl.load(x + i) + tl.load(y + i), mask=i < n)\n\ndef launch(x, y, out):\n"
        "    add[(triton.cdiv(x.numel(), BLOCK),)](x, y, out, x.numel(), BLOCK=BLOCK)\n"
    ),
    "ops.cu": (
        "#include <cuda_runtime.h>\n#include <torch/extension.h>\n__global__ void scale(float* x, int n) {\n"
        "  __shared__ float tile[256];\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) { tile[threadIdx.x] = x[i]; __syncthreads(); x[i] = __shfl_down_sync(0xffffffff, tile[threadIdx.x], 1); }\n}\n"
        "void launch(torch::Tensor x) { scale<<<1, 256>>>(x.data_ptr<float>(), x.numel()); }\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"launch\", &launch); }\n"
    ),
    "run.sh": "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0,1\nexport NCCL_DEBUG=INFO\ntorchrun --nproc_per_node 2 train.py\npip install flash-attn==2.5.0\n",
    "config.yaml": "device: cuda\nbackend: nccl\nenv:\n  CUDA_VISIBLE_DEVICES: '0'\nzero_optimization:\n  stage: 3\n",
    "ds.json": '{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}, "fp16": {"enabled": true}}\n',
    "requirements.txt": "torch==2.1.0+cu121\nflash-attn>=2.3\nxformers\n-r extra.txt\nnumpy<2\n",
    "notebook.ipynb": json.dumps({"nbformat": 4, "cells": [
        {"cell_type": "code", "source": ["import torch\n", "x = torch.ones(1).cuda()\n", "!nvidia-smi\n"]},
        {"cell_type": "code", "source": "%%bash\nexport CUDA_VISIBLE_DEVICES=0\n"},
    ]}),
}
ODD = ["\u202e", "\u2066", "\u200b", "\ufeff", "\x1b[31m", "\x1b]0;title\x07", "\x00", "é", "\U0001f600", "\r", "\t"]
BRACKETS = "([{)]}\"'`"


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four mutations of a file's bytes."""
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(7)
        position = rng.randint(0, len(data))
        if choice == 0 and data:  # truncation
            data = data[: rng.randint(0, len(data))]
        elif choice == 1 and data:  # byte flips
            flipped = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
            data = bytes(flipped)
        elif choice == 2:  # unbalanced brackets and quotes
            data = data[:position] + rng.choice(BRACKETS).encode() * rng.randint(1, 40) + data[position:]
        elif choice == 3:  # odd unicode
            data = data[:position] + rng.choice(ODD).encode("utf-8") + data[position:]
        elif choice == 4:  # invalid UTF-8
            data = data[:position] + bytes(rng.choice([0x80, 0xC3, 0xFF, 0xED, 0xF8]) for _ in range(3)) + data[position:]
        elif choice == 5:  # mixed indentation
            lines = data.split(b"\n")
            data = b"\n".join(line.replace(b"    ", b"\t", 1) if rng.random() < 0.3 else b" " + line for line in lines)
        else:  # duplicated or repeated slice
            start = rng.randint(0, len(data))
            data = data[:position] + data[start : start + rng.randint(0, 200)] * rng.randint(1, 20) + data[position:]
    return data


def generate(count: int, seed: int) -> list[tuple[str, bytes]]:
    """`count` (relative path, bytes) pairs; names keep the seed file's suffix so that every scanner is fed."""
    rng = random.Random(seed)
    names = sorted(SEEDS)
    files = []
    for index in range(count):
        name = names[index % len(names)]
        stem, dot, suffix = name.rpartition(".")
        mutated = mutate(SEEDS[name].encode("utf-8"), rng)
        files.append((f"f{index // 500:03d}/{stem}_{index:05d}{dot}{suffix}", mutated))
    return files
