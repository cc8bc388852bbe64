"""Git facts about the analyzed checkout, read with dulwich's plumbing (pure Python: no `git` process, so none of
the project's hooks, configuration, filters or aliases run).

Only a `.git` inside the analyzed root is read: a checkout whose `.git` lies above the analyzed folder, or a
`.git` file, `commondir` or object `alternates` that lead outside it, has no revision. Before dulwich opens
anything, the git folder is walked (bounded): a symbolic link inside it that leaves the tree, a FIFO or a device
refuses the whole folder (sockets, which git's file-system monitor leaves there, are passed over: they cannot be
read). Working-tree files are read through the contained reader (regular files inside the tree, size limit).
All of it runs under a time budget; any problem gives no revision and a one-line reason,
never an exception out of this module other than GitUnavailable.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ascend_feasibility.analyzer.core import budget
from ascend_feasibility.analyzer.core.models import ProjectRevision
from ascend_feasibility.analyzer.reading.source import Unreadable, read_contained

MAX_GIT_ENTRIES = 200_000  # files and folders inside the git folder inspected before it is opened
MAX_INDEX_BYTES = 256 * 1024 * 1024
MAX_INDEX_ENTRIES = 1_000_000
MAX_BLOB_BYTES = 5 * 1024 * 1024  # as the analyzer's own file size limit: a larger file is taken as changed throughout
GIT_SECONDS = 30.0  # opening the repository and reading the revision and dirty state
DIFF_SECONDS = 5.0  # one file's line diff; past it the whole file counts as changed
_SUFFIX = re.compile(r"(~\d*|\^\d*)$")


class GitUnavailable(Exception):
    """The checkout's git data cannot be used; the message says why in one line."""


