"""An NCCL interface variable whose value only excludes docker and the loopback: HCCL's own default (info)."""

from __future__ import annotations

import pytest
from ascend_feasibility.domains.distributed.interface_exclusions import excludes_only_default_skipped

from tests.helpers import scan


@pytest.mark.parametrize(("value", "expected"), [
    ("^docker0,lo", True), ("^=docker0,lo", True), ("^lo", True), (" ^docker ", True),
    ("eth0", False), ("=eth0", False), ("^eth0,lo", False), ("^docker0,eth1", False), ("docker0", False), ("^", False),
])
def test_exclusion_of_docker_and_loopback_only(value, expected):
    assert excludes_only_default_skipped(value) is expected


def _dst030(code: str, language: str = "python") -> list[tuple[int, str]]:
    return [(f.line, f.severity.value if hasattr(f.severity, "value") else f.severity)
            for f in scan(code, language).findings if f.rule == "DST030"]


def test_python_exclusion_value_is_info_and_an_interface_name_stays_low():
    code = ('import os\ndef launch():\n    env = dict(os.environ)\n    env["NCCL_SOCKET_IFNAME"] = "^docker0,lo"\n'
            '    os.environ["NCCL_SOCKET_IFNAME"] = "eth0"\n    os.environ.setdefault("NCCL_SOCKET_IFNAME", "^lo")\n')
    assert _dst030(code) == [(4, "info"), (5, "low"), (6, "info")]


def test_shell_exclusion_value_is_info_and_an_interface_name_stays_low():
    code = "export NCCL_SOCKET_IFNAME=^docker0,lo\nexport NCCL_SOCKET_IFNAME='eth0'\nNCCL_SOCKET_IFNAME=$IFACE python t.py\n"
    assert _dst030(code, "shell") == [(1, "info"), (2, "low"), (3, "low")]
