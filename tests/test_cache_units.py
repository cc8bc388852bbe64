"""The per-file cache's parts on their own, without an analysis: where the folder is on each platform, what the key
depends on, how an entry is sealed, served and aged, the stat index, and the size bound (tests/test_cache.py runs the
same cache through whole analyses)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.context import FileContext, ProjectContext
from ascend_feasibility.analyzer.core import cache as cache_module
from ascend_feasibility.analyzer.core.cache import FileCache, StatIndex, default_cache_dir
from ascend_feasibility.analyzer.core.filework import FileResult, content_digest
from ascend_feasibility.analyzer.reading.discovery import ProjectFile


# default_cache_dir --------------------------------------------------------------------------------------------
@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("LOCALAPPDATA", raising=False)
    return tmp_path / "home"


def test_windows_cache_folder_is_under_localappdata(home, monkeypatch, tmp_path):
    monkeypatch.setattr(cache_module.sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # not read on Windows
    assert default_cache_dir() == tmp_path / "local" / "ascend-feasibility" / "Cache"


def test_windows_without_localappdata_uses_the_home_appdata_local(home, monkeypatch):
    monkeypatch.setattr(cache_module.sys, "platform", "win32")
    assert default_cache_dir() == home / "AppData" / "Local" / "ascend-feasibility" / "Cache"
    monkeypatch.setenv("LOCALAPPDATA", "")  # set but empty: as if unset
    assert default_cache_dir() == home / "AppData" / "Local" / "ascend-feasibility" / "Cache"


def test_macos_uses_library_caches_unless_xdg_is_set(home, monkeypatch, tmp_path):
    monkeypatch.setattr(cache_module.sys, "platform", "darwin")
    assert default_cache_dir() == home / "Library" / "Caches" / "ascend-feasibility"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "ascend-feasibility"


def test_linux_follows_an_absolute_xdg_cache_home_else_dot_cache(home, monkeypatch, tmp_path):
    monkeypatch.setattr(cache_module.sys, "platform", "linux")
    assert default_cache_dir() == home / ".cache" / "ascend-feasibility"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "ascend-feasibility"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec: a relative path is invalid, ignored
    assert default_cache_dir() == home / ".cache" / "ascend-feasibility"


# the key --------------------------------------------------------------------------------------------------
PATH = "pkg/m.py"


def _file(tmp_path: Path, path: str = PATH, kind: str = "python", text: str = "import torch\n") -> ProjectFile:
    absolute = tmp_path / "tree" / path
    absolute.parent.mkdir(parents=True, exist_ok=True)
    absolute.write_text(text)
    return ProjectFile(path=path, absolute=str(absolute), kind=kind, size=len(text.encode()))


def _cache(tmp_path: Path, context: ProjectContext | None = None, target: str = "2.6.0", **kwargs) -> FileCache:
    return FileCache(tmp_path / "cache", target, context or ProjectContext(), **kwargs)


BASE = dict(path=PATH, kind="python", role="product", reach="runs", reason=None, digest="d" * 40, target="2.6.0",
            own=frozenset({"pkg"}), npu_files=())
CHANGES = {  # each thing the docstring says a key depends on, changed alone
    "path": "pkg/other.py", "kind": "notebook", "role": "test", "reach": "optional", "reason": "behind HAS_TRITON",
    "digest": "e" * 40, "target": "2.7.0", "own": frozenset({"pkg", "extra"}),
    "npu_files": ("accelerator/npu_accelerator.py",),
}


def _key(tmp_path: Path, **changed) -> str:
    s = {**BASE, **changed}
    context = ProjectContext(files={s["path"]: FileContext(s["role"], s["reach"], s["reason"])}, own_packages=s["own"],
                             npu_files=s["npu_files"])
    project_file = ProjectFile(path=s["path"], absolute="/nowhere", kind=s["kind"], size=1)
    return _cache(tmp_path, context, s["target"]).key(project_file, s["digest"])


def test_the_same_inputs_give_the_same_key_and_it_names_a_file(tmp_path):
    key = _key(tmp_path)
    assert key == _key(tmp_path) and len(key) >= 32 and set(key) <= set("0123456789abcdef")


@pytest.mark.parametrize("what", sorted(CHANGES))
def test_the_key_changes_with_everything_the_result_depends_on(tmp_path, what):
    # dropping the reach from the key served a file's findings of one reach (runs) to a run where its context says
    # another (optional): the report's counts would follow the cache, not the project
    assert _key(tmp_path, **{what: CHANGES[what]}) != _key(tmp_path)


def test_the_key_depends_on_the_packages_not_on_their_order(tmp_path):
    assert _key(tmp_path, own=frozenset({"b", "a"})) == _key(tmp_path, own=frozenset({"a", "b"}))
    assert _key(tmp_path, own=frozenset({"ab"})) != _key(tmp_path, own=frozenset({"a", "b"}))


def test_the_key_changes_with_the_analyzer(tmp_path, monkeypatch):
    before = _key(tmp_path)
    monkeypatch.setattr(cache_module, "_TOOL_FINGERPRINT", "another build")
    assert _key(tmp_path) != before


def test_the_tool_fingerprint_hashes_the_code_and_the_library_versions(monkeypatch):
    monkeypatch.setattr(cache_module, "_TOOL_FINGERPRINT", None)
    first = cache_module.tool_fingerprint()
    assert len(first) == 32 and cache_module.tool_fingerprint() == first  # blake2b of 16 bytes, kept once computed
    monkeypatch.setattr(cache_module, "_TOOL_FINGERPRINT", None)
    real = cache_module.metadata.version
    monkeypatch.setattr(cache_module.metadata, "version",
                        lambda name: "0.0-other" if name == "tree-sitter-python" else real(name))
    assert cache_module.tool_fingerprint() != first
    monkeypatch.setattr(cache_module, "_TOOL_FINGERPRINT", None)
    monkeypatch.setattr(cache_module, "__version__", "0.0.0-other")
    assert cache_module.tool_fingerprint() != first


def test_key_for_reads_the_content_and_refuses_build_files_and_unreadable_ones(tmp_path):
    cache = _cache(tmp_path)
    one = _file(tmp_path)
    assert cache.key_for(one) == cache.key(one, content_digest(b"import torch\n"))
    build = _file(tmp_path, "requirements.txt", kind="build", text="torch\n")
    assert not cache.cacheable(build) and cache.key_for(build) is None  # it reads its `-r` includes: other files
    gone = ProjectFile(path="gone.py", absolute=str(tmp_path / "gone.py"), kind="python", size=1)
    assert cache.key_for(gone) is None


# entries --------------------------------------------------------------------------------------------------
def _result(path: str = PATH, digest: str | None = None, **kwargs) -> FileResult:
    return FileResult(path=path, scanned=True, lines=1, digest=digest or content_digest(b"import torch\n"), **kwargs)


def test_a_stored_result_is_served_whole_and_counted(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    assert not cache.has(key) and not cache.has(None)
    assert cache.load(key, PATH) is None and (cache.hits, cache.misses) == (0, 1)
    cache.store(one, _result())
    assert cache.written == 1 and cache.has(key)
    loaded = cache.load(key, PATH)
    assert loaded == _result() and (cache.hits, cache.misses) == (1, 1)
    entry = Path(cache._entry(key))
    assert entry.parent.name == key[:2] and entry.parent.parent == tmp_path / "cache" / "v2"  # sharded by the key


def test_an_entry_is_not_served_for_another_path_or_without_a_digest(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    cache.store(one, _result())
    assert cache.load(key, "pkg/other.py") is None
    payload = cache_module._ADAPTER.dump_json(_result())
    no_digest = json.dumps({**json.loads(payload), "digest": None}).encode()
    Path(cache._entry(key)).write_bytes(cache_module._seal(key, no_digest) + b"\n" + no_digest)
    assert cache.load(key, PATH) is None


@pytest.mark.parametrize("damage", ["edited", "other-key", "truncated", "no-seal"])
def test_an_entry_not_as_written_under_its_key_is_a_miss(tmp_path, damage):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    cache.store(one, _result())
    entry = Path(cache._entry(key))
    seal, _, payload = entry.read_bytes().partition(b"\n")
    if damage == "edited":
        entry.write_bytes(seal + b"\n" + payload.replace(b'"lines":1', b'"lines":2'))
    elif damage == "other-key":
        entry.write_bytes(cache_module._seal("0" * 40, payload) + b"\n" + payload)
    elif damage == "truncated":
        entry.write_bytes(seal + b"\n" + payload[:-5])
    else:
        entry.write_bytes(payload)
    assert cache.load(key, PATH) is None and cache.misses == 1


def test_results_that_depend_on_timing_or_have_no_digest_are_not_stored(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    cache.store(one, _result(cacheable=False))
    cache.store(one, FileResult(path=PATH, digest=None))
    cache.store(_file(tmp_path, "requirements.txt", kind="build", text="torch\n"), _result("requirements.txt"))
    assert cache.written == 0 and not list((tmp_path / "cache").rglob("*.json"))


def test_a_hit_refreshes_an_old_entry_time_but_not_a_recent_one(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    cache.store(one, _result())
    entry = cache._entry(key)
    recent = time.time() - 60
    os.utime(entry, (recent, recent))
    cache.load(key, PATH)
    assert os.stat(entry).st_mtime == pytest.approx(recent)  # touched at most once an hour
    old = time.time() - 2 * 3600
    os.utime(entry, (old, old))
    cache.load(key, PATH)
    assert os.stat(entry).st_mtime > time.time() - 600


def test_a_shard_folder_that_is_a_link_stops_storing(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache" / "v2").mkdir(parents=True)
    (tmp_path / "cache" / "v2" / key[:2]).symlink_to(elsewhere)
    cache.store(one, _result())
    assert not list(elsewhere.iterdir()) and cache.written == 0
    assert not cache.cacheable(one) and cache.key_for(one) is None  # the rest of the run goes on without the cache


# the size bound -------------------------------------------------------------------------------------------
def _filled(tmp_path: Path, count: int, max_bytes: int) -> tuple[FileCache, list[str]]:
    cache = _cache(tmp_path, max_bytes=max_bytes)
    entries = []
    for index in range(count):
        one = _file(tmp_path, f"m{index}.py", text=f"x = {index}\n")
        cache.store(one, _result(one.path, content_digest(f"x = {index}\n".encode())))
        entries.append(cache._entry(cache.key_for(one)))
        moment = time.time() - 1000 + index * 10  # m0 the least recently used
        os.utime(entries[-1], (moment, moment))
    return cache, entries


def test_past_the_bound_the_least_recently_used_go_until_the_folder_is_within_its_share(tmp_path):
    size = None
    cache, entries = _filled(tmp_path, 10, 1)
    size = os.path.getsize(entries[0])
    for path in entries:
        assert abs(os.path.getsize(path) - size) <= 4  # about the same size each
    cache.max_bytes = size * 10 - 1  # one entry over
    cache.trim()
    kept = [os.path.exists(path) for path in entries]
    bound = cache.max_bytes * cache_module.TRIM_TO
    assert kept == [False] * (10 - sum(kept)) + [True] * sum(kept)  # the oldest removed first
    assert sum(os.path.getsize(p) for p, k in zip(entries, kept) if k) <= bound
    assert sum(kept) == 7  # removed until the rest is within 80 % of the bound, and no further


def test_within_the_bound_nothing_is_removed(tmp_path):
    cache, entries = _filled(tmp_path, 3, 10**9)
    cache.trim()
    assert all(os.path.exists(path) for path in entries)
    cache.max_bytes = sum(os.path.getsize(p) for p in entries)  # exactly at the bound: not past it
    cache.trim()
    assert all(os.path.exists(path) for path in entries)


def test_trim_removes_temporary_files_of_dead_runs_only_when_old(tmp_path):
    cache, entries = _filled(tmp_path, 1, 10**9)
    shard = Path(entries[0]).parent
    old, fresh = shard / ".a.json.1.tmp", shard / ".b.json.2.tmp"
    old.write_bytes(b"x")
    fresh.write_bytes(b"x")
    moment = time.time() - 2 * 3600
    os.utime(old, (moment, moment))
    cache.trim()
    assert not old.exists() and fresh.exists() and os.path.exists(entries[0])


def test_a_run_that_wrote_nothing_does_not_trim(tmp_path):
    cache, entries = _filled(tmp_path, 3, 10**9)
    again = _cache(tmp_path, max_bytes=1)
    again.trim()
    assert all(os.path.exists(path) for path in entries)


# the stat index ------------------------------------------------------------------------------------------
def test_the_stat_index_serves_a_digest_only_for_an_unchanged_stat_and_survives_the_run(tmp_path):
    one = _file(tmp_path)
    past = time.time() - 60
    os.utime(one.absolute, (past, past))
    index = StatIndex(tmp_path / "cache", tmp_path / "tree")
    stat_now = StatIndex.stat_of(one.absolute)
    assert stat_now is not None and stat_now[0] == len(b"import torch\n")
    assert index.digest(PATH, stat_now) is None
    index.record(PATH, stat_now, "abc")
    assert index.digest(PATH, stat_now) == "abc"
    assert index.digest(PATH, None) is None and index.digest("other.py", stat_now) is None
    assert index.digest(PATH, [stat_now[0] + 1, *stat_now[1:]]) is None
    index.save()
    again = StatIndex(tmp_path / "cache", tmp_path / "tree")
    assert again.digest(PATH, stat_now) == "abc"
    assert StatIndex(tmp_path / "cache", tmp_path / "another-tree").digest(PATH, stat_now) is None  # one per root


def test_a_file_modified_just_before_the_run_is_not_recorded(tmp_path):
    one = _file(tmp_path)  # written now: a second edit in the same clock tick would keep its stat
    index = StatIndex(tmp_path / "cache", tmp_path / "tree")
    stat_now = StatIndex.stat_of(one.absolute)
    index.record(PATH, stat_now, "abc")
    index.record("gone.py", None, "abc")
    assert index.digest(PATH, stat_now) is None
    index.save()
    assert not (tmp_path / "cache" / "stat").exists()  # nothing recorded: nothing written


def test_stat_of_refuses_what_is_not_a_regular_file(tmp_path):
    assert StatIndex.stat_of(str(tmp_path)) is None
    assert StatIndex.stat_of(str(tmp_path / "missing")) is None


@pytest.mark.parametrize("content", [b"", b"garbage", b"x\n{}", b"\n[]"])
def test_a_damaged_or_foreign_stat_index_is_empty(tmp_path, content):
    one = _file(tmp_path)
    past = time.time() - 60
    os.utime(one.absolute, (past, past))
    index = StatIndex(tmp_path / "cache", tmp_path / "tree")
    stat_now = StatIndex.stat_of(one.absolute)
    index.record(PATH, stat_now, "abc")
    index.save()
    index.path.write_bytes(content)
    assert StatIndex(tmp_path / "cache", tmp_path / "tree").digest(PATH, stat_now) is None
    sealed_list = b"[]"
    index.path.write_bytes(cache_module._seal(index._key, sealed_list) + b"\n" + sealed_list)  # sealed, not a dict
    assert StatIndex(tmp_path / "cache", tmp_path / "tree")._entries == {}


@pytest.mark.parametrize("entry", [["x"], [1, 2, 3, 4, 5, 6], None])
def test_a_malformed_stat_entry_is_no_digest(tmp_path, entry):
    index = StatIndex(tmp_path / "cache", tmp_path / "tree")
    index._entries[PATH] = entry
    assert index.digest(PATH, [1, 2, 3, 4]) is None
    index._entries[PATH] = [1, 2, 3, 4, 5]  # a digest that is not a string
    assert index.digest(PATH, [1, 2, 3, 4]) is None


def test_a_file_cache_with_a_root_uses_the_stat_index_and_keeps_it(tmp_path):
    one = _file(tmp_path)
    past = time.time() - 60
    os.utime(one.absolute, (past, past))
    cache = _cache(tmp_path, root=tmp_path / "tree")
    key = cache.key_for(one)
    cache.store(one, _result())
    cache.trim()  # saves the index
    Path(one.absolute).write_text("import torch\n")  # same content, new stat: read again, same key
    fresh = _cache(tmp_path, root=tmp_path / "tree")
    assert fresh.key_for(one) == key
    os.utime(one.absolute, (past, past))
    stored = StatIndex(tmp_path / "cache" / "v2", tmp_path / "tree")
    stored.record(PATH, StatIndex.stat_of(one.absolute), "f" * 40)
    stored.save()
    trusting = _cache(tmp_path, root=tmp_path / "tree")  # what the index says is trusted without reading the file
    assert trusting.key_for(one) == trusting.key(one, "f" * 40) != key
