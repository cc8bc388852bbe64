"""`ascend-feasibility port`: rewrite the mechanical sites of a report into a reviewed patch (issue 15)."""

from ascend_feasibility.analyzer.port.core import STYLES, PortOptions, PortResult, eligible, port, render_device_module
from ascend_feasibility.analyzer.port.patch import ApplyError, apply, unified_diff
from ascend_feasibility.analyzer.port.summary import RuleTally, summarize

__all__ = [
    "STYLES", "ApplyError", "PortOptions", "PortResult", "RuleTally", "apply", "eligible", "port",
    "render_device_module", "summarize", "unified_diff",
]
