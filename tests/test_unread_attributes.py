"""An attribute a class stores (`self.device = torch.device("cuda:{}".format(self.rank))`) that no code reads is a
value nothing uses: its findings are `optional` (analyzer/context/unread_attributes.py). A read in the class, in a file
building an instance or subclassing it, a base class that may read it, `self` handed on whole, or a value built by a
call with effects keeps it counted."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

EXECUTOR = ("import os\nimport torch\nclass Executor:\n    def __init__(self, gan=False):\n        self.gan = gan\n"
            "        self.step = 0\n        self.rank = int(os.environ.get('RANK', 0))\n"
            "        self.device = torch.device('cuda:{}'.format(self.rank))\n"
            "    def train_one_epoc(self, model, batch):\n        self.step += 1\n        return model(batch)\n")
TRAIN = ("from voice.utils.executor import Executor\nif __name__ == '__main__':\n    executor = Executor()\n"
         "    executor.step = 0\n    executor.train_one_epoc(print, 1)\n")


def _store(root, executor: str = EXECUTOR, train: str = TRAIN, extra: dict[str, str] | None = None):
    write_tree(root, {"voice/__init__.py": "", "voice/utils/__init__.py": "", "voice/utils/executor.py": executor,
                      "voice/bin/train.py": train, **(extra or {})})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return next((f.reach, f.reach_reason, f.severity) for f in report.findings
                if f.path == "voice/utils/executor.py" and f.rule == "DEV002")


def test_a_device_stored_and_never_read_is_optional(tmp_path):
    reach, why, _ = _store(tmp_path)
    assert reach == "optional"
    assert why == ("line 8: Executor.device is stored and never read: no code of its module reads it, and no file "
                   "naming Executor or importing its module names device")
    assert phrase("zh", why) != why


@pytest.mark.parametrize("executor, train", [
    # read by the class itself
    (EXECUTOR + "    def to_device(self, x):\n        return x.to(self.device)\n", TRAIN),
    # read where the instance is built
    (EXECUTOR, TRAIN.replace("executor.step = 0", "print(executor.device)")),
    # the instance handed on to code (a library's here) that may read any attribute
    (EXECUTOR, "from trainer_lib import launch\n" + TRAIN.replace("executor.step = 0", "launch(executor)")),
    # a base class (of another file) may read it
    (EXECUTOR.replace("class Executor:", "from voice.utils.base import Base\nclass Executor(Base):"), TRAIN),
    # `self` handed on whole: whatever receives it may read any attribute
    (EXECUTOR.replace("import os\n", "import os\nfrom voice.utils.registry import register\n")
     .replace("        self.step = 0\n", "        self.step = 0\n        register(self)\n"), TRAIN),
    # a value built by a call with effects
    (EXECUTOR.replace("import os\n", "import os\nfrom voice.utils.dist import init_rank\n")
     .replace("format(self.rank)", "format(init_rank())"), TRAIN),
])
def test_a_store_something_may_read_keeps_runs(tmp_path, executor, train):
    extra = {"voice/utils/base.py": "class Base:\n    def report(self):\n        return self.device\n",
             "voice/utils/registry.py": "def register(x):\n    return x\n",
             "voice/utils/dist.py": "def init_rank():\n    return 0\n"}
    reach, why, severity = _store(tmp_path, executor, train, extra)
    assert (reach, why, severity) == ("runs", None, "medium")


def test_a_subclass_in_another_file_reading_it_keeps_runs(tmp_path):
    extra = {"voice/utils/gan.py": ("from voice.utils.executor import Executor\nclass GanExecutor(Executor):\n"
                                    "    def put(self, x):\n        return x.to(self.device)\n")}
    assert _store(tmp_path, extra=extra)[0] == "runs"
