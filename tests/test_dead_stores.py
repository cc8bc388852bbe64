"""A module variable bound again before anything reads it (analyzer/context/dead_stores.py): findings in the first
binding are optional. Written from PixArt's app/app_controlnet.py (`device` at lines 53 and 265, read only in
`generate()`)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.dead_stores import dead_stores
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements

from tests.helpers import write_tree

APP = ("import torch\n"
       "device = torch.device(\"cuda:0\" if torch.cuda.is_available() else \"cpu\")\n"
       "STYLES = ['a', 'b']\n\n\n"
       "@torch.no_grad()\n"
       "def generate(n):\n"
       "    return torch.randn(n, device=device)\n\n\n"
       "def get_args():\n"
       "    return 1\n\n\n"
       "args = get_args()\n"
       "device = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n"
       "generate(2)\n")


def _lines(code: str) -> list[int]:
    return [first for first, _, _ in dead_stores(ModuleStatements(parsing.parse("python", code.encode())))]


def test_a_binding_rebound_before_any_read_is_a_dead_store(tmp_path):
    assert _lines(APP) == [2]
    write_tree(tmp_path, {"app.py": APP})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reach = {f.line: (f.reach, f.reach_reason) for f in report.findings if f.path == "app.py" and f.rule.startswith("DEV")}
    assert reach[2][0] == "optional" and "bound again at line 16 before anything reads it" in reach[2][1]
    assert reach[16][0] == "runs"


@pytest.mark.parametrize("between", [
    "print(device)\n",  # read at module level
    "generate(1)\n",  # a call of a function that reads it
    "def later(d=device):\n    return d\n",  # a parameter's default runs at the definition
    "class Holder:\n    where = device\n",  # a class body runs at the definition
    "if torch.cuda.is_available():\n    device = 'cuda:1'\n",  # a binding in an arm
    "value = globals()['device']\n",  # a lookup by name
])
def test_a_statement_between_that_may_read_the_name_keeps_the_first_binding(between):
    assert _lines(APP.replace("args = get_args()\n", "args = get_args()\n" + between)) == []


@pytest.mark.parametrize("first, second", [
    ("device = torch.cuda.current_device()\n", "device = 'cpu'\n"),  # a call with effects still runs
    ("device = 'cuda'\n", "device = device + ':0'\n"),  # the second binding reads the first
])
def test_a_first_value_that_has_effects_or_is_read_by_the_second_is_no_dead_store(first, second):
    assert _lines("import torch\n" + first + "x = 1\n" + second) == []
