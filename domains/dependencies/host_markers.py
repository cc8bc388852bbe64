"""Requirement lines an environment marker keeps off the usual Ascend host (DEP001's other-host-arm variant): Ascend
servers are Linux aarch64, so `onnxruntime-gpu; platform_machine == "x86_64"` beside `onnxruntime;
platform_machine == "aarch64"` installs the CPU package there, not the CUDA one (round 25 B1 C5 row 23, GPT-SoVITS).
The marker is judged by what it does on the two Linux machines, all else (the Python version) as here, so a
`python_version` marker says nothing of the host."""
from __future__ import annotations

from ascend_feasibility.analyzer.reading.manifests import Declaration
from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName

ASCEND_HOST = {"platform_machine": "aarch64", "platform_system": "Linux", "sys_platform": "linux", "os_name": "posix"}
X86_HOST = {**ASCEND_HOST, "platform_machine": "x86_64"}


def _selects(site: Declaration) -> tuple[bool, bool] | None:
    """(installed on Linux aarch64, installed on Linux x86_64) by the line's marker; None without one."""
    _, sep, text = site.text.partition(";")
    if not sep or not text.strip():
        return None
    try:
        marker = Marker(text.split("#")[0].strip())
        return marker.evaluate(ASCEND_HOST), marker.evaluate(X86_HOST)
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return None


def aarch64_counterpart(site: Declaration, same_file: list[Declaration]) -> Declaration | None:
    """The line of the same file that the Ascend host installs in place of `site`: `site`'s marker keeps it off
    Linux aarch64 (and not off x86_64), and another line's marker selects it on aarch64 only. None otherwise."""
    if _selects(site) != (False, True):
        return None
    return next((other for other in same_file if other is not site and _selects(other) == (True, False)), None)
