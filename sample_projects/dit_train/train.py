"""DiT training with FSDP or DeepSpeed."""
import argparse
import os

import deepspeed
import torch
import torch.distributed as dist
from deepspeed.ops.adam import DeepSpeedCPUAdam
from deepspeed.ops.lamb import FusedLamb
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

from dit.model import DiTBlock, GaussianDiffusion


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", choices=["fsdp", "deepspeed", "dp"], default="fsdp")
    parser.add_argument("--deepspeed_config", default="configs/ds_zero2.json")
    parser.add_argument("--ds_optimizer", choices=["lamb", "cpu-adam"], default="cpu-adam")
    args = parser.parse_args()

    os.environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1")
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DiTBlock(1024, 16).cuda()
    if args.engine == "fsdp":
        model = FSDP(model, device_id=torch.cuda.current_device())
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, fused=True)
    elif args.engine == "dp":
        model = torch.nn.DataParallel(model)
    else:
        if args.ds_optimizer == "lamb":
            client_optimizer = FusedLamb(model.parameters(), lr=1e-4)
        else:  # ZeRO-Offload keeps the optimizer states on the host
            client_optimizer = DeepSpeedCPUAdam(model.parameters(), lr=1e-4)
        model, optimizer, _, _ = deepspeed.initialize(model=model, optimizer=client_optimizer, config=args.deepspeed_config)
    if dist.get_backend() == "nccl":
        torch.backends.cuda.matmul.allow_tf32 = True
    diffusion = GaussianDiffusion()
    loss = torch.zeros((), device="cuda")
    dist.all_reduce(loss, op=dist.ReduceOp.AVG)


if __name__ == "__main__":
    main()
