"""`ascend-feasibility port`: rewrite the mechanical sites of a report into a reviewed patch (issue 15).

Its names load on first use (PEP 562), so that a command that never ports (analyze) does not load port's modules."""

import importlib

_HOMES = {
    "STYLES": "command_names", "ApplyError": "command_names", "PortOptions": "core", "PortResult": "core",
    "eligible": "core", "port": "core", "render_device_module": "core", "apply": "patch", "unified_diff": "patch",
    "RuleTally": "summary", "summarize": "summary",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
