"""A CUDA query or device string stored in an attribute nothing in the project reads changes nothing that runs: its
finding is `cosmetic` at info (domains/device/unread_constants.py). consistency_models' TrainLoop stores
`self.sync_cuda = th.cuda.is_available()` and no file names sync_cuda again (round 12 A1 row 16)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

LOOP = ("import torch as th\n\n\n"
        "class TrainLoop:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.sync_cuda = th.cuda.is_available()\n"  # line 7
        "        self.use_cuda = th.cuda.is_available()\n"  # line 8: read below
        "        self.moved = model.cuda()\n"  # line 9: .cuda() moves the model in place
        "        self.read_elsewhere = th.cuda.is_available()\n\n"  # line 10: another file reads it
        "    def run(self):\n"
        "        if self.use_cuda:\n"
        "            print('cuda')\n")


def _findings(root):
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.severity, f.reach_reason) for f in report.findings
            if f.path == "pkg/train.py" and f.line in (7, 8, 9, 10)}


def test_a_query_stored_in_an_attribute_nothing_reads_is_cosmetic(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/train.py": LOOP,
        "pkg/other.py": "def report(loop):\n    return loop.read_elsewhere\n",
    })
    found = _findings(tmp_path)
    assert found[7] == ("cosmetic", "info", "line 7: stored in self.sync_cuda, which nothing in the project reads")
    assert phrase("zh", found[7][2]) == "第 7 行：存入 self.sync_cuda，而项目中没有任何地方读取它"
    # not: an attribute the file reads, a store of a call that acts, one another file reads
    assert found[8][0] == "runs" and found[10][0] == "runs"
    assert found.get(9, ("runs",))[0] == "runs"
