"""A class whose constructor always reads a name its module neither imports nor defines raises NameError when built:
nothing builds it, in an application or a published library alike, and its findings are `optional`
(analyzer/context/unbuildable.py). A name the module binds anywhere (an import, a fallback in `except`, a definition
below), one read only in a branch, or a module that may bind names unseen (`import *`) keeps the class counted."""

from __future__ import annotations

import pytest
import tree_sitter_python
from ascend_feasibility.analyzer.context.unbuildable import unbuildable_classes
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from tree_sitter import Language, Parser

from tests.helpers import write_tree

HEAD = ("class ImageHead(nn.Module):\n"
        "    def __init__(self, cfg, use_fp32=False):\n"
        "        super().__init__()\n"
        "        self.config = AttrDict(cfg)\n"
        "        self.lin = ColumnParallelLinear(3, 4, bias=True)\n"
        "    def forward(self, x):\n"
        "        return x.cuda()\n")
USER = "class Used(nn.Module):\n    def forward(self, x):\n        return x.cuda()\n"


def _reach(root, module: str) -> dict[int, tuple[str, str | None]]:
    write_tree(root, {"pyproject.toml": '[project]\nname = "janus"\n', "janus/__init__.py": "",
                      "janus/models/__init__.py": "from .uvit import Used\n",
                      "janus/utils.py": "class AttrDict(dict):\n    pass\nclass ColumnParallelLinear:\n    pass\n",
                      "janus/models/uvit.py": module})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.reach_reason) for f in report.findings
            if f.path == "janus/models/uvit.py" and f.rule == "DEV004"}


def test_a_class_whose_constructor_reads_unbound_names_is_never_built(tmp_path):
    reach = _reach(tmp_path, "import torch\nfrom torch import nn\n" + HEAD + USER)
    assert reach[9] == ("optional", "line 3: class ImageHead's constructor reads `AttrDict`, `ColumnParallelLinear` "
                                    "(line 6), which the module neither imports nor defines: building it raises "
                                    "NameError, so nothing builds it")
    assert reach[12] == ("runs", None)  # the module's other class


@pytest.mark.parametrize("binding", [
    "from janus.utils import AttrDict, ColumnParallelLinear\n",
    "try:\n    from apex import AttrDict, ColumnParallelLinear\nexcept ImportError:\n    AttrDict = ColumnParallelLinear = None\n",
    "from janus.utils import *\n",
])
def test_a_module_that_binds_the_names_keeps_the_class(tmp_path, binding):
    reach = _reach(tmp_path, "import torch\nfrom torch import nn\n" + binding + HEAD + USER)
    assert all(r == ("runs", None) for r in reach.values()), reach


def test_names_defined_below_the_class_are_bound_when_it_is_built(tmp_path):
    reach = _reach(tmp_path, "import torch\nfrom torch import nn\n" + HEAD + USER
                   + "def AttrDict(c):\n    return c\nclass ColumnParallelLinear:\n    pass\n")
    assert reach[9] == ("runs", None)


_PARSER = Parser(Language(tree_sitter_python.language()))


def _classes(source: str) -> list[str]:
    data = source.encode()
    return [why.split("class ", 1)[1].split("'", 1)[0] for _, _, why in unbuildable_classes(ModuleStatements(_PARSER.parse(data).root_node), data)]


def test_only_reads_that_always_run_count():
    branch = ("class A:\n    def __init__(self, fp32=False):\n        if fp32:\n            self.pg = PG()\n"
              "        self.f = lambda q: q + Later\n        self.n = [Gone(i) for i in range(2)]\n")
    assert _classes(branch) == []
    locals_and_builtins = ("class B:\n    def __init__(self, a, *args, b: Hint = 1, **kw):\n        super().__init__()\n"
                           "        for i, (j, k) in enumerate(args):\n            pass\n        with open(a) as fh:\n"
                           "            self.fh = fh\n        x = y = len(kw)\n        print(__class__, x, y, i, j, k, b)\n")
    assert _classes(locals_and_builtins) == []
    assert _classes("class C:\n    def __init__(self):\n        self.t = Missing()\n") == ["C"]
    assert _classes("import builtins\nclass C:\n    def __init__(self):\n        self.t = Missing()\n") == []


def test_the_reason_reads_in_chinese(tmp_path):
    from ascend_feasibility.analyzer.reporting.localize import phrase
    why = _reach(tmp_path, "import torch\nfrom torch import nn\n" + HEAD + USER)[9][1]
    assert phrase("zh", why) != why and "构造" in phrase("zh", why)
