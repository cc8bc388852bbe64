"""Find the files of a project worth reading, honouring .gitignore and excludes, and say what kind each is.

Git never ignores a file it tracks: in a checkout (a `.git` in the root) the index's paths are read whatever
.gitignore says (a folder .gitignore names is still walked for the tracked files in it). In a snapshot (no `.git`)
.gitignore cannot tell a committed file from an ignored one: a dependency manifest (`is_manifest`) a .gitignore pattern
alone would hide is read all the same, and so is a Python module in a package folder (an `__init__.py` .gitignore does
not match), and the report says so; an --exclude always wins."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pathspec
from ascend_feasibility.analyzer.core.models import SkippedFile
from ascend_feasibility.analyzer.reading.gitinfo import tracked_paths
from ascend_feasibility.analyzer.reading.install_docs import is_install_doc
from ascend_feasibility.analyzer.reading.source import Unreadable, file_type, read_contained
from ascend_feasibility.analyzer.reading.submodules import REASON as SUBMODULE_REASON
from ascend_feasibility.analyzer.reading.submodules import missing_submodules

MAX_SETTINGS_BYTES = 1024 * 1024  # .gitignore and pyproject.toml settings

# Folders never read, by name, with the reason each is listed under `skipped`.
SKIPPED_DIR_NAMES = {
    **dict.fromkeys((".git", ".hg", ".svn"), "version-control metadata"),
    **dict.fromkeys(("__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints"), "tool cache"),
    **dict.fromkeys(("node_modules", "site-packages", "dist-packages", ".eggs", ".tox", ".nox", ".venv", "venv"),
                    "installed packages or a virtual environment"),
}
# Folders named like a build output are one only when they hold no package (`mmengine/dist/` is a source package)
# or hold what a build leaves (wheels, archives, shared objects, setuptools' lib.*/bdist.*/temp.* folders).
BUILD_OUTPUT_NAMES = frozenset({"build", "dist"})
BUILT_ARTEFACTS = (".whl", ".tar.gz", ".so", ".egg", ".pyd", ".o")
BUILD_FOLDER_PREFIXES = ("lib.", "bdist.", "temp.")

# Native sources as a string in code names them (a builder's source list, a reach through a binding).
NATIVE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")

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
PACKAGE_MANIFEST_NAMES = frozenset({"setup.py", "setup.cfg", "pyproject.toml"})
REQUIREMENTS_FOLDER = "requirements"  # mmcv/OpenMMLab style: requirements/runtime.txt, requirements/mminstall.txt
CONDA_ENVIRONMENT_PREFIXES = ("environment", "env", "conda")  # environment.yml, environment_cuda.yaml, conda.yml
GITIGNORE_OVERRIDDEN = ("read although .gitignore matches it: without a .git the tree cannot tell a committed manifest "
                        "from an ignored one")
GITIGNORE_OVERRIDDEN_MODULE = ("read although .gitignore matches it: without a .git the tree cannot tell a committed "
                               "module of a package from an ignored one")


def is_requirements_file(path: str) -> bool:
    """requirements*.txt / requirements*.in by name, or a .txt / .in file directly in a `requirements/` folder."""
    parts = path.lower().rsplit("/", 2)
    name = parts[-1]
    if not name.endswith((".txt", ".in")):
        return False
    return name.startswith("requirements") or (len(parts) > 1 and parts[-2] == REQUIREMENTS_FOLDER)


def is_conda_environment_name(name: str) -> bool:
    lower = name.lower()
    return lower.startswith(CONDA_ENVIRONMENT_PREFIXES) and lower.endswith((".yml", ".yaml"))


def is_manifest(path: str) -> bool:
    """A file declaring the project's dependencies that the analyzer reads: requirements files, setup.py, setup.cfg,
    pyproject.toml, conda environment files."""
    name = path.rsplit("/", 1)[-1]
    return is_requirements_file(path) or name in PACKAGE_MANIFEST_NAMES or is_conda_environment_name(name)


def classify(name: str) -> str | None:
    """The kind of a file from its name, or None when no scanner reads it."""
    lower = name.lower()
    if lower in {"dockerfile", "containerfile"} or lower.startswith("dockerfile.") or lower.endswith(".dockerfile"):
        return "dockerfile"
    if name in BUILD_FILE_NAMES:
        return "build" if name != "environment.yml" else "yaml"
    if is_requirements_file(name):
        return "build"
    if is_install_doc(name):
        return "install-doc"  # only its install lines are read (analyzer/reading/install_docs.py)
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
    # Markdown no scanner reads by its name (get_started.md), kept aside: one the root README links to as its install
    # guide becomes an install document (install_docs.linked_install_docs)
    documents: list[ProjectFile] = field(default_factory=list)


def display_name(name: str) -> str:
    """A name as reports show it: bytes that are not UTF-8 (kept by Python as surrogates) become \\xNN escapes."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", errors="backslashreplace")


