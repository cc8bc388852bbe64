"""Switches the project turns on itself (analyzer/context/switched_on.py): an arm behind an off-by-default switch runs
when the project's own config, launch script or code turns the switch on."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.switched_on import on_reason, true_keys
from ascend_feasibility.analyzer.context.switches import switch_of_reason, switches_of_reason
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

MODEL = ("import torch\nfrom xformers import ops\n\n"
         "class Attention(torch.nn.Module):\n"
         "    def __init__(self, dim, memory_efficient=False):\n"
         "        super().__init__()\n        self.memory_efficient = memory_efficient\n\n"
         "    def forward(self, q, k, v):\n"
         "        if self.memory_efficient:\n"
         "            return ops.memory_efficient_attention(q, k, v)\n"
         "        return torch.softmax(q @ k.transpose(-1, -2), -1) @ v\n")


def xformers_reach(tmp_path, files: dict[str, str]) -> tuple[str, str]:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/attention.py": MODEL, **files})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/attention.py" and "memory_efficient_attention" in f.symbol]
    assert len(found) == 1
    return found[0].reach, found[0].reach_reason or ""


def test_an_off_switch_nothing_turns_on_stays_optional(tmp_path):
    reach, reason = xformers_reach(tmp_path, {"config/lm.yaml": "lm:\n  memory_efficient: false\n  dim: 8\n"})
    assert reach == "optional" and reason.startswith("`memory_efficient=False` by default (Attention())")


@pytest.mark.parametrize("files, where", [
    ({"config/lm.yaml": "transformer_lm:\n  memory_efficient: true\n"}, "`memory_efficient: true` in config/lm.yaml"),
    ({"configs/lm.json": '{"model": {"memory_efficient": true}}'}, "`memory_efficient: true` in configs/lm.json"),
    ({"scripts/train.sh": "python -m pkg.train --memory-efficient --dim 8\n"}, "`--memory-efficient` passed by scripts/train.sh"),
    ({"pkg/build.py": "from pkg.attention import Attention\nlayer = Attention(8, memory_efficient=True)\n"},
     "`memory_efficient=True` passed to Attention() at pkg/build.py:2"),
    ({"pkg/build.py": "args = {'dim': 8, 'memory_efficient': True}\n"}, "`'memory_efficient': True` at pkg/build.py:1"),
])
def test_a_switch_the_project_turns_on_runs_and_says_where(tmp_path, files, where):
    reach, reason = xformers_reach(tmp_path, files)
    assert reach == "runs"
    assert reason == f"`memory_efficient` is off by default but the project turns it on: {where}"


@pytest.mark.parametrize("files", [
    {"tests/configs/lm.yaml": "memory_efficient: true\n"},  # a test's config decides nothing
    {"docs/lm.yaml": "memory_efficient: true\n"},
    {"config/lm.yaml": "use_memory_efficient: true\nmemory_efficient: 'true'\n"},  # another key; a string, not true
    {"scripts/train.sh": "python -m pkg.train --memory_efficient false\n"},
    {"pkg/build.py": "from pkg.other import Block\nlayer = Block(8, memory_efficient=True)\n"},  # another class's
    {"tests/test_attention.py": "from pkg.attention import Attention\nAttention(8, memory_efficient=True)\n"},
])
def test_what_does_not_turn_the_switch_on(tmp_path, files):
    assert xformers_reach(tmp_path, files)[0] == "optional"


def test_true_keys_reads_booleans_at_any_depth_only():
    text = b"a:\n  b: true\n  c: 'true'\n  d: [ {e: True} ]\nf: false\nmodel.g: true\n"
    assert sorted(true_keys(text, json_document=False)) == ["b", "e", "g"]
    assert true_keys(b"a: [unclosed\n true", json_document=False) == []
    assert true_keys(b'{"x": true}', json_document=True) == ["x"]


def test_reasons_name_their_switch():
    assert switch_of_reason("`use_flash=None` by default (Model()); line 3: if use_flash:") == ("use_flash", "Model")
    assert switch_of_reason("`self.fused = False` by default (line 7); line 9: if self.fused:") == ("fused", "")
    assert switch_of_reason("`--fp8-base` is off unless given (line 12); line 40: if args.fp8_base:") == ("fp8_base", "")
    assert switch_of_reason("line 480: except ModuleNotFoundError:") is None
    assert on_reason("`--fp8-base` is off unless given (line 12)", {"fp8_base": [("", "`--fp8-base` passed by a.sh")]})


def test_a_reason_of_either_switch_names_both_and_either_turns_it_on():
    # switches.SwitchReader._any_switch: `if args.xformers or args.trt:` is on where the project turns either on
    reason = "`--xformers` is off unless given (line 3) or `--trt` is off unless given (line 4); line 6: if args.xformers or args.trt:"
    assert switches_of_reason(reason) == [("xformers", ""), ("trt", "")]
    assert switch_of_reason(reason) == ("xformers", "")
    found = on_reason(reason, {"trt": [("", "`--trt` passed by export.sh")]})
    assert found is not None and "`trt` is off by default but the project turns it on: `--trt` passed by export.sh" in found
    assert on_reason(reason, {"onnx": [("", "`--onnx` passed by export.sh")]}) is None


def test_a_config_is_composed_once_for_the_scanner_and_the_true_keys(monkeypatch):
    """The config scanner and the phase facts' true keys read one composition of a YAML file (Unit.yaml_documents);
    a text that does not compose gives no true keys and the scanner's unreadable-file reason, as each did alone."""
    from ascend_feasibility.analyzer.reading import bounded_yaml

    from tests.helpers import scan

    composed = []
    original = bounded_yaml.compose_all

    def counting(text, json_document=False):
        composed.append(text)
        return original(text, json_document)

    monkeypatch.setattr(bounded_yaml, "compose_all", counting)
    result = scan("trainer:\n  accelerator: cuda\n  use_amp: true\nbackend: nccl\n", "yaml")
    assert len(composed) == 1
    assert result.facts.phases.true_keys == ["use_amp"]
    assert [f.rule for f in result.findings]  # the scanner read the same documents
    composed.clear()
    broken = scan("backend: nccl\nuse_amp: true\nx: [unclosed\n", "yaml")
    assert len(composed) == 1
    assert broken.facts.phases.true_keys == []
    assert [s.reason for s in broken.skipped if s.reason.startswith("YAML not parsed")]


