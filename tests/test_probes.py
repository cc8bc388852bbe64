"""The probe runner, run for real on the CPU: probes, verdicts, the calibration file, the standalone export, the
environment check, and calibration reaching the estimate."""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.calibration import Calibration, CalibrationError, load_calibration, rule_outcomes
from ascend_feasibility.analyzer.core.cli import main
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.probes import catalog, environment, runner
from ascend_feasibility.analyzer.probes.export import compatibility_table, export_script
from ascend_feasibility.knowledge import load_knowledge

from tests.golden_format import SAMPLES

CPU_PROBES = ["attention-training", "rms-norm", "rope", "float64-to-float32", "matmul-precision", "collectives"]


@pytest.fixture(scope="module")
def cpu_run() -> dict:
    return runner.run_probes("cpu", CPU_PROBES, ("small",), repeats=2)


def test_probes_run_on_cpu_and_the_file_validates(cpu_run):
    calibration = Calibration.model_validate(cpu_run)
    assert calibration.environment.device_type == "cpu" and calibration.environment.torch
    by_key = {(r.probe, r.candidate, r.dtype): r for r in calibration.results}
    sdpa = by_key[("attention-training", "torch.nn.functional.scaled_dot_product_attention", "float32")]
    assert sdpa.applicable and sdpa.available and sdpa.accuracy.passed and sdpa.accuracy.max_abs < 1e-4
    assert sdpa.reference_timing.median_ms > 0 and sdpa.candidate_timing.p95_ms >= sdpa.candidate_timing.median_ms
    assert sdpa.speedup and sdpa.verdict in {"good", "slower"}
    fp32 = by_key[("float64-to-float32", "float32 on the device", "float32")]
    assert fp32.accuracy.passed and 0 < fp32.accuracy.max_abs < 1e-3
    for result in calibration.results:
        if result.candidate.startswith("torch_npu") or "HF32" in result.candidate:
            assert not result.applicable and result.verdict == "skipped" and "npu" in result.reason
    collectives = [r for r in calibration.results if r.probe == "collectives"]
    assert collectives and all(r.verdict == "skipped" and "2 devices" in r.reason for r in collectives)
    assert {r.dtype for r in calibration.results if r.probe == "rms-norm"} == {"float32", "bfloat16", "float16"}


def _probe(candidate: catalog.Candidate, name: str = "test-swiglu") -> catalog.Probe:
    return catalog.Probe(name, ("PRC020",), "test", {"small": {"batch": 1, "seq": 8, "intermediate": 16}},
                      catalog._gated_inputs, catalog._swiglu_reference, (candidate,), dtypes=("float32",), grad_inputs=("x",))


def _swapped(inputs, torch):
    a, b = inputs["x"].chunk(2, dim=-1)
    return torch.nn.functional.silu(b) * a


def _falls_back(inputs, torch):
    warnings.warn("The operator 'aten::silu' is not currently supported on the NPU backend and will fall back to run on the CPU")
    return catalog._swiglu_reference(inputs, torch)


def _raises(inputs, torch):
    raise RuntimeError("EZ9999: inner error")


@pytest.mark.parametrize("candidate, verdict", [
    (catalog.Candidate("exact", catalog._swiglu_reference), {"good", "slower"}),
    (catalog.Candidate("halves swapped", _swapped), {"wrong"}),
    (catalog.Candidate("not installed", catalog._swiglu_reference, needs="torch_npu.npu_swiglu"), {"missing"}),
    (catalog.Candidate("raises", _raises), {"error"}),
    (catalog.Candidate("falls back", _falls_back), {"fallback"}),
])
def test_verdicts(candidate, verdict):
    import torch

    [result] = runner.run_probe(_probe(candidate), "small", "cpu", 1, torch, repeats=1)
    assert result["verdict"] in verdict, result
    if result["verdict"] == "wrong":
        assert result["accuracy"]["max_abs"] > 0.01 and not result["accuracy"]["passed"]
    if result["verdict"] == "error":
        assert "EZ9999" in result["error"]


def test_backward_is_checked_too():
    import torch

    def forward_right_backward_wrong(inputs, torch):
        a, b = inputs["x"].chunk(2, dim=-1)
        return (torch.nn.functional.silu(a) * b).detach() + 0 * inputs["x"].sum()

    [result] = runner.run_probe(_probe(catalog.Candidate("no gradient", forward_right_backward_wrong)), "small", "cpu", 1, torch, 1)
    assert result["verdict"] == "wrong"


def test_collectives_machinery_on_two_cpu_processes():
    import torch

    probe = next(p for p in catalog.PROBES if p.name == "collectives")
    result = runner._base_result(probe, probe.candidates[0], "small", "float32", "cpu")
    result = runner._run_collectives(result, probe, "small", "cpu", 2, torch)
    assert result["verdict"] == "good", result
    assert result["candidate_timing"]["median_ms"] > 0 and any("gloo" in note for note in result["warnings"])
    Calibration.model_validate({**runner.run_probes("cpu", ["collectives"], environment=_environment()),
                                "results": [result]})


