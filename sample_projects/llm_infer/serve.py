"""A minimal HTTP endpoint around generate.py, with CUDA graphs for the decode step."""
import os

import torch

from generate import load, pick_device

os.environ.setdefault("CUDA_LAUNCH_BLOCKING", "0")
torch.backends.cuda.matmul.allow_tf32 = True  # ascend: ignore[PRC010]


class GraphedDecoder:
    def __init__(self, model, static_input):
        self.model = model
        self.static_input = static_input
        self.graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self.model(self.static_input)
        torch.cuda.current_stream().wait_stream(stream)
        with torch.cuda.graph(self.graph):
            self.static_output = self.model(self.static_input)

    def __call__(self, tokens):
        self.static_input.copy_(tokens)
        self.graph.replay()
        return self.static_output


def build(model_name):
    device = pick_device()
    tokenizer, model = load(model_name, device)
    if x_is_cuda(model):
        torch.cuda.nvtx.range_push("warmup")
        decoder = GraphedDecoder(model, torch.zeros(1, 1, dtype=torch.long, device=device))
        torch.cuda.nvtx.range_pop()
        return tokenizer, decoder
    return tokenizer, model


def x_is_cuda(model):
    return next(model.parameters()).is_cuda  # ascend: ignore[DEV007]
