"""SARIF 2.1.0 for GitHub code scanning: one run, rules deduplicated with their documentation as help,
fingerprints without line numbers, suppressed findings carried as in-source suppressions."""

from __future__ import annotations

import json
from typing import TextIO
from urllib.parse import quote

from ascend_feasibility.analyzer import TOOL_NAME
from ascend_feasibility.analyzer.context.project_scope import parse_site
from ascend_feasibility.analyzer.core.models import Finding, Report
from ascend_feasibility.analyzer.reporting.rule_docs import render_rule, show_placeholders
from ascend_feasibility.knowledge import load_knowledge

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "ascendFeasibility/v1"
LEVEL = {"blocker": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


def to_sarif(report: Report) -> dict:
    kb = load_knowledge()
    codes = sorted({f.rule for f in report.findings})
    index = {code: position for position, code in enumerate(codes)}
    rules = [_rule_descriptor(kb.rules[code]) for code in codes]
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "version": report.tool.version,
                "semanticVersion": report.tool.version,
                "rules": rules,
            }},
            "automationDetails": {"id": f"{TOOL_NAME}/{report.project.name}/"},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {"level": "warning", "message": {"text": f"{s.path}: {s.reason}"},
                     "locations": [_artifact_only(s.path)]}
                    for s in report.skipped
                ],
            }],
            "results": [_result(f, index[f.rule]) for f in report.findings],
            "properties": {
                "verdict": report.verdict.verdict,
                "effortDays": {"low": report.effort.total.low_days, "high": report.effort.total.high_days},
                "target": report.target.model_dump(mode="json"),
            },
        }],
    }


def write_sarif(report: Report, stream: TextIO) -> None:
    json.dump(to_sarif(report), stream, indent=2, ensure_ascii=False)
    stream.write("\n")


def _rule_descriptor(rule) -> dict:
    help_markdown = render_rule(rule, "en")
    return {
        "id": rule.code,
        "name": _pascal(rule.name),
        "shortDescription": {"text": f"{rule.code} {rule.name}"},
        "fullDescription": {"text": show_placeholders(rule.message.en)},
        "help": {"text": show_placeholders(rule.replacement.en),
                 "markdown": help_markdown},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {
            "tags": ["ascend", "npu-migration", rule.domain],
            "precision": rule.confidence,
            "problem.severity": PROBLEM_SEVERITY[LEVEL[rule.severity]],
            "domain": rule.domain,
            "migration": rule.migration,
        },
    }


def _result(finding: Finding, rule_index: int) -> dict:
    replacement = finding.replacement.en + (f" ({finding.replacement.code})" if finding.replacement.code else "")
    result = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": LEVEL[finding.severity],
        "message": {"text": f"{finding.message.en} Replacement: {replacement}"},
        "locations": [_location(finding)],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {
            "severity": finding.severity,
            "migration": finding.migration,
            "confidence": finding.confidence,
            "phases": finding.phases,
            "role": finding.role,
            "reach": finding.reach,
            "counted": finding.counted,
            "symbol": finding.symbol,
            "effortHours": finding.effort_hours.model_dump(),
            "zh": {"message": finding.message.zh, "replacement": finding.replacement.zh},
        },
    }
    related = _related(finding)
    if related:
        result["relatedLocations"] = related
    if finding.suppressed:
        result["suppressions"] = [{"kind": "inSource", "justification": "ascend: ignore comment"}]
    return result


def _location(finding: Finding) -> dict:
    if finding.cell is not None:
        # SARIF has no notebook cells: point at the notebook, say where in the message's location text.
        location = _artifact_only(finding.path)
        location["physicalLocation"]["region"] = {"startLine": 1, "snippet": {"text": finding.snippet}}
        location["message"] = {"text": f"cell {finding.cell}, line {finding.line}, column {finding.column}"}
        return location
    return {"physicalLocation": {
        "artifactLocation": {"uri": artifact_uri(finding.path), "uriBaseId": "%SRCROOT%"},
        "region": {
            "startLine": finding.line,
            "startColumn": finding.column,
            "endLine": finding.end_line,
            "endColumn": finding.end_column,
            "snippet": {"text": finding.snippet},
        },
    }}


def _related(finding: Finding) -> list[dict]:
    """The other sites a project-level or folded finding stands for (one result, not one per site: the report
    counts it once, and code scanning shows the sites beside it)."""
    related = []
    for index, site in enumerate(finding.sites):
        parsed = parse_site(site)
        if parsed is None or (parsed[0], parsed[1]) == (finding.path, finding.line):
            continue
        path, line, cell = parsed
        location = _artifact_only(path)
        location["id"] = index
        if cell is None:
            location["physicalLocation"]["region"] = {"startLine": line}
        else:
            location["message"] = {"text": f"cell {cell}, line {line}"}
        related.append(location)
    return related


def _artifact_only(path: str) -> dict:
    return {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(path), "uriBaseId": "%SRCROOT%"}}}


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def artifact_uri(path: str) -> str:
    """A relative URI reference for a POSIX path: `#`, `?`, `%`, spaces and non-ASCII are percent-encoded, so that
    a consumer resolves the file that was analysed and no other."""
    return quote(path, safe="/")
