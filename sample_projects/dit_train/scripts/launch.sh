#!/usr/bin/env bash
export NCCL_SOCKET_IFNAME=eth0
export NCCL_DEBUG=INFO
export NCCL_IB_DISABLE=1
if [ "${ENGINE:-torchrun}" = "accelerate" ]; then
  accelerate launch --config_file configs/accelerate_fsdp.yaml train.py --engine fsdp
else
  torchrun --nnodes 2 --nproc_per_node 8 train.py --engine fsdp
fi
