"""A cache of per-file results for re-runs, in the user's cache folder.

An entry is one file's FileResult (what the pipeline merges before its project-level passes), stored as JSON (never
pickle: a cache entry is data, not code) under a key that hashes everything the result depends on: the file's
content, its path and kind, its context in the project (role, reach, the project's own packages), the target
release, and the analyzer itself (its version, the content of its code and knowledge base, the versions of the
parsers and libraries it uses). A change to any of them is a different key; stale entries are never read, only
aged out.

Safe under concurrent runs: an entry is written to a temporary file in its folder and renamed into place, so a
reader sees a whole entry or none. Each entry starts with a digest of its key and content, checked on read: an
entry edited by hand, copied under another key, truncated, corrupt or from another version is a miss, never
served. The folder is kept under a size bound: past it, the least recently used entries are removed. Results that
depend on timing or on other files (a file over its time budget, an analyzer error, a requirements file with `-r`
includes) are not stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from ascend_feasibility.analyzer import __version__
from ascend_feasibility.analyzer.context import ProjectContext
from ascend_feasibility.analyzer.core.filework import FileResult, content_digest
from ascend_feasibility.analyzer.reading.discovery import ProjectFile
from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes
from pydantic import TypeAdapter

CACHE_LAYOUT = "3"  # bump when the entry format changes (2: a digest line before the JSON; 3: phases facts hold
# back what class_uses reads at project time, PhaseFacts.uses_later)
DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
MAX_ENTRY_BYTES = 256 * 1024 * 1024
TOUCH_AFTER_SECONDS = 3600  # a hit refreshes an entry's time at most this often (least recently used, roughly)
TRIM_TO = 0.8  # past the bound, remove entries until the folder is this share of it
CODE_FOLDERS = ("analyzer", "domains", "knowledge")
LIBRARIES = ("tree-sitter", "tree-sitter-python", "tree-sitter-bash", "tree-sitter-cuda", "tree-sitter-cpp", "pydantic",
             "pyyaml", "packaging")
_ADAPTER = TypeAdapter(FileResult)
_TOOL_FINGERPRINT: str | None = None


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/ascend-feasibility` (else `~/.cache/...`); `~/Library/Caches/...` on macOS;
    `%LOCALAPPDATA%\\ascend-feasibility\\Cache` on Windows."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "ascend-feasibility" / "Cache"
    if sys.platform == "darwin" and not os.environ.get("XDG_CACHE_HOME"):
        return Path.home() / "Library" / "Caches" / "ascend-feasibility"
    base = os.environ.get("XDG_CACHE_HOME") or ""
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "ascend-feasibility"


def tool_fingerprint() -> str:
    """The analyzer as a hash: its version, every file of its code and knowledge base, and the libraries it parses with
    (a development checkout with an edited rule gets new keys without a version bump)."""
    global _TOOL_FINGERPRINT
    if _TOOL_FINGERPRINT is None:
        digest = hashlib.blake2b(f"{CACHE_LAYOUT}\0{__version__}\0{sys.version_info[:2]}".encode(), digest_size=16)
        top = Path(__file__).resolve().parents[2]
        for folder in CODE_FOLDERS:
            for path in sorted((top / folder).rglob("*")):
                if path.suffix in (".py", ".toml", ".scm", ".json") and path.is_file() and "__pycache__" not in path.parts:
                    digest.update(str(path.relative_to(top)).encode() + b"\0" + path.read_bytes() + b"\0")
        for library in LIBRARIES:
            try:
                version = metadata.version(library)
            except metadata.PackageNotFoundError:
                version = "-"
            digest.update(f"{library}={version}\0".encode())
        _TOOL_FINGERPRINT = digest.hexdigest()
    return _TOOL_FINGERPRINT


def _seal(key: str, payload: bytes) -> bytes:
    """The digest an entry carries: of its key and its JSON, so that an entry is served only as written, under the
    key it was written for."""
    return hashlib.blake2b(key.encode("ascii") + b"\0" + payload, digest_size=32).hexdigest().encode("ascii")


def read_sealed(path: Path, key: str, limit: int = MAX_ENTRY_BYTES) -> bytes | None:
    """The payload of a file `write_sealed` wrote under `key`; None when it is missing, cut short, edited or another
    key's."""
    try:
        stored, _, payload = read_bytes(str(path), limit=limit).partition(b"\n")
    except Unreadable:
        return None
    return payload if stored == _seal(key, payload) else None


