"""Git facts about the analyzed checkout, read with dulwich's plumbing (pure Python: no `git` process, so none of
the project's hooks, filters, attribute drivers, file-system monitor, pager or aliases run). Every command that reads
git data (analyze's revision, --changed-since, port --apply's dirty check) opens it through `open_repository`, the
one place that decides whether a checkout's git folder may be read at all.

Only a `.git` inside the analyzed root is read: a checkout whose `.git` lies above the analyzed folder, or a
`.git` file, `commondir` or object `alternates` that lead outside it, has no revision. Before anything is opened,
the git folder is walked (bounded): a symbolic link inside it that leaves the tree, a FIFO or a device refuses the
whole folder (sockets, which git's file-system monitor leaves there, are passed over: they cannot be read). Dulwich's
`Repo` is never used (it reads `.git/config` with its `include`/`includeIf` files and the user's configuration):
the references, object store and index are opened with their own readers, and `.git/config` is parsed here, with
includes off, only to refuse a repository format this reader does not know. Working-tree files are compared by
their bytes (blob ids), never through a filter. All of it runs under a time budget; any problem gives a one-line
reason that names what failed, never the content of a file, and never an exception out of this module other than
GitUnavailable.
"""

from __future__ import annotations

import difflib
import io
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
MAX_CONFIG_BYTES = 1024 * 1024
MAX_BLOB_BYTES = 5 * 1024 * 1024  # as the analyzer's own file size limit: a larger file is taken as changed throughout
GIT_SECONDS = 30.0  # opening the repository and reading the revision and dirty state
DIFF_SECONDS = 5.0  # one file's line diff; past it the whole file counts as changed
KNOWN_EXTENSIONS = frozenset({b"worktreeconfig", b"relativeworktrees"})  # and objectformat = sha1
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
        raise GitUnavailable(f".git cannot be inspected: {exc.strerror or type(exc).__name__}") from None
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


def _common_dir(root: Path, folder: Path) -> Path:
    """The folder holding objects, references and config: the git folder itself, or the one a worktree's
    `commondir` names (inside the tree)."""
    common = folder / "commondir"
    if not os.path.lexists(common):
        return folder
    try:
        named = read_contained(root, str(common.relative_to(root)), 4096).decode("utf-8", errors="replace").strip()
    except Unreadable as exc:
        raise GitUnavailable(f"git commondir: {exc}") from None
    return _inside(root, Path(os.path.realpath(folder / named)), "the git commondir points")


def _inspect(root: Path, folder: Path) -> None:
    """Walk the git folder (and the common folder of a worktree) without following links: every link must stay in
    the tree, every entry must be a file or a folder, alternates must not name other object stores."""
    pending, seen, entries = [folder, _common_dir(root, folder)], set(), 0
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with os.scandir(current) as listing:
                children = list(listing)
        except OSError as exc:
            raise GitUnavailable(f"git folder cannot be listed: {exc.strerror or type(exc).__name__}") from None
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
                raise GitUnavailable(f"git folder entry cannot be inspected: {exc.strerror or type(exc).__name__}") from None
            if stat.S_ISDIR(mode):
                if not stat.S_ISLNK(child.stat(follow_symlinks=False).st_mode):
                    pending.append(Path(child.path))
            elif stat.S_ISSOCK(mode):
                continue  # git's own file-system monitor socket: never opened
            elif not stat.S_ISREG(mode):
                raise GitUnavailable("the git folder holds a FIFO or a device (not read)")
            elif child.name == "alternates" and os.path.getsize(child.path) > 0:
                raise GitUnavailable("the repository borrows objects from elsewhere (alternates; not read)")


