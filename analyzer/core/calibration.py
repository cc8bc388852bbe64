"""The calibration file the probe runner writes (schema version "1"): its pydantic model, the import that refuses
anything else with a clear message, and what it tells the effort model and the report.

`schemas/calibration.v1.schema.json` is generated from `Calibration` (`python -m ascend_feasibility.analyzer.reporting.schema`) and checked by a test.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Literal

from ascend_feasibility.analyzer.core.models import CalibrationRow, CalibrationSection, RuleCalibration, RuleOutcome
from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes
from pydantic import BaseModel, ConfigDict, Field, ValidationError

CALIBRATION_SCHEMA_VERSION = "1"
Verdict = Literal["good", "slower", "fallback", "wrong", "error", "missing", "skipped"]
# How bad a verdict is for the replacement it measured; the rule outcome each one becomes.
_RANK = {"good": 0, "slower": 1, "fallback": 1, "missing": 2, "wrong": 3, "error": 3}
_OUTCOME = {"good": "good", "slower": "slower", "fallback": "slower", "missing": "missing", "wrong": "wrong",
            "error": "wrong"}


class CalibrationError(Exception):
    """A calibration file that cannot be used."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Timing(_Model):
    median_ms: float = Field(ge=0)
    p95_ms: float = Field(ge=0)
    repeats: int = Field(ge=1)


class Accuracy(_Model):
    max_abs: float | None
    mean_abs: float | None
    max_rel: float | None
    mean_rel: float | None
    passed: bool
    reference_max_abs: float | None = Field(default=None, description="The reference implementation's own error at this dtype")
    note: str | None = None


class Tolerance(_Model):
    atol: float
    rtol: float
    baseline_factor: float | None = None


class ProbeResult(_Model):
    probe: str
    rules: list[str] = Field(description="Knowledge-base codes the probe calibrates")
    candidate: str
    shape: Literal["small", "medium", "large"]
    parameters: dict[str, int]
    dtype: Literal["float64", "float32", "bfloat16", "float16"]
    device: Literal["cpu", "cuda", "npu"]
    available: bool
    applicable: bool
    reason: str | None
    error: str | None
    accuracy: Accuracy | None
    tolerance: Tolerance | None
    reference_timing: Timing | None
    candidate_timing: Timing | None
    speedup: float | None = Field(description="reference median / candidate median on the same device")
    fell_back_to_cpu: bool
    warnings: list[str]
    verdict: Verdict
    calibrates: bool = Field(default=True, description="Whether the verdict counts for the probe's rules")


class Problem(_Model):
    where: str
    error: str
    advice: str


class Compatibility(_Model):
    status: Literal["ok", "mismatch", "unknown", "not-applicable"]
    message: str


class Environment(_Model):
    python: str
    platform: str
    torch: str | None
    torch_error: str | None
    torch_npu: str | None
    torch_npu_error: str | None
    cuda: str | None
    devices: dict[str, int]
    device_names: dict[str, str]
    cann: str | None
    driver: str | None
    problems: list[Problem]
    compatibility: Compatibility
    device_type: Literal["cpu", "cuda", "npu"]
    device_count: int = Field(ge=1)
    device_name: str


class Calibration(_Model):
    schema_version: Literal["1"] = CALIBRATION_SCHEMA_VERSION
    created: str
    tool: str
    environment: Environment
    sizes: list[Literal["small", "medium", "large"]]
    results: list[ProbeResult]


MAX_CALIBRATION_BYTES = 64 * 1024 * 1024


def _not_a_number(constant: str):
    """JSON has no NaN or Infinity (Python's json module accepts them): refuse them, or they reach the report."""
    raise ValueError(f"{constant} is not a JSON number")


