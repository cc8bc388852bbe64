"""A string passed for a parameter its callee overwrites before reading it is never used: the device literal of
`Worker("cuda:0", 4)`, where `Worker.__init__` runs `self.device = device` and then `self.device = "cuda"` before any
read, reaches no device API, and its finding is `optional` (analyzer/context/overwritten_arguments.py). A read in
between, a conditional overwrite, a base class or a call that uses more than the argument keeps it counted."""

from __future__ import annotations

import pytest
import tree_sitter_python
from ascend_feasibility.analyzer.context.overwritten_arguments import overwritten_arguments
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from ascend_feasibility.analyzer.reading.python_names import CALLS_QUERY
from tree_sitter import Language, Parser

from tests.helpers import write_tree

_PARSER = Parser(Language(tree_sitter_python.language()))

WORKER = ("class Worker:\n"
          "    def __init__(self, device, size):\n"
          "        self.device = device\n"
          "        path = './ckpts/model'\n"
          "        self.size = size\n"
          "        self.device = 'cuda'\n"
          "        self.model = load(path).to(self.device)\n")


def _lines(source: str) -> dict[int, str]:
    data = source.encode()
    root = _PARSER.parse(data).root_node
    called = parsing.captures(parsing.query("python", CALLS_QUERY), root).get("called", [])
    return {start: why for start, _, why in overwritten_arguments(ModuleStatements(root), data, called)}


def test_an_argument_stored_then_stored_again_is_never_used():
    found = _lines(WORKER + "w = Worker('cuda:0', 512)\nv = Worker(size=3, device='cuda:1')\n")
    assert found == {
        8: "line 8: Worker.__init__ stores `device` in `self.device` (line 3) and sets `self.device` again at line 6 "
           "before anything reads it: the value passed here is never used",
        9: "line 9: Worker.__init__ stores `device` in `self.device` (line 3) and sets `self.device` again at line 6 "
           "before anything reads it: the value passed here is never used"}


def test_a_function_rebinding_its_parameter_before_reading_it():
    source = "def build(device, n):\n    device = 'cuda'\n    return net(n).to(device)\nbuild('cuda:1', 2)\n"
    assert _lines(source) == {4: "line 4: build binds its parameter `device` again at line 2 before reading it: the "
                                 "value passed here is never used"}
    reads_first = "def build(device, n):\n    device = device or 'cuda'\n    return net(n).to(device)\nbuild('cuda:1', 2)\n"
    assert _lines(reads_first) == {}


@pytest.mark.parametrize("init", [
    # read between the two stores (a method call on self may read it)
    "        self.device = device\n        self.setup()\n        self.device = 'cuda'\n",
    "        self.device = device\n        self.model = load(self.device)\n        self.device = 'cuda'\n",
    # the overwrite is conditional
    "        self.device = device\n        if not ok:\n            self.device = 'cuda'\n",
    # the parameter has another use
    "        self.device = device\n        print(device)\n        self.device = 'cuda'\n",
    # the second value reads the first
    "        self.device = device\n        self.device = self.device or 'cuda'\n",
    # never stored again
    "        self.device = device\n        self.size = 3\n",
])
def test_a_value_that_may_be_read_keeps_the_argument(init):
    source = "class Worker:\n    def __init__(self, device):\n" + init + "w = Worker('cuda:0')\n"
    assert _lines(source) == {}


def test_what_may_read_the_value_elsewhere_keeps_the_argument():
    call = "w = Worker('cuda:0', 512)\n"
    assert _lines(WORKER.replace("class Worker:", "class Worker(Base):") + call) == {}  # a base's property or setattr
    prop = "    @property\n    def device(self):\n        return self._d\n"
    assert _lines(WORKER + prop + call) == {}  # a property named after the attribute
    assert _lines(WORKER.replace("class Worker:\n", "class Worker:\n    device = property(get, put)\n") + call) == {}
    assert _lines(WORKER + "Worker = wrap(Worker)\n" + call) == {}  # the name is bound again
    assert _lines(WORKER + "w = Worker('cuda:0', 512).to('cuda')\n") == {}  # the call is not the whole statement
    assert _lines(WORKER + "w = Worker('cuda:0', size())\n") == {}  # a nested call on the line
    assert _lines(WORKER + "w = Worker(512, 'cuda:0')\n") == {}  # the string goes to `size`, which is read


def _reach(root, module: str) -> dict[int, tuple[str, str | None]]:
    write_tree(root, {"train.py": module})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.reach_reason) for f in report.findings if f.path == "train.py" and f.rule == "DEV001"}


def test_the_literal_passed_is_optional_and_the_overwrite_still_counts(tmp_path):
    reach = _reach(tmp_path, "import torch\n" + WORKER.replace("load(path)", "torch.load(path)")
                   + "if __name__ == '__main__':\n    w = Worker('cuda:0', 512)\n")
    assert reach[7] == ("runs", None)  # self.device = 'cuda': the value the model gets
    assert reach[10][0] == "optional" and reach[10][1].startswith("line 10: Worker.__init__ stores `device`")


def test_the_literal_counts_when_the_constructor_reads_it(tmp_path):
    reach = _reach(tmp_path, "import torch\n" + WORKER.replace("        self.device = 'cuda'\n", "")
                   .replace("load(path)", "torch.load(path)") + "if __name__ == '__main__':\n    w = Worker('cuda:0', 512)\n")
    assert reach[9] == ("runs", None)


def test_the_reason_reads_in_chinese():
    from ascend_feasibility.analyzer.reporting.localize import phrase
    for why in _lines(WORKER + "w = Worker('cuda:0', 512)\n").values():
        assert "从未被使用" in phrase("zh", why)
    why = _lines("def build(device):\n    device = 'npu'\n    return device\nbuild('cuda')\n")[4]
    assert "重新绑定" in phrase("zh", why)
