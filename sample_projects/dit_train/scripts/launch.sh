#!/usr/bin/env bash
export NCCL_SOCKET_IFNAME=eth0
export NCCL_DEBUG=INFO
export NCCL_IB_DISABLE=1
torchrun --nnodes 2 --nproc_per_node 8 train.py --engine fsdp
