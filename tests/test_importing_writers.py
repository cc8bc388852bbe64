"""A module's gate is changed only by files that import the module: a same-named global or method of another module
is not its writer or caller (round 34 A1 class 5, B2 class 3: MotionCtrl lvdm/modules/attention.py:121)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

ATTENTION = """\
import torch
from torch import einsum, nn

try:
    import xformers
    import xformers.ops
    XFORMERS_IS_AVAILBLE = True
except:
    XFORMERS_IS_AVAILBLE = False


class {name}(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention_op = None
        if XFORMERS_IS_AVAILBLE:
            self.forward = self.efficient_forward

    def forward(self, q, k, v):
        return einsum("b i d, b j d -> b i j", q, k).softmax(dim=-1) @ v

    def efficient_forward(self, q, k, v):
        return xformers.ops.memory_efficient_attention(q, k, v, attn_bias=None, op=self.attention_op)
"""

MAIN = """\
from lvdm.attention import CrossAttention
from lvdm.temporal import TemporalAttention

model = [CrossAttention(8), TemporalAttention(8)]
"""


def _att010(tmp_path, folder, files):
    root = tmp_path / folder
    write_tree(root, {"lvdm/__init__.py": "", "lvdm/attention.py": ATTENTION.format(name="CrossAttention"),
                      "lvdm/temporal.py": ATTENTION.format(name="TemporalAttention"), "main.py": MAIN, **files})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return next(f for f in report.findings if f.rule == "ATT010" and f.path == "lvdm/attention.py")


def test_a_same_named_flag_and_method_of_another_module_leave_the_import_optional(tmp_path):
    # temporal.py sets its own XFORMERS_IS_AVAILBLE and defines its own efficient_forward; it imports nothing of
    # attention.py, so attention.py's xformers call stays behind its own failed import
    finding = _att010(tmp_path, "own", {})
    assert finding.reach == "optional"
    assert finding.severity == "low"


def test_a_file_importing_the_module_and_calling_the_method_restores_it_without_the_reach_note(tmp_path):
    caller = "from lvdm.attention import CrossAttention\n\nlayer = CrossAttention(8)\nout = layer.efficient_forward(1, 2, 3)\n"
    finding = _att010(tmp_path, "called", {"bench.py": caller})
    assert finding.reach == "runs"
    assert finding.severity == "high"
    # the reach note came off although the argument note ("op ... is left out") was appended after it
    assert "left out" in finding.message.en
    assert "Reach:" not in finding.message.en
