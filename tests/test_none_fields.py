"""Fields torch_npu leaves None, read where None raises (domains/device/none_fields.py), followed through a store."""

import pytest
from ascend_feasibility.domains.device.none_fields import computed_none_fields

from tests.snippets import node_at

FIELDS = frozenset({"major", "minor", "warp_size"})
CLASS = """class Env:
    def __init__(self):
        prop = torch.cuda.get_device_properties(0)
        self.major = prop.major
        self.name = prop.name

    @staticmethod
    def show(envs):
        for env in envs:
            logger.info(USE)
"""


def fields(code: str) -> list[str]:
    return computed_none_fields(node_at(code, "torch.cuda.get_device_properties(0)"), FIELDS)


@pytest.mark.parametrize(("use", "expected"), [
    ('"cap = {:2d}".format(env.major)', ["major"]),  # metaseq's CudaEnvironment: TypeError at Trainer init
    ('"{} cap = {:.1f}".format(env.name, env.major)', ["major"]),  # the second automatic field
    ('"cap = {m:d}".format(m=env.major)', ["major"]),
    ('f"cap = {env.major:>3}"', ["major"]),  # any non-empty spec raises for None
    ('"cap = {}".format(env.major)', []),  # shown as "None"
    ('"cap = {!r:>4}".format(env.major)', []),  # converted to a string first
    ('f"cap = {env.major}"', []),
    ('"{:10s} cap = {}".format(env.name, env.major)', []),
    ("env.major >= 8", ["major"]),  # compared anywhere in the class
])
def test_a_field_stored_on_self_then_used_in_the_class(use, expected):
    assert fields(CLASS.replace("USE", use)) == expected


@pytest.mark.parametrize(("use", "expected"), [
    ('return f"{major:d}"', ["major"]),
    ("return major * 10", ["major"]),
    ('return "{}".format(major)', []),
    ("return major", []),
])
def test_a_field_stored_in_a_local(use, expected):
    code = f"def f():\n    prop = torch.cuda.get_device_properties(0)\n    major = prop.major\n    {use}\n"
    assert fields(code) == expected
