"""Options carried in environment variables across files, substring tests of an option, and launch words a shell
variable holds (analyzer/context/env_options.py, switches.option_value_test, opt_in.switched_options)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context import env_options
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import write_tree

TRAIN = ("import os\nfrom argparse import ArgumentParser\nparser = ArgumentParser()\n"
         "parser.add_argument(\"--my_testing\", default='x052', type=str)\nargs = parser.parse_args()\n"
         "os.environ[\"MY_TESTING\"] = args.my_testing\nfrom src.model import Net\n")
MODEL = ("import os\nimport torch\nfrom torch.utils.cpp_extension import load\n\n"
         "if 'x052' in os.environ[\"MY_TESTING\"]:\n    wkv5 = load(name='wkv5', sources=['cuda/wkv5.cu'])\n"
         "if 'r4' in os.environ[\"MY_TESTING\"]:\n    wkv4 = load(name='wkv4', sources=['cuda/wkv4.cu'])\n"
         "\nclass Net(torch.nn.Module):\n    pass\n")
RUN = '#!/bin/bash\nMODEL_TYPE="x070"\n# MODEL_TYPE="r4"\npython train.py --my_testing $MODEL_TYPE\n'


def _loads(root):
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f for f in report.findings if f.path == "src/model.py" and f.rule == "OPS021"}


def test_an_experiment_only_a_commented_launcher_line_chooses_is_optional(tmp_path):
    write_tree(tmp_path, {"train.py": TRAIN, "src/model.py": MODEL, "run.sh": RUN})
    loads = _loads(tmp_path)
    assert loads[6].reach == "runs"  # the option's default takes it
    assert loads[8].reach == "optional" and not loads[8].counted
    assert "`--my_testing`" in loads[8].reach_reason and "$MY_TESTING" in loads[8].reach_reason
    assert 'holding "r4"' in loads[8].reach_reason


def test_an_experiment_a_launcher_or_the_environment_chooses_runs(tmp_path):
    write_tree(tmp_path, {"train.py": TRAIN, "src/model.py": MODEL,
                          "run.sh": RUN.replace('MODEL_TYPE="x070"\n# MODEL_TYPE="r4"', 'MODEL_TYPE="r4"')})
    assert _loads(tmp_path)[8].reach == "runs"  # the launcher's variable holds it
    write_tree(tmp_path, {"run.sh": RUN, "env.sh": "export MY_TESTING=r4\n"})
    assert _loads(tmp_path)[8].reach == "runs"  # a script sets the variable itself


def test_a_launch_word_is_the_one_value_its_script_gives_the_variable():
    values = env_options.shell_values(parsing.parse("bash", b'A="x070"\n# A="r4"\nB=1\nB=2\nC=$(date)\nD=x\n'))
    assert env_options.expand("$A", values) == "x070" and env_options.expand("${A}", values) == "x070"
    assert [env_options.expand(w, values) for w in ("$B", "$C", "$E", "A")] == ["$B", "$C", "$E", "A"]
    root = parsing.parse("python", b'import os\nos.environ["A"] = args.a\nos.environ["B"] = str(args.b)\n'
                                   b'os.environ["C"] = "1"\nos.environ.setdefault("D", x)\nenv["E"] = args.e\n')
    assert env_options.carriers(root, frozenset({"args"})) == [("A", "@a"), ("B", "@b"), ("C", "=1"), ("D", "?")]
