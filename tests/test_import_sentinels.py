"""Calls behind a guarded optional import's sentinel or flag (round 28 A1 C9, B2 C4, B1 class 2; verdicts V1/V2):
`name = None` before `try: from xformers.ops import name / except ImportError: pass`, then `self.using_x = flag and
name is not None` selecting the call over an SDPA else arm; and a switch a constructor forces off where the import
failed (`if not XFORMERS_AVAILABLE: xattn = False`), whatever a config asks. Also DEV145's arms that differ only in
torch.load's map_location or keep a CUDA-only library off the NPU (B1 class 4, B2 C8), and ATT050 as a hint."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import _import_fallback_names
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from benchmarks.sample_counted import counted
from tests.helpers import scan, write_tree

SENTINEL = """\
import torch.nn as nn
import torch.nn.functional as F

memory_efficient_attention = flash_attn_func = None
try:
    from xformers.ops import memory_efficient_attention
except ImportError:
    pass
try:
    from flash_attn import flash_attn_func
except ImportError:
    pass


class SelfAttn(nn.Module):
    def __init__(self, fast=True):
        super().__init__()
        self.using_flash = fast and flash_attn_func is not None
        self.using_xform = fast and memory_efficient_attention is not None

    def forward(self, q, k, v, bias=None):
        using_flash = self.using_flash and bias is None
        if using_flash:
            out = flash_attn_func(q, k, v)
        elif self.using_xform:
            out = memory_efficient_attention(q, k, v)
        else:
            out = F.scaled_dot_product_attention(q, k, v)
        return out
"""


def reaches(code: str, rule: str) -> list[tuple[str, str | None]]:
    return [(f.reach, f.reach_reason) for f in scan(code).findings if f.rule == rule]


def test_call_through_a_pre_bound_sentinel_flag_is_optional_with_its_fallback():
    (reach, reason), = reaches(SENTINEL, "ATT010")
    assert reach == "optional"
    assert "elif self.using_xform:" in reason and "else arm (line 27)" in reason and "scaled_dot_product_attention" in reason
    # through a local flag derived from the derived flag (`using_flash = self.using_flash and bias is None`)
    (reach, reason), = reaches(SENTINEL, "ATT001")
    assert reach == "optional" and "if using_flash:" in reason


def test_sentinel_needs_the_none_binding_a_silent_handler_and_an_and():
    # no `name = None` before the try: the name is unbound where the import failed, nothing marks it a sentinel
    unbound = SENTINEL.replace("memory_efficient_attention = flash_attn_func = None\n", "")
    assert reaches(unbound, "ATT010")[0][0] == "runs"
    # the handler raises again: the import cannot fail quietly, so the name is never left None
    raised = SENTINEL.replace("    from xformers.ops import memory_efficient_attention\nexcept ImportError:\n    pass",
                              "    from xformers.ops import memory_efficient_attention\nexcept ImportError:\n"
                              "    raise RuntimeError('install xformers')")
    assert reaches(raised, "ATT010")[0][0] == "runs"
    # an `or` is true without the import
    either = SENTINEL.replace("fast and memory_efficient_attention is not None", "fast or memory_efficient_attention is not None")
    assert reaches(either, "ATT010")[0][0] == "runs"


def test_sentinel_is_read_only_for_cuda_only_packages():
    # the same shape for a package conventions.toml does not list as CUDA-only: the import may well work on Ascend,
    # so only the xformers name is a sentinel
    other = SENTINEL.replace("from flash_attn import flash_attn_func", "from mykernels import flash_attn_func")
    packages = frozenset(load_context_conventions().guards.cuda_only_packages)
    errors = frozenset(load_context_conventions().guards.import_errors)
    to_none, _, gated, _ = _import_fallback_names(parsing.parse("python", other.encode()), errors, packages)
    assert to_none == gated == {"memory_efficient_attention"}
    to_none, _, _, _ = _import_fallback_names(parsing.parse("python", SENTINEL.encode()), errors, packages)
    assert to_none == {"memory_efficient_attention", "flash_attn_func"}


FORCED_OFF = """\
import torch.nn as nn

try:
    import xformers.ops as xops
    XFORMERS_AVAILABLE = True
except ImportError:
    XFORMERS_AVAILABLE = False


class Attention(nn.Module):
    def __init__(self, dim, xattn=False):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)
        self.xattn = xattn

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if self.xattn:
            x = xops.memory_efficient_attention(q, k, v)
        else:
            x = (q @ k.transpose(-2, -1)).softmax(dim=-1) @ v
        return x


