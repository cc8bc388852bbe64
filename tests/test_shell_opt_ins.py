"""A shell script's `if [ "$resume" = true ]` arm, where only the script's option parser sets `resume` (or the script
sets it only to off values), runs only for a user who passes the option: its findings are `optional`, named by the
switch (analyzer/context/shell_opt_ins.py; round 26 A1 32, A2 92: Amphion's egs/tts/VITS/run.sh, whose `else` arm
holds the default launch). A launcher passing the option an on value, a variable the script sets on, or one it takes
from the environment keeps the arm `runs`."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TRAIN = "import torch\n\nmodel = torch.nn.Linear(2, 2).cuda()\n"
PARSER = ("#!/bin/bash\n"
          "gpu=\"0\"\n"
          "{default}"
          "options=$(getopt -o g: --long gpu:,resume: -- \"$@\")\n"
          "eval set -- \"$options\"\n"
          "while true; do\n"
          "  case $1 in\n"
          "    --gpu) shift; gpu=$1 ; shift ;;\n"
          "    --resume) shift; resume=$1 ; shift ;;\n"
          "    --) shift ; break ;;\n"
          "  esac\n"
          "done\n"
          "if [ \"$resume\" = true ]; then\n"
          "    CUDA_VISIBLE_DEVICES=$gpu accelerate launch train.py --resume\n"
          "else\n"
          "    CUDA_VISIBLE_DEVICES=$gpu accelerate launch train.py\n"
          "fi\n")


def _reaches(tmp_path, files: dict[str, str], rule: str = "DEV201") -> dict[int, tuple[str, str | None]]:
    write_tree(tmp_path, {"requirements.txt": "torch\n", "train.py": TRAIN, **files})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.reach_reason) for f in report.findings
            if f.path == "egs/run.sh" and f.rule == rule}


def test_an_option_only_the_parser_sets_makes_its_arm_optional(tmp_path):
    reaches = _reaches(tmp_path, {"egs/run.sh": PARSER.format(default="")})
    assert reaches[13][0] == "optional" and "`--resume` is off unless given" in reaches[13][1]
    assert reaches[15][0] == "runs"  # the default launch, in the else arm


def test_an_off_default_before_the_parser_keeps_it_optional(tmp_path):
    reaches = _reaches(tmp_path, {"egs/run.sh": PARSER.format(default="resume=false\n").replace(
        "if [ \"$resume\" = true ]", "if [[ $resume == \"true\" ]] && [ -n \"$gpu\" ]")})
    assert reaches[14][0] == "optional"
    assert reaches[16][0] == "runs"


def test_a_variable_set_only_off_in_the_script_makes_its_arm_optional(tmp_path):
    script = ("#!/bin/bash\nuse_ddp=false\nif [ \"$use_ddp\" = \"1\" ]; then\n"
              "    CUDA_VISIBLE_DEVICES=0,1 torchrun train.py\nfi\n")
    reaches = _reaches(tmp_path, {"egs/run.sh": script}, "DST040")
    assert reaches[4][0] == "optional" and "use_ddp is set only to off values" in reaches[4][1]
    sourced = script.replace("use_ddp=false\n", "use_ddp=false\n. ./parse_options.sh\n")  # may set it from `--use_ddp 1`
    assert _reaches(tmp_path / "sourced", {"egs/run.sh": sourced}, "DST040")[5][0] == "runs"


def test_a_launcher_passing_the_option_on_keeps_the_arm(tmp_path):
    reaches = _reaches(tmp_path, {"egs/run.sh": PARSER.format(default=""),
                                  "egs/resume.sh": "bash egs/run.sh --gpu 1 --resume true\n"})
    assert reaches[13][0] == "runs"


def test_a_launcher_passing_an_equals_option_on_keeps_the_arm(tmp_path):
    script = PARSER.format(default="").replace("--resume) shift; resume=$1 ; shift ;;",
                                               "--resume=*) resume=\"${1#*=}\" ; shift ;;")
    assert _reaches(tmp_path / "alone", {"egs/run.sh": script})[13][0] == "optional"
    reaches = _reaches(tmp_path / "passed", {"egs/run.sh": script, "egs/resume.sh": "./egs/run.sh --resume=true\n"})
    assert reaches[13][0] == "runs"


def test_a_launcher_passing_the_option_off_leaves_it_optional(tmp_path):
    reaches = _reaches(tmp_path, {"egs/run.sh": PARSER.format(default=""),
                                  "egs/fresh.sh": "sh egs/run.sh --resume false\n"})
    assert reaches[13][0] == "optional"


def test_a_variable_set_on_or_from_the_environment_keeps_the_arm(tmp_path):
    on = _reaches(tmp_path / "on", {"egs/run.sh": PARSER.format(default="resume=true\n")})
    assert on[14][0] == "runs"
    environment = _reaches(tmp_path / "env", {"egs/run.sh": PARSER.format(default="resume=${RESUME:-false}\n")})
    assert environment[14][0] == "runs"
    unset = ("#!/bin/bash\nif [ \"$resume\" = true ]; then\n    CUDA_VISIBLE_DEVICES=0 torchrun train.py\nfi\n")
    assert _reaches(tmp_path / "unset", {"egs/run.sh": unset}, "DST040")[3][0] == "runs"
