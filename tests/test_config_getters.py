"""A switch read from a config getter with an off default (analyzer/context/config_getters.py): the arm is `optional`
where nothing in the project turns the key on. Cases written from the round 25 audit's description of FunASR's
trainers (A1 C2, A2 C5: `use_deepspeed = get_setting("use_deepspeed", False)`, `kwargs.get("use_fsdp", False)`,
`self.use_fp16 = kwargs.get("use_fp16", False)`, launchers passing `++train_conf.use_deepspeed=false`)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

LOCAL = (
    "import torch\n\n\n"
    "def main(**kwargs):\n"
    "    use_deepspeed = kwargs.get(\"use_deepspeed\", False)\n"
    "    if use_deepspeed:\n"
    "        torch.cuda.synchronize()\n"
)
SETTING = LOCAL.replace("kwargs.get(", "get_setting(").replace("def main(**kwargs):", "def main():")
DIRECT = (
    "import torch\n\n\n"
    "def main(conf):\n"
    "    x = 1\n"
    "    if conf.get(\"use_deepspeed\", None) and x:\n"
    "        torch.cuda.synchronize()\n"
)
ATTRIBUTE = (
    "import torch\n\n\n"
    "class Trainer:\n"
    "    def __init__(self, **kwargs):\n"
    "        self.use_deepspeed = kwargs.get(\"use_deepspeed\", False)\n"
    "    def step(self):\n"
    "        if self.use_deepspeed:\n"
    "            torch.cuda.synchronize()\n"
)
LINE = 7
LAUNCH_OFF = {"examples/finetune.sh": "torchrun train.py ++train_conf.use_deepspeed=false ++model=x\n"}


def reaches(tmp_path, source: str, extra: dict[str, str], line: int = LINE):
    files = {"pkg/__init__.py": "", "pkg/train.py": source, **extra}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/train.py" and f.line == line]
    assert found, f"no finding at pkg/train.py:{line}"
    return found


@pytest.mark.parametrize("source, line", [(LOCAL, LINE), (SETTING, LINE), (DIRECT, LINE), (ATTRIBUTE, 9)])
@pytest.mark.parametrize("extra", [{}, LAUNCH_OFF, {"docs/tutorial.md": "use_deepspeed: True to turn it on\n"}])
def test_a_getter_left_off_is_optional(tmp_path, source, line, extra):
    found = reaches(tmp_path, source, extra, line)
    assert all(f.reach == "optional" for f in found)
    assert "`use_deepspeed` is read with default" in found[0].reach_reason
    if extra == LAUNCH_OFF:
        assert "passes use_deepspeed=false (examples/finetune.sh)" in found[0].reach_reason


@pytest.mark.parametrize("source, line", [(LOCAL, LINE), (ATTRIBUTE, 9)])
@pytest.mark.parametrize("extra", [
    {"examples/finetune.sh": "torchrun train.py ++train_conf.use_deepspeed=true\n"},  # a launcher turns it on
    {"examples/finetune.sh": "torchrun train.py ++train_conf.use_deepspeed=$DS\n"},  # a value the shell knows
    {"examples/finetune.sh": "torchrun train.py --use_deepspeed true\n"},
    {"conf/train.yaml": "train_conf:\n  use_deepspeed: true\n"},  # a config names the key
    {"pkg/run.py": "from pkg.train import main\n\nmain(use_deepspeed=True)\n"},  # other code writes it
])
def test_a_key_something_may_turn_on_keeps_the_arm(tmp_path, source, line, extra):
    assert all(f.reach == "runs" for f in reaches(tmp_path, source, extra, line))


@pytest.mark.parametrize("source", [
    LOCAL.replace("False)", "True)"),  # on by default
    LOCAL.replace("    if use_deepspeed:", "    use_deepspeed = use_deepspeed or flag\n    if use_deepspeed:"),  # rebound
    LOCAL.replace("kwargs.get(\"use_deepspeed\", False)", "kwargs.get(key, False)"),  # a key not known
])
def test_other_getters_are_not_read(tmp_path, source):
    line = LINE + 1 if "or flag" in source else LINE
    assert all(f.reach == "runs" for f in reaches(tmp_path, "import os\n" + source, {}, line + 1))


def test_an_environment_getter_is_left_to_env_switches(tmp_path):
    found = reaches(tmp_path, "import os\n" + LOCAL.replace("kwargs.get(", "os.environ.get("), {}, LINE + 1)
    assert all("is read with default" not in (f.reach_reason or "") for f in found)


def test_an_attribute_stored_again_keeps_the_arm(tmp_path):
    source = ATTRIBUTE + "    def enable(self):\n        self.use_deepspeed = True\n"
    assert all(f.reach == "runs" for f in reaches(tmp_path, source, {}, 9))
    outside = {"pkg/run.py": "from pkg.train import Trainer\n\nt = Trainer()\nt.use_deepspeed = flag\n"}
    assert all(f.reach == "runs" for f in reaches(tmp_path, ATTRIBUTE, outside, 9))


def test_a_locals_rebindings_are_read_only_where_a_getter_binds_it(monkeypatch):
    """config_getters.arms reads a tested local's rebindings (bound once: a getter's off default) only where an
    assignment before the test binds it from a getter call; a local bound from anything else is no getter's, unread."""
    from ascend_feasibility.analyzer.context import config_getters, unpassed_defaults
    from ascend_feasibility.analyzer.reading import parsing

    asked = []
    rebound = unpassed_defaults._rebound
    monkeypatch.setattr(unpassed_defaults, "_rebound", lambda function: asked.append(function) or rebound(function))
    query = parsing.query("python", "(if_statement condition: (_) @condition)")

    def arms(code: str):
        tree = parsing.parse("python", code.encode())
        return config_getters.arms(parsing.captures(query, tree).get("condition", []))[0]

    assert arms("def f(conf):\n    use_fp16 = compute(conf)\n    if use_fp16:\n        pass\n") == []
    assert asked == []
    found = arms("def f(conf):\n    use_fp16 = conf.get('use_fp16', False)\n    if use_fp16:\n        pass\n")
    assert [(name, default) for _, _, name, _, _, default, _, _ in found] == [("get:use_fp16", "False")] and len(asked) == 1
    twice = "def f(conf):\n    use_fp16 = conf.get('use_fp16', False)\n    use_fp16 = True\n    if use_fp16:\n        pass\n"
    assert arms(twice) == []  # bound twice: no getter's
