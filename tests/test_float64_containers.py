"""A float64 tensor stored into a container item whose values are grouped, moved to the device and reduced
(domains/precision/float64_containers.py): metaseq's all_reduce_dict shape."""

import pytest
from ascend_feasibility.domains.precision.float64_containers import reduced_through_container

from tests.snippets import node_at

WRAPPER = "def all_reduce(tensor, group, op='sum'):\n    dist.all_reduce(tensor, op=op, group=group)\n    return tensor\n\n"
STORE = """def sync(data, device, group):
    cpu_data, device_data = {}, {}
    for k in data:
        t = data[k]
        if not torch.is_tensor(t):
            cpu_data[k] = torch.tensor(t, dtype=torch.double)
        elif t.device.type != device.type:
            cpu_data[k] = t.to(dtype=torch.double)
        else:
            device_data[k] = t.to(dtype=torch.double)

    def _reduce(data):
        buf = torch.cat([t.view(-1) for t in data.values()])MOVE
        REDUCE(buf, group=group)
        return torch.split(buf, [t.numel() for t in data.values()])

    return _reduce(cpu_data), _reduce(device_data)
"""


def symbol(code: str, occurrence: int) -> str | None:
    return reduced_through_container(node_at(code, "torch.double", occurrence))


@pytest.mark.parametrize(("move", "reduce", "expected"), [
    (".to(device=device)", "all_reduce", [True, True, False]),  # the device arm's cast is float32 on the NPU
    (".cuda()", "dist.all_reduce", [True, True, False]),
    ("", "all_reduce", [False, False, False]),  # never moved: host tensors, not HCCL's float64
    (".to(device=device)", "dist.broadcast", [False, False, False]),  # broadcast takes float64
])
def test_stored_grouped_moved_and_reduced(move, reduce, expected):
    code = WRAPPER + STORE.replace("MOVE", move).replace("REDUCE", reduce)
    assert [symbol(code, i) is not None for i in range(3)] == expected


def test_a_project_wrapper_of_another_name_reduces():
    code = WRAPPER.replace("def all_reduce", "def sum_over_ranks") + STORE.replace("MOVE", ".to(device=device)")\
        .replace("REDUCE", "sum_over_ranks")
    assert symbol(code, 0) == "torch.tensor(t, dtype=torch.double)"


def test_a_wrapper_that_does_not_reduce_its_argument_is_not_one():
    wrapper = "def sum_over_ranks(tensor, group):\n    dist.broadcast(tensor, 0)\n\n"
    code = wrapper + STORE.replace("MOVE", ".to(device=device)").replace("REDUCE", "sum_over_ranks")
    assert symbol(code, 0) is None


def test_a_device_factory_stored_and_stacked_needs_no_move():
    code = ("def sync(names):\n    stats = {}\n    for n in names:\n"
            "        stats[n] = torch.zeros(2, dtype=torch.double, device='cuda')\n"
            "    total = torch.stack(list(stats.values()))\n    dist.all_reduce(total)\n    return total.tolist()\n")
    assert symbol(code, 0) == "torch.zeros(2, dtype=torch.double, device='cuda')"


def test_a_container_grouped_for_the_host_only_is_left_alone():
    code = ("def sync(names):\n    stats = {}\n    for n in names:\n        stats[n] = torch.zeros(2, dtype=torch.double)\n"
            "    total = torch.stack(list(stats.values()))\n    return total.tolist()\n")
    assert symbol(code, 0) is None
