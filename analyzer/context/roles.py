"""A file's role, from its path: product, build, test, example, docs or ci."""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

from knowledge.models import RoleConventions


def file_role(path: str, conventions: RoleConventions, overrides: dict[str, list[str]] | None = None,
              pure: PurePosixPath | None = None) -> str:
    """The project's own globs ([tool.ascend-feasibility.roles]) win over the conventions. `pure`: the path parsed,
    when the caller has it."""
    for role, globs in (overrides or {}).items():
        if any(fnmatch.fnmatch(path, glob) for glob in globs):
            return role
    pure = PurePosixPath(path) if pure is None else pure
    folders = {part.lower() for part in pure.parts[:-1]}
    name = pure.name.lower()
    stem = pure.stem.lower()
    if (
        folders & set(conventions.test_dirs)
        or name in conventions.test_file_names
        or (pure.suffix in {".py", ".ipynb"} and (
            stem.startswith(tuple(conventions.test_file_prefixes)) or stem.endswith(tuple(conventions.test_file_suffixes))
        ))
    ):
        return "test"
    if folders & set(conventions.docs_dirs):
        return "docs"
    if folders & set(conventions.ci_dirs) or name in conventions.ci_file_names:
        return "ci"
    if folders & set(conventions.example_dirs):
        return "example"
    if len(pure.parts) > 1 and pure.parts[0].lower() in conventions.tool_dirs and pure.suffix in {".py", ".ipynb"}:
        return "example"  # a developer tool at the top level (scripts/convert_*.py, utils/print_env.py)
    if name in conventions.build_file_names or name.startswith(tuple(conventions.build_file_prefixes)):
        return "build"
    return "product"
