"""End to end through the command line, as a user runs it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.cli import main

SAMPLE = Path(__file__).resolve().parent.parent / "sample_projects" / "llm_train"


def test_json_to_stdout(capsys):
    assert main(["analyze", str(SAMPLE), "--format", "json", "--jobs", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["project"]["name"] == "llm_train"
    assert report["summary"]["total"] == len([f for f in report["findings"] if not f["suppressed"]])


def test_text_summary(capsys):
    assert main(["analyze", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "findings by domain and severity" in out and "train.py" in out
    assert "verdict: Feasible" in out and "entry train.py: training" in out and "architecture: decoder LLM" in out


def test_output_dir_that_is_a_file_is_refused(tmp_path, capsys):
    blocker = tmp_path / "reports"
    blocker.write_text("", encoding="utf-8")
    assert main(["analyze", str(SAMPLE), "--output-dir", str(blocker)]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_text_summary_in_chinese(capsys):
    assert main(["analyze", str(SAMPLE), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "按领域和严重程度统计的问题" in out and "结论：可行" in out and "入口 train.py：训练" in out
    assert "模型架构：Decoder 大语言模型" in out and "findings by domain" not in out


def test_output_file_and_byte_identical_runs(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["analyze", str(SAMPLE), "--format", "json", "-o", str(first)]) == 0
    assert main(["analyze", str(SAMPLE), "--format", "json", "-o", str(second), "--jobs", "2"]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_parallel_and_serial_runs_agree(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for i in range(60):  # above the threshold where worker processes start
        (project / f"m{i:02d}.py").write_text("import torch\nx = torch.zeros(1).cuda()\ntorch.cuda.synchronize()\n")
    serial, parallel = tmp_path / "s.json", tmp_path / "p.json"
    main(["analyze", str(project), "--format", "json", "-o", str(serial), "--jobs", "1"])
    main(["analyze", str(project), "--format", "json", "-o", str(parallel), "--jobs", "2"])
    assert serial.read_bytes() == parallel.read_bytes()
    findings = json.loads(serial.read_text())["findings"]
    # 60 byte-identical files: each finding once, the other 59 copies as its sites
    assert [len(f["sites"]) for f in findings if f["domain"] == "device"] == [60, 60]


def test_fail_on(capsys):
    assert main(["analyze", str(SAMPLE), "--fail-on", "medium", "--format", "json"]) == 1
    assert main(["analyze", str(SAMPLE), "--fail-on", "blocker", "--format", "json"]) == 0


def test_exclude_option(capsys):
    main(["analyze", str(SAMPLE), "--format", "json", "--exclude", "*.py", "--exclude", "scripts/"])
    report = json.loads(capsys.readouterr().out)
    assert {f["path"] for f in report["findings"]} == {"Dockerfile", "configs/train.yaml", "requirements.txt"}


def test_torch_npu_target(capsys):
    main(["analyze", str(SAMPLE), "--format", "json", "--torch-npu", "2.1.0.post10"])
    target = json.loads(capsys.readouterr().out)["target"]
    assert (target["release"], target["branch"], target["cann"]) == ("2.1.0.post10", "v2.1.0-6.0.0", "8.0.0")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["analyze", "/no/such/folder"], "does not exist"),
        (["analyze", os.devnull], "is not a folder or a regular file"),
        (["analyze", str(SAMPLE), "--torch-npu", "latest"], "is not a version"),
        (["analyze", str(SAMPLE), "--format", "pdf"], "invalid choice"),
        (["analyze", str(SAMPLE), "--jobs", "0"], "at least 1"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_console_script_and_module_entry_points():
    for command in ([sys.executable, "-m", "ascend_feasibility"], ["ascend-feasibility"]):
        try:
            done = subprocess.run([*command, "analyze", str(SAMPLE), "--format", "json"], capture_output=True, text=True)
        except FileNotFoundError:
            pytest.skip("console script not installed")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["schema_version"] == "1"


def test_fail_on_lists_the_findings_that_met_it(capsys):
    assert main(["analyze", str(SAMPLE), "--fail-on", "medium", "--format", "json"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("ascend-feasibility: --fail-on medium: ") and "at medium or worse" in err[0]
    assert any(line.strip().startswith("llm_train/rollout.py:14") and "DEV211 nvidia-smi-call (medium)" in line
               for line in err[1:])
    # the 0..7 pin for 8 torchrun ranks is DEV703 at info: below the threshold, not listed
    assert not any("scripts/train.sh:4" in line for line in err[1:])


def test_explain_takes_a_code_or_a_name_and_prints_plain_text(capsys):
    assert main(["explain", "torch-cuda-synchronize"]) == 0
    by_name = capsys.readouterr().out
    assert main(["explain", "dev101"]) == 0
    assert capsys.readouterr().out == by_name and by_name.startswith("### DEV101 torch-cuda-synchronize")
    assert main(["explain", "no-such-rule"]) == 2


def test_analyze_a_single_file(capsys):
    assert main(["analyze", str(SAMPLE / "train.py"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["project"]["files_scanned"] == 1
    assert {f["path"] for f in report["findings"]} == {"train.py"}


def test_github_annotations(capsys):
    assert main(["analyze", str(SAMPLE), "--format", "github"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    assert any(line.startswith("::warning file=llm_train/rollout.py,line=14,") and "title=DEV211 nvidia-smi-call::" in line
               for line in lines)
    # an opt-in compile (`if args.compile:`) is not counted: a notice, never above low
    assert any(line.startswith("::notice file=train.py,line=42,") and "title=DEV501 torch-compile::" in line for line in lines)


def test_github_annotations_escape_project_text():
    from ascend_feasibility.analyzer.reporting.render_github import _data, _property

    assert _property("a,b:c%\n\x1b") == "a%2Cb%3Ac%25%0A\\x1b"
    assert _data("50%\r\n::error::x") == "50%25%0D%0A::error::x"


def test_baseline_makes_fail_on_count_new_findings_only(tmp_path, capsys):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("import torch\nmodel = torch.compile(model)\n")
    baseline = tree / "ascend-baseline.json"  # inside the tree: not scanned as a config
    assert main(["analyze", str(tree), "--format", "json", "-o", str(baseline)]) == 0
    capsys.readouterr()
    assert main(["analyze", str(tree), "--fail-on", "medium", "--baseline", str(baseline), "--format", "json"]) == 0
    assert "1 finding(s) already in the baseline not counted" in capsys.readouterr().err
    (tree / "b.py").write_text("import torch\n\n\nnet = torch.compile(net)\n")
    (tree / "a.py").write_text("import torch\n\n# moved\nmodel = torch.compile(model)\n")  # moved lines keep fingerprints
    assert main(["analyze", str(tree), "--fail-on", "medium", "--baseline", str(baseline), "--format", "json"]) == 1
    listed = [line.strip() for line in capsys.readouterr().err.splitlines() if line.startswith("  ")]
    assert listed == ["b.py:4: DEV501 torch-compile (medium)"]


def test_write_baseline_then_gate_and_list_stale_entries(tmp_path, capsys):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("import torch\nmodel = torch.compile(model)\ntorch.cuda.synchronize()\n")
    baseline = tree / ".ascend-baseline.json"  # inside the tree: never scanned
    assert main(["analyze", str(tree), "--write-baseline", str(baseline), "--format", "json", "-o", os.devnull]) == 0
    assert "wrote a baseline of 3 findings" in capsys.readouterr().err
    recorded = json.loads(baseline.read_text())
    assert recorded["kind"] == "baseline" and [f["rule"] for f in recorded["findings"]] == ["DEP013", "DEV501", "DEV101"]
    assert main(["analyze", str(tree), "--baseline", str(baseline), "--fail-on", "info", "--format", "json"]) == 0
    assert "no longer found" not in capsys.readouterr().err
    (tree / "a.py").write_text("import torch\nmodel = torch.compile(model)\n")  # the synchronize is fixed
    assert main(["analyze", str(tree), "--baseline", str(baseline), "--fail-on", "info", "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert "1 baseline entry no longer found" in err and "  a.py:3: DEV101" in err.splitlines()


def test_explain_on_a_terminal_is_plain_text(monkeypatch):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    assert main(["explain", "torch-cuda-synchronize"]) == 0
    text = screen.getvalue()
    assert "DEV101 torch-cuda-synchronize" in text and "transfer_to_npu" in text
    assert "\\_" not in text and "**" not in text and "###" not in text


@pytest.mark.parametrize("content", ["{not json", '{"schema_version": "1", "findings": [{"fingerprint": NaN}]}', "[1]"])
def test_a_bad_baseline_is_refused_in_one_line(tmp_path, capsys, content):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(content)
    assert main(["analyze", str(SAMPLE), "--baseline", str(baseline)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ascend-feasibility: error: baseline") or "cannot read baseline" in err
    assert len(err.strip().splitlines()) == 1


def test_the_command_line_starts_without_port_code():
    """Only the port command needs port's modules (about 0.1-0.2 s to import): loading the command line leaves them out,
    and the package still hands out its names when they are asked for."""
    code = ("import sys, ascend_feasibility.analyzer.core.cli; "
            "print(sorted(m for m in sys.modules if m.startswith('ascend_feasibility.analyzer.port')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parent.parent).stdout.strip()
    assert loaded == "['ascend_feasibility.analyzer.port', 'ascend_feasibility.analyzer.port.command_names']"
    from ascend_feasibility.analyzer.port import ApplyError, port
    from ascend_feasibility.analyzer.port.core import port as core_port
    from ascend_feasibility.analyzer.port.patch import ApplyError as raised

    assert port is core_port and ApplyError is raised
