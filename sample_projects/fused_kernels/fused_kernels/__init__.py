"""Fused CUDA and Triton kernels for LLM and point-cloud models."""
