"""Where a Python project declares its dependencies, read statically: requirements files (with -r/-c includes),
pyproject.toml (PEP 621, PEP 735 groups, Poetry, PDM), setup.py (the setup() call's syntax tree; never run),
setup.cfg, conda environment files, and pip/conda installs in Dockerfiles, shell scripts and notebooks.

Each parser returns declarations and problems; a malformed line or table is a problem, never an exception."""

from __future__ import annotations

import configparser
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml
from ascend_feasibility.analyzer.reading import bounded_yaml, parsing
from ascend_feasibility.analyzer.reading.source import Unreadable, read_contained
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from tree_sitter import Node

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_INCLUDE_DEPTH = 5
MAX_VERSION_DIGITS = 30  # packaging converts release numbers to int; thousands of digits exceed Python's limit
_WHEEL_NAME = re.compile(r"^([A-Za-z0-9_.]+?)-\d")


@dataclass(frozen=True)
class Declaration:
    name: str  # canonical distribution name
    specifier: str  # e.g. ">=2.1,<2.3" or "" ; conda specs are converted
    path: str
    line: int  # 1-based
    source: str  # requirements, pyproject, setup.py, setup.cfg, conda, pip-install
    group: str = "main"  # main, an extra's name, dev
    text: str = ""  # the declaration as written
    local_version: str = ""  # "+cu121" and the like


@dataclass(frozen=True)
class Problem:
    path: str
    reason: str


def parse_requirement_text(text: str, path: str, line: int, source: str, group: str = "main") -> Declaration | Problem | None:
    """One requirement as pip reads it: `name[extras] specifier ; marker`, `name @ url`, a wheel URL or path."""
    text = text.strip()
    if not text:
        return None
    if "://" in text and " @ " not in text and not text.startswith(("git+", "hg+", "svn+")):
        wheel = _WHEEL_NAME.match(text.rsplit("/", 1)[-1].split("#")[0])
        if wheel:
            return Declaration(canonicalize_name(wheel.group(1)), "", path, line, source, group, text)
        return None
    if text.startswith(("git+", "hg+", "svn+", ".", "/")) or "#egg=" in text:
        egg = text.split("#egg=", 1)[1].split("&")[0] if "#egg=" in text else PurePosixPath(text.rstrip("/")).name
        name = re.split(r"[^A-Za-z0-9_.\-]", egg)[0]
        return Declaration(canonicalize_name(name), "", path, line, source, group, text) if name else None
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        return Problem(path, f"line {line}: not a requirement ({str(exc).splitlines()[0]})")
    if any(_too_many_digits(spec.version) for spec in requirement.specifier):
        return Problem(path, f"line {line}: version number longer than {MAX_VERSION_DIGITS} digits (not read)")
    local = ""
    for spec in requirement.specifier:
        if "+" in spec.version:
            local = "+" + spec.version.split("+", 1)[1]
    return Declaration(canonicalize_name(requirement.name), str(requirement.specifier), path, line, source, group, text, local)


def parse_requirements(root: Path, relative: str, text: str, depth: int = 0, seen: frozenset = frozenset()):
    """A requirements file and the files it includes with -r/-c (inside the project only)."""
    declarations: list[Declaration] = []
    problems: list[Problem] = []
    lines = text.split("\n")
    row = 0
    while row < len(lines):
        start = row
        logical = lines[row]
        while logical.rstrip().endswith("\\") and row + 1 < len(lines):
            row += 1
            logical = logical.rstrip()[:-1] + " " + lines[row]
        row += 1
        content = re.split(r"(^|\s)#", logical, maxsplit=1)[0].strip()
        if not content:
            continue
        if content.startswith(("-r ", "-c ", "--requirement", "--constraint", "-r", "-c")) and not content.startswith("-e"):
            target = content.split(None, 1)[1] if " " in content else content[2:]
            target = target.split("=", 1)[-1].strip() if target.startswith("=") or content.startswith("--") else target.strip()
            included, problem = _include(root, relative, target, depth, seen)
            if problem:
                problems.append(problem)
            elif included is not None:
                more, more_problems = parse_requirements(root, included[0], included[1], depth + 1, seen | {relative})
                declarations += more
                problems += more_problems
            continue
        if content.startswith(("-e ", "--editable")):
            content = content.split(None, 1)[1] if " " in content else ""
        elif content.startswith("-"):
            continue  # --index-url, --extra-index-url, -f, --pre ...: options, not packages
        content = re.split(r"\s--?[a-z]", " " + content, maxsplit=1)[0].strip()  # per-requirement options (--hash ...)
        parsed = parse_requirement_text(content, relative, start + 1, "requirements")
        if isinstance(parsed, Declaration):
            declarations.append(parsed)
        elif isinstance(parsed, Problem):
            problems.append(parsed)
    return declarations, problems


