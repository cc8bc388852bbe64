"""PRC005 on the output of a module whose forward casts it to float32 itself (domains/precision/float32_outputs.py;
round 28 A1 C5 row 39, B2 C9 row 41): StyleGAN2's ModulatedToRGB ends with `if self.out_fp32: out = out.to(torch.float32)`
(out_fp32 defaulting to True), and EG3D's synthesis block, in another file, asserts `img.dtype == torch.float32` right
after `img = self.to_rgb(...)`. The projects below are written from that shape."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TO_RGB = """import torch


class ToRGB(torch.nn.Module):
    def __init__(self, channels, upsample=True, out_fp32=True):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, 3, 1)
        self.out_fp32 = out_fp32

    def forward(self, x, skip=None):
        out = self.conv(x)
        if skip is not None:
            out = out + skip
        if self.out_fp32:
            out = out.to(torch.float32)
        return out


class Head(torch.nn.Module):
    def forward(self, x):
        y = self.proj(x)
        return y.float()


class Plain(torch.nn.Module):
    def forward(self, x):
        out = self.conv(x)
        return out
"""

BLOCK = """import torch
from modules import ToRGB, Head, Plain


class Block(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.to_rgb = ToRGB(channels, upsample=False)
        self.off = ToRGB(channels, out_fp32=False)
        self.positional = ToRGB(channels, True, False)
        self.head = Head()
        self.plain = Plain()

    def forward(self, x):
        img = self.to_rgb(x)
        assert img.dtype == torch.float32
        off = self.off(x)
        assert off.dtype == torch.float32
        positional = self.positional(x)
        assert positional.dtype == torch.float32
        h = self.head(x)
        assert h.dtype == torch.float32
        p = self.plain(x)
        assert p.dtype == torch.float32
        with torch.autocast("cuda", dtype=torch.bfloat16):
            a = self.head(x)
            assert a.dtype == torch.float32
        img = img * 2
        img = self.plain(img)
        assert img.dtype == torch.float32
        h = self.head(x)
        with open_scope(x) as h:
            pass
        assert h.dtype == torch.float32
        return img, off, positional, h, p, a
"""

TRAIN = "import torch\nfrom block import Block\nBlock(4)(torch.zeros(1)).sum().backward()\n"


def _severities(tmp_path, files):
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    return {f.line: f.severity for f in report.findings if f.rule == "PRC005" and f.path == "block.py"}


def test_an_assertion_on_a_module_output_cast_to_float32_is_info(tmp_path):
    found = _severities(tmp_path, {"modules.py": TO_RGB, "block.py": BLOCK, "train.py": TRAIN})
    assert found[16] == "info"  # the flag kept at its default True: the module casts
    assert found[22] == "info"  # `return y.float()`
    assert found[18] == "low"  # built with out_fp32=False
    assert found[20] == "low"  # the flag passed by position
    assert found[24] == "low"  # a module that casts nothing
    assert found[27] == "low"  # under autocast
    assert found[30] == "low"  # the name's last value is another module's
    assert found[34] == "low"  # rebound by a `with ... as` after the module made it


def test_a_class_the_project_defines_twice_decides_nothing(tmp_path):
    other = TO_RGB.replace("        if self.out_fp32:\n            out = out.to(torch.float32)\n", "")
    found = _severities(tmp_path, {"modules.py": TO_RGB, "other/modules.py": other, "block.py": BLOCK,
                                   "train.py": TRAIN})
    assert found[16] == "low"
