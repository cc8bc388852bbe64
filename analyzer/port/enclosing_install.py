"""A build file that roots no project: a setup.py or pyproject.toml inside a regular package that a build file above it
installs (its `find_packages()`, or `packages` naming the package). The package is imported under the enclosing
project's name (EasyR1/setup.py `find_packages(where=".")` installs verl/, which holds a stray pyproject.toml of its
own), so its files' imports resolve from the enclosing folder, never from the stray file's folder.
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

FINDERS = frozenset({"find_packages", "find_namespace_packages"})
PACKAGES_QUERY = "(keyword_argument name: (identifier) @key value: (_) @value)"


def installed_from(root: Path, top: PurePosixPath, package: PurePosixPath) -> bool:
    """The build file(s) of folder `top` install `package` (a folder below it, every folder of the way a regular
    package): setup.py's `packages=find_packages(...)` (where= the folder or above it) or a list naming it,
    pyproject's [tool.setuptools] packages (a list, or `find`), or poetry's `packages = [{include = ...}]`."""
    parts = package.relative_to(top).parts
    if not all(part.isidentifier() for part in parts):  # no importable package (plugins/data-designer-x/)
        return False
    dotted = ".".join(parts)
    return _setup_installs(root, top, package, dotted) or _pyproject_installs(root, top, package, dotted)


def installs(root: Path, top: PurePosixPath, package: PurePosixPath) -> bool:
    """`pip install` of folder `top` installs `package`: its build file names it (installed_from), or names no package
    at all and setuptools discovers the folder's packages (a setup.py without `packages=`/`py_modules=`, a pyproject
    with a [project] table and no package list). A pyproject holding only tools' settings installs nothing."""
    if installed_from(root, top, package):
        return True
    if not all(part.isidentifier() for part in package.relative_to(top).parts):
        return False
    data = _read(root, top / "setup.py")
    if data is not None and b"setup(" in data:
        keys = parsing.captures(parsing.query("python", PACKAGES_QUERY), parsing.parse("python", data)).get("key", [])
        return not any(parsing.text(key) in {"packages", "py_modules"} for key in keys)
    data = _read(root, top / "pyproject.toml")
    try:
        document = tomllib.loads(data.decode("utf-8")) if data else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    tool = document.get("tool") if isinstance(document.get("tool"), dict) else {}
    setuptools = tool.get("setuptools") if isinstance(tool.get("setuptools"), dict) else {}
    return isinstance(document.get("project"), dict) and "packages" not in setuptools and "py-modules" not in setuptools \
        and "poetry" not in tool


def _read(root: Path, path: PurePosixPath) -> bytes | None:
    if not (root / path).is_file():
        return None
    try:
        return read_contained(root, str(path), MAX_FILE_BYTES)
    except Unreadable:
        return None


def _setup_installs(root: Path, top: PurePosixPath, package: PurePosixPath, dotted: str) -> bool:
    data = _read(root, top / "setup.py")
    if not data or b"packages" not in data:
        return False
    found = parsing.captures(parsing.query("python", PACKAGES_QUERY), parsing.parse("python", data))
    for key, value in zip(found.get("key", []), found.get("value", [])):
        if parsing.text(key) != "packages":
            continue
        if value.type == "call" and parsing.callee_name(value) in FINDERS:
            return _found_under(top, package, _where(value))
        if value.type in {"list", "tuple"}:
            names = {parsing.text(item).strip("'\"") for item in value.named_children if item.type == "string"}
            if dotted in names:
                return True
    return False


def _where(call) -> str:
    """The folder a find_packages call searches: its `where=` (or first) string argument, "." without one."""
    arguments = call.child_by_field_name("arguments")
    for argument in arguments.named_children if arguments is not None else ():
        if argument.type == "string":
            return parsing.text(argument).strip("'\"")
        if argument.type == "keyword_argument" and parsing.text(argument.child_by_field_name("name")) == "where":
            value = argument.child_by_field_name("value")
            return parsing.text(value).strip("'\"") if value is not None and value.type == "string" else ""
    return "."


def _found_under(top: PurePosixPath, package: PurePosixPath, where: str) -> bool:
    if not where:  # a computed folder: unknown
        return False
    base = PurePosixPath(top, where) if where not in {".", "./"} else top
    return package.is_relative_to(base) and package != base


def _matches(dotted: str, patterns) -> bool:
    return isinstance(patterns, list) and any(isinstance(p, str) and fnmatch.fnmatchcase(dotted, p) for p in patterns)


def _pyproject_installs(root: Path, top: PurePosixPath, package: PurePosixPath, dotted: str) -> bool:
    data = _read(root, top / "pyproject.toml")
    if not data:
        return False
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    tool = document.get("tool") if isinstance(document.get("tool"), dict) else {}
    setuptools = tool.get("setuptools") if isinstance(tool.get("setuptools"), dict) else {}
    packages = setuptools.get("packages")
    if isinstance(packages, list) and dotted in packages:
        return True
    if isinstance(packages, dict) and isinstance(packages.get("find"), dict):
        find = packages["find"]
        wheres = find.get("where", ["."])
        if not any(isinstance(where, str) and _found_under(top, package, where) for where in wheres):
            return False
        include, exclude = find.get("include", ["*"]), find.get("exclude", [])
        return _matches(dotted, include) and not _matches(dotted, exclude)
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    included = poetry.get("packages") if isinstance(poetry.get("packages"), list) else []
    return any(isinstance(entry, dict) and entry.get("include") == dotted.split(".")[0] for entry in included)
