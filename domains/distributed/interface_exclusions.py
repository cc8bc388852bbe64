"""An interface variable whose value only excludes what HCCL's own default already passes over.

`NCCL_SOCKET_IFNAME=^docker0,lo` (metaseq's slurm launcher) tells NCCL to skip the docker bridge and the loopback.
HCCL_SOCKET_IFNAME takes the same syntax (`^eth,enp` excludes those prefixes, `^=eth0` exact names), and unset, HCCL
picks an interface other than docker/lo first (names in ascending order), then docker, then lo (CANN environment
variable reference, HCCL_SOCKET_IFNAME). Such a value names no interface of the GPU cluster: on Ascend it is the
default, and the same text is portable if the port wants it spelled out.
"""

from __future__ import annotations

DEFAULT_EXCLUSION = "default-exclusion"  # DST030's facet: the value only excludes docker*/lo
SKIPPED_PREFIX = "docker"
LOOPBACK = "lo"


def excludes_only_default_skipped(value: str) -> bool:
    """`^docker0,lo`, `^=docker0`, `^lo`: an exclusion list (`^`, or `^=` for exact names) naming only docker
    interfaces and the loopback."""
    value = value.strip()
    if not value.startswith("^"):
        return False
    names = [name.strip() for name in value[1:].removeprefix("=").split(",")]
    return bool(names) and all(name.startswith(SKIPPED_PREFIX) or name == LOOPBACK for name in names)