def _environment() -> dict:
    return environment.detect_environment(table=[])


def test_rule_outcomes_take_the_best_candidate_and_the_worst_dtype(cpu_run):
    document = copy.deepcopy(cpu_run)
    for result in document["results"]:
        if result["probe"] == "rms-norm" and result["applicable"]:
            result["verdict"] = "good" if result["dtype"] != "float16" else "wrong"
    outcomes = {o.rule: o.outcome for o in rule_outcomes(Calibration.model_validate(document))}
    assert outcomes["PRC020"] == "wrong"  # its only applicable candidate failed at one dtype
    assert "PRC010" not in outcomes  # bf16/fp16 matmul are informational; HF32 did not apply on the CPU
    assert "DST001" not in outcomes  # collectives did not apply


def _with_verdict(document: dict, probe: str, verdict: str) -> dict:
    """Only that probe's results (others' timing verdicts would move the estimate too), all with this verdict."""
    changed = copy.deepcopy(document)
    changed["results"] = [r for r in changed["results"] if r["probe"] == probe]
    for result in changed["results"]:
        if result["probe"] == probe and result["applicable"]:
            result["verdict"] = verdict
    return changed


def test_calibration_moves_the_estimate_in_the_expected_direction(cpu_run, tmp_path):
    def analyze_with(document):
        path = tmp_path / "cal.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        measured = load_calibration(path)
        return analyze(SAMPLES / "dit_train", AnalyzeOptions(jobs=1, calibration=rule_outcomes(measured)))

    plain = analyze(SAMPLES / "dit_train", AnalyzeOptions(jobs=1))
    good = analyze_with(_with_verdict(cpu_run, "float64-to-float32", "good"))
    wrong = analyze_with(_with_verdict(cpu_run, "float64-to-float32", "wrong"))
    assert good.effort.total.high_days < plain.effort.total.high_days
    assert wrong.effort.total.high_days > plain.effort.total.high_days
    assert plain.summary.by_severity["blocker"] == 0 < wrong.summary.by_severity["blocker"]
    assert wrong.verdict.verdict in {"difficult", "infeasible"}


def test_probe_run_then_analyze_with_the_calibration(tmp_path, capsys):
    calibration = tmp_path / "calibration.json"
    assert main(["probe", "run", "--device", "cpu", "--probe", "float64-to-float32", "--probe", "rms-norm",
                 "--repeats", "1", "-o", str(calibration)]) == 0
    report_path = tmp_path / "report.json"
    assert main(["analyze", str(SAMPLES / "dit_train"), "--calibration", str(calibration), "--format", "json",
                 "-o", str(report_path)]) == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    section = report["calibration"]
    assert section["device_type"] == "cpu" and section["source"] == "calibration.json"
    assert {"PRC001", "PRC006", "PRC007", "PRC020"} <= {r["rule"] for r in section["rules"]}
    markdown = tmp_path / "report.md"
    assert main(["analyze", str(SAMPLES / "dit_train"), "--calibration", str(calibration), "--format", "markdown",
                 "-o", str(markdown)]) == 0
    text = markdown.read_text(encoding="utf-8")
    assert "## Calibration from probes" in text and "## 探针实测校准" in text and "float64-to-float32" in text


@pytest.mark.parametrize("content, message", [
    ("not json", "is not JSON"),
    ("[]", "expected a JSON object"),
    ('{"schema_version": "2"}', "schema version '2'"),
    ('{"schema_version": "1", "created": "x"}', "is malformed"),
])
def test_bad_calibration_files_are_refused_clearly(tmp_path, content, message, capsys):
    path = tmp_path / "cal.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)
    assert main(["analyze", str(SAMPLES / "llm_train"), "--calibration", str(path)]) == 2
    assert message.split("'")[0] in capsys.readouterr().err


