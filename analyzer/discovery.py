"""Find the files of a project worth reading, honouring .gitignore and excludes, and say what kind each is."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pathspec

from analyzer.models import SkippedFile

SKIPPED_DIR_NAMES = frozenset(
    {
        ".git", ".hg", ".svn", "__pycache__", "node_modules", "site-packages", "dist-packages", ".tox", ".nox",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs", "build", "dist", ".venv", "venv", ".ipynb_checkpoints",
    }
)

KIND_BY_SUFFIX = {
    ".py": "python",
    ".ipynb": "notebook",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".c": "cpp",
    ".h": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".sh": "shell",
    ".bash": "shell",
    ".slurm": "shell",
    ".sbatch": "shell",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".json": "json",
    ".cmake": "build",
    ".cfg": "build",
}
BUILD_FILE_NAMES = frozenset({"CMakeLists.txt", "Makefile", "pyproject.toml", "setup.cfg", "environment.yml"})


def classify(name: str) -> str | None:
    """The kind of a file from its name, or None when no scanner reads it."""
    lower = name.lower()
    if lower in {"dockerfile", "containerfile"} or lower.startswith("dockerfile.") or lower.endswith(".dockerfile"):
        return "dockerfile"
    if name in BUILD_FILE_NAMES:
        return "build" if name != "environment.yml" else "yaml"
    if lower.startswith("requirements") and lower.endswith((".txt", ".in")):
        return "build"
    return KIND_BY_SUFFIX.get(os.path.splitext(lower)[1])


@dataclass(frozen=True)
class ProjectFile:
    path: str  # POSIX, relative to the root
    absolute: str
    kind: str
    size: int


@dataclass
class Discovery:
    files: list[ProjectFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


def _is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file() or (directory / "conda-meta").is_dir()


def _gitignore_spec(directory: Path, relative: PurePosixPath) -> pathspec.PathSpec | None:
    ignore_file = directory / ".gitignore"
    try:
        lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    if str(relative) != ".":
        lines = [_anchor(line, relative) for line in lines]
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _anchor(line: str, base: PurePosixPath) -> str:
    """Rewrite a nested .gitignore pattern so it applies below its own folder only."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return line
    negate = stripped.startswith("!")
    pattern = stripped[1:] if negate else stripped
    if "/" in pattern.rstrip("/"):
        anchored = f"/{base}/{pattern.lstrip('/')}"
    else:
        anchored = f"/{base}/**/{pattern}"
    return ("!" if negate else "") + anchored


def discover(root: Path, excludes: list[str]) -> Discovery:
    """Walk `root` without following directory links; never raises on unreadable entries."""
    result = Discovery()
    exclude_spec = pathspec.GitIgnoreSpec.from_lines(excludes)
    specs: list[pathspec.PathSpec] = []

    def ignored(relative: str, is_dir: bool) -> bool:
        candidate = relative + "/" if is_dir else relative
        if exclude_spec.match_file(candidate):
            return True
        return any(spec.match_file(candidate) for spec in specs)

    def walk(directory: Path, relative: PurePosixPath) -> None:
        spec = _gitignore_spec(directory, relative)
        if spec is not None:
            specs.append(spec)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            result.skipped.append(SkippedFile(path=str(relative), reason=f"folder cannot be read: {exc.strerror or exc}"))
            entries = []
        for entry in entries:
            rel = str(relative / entry.name) if str(relative) != "." else entry.name
            try:
                if entry.is_symlink():
                    if entry.is_dir():
                        result.skipped.append(SkippedFile(path=rel, reason="symbolic link to a folder (not followed)"))
                        continue
                    target = Path(os.path.realpath(entry.path))
                    if not target.is_relative_to(root):
                        result.skipped.append(SkippedFile(path=rel, reason="symbolic link that leaves the project"))
                        continue
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                result.skipped.append(SkippedFile(path=rel, reason=f"cannot be inspected: {exc.strerror or exc}"))
                continue
            if is_dir:
                if entry.name in SKIPPED_DIR_NAMES or entry.name.endswith(".egg-info") or ignored(rel, True):
                    continue
                if _is_virtualenv(Path(entry.path)):
                    continue
                walk(Path(entry.path), PurePosixPath(rel))
                continue
            kind = classify(entry.name)
            if kind is None or ignored(rel, False):
                continue
            try:
                size = entry.stat().st_size
            except OSError as exc:
                result.skipped.append(SkippedFile(path=rel, reason=f"cannot be inspected: {exc.strerror or exc}"))
                continue
            result.files.append(ProjectFile(path=rel, absolute=entry.path, kind=kind, size=size))
        if spec is not None:
            specs.pop()

    walk(root, PurePosixPath("."))
    return result
