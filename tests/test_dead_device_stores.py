"""A device string several arms store in an attribute no file reads is a dead store (domains/device/unread_constants.py
`stored_only`, domains/device/attribute_reads.py): lmms-eval's model wrappers assign `self.device_map = f"cuda:{i}"`
in each arm of their device block and nothing loads `.device_map` (round 24 A1 C3). The word device_map is written
all over the project (a parameter, a keyword of from_pretrained), which kept the word count from judging it."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

MODEL = (
    "import torch\nfrom transformers import AutoModel\n\n"
    "class Model:\n"
    '    def __init__(self, pretrained, rank, ranks, device_map="auto"):\n'
    "        if ranks > 1:\n"
    '            self.device_map = f"cuda:{rank}"\n'  # line 7
    '        elif device_map == "auto":\n'
    "            self.device_map = device_map\n"
    "        else:\n"
    '            self.device_map = f"cuda:{rank}"\n'  # line 11
    "        self.model = AutoModel.from_pretrained(pretrained, device_map=device_map)\n"
    "{tail}"
)
EVALUATOR = "def evaluate(lm, device_map='auto'):\n    return lm.model, device_map\n"


def _dev002(tmp_path, tail="", evaluator=EVALUATOR):
    root = write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/model.py": MODEL.replace("{tail}", tail),
                                 "pkg/evaluator.py": evaluator})
    return {f.line: (f.reach, f.severity, f.reach_reason) for f in analyze(root, AnalyzeOptions(jobs=1)).findings
            if f.rule == "DEV002" and f.path == "pkg/model.py"}


def test_a_device_string_every_arm_stores_and_nothing_reads_is_cosmetic(tmp_path):
    found = _dev002(tmp_path)
    assert set(found) == {7, 11}
    assert found[7] == ("cosmetic", "info", "line 7: stored in self.device_map, which nothing in the project reads")
    assert found[11][0] == "cosmetic"


@pytest.mark.parametrize("tail, evaluator", [
    ("\n    def place(self, x):\n        return x.to(self.device_map)\n", EVALUATOR),  # read in its own class
    ("\n    def dump(self):\n        return dict(vars(self))\n", EVALUATOR),  # every attribute read by a dump
    ("\n    def dump(self):\n        return getattr(self, 'device_map')\n", EVALUATOR),
    ("", "def evaluate(lm):\n    return lm.device_map\n"),  # read in another file
    ("", "def evaluate(lm):\n    return getattr(lm, 'device_map', None)\n"),
])
def test_a_read_anywhere_keeps_the_store(tmp_path, tail, evaluator):
    found = _dev002(tmp_path, tail, evaluator)
    assert found and all(reach == "runs" for reach, _, _ in found.values())


@pytest.mark.parametrize(("code", "expected"), [
    ("self.device_map = 'cuda'\nx = lm.device_map\n", {"device_map"}),  # a load beside the store
    ("self.device_map = 'cuda'\na.cache = b.device_map = 0\n", set()),  # chained stores read nothing
    ("self.items[0] = 1\nself.layer.weight = w\n", {"items", "layer"}),  # the objects a store goes through are read
    ("lm.count += 1\nv = getattr(lm, 'device_map')\nu = hasattr(lm, 'xs')\n", {"count", "device_map", "xs"}),
    ("x = b'\\xff'.dummy\ny = obj.name\n", {"dummy", "name"}),
])
def test_the_attribute_names_a_unit_reads(code, expected):
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    from ascend_feasibility.domains.device import attribute_reads
    from ascend_feasibility.domains.python_refs import REFERENCES

    unit = Unit("m.py", "python", SourceText.from_text(code))
    assert attribute_reads.read(unit) == expected
    # read from the unit's combined query (every Python unit is read): the references' patterns came with it
    assert REFERENCES in unit.cache["captures"]