def test_exported_script_needs_only_torch_and_its_output_imports(tmp_path):
    script = export_script(tmp_path / "export", load_knowledge())
    imported = set()
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"__future__"}
    assert third_party == {"torch", "torch_npu"}, third_party
    output = tmp_path / "calibration.json"
    done = subprocess.run([sys.executable, "-I", str(script), "run", "--device", "cpu", "--probe", "rms-norm",
                           "--probe", "float64-to-float32", "--repeats", "1", "-o", str(output)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    calibration = load_calibration(output)
    assert {r.probe for r in calibration.results} == {"rms-norm", "float64-to-float32"}
    listing = subprocess.run([sys.executable, "-I", str(script), "list"], capture_output=True, text=True, timeout=120)
    assert "attention-training" in listing.stdout


def _fake_package(root: Path, name: str, body: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(body, encoding="utf-8")


def test_environment_without_torch_npu():
    info = environment.detect_environment(table=compatibility_table(load_knowledge()))
    assert info["torch"] and info["torch_npu"] is None and info["torch_npu_error"] is None
    assert not [p for p in info["problems"] if p["where"] == "torch_npu"]
    assert info["compatibility"]["status"] == "not-applicable"


def test_environment_without_torch(tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    info = environment.detect_environment(python=str(tmp_path / "venv" / "bin" / "python"), table=[])
    assert info["torch"] is None
    assert any(p["where"] == "torch" and "torch is not installed" in p["advice"] for p in info["problems"])


@pytest.mark.parametrize("package, body, expected", [
    ("torch_npu", "raise ImportError('libhccl.so: cannot open shared object file: No such file or directory')",
     "CANN libraries"),
    ("torch_npu", "raise RuntimeError('Two accelerators cannot be used at the same time in PyTorch: npu and cuda')",
     "beside another accelerator"),
])
def test_environment_with_a_broken_torch_npu(tmp_path, package, body, expected):
    _fake_package(tmp_path / "site", package, body)
    env = {"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"}
    info = environment.detect_environment(env=env, table=[])
    assert info["torch"] and info["torch_npu"] is None
    [problem] = [p for p in info["problems"] if p["where"] == "torch_npu"]
    assert expected in problem["advice"]


def test_environment_when_torch_npu_breaks_import_torch(tmp_path):
    message = ("Failed to load the backend extension: torch_npu. You can disable extension auto-loading with "
               "TORCH_DEVICE_BACKEND_AUTOLOAD=0.")
    _fake_package(tmp_path / "site", "torch", f"raise RuntimeError({message!r})")
    info = environment.detect_environment(env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"}, table=[])
    assert info["torch"] is None and "Failed to load the backend extension" in info["torch_error"]
    assert "TORCH_DEVICE_BACKEND_AUTOLOAD=0" in info["problems"][0]["advice"]


def test_compatibility_check_against_the_table():
    table = compatibility_table(load_knowledge())
    row = next(r for r in table if r["torch_npu"] == "2.1.0.post10")
    ok = environment.check_compatibility(row["torch"] + "+cpu", "2.1.0.post10", row["cann"], table)
    assert ok["status"] == "ok"
    assert environment.check_compatibility("2.4.0", "2.1.0.post10", row["cann"], table)["status"] == "mismatch"
    assert environment.check_compatibility("2.1.0", "0.0.1", None, table)["status"] == "unknown"
    assert environment.check_compatibility("2.1.0", None, None, table)["status"] == "not-applicable"


def test_probe_commands(tmp_path, capsys):
    assert main(["probe", "list"]) == 0
    assert "float64-to-float32" in capsys.readouterr().out
    assert main(["probe", "env", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["torch"]
    assert main(["probe", "run", "--probe", "no-such-probe", "-o", str(tmp_path / "c.json")]) == 2
    assert "unknown probe" in capsys.readouterr().err
    assert main(["probe", "run", "--device", "npu", "-o", str(tmp_path / "c.json")]) == 2
    assert "no npu device" in capsys.readouterr().err
    assert main(["probe", "export", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "ascend_feasibility_probes.py").exists()


def test_every_probe_calibrates_known_rules_and_has_sane_shapes():
    rules = load_knowledge().rules
    for probe in catalog.PROBES:
        assert set(probe.rules) <= set(rules), probe.name
        assert set(probe.shapes) == set(catalog.SIZES), probe.name
        assert set(probe.dtypes) <= set(catalog.DTYPE_NAMES) and probe.candidates
        for candidate in probe.candidates:
            assert candidate.needs is None or candidate.needs.split(".")[0] in {"torch", "torch_npu"}
            assert candidate.devices and set(candidate.devices) <= {"cpu", "cuda", "npu"}


@pytest.mark.parametrize("relative, text, expected", [
    ("x86_64-linux/ascend_toolkit_install.info", "package_name=Ascend-cann-toolkit\nversion=8.2.RC1\ninnerversion=V100R001\n", "8.2.RC1"),
    ("version.cfg", "# version: 1.0\ntoolkit_running_version=[7.0.0.5.242:7.0.RC1]\n", "7.0.RC1"),
    ("compiler/version.info", "Version=8.0.0\n", "8.0.0"),
])
def test_cann_version_from_the_toolkit_files(tmp_path, monkeypatch, relative, text, expected):
    monkeypatch.setattr(environment.platform, "machine", lambda: "x86_64")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))
    (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / relative).write_text(text, encoding="utf-8")
    assert environment._cann_version() == expected


def test_calibration_notes_and_details_have_chinese(cpu_run):
    from ascend_feasibility.analyzer.core.calibration import calibration_section
    from ascend_feasibility.analyzer.reporting.localize import phrase, recognised

    calibration = Calibration.model_validate(cpu_run)
    section = calibration_section(calibration, "c.json", rule_outcomes(calibration))
    texts = [row.note for row in section.rows if row.note] + [rule.detail for rule in section.rules]
    assert texts and all(recognised(text) for text in texts), [t for t in texts if not recognised(t)]
    assert phrase("zh", "runs on npu only") == "仅在 npu 上运行"
