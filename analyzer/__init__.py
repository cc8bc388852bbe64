"""ascend-feasibility: static analysis of what moving a PyTorch/CUDA project onto Ascend NPUs takes."""

__version__ = "0.1.0"
TOOL_NAME = "ascend-feasibility"
