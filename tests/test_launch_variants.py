"""A config file only an opt-in launch variant names (`--use_deepspeed --deepspeed_config_file ...` beside a default
launch of the same script without them) configures an option: its findings, and the DeepSpeed adoption priced from
them, are optional (analyzer/context/launch_variants.py, round 18 verdicts V2)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TRAIN = ("import argparse\nimport torch\n\nparser = argparse.ArgumentParser()\nparser.add_argument('--lr', type=float)\n"
         "args = parser.parse_args()\nmodel = torch.nn.Linear(2, 2).cuda()\n")
ZERO = '{\n  "bf16": {"enabled": true},\n  "zero_optimization": {"stage": 2}\n}\n'
DEFAULT = '#!/bin/bash\naccelerate launch --mixed_precision="bf16" scripts/train.py --lr 1e-4\n'
WITH_DS = ("#!/bin/bash\naccelerate launch --use_deepspeed --deepspeed_config_file config/zero2.json "
           '--mixed_precision="bf16" scripts/train.py --lr 1e-4\n')


def _run(root, files):
    write_tree(root, {"scripts/train.py": TRAIN, "config/zero2.json": ZERO, **files})
    report = analyze(root, AnalyzeOptions(jobs=1))
    zero = [f for f in report.findings if f.path == "config/zero2.json"]
    deepspeed = [i for i in report.effort.items if i.rule == "adoption:deepspeed"]
    return zero, deepspeed


def test_a_config_only_an_opt_in_launch_variant_names_is_optional(tmp_path):
    zero, deepspeed = _run(tmp_path, {"scripts/train.sh": DEFAULT, "scripts/train_ds.sh": WITH_DS})
    assert zero and all(f.reach == "optional" and not f.counted for f in zero)
    assert "`--use_deepspeed`" in zero[0].reach_reason and "scripts/train.sh launches the same script" in zero[0].reach_reason
    assert [i.bucket for i in deepspeed] == ["optional"]


def test_a_config_every_launch_or_the_code_uses_stays_required(tmp_path):
    only = _run(tmp_path / "only", {"scripts/train_ds.sh": WITH_DS})  # no launch without the flag
    both = _run(tmp_path / "both", {"scripts/train.sh": WITH_DS.replace("zero2.json", "other.json"),
                                    "scripts/train_ds.sh": WITH_DS})  # the other launch passes the flag too
    named = _run(tmp_path / "named", {"scripts/train.sh": DEFAULT, "scripts/train_ds.sh": WITH_DS,
                                      "scripts/train.py": TRAIN + "DS_CONFIG = 'config/zero2.json'\n"})
    for zero, deepspeed in (only, both, named):
        assert zero and all(f.reach == "runs" for f in zero)
        assert "required" in [i.bucket for i in deepspeed]
