"""Shell assignments of environment variables that no program of the script sees (analyzer/context/unexported.py;
round 18 A43: `NCCL_DEBUG=INFO` on its own line of a launch script)."""

import pytest

from tests.helpers import scan


def _reach(script: str, rule: str = "DST039") -> list[tuple[int, str]]:
    return [(f.line, f.reach) for f in scan(script, "shell").findings if f.rule == rule]


def test_a_bare_assignment_no_program_sees_is_listed_not_counted():
    found = [f for f in scan("#!/bin/bash\nNCCL_DEBUG=INFO\ntorchrun --nproc_per_node 8 train.py\n", "shell").findings
             if f.rule == "DST039"]
    assert [(f.line, f.reach, f.counted) for f in found] == [(2, "cosmetic", False)]
    assert "never exports or reads" in found[0].reach_reason


@pytest.mark.parametrize("script", [
    "export NCCL_P2P_DISABLE=1\npython train.py\n",                       # exported where it is set
    "NCCL_P2P_DISABLE=1\nexport NCCL_P2P_DISABLE\npython train.py\n",            # exported later
    "NCCL_P2P_DISABLE=1\ndeclare -x NCCL_P2P_DISABLE\npython train.py\n",
    "set -a\nNCCL_P2P_DISABLE=1\npython train.py\n",                       # every assignment exported
    "set -o allexport\nNCCL_P2P_DISABLE=1\npython train.py\n",
    "NCCL_P2P_DISABLE=1\ndocker run -e NCCL_P2P_DISABLE=$NCCL_P2P_DISABLE image\n",    # read: handed on
    "NCCL_P2P_DISABLE=1\n",                                                # assignments only: a file others source
    "NCCL_P2P_DISABLE=1 python train.py\n",                                # a prefix: set for that command
])
def test_an_assignment_a_program_may_see_keeps_its_reach(script):
    assert {reach for _, reach in _reach(script)} == {"runs"}


def test_a_variable_the_job_environment_exports_already_keeps_its_reach():
    found = [f for f in scan("CUDA_VISIBLE_DEVICES=2,3\npython train.py\n", "shell").findings]
    assert found and all(f.reach == "runs" for f in found)
