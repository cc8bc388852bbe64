"""GitHub Actions workflow commands (`--format github`): one `::error`/`::warning`/`::notice` annotation per
unsuppressed finding above info severity, shown on the pull request's diff without uploading anything."""

from __future__ import annotations

from typing import TextIO

from ascend_feasibility.analyzer.core.models import Finding, Report
from ascend_feasibility.analyzer.reporting.render_text import printable

LEVEL = {"blocker": "error", "high": "error", "medium": "warning", "low": "notice"}


def write_github(report: Report, stream: TextIO) -> None:
    for finding in report.findings:
        if finding.suppressed or finding.severity not in LEVEL:
            continue
        stream.write(annotation(finding) + "\n")


def annotation(finding: Finding) -> str:
    properties = {
        "file": finding.path,
        "line": str(finding.line),
        "col": str(finding.column),
        "endLine": str(finding.end_line),
        "endColumn": str(finding.end_column),
        "title": f"{finding.rule} {finding.name}",
    }
    listed = ",".join(f"{key}={_property(value)}" for key, value in properties.items())
    cell = f" (cell {finding.cell})" if finding.cell is not None else ""
    return f"::{LEVEL[finding.severity]} {listed}::{_data(finding.message.en + cell)}"


def _data(text: str) -> str:
    """The message part: `%`, CR and LF escaped as the runner expects; other control characters made visible (a
    workflow command cannot be smuggled in through project text)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(text)


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
