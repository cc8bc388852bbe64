"""The hostile-input suite (issue 16): every row of the issue's table, each run in bounded time. Bad input never
crashes, hangs or loses the rest of the report; nothing outside the analyzed tree is read or written."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import pytest
from ascend_feasibility.analyzer.core import budget
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import reported_at
from tests.hostile_helpers import MODULE, ROOT, SAFE_PATH, assert_clean, build_chain, cli, make_fifo, reasons, remove_chain, run

GOOD = "import torch\ntorch.cuda.synchronize()\n"
CLI_TIMEOUT_SECONDS = 120


def device_paths(report) -> list[str]:
    """The files device findings were reported for, byte-identical copies folded into one finding included."""
    return [path for f in report.findings if f.domain == "device" for path in reported_at(f)]


# --- special files: FIFOs, devices --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["x.py", "x.ipynb", "x.json", "x.yaml", ".gitignore", "pyproject.toml", "extra.txt"])
def test_a_fifo_is_skipped_never_opened(tmp_path, name):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "requirements.txt").write_text("numpy\n-r extra.txt\n")
    make_fifo(tmp_path / name)
    result = cli("analyze", str(tmp_path), "--format", "json", timeout=60)
    assert_clean(result)
    report = json.loads(result.stdout)
    assert [f["path"] for f in report["findings"] if f["domain"] == "device"] == ["good.py"]
    assert any("FIFO" in entry["reason"] for entry in report["skipped"]), report["skipped"]


def test_a_character_device_in_the_tree_is_skipped(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    try:
        os.mknod(tmp_path / "zero.py", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except (OSError, AttributeError) as exc:
        pytest.skip(f"cannot create a device here: {exc}")
    report = run(tmp_path)
    assert reasons(report)["zero.py"] == "not a regular file (character device)"
    assert device_paths(report) == ["good.py"]


def test_links_to_devices_and_outside_files_are_not_followed(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    (tmp_path / ".gitignore").symlink_to("/dev/zero")
    report = run(tmp_path)
    assert "leaves the project" in reasons(report)["zero.py"]
    listed = [(s.path, s.reason) for s in report.skipped]
    assert (".gitignore", "patterns not read: symbolic link that leaves the project (not read)") in listed
    assert device_paths(report) == ["good.py"]


def test_a_file_replaced_by_a_fifo_after_discovery_is_refused_without_blocking(tmp_path):
    from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes

    make_fifo(tmp_path / "late.py")
    with pytest.raises(Unreadable, match="FIFO"):
        read_bytes(tmp_path / "late.py", 0)


# --- names ----------------------------------------------------------------------------------------------------------


def test_names_that_are_not_utf8_or_hold_newlines_tabs_and_quotes(tmp_path):
    odd = [b"caf\xe9.py", b"new\nline.py", b"tab\there.py", b"quo\"te's.py", b"dir\xff"]
    for raw in odd[:-1]:
        with open(os.path.join(os.fsencode(tmp_path), raw), "wb") as handle:
            handle.write(GOOD.encode())
    os.mkdir(os.path.join(os.fsencode(tmp_path), odd[-1]))
    with open(os.path.join(os.fsencode(tmp_path), odd[-1], b"inner.py"), "wb") as handle:
        handle.write(GOOD.encode())
    report = run(tmp_path)
    assert sorted(device_paths(report)) == sorted(
        ["caf\\xe9.py", "new\nline.py", "tab\there.py", "quo\"te's.py", "dir\\xff/inner.py"]
    )
    json.loads(report.model_dump_json())  # serialisable
    result = cli("analyze", str(tmp_path), "--output-dir", str(tmp_path / "out"))
    assert_clean(result)
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")  # the terminal folds these auto sites
    assert "caf\\xe9.py" in text and "new\nline.py" not in text


# --- folders ----------------------------------------------------------------------------------------------------------


def test_deeply_nested_folders_are_walked_without_recursion(tmp_path):
    build_chain(tmp_path, "d", 1100, "deep.py", GOOD)
    (tmp_path / "good.py").write_text(GOOD)
    try:
        report = run(tmp_path)
    finally:
        remove_chain(tmp_path, "d")
    assert "good.py" in device_paths(report)
    # The deep file is analysed, or listed with a reason where its path is longer than PATH_MAX.
    assert [p for p in device_paths(report) if p.endswith("deep.py")] or [p for p in reasons(report) if p.startswith("d/d/")]


def test_a_path_longer_than_path_max_is_skipped_with_a_reason(tmp_path):
    name = "n" * 200
    build_chain(tmp_path, name, 25, "x.py", GOOD)  # 5,000+ characters
    (tmp_path / "good.py").write_text(GOOD)
    try:
        report = run(tmp_path)
    finally:
        remove_chain(tmp_path, name)
    assert device_paths(report)[0] == "good.py"
    assert any("too long" in reason.lower() for reason in reasons(report).values()), report.skipped


def test_a_folder_listed_but_not_searched(tmp_path, monkeypatch):
    """Simulated (root may search any folder): listing works, inspecting an entry fails."""
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.py").write_text(GOOD)
    (tmp_path / "good.py").write_text(GOOD)
    import ascend_feasibility.analyzer.reading.discovery as discovery

    original = discovery._inspect

    def denied(root, entry, outputs):
        if "locked" in entry.path and entry.name == "x.py":
            raise PermissionError(13, "Permission denied")
        return original(root, entry, outputs)

    monkeypatch.setattr(discovery, "_inspect", denied)
    report = run(tmp_path)
    assert reasons(report)["locked/x.py"] == "cannot be inspected: Permission denied"
    assert device_paths(report) == ["good.py"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root searches any folder")
def test_a_folder_listed_but_not_searched_for_real(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.py").write_text(GOOD)
    (tmp_path / "good.py").write_text(GOOD)
    locked.chmod(0o444)
    try:
        report = run(tmp_path)
    finally:
        locked.chmod(0o755)
    assert "locked/x.py" in reasons(report)
    assert device_paths(report) == ["good.py"]


# --- settings and manifests ------------------------------------------------------------------------------------------


def test_settings_and_ignore_files_linked_outside_are_not_read(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pyproject.toml").write_text('[tool.ascend-feasibility]\nexclude = ["*.py"]\n')
    (outside / "ignore").write_text("*.py\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    (tree / "pyproject.toml").symlink_to(outside / "pyproject.toml")
    (tree / ".gitignore").symlink_to(outside / "ignore")
    report = run(tree)
    assert device_paths(report) == ["good.py"]
    listed = [(s.path, s.reason) for s in report.skipped]
    assert ("pyproject.toml", "settings not read: symbolic link that leaves the project (not read)") in listed
    assert (".gitignore", "patterns not read: symbolic link that leaves the project (not read)") in listed


@pytest.mark.parametrize("tool", ["tool = 1", "tool = [1, 2]", 'tool = "x"', "project = 3\ntool = 1"])
def test_pyproject_with_a_tool_that_is_not_a_table(tmp_path, tool):
    (tmp_path / "pyproject.toml").write_text(tool + "\n")
    (tmp_path / "good.py").write_text(GOOD)
    report = run(tmp_path)
    assert device_paths(report) == ["good.py"]
    assert "[tool] is not a table" in reasons(report)["pyproject.toml"]


def test_a_toml_nested_100k_deep(tmp_path):
    (tmp_path / "pyproject.toml").write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    (tmp_path / "good.py").write_text(GOOD)
    report = run(tmp_path)
    assert device_paths(report) == ["good.py"]
    assert "nested too deeply" in reasons(report)["pyproject.toml"]


@pytest.mark.parametrize("pattern", ["!", "[z-a]", "\\\\"])
def test_bad_exclude_globs_give_one_line_reasons(tmp_path, pattern):
    (tmp_path / "pyproject.toml").write_text(f"[tool.ascend-feasibility]\nexclude = [{json.dumps(pattern)}, \"skip/\"]\n")
    (tmp_path / ".gitignore").write_text(pattern.replace("\\\\", "\\") + "\nignored.py\n")
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "ignored.py").write_text(GOOD)
    (tmp_path / "skip").mkdir()
    (tmp_path / "skip" / "x.py").write_text(GOOD)
    report = run(tmp_path, excludes=[pattern.replace("\\\\", "\\")])
    assert device_paths(report) == ["good.py"]  # the good patterns still apply
    problems = [s for s in report.skipped if "ignored" in s.reason and "pattern" in s.reason]
    assert problems and all("\n" not in s.reason for s in problems)
    assert any(s.path == ".gitignore" for s in problems)
    result = cli("analyze", str(tmp_path), "--exclude", pattern.replace("\\\\", "\\"), "--format", "json")
    assert_clean(result)


def test_a_requirement_with_a_5000_digit_version(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch>=" + "9" * 5000 + "\nnumpy\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.poetry.dependencies]\ntorch = "^' + "9" * 5000 + '"\n[project]\noptional-dependencies = [1]\n'
    )
    (tmp_path / "environment.yml").write_text("dependencies:\n  - pytorch=" + "9" * 5000 + "\n")
    (tmp_path / "good.py").write_text(GOOD)
    report = run(tmp_path)
    assert device_paths(report) == ["good.py"]
    assert "longer than 30 digits" in reasons(report)["requirements.txt"]


def test_a_requirements_include_that_is_large_or_outside(tmp_path, monkeypatch):
    from ascend_feasibility.analyzer.reading import source

    monkeypatch.setattr(source, "MAX_FILE_BYTES", 64 * 1024)
    (tmp_path / "requirements.txt").write_text("-r big.txt\n-r ../outside.txt\n-r /etc/passwd\nnumpy\n")
    (tmp_path / "big.txt").write_text("numpy\n" * 20_000)
    (tmp_path / "good.py").write_text(GOOD)
    report = run(tmp_path)
    problems = [s.reason for s in report.skipped if s.path == "requirements.txt"]
    assert any("include not read: big.txt" in p and "limit" in p for p in problems)
    assert sum("outside the project" in p for p in problems) == 2


def test_notebooks_with_bad_shapes(tmp_path):
    (tmp_path / "v3.ipynb").write_text(json.dumps({"nbformat": 3, "worksheets": 7}))
    (tmp_path / "v3b.ipynb").write_text(json.dumps({"nbformat": 3, "worksheets": [{"cells": 5}, 3]}))
    (tmp_path / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "good.py").write_text(GOOD)
    report = run(tmp_path)
    assert device_paths(report) == ["good.py"]
    assert "nested too deeply" in reasons(report)["deep.ipynb"]


def test_a_punycode_declaration_on_invalid_bytes(tmp_path):
    (tmp_path / "puny.py").write_bytes(b"# -*- coding: punycode -*-\nx = '\xff\xfe\x80'\n")
    (tmp_path / "good.py").write_text(GOOD)
    report = run(tmp_path)
    assert "not valid punycode" in reasons(report)["puny.py"]
    assert device_paths(report) == ["good.py"]


# --- YAML ----------------------------------------------------------------------------------------------------------

LAUGHS = "device: cuda\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


@pytest.mark.parametrize(
    "name, text",
    [
        ("config.yaml", LAUGHS),
        ("data.json", LAUGHS),
        ("env.yaml", "env:\n  CUDA_VISIBLE_DEVICES: &a [x, x, x, x, x, x, x, x]\n" + "".join(
            f"  CUDA_{i}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))),
        ("deep.yaml", "device: cuda\nx: " + "[" * 50_000 + "]" * 50_000 + "\n"),
        ("deep.json", '{"device": "cuda", "x": ' + "[" * 50_000 + "]" * 50_000 + "}\n"),
        ("loop.yaml", "device: cuda\nx: &a [*a]\n"),  # a node that contains itself: an endless walk, never a scanner error
        ("loop_map.yaml", "device: cuda\nx: &a {y: *a}\n"),
    ],
)
def test_yaml_bombs_and_deep_documents_are_refused_in_bounded_time(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    (tmp_path / "good.py").write_text(GOOD)
    started = time.monotonic()
    report = run(tmp_path)
    assert time.monotonic() - started < 30
    assert device_paths(report) == ["good.py"]
    assert name in reasons(report), report.skipped
    assert "scanner failed" not in reasons(report)[name]  # refused by the reader, not an error of a scanner


def test_json_is_read_as_json(tmp_path):
    (tmp_path / "yaml_only.json").write_text("env: {CUDA_VISIBLE_DEVICES: '0'}\n")
    (tmp_path / "real.json").write_text('{"env": {"CUDA_VISIBLE_DEVICES": "0"}}')
    report = run(tmp_path)
    assert [f.path for f in report.findings] == ["real.json"]
    assert "not valid JSON" in reasons(report)["yaml_only.json"]


# --- quadratic work ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("import torch\n" + "f(" * 25_000 + ")" * 25_000 + "\n", "nested deeper than"),
        ("import torch\nx = a" + ".b" * 100_000 + "\n", "nested deeper than"),
    ],
    ids=["25k-nested-calls", "100k-attribute-chain"],
)
def test_deep_syntax_trees_are_not_queried(tmp_path, text, expected):
    (tmp_path / "deep.py").write_text(text)
    (tmp_path / "good.py").write_text(GOOD)
    started = time.monotonic()
    report = run(tmp_path)
    assert time.monotonic() - started < 30
    assert expected in reasons(report)["deep.py"]
    assert device_paths(report) == ["good.py"]


def test_a_huge_line_of_calls_stops_at_the_time_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "FILE_SECONDS", 1.0)
    (tmp_path / "line.py").write_text("import torch\n" + "torch.cuda.synchronize();" * 197_000 + "\n")
    (tmp_path / "good.py").write_text(GOOD)
    started = time.monotonic()
    report = run(tmp_path)
    assert time.monotonic() - started < 40
    assert "time budget" in reasons(report)["line.py"]
    assert "good.py" in device_paths(report)


def test_fifty_thousand_suppressions_are_matched_in_linear_time(tmp_path):
    lines = "x = 1  # ascend: ignore[DEV101]\n# ascend: ignore[DEV102]\ny = 2\n" * 25_000
    (tmp_path / "s.py").write_text("import torch\n" + lines + "torch.cuda.synchronize()  # ascend: ignore[dev101]\n" * 500)
    started = time.monotonic()
    report = run(tmp_path)
    assert time.monotonic() - started < 60
    assert report.summary.suppressed == 500 and len(report.unused_suppressions) == 50_000


def test_the_time_budget_stops_python_work(monkeypatch):
    with pytest.raises(budget.OverBudget):
        with budget.time_budget(0.2):
            while True:
                pass


def test_constant_arithmetic_is_range_checked_first(tmp_path):
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\nBLOCK = 1 << 16000000000\nBIG = " + "9" * 5000 + " * 2\n"
        "@triton.jit\ndef k(x, BLOCK: tl.constexpr):\n    tl.load(x + tl.arange(0, BLOCK))\nk[(1,)](x, BLOCK=BLOCK)\n"
    )
    started = time.monotonic()
    report = run(tmp_path)
    assert time.monotonic() - started < 15
    assert [s for s in report.skipped if "k.py" in s.path] == []


def test_fifty_thousand_dependencies_in_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'x'\ndependencies = [\n" + "".join(f'  "pkg{i}>=1",\n' for i in range(50_000)) + "]\n"
    )
    started = time.monotonic()
    report = run(tmp_path)
    assert time.monotonic() - started < 40
    assert len(report.dependency_matrix) >= 50_000


def test_tree_depth_budget_unit():
    assert parsing.over_budget(parsing.parse("python", b"x = f(g(h(1)))\n")) is None
    deep = parsing.parse("python", b"x = " + b"(" * 2000 + b"1" + b")" * 2000 + b"\n")
    assert "nested deeper" in parsing.over_budget(deep)


# --- output -------------------------------------------------------------------------------------------------------------


def test_terminal_escapes_in_project_text_are_made_visible(tmp_path):
    (tmp_path / "esc\x1b[2Jname.py").write_text(
        "import torch\ntorch.cuda.synchronize()  # \x1b]0;pwned\x07 \x1b[31m\n"
        "x = torch.device('cuda\x1b[2J')\n"
    )
    result = cli("analyze", str(tmp_path))
    assert_clean(result)
    assert b"\x1b" not in result.stdout and b"\x07" not in result.stdout
    assert b"esc\\x1b[2Jname.py" in result.stdout


@pytest.mark.parametrize("shipped", ["reports/report.json", "reports", "ascend.sarif"])
def test_a_shipped_link_never_sends_output_outside(tmp_path, shipped):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("precious")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    link = tree / shipped
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside if shipped == "reports" else victim)
    if shipped == "ascend.sarif":
        result = cli("analyze", ".", "--format", "sarif", "-o", "ascend.sarif", cwd=tree)
        assert_clean(result)
        assert not (tree / "ascend.sarif").is_symlink() and json.loads((tree / "ascend.sarif").read_text())["runs"]
    else:
        result = cli("analyze", ".", "--output-dir", "reports", cwd=tree)
        if shipped == "reports":
            assert result.returncode == 2 and b"leads outside it through a symbolic link" in result.stderr
            assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
        else:
            assert_clean(result)
            assert not (tree / "reports" / "report.json").is_symlink()
    assert victim.read_text() == "precious"


def test_concurrent_runs_into_one_output_dir_each_leave_a_whole_report(tmp_path):
    trees = []
    for name in ("one", "two"):
        tree = tmp_path / name
        tree.mkdir()
        for index in range(30):
            (tree / f"m{index}.py").write_text(GOOD * 20)
        trees.append(tree)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.Popen([*MODULE, "analyze", str(tree), "--output-dir", str(out)],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for tree in trees for _ in range(2)
    ]
    for process in runs:
        _, stderr = process.communicate(timeout=180)
        assert process.returncode == 0, stderr
    report = json.loads((out / "report.json").read_text())
    sarif = json.loads((out / "report.sarif").read_text())
    assert report["project"]["name"] in ("one", "two")
    assert sarif["runs"][0]["results"]
    text = (out / "report.txt").read_text()
    assert text.startswith(report["project"]["name"] + ":")  # the text summary is of the same run as the JSON
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_python_m_inside_the_tree_imports_nothing_from_it(tmp_path):
    marker = tmp_path / "IMPORTED"
    (tmp_path / "rich").mkdir()
    (tmp_path / "rich" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    (tmp_path / "good.py").write_text(GOOD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for flags in (["-m"], [*SAFE_PATH, "-m"]):  # the guard in ascend_feasibility/__main__.py, and the documented -P form
        result = subprocess.run([sys.executable, *flags, "ascend_feasibility", "analyze", "."],
                                cwd=tmp_path, env=env, capture_output=True, timeout=CLI_TIMEOUT_SECONDS)
        assert_clean(result)
        assert not marker.exists()


def test_jobs_far_above_the_core_count_is_capped(tmp_path):
    from ascend_feasibility.analyzer.core.pipeline import usable_jobs

    assert usable_jobs(1_000_000) <= (os.cpu_count() or 1)
    for index in range(60):
        (tmp_path / f"m{index}.py").write_text(GOOD)
    result = cli("analyze", str(tmp_path), "--jobs", "1000000", "--format", "json", timeout=120)
    assert_clean(result)
    assert json.loads(result.stdout)["project"]["files_scanned"] == 60


def test_a_calibration_file_with_nan_is_refused(tmp_path):
    calibration = tmp_path / "calibration.json"
    calibration.write_text('{"schema_version": "1", "results": [{"max_abs": NaN, "speedup": Infinity}]}')
    (tmp_path / "good.py").write_text(GOOD)
    result = cli("analyze", str(tmp_path), "--calibration", str(calibration))
    assert result.returncode == 2 and b"NaN is not a JSON number" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_output_is_identical_for_any_jobs_with_duplicate_class_names(tmp_path):
    for index in range(60):
        padding = "\n" * (index * 7 % 50)
        (tmp_path / f"m{index:02d}.py").write_text(
            f"import torch\n{padding}class Model(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda() + {index}\n"
        )
    outputs = {jobs: cli("analyze", str(tmp_path), "--format", "json", "--jobs", str(jobs)) for jobs in (1, 2)}
    for result in outputs.values():
        assert_clean(result)
    assert outputs[1].stdout == outputs[2].stdout


def test_an_output_dir_inside_the_tree_is_not_scanned(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    # The report's snippet `CUDA_VISIBLE_DEVICES=0 ...` reads as a docker-compose style entry when report.json is
    # scanned as a JSON config: a run that scanned its own output would find DEV201 in report.json.
    (tmp_path / "run.sh").write_text("CUDA_VISIBLE_DEVICES=0 python good.py\n")
    first = cli("analyze", ".", "--output-dir", "reports", cwd=tmp_path)
    assert_clean(first)
    before = (tmp_path / "reports" / "report.json").read_text()
    second = cli("analyze", ".", "--output-dir", "reports", cwd=tmp_path)
    assert_clean(second)
    assert (tmp_path / "reports" / "report.json").read_text() == before
    other = ("--exclude", "reports/")  # from here on, reports/ is an earlier run's output: not this run's own
    root_first = cli("analyze", ".", "--output-dir", ".", *other, cwd=tmp_path)
    root_second = cli("analyze", ".", "--output-dir", ".", *other, cwd=tmp_path)
    assert_clean(root_second)
    assert json.loads((tmp_path / "report.json").read_text())["findings"] == json.loads(before)["findings"]
    assert root_first.returncode == 0
    third = cli("analyze", ".", "--format", "json", "-o", "out.json", *other, "--exclude", "report.*", cwd=tmp_path)
    assert_clean(third)
    fourth = cli("analyze", ".", "--format", "json", "-o", "out.json", *other, "--exclude", "report.*", cwd=tmp_path)
    assert_clean(fourth)
    assert json.loads((tmp_path / "out.json").read_text())["findings"] == json.loads(before)["findings"]


def test_sarif_uris_are_percent_encoded(tmp_path):
    for name in ("a#b.py", "q?x.py", "%2e%2e", "sp ace.py"):
        target = tmp_path / name
        if name == "%2e%2e":
            target.mkdir()
            target = target / "x.py"
        target.write_text(GOOD)
    result = cli("analyze", str(tmp_path), "--format", "sarif")
    assert_clean(result)
    results = json.loads(result.stdout)["runs"][0]["results"]  # byte-identical copies: one result, the rest related
    uris = {location["physicalLocation"]["artifactLocation"]["uri"]
            for r in results for location in [*r["locations"], *r.get("relatedLocations", [])]}
    assert {"a%23b.py", "q%3Fx.py", "%252e%252e/x.py", "sp%20ace.py"} <= uris


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_a_closed_stdout_exits_quietly(tmp_path, fmt):
    """Standard output is a pipe whose reading end is already closed: the first write fails with EPIPE."""
    (tmp_path / "m.py").write_text(GOOD * 50)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        process = subprocess.Popen([*MODULE, "analyze", str(tmp_path), "--format", fmt],
                                   env=env, stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0 and stderr == b"", stderr


def test_an_in_process_run_restores_the_alarm_handler(tmp_path):
    import signal

    before = signal.getsignal(signal.SIGALRM)
    (tmp_path / "good.py").write_text(GOOD)
    analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert signal.getsignal(signal.SIGALRM) == before


def test_a_link_to_a_file_inside_the_tree_is_read_at_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "impl.py").write_text(GOOD)
    (tmp_path / "alias.py").symlink_to(tmp_path / "real" / "impl.py")
    report = run(tmp_path)
    assert sorted(device_paths(report)) == ["alias.py", "real/impl.py"]
    assert report.skipped == []


def test_an_output_link_the_user_keeps_outside_the_tree_is_used(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    (tmp_path / "real").mkdir()
    (tmp_path / "mine").symlink_to(tmp_path / "real")
    result = cli("analyze", str(tree), "--output-dir", str(tmp_path / "mine"))
    assert_clean(result)
    assert (tmp_path / "real" / "report.json").is_file()


def test_deep_nesting_in_every_language_and_a_socket(tmp_path):
    """Shell, Dockerfile, CUDA and setup.py trees past the depth budget, a deep notebook, a setup.cfg with a huge
    version and an interpolation, a socket named like a source file: each listed, the rest reported."""
    import socket

    (tmp_path / "run.sh").write_text("export CUDA_VISIBLE_DEVICES=0\necho " + "$(" * 20_000 + ")" * 20_000 + "\n")
    (tmp_path / "k.cu").write_text("__global__ void k(){ int x = " + "(" * 30_000 + "1" + ")" * 30_000 + "; }\n")
    nested_shell = "$(" * 20_000 + ")" * 20_000
    (tmp_path / "Dockerfile").write_text(f"FROM x\nRUN echo {nested_shell}\nENV CUDA_VISIBLE_DEVICES=0\n")
    deep_list = "[" * 20_000 + "]" * 20_000
    (tmp_path / "setup.py").write_text(f"from setuptools import setup\nsetup(install_requires={deep_list})\n")
    (tmp_path / "setup.cfg").write_text("[options]\ninstall_requires =\n    torch>=" + "1" * 5000 + "\n    %(x)s\n")
    (tmp_path / "CMakeLists.txt").write_text("project(x CUDA)\n" + "(" * 50_000 + "\n")
    (tmp_path / "x.ipynb").write_text('{"cells": [], "metadata": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}")
    (tmp_path / "good.py").write_text(GOOD)
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(tmp_path / "sock.py"))
    except OSError as exc:
        pytest.skip(f"no UNIX socket here: {exc}")
    try:
        report = run(tmp_path)
    finally:
        listener.close()
    listed = reasons(report)
    for name in ("run.sh", "k.cu", "Dockerfile", "setup.py"):
        assert listed[name] == "nested deeper than 1000 levels: not analysed"
    assert listed["sock.py"] == "not a regular file (socket)"
    assert "nested too deeply" in listed["x.ipynb"]
    assert any("longer than 30 digits" in s.reason for s in report.skipped if s.path == "setup.cfg")
    assert device_paths(report) == ["good.py"]


def test_a_deep_notebook_cell_is_not_queried(tmp_path):
    deep = "import torch\nx = a" + ".b" * 50_000 + "\n"
    cells = [{"cell_type": "code", "source": deep}, {"cell_type": "code", "source": GOOD}]
    (tmp_path / "nb.ipynb").write_text(json.dumps({"nbformat": 4, "cells": cells}))
    started = time.monotonic()
    report = run(tmp_path)
    assert time.monotonic() - started < 30
    assert reasons(report)["nb.ipynb (cell 1)"] == "nested deeper than 1000 levels: not analysed"
    assert [(f.path, f.cell) for f in report.findings if f.domain == "device"] == [("nb.ipynb", 2)]


def test_a_device_the_user_names_as_output_stays_a_device(tmp_path):
    import stat as stat_module

    from ascend_feasibility.analyzer.core.cli import main

    (tmp_path / "a.py").write_text("import torch\ntorch.cuda.synchronize()\n")
    assert main(["analyze", str(tmp_path), "--format", "json", "-o", os.devnull]) == 0
    assert stat_module.S_ISCHR(os.stat(os.devnull).st_mode)  # not replaced by a regular file
