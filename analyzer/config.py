"""Settings an analyzed project keeps in its own pyproject.toml under [tool.ascend-feasibility]."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from analyzer.models import PHASES, ROLES, SkippedFile

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass
class ProjectConfig:
    exclude: list[str] = field(default_factory=list)
    phases: dict[str, list[str]] = field(default_factory=dict)  # phase → globs of files that belong to it
    console_modules: list[str] = field(default_factory=list)  # modules of [project.scripts] entry points
    roles: dict[str, list[str]] = field(default_factory=dict)  # role → globs of files that have it
    problems: list[SkippedFile] = field(default_factory=list)


def load_project_config(root: Path) -> ProjectConfig:
    """Read the table if present. A malformed file or table is reported, never fatal."""
    config = ProjectConfig()
    path = root / "pyproject.toml"
    if not path.is_file():
        return config
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        config.problems.append(SkippedFile(path="pyproject.toml", reason=f"settings not read: {exc}"))
        return config
    scripts = data.get("project", {}).get("scripts", {}) if isinstance(data.get("project"), dict) else {}
    if isinstance(scripts, dict):
        config.console_modules = sorted({str(v).split(":")[0].strip() for v in scripts.values() if isinstance(v, str)})
    table = data.get("tool", {}).get("ascend-feasibility", {})
    if not isinstance(table, dict):
        config.problems.append(SkippedFile(path="pyproject.toml", reason="[tool.ascend-feasibility] is not a table"))
        return config
    exclude = table.get("exclude", [])
    if isinstance(exclude, list) and all(isinstance(item, str) for item in exclude):
        config.exclude = list(exclude)
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
    _read_roles(table, config)
    return config


def _read_roles(table: dict, config: ProjectConfig) -> None:
    roles = table.get("roles", {})
    for role, globs in roles.items() if isinstance(roles, dict) else []:
        if role in ROLES and isinstance(globs, list) and all(isinstance(g, str) for g in globs):
            config.roles[role] = list(globs)
        else:
            config.problems.append(SkippedFile(
                path="pyproject.toml",
                reason=f"[tool.ascend-feasibility.roles] {role}: expected one of {', '.join(ROLES)} with a list of globs",
            ))
