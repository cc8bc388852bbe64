"""A file's role, from its path: product, build, test, example, docs or ci."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any, NamedTuple, TypeVar

from ascend_feasibility.analyzer.reading.discovery import is_conda_environment_name
from ascend_feasibility.knowledge.models import RoleConventions

T = TypeVar("T")


class PathView(NamedTuple):
    """A project path's pieces, as PurePosixPath gives them, read once (the context and the plan ask for each file's
    pieces several times; pathlib builds new objects on every access)."""

    parts: tuple[str, ...]
    name: str
    stem: str
    suffix: str
    parent: str  # "." at the top level


@functools.lru_cache(maxsize=1 << 16)
def path_view(path: str) -> PathView:
    pure = PurePosixPath(path)
    return PathView(pure.parts, pure.name, pure.stem, pure.suffix, str(pure.parent))


class _RoleSets(NamedTuple):
    test_dirs: frozenset[str]
    docs_dirs: frozenset[str]
    ci_dirs: frozenset[str]
    example_dirs: frozenset[str]
    test_file_prefixes: tuple[str, ...]
    test_file_suffixes: tuple[str, ...]
    root_example_prefixes: tuple[str, ...]
    build_file_prefixes: tuple[str, ...]


_DERIVED: dict[tuple[int, Callable], tuple[object, object]] = {}  # (id of the source, build) → (source, result)


def derived(source: object, build: Callable[[Any], T]) -> T:
    """`build(source)`, worked out once per source object: conventions are pydantic models, which cannot key an
    lru_cache. The source is kept here, so its id is not reused while the result is."""
    known = _DERIVED.get((id(source), build))
    if known is None or known[0] is not source:
        known = _DERIVED[(id(source), build)] = (source, build(source))
    return known[1]  # type: ignore[return-value]


def _compile(c: RoleConventions) -> _RoleSets:
    return _RoleSets(
        frozenset(c.test_dirs), frozenset(c.docs_dirs), frozenset(c.ci_dirs), frozenset(c.example_dirs),
        tuple(c.test_file_prefixes), tuple(c.test_file_suffixes), tuple(c.root_example_prefixes),
        tuple(c.build_file_prefixes))


def file_role(path: str, conventions: RoleConventions, overrides: dict[str, list[str]] | None = None,
              beside_package: bool = False) -> str:
    """The project's own globs ([tool.ascend-feasibility.roles]) win over the conventions. `beside_package`: the
    project has a top-level package (see `has_root_package`), so root-level `train_*.py`/`demo_*.py` scripts are
    examples of its use, not the product (x-transformers' train_copy.py beside x_transformers/)."""
    for role, globs in (overrides or {}).items():
        if any(fnmatch.fnmatch(path, glob) for glob in globs):
            return role
    view, sets = path_view(path), derived(conventions, _compile)
    folders = {part.lower() for part in view.parts[:-1]}
    name = view.name.lower()
    stem = view.stem.lower()
    if (
        not folders.isdisjoint(sets.test_dirs)
        or name in conventions.test_file_names
        or (view.suffix in {".py", ".ipynb"} and (
            stem.startswith(sets.test_file_prefixes) or stem.endswith(sets.test_file_suffixes)
        ))
    ):
        return "test"
    if not folders.isdisjoint(sets.docs_dirs):
        return "docs"
    if not folders.isdisjoint(sets.ci_dirs) or name in conventions.ci_file_names:
        return "ci"
    if len(view.parts) > 1 and view.parts[0].lower() in conventions.release_dirs:
        return "ci"  # release packaging at the top level (packaging/pkg_helpers.bash, conda-recipe/meta.yaml)
    if not folders.isdisjoint(sets.example_dirs) or (
            view.suffix != ".py" and any(not sets.example_dirs.isdisjoint(_words(part)) for part in folders)):
        return "example"
    if len(view.parts) > 1 and view.parts[0].lower() in conventions.tool_dirs and view.suffix in {".py", ".ipynb"}:
        return "example"  # a developer tool at the top level (scripts/convert_*.py, utils/print_env.py)
    if view.suffix == ".py" and stem in conventions.tool_file_stems:
        return "example"  # an environment report anywhere (requirements/collect_env_details.py)
    if (beside_package and len(view.parts) == 1 and view.suffix in {".py", ".ipynb"}
            and stem.startswith(sets.root_example_prefixes)):
        return "example"
    if name in conventions.build_file_names or name.startswith(sets.build_file_prefixes):
        return "build"
    if is_conda_environment_name(name):  # a variant beside environment.yaml (RAFT-Stereo's environment_cuda11.yaml):
        return "build"  # the same kind of file as the manifest reader sees it, so the same role
    return "product"


@functools.lru_cache(maxsize=1 << 14)
def _words(folder: str) -> frozenset[str]:
    """A folder name's word parts, split at _ - . (`stad_tutorial`, `tutorial-zh`, `demo_notebooks`), as the backend
    words of a path part are read (context/project.py). A word part makes an example of every file in the folder but a
    Python module: a product package may carry the word in its name (diffusers' pipelines/paint_by_example/, torchtitan's
    torchtitan_recipes/) and its modules are imported; a notebook, script or manifest there is no module anything
    imports (mmaction2's projects/stad_tutorial/demo_stad.ipynb, round 39 A2 class 4, B2 class 8)."""
    return frozenset(word for word in re.split(r"[-_.]", folder) if word)


def has_root_package(paths) -> bool:
    """Does the project define an importable package at its top level (or under src/)? Then root-level scripts that
    train or demo it are examples; a project made of root-level scripts (nanoGPT's train.py) has no package."""
    for path in paths:
        if not path.endswith("__init__.py"):
            continue
        parts = path_view(path).parts
        if parts[-1] == "__init__.py" and (len(parts) == 2 or (len(parts) == 3 and parts[0] == "src")):
            return True
    return False


def nearest_copy(paths: list[str], importer: str) -> str:
    """The copy that shares the most leading folders with the importer: an import resolves in its own tree."""
    parts = path_view(importer).parts

    def shared(path: str) -> int:
        count = 0
        for a, b in zip(path_view(path).parts, parts):
            if a != b:
                break
            count += 1
        return count
    return max(paths, key=shared)
