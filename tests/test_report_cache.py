"""The last report of each root (analyzer/core/report_cache.py): a re-run whose inputs are all unchanged has it, with
its own date, and runs no project pass; any changed input (a file, a setting, the target, the git revision) makes the
report again; an entry that is edited, damaged or of another shape is a miss; nothing is written through a planted
link, and a run with a result that depends on timing or an error stores none."""

from __future__ import annotations

from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core import pipeline
from ascend_feasibility.analyzer.core.cache import CACHE_LAYOUT
from ascend_feasibility.analyzer.core.filework import FileWorker
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.test_cache import _aged_tree, _bigger_tree, _cli_output

LAYOUT = f"v{CACHE_LAYOUT}"  # the cache folder of this layout's entries


def _no_project_pass(monkeypatch) -> None:
    def refused(*args, **kwargs):
        raise AssertionError("a project pass ran")

    monkeypatch.setattr(pipeline, "guarded_modules", refused)
    monkeypatch.setattr(pipeline, "propagate_reach", refused)


def _reports(folder: Path) -> list[Path]:
    return sorted((folder / LAYOUT / "report").glob("*.json"))


def test_an_unchanged_rerun_has_the_stored_report_with_its_own_date_and_no_project_pass(tmp_path, monkeypatch):
    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    cold = analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder, generated="2026-01-01"))
    assert len(_reports(folder)) == 1
    _no_project_pass(monkeypatch)
    stats: dict = {}
    warm = analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder, generated="2026-02-02", stats=stats))
    assert warm.generated == "2026-02-02"
    assert warm.model_dump_json() == cold.model_copy(update={"generated": "2026-02-02"}).model_dump_json()
    assert (stats["cache_hits"], stats["cache_misses"]) == (60, 0)  # requirements.txt, never cached, made again


def test_the_stored_report_renders_byte_for_byte_as_a_fresh_one(tmp_path):
    tree, folder = _bigger_tree(tmp_path), tmp_path / "cache"
    for fmt in ("json", "sarif", "markdown", "html"):
        plain = _cli_output(tmp_path, tree, fmt, "--no-cache")
        _cli_output(tmp_path, tree, fmt, "--cache-dir", str(folder))
        assert _reports(folder)
        assert _cli_output(tmp_path, tree, fmt, "--cache-dir", str(folder)) == plain, fmt


@pytest.mark.parametrize("change", ["file", "new file", "requirements", "settings", "target", "revision"])
def test_a_changed_input_makes_the_report_again(tmp_path, change):
    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder))
    assert _reports(folder)  # stored: the next run would have it, were the inputs the same
    options = AnalyzeOptions(jobs=1, cache_dir=folder)
    if change == "file":
        (tree / "pkg1" / "m01.py").write_text("import torch\ntorch.cuda.empty_cache()\n")
    elif change == "new file":
        (tree / "pkg2" / "extra.py").write_text("import torch\ntorch.cuda.empty_cache()\n")
    elif change == "requirements":  # a build file, never cached: its result is what the run key takes
        (tree / "requirements.txt").write_text("torch==2.1.0\napex\n")
    elif change == "settings":
        (tree / "pyproject.toml").write_text('[tool.ascend-feasibility]\nexclude = ["pkg2/*"]\n')
    elif change == "target":
        options.torch_npu = "2.6.0"
    else:
        (tree / ".git").mkdir()
        (tree / ".git" / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    fresh = analyze(tree, AnalyzeOptions(jobs=1, torch_npu=options.torch_npu))
    assert analyze(tree, options).model_dump_json() == fresh.model_dump_json()


def test_an_edited_damaged_or_foreign_entry_is_a_miss(tmp_path):
    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    plain = analyze(tree, AnalyzeOptions(jobs=1, generated="d")).model_dump_json()
    analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder, generated="d"))
    (entry,) = _reports(folder)
    seal, _, payload = entry.read_bytes().partition(b"\n")
    for damaged in (seal + b"\n" + payload.replace(b'"pkg0/m00.py"', b'"pkg0/m04.py"'),  # edited, seal kept
                    b"", b"\x00garbage", seal + b"\n" + payload[: len(payload) // 2]):
        entry.write_bytes(damaged)
        assert analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder, generated="d")).model_dump_json() == plain


def test_a_resealed_entry_of_another_shape_is_a_miss(tmp_path):
    from ascend_feasibility.analyzer.core.cache import write_sealed
    from ascend_feasibility.analyzer.core.report_cache import ReportCache

    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    plain = analyze(tree, AnalyzeOptions(jobs=1, generated="d")).model_dump_json()
    analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder, generated="d"))
    (entry,) = _reports(folder)
    cache = ReportCache(folder / LAYOUT, tree)
    key = []
    real = ReportCache.run_key
    ReportCache.run_key = staticmethod(lambda settings, parts: key.append(real(settings, parts)) or key[-1])
    try:
        analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder, generated="d"))
    finally:
        ReportCache.run_key = staticmethod(real)
    write_sealed(cache.path, f"report-{key[0]}", b'{"findings": "not a list"}')  # a plant that knows the key
    assert analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder, generated="d")).model_dump_json() == plain


def test_a_planted_report_folder_link_is_not_written_through(tmp_path):
    tree, outside = _aged_tree(tmp_path), tmp_path / "outside"
    outside.mkdir()
    folder = tree / ".ascend-cache"
    (folder / LAYOUT).mkdir(parents=True)
    (folder / LAYOUT / "report").symlink_to(outside)
    (folder / LAYOUT / "stat").symlink_to(outside)
    plain = analyze(tree, AnalyzeOptions(jobs=1, generated="d", own_outputs=(folder,))).model_dump_json()
    options = AnalyzeOptions(jobs=1, cache_dir=folder, generated="d", own_outputs=(folder,))
    assert analyze(tree, options).model_dump_json() == plain
    assert analyze(tree, options).model_dump_json() == plain
    assert not list(outside.iterdir())


def test_a_run_with_an_unstable_result_stores_no_report(tmp_path, monkeypatch):
    tree, folder = _aged_tree(tmp_path), tmp_path / "cache"
    real = FileWorker._analyze_units

    def broken_once(self, project_file, units, result):
        if project_file.path == "pkg0/m00.py":
            raise RuntimeError("a scanner bug")
        return real(self, project_file, units, result)

    monkeypatch.setattr(FileWorker, "_analyze_units", broken_once)
    report = analyze(tree, AnalyzeOptions(jobs=1, cache_dir=folder))
    assert any("analyzer error" in s.reason for s in report.skipped)
    assert _reports(folder) == []
