"""Fast math for the Triton kernels: libdevice where the installed Triton has it there."""
import triton

if tuple(int(part) for part in triton.__version__.split(".")[:2]) >= (3, 0):
    from triton.language.extra.cuda.libdevice import rsqrt, tanh
else:
    from triton.language.math import rsqrt, tanh

__all__ = ["rsqrt", "tanh"]
