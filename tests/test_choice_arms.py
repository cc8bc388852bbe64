"""An arm reached only through a non-default argparse choice is `optional` whatever the site's rule (round 21 A1 C6
row 1: AnimateDiff's `elif launcher == 'slurm':` in `init_dist(launcher="slurm")`, called as
`init_dist(launcher=launcher)` from `main(launcher=args.launcher)`, with `--launcher` choices pytorch, slurm and default
pytorch; analyzer/context/opt_in.py switched_options / _parameter_option_arms). An option without declared choices
still makes only a feature's site optional; a launch script or a call passing the choice keeps the arm running."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TRAIN = '''import argparse
import os

import torch


def init_dist(launcher="slurm", port=29500):
    if launcher == "pytorch":
        rank = int(os.environ["RANK"])
        torch.cuda.set_device(rank % torch.cuda.device_count())
    elif launcher == "slurm":
        num_gpus = torch.cuda.device_count()
        return num_gpus
    return 0


def direct(args):
    if args.launcher == "slurm":
        return torch.cuda.device_count()
    return 0


def main(name, launcher, use_wandb=False):
    return init_dist({call})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", type=str, {choices}default="pytorch")
    args = parser.parse_args()
    direct(args)
    main(name="x", launcher=args.launcher)
'''
CHOICES = 'choices=["pytorch", "slurm"], '


def _reach(root) -> dict[int, tuple[str, str | None]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.reach_reason) for f in report.findings if f.path == "train.py" and f.rule == "DEV100"}


def _tree(tmp_path, call="launcher=launcher", choices=CHOICES, **more):
    write_tree(tmp_path, {"requirements.txt": "torch\n", "train.py": TRAIN.format(call=call, choices=choices), **more})


def test_an_arm_of_a_non_default_choice_is_optional_through_a_parameter_and_directly(tmp_path):
    _tree(tmp_path)
    found = _reach(tmp_path)
    assert found[10][0] == "runs"  # the default choice's arm
    assert found[12] == ("optional", '`--launcher` is "pytorch" unless given (train.py:29), and no launch script passes '
                                     '"slurm"; line 11: elif launcher == "slurm": (every call of init_dist() passes '
                                     '`launcher`)')
    assert found[19] == ("optional", '`--launcher` is "pytorch" unless given (train.py:29), and no launch script passes '
                                     '"slurm"; line 18: if args.launcher == "slurm":')


def test_a_launcher_passing_the_choice_keeps_both_arms(tmp_path):
    _tree(tmp_path, **{"scripts/run.sh": "python train.py --launcher slurm\n"})
    assert {line: reach for line, (reach, _) in _reach(tmp_path).items()} == {10: "runs", 12: "runs", 19: "runs"}


def test_a_call_that_takes_the_parameters_default_or_passes_the_choice_keeps_the_arm(tmp_path):
    for call in ("", 'launcher="slurm"', "launcher"):  # the default "slurm"; a literal; by position only
        _tree(tmp_path, call=call)
        found = _reach(tmp_path)
        assert found[12][0] == "runs", call
        assert found[19][0] == "optional", call


def test_an_option_without_choices_makes_only_a_features_site_optional(tmp_path):
    _tree(tmp_path, choices="")
    assert {line: reach for line, (reach, _) in _reach(tmp_path).items()} == {10: "runs", 12: "runs", 19: "runs"}