def git_dir(root: Path) -> Path | None:
    """The git folder of the checkout at `root` (its `.git`), None when there is none; GitUnavailable when there is
    one that cannot be read safely."""
    root = Path(os.path.realpath(root))
    dotgit = root / ".git"
    try:
        info = os.lstat(dotgit)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GitUnavailable(f".git cannot be inspected: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        found = dotgit
    elif stat.S_ISLNK(info.st_mode):
        found = _inside(root, Path(os.path.realpath(dotgit)), ".git is a symbolic link")
    elif stat.S_ISREG(info.st_mode):  # a worktree or submodule: `gitdir: PATH`
        try:
            text = read_contained(root, ".git", 4096).decode("utf-8", errors="replace").strip()
        except Unreadable as exc:
            raise GitUnavailable(f".git: {exc}") from None
        if not text.startswith("gitdir:"):
            raise GitUnavailable(".git is a file without a `gitdir:` line")
        found = _inside(root, Path(os.path.realpath(root / text[len("gitdir:"):].strip())), "the .git file points")
    else:
        raise GitUnavailable(".git is not a folder or a file")
    if not found.is_dir():
        raise GitUnavailable(".git does not lead to a folder")
    _inspect(root, found)
    return found


def _inside(root: Path, resolved: Path, what: str) -> Path:
    if not resolved.is_relative_to(root):
        raise GitUnavailable(f"{what} outside the analyzed tree (not read)")
    return resolved


def _inspect(root: Path, folder: Path) -> None:
    """Walk the git folder (and the common folder of a worktree) without following links: every link must stay in
    the tree, every entry must be a file or a folder, alternates must not name other object stores."""
    pending, seen, entries = [folder], set(), 0
    common = folder / "commondir"
    if common.is_file():
        try:
            named = read_contained(root, str(common.relative_to(root)), 4096).decode("utf-8", errors="replace").strip()
        except Unreadable as exc:
            raise GitUnavailable(f"git commondir: {exc}") from None
        pending.append(_inside(root, Path(os.path.realpath(folder / named)), "the git commondir points"))
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with os.scandir(current) as listing:
                children = list(listing)
        except OSError as exc:
            raise GitUnavailable(f"git folder cannot be listed: {exc.strerror or exc}") from None
        for child in children:
            entries += 1
            if entries > MAX_GIT_ENTRIES:
                raise GitUnavailable(f"git folder has more than {MAX_GIT_ENTRIES:,} entries (not read)")
            try:
                mode = child.stat(follow_symlinks=False).st_mode
                if stat.S_ISLNK(mode):
                    target = Path(os.path.realpath(child.path))
                    _inside(root, target, "a symbolic link in the git folder leads")
                    mode = os.stat(target).st_mode
            except OSError as exc:
                raise GitUnavailable(f"git folder entry cannot be inspected: {exc.strerror or exc}") from None
            if stat.S_ISDIR(mode):
                if not stat.S_ISLNK(child.stat(follow_symlinks=False).st_mode):
                    pending.append(Path(child.path))
            elif stat.S_ISSOCK(mode):
                continue  # git's own file-system monitor socket: never opened
            elif not stat.S_ISREG(mode):
                raise GitUnavailable("the git folder holds a FIFO or a device (not read)")
            elif child.name == "alternates" and os.path.getsize(child.path) > 0:
                raise GitUnavailable("the repository borrows objects from elsewhere (alternates; not read)")


def _open(root: Path):
    from dulwich.repo import Repo

    found = git_dir(root)
    if found is None:
        raise GitUnavailable(f"{root} is not a git checkout (no .git in it)")
    try:
        return Repo(str(found))  # the git folder itself: dulwich reads no working tree of its own
    except Exception as exc:  # noqa: BLE001 - a damaged repository is a reason, never a crash
        raise GitUnavailable(f"not a readable git repository: {_short(exc)}") from None


def read_revision(root: Path) -> tuple[ProjectRevision | None, str | None]:
    """HEAD's commit, branch and whether tracked files differ from it; (None, None) without a `.git` in `root`,
    (None, reason) when there is one that cannot be read."""
    try:
        with budget.time_budget(GIT_SECONDS):
            if git_dir(root) is None:
                return None, None
            repo = _open(root)
            try:
                chain, commit = repo.refs.follow(b"HEAD")
                if commit is None:
                    return None, "no commit yet"
                head = repo[commit]
                if head.type_name != b"commit":
                    raise GitUnavailable("HEAD is not a commit")
                branch = chain[-1].decode("utf-8", errors="replace") if len(chain) > 1 else None
                if branch is not None and branch.startswith("refs/heads/"):
                    branch = branch[len("refs/heads/"):]
                dirty = _dirty(Path(os.path.realpath(root)), repo, head.tree)
            finally:
                repo.close()
            return ProjectRevision(commit=commit.decode("ascii"), dirty=dirty, branch=branch), None
    except GitUnavailable as exc:
        return None, str(exc)
    except budget.OverBudget:
        return None, f"reading git took more than {GIT_SECONDS:g} s"
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001 - a hostile .git is a reason, never a crash
        return None, f"git data unreadable: {_short(exc)}"


def _dirty(root: Path, repo, head_tree: bytes) -> bool:
    """Do the tracked files differ from HEAD (staged or not)? Untracked files do not count, as for `git describe
    --dirty`. A file whose size and modification time match the index is taken as unchanged, as git does."""
    from dulwich.index import Index
    from dulwich.objects import Blob

    index_path = Path(repo.index_path())
    try:
        if os.lstat(index_path).st_size > MAX_INDEX_BYTES:
            raise GitUnavailable("git index too large (not read)")
    except FileNotFoundError:
        raise GitUnavailable("no git index (not a checkout)") from None
    index = Index(str(index_path))
    if len(index) > MAX_INDEX_ENTRIES:
        raise GitUnavailable("git index has too many entries (not read)")
    entries = [(_relative(name), entry) for name, entry in index.iteritems()]  # a path outside refuses the index
    if any(True for _ in index.changes_from_tree(repo.object_store, head_tree)):
        return True
    for relative, entry in entries:
        if not hasattr(entry, "sha"):  # a merge conflict
            return True
        if stat.S_ISDIR(entry.mode) or (entry.mode & 0o170000) == 0o160000:  # submodule
            continue
        try:
            info = os.lstat(root / relative)
        except OSError:
            return True  # deleted (or not reachable): changed
        if stat.S_ISLNK(entry.mode):
            if not stat.S_ISLNK(info.st_mode) or Blob.from_string(os.fsencode(os.readlink(root / relative))).id != entry.sha:
                return True
            continue
        if not stat.S_ISREG(info.st_mode):
            return True
        if _stat_matches(info, entry):
            continue
        try:
            data = read_contained(root, relative, MAX_BLOB_BYTES * 20)
        except Unreadable:
            return True
        if Blob.from_string(data).id != entry.sha:
            return True
    return False


def _stat_matches(info: os.stat_result, entry) -> bool:
    seconds, nanoseconds = divmod(info.st_mtime_ns, 1_000_000_000)
    entry_seconds, entry_nanoseconds = (tuple(entry.mtime) + (0, 0))[:2] if isinstance(entry.mtime, tuple) else (int(entry.mtime), 0)
    return (info.st_size & 0xFFFFFFFF) == entry.size and seconds == entry_seconds and entry_nanoseconds in (0, nanoseconds)


def _relative(name: bytes) -> str:
    """An index or tree path as a relative path that stays in the tree (a hostile index may name `../x`)."""
    text = os.fsdecode(name)
    parts = text.split("/")
    if text.startswith("/") or "\0" in text or any(part in ("", ".", "..", ".git") for part in parts):
        raise GitUnavailable("the git index names a path outside the tree (not read)")
    return text


def _short(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:200]


ALL_LINES = None  # ChangedLines.lines() value for a file that is new or changed throughout


@dataclass
class ChangedLines:
    """The lines of the working tree that differ from a commit's tree: `lines(path)` is an empty set for an unchanged
    file, the changed (added or modified) line numbers otherwise, or ALL_LINES for a file that is not in the commit
    or cannot be compared line by line."""

    root: Path
    ref: str
    commit: str
    _repo: object = field(repr=False)
    _tree: bytes = field(repr=False)
    _memo: dict = field(default_factory=dict, repr=False)

    def lines(self, path: str) -> frozenset[int] | None:
        if path not in self._memo:
            self._memo[path] = self._compare(path)
        return self._memo[path]

    def covers(self, path: str, first: int, last: int, whole_file: bool = False) -> bool:
        """Does the span first..last (1-based lines) of `path` touch a changed line? `whole_file`: any change in the
        file counts (a notebook, whose lines are the cell's)."""
        changed = self.lines(path)
        if changed is ALL_LINES:
            return True
        if whole_file:
            return bool(changed)
        return any(line in changed for line in range(first, max(first, last) + 1))

    def _compare(self, path: str) -> frozenset[int] | None:
        from dulwich.object_store import tree_lookup_path
        from dulwich.objects import Blob

        try:
            with budget.time_budget(DIFF_SECONDS):
                try:
                    _relative(os.fsencode(path))
                    current = read_contained(self.root, path, MAX_BLOB_BYTES)
                except (GitUnavailable, Unreadable, ValueError):
                    return ALL_LINES  # a name shown escaped, or a file that cannot be read again: keep its findings
                try:
                    mode, sha = tree_lookup_path(self._repo.object_store.__getitem__, self._tree, os.fsencode(path))
                except (KeyError, NotADirectoryError):
                    return ALL_LINES  # not in the commit: new
                if not stat.S_ISREG(mode):
                    return ALL_LINES
                if Blob.from_string(current).id == sha:
                    return frozenset()
                before = self._repo[sha]
                if before.type_name != b"blob" or before.raw_length() > MAX_BLOB_BYTES:
                    return ALL_LINES
                return _added_lines(before.as_raw_string(), current)
        except (Exception, budget.OverBudget, RecursionError, MemoryError):  # noqa: BLE001 - keep the file's findings
            return ALL_LINES

    def close(self) -> None:
        self._repo.close()


def _added_lines(before: bytes, after: bytes) -> frozenset[int]:
    """The 1-based lines of `after` that are not unchanged lines of `before` (inserted or replaced)."""
    matcher = difflib.SequenceMatcher(None, before.split(b"\n"), after.split(b"\n"), autojunk=False)
    changed: set[int] = set()
    for tag, _, _, first, last in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(first + 1, last + 1))
    return frozenset(changed)


