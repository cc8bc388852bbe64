"""Files the tool itself wrote into a project: `port`'s device module (`<pkg>/_device.py`, `<name>_device.py`, ...) and
its `verify_npu.py`. They are analysed for the project's context (imports, phases) but their findings are not
reported: they are the tool's answer, not the project's code, and a second `port` must not rewrite them (issue 22)."""

from __future__ import annotations

PORT_MARK = "Written by ascend-feasibility port"  # in the device module's docstring and in verify_npu.py
VERIFY_NAME = "verify_npu.py"
DEVICE_MODULE_SUFFIX = "_device.py"
_MARK_BYTES = PORT_MARK.encode("utf-8")
GENERATED_REASON = "written by ascend-feasibility port: analysed for context, its findings are not reported"


def written_by_port(path: str, data: bytes) -> bool:
    """Is this project file one that `port` wrote? Its name is one port gives and it carries port's mark (the name
    keeps a project's own module that merely quotes the mark, like this tool's own source, a project file)."""
    name = path.rsplit("/", 1)[-1]
    return (name == VERIFY_NAME or name.endswith(DEVICE_MODULE_SUFFIX)) and _MARK_BYTES in data
