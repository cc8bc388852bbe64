"""`torch.compile` is one decision per module (DEV501 `scope = "file"`, analyzer/context/project_scope.py): a family of
`@torch.compile` helpers in one file is one finding listing its decorators as sites, not a finding per decorator at
2-16 h each (round 18 B 46: 15 such rows in one block-sparse-attention module)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

HELPERS = ("import torch\n\n\n@torch.compile\ndef select(score):\n    return score.topk(4).indices\n\n\n"
           "@torch.compile\ndef refine(score):\n    return score.cumsum(-1)\n\n\n"
           "@torch.compile(dynamic=True)\ndef mask(score):\n    return score > 0\n")
RUN = "import torch\nfrom app.bsa import select, refine, mask\ns = torch.ones(8)\nselect(s)\nrefine(s)\nmask(s)\n"


def _compiles(root):
    return [f for f in analyze(root, AnalyzeOptions(jobs=1)).findings if f.rule == "DEV501"]


def test_a_family_of_compiled_helpers_in_one_module_is_one_finding(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "", "app/bsa.py": HELPERS, "run.py": RUN})
    found = _compiles(tmp_path)
    assert [(f.path, f.line) for f in found] == [("app/bsa.py", 4)]
    assert found[0].sites == ["app/bsa.py:4", "app/bsa.py:9", "app/bsa.py:14"]
    assert found[0].counted and "at 3 sites" in found[0].message.en


def test_compiled_helpers_in_two_modules_stay_two_findings(tmp_path):
    first, second = HELPERS.split("\n\n\n@torch.compile\ndef refine")
    write_tree(tmp_path, {"app/__init__.py": "", "app/bsa.py": first + "\n",
                          "app/other.py": "import torch\n\n\n@torch.compile\ndef refine" + second,
                          "run.py": "import torch\nfrom app.bsa import select\nfrom app.other import refine, mask\n"
                                    "s = torch.ones(8)\nselect(s)\nrefine(s)\nmask(s)\n"})
    found = _compiles(tmp_path)
    assert [(f.path, f.line, f.sites[:1]) for f in found] == [("app/bsa.py", 4, []), ("app/other.py", 4, ["app/other.py:4"])]
    assert all(f.counted for f in found)
