"""`--baseline report.json`: the findings an earlier run already reported (matched by fingerprint, which survives
moved lines), so that a CI gate fails on new findings only. The file is read with the size limit, as JSON without
NaN/Infinity, and only its fingerprints are taken; a malformed one is refused with a one-line reason."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from analyzer.models import Finding
from analyzer.source import Unreadable, read_bytes

MAX_BASELINE_BYTES = 512 * 1024 * 1024


class BaselineError(Exception):
    """The baseline file cannot be used; the message says why."""


class _Fingerprinted(BaseModel):
    model_config = ConfigDict(extra="ignore")
    fingerprint: str


class _BaselineReport(BaseModel):
    model_config = ConfigDict(extra="ignore")
    schema_version: str
    findings: list[_Fingerprinted]


def _refuse_constant(constant: str):
    raise ValueError(f"{constant} is not a JSON number")


def load_baseline(path: Path) -> frozenset[str]:
    """The fingerprints of a report.json written by this tool."""
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
    return frozenset(finding.fingerprint for finding in report.findings)


def new_findings(findings: list[Finding], known: frozenset[str]) -> list[Finding]:
    return [finding for finding in findings if finding.fingerprint not in known]
