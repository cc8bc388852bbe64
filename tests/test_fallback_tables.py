"""A CUDA-only attention class its file's builders pick from a table only while the library imports
(analyzer/context/fallback_tables.py): optional, with the fallback as the reason; a builder without the fallback, or
an if-chain builder, leaves the site in code that runs."""

from __future__ import annotations

from tests.helpers import scan

HEAD = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "try:\n"
    "    import xformers.ops\n"
    "    HAVE_XFORMERS = True\n"
    "except ImportError:\n"
    "    HAVE_XFORMERS = False\n"
    "class PlainAttention(torch.nn.Module):\n"
    "    def forward(self, q, k, v):\n"
    "        return F.scaled_dot_product_attention(q, k, v)\n"
    "class FastAttention(torch.nn.Module):\n"
    "    def forward(self, q, k, v):\n"
    "        return xformers.ops.memory_efficient_attention(q, k, v)\n"
)
SITE = 13
BLOCK = (
    "class Block(torch.nn.Module):\n"
    "    MODES = {'plain': PlainAttention, 'fast': FastAttention}\n"
    "    def __init__(self, mode='plain'):\n"
    "        super().__init__()\n"
    "        if mode != 'plain' and not HAVE_XFORMERS:\n"
    "            mode = 'plain'\n"
    "        self.attn = self.MODES[mode]()\n"
    "class Model(torch.nn.Module):\n"
    "    def __init__(self, mode):\n"
    "        super().__init__()\n"
    "        self.block = Block(mode)\n"
)


def _site(code: str):
    [finding] = [f for f in scan(code).findings if f.rule == "ATT010"]
    assert finding.line == SITE
    return finding


def test_a_class_picked_only_while_the_import_works_is_optional():
    finding = _site(HEAD + BLOCK)
    assert (finding.reach, finding.severity) == ("optional", "low")
    assert "falls back to \"plain\"" in finding.reach_reason
    assert "HAVE_XFORMERS" in finding.reach_reason


def test_a_conditional_mode_is_the_same_fallback():
    block = BLOCK.replace("        if mode != 'plain' and not HAVE_XFORMERS:\n            mode = 'plain'\n",
                          "        mode = 'fast' if HAVE_XFORMERS else 'plain'\n")
    assert _site(HEAD + block).reach == "optional"


def test_a_table_without_the_fallback_runs():
    block = BLOCK.replace("        if mode != 'plain' and not HAVE_XFORMERS:\n            mode = 'plain'\n", "")
    assert _site(HEAD + block).reach == "runs"


def test_a_second_used_table_without_the_fallback_runs():
    other = ("class Other(torch.nn.Module):\n"
             "    MODES = {'plain': PlainAttention, 'fast': FastAttention}\n"
             "    def __init__(self, mode='fast'):\n"
             "        super().__init__()\n"
             "        self.attn = self.MODES[mode]()\n"
             "def build():\n"
             "    return Other()\n")
    assert _site(HEAD + BLOCK + other).reach == "runs"


def test_an_if_chain_builder_runs():
    chain = ("def make_attn(kind='fast'):\n"
             "    if kind == 'plain':\n"
             "        return PlainAttention()\n"
             "    elif kind == 'fast':\n"
             "        return FastAttention()\n")
    assert _site(HEAD + chain).reach == "runs"
