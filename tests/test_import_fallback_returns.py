"""A library call after an early return through the project's own fallback (`if not XFORMERS_AVAILABLE: return
super().forward(x)`, the flag a module-level try-import sets False in its ImportError handler; round 33 B2 class 1):
where the import is missing, as on Ascend, the function returns first, so the call is `optional`. A fallback arm that
raises, or a flag no try-import sets, keeps `runs`."""

from __future__ import annotations

from tests.helpers import scan

CODE = '''import torch
from torch import nn
try:
    from xformers.ops import memory_efficient_attention, unbind
    XFORMERS_AVAILABLE = True
except ImportError:
    XFORMERS_AVAILABLE = False
class Attention(nn.Module):
    def forward(self, x):
        return x
class MemEffAttention(Attention):
    def forward(self, x, attn_bias=None):
        if not XFORMERS_AVAILABLE:
            assert attn_bias is None, "xFormers is required for nested tensors"
            return super().forward(x)
        q, k, v = unbind(x, 2)
        x = memory_efficient_attention(q, k, v, attn_bias=attn_bias)
        return x
'''


def reach(code: str) -> set[str]:
    """The reach of the xformers calls' findings (the attention kernel and the library's own use)."""
    return {f.reach for f in scan(code).findings if f.rule in {"ATT010", "DEP030"}}


def test_calls_after_an_early_return_through_the_fallback_are_optional():
    assert reach(CODE) == {"optional"}
    reasons = [f.reach_reason for f in scan(CODE).findings if f.rule == "ATT010"]
    assert reasons and "if not XFORMERS_AVAILABLE" in reasons[0]


def test_a_raising_arm_or_a_flag_no_try_import_sets_keeps_runs():
    raising = CODE.replace('            assert attn_bias is None, "xFormers is required for nested tensors"\n'
                           '            return super().forward(x)\n',
                           '            raise ImportError("install xformers")\n')
    assert raising != CODE and reach(raising) == {"runs"}
    project_flag = CODE.replace("    XFORMERS_AVAILABLE = True\nexcept ImportError:\n    XFORMERS_AVAILABLE = False\n",
                                "except ImportError:\n    pass\nXFORMERS_AVAILABLE = torch.cuda.is_available()\n")
    assert project_flag != CODE and "runs" in reach(project_flag)