def changed_since(root: Path, ref: str) -> ChangedLines:
    """What changed in the checkout at `root` since `ref` (a branch, tag, remote branch, commit id, optionally with
    `~N` / `^` suffixes); GitUnavailable with a one-line reason for an unknown ref or a tree that is not a checkout."""
    try:
        with budget.time_budget(GIT_SECONDS):
            repo = _open(root)
            try:
                commit = _resolve(repo, ref)
            except GitUnavailable:
                repo.close()
                raise
            return ChangedLines(Path(os.path.realpath(root)), ref, commit.id.decode("ascii"), repo, commit.tree)
    except budget.OverBudget:
        raise GitUnavailable(f"reading git took more than {GIT_SECONDS:g} s") from None
    except GitUnavailable:
        raise
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001
        raise GitUnavailable(f"git data unreadable: {_short(exc)}") from None


def _resolve(repo, ref: str):
    from dulwich.objectspec import parse_commit

    spec, steps = ref.strip(), []
    while (match := _SUFFIX.search(spec)) and match.start() > 0:
        suffix = match.group(0)
        count = int(suffix[1:] or 1)
        steps.append((suffix[0], count))
        spec = spec[:match.start()]
    if not spec or len(ref) > 1000:
        raise GitUnavailable(f"unknown revision {ref!r}")
    try:
        commit = parse_commit(repo, spec)
    except (KeyError, ValueError):
        raise GitUnavailable(f"unknown revision {ref!r} (not a branch, tag or commit of this repository)") from None
    for kind, count in reversed(steps):
        if kind == "^":  # the count-th parent
            commit = _parent(repo, commit, count - 1, ref) if count else commit
        else:  # ~N: the first parent, N times
            for _ in range(count):
                commit = _parent(repo, commit, 0, ref)
    return commit


def _parent(repo, commit, index: int, ref: str):
    if index >= len(commit.parents):
        raise GitUnavailable(f"unknown revision {ref!r} (no such parent)")
    return repo[commit.parents[index]]
