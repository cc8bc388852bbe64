"""Options declared as dataclass fields and read as `getattr(args, "x", False)`, through a name bound once to such a
read, or through a parameter a call hands the option on to (round 35 B1 C1, B2 C1, A2 C2, A1 C3: metaseq's
`--attn-variant` default "default", `self.xf_eff_attn = attn_variant == AttentionVariants.XFORMERS` in the attention
module built with `attn_variant=getattr(args, "attn_variant", "default")`; analyzer/context/option_reads.py,
switches.parameter_value_arm, opt_in._parameter_option_arms). No launcher passes them: their arms are `optional`, the
reason naming the option and its default."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

CONFIG = '''from dataclasses import dataclass, field
from enum import Enum


class AttentionVariants(str, Enum):
    DEFAULT = "default"
    XFORMERS = "xformers_default"
    SDPA = "sdpa"


@dataclass
class ModelConfig:
    attn_variant: str = field(default="default", metadata={"help": "variant to use for attention"})
    xformers_block: bool = field(default=False, metadata={"help": "the xformers block"})
'''
ATTENTION = '''import torch
import xformers.ops as xops

from config import AttentionVariants


class Attention(torch.nn.Module):
    def __init__(self, dim, attn_variant=False):
        super().__init__()
        self.xf_eff_attn = attn_variant == AttentionVariants.XFORMERS

    def forward(self, q, k, v):
        if self.xf_eff_attn:
            return xops.memory_efficient_attention(q, k, v)
        return torch.softmax(q @ k.transpose(-1, -2), -1) @ v
'''
LAYER = '''import torch
import xformers.ops as xops

from attention import Attention


class Layer(torch.nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.attn = Attention(8, attn_variant=getattr(args, "attn_variant", "default"))
        self.use_block = getattr(args, "xformers_block", False)

    def forward(self, q, k, v):
        if getattr(self.args, "xformers_block", False):
            q = xops.memory_efficient_attention(q, k, v)
        is_block = getattr(self.args, "xformers_block", False)
        if is_block:
            k = xops.memory_efficient_attention(q, k, v)
        if self.use_block:
            v = xops.memory_efficient_attention(q, k, v)
        return self.attn(q, k, v)
'''
TRAIN = '''from config import ModelConfig
from layer import Layer

layer = Layer(ModelConfig())
'''


def _reach(tmp_path, **more) -> dict[tuple[str, int], tuple[str, str | None]]:
    write_tree(tmp_path, {"requirements.txt": "torch\nxformers\n", "config.py": CONFIG, "attention.py": ATTENTION,
                          "layer.py": LAYER, "train.py": TRAIN, **more})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return {(f.path, f.line): (f.reach, f.reach_reason) for f in report.findings if f.rule == "ATT010"}


def test_getattr_reads_and_names_bound_to_them_are_the_options_arms(tmp_path):
    found = _reach(tmp_path)
    off = "`--xformers_block` is off unless given (config.py:14); "
    assert found[("layer.py", 16)] == ("optional", off + 'line 15: if getattr(self.args, "xformers_block", False):')
    assert found[("layer.py", 19)] == ("optional", off + "line 18: if is_block:")
    # an attribute set once from a False read: the file's own switch reading takes it first (switches.SwitchReader)
    assert found[("layer.py", 21)][0] == "optional" and "line 20: if self.use_block:" in found[("layer.py", 21)][1]


def test_a_parameter_a_call_hands_the_option_on_to_is_the_option(tmp_path):
    assert _reach(tmp_path)[("attention.py", 14)] == (
        "optional", '`--attn_variant` is "default" unless given (config.py:13), and no launch script passes '
        '"xformers_default"; line 13: if self.xf_eff_attn: (every call of Attention() passes `attn_variant`)')


def test_a_launcher_passing_the_options_keeps_their_arms(tmp_path):
    found = _reach(tmp_path, **{"run.sh": "python train.py --attn-variant xformers_default --xformers-block\n"})
    assert [found[place][0] for place in (("attention.py", 14), ("layer.py", 16), ("layer.py", 19))] == ["runs"] * 3


def test_a_name_bound_twice_or_an_on_default_is_no_read_of_the_option(tmp_path):
    layer = LAYER.replace('is_block = getattr(self.args, "xformers_block", False)',
                          'is_block = getattr(self.args, "xformers_block", False)\n        is_block = q.is_cuda')
    layer = layer.replace('if getattr(self.args, "xformers_block", False):',
                          'if getattr(self.args, "xformers_block", True):')
    found = _reach(tmp_path, **{"layer.py": layer})
    assert found[("layer.py", 16)][0] == "runs"
    assert found[("layer.py", 20)][0] == "runs"
    assert found[("layer.py", 22)][0] == "optional"  # self.use_block: still one read


def test_a_launcher_passing_another_member_keeps_the_arm_off(tmp_path):
    # the member's value resolved: a launcher choosing "sdpa" passes no value the xformers arm takes
    found = _reach(tmp_path, **{"run.sh": "python train.py --attn-variant sdpa\n"})
    assert found[("attention.py", 14)][0] == "optional"


def test_a_product_call_passing_another_value_keeps_the_parameters_arm(tmp_path):
    layer = LAYER.replace('self.attn = Attention(8, attn_variant=getattr(args, "attn_variant", "default"))',
                          'self.attn = Attention(8, attn_variant=getattr(args, "attn_variant", "default"))\n'
                          '        self.other = Attention(8, attn_variant="xformers_default")')
    assert _reach(tmp_path, **{"layer.py": layer})[("attention.py", 14)][0] == "runs"
