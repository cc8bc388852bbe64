"""Project methods a library calls by name: reached wherever the project calls the library's hook.

diffusers' `unet.enable_xformers_memory_efficient_attention()` (ModelMixin, DiffusionPipeline) walks every child
module and calls `set_use_memory_efficient_attention_xformers(True, op)` on each one that has it, so a project's own
attention class defining that method runs it although no file of the project names it (knowledge
conventions.toml opt_in.library_hooks: hook -> the method names it calls). guards' and opt_in's per-file reading
calls such a method "named for xformers and called nowhere in this file": where a counted hook call runs (its own
finding, ATT012, with reach `runs`: no guard, no try), the method's sites are reached through it, and their reason says
so; they stay uncounted, because the fix ATT012 prices (remove or guard the hook call) leaves the method unreached
(round 30: magic-animate's probes priced as two more xformers rewrites beside that one-line fix).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.core.models import Finding

# the definition a reach reason ends with (opt_in's library function: `...; line 248: set_use_..._xformers`)
NAMED_DEFINITION = re.compile(r"line \d+: ([A-Za-z_][A-Za-z_0-9]*)$")


def hooked_methods(findings: list[Finding], hooks: dict[str, list[str]]) -> dict[str, str]:
    """method name -> where the project calls, with no guard, a library hook that calls it (the first such call):
    read from the hook calls' own findings (their symbol is the hook's name)."""
    reached: dict[str, str] = {}
    for finding in sorted(findings, key=lambda f: (f.path, f.line)):
        methods = hooks.get(finding.symbol)
        if not methods or finding.reach != "runs" or finding.role not in COUNTED_ROLES:
            continue
        for method in methods:
            reached.setdefault(method, f"{finding.symbol}() at {finding.path}:{finding.line}")
    return reached


def hooked_reason(finding: Finding, reached: dict[str, str]) -> str | None:
    """Why an optional site inside a method only a library hook calls is reached after all (None when it is not): the
    method its reason names (`...; line 248: set_use_memory_efficient_attention_xformers`) is one a hook call the
    project makes reaches."""
    if finding.reach != "optional" or finding.role not in COUNTED_ROLES:
        return None
    found = NAMED_DEFINITION.search(finding.reach_reason or "")
    method = found.group(1) if found is not None else None
    where = reached.get(method) if method is not None else None
    if where is None:
        return None
    return (f"{method}() is called by the library on every submodule: the project calls {where} with no guard; "
            "removing or guarding that call (ATT012, priced there) leaves this method unreached")
