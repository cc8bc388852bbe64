"""The JSON Schema of the report, generated from the models. Regenerate the committed copy with
`python -m analyzer.schema` after changing analyzer/models.py; a test fails when they differ."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic.json_schema import GenerateJsonSchema

from analyzer.models import SCHEMA_VERSION, Report

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / f"report.v{SCHEMA_VERSION}.schema.json"


class _WithDialect(GenerateJsonSchema):
    def generate(self, schema, mode="validation"):
        document = super().generate(schema, mode=mode)
        return {
            "$schema": self.schema_dialect,
            "$id": f"https://ascend-feasibility/schemas/report.v{SCHEMA_VERSION}.schema.json",
            **document,
        }


def report_schema() -> dict:
    return Report.model_json_schema(mode="serialization", schema_generator=_WithDialect)


def schema_text() -> str:
    return json.dumps(report_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.parent.mkdir(exist_ok=True)
    SCHEMA_PATH.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
