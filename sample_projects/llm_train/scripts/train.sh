#!/usr/bin/env bash
# Single-node training on 8 GPUs.
set -euo pipefail
export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_DEBUG=WARN
torchrun --nproc_per_node=8 train.py --data data/train.bin "$@"
