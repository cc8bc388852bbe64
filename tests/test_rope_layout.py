"""Which elements a complex RoPE pairs, read from the reshape in front of torch.view_as_complex (PRC030's facets)."""

import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.precision.rope_layout import ADJACENT, HALVES, pairing


def _layout(code: str) -> str | None:
    root = parsing.parse("python", code.encode())
    calls = [n for n in _walk(root) if n.type == "call" and parsing.text(n.child_by_field_name("function")).endswith("view_as_complex")]
    return pairing(calls[-1])


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


@pytest.mark.parametrize("code, expected", [
    ("x = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))", ADJACENT),
    ("x = torch.view_as_complex(x.float().view(*shape[:-1], -1, 2))", ADJACENT),
    ("x = torch.view_as_complex(h.to(dtype).unflatten(3, (-1, 2)))", ADJACENT),
    ("x = torch.view_as_complex(x[i].to(torch.float64).reshape(s, n, -1, 2))", ADJACENT),
    # llm-awq tinychat qwen2.py:77: halves, rotate_half's layout
    ("x = torch.view_as_complex(\n    xq.float().reshape(*xq.shape[:-1], 2, -1).transpose(-2, -1).contiguous()\n)", HALVES),
    ("x = torch.view_as_complex(xq.float().reshape(b, s, h, 2, d // 2).transpose(-1, -2))", HALVES),
    ("def f(xq):\n    xq_ = xq.float().reshape(*xq.shape[:-1], 2, -1).transpose(-2, -1)\n    return torch.view_as_complex(xq_)", HALVES),
    ("def f(xq):\n    xq_ = xq.float().reshape(*xq.shape[:-1], -1, 2)\n    return torch.view_as_complex(xq_)", ADJACENT),
    # nanotron llama.py: view(..., d // 2, 2), then a dtype change in an if: still adjacent
    ("def f(x):\n    x = x.view(b, s, h, d // 2, 2)\n    if x.dtype == torch.bfloat16:\n        x = x.float()\n    return torch.view_as_complex(x)", ADJACENT),
    ("def f(x):\n    x = x.view(b, s, h, d // 2, 2)\n    if halves:\n        x = x.reshape(b, s, h, 2, -1).transpose(-2, -1)\n    return torch.view_as_complex(x)", None),
    # not read: a tensor from elsewhere, a transpose that is not of the last two, a reshape ending in 2 after a transpose
    ("x = torch.view_as_complex(y)", None),
    ("x = torch.view_as_complex(xq.reshape(*xq.shape[:-1], 2, -1).transpose(1, 2))", None),
    ("x = torch.view_as_complex(xq.reshape(*xq.shape[:-1], -1, 2).transpose(-2, -1))", None),
    ("x = torch.view_as_complex(torch.stack([a, b], dim=-1))", None),
])
def test_the_pairing_is_read_from_the_reshape(code, expected):
    assert _layout(code) == expected
