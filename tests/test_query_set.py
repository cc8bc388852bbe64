"""The combined per-unit query gives each domain exactly the captures its own query would."""

from pathlib import Path

import ascend_feasibility.analyzer.core.filework  # noqa: F401  (imports every module that registers a query)
import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import Unit

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects"


def _spans(found):
    return {name: [(n.start_byte, n.end_byte, n.type) for n in nodes] for name, nodes in found.items() if nodes}


@pytest.mark.parametrize("path", sorted(SAMPLES.rglob("*.py")), ids=lambda p: str(p.relative_to(SAMPLES)))
def test_combined_captures_equal_separate_ones(path):
    keys = set(query_set._PARTS)
    assert {"references", "phase_facts", "imports"} <= keys and len(keys) >= 8
    unit = Unit(str(path), "python", SourceText.from_text(path.read_text(encoding="utf-8")))
    query_set.plan(unit, keys)
    for key in sorted(keys):
        separate = parsing.captures(parsing.query("python", query_set._PARTS[key]), unit.tree())
        assert _spans(query_set.unit_captures(unit, key)) == _spans(separate), key


def test_an_unplanned_key_is_still_answered():
    unit = Unit("m.py", "python", SourceText.from_text("import torch\ntorch.cuda.synchronize()\n"))
    query_set.plan(unit, {"phase_facts"})
    assert query_set.unit_captures(unit, "imports")["module"]
    assert "phase_facts" in unit.cache["captures"]


def test_keys_are_checked():
    with pytest.raises(ValueError):
        query_set.register("bad.key", "(identifier) @x")
    with pytest.raises(ValueError):
        query_set.register("references", "(identifier) @x")