def write_sealed(path: Path, key: str, payload: bytes) -> None:
    """Write `payload` with its seal, whole or not at all (a temporary file renamed into place). Nothing is written
    when the file's folder is a link out of the cache folder above it (planted in a cache kept inside a project).
    Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if os.path.realpath(path.parent) != os.path.join(os.path.realpath(path.parent.parent), path.parent.name):
        raise OSError(f"{path.parent} is a link")
    handle = tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(_seal(key, payload) + b"\n")
            handle.write(payload)  # not joined first: a report is tens of MB
        os.replace(handle.name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise


class StatIndex:
    """The content digest of each file a run read, by the file's stat (size, mtime, ctime, inode), as git's index and
    ruff's cache keep them: a warm run trusts a file whose stat is unchanged and reads only the others. One sealed
    JSON file per analyzed root in the cache folder; one that does not load is an empty index (every file is read).
    A file modified in the last seconds before the run is not recorded: a second edit in the same clock tick would keep
    its stat (git's racy-clean case); its ctime, which any later write or utime changes, is part of the match."""

    RACY_NS = 2_000_000_000

    def __init__(self, folder: Path, root: Path) -> None:
        name = hashlib.blake2b(os.fsencode(os.path.realpath(root)), digest_size=16).hexdigest()
        self.path = folder / "stat" / f"{name}.json"
        self._key = f"stat-{name}"
        self._started_ns = time.time_ns()
        self._entries: dict[str, list] = {}
        self._changed = False
        try:
            payload = read_sealed(self.path, self._key)
            entries = json.loads(payload) if payload is not None else None
            if isinstance(entries, dict):
                self._entries = entries
        except Exception:  # noqa: BLE001 - corrupt or foreign: an empty index
            self._entries = {}

    @staticmethod
    def stat_of(absolute: str) -> list[int] | None:
        try:
            info = os.stat(absolute)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]

    def digest(self, path: str, stat_now: list[int] | None) -> str | None:
        entry = self._entries.get(path)
        if stat_now is None or not isinstance(entry, list) or len(entry) != 5 or entry[:4] != stat_now:
            return None
        return entry[4] if isinstance(entry[4], str) else None

    def record(self, path: str, stat_now: list[int] | None, digest: str) -> None:
        if stat_now is None or self._started_ns - stat_now[1] < self.RACY_NS:
            return
        self._entries[path] = [*stat_now, digest]
        self._changed = True

    def save(self) -> None:
        if not self._changed:
            return
        payload = json.dumps(self._entries, separators=(",", ":"), sort_keys=True).encode("utf-8")
        with contextlib.suppress(OSError):  # a read-only or full cache folder: the next run reads the files again
            write_sealed(self.path, self._key, payload)


