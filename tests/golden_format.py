"""The golden expected-findings files of the sample projects: what each sample must produce, reviewed by hand.

Regenerate after an intended change with `python -m tests.update_goldens`, then read the diff before committing.
"""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.pipeline import AnalyzeOptions, analyze

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_projects"
GOLDEN = Path(__file__).resolve().parent / "golden"


def sample_names() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())


def expected_view(name: str) -> dict:
    """The parts of a report a golden file pins: stable across machines (no absolute root)."""
    report = analyze(SAMPLES / name, AnalyzeOptions(jobs=1))
    return {
        "target": report.target.release,
        "files_scanned": report.project.files_scanned,
        "findings": [
            {
                "rule": f.rule,
                "where": f"{f.path}:{f.line}:{f.column}" + (f" (cell {f.cell})" if f.cell is not None else ""),
                "symbol": f.symbol,
                "severity": f.severity,
                "migration": f.migration,
                **({"suppressed": True} if f.suppressed else {}),
            }
            for f in report.findings
        ],
        "skipped": [s.model_dump() for s in report.skipped],
        "unused_suppressions": [u.model_dump(exclude_none=True) for u in report.unused_suppressions],
        "dependency_matrix": [f"{row.package} {row.declared} [{row.classification}]".replace("  ", " ") for row in report.dependency_matrix],
        "torch_fit": report.torch_fit.recommended,
        "custom_ops": [
            {
                "kernel": row.kernel,
                "where": f"{row.path}:{row.line}",
                "kind": row.kind,
                "class": row.classification,
                "callers": row.callers,
                "path": row.replacement_path,
                "tier": row.effort_tier,
            }
            for row in report.custom_ops
        ],
        "summary": report.summary.model_dump(),
        "phases": {
            "entries": {e.path: e.phases for e in report.phase_matrix.entries},
            "files": _phases_by_file(report),
            "matrix": {row.item: row.cells for row in report.phase_matrix.rows},
        },
        "effort_days": {
            "total": [report.effort.total.low_days, report.effort.total.high_days],
            **{f"phase {k}": [v.low_days, v.high_days] for k, v in report.effort.by_phase.items()},
        },
        "verdict": report.verdict.verdict,
        "bottlenecks": [f"{b.id} {b.likelihood}/{b.impact}" for b in report.bottlenecks],
        "architecture": {
            "family": report.architecture.family,
            "models": [f"{m.name} {m.forward}" for m in report.architecture.models],
            "attention": report.architecture.attention,
        },
    }


def _phases_by_file(report) -> dict[str, list[str]]:
    files: dict[str, list[str]] = {}
    for f in report.findings:
        files.setdefault(f.path, f.phases)
    return dict(sorted(files.items()))


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.json"


def dump(view: dict) -> str:
    return json.dumps(view, indent=1, ensure_ascii=False) + "\n"