def compile_patterns(lines: list[str], where: str) -> tuple[pathspec.PathSpec, list[SkippedFile]]:
    """A gitignore-style spec of the lines that compile; each one that does not is a one-line problem."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines), []
    except Exception:  # noqa: BLE001 - pathspec raises its own errors and re.error; find the bad lines below
        good, problems = [], []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
                good.append(line)
            except Exception as exc:  # noqa: BLE001
                problems.append(SkippedFile(path=where, reason=f"pattern {line.strip()!r} ignored: {_one_line(exc)}"))
        return pathspec.GitIgnoreSpec.from_lines(good), problems


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def _skipped_folder(entry: os.DirEntry) -> str | None:
    """Why a folder is not read, by what it is (its name, and for build/dist what it holds); None to read it."""
    if entry.name in SKIPPED_DIR_NAMES:
        return SKIPPED_DIR_NAMES[entry.name]
    if entry.name.endswith(".egg-info"):
        return "package metadata written by a build"
    if entry.name not in BUILD_OUTPUT_NAMES:
        return None
    try:
        with os.scandir(entry.path) as listing:
            names = [(e.name, e.is_dir(follow_symlinks=False)) for _, e in zip(range(2000), listing)]
    except OSError:
        return "build output (unreadable)"
    if any(name.endswith(BUILT_ARTEFACTS) or (is_dir and name.startswith(BUILD_FOLDER_PREFIXES)) for name, is_dir in names):
        return "build output (holds built artefacts)"
    if not any(name == "__init__.py" for name, _ in names):
        return "build output (not a Python package)"
    return None


def _is_virtualenv(directory: str) -> bool:
    def lstat_mode(name: str) -> int:
        try:
            return os.lstat(os.path.join(directory, name)).st_mode
        except OSError:
            return 0

    return stat.S_ISREG(lstat_mode("pyvenv.cfg")) or stat.S_ISDIR(lstat_mode("conda-meta"))


def _gitignore_spec(root: Path, relative: PurePosixPath, skipped: list[SkippedFile]) -> pathspec.PathSpec | None:
    where = ".gitignore" if str(relative) == "." else f"{relative}/.gitignore"
    try:
        os.lstat(root / where)
    except OSError:
        return None
    try:
        lines = read_contained(root, where, MAX_SETTINGS_BYTES).decode("utf-8", errors="replace").splitlines()
    except Unreadable as exc:
        skipped.append(SkippedFile(path=display_name(where), reason=f"patterns not read: {exc}"))
        return None
    if str(relative) != ".":
        lines = [_anchor(line, relative) for line in lines]
    spec, problems = compile_patterns(lines, display_name(where))
    skipped.extend(problems)
    return spec


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


def classify_path(path: str) -> str | None:
    """The kind of the file at `path` (relative): its name's (classify), or a build manifest for a requirements
    folder's .txt file."""
    return classify(path.rsplit("/", 1)[-1]) or ("build" if is_requirements_file(path) else None)