def _check_config(root: Path, common: Path) -> None:
    """Refuse a repository format this reader does not know (SHA-256 objects, reftable references, an unknown
    extension). The config is parsed from its bytes with includes off: no `include.path` or `includeIf` file is
    opened, and nothing of the config is shown."""
    from dulwich.config import ConfigFile

    path = common / "config"
    if not os.path.lexists(path):
        return
    try:
        data = read_contained(root, str(path.relative_to(root)), MAX_CONFIG_BYTES)
    except Unreadable as exc:
        raise GitUnavailable(f"git config: {exc}") from None
    try:
        config = ConfigFile.from_file(io.BytesIO(data), expand_includes=False)
        version = int(config.get((b"core",), b"repositoryformatversion")) \
            if config.has_section((b"core",)) and _has(config, (b"core",), b"repositoryformatversion") else 0
        extensions = list(config.items((b"extensions",))) if config.has_section((b"extensions",)) else []
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - never quoted: a config line may be anything
        raise GitUnavailable(f"git config does not parse ({type(exc).__name__}; not read)") from None
    if version not in (0, 1):
        raise GitUnavailable("unknown git repository format version (not read)")
    for name, value in extensions:
        name = name.lower()
        if name == b"objectformat" and value.lower() == b"sha1":
            continue
        if name not in KNOWN_EXTENSIONS:
            raise GitUnavailable("the repository uses a git extension this reader does not know (not read)")


def _has(config, section: tuple[bytes, ...], name: bytes) -> bool:
    try:
        config.get(section, name)
    except KeyError:
        return False
    return True


class Repository:
    """A checkout's git data opened read-only: references, object store and index path, nothing else (no config
    stack, hooks, filters or working tree of dulwich's own)."""

    def __init__(self, controldir: Path, commondir: Path) -> None:
        from dulwich.object_store import DiskObjectStore
        from dulwich.refs import DiskRefsContainer

        self.controldir = controldir
        self.refs = DiskRefsContainer(str(commondir), str(controldir))
        self.object_store = DiskObjectStore(str(commondir / "objects"))

    def __getitem__(self, name: bytes):
        """An object by hex id, or a reference's object (what dulwich's objectspec asks of a repository)."""
        if name == b"HEAD" or name.startswith(b"refs/"):
            try:
                return self.object_store[self.refs[name]]
            except KeyError:
                pass
        if len(name) in (20, 40):
            try:
                return self.object_store[name]
            except (KeyError, ValueError):
                pass
        raise KeyError(name)

    def index_path(self) -> str:
        return str(self.controldir / "index")

    def close(self) -> None:
        self.object_store.close()


def open_repository(root: Path) -> Repository | None:
    """The git data of the checkout at `root`, None without a `.git` in it; GitUnavailable (one line) when it
    leaves the tree, holds something other than files and folders, or has a format this reader does not know.
    The caller bounds the time (GIT_SECONDS) and closes it."""
    root = Path(os.path.realpath(root))
    found = git_dir(root)
    if found is None:
        return None
    common = _common_dir(root, found)
    _check_config(root, common)
    try:
        return Repository(found, common)
    except Exception as exc:  # noqa: BLE001 - a damaged repository is a reason, never a crash
        raise GitUnavailable(f"not a readable git repository: {_short(exc)}") from None


def _open(root: Path) -> Repository:
    repo = open_repository(root)
    if repo is None:
        raise GitUnavailable(f"{root} is not a git checkout (no .git in it)")
    return repo


def _guarded(work):
    """Run `work()` under the git time budget; every failure becomes GitUnavailable with a one-line reason."""
    try:
        with budget.time_budget(GIT_SECONDS):
            return work()
    except GitUnavailable:
        raise
    except budget.OverBudget:
        raise GitUnavailable(f"reading git took more than {GIT_SECONDS:g} s") from None
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001 - a hostile .git is a reason, never a crash
        raise GitUnavailable(f"git data unreadable: {_short(exc)}") from None


def _head(repo: Repository):
    """HEAD's branch (None when detached) and commit (None before the first commit)."""
    chain, commit_id = repo.refs.follow(b"HEAD")
    branch = chain[-1].decode("utf-8", errors="replace") if len(chain) > 1 else None
    if branch is not None and branch.startswith("refs/heads/"):
        branch = branch[len("refs/heads/"):]
    if commit_id is None:
        return branch, None
    head = repo[commit_id]
    if head.type_name != b"commit":
        raise GitUnavailable("HEAD is not a commit")
    return branch, head


def read_revision(root: Path) -> tuple[ProjectRevision | None, str | None]:
    """HEAD's commit, branch and whether tracked files differ from it; (None, None) without a `.git` in `root`,
    (None, reason) when there is one that cannot be read."""
    def work():
        repo = open_repository(root)
        if repo is None:
            return None, None
        try:
            branch, head = _head(repo)
            if head is None:
                return None, "no commit yet"
            dirty = next(_changed_paths(Path(os.path.realpath(root)), repo, head.tree), None) is not None
            return ProjectRevision(commit=head.id.decode("ascii"), dirty=dirty, branch=branch), None
        finally:
            repo.close()

    try:
        return _guarded(work)
    except GitUnavailable as exc:
        return None, str(exc)


