"""The JSON Schemas of the report and of the calibration file, generated from their models. Regenerate the
committed copies with `python -m ascend_feasibility.analyzer.reporting.schema` after changing a model; a test fails when they differ."""

from __future__ import annotations

import json
from pathlib import Path

from ascend_feasibility.analyzer.core.calibration import CALIBRATION_SCHEMA_VERSION, Calibration
from ascend_feasibility.analyzer.core.models import SCHEMA_VERSION, Report
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "schemas"
SCHEMA_PATH = SCHEMAS_DIR / f"report.v{SCHEMA_VERSION}.schema.json"
CALIBRATION_SCHEMA_PATH = SCHEMAS_DIR / f"calibration.v{CALIBRATION_SCHEMA_VERSION}.schema.json"


def _generator(name: str):
    class _WithDialect(GenerateJsonSchema):
        def generate(self, schema, mode="validation"):
            document = super().generate(schema, mode=mode)
            return {"$schema": self.schema_dialect, "$id": f"https://ascend-feasibility/schemas/{name}", **document}
    return _WithDialect


def _text(model: type[BaseModel], path: Path, mode: str) -> str:
    schema = model.model_json_schema(mode=mode, schema_generator=_generator(path.name))
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def schema_text() -> str:
    return _text(Report, SCHEMA_PATH, "serialization")


def calibration_schema_text() -> str:
    return _text(Calibration, CALIBRATION_SCHEMA_PATH, "validation")


if __name__ == "__main__":
    SCHEMAS_DIR.mkdir(exist_ok=True)
    for path, text in ((SCHEMA_PATH, schema_text()), (CALIBRATION_SCHEMA_PATH, calibration_schema_text())):
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