def discover(root: Path, excludes: list[str], own_outputs: tuple[Path, ...] = ()) -> Discovery:
    """Walk `root` iteratively, never following a link out of it and never opening anything but regular files;
    never raises on unreadable entries. `own_outputs` (the run's output files and folders) are not scanned."""
    result = Discovery()
    root = Path(os.path.realpath(root))
    tracked = tracked_paths(root)  # None: no .git (a snapshot), or one that cannot be read
    tracked_folders = _folders(tracked) if tracked else frozenset()
    exclude_spec, problems = compile_patterns(excludes, "--exclude / [tool.ascend-feasibility] exclude")
    result.skipped += problems
    outputs = _identities(own_outputs)
    # An explicit stack instead of recursion (any depth): (folder, its relative path, the .gitignore specs in force
    # there). The files are sorted by path at the end, so the order does not depend on the walk.
    pending: list[tuple[str, PurePosixPath, tuple[pathspec.PathSpec, ...]]] = [(str(root), PurePosixPath("."), ())]
    while pending:
        directory, relative, inherited = pending.pop()
        spec = _gitignore_spec(root, relative, result.skipped)
        specs = inherited + ((spec,) if spec is not None else ())
        folders: list[tuple[str, PurePosixPath, tuple[pathspec.PathSpec, ...]]] = []
        entries = _entries(directory, relative, result)
        package = tracked is None and _is_package(entries, relative, specs)
        for entry in entries:
            rel = entry.name if str(relative) == "." else f"{relative}/{entry.name}"
            shown = display_name(rel)
            try:
                found = _inspect(root, entry, outputs)
            except OSError as exc:
                result.skipped.append(SkippedFile(path=shown, reason=f"cannot be inspected: {exc.strerror or exc}"))
                continue
            if found is None:
                continue
            if isinstance(found, str):
                result.skipped.append(SkippedFile(path=shown, reason=found))
                continue
            is_dir, size, absolute = found
            if is_dir:
                reason = _skipped_folder(entry)
                if reason is None and _ignored(rel + "/", exclude_spec, () if rel in tracked_folders else specs):
                    reason = "excluded (--exclude, settings or .gitignore)"
                if reason is None and _is_virtualenv(entry.path):
                    reason = "installed packages or a virtual environment"
                if reason is not None:
                    result.skipped.append(SkippedFile(path=shown + "/", reason=f"folder not read: {reason}"))
                    continue
                folders.append((entry.path, PurePosixPath(rel), specs))
                continue
            kind = classify_path(rel)
            document = kind is None and rel.lower().endswith(".md")
            if (kind is None and not document) or exclude_spec.match_file(rel):
                continue
            if tracked is not None and rel in tracked:
                pass  # git tracks it: .gitignore does not apply
            elif _ignored(rel, _NOTHING, specs):
                if tracked is not None:
                    continue
                if is_manifest(rel):
                    result.skipped.append(SkippedFile(path=shown, reason=GITIGNORE_OVERRIDDEN))
                elif package and kind == "python":
                    result.skipped.append(SkippedFile(path=shown, reason=GITIGNORE_OVERRIDDEN_MODULE))
                else:
                    continue
            if document:
                result.documents.append(ProjectFile(path=shown, absolute=absolute, kind="document", size=size))
                continue
            result.files.append(ProjectFile(path=shown, absolute=absolute, kind=kind, size=size))
        pending.extend(reversed(folders))
    for path in missing_submodules(root):  # its code is not in the tree: the report says it was not scanned
        if not _ignored(path + "/", exclude_spec, ()):
            result.skipped.append(SkippedFile(path=display_name(path) + "/", reason=SUBMODULE_REASON))
    result.files.sort(key=lambda f: f.path)
    return result


