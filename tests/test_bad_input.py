"""Bad input never crashes a run and never loses the rest of the report."""

import json
import os
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import source

from tests.helpers import reported_at

GOOD = "import torch\ntorch.cuda.synchronize()\n"


def run(tmp_path: Path):
    return analyze(tmp_path, AnalyzeOptions(jobs=1))


def device_paths(report):
    return [path for f in report.findings if f.domain == "device" for path in reported_at(f)]


def reasons(report):
    return {s.path: s.reason for s in report.skipped}


def test_every_kind_of_bad_file_is_listed_and_the_good_one_still_reported(tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "binary.py").write_bytes(b"\x7fELF\x00\x00\x01torch.cuda.synchronize()")
    (tmp_path / "latin1.py").write_bytes("x = 'caf\xe9'\ntorch.cuda.synchronize()\n".encode("latin-1"))
    (tmp_path / "bad_decl.py").write_bytes(b"# -*- coding: klingon -*-\nx = 1\n")
    (tmp_path / "broken.ipynb").write_text("{ not json")
    (tmp_path / "shapeless.ipynb").write_text(json.dumps({"cells": "nope"}))
    (tmp_path / "bad.yaml").write_text("env: [CUDA_VISIBLE_DEVICES\n  - : :\n")
    (tmp_path / "pyproject.toml").write_text("[tool.ascend-feasibility\nexclude = 3")
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 4096)
    (tmp_path / "huge.py").write_text("torch.cuda.synchronize()\n" * 400)
    report = run(tmp_path)
    skipped = reasons(report)
    assert "binary" in skipped["binary.py"]
    assert "not valid utf-8" in skipped["latin1.py"]
    assert "klingon" in skipped["bad_decl.py"]
    assert "broken notebook" in skipped["broken.ipynb"]
    assert "broken notebook" in skipped["shapeless.ipynb"]
    assert "YAML not parsed" in skipped["bad.yaml"]
    assert "settings not read" in skipped["pyproject.toml"]
    assert "limit" in skipped["huge.py"]
    assert device_paths(report) == ["good.py"]


def test_declared_encodings_are_honoured(tmp_path):
    (tmp_path / "latin1.py").write_bytes(
        "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\nimport torch\ntorch.cuda.synchronize()\n".encode("latin-1")
    )
    report = run(tmp_path)
    assert [(f.rule, f.line) for f in report.findings if f.domain == "device"] == [("DEV101", 4)]
    assert report.skipped == []


def test_syntax_errors_are_analysed_partially(tmp_path):
    (tmp_path / "half.py").write_text("import torch\ndef broken(:\n    pass\ntorch.cuda.synchronize()\nx.cuda()\n")
    report = run(tmp_path)
    assert {f.rule for f in report.findings} >= {"DEV101", "DEV004"}
    assert "analysed partially" in reasons(report)["half.py"]


def test_symlink_loops_and_links_out_of_the_project_are_not_followed(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(GOOD)
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "loop")
    outside = tmp_path.parent / f"{tmp_path.name}_outside.py"
    outside.write_text(GOOD)
    os.symlink(outside, tmp_path / "link.py")
    report = run(tmp_path)
    assert device_paths(report) == ["pkg/a.py"]
    assert "not followed" in reasons(report)["pkg/loop"]
    assert "leaves the project" in reasons(report)["link.py"]


def test_unreadable_files_are_skipped(tmp_path, monkeypatch):
    (tmp_path / "secret.py").write_text(GOOD)
    (tmp_path / "ok.py").write_text(GOOD)
    real = os.open

    def deny(path, *args, **kwargs):
        if os.path.basename(path) == "secret.py":
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(source.os, "open", deny)
    report = run(tmp_path)
    assert reasons(report)["secret.py"] == "permission denied"
    assert device_paths(report) == ["ok.py"]


def test_nothing_is_imported_or_executed(tmp_path):
    marker = tmp_path / "executed"
    (tmp_path / "setup.py").write_text(f"open({str(marker)!r}, 'w').write('x')\nimport torch\ntorch.cuda.synchronize()\n")
    (tmp_path / "conftest.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    run(tmp_path)
    assert not marker.exists()


@pytest.mark.parametrize("name", ["empty.py", "empty.ipynb", "empty.yaml", "empty.sh"])
def test_empty_files(tmp_path, name):
    (tmp_path / name).write_text("")
    report = run(tmp_path)
    assert report.findings == []


def test_json_configs_are_read_like_yaml_but_large_json_data_is_not(tmp_path):
    (tmp_path / "devcontainer.json").write_text('{"containerEnv": {"CUDA_VISIBLE_DEVICES": "0"}}')
    (tmp_path / "vocab.json").write_text('{"CUDA_VISIBLE_DEVICES": 1, "pad": "' + "x" * 300_000 + '"}')
    report = run(tmp_path)
    assert [(f.rule, f.path, f.line) for f in report.findings] == [("DEV201", "devcontainer.json", 1)]


def test_an_analyzer_error_on_one_file_is_listed_and_the_rest_reported(tmp_path, monkeypatch):
    from ascend_feasibility.domains.phases import PhasesDomain

    def broken(self, file):
        if file.path == "bad.py":
            raise RuntimeError("boom")
        return None

    monkeypatch.setattr(PhasesDomain, "collect", broken)
    (tmp_path / "bad.py").write_text(GOOD)
    (tmp_path / "good.py").write_text(GOOD)
    report = run(tmp_path)
    assert "good.py" in device_paths(report)
    assert [(s.path, s.reason.split(":")[0]) for s in report.skipped] == [("bad.py", "analyzer error, file analysed partially (please report)")]