# prec42d (round 32 V8): a Python file launching a script through a shell command string passes its flags too
APP_SYSTEM = ("import os\n\n\ndef render(path):\n"
              "    code = os.system(f'''\n        python -m pkg.train \\\n            --dim 8 \\\n"
              "            --source {path} \\\n            --memory-efficient\n        ''')\n    return code\n")


@pytest.mark.parametrize("command", [APP_SYSTEM,
                                     "import subprocess\nsubprocess.run('python -m pkg.train --memory-efficient', shell=True)\n"])
def test_a_flag_passed_by_a_python_shell_command_turns_the_switch_on(tmp_path, command):
    reach, reason = xformers_reach(tmp_path, {"app.py": command})
    assert reach == "runs"
    assert reason == "`memory_efficient` is off by default but the project turns it on: `--memory-efficient` passed by app.py"


@pytest.mark.parametrize("command", [
    "import os\nos.system('ls --memory-efficient')\n",  # no runner command: ls's option
    "import os\nCMD = 'python -m pkg.train --memory-efficient'\nprint(CMD)\n",  # a string no shell call runs
    "import os\nos.system('python -m pkg.train --memory-efficient false')\n",  # passed off
])
def test_a_python_string_that_launches_nothing_with_the_flag_leaves_it_off(tmp_path, command):
    assert xformers_reach(tmp_path, {"app.py": command})[0] == "optional"


APEX_TRAIN = ("import torch\nimport apex\n\n\n"
              "def train(model, optimizer, cfg):\n"
              "    if cfg.optimizer_config.get(\"use_fp16\", False):\n"
              "        model, optimizer = apex.amp.initialize(model, optimizer, opt_level=\"O1\")\n"
              "    return model, optimizer\n")


def apex_reach(tmp_path, config: str) -> tuple[str, str]:
    """Video-Swin-Transformer's mmaction/apis/train.py:92 (round 40 V-2): apex amp under a flag a config turns on."""
    write_tree(tmp_path, {"requirements.txt": "torch\napex\n", "pkg/__init__.py": "", "pkg/train.py": APEX_TRAIN,
                          "configs/swin.py": config})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
             if f.path == "pkg/train.py" and f.line == 7 and f.rule.startswith("DEP")]
    assert len(found) == 1
    return found[0].reach, found[0].reach_reason or ""


def test_a_flag_guard_a_shipped_config_turns_on_runs(tmp_path):
    reach, reason = apex_reach(tmp_path, "optimizer_config = dict(type='DistOptimizerHook', use_fp16=True)\n")
    assert reach == "runs"
    assert reason == "`use_fp16` is off by default but the project turns it on: `'use_fp16': True` at configs/swin.py:1"


def test_a_flag_guard_nothing_turns_on_stays_optional(tmp_path):
    reach, reason = apex_reach(tmp_path, "optimizer_config = dict(type='DistOptimizerHook', use_fp16=False)\n")
    assert reach == "optional"
    assert reason == "line 6: if cfg.optimizer_config.get(\"use_fp16\", False): (the switch `use_fp16`)"


def test_a_guard_reason_names_its_switch():
    assert switches_of_reason("line 6: if self.use_fp16: (the switch `use_fp16`)") == [("use_fp16", "")]
    assert switches_of_reason("line 6: if self.use_fp16:") == []
