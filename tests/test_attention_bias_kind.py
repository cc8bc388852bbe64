"""domains/attention/bias_kind.py: the kind of bias an xformers attention call gets, read from the call and the
assignments of the name it passes in the same function (the NPU operator's layout follows it)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable
from ascend_feasibility.domains.attention.bias_kind import BLOCK_DIAGONAL, CAUSAL, bias_facet

HEAD = "import torch\nimport xformers.ops as xops\nfrom xformers.ops.fmha.attn_bias import BlockDiagonalMask\n\n"


def _facet(body: str):
    root = parsing.parse("python", (HEAD + body).encode("utf-8"))
    imports = ImportTable()
    imports.add_tree(root)
    stack, call = [root], None
    while stack:
        node = stack.pop()
        if node.type == "call" and parsing.text(node.child_by_field_name("function")).endswith("memory_efficient_attention"):
            call = node
        stack.extend(node.named_children)
    return bias_facet(call, imports)


@pytest.mark.parametrize("body, expected", [
    # packed sequences: every value other than None is a BlockDiagonalMask; the keys take the queries' lengths
    ("def f(q, k, v, lens):\n    bias = None\n    if lens:\n        bias = BlockDiagonalMask.from_seqlens(lens)\n"
     "    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n",
     (BLOCK_DIAGONAL, "actual_seq_qlen=torch.as_tensor(lens).cumsum(0).tolist(), "
                      "actual_seq_kvlen=torch.as_tensor(lens).cumsum(0).tolist()")),
    ("def f(q, k, v, a, b):\n    return xops.memory_efficient_attention(q, k, v, "
     "xops.fmha.BlockDiagonalMask.from_seqlens(q_seqlen=a, kv_seqlen=b))\n",
     (BLOCK_DIAGONAL, "actual_seq_qlen=torch.as_tensor(a).cumsum(0).tolist(), "
                      "actual_seq_kvlen=torch.as_tensor(b).cumsum(0).tolist()")),
    ("def f(q, k, v):\n    return xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask())\n",
     (CAUSAL, None)),
    # inside a `with` block: the block is no binding of the name
    ("def f(q, k, v):\n    with torch.no_grad():\n        bias = xops.LowerTriangularMask()\n"
     "        return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n", (CAUSAL, None)),
    # two block-diagonal masks from different lengths: the kind holds, the lengths are not one
    ("def f(q, k, v, a, b, c):\n    bias = BlockDiagonalMask.from_seqlens(a)\n    if c:\n"
     "        bias = BlockDiagonalMask.from_seqlens(b)\n"
     "    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n", (BLOCK_DIAGONAL, None)),
])
def test_the_bias_kind_is_read_where_the_code_shows_it(body, expected):
    assert _facet(body) == expected


@pytest.mark.parametrize("body", [
    # a tensor bias (the pse route), a mix of kinds, a parameter, an unpacked name, no bias: no facet
    "def f(q, k, v, B, H):\n    bias = torch.zeros([B * H, q.shape[1], k.shape[1]])\n"
    "    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n",
    "def f(q, k, v, lens, c):\n    bias = BlockDiagonalMask.from_seqlens(lens)\n    if c:\n"
    "        bias = torch.zeros(3)\n    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n",
    "def f(q, k, v, bias=None):\n    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n",
    "def f(q, k, v, lens):\n    bias, n = BlockDiagonalMask.from_seqlens(lens), 1\n"
    "    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n",
    "def f(q, k, v, lens, extra):\n    bias = BlockDiagonalMask.from_seqlens(lens)\n    for bias in extra:\n        pass\n"
    "    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n",
    "def f(q, k, v):\n    return xops.memory_efficient_attention(q, k, v)\n",
    "def f(q, k, v):\n    bias = None\n    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)\n",
])
def test_no_facet_where_the_bias_is_a_tensor_mixed_or_unknown(body):
    assert _facet(body) == (None, None)
