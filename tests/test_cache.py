"""The per-file cache for re-runs: same output with and without it, keys that follow content and settings, safe
under corruption, concurrency and a size bound, and never the real user cache in tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core import cache as cache_module
from ascend_feasibility.analyzer.core.cache import FileCache, default_cache_dir
from ascend_feasibility.analyzer.core.cli import main
from ascend_feasibility.analyzer.core.filework import FileWorker
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.hostile_helpers import MODULE, ROOT

SAMPLES = ROOT / "sample_projects"


def _cli_output(tmp_path: Path, tree: Path, fmt: str, *cache_args: str, jobs: str = "1") -> bytes:
    out = tmp_path / f"out.{fmt}"
    assert main(["analyze", str(tree), "--format", fmt, "-o", str(out), "--jobs", jobs, *cache_args]) == 0
    return out.read_bytes()


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json"))


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir() if p.is_dir()))
def test_output_is_byte_identical_with_and_without_cache(tmp_path, sample):
    tree, cache = SAMPLES / sample, tmp_path / "cache"
    for fmt in ("json", "sarif", "markdown"):
        plain = _cli_output(tmp_path, tree, fmt, "--no-cache")
        cold = _cli_output(tmp_path, tree, fmt, "--cache-dir", str(cache))
        warm = _cli_output(tmp_path, tree, fmt, "--cache-dir", str(cache))
        assert plain == cold == warm, (sample, fmt)
    assert _entries(cache)


def _bigger_tree(tmp_path: Path) -> Path:
    """Enough files for the worker processes (PARALLEL_THRESHOLD), device code among plain modules."""
    tree = tmp_path / "tree"
    for index in range(60):
        folder = tree / f"pkg{index % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "import torch\nx = torch.randn(2).cuda()\ntorch.cuda.synchronize()\n" if index % 4 == 0 else "y = 1\n"
        (folder / f"m{index:02d}.py").write_text(body)
    (tree / "requirements.txt").write_text("torch==2.1.0\n")
    return tree


def test_identical_in_parallel_and_hits_on_the_warm_run(tmp_path):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    plain = _cli_output(tmp_path, tree, "json", "--no-cache", jobs="2")
    assert _cli_output(tmp_path, tree, "json", "--cache-dir", str(folder), jobs="2") == plain
    stats: dict = {}
    warm = analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=2, stats=stats, generated="x"))
    assert stats["cache_hits"] == 60 and stats["cache_misses"] == 0  # requirements.txt (a build file) is not cached
    assert warm.project.files_scanned == 61


def test_a_changed_file_or_setting_misses(tmp_path):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1))
    (tree / "pkg0" / "m00.py").write_text("import torch\ntorch.cuda.empty_cache()\n")
    stats: dict = {}
    report = analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, stats=stats))
    assert (stats["cache_hits"], stats["cache_misses"]) == (59, 1)
    assert any(f.path == "pkg0/m00.py" and f.symbol == "torch.cuda.empty_cache" for f in report.findings)
    stats = {}
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, stats=stats, torch_npu="2.6.0"))  # another target
    assert stats["cache_hits"] == 0
    stats = {}
    (tree / "pkg1" / "m01_npu.py").write_text("x = 1\n")  # a new file: the others' context is unchanged
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, stats=stats))
    assert (stats["cache_hits"], stats["cache_misses"]) == (60, 1)


def test_a_new_npu_accelerator_misses(tmp_path):
    # comparisons of an accelerator abstraction are NPU paths only when the project has an NPU accelerator, so every
    # file's result depends on that one file (DeepSpeed's accelerator/npu_accelerator.py)
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1))
    (tree / "accelerator").mkdir()
    (tree / "accelerator" / "npu_accelerator.py").write_text("x = 1\n")
    stats: dict = {}
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, stats=stats))
    assert stats["cache_hits"] == 0


def test_an_edited_analyzer_misses(tmp_path, monkeypatch):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1))
    monkeypatch.setattr(cache_module, "_TOOL_FINGERPRINT", "another build of the analyzer")
    stats: dict = {}
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, stats=stats))
    assert stats["cache_hits"] == 0


def test_corrupt_and_foreign_entries_are_ignored(tmp_path):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    plain = _cli_output(tmp_path, tree, "json", "--no-cache")
    _cli_output(tmp_path, tree, "json", "--cache-dir", str(folder))
    garbage = [b"", b"{", b"\xff\xfe", b'{"path": "elsewhere.py", "digest": "x"}', b"[]" * 1000, b"null"]
    for number, entry in enumerate(_entries(folder)):
        entry.write_bytes(garbage[number % len(garbage)])
    assert _cli_output(tmp_path, tree, "json", "--cache-dir", str(folder)) == plain
    assert _cli_output(tmp_path, tree, "json", "--cache-dir", str(folder)) == plain  # rewritten, now whole again


def test_entry_of_another_file_with_the_same_content_is_not_taken(tmp_path):
    tree = _bigger_tree(tmp_path)
    worker = FileWorker(None)
    cache = FileCache(tmp_path / "cache", "t", worker.context)
    from ascend_feasibility.analyzer.reading.discovery import discover

    files = {f.path: f for f in discover(tree, []).files}
    first, second = files["pkg0/m00.py"], files["pkg1/m04.py"]  # same content, other path
    cache.store(first, worker.process(first))
    assert cache.load(cache.key_for(first), first.path) is not None
    assert cache.key_for(first) != cache.key_for(second) and not cache.has(cache.key_for(second))


def test_unstable_results_are_not_cached(tmp_path, monkeypatch):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"

    def broken(self, project_file, units, result):
        raise RuntimeError("a scanner bug")

    monkeypatch.setattr(FileWorker, "_analyze_units", broken)
    report = analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1))
    assert any("analyzer error" in s.reason for s in report.skipped)
    assert not _entries(folder)


def test_size_bound_removes_least_recently_used(tmp_path):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1))
    sizes = [p.stat().st_size for p in _entries(folder)]
    bound = sum(sizes) // 2
    shutil.rmtree(folder)
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, cache_max_bytes=bound))
    remaining = _entries(folder)
    assert remaining and sum(p.stat().st_size for p in remaining) <= bound


def test_unwritable_cache_folder_does_not_stop_the_run(tmp_path):
    if os.geteuid() == 0:
        folder = tmp_path / "cache-is-a-file"  # root writes anywhere: a file where the folder should be
        folder.write_text("")
    else:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o500)
    tree = _bigger_tree(tmp_path)
    plain = _cli_output(tmp_path, tree, "json", "--no-cache")
    assert _cli_output(tmp_path, tree, "json", "--cache-dir", str(folder)) == plain


def test_concurrent_runs_share_the_cache(tmp_path):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    expected = _cli_output(tmp_path, tree, "json", "--no-cache")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.Popen([*MODULE, "analyze", str(tree), "--format", "json", "--jobs", "1", "--cache-dir", str(folder)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
        for _ in range(3)
    ]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], [err[-500:] for _, err in outputs]
    assert all(out == expected for out, _ in outputs)
    assert not list(folder.rglob("*.tmp"))
    assert _cli_output(tmp_path, tree, "json", "--cache-dir", str(folder)) == expected


def test_default_folder_follows_xdg_and_no_cache_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform not in ("win32",):
        assert default_cache_dir() == tmp_path / "xdg" / "ascend-feasibility"
    tree = _bigger_tree(tmp_path)
    _cli_output(tmp_path, tree, "json", "--no-cache")
    assert not (tmp_path / "xdg").exists()
    _cli_output(tmp_path, tree, "json")
    assert _entries(tmp_path / "xdg" / "ascend-feasibility")


def test_the_real_user_cache_is_not_used_by_tests():
    import tempfile

    assert str(default_cache_dir()).startswith(os.environ["XDG_CACHE_HOME"])
    assert os.environ["XDG_CACHE_HOME"].startswith(tempfile.gettempdir())


def test_cache_folder_inside_the_tree_is_not_scanned(tmp_path):
    tree = _bigger_tree(tmp_path)
    plain = _cli_output(tmp_path, tree, "json", "--no-cache")
    _cli_output(tmp_path, tree, "json", "--cache-dir", str(tree / ".cache"))
    assert _cli_output(tmp_path, tree, "json", "--cache-dir", str(tree / ".cache")) == plain


def test_cache_folder_in_the_tree_leading_outside_is_refused(tmp_path, capsys):
    tree, outside = _bigger_tree(tmp_path), tmp_path / "outside"
    outside.mkdir()
    (tree / ".cache").symlink_to(outside)  # shipped by the project
    assert main(["analyze", str(tree), "--cache-dir", str(tree / ".cache"), "--format", "json"]) == 2
    assert "leads outside" in capsys.readouterr().err and not list(outside.iterdir())


def test_planted_shard_link_is_not_written_through(tmp_path):
    tree, outside = _bigger_tree(tmp_path), tmp_path / "outside"
    outside.mkdir()
    folder = tree / ".ascend-cache"
    worker = FileWorker(None)
    cache = FileCache(folder, "t", worker.context)
    from ascend_feasibility.analyzer.reading.discovery import discover

    project_file = next(f for f in discover(tree, []).files if f.path == "pkg0/m00.py")
    result = worker.process(project_file)
    shard = Path(cache._entry(cache.key(project_file, result.digest))).parent
    shard.parent.mkdir(parents=True)
    shard.symlink_to(outside)
    cache.store(project_file, result)
    assert not list(outside.iterdir()) and cache.written == 0


def _aged_tree(tmp_path: Path) -> Path:
    """A tree whose files were last changed an hour ago (older than the stat index's racy window)."""
    tree = _bigger_tree(tmp_path)
    old = os.stat(tree).st_mtime - 3600
    for path in tree.rglob("*"):
        os.utime(path, (old, old))
    return tree


def _project_reads(monkeypatch, tree: Path) -> list[str]:
    reads: list[str] = []
    real = cache_module.read_bytes

    def counting(path, *args, **kwargs):
        if str(path).startswith(str(tree)):
            reads.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(cache_module, "read_bytes", counting)
    return reads


def test_a_warm_run_reads_no_file_whose_stat_is_unchanged(tmp_path, monkeypatch):
    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    cold = analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder))
    reads = _project_reads(monkeypatch, tree)
    warm = analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder))
    assert reads == [] and warm.model_dump() == cold.model_dump()


def test_a_file_changed_in_place_is_read_again_even_with_its_old_size_and_mtime(tmp_path, monkeypatch):
    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder))
    target = tree / "pkg0" / "m00.py"
    before = os.stat(target)
    text = target.read_text()
    target.write_text(text.replace("synchronize", "empty_cache"[: len("synchronize")].ljust(len("synchronize"), "_")))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size and mtime: only ctime tells
    reads = _project_reads(monkeypatch, tree)
    warm = analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder))
    assert str(target) in reads
    assert warm.model_dump() == analyze(tree, AnalyzeOptions(jobs=1)).model_dump()


def test_a_damaged_stat_index_is_an_empty_one(tmp_path):
    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    plain = analyze(tree, AnalyzeOptions(jobs=1)).model_dump()
    analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder))
    (index,) = list(folder.rglob("stat/*.json"))
    stored, _, payload = index.read_bytes().partition(b"\n")
    index.write_bytes(stored + b"\n" + payload.replace(b'"pkg0/m00.py"', b'"pkg0/m04.py"', 1))  # digests swapped
    assert analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder)).model_dump() == plain
    index.write_bytes(b"\x00garbage")
    assert analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder)).model_dump() == plain
