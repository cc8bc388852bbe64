"""`--baseline FILE`: the findings an earlier run already reported (matched by fingerprint, which survives
moved lines), so that a CI gate fails on new findings only. FILE is a report.json or a baseline written by
`--write-baseline` (the same shape, with only the fields a baseline needs). It is read with the size limit, as JSON
without NaN/Infinity, and only its fingerprints (with rule and path, to name stale entries) are taken; a malformed
one is refused with a one-line reason."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ascend_feasibility.analyzer.core.models import SCHEMA_VERSION, Finding, Report
from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes
from pydantic import BaseModel, ConfigDict, ValidationError

MAX_BASELINE_BYTES = 512 * 1024 * 1024


class BaselineError(Exception):
    """The baseline file cannot be used; the message says why."""


class _Fingerprinted(BaseModel):
    model_config = ConfigDict(extra="ignore")
    fingerprint: str
    rule: str = ""
    path: str = ""
    line: int = 0
    suppressed: bool = False


class _BaselineReport(BaseModel):
    model_config = ConfigDict(extra="ignore")
    schema_version: str
    findings: list[_Fingerprinted]


def _refuse_constant(constant: str):
    raise ValueError(f"{constant} is not a JSON number")


@dataclass(frozen=True)
class BaselineEntry:
    rule: str
    path: str
    line: int


class Baseline(dict):
    """fingerprint → where the finding was when the baseline was recorded."""


def load_baseline(path: Path) -> Baseline:
    """The unsuppressed findings of a report.json or baseline file written by this tool, by fingerprint."""
    try:
        data = json.loads(read_bytes(path.resolve(), limit=MAX_BASELINE_BYTES).decode("utf-8"), parse_constant=_refuse_constant)
        report = _BaselineReport.model_validate(data)
    except Unreadable as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        if isinstance(exc, ValidationError):
            raise BaselineError(f"baseline {path} is not a report.json of this tool (no findings with fingerprints)") from None
        raise BaselineError(f"baseline {path} is not JSON: {' '.join(str(exc).split())[:200]}") from None
    except RecursionError:
        raise BaselineError(f"baseline {path} is not JSON: nested too deeply") from None
    return Baseline((f.fingerprint, BaselineEntry(f.rule, f.path, f.line)) for f in report.findings if not f.suppressed)


def new_findings(findings: list[Finding], known: Baseline) -> list[Finding]:
    return [finding for finding in findings if finding.fingerprint not in known]


def stale_entries(known: Baseline, findings: list[Finding]) -> list[BaselineEntry]:
    """Baseline entries that no finding of this run matches (fixed, or the code around them changed), by place."""
    current = {finding.fingerprint for finding in findings}
    return sorted((entry for fingerprint, entry in known.items() if fingerprint not in current),
                  key=lambda e: (e.path, e.line, e.rule))


def write_baseline(report: Report, stream: TextIO) -> None:
    """The unsuppressed findings as a baseline: the report's own shape cut down to what matching needs, one finding
    per line in path order, so that the file reads and diffs well when committed."""
    findings = sorted((f for f in report.findings if not f.suppressed), key=lambda f: (f.path, f.line, f.rule, f.fingerprint))
    head = {"schema_version": SCHEMA_VERSION, "tool": report.tool.model_dump(mode="json"), "kind": "baseline"}
    stream.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "findings": [')
    for index, finding in enumerate(findings):
        entry = {"fingerprint": finding.fingerprint, "rule": finding.rule, "path": finding.path, "line": finding.line}
        stream.write(("," if index else "") + "\n  " + json.dumps(entry, ensure_ascii=False))
    stream.write("\n]}\n" if findings else "]}\n")