class VisionTransformer(nn.Module):
    def __init__(self, dim=64, depth=2, xattn=False):
        super().__init__()
        if not XFORMERS_AVAILABLE:
            xattn = False
        self.blocks = nn.ModuleList([Attention(dim, xattn=xattn) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""
RUN = "import torch\nfrom vit import VisionTransformer\nmodel = VisionTransformer(xattn=True).cuda()\nprint(model(torch.randn(2, 64).cuda()))\n"


def test_switch_forced_off_without_the_import_stays_optional_though_a_config_turns_it_on(tmp_path):
    write_tree(tmp_path / "forced", {"vit.py": FORCED_OFF, "run.py": RUN, "configs/big.json": '{"xattn": true}'})
    (finding,) = [f for f in analyze(tmp_path / "forced", AnalyzeOptions(jobs=1)).findings if f.rule == "ATT010"]
    assert finding.reach == "optional"
    assert "`xattn` is set off where the import failed (line 28: if not XFORMERS_AVAILABLE:)" in finding.reach_reason
    # without the constructor's reset, the config's `xattn: true` turns the xformers arm on: it runs
    plain = FORCED_OFF.replace("        if not XFORMERS_AVAILABLE:\n            xattn = False\n", "")
    write_tree(tmp_path / "plain", {"vit.py": plain, "run.py": RUN, "configs/big.json": '{"xattn": true}'})
    (finding,) = [f for f in analyze(tmp_path / "plain", AnalyzeOptions(jobs=1)).findings if f.rule == "ATT010"]
    assert finding.reach == "runs" and "the project turns it on" in finding.reach_reason


LOADS = """\
import torch
device = 'cuda' if torch.cuda.is_available() else 'cpu'

def _load(path):
    if device == 'cuda':
        checkpoint = torch.load(path)
    else:
        checkpoint = torch.load(path, map_location=lambda storage, loc: storage)
    return checkpoint
"""


def dev145(code: str):
    return [f for f in scan(code).findings if f.rule == "DEV145"]


def test_arms_differing_only_in_map_location_are_no_fast_path():
    (finding,) = dev145(LOADS)
    assert finding.severity == "info" and finding.effort_hours.high == 0
    assert "Leave the test as it is" in finding.replacement.en and "widen" not in finding.message.en
    # the CUDA arm also halves the weights: a fast path after all
    halved = LOADS.replace("        checkpoint = torch.load(path)\n",
                           "        checkpoint = torch.load(path)\n        checkpoint = {k: v.half() for k, v in checkpoint.items()}\n")
    (finding,) = dev145(halved)
    assert finding.severity == "medium" and finding.effort_hours.high > 0
    # the arms load different files: not the same load
    other = LOADS.replace("torch.load(path, map_location", "torch.load(path + '.cpu', map_location")
    assert dev145(other)[0].severity == "medium"


LIBRARY = """\
import torch
import xformers.ops

def attend(q, k, v, use_xformers=True):
    if use_xformers and q.device.type == 'cuda':
        out = xformers.ops.memory_efficient_attention(q, k, v)
    else:
        out = (q @ k.transpose(-1, -2)).softmax(-1) @ v
    return out
"""


def test_cuda_arm_calling_a_cuda_only_library_is_left_as_is():
    (finding,) = dev145(LIBRARY)
    assert finding.severity == "info" and finding.effort_hours.high == 0
    assert "Leave the test as it is" in finding.replacement.en and "npu_fusion_attention" in finding.replacement.en
    # a half cast in the CUDA arm is a fast path the NPU could keep: medium, widen once checked
    plain = LIBRARY.replace("import xformers.ops\n", "").replace("use_xformers and ", "").replace(
        "xformers.ops.memory_efficient_attention(q, k, v)", "(q.half() * k.half()).sum(-1).float() * v")
    (finding,) = dev145(plain)
    assert finding.severity == "medium" and "npu" in finding.replacement.en


def test_hand_written_attention_is_a_hint_not_counted():
    code = "import torch\ndef attend(q, k, v, scale):\n    attn = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)\n    return attn @ v\n"
    (finding,) = [f for f in scan(code).findings if f.rule == "ATT050"]
    assert finding.severity == "info" and finding.reach == "runs"
    assert not counted({"findings": [finding.model_dump(mode="json")]})