def _entries(directory: str, relative: PurePosixPath, result: Discovery) -> list[os.DirEntry]:
    try:
        with os.scandir(directory) as listing:
            return sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        result.skipped.append(
            SkippedFile(path=display_name(str(relative)), reason=f"folder cannot be read: {exc.strerror or exc}")
        )
        return []


_NOTHING = pathspec.GitIgnoreSpec.from_lines([])


def _is_package(entries: list[os.DirEntry], relative: PurePosixPath, specs: tuple[pathspec.PathSpec, ...]) -> bool:
    """Does the folder hold an `__init__.py` that .gitignore does not match? Then, in a snapshot, a .py beside it that
    a broad pattern matches (CenterPoint's `**build**` over the committed det3d/builder.py, round 41) is one of the
    package's modules, read. A generated module there (a setup-written version.py) is read too: it is what the
    package imports, and reading it costs nothing; an ignored folder (build/, dist/) is still not walked."""
    init = "__init__.py" if str(relative) == "." else f"{relative}/__init__.py"
    return any(e.name == "__init__.py" and e.is_file(follow_symlinks=False) for e in entries) \
        and not _ignored(init, _NOTHING, specs)


def _folders(paths: frozenset[str]) -> frozenset[str]:
    """Every folder that holds one of `paths` at any depth."""
    found: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        found.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return frozenset(found)


def _ignored(candidate: str, exclude_spec: pathspec.PathSpec, specs: tuple[pathspec.PathSpec, ...]) -> bool:
    return exclude_spec.match_file(candidate) or any(spec.match_file(candidate) for spec in specs)


def _identities(paths: tuple[Path, ...]) -> set[tuple[int, int]]:
    """(device, inode) of each path that exists: compared with each entry's lstat, at no extra system call."""
    found = set()
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue
        found.add((info.st_dev, info.st_ino))
    return found


def _inspect(root: Path, entry: os.DirEntry, outputs: set[tuple[int, int]]) -> tuple[bool, int, str] | str | None:
    """(is a folder, size, the path to open) of an entry worth walking or reading, a reason to list it as skipped,
    or None to pass over it silently. Uses lstat/stat only: nothing is opened. A link inside the root is read at its
    target (files are opened without following links)."""
    info = entry.stat(follow_symlinks=False)
    absolute = entry.path
    if stat.S_ISLNK(info.st_mode):
        target = absolute = os.path.realpath(entry.path)
        if not Path(target).is_relative_to(root):
            return "symbolic link that leaves the project"
        try:
            info = os.stat(target)
        except OSError as exc:
            return f"broken symbolic link ({exc.strerror or exc})"
        if stat.S_ISDIR(info.st_mode):
            return "symbolic link to a folder (not followed)"
    if (info.st_dev, info.st_ino) in outputs:
        return None
    if stat.S_ISDIR(info.st_mode):
        return True, 0, absolute
    if not stat.S_ISREG(info.st_mode):
        return f"not a regular file ({file_type(info.st_mode)})" if classify_path(entry.path) is not None else None
    return False, info.st_size, absolute


def discover_file(root: Path, name: str) -> Discovery:
    """One file given on the command line (`analyze FILE`), with the same checks as in a walk."""
    result = Discovery()
    path = os.path.join(root, name)
    try:
        info = os.lstat(path)
    except OSError as exc:
        result.skipped.append(SkippedFile(path=display_name(name), reason=f"cannot be inspected: {exc.strerror or exc}"))
        return result
    kind = classify_path(name)
    if not stat.S_ISREG(info.st_mode):
        result.skipped.append(SkippedFile(path=display_name(name), reason=f"not a regular file ({file_type(info.st_mode)})"))
    elif kind is None:
        result.skipped.append(SkippedFile(path=display_name(name), reason="not a kind of file the analyzer reads"))
    else:
        result.files.append(ProjectFile(path=display_name(name), absolute=path, kind=kind, size=info.st_size))
    return result
