"""A file's role, from its path: product, build, test, example, docs or ci."""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

from ascend_feasibility.knowledge.models import RoleConventions


def file_role(path: str, conventions: RoleConventions, overrides: dict[str, list[str]] | None = None,
              beside_package: bool = False, pure: PurePosixPath | None = None) -> str:
    """The project's own globs ([tool.ascend-feasibility.roles]) win over the conventions. `beside_package`: the
    project has a top-level package (see `has_root_package`), so root-level `train_*.py`/`demo_*.py` scripts are
    examples of its use, not the product (x-transformers' train_copy.py beside x_transformers/). `pure`: the path
    parsed, when the caller has it."""
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
    if (beside_package and len(pure.parts) == 1 and pure.suffix in {".py", ".ipynb"}
            and stem.startswith(tuple(conventions.root_example_prefixes))):
        return "example"
    if name in conventions.build_file_names or name.startswith(tuple(conventions.build_file_prefixes)):
        return "build"
    return "product"


def has_root_package(paths) -> bool:
    """Does the project define an importable package at its top level (or under src/)? Then root-level scripts that
    train or demo it are examples; a project made of root-level scripts (nanoGPT's train.py) has no package."""
    for path in paths:
        parts = PurePosixPath(path).parts
        if parts[-1] == "__init__.py" and (len(parts) == 2 or (len(parts) == 3 and parts[0] == "src")):
            return True
    return False
