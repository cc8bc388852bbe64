"""The JSON contract: the committed schema matches the models, and real reports validate against it."""

import json
from pathlib import Path

import jsonschema
from ascend_feasibility.analyzer.core.models import DOMAINS
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.render_json import to_json
from ascend_feasibility.analyzer.reporting.schema import (
    CALIBRATION_SCHEMA_PATH,
    SCHEMA_PATH,
    calibration_schema_text,
    schema_text,
)

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects"


def test_committed_schema_is_current():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), "run: python -m ascend_feasibility.analyzer.reporting.schema"


def test_committed_calibration_schema_is_current():
    assert CALIBRATION_SCHEMA_PATH.read_text(encoding="utf-8") == calibration_schema_text(), "run: python -m ascend_feasibility.analyzer.reporting.schema"


def test_report_validates_and_has_the_v1_fields():
    model = analyze(SAMPLES / "llm_train", AnalyzeOptions(jobs=1))
    report = json.loads(to_json(model))
    assert report == json.loads(model.model_dump_json())
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    assert report["schema_version"] == "1"
    assert set(report) >= {"schema_version", "tool", "target", "project", "findings", "skipped", "summary"}
    assert set(report["project"]) >= {"root", "name", "files_scanned", "lines_scanned"}
    assert set(report["summary"]["by_domain"]) == set(DOMAINS)
    finding = report["findings"][0]
    for field in ("rule", "name", "domain", "path", "line", "column", "end_line", "end_column", "snippet", "severity",
                  "migration", "confidence", "message", "replacement", "effort_hours", "fingerprint", "suppressed"):
        assert field in finding
    assert set(finding["message"]) == {"en", "zh"} and set(finding["replacement"]) == {"en", "zh", "code"}
    assert set(finding["effort_hours"]) == {"low", "high"}