def _include(root: Path, relative: str, target: str, depth: int, seen: frozenset):
    if depth >= MAX_INCLUDE_DEPTH:
        return None, Problem(relative, f"includes nested deeper than {MAX_INCLUDE_DEPTH}: {target}")
    if "://" in target:
        return None, None  # a remote file: not read
    real_root = Path(os.path.realpath(root))
    try:
        resolved = Path(os.path.realpath(real_root / PurePosixPath(relative).parent / target))
        included_relative = resolved.relative_to(real_root).as_posix()
    except (ValueError, OSError):
        return None, Problem(relative, f"include outside the project not read: {target}")
    if included_relative in seen or included_relative == relative:
        return None, Problem(relative, f"include cycle: {target}")
    try:
        return (included_relative, read_contained(real_root, included_relative).decode("utf-8", errors="replace")), None
    except Unreadable as exc:
        return None, Problem(relative, f"include not read: {target} ({exc})")


def parse_pyproject(relative: str, text: str):
    declarations: list[Declaration] = []
    problems: list[Problem] = []
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        return [], [Problem(relative, f"pyproject.toml not parsed: {' '.join(str(exc).split())[:200]}")]
    except RecursionError:
        return [], [Problem(relative, "pyproject.toml not parsed: nested too deeply")]
    line_of = LineFinder(text)

    def add(requirement: str, group: str) -> None:
        parsed = parse_requirement_text(requirement, relative, line_of(requirement.split(";")[0].strip()), "pyproject", group)
        if isinstance(parsed, Declaration):
            declarations.append(parsed)
        elif isinstance(parsed, Problem):
            problems.append(parsed)

    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    for requirement in _strings(project.get("dependencies")):
        add(requirement, "main")
    for extra, requirements in _table(project.get("optional-dependencies")).items():
        for requirement in _strings(requirements):
            add(requirement, extra)
    for group, requirements in _table(data.get("dependency-groups")).items():
        for requirement in _strings(requirements):
            add(requirement, group)
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry", {}) if isinstance(tool.get("poetry"), dict) else {}
    poetry_tables = [("main", poetry.get("dependencies"))] + [
        (name, table.get("dependencies")) for name, table in _table(poetry.get("group")).items() if isinstance(table, dict)
    ]
    for group, table in poetry_tables:
        for name, spec in _table(table).items():
            if name.lower() == "python":
                continue
            version = spec if isinstance(spec, str) else spec.get("version", "") if isinstance(spec, dict) else ""
            if not isinstance(version, str) or _too_many_digits(version):
                problems.append(Problem(relative, f"{name}: version not read"))
                continue
            declarations.append(
                Declaration(canonicalize_name(name), _poetry_specifier(version), relative, line_of(name), "pyproject", group, f"{name} = {version!r}")
            )
    pdm = tool.get("pdm", {}) if isinstance(tool.get("pdm"), dict) else {}
    for group, requirements in _table(pdm.get("dev-dependencies")).items():
        for requirement in _strings(requirements):
            add(requirement, group)
    return declarations, problems


