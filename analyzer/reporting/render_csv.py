"""CSV for planning spreadsheets: the findings, and the phase matrix. Cells that a spreadsheet would read as a
formula are prefixed with an apostrophe (CSV injection)."""

from __future__ import annotations

import csv
from typing import TextIO

from ascend_feasibility.analyzer.core.models import Report

FINDING_COLUMNS = (
    "rule", "name", "domain", "severity", "migration", "confidence", "path", "line", "column", "cell", "phases",
    "symbol", "snippet", "replacement_code", "replacement_en", "replacement_zh", "message_en", "message_zh",
    "effort_hours_low", "effort_hours_high", "suppressed", "fingerprint",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def write_findings_csv(report: Report, stream: TextIO) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(FINDING_COLUMNS)
    for f in report.findings:
        writer.writerow(_safe(value) for value in (
            f.rule, f.name, f.domain, f.severity, f.migration, f.confidence, f.path, f.line, f.column,
            "" if f.cell is None else f.cell, " ".join(f.phases), f.symbol, f.snippet, f.replacement.code or "",
            f.replacement.en, f.replacement.zh, f.message.en, f.message.zh, f.effort_hours.low, f.effort_hours.high,
            "yes" if f.suppressed else "no", f.fingerprint,
        ))


def write_phase_matrix_csv(report: Report, stream: TextIO) -> None:
    matrix, effort = report.phase_matrix, report.effort
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(["item", "kind", "count", *matrix.phases])
    for row in matrix.rows:
        writer.writerow([_safe(row.item), row.kind, row.count, *(row.cells.get(p, "-") for p in matrix.phases)])
    writer.writerow(["effort days (low)", "", "", *(_days(effort, p, "low_days") for p in matrix.phases)])
    writer.writerow(["effort days (high)", "", "", *(_days(effort, p, "high_days") for p in matrix.phases)])


def _days(effort, phase: str, field: str) -> str:
    days = effort.by_phase.get(phase)
    return "" if days is None else f"{getattr(days, field):g}"


def _safe(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