def uncommitted_changes(root: Path) -> list[str] | None:
    """The tracked files that differ from HEAD (staged or not), in path order; None when `root` has no `.git`;
    GitUnavailable (one line) when its git data cannot be read safely. Before the first commit every file in the
    index counts as changed."""
    def work():
        repo = open_repository(root)
        if repo is None:
            return None
        try:
            _, head = _head(repo)
            return sorted(set(_changed_paths(Path(os.path.realpath(root)), repo, head.tree if head else None)))
        finally:
            repo.close()

    return _guarded(work)


def tracked_paths(root: Path) -> frozenset[str] | None:
    """The paths git tracks in the checkout at `root` (its index, read with dulwich's plumbing: no filter, hook or
    attribute runs); None without a `.git` in `root` or when its git data cannot be read (the caller then cannot tell
    a committed file from an ignored one). A tracked file is never ignored by git, whatever .gitignore says."""
    def work():
        repo = open_repository(root)
        if repo is None:
            return None
        try:
            index = _read_index(repo)
            return frozenset() if index is None else frozenset(_relative(name) for name, _ in index.iteritems())
        finally:
            repo.close()

    try:
        return _guarded(work)
    except GitUnavailable:
        return None


def _read_index(repo: Repository):
    """The checkout's index (dulwich's reader, bounded in size and entries); None when there is none yet."""
    from dulwich.index import Index

    index_path = Path(repo.index_path())
    try:
        if os.lstat(index_path).st_size > MAX_INDEX_BYTES:
            raise GitUnavailable("git index too large (not read)")
    except FileNotFoundError:
        return None
    index = Index(str(index_path))
    if len(index) > MAX_INDEX_ENTRIES:
        raise GitUnavailable("git index has too many entries (not read)")
    return index


def _changed_paths(root: Path, repo: Repository, head_tree: bytes | None):
    """The tracked files that differ from HEAD's tree (staged or not), lazily. Untracked files do not count, as for
    `git describe --dirty`. A file whose size and modification time match the index is taken as unchanged, as git
    does; any other is compared by the blob id of its bytes (no clean filter, no attribute, no fsmonitor)."""
    from dulwich.objects import Blob

    index = _read_index(repo)
    if index is None:
        if head_tree is None:
            return  # `git init` and nothing added yet: nothing is tracked
        raise GitUnavailable("no git index (not a checkout)")
    entries = [(_relative(name), entry) for name, entry in index.iteritems()]  # a path outside refuses the index
    if head_tree is None:
        yield from (relative for relative, _ in entries)
        return
    for (old, new), _, _ in index.changes_from_tree(repo.object_store, head_tree):
        yield _relative(new if new is not None else old)
    for relative, entry in entries:
        if not hasattr(entry, "sha"):  # a merge conflict
            yield relative
            continue
        if stat.S_ISDIR(entry.mode) or (entry.mode & 0o170000) == 0o160000:  # submodule
            continue
        if _worktree_differs(root, relative, entry, Blob):
            yield relative


def _worktree_differs(root: Path, relative: str, entry, blob_type) -> bool:
    try:
        info = os.lstat(root / relative)
    except OSError:
        return True  # deleted (or not reachable): changed
    if stat.S_ISLNK(entry.mode):
        return not stat.S_ISLNK(info.st_mode) or \
            blob_type.from_string(os.fsencode(os.readlink(root / relative))).id != entry.sha
    if not stat.S_ISREG(info.st_mode):
        return True
    if _stat_matches(info, entry):
        return False
    try:
        data = read_contained(root, relative, MAX_BLOB_BYTES * 20)
    except Unreadable:
        return True
    return blob_type.from_string(data).id != entry.sha


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
    """What failed, never with the exception's text: a parser's message may quote the bytes of a file."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{type(exc).__name__}: {exc.strerror}"
    return type(exc).__name__


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
    def work():
        repo = _open(root)
        try:
            commit = _resolve(repo, ref)
        except BaseException:
            repo.close()
            raise
        return ChangedLines(Path(os.path.realpath(root)), ref, commit.id.decode("ascii"), repo, commit.tree)

    return _guarded(work)


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
