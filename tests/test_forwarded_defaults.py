"""A keyword that hands a caller's own defaulted parameter on (`GPT(use_vllm=use_vllm)` in `Chat.load(self, ...,
use_vllm=False)`) passes that caller's default (unpassed_defaults.Forwards): the callee's arm the default turns away is
`optional` when no call, launch command or config in the project passes the caller's parameter. Cases written from the
round 25 audit's description of ChatTTS (A1 C1, B1 C2, B2 C4, verdicts V2): the opt-in vLLM engine imported lazily
under `if use_vllm:` in another file's class."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

GPT = (
    "import torch\n\n\n"
    "class GPT:\n"
    "    def __init__(self, device, use_vllm=False):\n"
    "        self.device = device\n"
    "        if use_vllm:\n"
    "            torch.cuda.synchronize()\n"
)
GPT_LINE = 8


def chat(default: str = "False", extra: str = "") -> str:
    return (
        "from pkg.gpt import GPT\n\n\n"
        "class Chat:\n"
        f"    def load(self, source=\"local\", compile=False, use_vllm={default}):\n"
        "        self.gpt = GPT(\"cpu\", use_vllm=use_vllm)\n"
        f"{extra}"
    )


def function_caller(default: str = "False") -> str:
    return (
        "from pkg.gpt import GPT\n\n\n"
        f"def build(device, use_vllm={default}):\n"
        "    return GPT(device, use_vllm=use_vllm)\n"
    )


def reaches(tmp_path, files: dict[str, str]):
    report = analyze(write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/gpt.py": GPT, **files}), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/gpt.py" and f.line == GPT_LINE]
    assert found, "no finding at pkg/gpt.py:8"
    return found


@pytest.mark.parametrize("files", [
    {"pkg/core.py": chat(), "app.py": "from pkg.core import Chat\n\nChat().load()\n"},
    {"pkg/core.py": chat(), "app.py": "from pkg.core import Chat\n\nChat().load(compile=True)\n"},
    {"pkg/core.py": chat(), "app.py": "from pkg.core import Chat\n\nChat().load(use_vllm=False)\n"},
    {"pkg/build.py": function_caller(), "app.py": "from pkg.build import build\n\nbuild('cpu')\n"},
])
def test_a_default_handed_on_by_a_caller_no_one_turns_on(tmp_path, files):
    found = reaches(tmp_path, files)
    assert all(f.reach == "optional" for f in found)
    reason = found[0].reach_reason
    assert "`use_vllm=False` by default (GPT())" in reason and "`use_vllm=use_vllm` from" in reason


def test_the_reason_names_the_method_and_its_file(tmp_path):
    found = reaches(tmp_path, {"pkg/core.py": chat(), "app.py": "from pkg.core import Chat\n\nChat().load()\n"})
    assert "Chat.load() (pkg/core.py), whose `use_vllm=False` no call" in found[0].reach_reason


@pytest.mark.parametrize("files", [
    {"pkg/core.py": chat(), "app.py": "from pkg.core import Chat\n\nChat().load(use_vllm=True)\n"},  # turned on
    {"pkg/core.py": chat(), "app.py": "from pkg.core import Chat\n\nChat().load('hf', True, True)\n"},  # by position
    {"pkg/core.py": chat(), "app.py": "from pkg.core import Chat\n\nChat().load(**options)\n"},  # a splat
    {"pkg/core.py": chat("True")},  # the caller's default turns it on
    {"pkg/core.py": chat(extra="        self.gpt = GPT(\"cpu\", use_vllm=flag)\n")},  # another value too
    {"pkg/core.py": chat(), "run.sh": "python app.py --args use_vllm=true\n"},  # a launch string passes it
    {"pkg/core.py": chat(), "conf/run.yaml": "use_vllm: true\n"},  # a config names it
    {"pkg/core.py": chat(), "pkg/sub.py": "from pkg.core import Chat\n\n\nclass Fast(Chat):\n    pass\n"},  # subclassed
    {"pkg/build.py": function_caller(), "app.py": "from pkg.build import build\n\nbuild('cpu', use_vllm=True)\n"},
    {"pkg/build.py": function_caller(), "app.py": "from pkg.build import build\n\nbuild('cpu', True)\n"},
])
def test_a_caller_that_may_turn_it_on_keeps_the_arm(tmp_path, files):
    assert all(f.reach == "runs" for f in reaches(tmp_path, files))


def test_a_rebound_parameter_is_not_handed_on(tmp_path):
    core = chat().replace("        self.gpt", "        use_vllm = source == 'vllm'\n        self.gpt")
    assert all(f.reach == "runs" for f in reaches(tmp_path, {"pkg/core.py": core}))


HOPPED = (
    "import torch\n\n\n"
    "class GPT:\n"
    "    def __init__(self, device, use_vllm=False):\n"
    "        self.is_vllm = use_vllm\n\n"
    "    def prepare(self):\n"
    "        if self.is_vllm:\n"
    "            torch.cuda.synchronize()\n"
)


@pytest.mark.parametrize("default, reach", [("False", "optional"), ("True", "runs")])
def test_a_handed_on_default_read_through_self_in_a_method(tmp_path, default, reach):
    files = {"pkg/__init__.py": "", "pkg/gpt.py": HOPPED, "pkg/core.py": chat(default),
             "app.py": "from pkg.core import Chat\n\nChat().load()\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/gpt.py" and f.line == 10]
    assert found and all(f.reach == reach for f in found)


def test_a_function_handing_its_parameter_to_itself_ends(tmp_path):
    recursive = ("import torch\n\n\n"
                 "def walk(depth, use_vllm=False):\n"
                 "    if use_vllm:\n"
                 "        torch.cuda.synchronize()\n"
                 "    return walk(depth - 1, use_vllm=use_vllm)\n")
    report = analyze(write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/walk.py": recursive,
                                           "app.py": "from pkg.walk import walk\n\nwalk(3)\n"}), AnalyzeOptions(jobs=1))
    assert [f for f in report.findings if f.path == "pkg/walk.py" and f.line == 6]