class LineFinder:
    """The 1-based number of the first line containing a text, searched from where the last one was found (manifests
    list their entries in order), so that a long list costs linear time, not quadratic; 1 when absent."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.position = 0

    def __call__(self, needle: str) -> int:
        """A line holding the needle as a whole name (`'torch'`, not the `"pytorch"` of a keywords list) first,
        else any line holding it."""
        count = len(self.lines)
        for whole in (True, False):
            for offset in range(count):
                index = (self.position + offset) % count
                if _holds(self.lines[index], needle, whole):
                    self.position = index
                    return index + 1
        return 1


def _holds(line: str, needle: str, whole: bool) -> bool:
    start = line.find(needle)
    while start >= 0:
        before = line[start - 1] if start > 0 else " "
        after = line[start + len(needle)] if start + len(needle) < len(line) else " "
        if not whole or (not (before.isalnum() or before in "_-.") and not (after.isalnum() or after == "_")):
            return True
        start = line.find(needle, start + 1)
    return False


def _too_many_digits(version: str) -> bool:
    return any(len(part) > MAX_VERSION_DIGITS for part in re.findall(r"\d+", version))


def _table(value) -> dict:
    return value if isinstance(value, dict) else {}


def _strings(value) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _poetry_specifier(version: str) -> str:
    """Poetry's ^1.2 and ~1.2 become PEP 440 ranges; * is no constraint."""
    version = version.strip()
    if not version or version == "*":
        return ""
    if version.startswith("^"):
        base = version[1:]
        parts = base.split(".")
        major = int(parts[0]) if parts[0].isdigit() and len(parts[0]) < 20 else 0
        minor_ok = len(parts) > 1 and parts[1].isdigit() and len(parts[1]) < 20
        upper = f"{major + 1}" if major > 0 else f"0.{int(parts[1]) + 1}" if minor_ok else "1"
        return f">={base},<{upper}"
    if version.startswith("~") and not version.startswith("~="):
        return f"~={version[1:]}" if version.count(".") >= 1 else f">={version[1:]}"
    if version[0].isdigit():
        return f"=={version}"
    return version


def parse_setup_cfg(relative: str, text: str):
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        return [], [Problem(relative, f"setup.cfg not parsed: {str(exc).splitlines()[0]}")]
    line_of = LineFinder(text)
    declarations: list[Declaration] = []
    problems: list[Problem] = []
    sections = [("main", parser.get("options", "install_requires", fallback=""))]
    if parser.has_section("options.extras_require"):
        sections += list(parser.items("options.extras_require"))
    for group, block in sections:
        for item in block.split("\n"):
            item = item.split("#", 1)[0].strip()
            if not item:
                continue
            line = line_of(item)
            parsed = parse_requirement_text(item, relative, line, "setup.cfg", group)
            if isinstance(parsed, Declaration):
                declarations.append(parsed)
            elif isinstance(parsed, Problem):
                problems.append(parsed)
    return declarations, problems


SETUP_QUERY = "((call function: [(identifier) (attribute)] @function) @call)"


def parse_setup_py(relative: str, root_node: Node):
    """install_requires / extras_require / setup_requires of setup(...) from the syntax tree; module-level
    list/dict assignments that those arguments name are followed."""
    assignments = {}
    for statement in root_node.named_children:
        target = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if target is not None and target.type == "assignment":
            left, right = target.child_by_field_name("left"), target.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier":
                assignments[parsing.text(left)] = right
    declarations: list[Declaration] = []
    found = parsing.captures(parsing.query("python", SETUP_QUERY), root_node)
    for function in found.get("function", []):
        if parsing.text(function).rsplit(".", 1)[-1] != "setup":
            continue
        args = function.parent.child_by_field_name("arguments")
        for keyword in args.named_children if args is not None else []:
            if keyword.type != "keyword_argument":
                continue
            name = parsing.text(keyword.child_by_field_name("name"))
            value = _follow(keyword.child_by_field_name("value"), assignments)
            if name in {"install_requires", "setup_requires"}:
                declarations += _string_list(value, relative, "main" if name == "install_requires" else "setup")
            elif name == "extras_require" and value is not None and value.type == "dictionary":
                for pair in value.named_children:
                    if pair.type != "pair":
                        continue
                    group = _string_value(pair.child_by_field_name("key")) or "extra"
                    declarations += _string_list(_follow(pair.child_by_field_name("value"), assignments), relative, group)
    return declarations, []


def _follow(node: Node | None, assignments: dict) -> Node | None:
    if node is not None and node.type == "identifier":
        return assignments.get(parsing.text(node), node)
    return node


def _string_value(node: Node | None) -> str | None:
    if node is None or node.type != "string" or node.child_count < 2:
        return None
    start, end = node.children[0], node.children[-1]
    return node.text[start.end_byte - node.start_byte : end.start_byte - node.start_byte].decode("utf-8", "replace")


