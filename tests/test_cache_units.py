"""The per-file cache's parts on their own, without an analysis: where the folder is on each platform, what the key
depends on, how an entry is sealed, served and aged, the stat index, and the size bound (tests/test_cache.py runs the
same cache through whole analyses)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.context import FileContext, ProjectContext
from ascend_feasibility.analyzer.core import cache as cache_module
from ascend_feasibility.analyzer.core.cache import FileCache, StatIndex, default_cache_dir
from ascend_feasibility.analyzer.core.filework import FileResult, content_digest
from ascend_feasibility.analyzer.reading.discovery import ProjectFile

LAYOUT = f"v{cache_module.CACHE_LAYOUT}"  # the cache folder's entries (its layout's version)


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
            own=frozenset({"pkg"}), npu_files=("accelerator/npu_accelerator.py",))
CHANGES = {  # each thing the docstring says a key depends on, changed alone
    "path": "pkg/other.py", "kind": "notebook", "role": "test", "reach": "optional", "reason": "behind HAS_TRITON",
    "digest": "e" * 40, "target": "2.7.0", "own": frozenset({"pkg", "extra"}),
    "npu_files": ("ops/accelerator/npu.py",),
}


def test_the_key_changes_when_the_project_gains_or_loses_its_npu_accelerator(tmp_path):
    assert _key(tmp_path, npu_files=()) != _key(tmp_path)
    assert _key(tmp_path, npu_files=("models/npu/ops.py",)) == _key(tmp_path, npu_files=())  # not an accelerator


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


def _fingerprint(monkeypatch) -> str:
    monkeypatch.setattr(cache_module, "_TOOL_FINGERPRINT", None)
    return cache_module.tool_fingerprint()


def test_the_tool_fingerprint_follows_the_version_the_layout_python_and_the_libraries(monkeypatch):
    first = _fingerprint(monkeypatch)
    assert len(first) == 32 and cache_module.tool_fingerprint() == first  # blake2b of 16 bytes, kept once computed
    with monkeypatch.context() as m:
        m.setattr(cache_module, "__version__", "0.0.0-other")
        assert _fingerprint(m) != first
    with monkeypatch.context() as m:
        m.setattr(cache_module, "CACHE_LAYOUT", "other")
        assert _fingerprint(m) != first
    real = cache_module.metadata.version
    with monkeypatch.context() as m:
        m.setattr(cache_module.metadata, "version", lambda name: "0.0-other" if name == "tree-sitter-python" else real(name))
        assert _fingerprint(m) != first
    assert _fingerprint(monkeypatch) == first


def test_the_tool_fingerprint_follows_python_minor_releases_not_micro_ones(monkeypatch):
    first = _fingerprint(monkeypatch)
    major, minor, micro = sys.version_info[:3]
    with monkeypatch.context() as m:
        m.setattr(cache_module, "sys", SimpleNamespace(version_info=(major, minor, micro + 1, "final", 0)))
        assert _fingerprint(m) == first  # a bug-fix release of Python parses and pickles nothing differently
    with monkeypatch.context() as m:
        m.setattr(cache_module, "sys", SimpleNamespace(version_info=(major, minor + 1, 0, "final", 0)))
        assert _fingerprint(m) != first


@pytest.fixture
def fake_checkout(tmp_path, monkeypatch):
    """A checkout of three files whose cache.py the fingerprint is taken from."""
    top = tmp_path / "checkout"
    for path, text in {"analyzer/core/cache.py": "x = 1\n", "domains/d/rules.toml": "a = 1\n",
                       "knowledge/q/calls.scm": "(call)\n", "knowledge/names.json": "{}\n"}.items():
        (top / path).parent.mkdir(parents=True, exist_ok=True)
        (top / path).write_text(text)
    monkeypatch.setattr(cache_module, "__file__", str(top / "analyzer" / "core" / "cache.py"))
    return top


@pytest.mark.parametrize("path", ["analyzer/core/cache.py", "domains/d/rules.toml", "knowledge/q/calls.scm",
                                  "knowledge/names.json"])
def test_the_tool_fingerprint_follows_each_code_and_knowledge_file(fake_checkout, monkeypatch, path):
    first = _fingerprint(monkeypatch)
    (fake_checkout / path).write_text((fake_checkout / path).read_text() + " ")
    assert _fingerprint(monkeypatch) != first


def test_the_tool_fingerprint_follows_a_moved_file(fake_checkout, monkeypatch):
    first = _fingerprint(monkeypatch)
    (fake_checkout / "knowledge" / "names.json").rename(fake_checkout / "knowledge" / "other.json")
    assert _fingerprint(monkeypatch) != first


@pytest.mark.parametrize("path", ["analyzer/core/__pycache__/cache.cpython-312.pyc", "analyzer/__pycache__/x.py",
                                  "knowledge/README.md", "domains/d/notes.txt", "README.py"])
def test_the_tool_fingerprint_ignores_what_is_not_code_or_knowledge(fake_checkout, monkeypatch, path):
    first = _fingerprint(monkeypatch)
    (fake_checkout / path).parent.mkdir(parents=True, exist_ok=True)
    (fake_checkout / path).write_text("anything\n")
    assert _fingerprint(monkeypatch) == first


def test_the_tool_fingerprint_of_a_folder_named_like_a_code_file_is_not_read(fake_checkout, monkeypatch):
    first = _fingerprint(monkeypatch)
    (fake_checkout / "knowledge" / "folder.toml").mkdir()
    assert _fingerprint(monkeypatch) == first


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
    assert entry.parent.name == key[:2] and entry.parent.parent == tmp_path / "cache" / LAYOUT  # sharded by the key


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
    assert os.stat(entry).st_mtime == pytest.approx(recent, abs=1)  # touched at most once an hour
    old = time.time() - 2 * 3600
    os.utime(entry, (old, old))
    cache.load(key, PATH)
    assert os.stat(entry).st_mtime > time.time() - 600


def test_a_shard_folder_that_is_a_link_stops_storing(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache" / LAYOUT).mkdir(parents=True)
    (tmp_path / "cache" / LAYOUT / key[:2]).symlink_to(elsewhere)
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
    stored = StatIndex(tmp_path / "cache" / LAYOUT, tmp_path / "tree")
    stored.record(PATH, StatIndex.stat_of(one.absolute), "f" * 40)
    stored.save()
    trusting = _cache(tmp_path, root=tmp_path / "tree")  # what the index says is trusted without reading the file
    assert trusting.key_for(one) == trusting.key(one, "f" * 40) != key


# edges found by mutation testing ---------------------------------------------------------------------------------
def test_a_file_name_that_is_not_utf8_has_a_key(tmp_path):
    project_file = ProjectFile(path="pkg/\udcff.py", absolute="/nowhere", kind="python", size=1)  # os.fsdecode's form
    key = _cache(tmp_path).key(project_file, "d" * 40)
    assert key != _cache(tmp_path).key(ProjectFile(path="pkg/\udcfe.py", absolute="/nowhere", kind="python", size=1),
                                        "d" * 40)


def test_entries_and_the_stat_index_are_read_past_the_source_file_limit(tmp_path, monkeypatch):
    from ascend_feasibility.analyzer.reading import source

    one = _file(tmp_path)
    past = time.time() - 60
    os.utime(one.absolute, (past, past))
    cache = _cache(tmp_path, root=tmp_path / "tree")
    key = cache.key_for(one)
    cache.store(one, _result())
    cache.trim()
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 16)  # an entry is not a project file: its own bound (MAX_ENTRY_BYTES)
    assert cache.load(key, PATH) == _result()
    assert StatIndex(tmp_path / "cache" / LAYOUT, tmp_path / "tree").digest(PATH, StatIndex.stat_of(one.absolute))


def test_key_for_records_the_digest_it_read_in_the_stat_index(tmp_path):
    one = _file(tmp_path)
    past = time.time() - 60
    os.utime(one.absolute, (past, past))
    cache = _cache(tmp_path, root=tmp_path / "tree")
    cache.key_for(one)
    assert cache.stats.digest(PATH, StatIndex.stat_of(one.absolute)) == content_digest(b"import torch\n")


def test_a_file_modified_exactly_the_racy_interval_before_the_run_is_recorded(tmp_path):
    index = StatIndex(tmp_path / "cache", tmp_path / "tree")
    started = index._started_ns
    index.record("a.py", [1, started - StatIndex.RACY_NS, 0, 0], "abc")
    index.record("b.py", [1, started - StatIndex.RACY_NS + 1, 0, 0], "abc")
    assert index.digest("a.py", [1, started - StatIndex.RACY_NS, 0, 0]) == "abc"
    assert index.digest("b.py", [1, started - StatIndex.RACY_NS + 1, 0, 0]) is None


def test_hits_and_misses_count_every_load(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    cache.load(key, PATH)
    cache.load(key, PATH)
    cache.store(one, _result())
    cache.load(key, PATH)
    cache.load(key, PATH)
    assert (cache.hits, cache.misses) == (2, 2)


def test_the_touch_is_for_entries_older_than_the_interval_only(tmp_path):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    cache.store(one, _result())
    entry = cache._entry(key)
    cache._now = 100_000.0
    os.utime(entry, (100_000 - 3600, 100_000 - 3600))  # exactly the interval: not older
    cache.load(key, PATH)
    assert os.stat(entry).st_mtime == 100_000 - 3600
    os.utime(entry, (100_000 - 3601, 100_000 - 3601))
    cache.load(key, PATH)
    assert os.stat(entry).st_mtime > 100_000


def test_an_entry_whose_time_cannot_be_refreshed_is_still_served(tmp_path, monkeypatch):
    cache, one = _cache(tmp_path), _file(tmp_path)
    key = cache.key_for(one)
    cache.store(one, _result())
    old = time.time() - 2 * 3600
    os.utime(cache._entry(key), (old, old))

    def refused(*args, **kwargs):
        raise PermissionError("read-only cache")

    monkeypatch.setattr(cache_module.os, "utime", refused)
    assert cache.load(key, PATH) == _result()


def test_every_store_is_counted(tmp_path):
    cache = _cache(tmp_path)
    for index in range(3):
        one = _file(tmp_path, f"m{index}.py", text=f"x = {index}\n")
        cache.store(one, _result(one.path, content_digest(f"x = {index}\n".encode())))
    assert cache.written == 3


def test_a_cache_folder_that_cannot_be_written_stops_storing_for_the_run(tmp_path):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / LAYOUT).write_text("a file where the folder should be")
    cache, one = _cache(tmp_path), _file(tmp_path)
    cache.store(one, _result())
    assert cache.written == 0 and not cache.cacheable(one) and cache.key_for(one) is None


@pytest.fixture
def replaced(monkeypatch):
    """What os.replace was asked to move where (the temporary file renamed into place)."""
    moves = []
    real = os.replace

    def spy(src, dst):
        moves.append((str(src), str(dst)))
        return real(src, dst)

    monkeypatch.setattr(cache_module.os, "replace", spy)
    return moves


def test_an_entry_and_the_stat_index_are_written_beside_their_place_and_renamed_into_it(tmp_path, replaced):
    # a reader sees a whole file or none, and a run that dies leaves a `.tmp` that trim removes
    one = _file(tmp_path)
    past = time.time() - 60
    os.utime(one.absolute, (past, past))
    cache = _cache(tmp_path, root=tmp_path / "tree")
    key = cache.key_for(one)
    cache.store(one, _result())
    cache.trim()
    entry = cache._entry(key)
    assert [dst for _, dst in replaced] == [entry, str(cache.stats.path)]
    for src, dst in replaced:
        name = os.path.basename(dst)
        assert os.path.dirname(src) == os.path.dirname(dst)
        assert os.path.basename(src).startswith(f".{name}.") and src.endswith(".tmp")


@pytest.mark.parametrize("gone", [False, True])
def test_a_failed_rename_leaves_no_temporary_file_and_does_not_stop_the_run(tmp_path, monkeypatch, gone):
    def failing(src, dst):
        if gone:
            os.unlink(src)  # and the temporary file is already gone: nothing left to clean, no error either
        raise OSError("disk full")

    monkeypatch.setattr(cache_module.os, "replace", failing)
    one = _file(tmp_path)
    past = time.time() - 60
    os.utime(one.absolute, (past, past))
    cache = _cache(tmp_path, root=tmp_path / "tree")
    cache.key_for(one)
    cache.store(one, _result())
    cache.stats.save()
    assert cache.written == 0 and not list((tmp_path / "cache").rglob("*.tmp"))


# trim on a folder laid out by hand: one shard of same-sized entries
def _shard(tmp_path: Path, count: int, size: int = 100) -> tuple[FileCache, list[Path]]:
    cache = _cache(tmp_path)
    cache.written = 1
    shard = tmp_path / "cache" / LAYOUT / "aa"
    shard.mkdir(parents=True)
    entries = []
    for index in range(count):
        path = shard / f"aa{index:02d}.json"
        path.write_bytes(b"x" * size)
        os.utime(path, (50_000 + index, 50_000 + index))  # aa00 the least recently used
        entries.append(path)
    return cache, entries


def test_trim_stops_as_soon_as_the_folder_is_within_its_share(tmp_path):
    cache, entries = _shard(tmp_path, 10)
    cache.max_bytes = 500  # 1000 bytes, trimmed to 500 × 0.8 = 400 exactly: six removed, not seven
    cache.trim()
    assert [p.exists() for p in entries] == [False] * 6 + [True] * 4


def test_trim_counts_every_entry_of_a_shard_holding_old_temporary_files(tmp_path):
    cache, entries = _shard(tmp_path, 10)
    for index in range(10):
        tmp = entries[0].parent / f".aa{index:02d}.json.{index}.tmp"
        tmp.write_bytes(b"x")
        os.utime(tmp, (1000, 1000))
    cache.max_bytes = 500
    cache.trim()
    assert [p.exists() for p in entries] == [False] * 6 + [True] * 4
    assert not list(entries[0].parent.glob("*.tmp"))


def test_a_temporary_file_is_old_only_past_an_hour(tmp_path, monkeypatch):
    cache, entries = _shard(tmp_path, 1)
    shard = entries[0].parent
    monkeypatch.setattr(cache_module.time, "time", lambda: 20_000.0)
    hour, over = shard / ".a.json.1.tmp", shard / ".b.json.2.tmp"
    hour.write_bytes(b"x")
    over.write_bytes(b"x")
    os.utime(hour, (20_000 - 3600, 20_000 - 3600))
    os.utime(over, (20_000 - 3600.5, 20_000 - 3600.5))
    cache.trim()
    assert hour.exists() and not over.exists()


def test_trim_goes_on_when_a_file_it_removes_is_already_gone(tmp_path, monkeypatch):
    cache, entries = _shard(tmp_path, 10)
    tmp = entries[0].parent / ".x.json.1.tmp"
    tmp.write_bytes(b"x")
    os.utime(tmp, (1000, 1000))
    real = os.unlink
    refused = {str(tmp), str(entries[0])}

    def unlink(path, *args, **kwargs):
        if str(path) in refused:
            raise FileNotFoundError(path)  # removed by a concurrent run
        return real(path, *args, **kwargs)

    monkeypatch.setattr(cache_module.os, "unlink", unlink)
    cache.max_bytes = 500
    cache.trim()
    assert [p.exists() for p in entries[1:]] == [False] * 5 + [True] * 4  # aa00's 100 bytes are counted as gone


def test_trim_does_not_follow_links(tmp_path):
    cache, entries = _shard(tmp_path, 10)
    outside = tmp_path / "outside"
    outside.mkdir()
    for index in range(5):
        (outside / f"keep{index}.json").write_bytes(b"y" * 1000)
        os.utime(outside / f"keep{index}.json", (1000, 1000))
    (tmp_path / "cache" / LAYOUT / "bb").symlink_to(outside)  # a planted shard link
    (entries[0].parent / "dangling.json").symlink_to(tmp_path / "nowhere")
    cache.max_bytes = 500
    cache.trim()
    assert len(list(outside.iterdir())) == 5
    assert sum(p.exists() for p in entries) <= 4
