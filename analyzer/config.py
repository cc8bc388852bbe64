"""Settings an analyzed project keeps in its own pyproject.toml under [tool.ascend-feasibility]."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from analyzer.models import PHASES, SkippedFile
from analyzer.source import Unreadable, read_contained

MAX_SETTINGS_BYTES = 1024 * 1024

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass
class ProjectConfig:
    exclude: list[str] = field(default_factory=list)
    phases: dict[str, list[str]] = field(default_factory=dict)  # phase → globs of files that belong to it
    console_modules: list[str] = field(default_factory=list)  # modules of [project.scripts] entry points
    problems: list[SkippedFile] = field(default_factory=list)


def load_project_config(root: Path) -> ProjectConfig:
    """Read the table if present. A malformed file or table is reported, never fatal."""
    config = ProjectConfig()
    try:
        os.lstat(root / "pyproject.toml")
    except OSError:
        return config
    try:
        text = read_contained(root, "pyproject.toml", MAX_SETTINGS_BYTES).decode("utf-8", errors="replace")
        data = tomllib.loads(text)
    except Unreadable as exc:
        config.problems.append(SkippedFile(path="pyproject.toml", reason=f"settings not read: {exc}"))
        return config
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:200]
        config.problems.append(SkippedFile(path="pyproject.toml", reason=f"settings not read: {reason}"))
        return config
    project = data.get("project")
    scripts = project.get("scripts", {}) if isinstance(project, dict) else {}
    if isinstance(scripts, dict):
        config.console_modules = sorted({str(v).split(":")[0].strip() for v in scripts.values() if isinstance(v, str)})
    tool = data.get("tool", {})
    table = tool.get("ascend-feasibility", {}) if isinstance(tool, dict) else {}
    if not isinstance(tool, dict):
        config.problems.append(SkippedFile(path="pyproject.toml", reason="settings not read: [tool] is not a table"))
    if not isinstance(table, dict):
        config.problems.append(SkippedFile(path="pyproject.toml", reason="[tool.ascend-feasibility] is not a table"))
        return config
    exclude = table.get("exclude", [])
    if isinstance(exclude, list) and all(isinstance(item, str) for item in exclude):
        config.exclude = list(exclude)  # bad globs are reported by discovery, pattern by pattern
    else:
        config.problems.append(
            SkippedFile(path="pyproject.toml", reason="[tool.ascend-feasibility] exclude must be a list of strings")
        )
    phases = table.get("phases", {})
    for phase, globs in phases.items() if isinstance(phases, dict) else []:
        if phase in PHASES and isinstance(globs, list) and all(isinstance(g, str) for g in globs):
            config.phases[phase] = list(globs)
        else:
            config.problems.append(SkippedFile(
                path="pyproject.toml",
                reason=f"[tool.ascend-feasibility.phases] {phase}: expected one of {', '.join(PHASES)} with a list of globs",
            ))
    return config