class FileCache:
    """Per-file results of one run's settings (target, project context) in `folder`."""

    def __init__(self, folder: Path, target: str, context: ProjectContext, max_bytes: int = DEFAULT_MAX_BYTES,
                 root: Path | None = None) -> None:
        self.folder = folder / f"v{CACHE_LAYOUT}"
        self.stats = StatIndex(self.folder, root) if root is not None else None
        self.context = context
        self.max_bytes = max_bytes
        self.hits = self.misses = self.written = 0
        # what per-file work reads of the whole project besides the file's own context (FileWorker)
        self._salt = (f"{tool_fingerprint()}\0{target}\0{','.join(sorted(context.own_packages))}"
                      f"\0{context.npu_accelerator or ''}")
        self._usable = True
        self._root = str(self.folder)
        self._now = time.time()

    @property
    def salt(self) -> str:
        return self._salt

    def cacheable(self, project_file: ProjectFile) -> bool:
        return self._usable and project_file.kind != "build"  # build files read their `-r` includes: other files

    def key(self, project_file: ProjectFile, digest: str) -> str:
        file_context = self.context.of(project_file.path)
        text = "\0".join((self._salt, project_file.path, project_file.kind, file_context.role, file_context.reach,
                          file_context.reason or "", digest))
        return hashlib.blake2b(text.encode("utf-8", errors="surrogateescape"), digest_size=20).hexdigest()

    def key_for(self, project_file: ProjectFile) -> str | None:
        """The file's key, from its content; None when the file cannot be cached or read (the worker will say why)."""
        if not self.cacheable(project_file):
            return None
        stat_now = StatIndex.stat_of(project_file.absolute) if self.stats is not None else None
        digest = self.stats.digest(project_file.path, stat_now) if self.stats is not None else None
        if digest is None:
            try:
                data = read_bytes(project_file.absolute, project_file.size)
            except Unreadable:
                return None
            digest = content_digest(data)
            if self.stats is not None:
                self.stats.record(project_file.path, stat_now, digest)
        return self.key(project_file, digest)

    def run_part(self, project_file: ProjectFile, key: str | None, result: FileResult | None = None) -> str | None:
        """What a report's run key (report_cache.py) takes of one file: its key, or (a file never cached) a hash of
        its result. `result`: the result this run made or loaded of the file, None before the scan (the key alone
        stands for it). None when the part cannot be told: a file never cached whose result is not at hand, or a result
        that depends on timing or an analyzer error, or that was made of other content than the key's (the file
        changed during the run)."""
        if not self._usable or (result is not None and not result.cacheable):
            return None
        if key is None:
            if result is None:
                return None
            return f"{project_file.path}\0=" + hashlib.blake2b(_ADAPTER.dump_json(result), digest_size=20).hexdigest()
        if result is not None and (result.digest is None or self.key(project_file, result.digest) != key):
            return None
        return f"{project_file.path}\0{key}"

    def has(self, key: str | None) -> bool:
        return key is not None and os.path.isfile(self._entry(key))

    def load(self, key: str, path: str) -> FileResult | None:
        """The stored result, or None (counted as a miss) when the entry is missing or does not load."""
        result = self._load(key, path)
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
        return result

    def _entry(self, key: str) -> str:
        return os.path.join(self._root, key[:2], f"{key}.json")  # strings, not Path objects: this runs per file

    def _load(self, key: str, path: str) -> FileResult | None:
        entry = self._entry(key)
        try:
            stored, _, payload = read_bytes(entry, limit=MAX_ENTRY_BYTES).partition(b"\n")
            if stored != _seal(key, payload):
                return None  # edited, copied from another key, or cut short
            result = _ADAPTER.validate_json(payload)
        except Exception:  # noqa: BLE001 - missing, truncated, corrupt or foreign: not a hit
            return None
        if result.path != path or result.digest is None:
            return None
        with contextlib.suppress(OSError):
            if self._now - os.stat(entry).st_mtime > TOUCH_AFTER_SECONDS:
                os.utime(entry)
        return result

    def store(self, project_file: ProjectFile, result: FileResult) -> None:
        """Keep a fresh result, keyed by the content the worker read (which a concurrent edit may have changed)."""
        if not (self.cacheable(project_file) and result.cacheable and result.digest is not None):
            return
        key = self.key(project_file, result.digest)
        entry = Path(self._entry(key))
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            if os.path.realpath(entry.parent) != os.path.join(os.path.realpath(self.folder), entry.parent.name):
                self._usable = False  # a shard folder that is a link (planted in a cache kept inside a project)
                return
            handle = tempfile.NamedTemporaryFile("wb", dir=entry.parent, prefix=f".{entry.name}.", suffix=".tmp",
                                                 delete=False)
            try:
                payload = _ADAPTER.dump_json(result)
                with handle:
                    handle.write(_seal(key, payload) + b"\n" + payload)
                os.replace(handle.name, entry)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(handle.name)
                raise
        except OSError:
            self._usable = False  # a read-only or full cache folder: the run goes on without storing
            return
        self.written += 1

    def trim(self) -> None:
        """Past the size bound, remove the least recently used entries (and temporary files of runs that died); keep
        the stat index for the next run."""
        if self.stats is not None and self._usable:
            self.stats.save()
        if not self.written:
            return
        entries, total = [], 0
        try:
            shards = [Path(e.path) for e in os.scandir(self.folder) if e.is_dir(follow_symlinks=False)]
            for shard in shards:
                for item in os.scandir(shard):
                    info = item.stat(follow_symlinks=False)
                    if item.name.endswith(".tmp") and time.time() - info.st_mtime > 3600:
                        with contextlib.suppress(OSError):
                            os.unlink(item.path)
                        continue
                    entries.append((info.st_mtime, item.path, info.st_size))
                    total += info.st_size
        except OSError:
            return
        if total <= self.max_bytes:
            return
        for _, path, size in sorted(entries):
            with contextlib.suppress(OSError):
                os.unlink(path)
            total -= size
            if total <= self.max_bytes * TRIM_TO:
                break
