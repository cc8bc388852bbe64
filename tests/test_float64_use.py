"""Where a float64 tensor made on the device goes in its function (domains/precision/float64_use.py): reduced across
processes (HCCL rejects float64 there), only read back for reporting, or anything else (None: the dtype's own rule)."""

import pytest
from ascend_feasibility.domains.precision.float64_use import fate

from tests.snippets import node_at

MAKE = 't = torch.tensor([a, b], dtype=torch.float64, device="cuda")'


def fate_of(body: str, make: str = MAKE) -> str | None:
    code = "def f(a, b, xs):\n    " + make + "\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return fate(node_at(code, "torch.float64"))


@pytest.mark.parametrize(("body", "expected"), [
    ("dist.all_reduce(t)\nreturn t.tolist()", "reduced"),
    ("torch.distributed.reduce(t, dst=0)", "reduced"),
    ("dist.reduce_scatter_tensor(out, t)", "reduced"),
    ("all_reduce(t)", "reduced"),  # imported bare
    ("t.add_(1)\nparts = []\nparts.append(t)\nparts = torch.stack(parts)\ndist.all_reduce(parts)", "reduced"),
    ("u = t.view(-1)\ndist.all_reduce(u)", "reduced"),
    ("dist.broadcast(tensor=t, src=0)\nv = float(t.cpu())", "reported"),
    ("dist.all_gather(out, t)\nprint(t.item())", "reported"),
    ("n = t.shape[0]\nreturn t.tolist()", "reported"),
    ("t = t.tolist()\nt.append(3)", "reported"),  # the name is rebound on the host: later uses are a list's
    ("logger.info(t)", "reported"),
    ("return t", None),  # handed on
    ("y = xs * t\nreturn t.item()", None),  # computed with on the device
    ("t.add_(1)\nreturn float(t)", None),
    ("self.t = t", None),
    ("functools.reduce(g, t)", None),  # not a collective
    ("g(t)", None),
    ("", None),  # nothing read back
    ("x.t = 1\nz = g(t=1)\nreturn t.item()", "reported"),  # a member and a keyword named t are not the tensor
])
def test_where_the_tensor_goes(body, expected):
    assert fate_of(body) == expected


@pytest.mark.parametrize("make", [
    "t = torch.tensor([a, b], dtype=torch.float64)",  # made on the CPU
    'torch.tensor([a, b], dtype=torch.float64, device="cpu")',
    "t = xs.to(torch.float64)",  # a cast: float32 on the NPU, no factory
    't = g(torch.tensor([a, b], dtype=torch.float64, device="cuda"))',  # not bound by itself
    't[0] = torch.tensor([a, b], dtype=torch.float64, device="cuda")',
])
def test_only_a_tensor_made_on_the_device_and_bound_to_a_name_is_followed(make):
    assert fate_of("dist.all_reduce(t)", make) is None
