"""Train TinyLM with DistributedDataParallel and float16 autocast.

Launch with scripts/train.sh (torchrun). Logs "CUDA out of memory" hints when the batch does not fit.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.cuda.amp import GradScaler, autocast
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP

from llm_train.checkpoint import load_checkpoint, save_checkpoint
from llm_train.data import make_loader
from llm_train.model import TinyLM


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/train.bin")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--resume")
    parser.add_argument("--optimizer", choices=["adamw", "zero-adam"], default="adamw")
    return parser.parse_args()


def main():
    args = parse_args()
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.benchmark = True

    model = TinyLM().cuda()
    if args.compile:
        model = torch.compile(model)
    model = DDP(model, device_ids=[local_rank])
    if args.optimizer == "zero-adam":  # optimizer states sharded over the ranks
        optimizer = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam, lr=3e-4, fused=True)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    scaler = GradScaler()
    loader = make_loader(args.data, 1024, 8, dist.get_world_size(), dist.get_rank())
    step = load_checkpoint(args.resume, model, optimizer, scaler) if args.resume else 0

    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for tokens, targets in loader:
        tokens, targets = tokens.to(device, non_blocking=True), targets.to(device, non_blocking=True)
        start.record()
        with autocast(dtype=torch.float16):
            logits = model(tokens)
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        end.record()
        torch.cuda.synchronize()
        step += 1
        if step % 50 == 0 and dist.get_rank() == 0:
            peak = torch.cuda.max_memory_allocated() / 2**30
            print(f"step {step} loss {loss.item():.3f} {start.elapsed_time(end):.1f} ms peak {peak:.1f} GiB")
        if step % 500 == 0 and dist.get_rank() == 0:
            save_checkpoint(model.module, optimizer, scaler, step, "checkpoints")
        if step >= args.steps:
            break
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
