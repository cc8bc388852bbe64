"""Settings an analyzed project keeps in its own pyproject.toml under [tool.ascend-feasibility]."""

from __future__ import annotations

import configparser
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ascend_feasibility.analyzer.core.models import PHASES, ROLES, SkippedFile
from ascend_feasibility.analyzer.reading.install_docs import linked_usage_docs
from ascend_feasibility.analyzer.reading.source import Unreadable, read_contained

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
    distribution: str = ""  # [project] name, else setup.py's literal `setup(name=...)`: what the project publishes itself as
    roles: dict[str, list[str]] = field(default_factory=dict)  # role → globs of files that have it
    problems: list[SkippedFile] = field(default_factory=list)
    # the root README's text (its first MAX_README_BYTES): the generation of a model it points users to, where the
    # project keeps several side by side (domains/phases/generations.py)
    readme: str = ""
    # the texts of the guides the README hands its usage to (install_docs.linked_usage_docs: INSTALL.md,
    # GETTING_STARTED.md): the commands they tell a user to run or install are the README's own, handed on
    guides: list[str] = field(default_factory=list)
    # the files read here that the scan reads too (the README is an install document): path → bytes, not read twice
    read: dict[str, bytes] = field(default_factory=dict)
    # folders besides src/ that the build maps packages into (pyproject [tool.setuptools] package-dir, setup.cfg
    # [options] package_dir: `"" = "lib"`, `pkg = "lib/pkg"`): where the installed project's packages sit
    source_roots: list[str] = field(default_factory=list)


MAX_README_BYTES = 256 * 1024
README_NAMES = ("README.md", "readme.md", "README.rst", "README.txt", "README")


def load_project_config(root: Path) -> ProjectConfig:
    """Read the table if present. A malformed file or table is reported, never fatal."""
    config = ProjectConfig()
    found = root_readme(root)
    if found is not None:
        name, data = found
        config.readme, config.read[name] = data.decode("utf-8", errors="replace"), data
        config.guides = _guides(root, config.readme)
    config.source_roots = _setup_cfg_roots(root)
    config.distribution = setup_py_name(root)  # pyproject's [project] name, read below, wins
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
    if isinstance(project, dict) and isinstance(project.get("name"), str):
        config.distribution = project["name"]
    scripts = project.get("scripts", {}) if isinstance(project, dict) else {}
    if isinstance(scripts, dict):
        config.console_modules = sorted({str(v).split(":")[0].strip() for v in scripts.values() if isinstance(v, str)})
    tool = data.get("tool", {})
    setuptools = tool.get("setuptools", {}) if isinstance(tool, dict) else {}
    mapping = setuptools.get("package-dir", {}) if isinstance(setuptools, dict) else {}
    if isinstance(mapping, dict):
        config.source_roots = _merged(config.source_roots, package_dir_roots(mapping.items()))
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
    config.phases = _glob_table(table, "phases", PHASES, config.problems)
    config.roles = _glob_table(table, "roles", ROLES, config.problems)
    return config


def _guides(root: Path, readme: str) -> list[str]:
    found = []
    for path in sorted(linked_usage_docs(readme)):
        try:
            found.append(read_contained(root, path, MAX_README_BYTES).decode("utf-8", errors="replace"))
        except Unreadable:
            continue  # a link to a file the tree lacks, or one leaving it
    return found


def package_dir_roots(mapping) -> list[str]:
    """The folders a package-dir mapping's (package, folder) pairs put top-level packages in: `"" = "lib"` maps the
    root package to lib/; `pkg = "lib/pkg"` puts pkg in lib/. The root itself, subpackages (`a.b`), absolute folders
    and folders climbing out (`..`) give none."""
    roots: list[str] = []
    for name, folder in mapping:
        if not isinstance(name, str) or not isinstance(folder, str):
            continue
        parts = [part for part in folder.strip().split("/") if part not in {"", "."}]
        if folder.strip().startswith("/") or ".." in parts or "." in name:
            continue
        if name.strip():
            if len(parts) < 2 or parts[-1] != name.strip():
                continue
            parts = parts[:-1]
        if parts:
            roots = _merged(roots, ["/".join(parts)])
    return roots


def _merged(first: list[str], second: list[str]) -> list[str]:
    return first + [item for item in second if item not in first]


def _setup_cfg_roots(root: Path) -> list[str]:
    """setup.cfg's [options] package_dir roots (one `package = folder` per line, `=src` for the root package)."""
    try:
        text = read_contained(root, "setup.cfg", MAX_SETTINGS_BYTES).decode("utf-8", errors="replace")
    except Unreadable:
        return []
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
        value = parser.get("options", "package_dir", fallback="")
    except (configparser.Error, RecursionError):
        return []
    lines = [line.split("=", 1) for line in value.splitlines() if "=" in line]
    return package_dir_roots((name.strip(), folder.strip()) for name, folder in lines)


def setup_py_name(root: Path) -> str:
    """The name the root setup.py publishes the project under: a string literal passed as `name=` to a module-level
    `setup(...)` / `setuptools.setup(...)` call (StableSR's `setup(name='StableSR', packages=find_packages())`), read
    from the syntax tree, never run; "" where there is none or the name is computed."""
    try:
        data = read_contained(root, "setup.py", MAX_SETTINGS_BYTES)
    except Unreadable:
        return ""
    from ascend_feasibility.analyzer.reading import parsing

    tree = parsing.parse("python", data)
    if parsing.over_budget(tree) is not None:
        return ""
    names = set()
    for node in parsing.walk(tree, limit=100_000):
        if node.type != "call" or parsing.callee_name(node) != "setup":
            continue
        arguments = node.child_by_field_name("arguments")
        for argument in arguments.named_children if arguments is not None else ():
            key = argument.child_by_field_name("name") if argument.type == "keyword_argument" else None
            value = argument.child_by_field_name("value") if key is not None else None
            if key is not None and parsing.text(key) == "name" and value is not None and value.type == "string":
                inner = [child.type for child in value.named_children]
                if inner == ["string_start", "string_content", "string_end"]:  # a plain literal, no f-string part
                    names.add(parsing.text(value.named_children[1]))
    return names.pop() if len(names) == 1 else ""


def root_readme(root: Path) -> tuple[str, bytes] | None:
    """The root README's name and bytes, or None where there is none or it cannot be read inside the root."""
    for name in README_NAMES:
        try:
            return name, read_contained(root, name, MAX_README_BYTES)
        except Unreadable:
            continue
    return None


def _valid_glob(glob: str) -> bool:
    try:
        re.compile(fnmatch.translate(glob))
    except re.error:
        return False
    return True


def _glob_table(table: dict, key: str, allowed: tuple[str, ...], problems: list[SkippedFile]) -> dict[str, list[str]]:
    """[tool.ascend-feasibility.KEY]: NAME = [globs] for each allowed NAME; anything else is reported."""
    result: dict[str, list[str]] = {}
    entries = table.get(key, {})
    for name, globs in entries.items() if isinstance(entries, dict) else []:
        if name in allowed and isinstance(globs, list) and all(isinstance(g, str) and _valid_glob(g) for g in globs):
            result[name] = list(globs)
        else:
            problems.append(SkippedFile(
                path="pyproject.toml",
                reason=f"[tool.ascend-feasibility.{key}] {name}: expected one of {', '.join(allowed)} with a list of globs",
            ))
    return result
