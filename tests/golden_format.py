"""The golden expected-findings files of the sample projects: what each sample must produce, reviewed by hand.

Regenerate after an intended change with `python -m tests.update_goldens`, then read the diff before committing.
"""

from __future__ import annotations

import functools
import json
from html.parser import HTMLParser
from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.outputs import render_to_string
from ascend_feasibility.analyzer.reporting.render_csv import write_phase_matrix_csv
from ascend_feasibility.analyzer.reporting.render_sarif import to_sarif

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_projects"
GOLDEN = Path(__file__).resolve().parent / "golden"


GOLDEN_DATE = "2026-01-01"  # a fixed report date, so that the goldens do not change with the calendar
ROOT_PLACEHOLDER = "<sample root>"


def sample_names() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())


def expected_view(name: str) -> dict:
    """The parts of a report a golden file pins: stable across machines (no absolute root)."""
    report = sample_report(name)
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
                **({"role": f.role} if f.role != "product" else {}),
                **({"reach": f.reach, "because": f.reach_reason} if f.reach != "runs" else {}),
                **({"sites": f.sites} if f.sites else {}),
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


@functools.cache
def sample_report(name: str):
    return analyze(SAMPLES / name, AnalyzeOptions(jobs=1, generated=GOLDEN_DATE))


def format_outputs(name: str) -> dict[str, str]:
    """File name → content of the per-format goldens of a sample: Markdown and CSV whole, SARIF and HTML as views."""
    import io

    report = sample_report(name)
    matrix = io.StringIO()
    write_phase_matrix_csv(report, matrix)
    return {
        "report.md": render_to_string(report, "markdown").replace(report.project.root, ROOT_PLACEHOLDER),
        "findings.csv": render_to_string(report, "csv"),
        "phase-matrix.csv": matrix.getvalue(),
        "sarif-view.json": dump(sarif_view(to_sarif(report))),
        "html-view.json": dump(html_view(render_to_string(report, "html"))),
    }


def sarif_view(sarif: dict) -> dict:
    run = sarif["runs"][0]
    return {
        "rules": [rule["id"] for rule in run["tool"]["driver"]["rules"]],
        "results": [
            {
                "rule": result["ruleId"],
                "level": result["level"],
                "where": _sarif_where(result["locations"][0]),
                "fingerprint": result["partialFingerprints"],
                **({"suppressed": True} if result.get("suppressions") else {}),
            }
            for result in run["results"]
        ],
    }


def _sarif_where(location: dict) -> str:
    physical = location["physicalLocation"]
    region = physical.get("region", {})
    return f"{physical['artifactLocation']['uri']}:{region.get('startLine')}:{region.get('startColumn')}"


class _HtmlView(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.rows: list[str] = []
        self.svg_bars = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section":
            self.sections.append(attributes.get("id", ""))
        elif tag == "tr" and "data-domain" in attributes:
            self.rows.append(" ".join(attributes[k] for k in ("data-domain", "data-severity", "data-path", "data-phases")))
        elif tag == "rect" and attributes.get("class", "").startswith(("sev-", "effort-")):
            self.svg_bars += 1


def html_view(page: str) -> dict:
    parser = _HtmlView()
    parser.feed(page)
    return {"sections": parser.sections, "svg_bars": parser.svg_bars, "findings_rows": parser.rows}


def format_golden_dir(name: str) -> Path:
    return GOLDEN / "formats" / name


def _phases_by_file(report) -> dict[str, list[str]]:
    files: dict[str, list[str]] = {}
    for f in report.findings:
        files.setdefault(f.path, f.phases)
    return dict(sorted(files.items()))


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.json"


def dump(view: dict) -> str:
    return json.dumps(view, indent=1, ensure_ascii=False) + "\n"


def port_golden_path(name: str) -> Path:
    return GOLDEN / "port" / f"{name}.patch"


def port_patch(name: str) -> str:
    """The agnostic, safe-only patch `port` writes for a sample (pinned by tests/golden/port/)."""
    from ascend_feasibility.analyzer.port import PortOptions, port, unified_diff

    root = SAMPLES / name
    return unified_diff(port(root, analyze(root, AnalyzeOptions(jobs=1)), PortOptions()))