def load_calibration(path: Path) -> Calibration:
    try:
        data = json.loads(read_bytes(path.resolve(), limit=MAX_CALIBRATION_BYTES).decode("utf-8"), parse_constant=_not_a_number)
    except Unreadable as exc:
        raise CalibrationError(f"cannot read calibration file {path}: {exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise CalibrationError(f"calibration file {path} is not JSON: {exc}") from exc
    except RecursionError:
        raise CalibrationError(f"calibration file {path} is not JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"calibration file {path} is not a calibration document (expected a JSON object)")
    version = data.get("schema_version")
    if version != CALIBRATION_SCHEMA_VERSION:
        raise CalibrationError(
            f"calibration file {path} has schema version {version!r}; this analyzer reads version "
            f"{CALIBRATION_SCHEMA_VERSION!r}: run `ascend-feasibility probe run` (or the exported script) of this version again"
        )
    try:
        return Calibration.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(top)'}: {error['msg']}" for error in exc.errors()[:3]
        )
        more = f" (and {exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
        raise CalibrationError(f"calibration file {path} is malformed: {problems}{more}") from exc


def applies(calibration: Calibration) -> bool:
    """Only measurements on an NPU move the estimate; others are shown as information."""
    return calibration.environment.device_type == "npu"


def timing_spread(result: ProbeResult) -> float:
    """The relative noise of a timing: the larger (p95 − median) / median of the reference and the candidate."""
    spreads = [(t.p95_ms - t.median_ms) / t.median_ms for t in (result.reference_timing, result.candidate_timing)
               if t is not None and t.median_ms > 0]
    return max(spreads, default=0.0)


def effective_verdict(result: ProbeResult) -> str:
    """A slower verdict whose slowdown lies within the timing spread is no measured difference: good."""
    if result.verdict == "slower" and result.speedup and result.speedup > 0 and 1 / result.speedup - 1 <= timing_spread(result):
        return "good"
    return result.verdict


def rule_outcomes(calibration: Calibration) -> list[RuleCalibration]:
    """Per rule: each candidate's worst verdict over sizes and dtypes; the rule takes its best candidate (one
    replacement that works is enough). Results that did not apply on this device are left out."""
    grouped: dict[tuple[str, str], list[ProbeResult]] = defaultdict(list)
    for result in calibration.results:
        if result.applicable and result.verdict != "skipped" and result.calibrates:
            grouped[(result.probe, result.candidate)].append(result)
    by_rule: dict[str, tuple[str, str]] = {}
    for (probe, candidate), results in sorted(grouped.items()):
        verdict = max((effective_verdict(r) for r in results), key=_RANK.__getitem__)
        detail = (f"{probe}: {candidate} {verdict} on {calibration.environment.device_type} "
                  f"({', '.join(sorted({r.dtype for r in results}))}; {', '.join(sorted({r.shape for r in results}))})")
        for rule in results[0].rules:
            current = by_rule.get(rule)
            if current is None or _RANK[verdict] < _RANK[current[0]]:
                by_rule[rule] = (verdict, detail)
    return [RuleCalibration(rule=rule, outcome=_OUTCOME[verdict], detail=detail)
            for rule, (verdict, detail) in sorted(by_rule.items())]


def calibration_section(calibration: Calibration, source: str, outcomes: list[RuleCalibration]) -> CalibrationSection:
    """What the report shows; `applied` is False when the device is not an NPU (information only)."""
    env = calibration.environment
    return CalibrationSection(
        source=source,
        created=calibration.created,
        device_type=env.device_type,
        device_name=env.device_name,
        device_count=env.device_count,
        torch=env.torch,
        torch_npu=env.torch_npu,
        cann=env.cann,
        compatibility=env.compatibility.message,
        compatibility_status=env.compatibility.status,
        problems=[f"{p.where}: {p.error} — {p.advice}" for p in env.problems],
        rows=[
            CalibrationRow(
                probe=r.probe, candidate=r.candidate, shape=r.shape, dtype=r.dtype, verdict=r.verdict,
                max_abs=r.accuracy.max_abs if r.accuracy else None, speedup=r.speedup,
                note=r.error or r.reason or ("CPU fallback" if r.fell_back_to_cpu else ""),
            )
            for r in calibration.results
        ],
        rules=[RuleOutcome(rule=o.rule, outcome=o.outcome, detail=o.detail) for o in outcomes],
        applied=applies(calibration),
    )