def _string_list(node: Node | None, relative: str, group: str) -> list[Declaration]:
    if node is None or node.type not in {"list", "tuple"}:
        return []
    result = []
    for item in node.named_children:
        text = _string_value(item)
        if text is None:
            continue
        parsed = parse_requirement_text(text, relative, item.start_point.row + 1, "setup.py", group)
        if isinstance(parsed, Declaration):
            result.append(parsed)
    return result


def parse_conda_environment(relative: str, text: str):
    """environment.yml: conda specs (name=version=build, channel::name) and the pip: section."""
    try:
        document = bounded_yaml.compose(text)
    except yaml.YAMLError as exc:
        return [], [Problem(relative, f"environment file not parsed: {str(exc).splitlines()[0]}")]
    if not isinstance(document, yaml.MappingNode):
        return [], []
    declarations: list[Declaration] = []
    problems: list[Problem] = []
    for key, value in document.value:
        if str(key.value) != "dependencies" or not isinstance(value, yaml.SequenceNode):
            continue
        for item in value.value:
            if isinstance(item, yaml.ScalarNode):
                declarations.append(_conda_spec(str(item.value), relative, item.start_mark.line + 1))
            elif isinstance(item, yaml.MappingNode):
                for sub_key, sub_value in item.value:
                    if str(sub_key.value) == "pip" and isinstance(sub_value, yaml.SequenceNode):
                        for pip_item in sub_value.value:
                            parsed = parse_requirement_text(str(pip_item.value), relative, pip_item.start_mark.line + 1, "conda")
                            if isinstance(parsed, Declaration):
                                declarations.append(parsed)
                            elif isinstance(parsed, Problem):
                                problems.append(parsed)
    return declarations, problems


def _conda_spec(spec: str, relative: str, line: int, source: str = "conda") -> Declaration:
    spec = spec.split("::", 1)[-1].strip()
    name = re.split(r"[=<>! ]", spec, maxsplit=1)[0]
    rest = spec[len(name):].strip()
    specifier = ""
    if rest.startswith("=") and not rest.startswith("=="):
        version = rest[1:].split("=", 1)[0]
        specifier = f"=={version}" if version.count(".") >= 2 or version.endswith("*") else f"=={version}.*"
    elif rest:
        specifier = rest.replace(" ", "")  # already a comparison: >=1.13, <2, !=2.0
    if _too_many_digits(specifier):
        specifier = ""  # not a version anything can compare
    conda_names = {"pytorch": "torch"}
    canonical = canonicalize_name(conda_names.get(name, name))
    return Declaration(canonical, specifier, relative, line, source, "main", spec)


INSTALL_QUERY = "(command name: (command_name) @name) @command"


def parse_install_commands(relative: str, root_node: Node):
    """pip install / python -m pip install / conda install lines (Dockerfiles, shell scripts, notebook `!`)."""
    declarations: list[Declaration] = []
    found = parsing.captures(parsing.query("bash", INSTALL_QUERY), root_node)
    for command in found.get("command", []):
        words = [parsing.text(w) for w in command.children_by_field_name("argument")]
        program = parsing.text(command.child_by_field_name("name")).rsplit("/", 1)[-1]
        if program.startswith("python") and words[:2] == ["-m", "pip"]:
            program, words = "pip", words[2:]
        if program not in {"pip", "pip3", "conda", "mamba", "uv"} or "install" not in words:
            continue
        if program == "uv" and words[:2] != ["pip", "install"]:
            continue
        args = words[words.index("install") + 1 :]
        line = command.start_point.row + 1
        skip_next = False
        for arg in args:
            arg = arg.strip("'\"")
            if skip_next:
                skip_next = False
                continue
            if arg in {"-r", "-c", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-c", "--channel",
                       "--target", "-t", "--prefix", "--root"}:
                skip_next = True
                continue
            if arg.startswith("-") or arg.startswith("$"):
                continue
            if program in {"conda", "mamba"}:
                declarations.append(_conda_spec(arg, relative, line, "conda-install"))
            else:
                parsed = parse_requirement_text(arg, relative, line, "pip-install")
                if isinstance(parsed, Declaration):
                    declarations.append(parsed)
    return declarations, []

