"""`python -m torch.distributed.launch` at a torch 2 target launching a script that parses only `--local_rank`
(domains/launch_ranks.py): from torch 2.0 the launcher passes `--local-rank=N`, which that parser rejects, so DST040's
"keep the launcher" is wrong there (scout 14: InternImage's dist_test.sh and segmentation/test.py:99). The finding
sits on the `python -m` line, not on the `PYTHONPATH=... \\` line before it."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.domains.launch_ranks import LaunchFacts, _resolve, doc_launch_findings, rank_launch_findings

from tests.helpers import write_tree

DIST_TEST = """#!/usr/bin/env bash
CONFIG=$1
GPUS=$3
PYTHONPATH="$(dirname $0)/..":$PYTHONPATH \\
python -m torch.distributed.launch --nproc_per_node=$GPUS --master_port=$PORT \\
    $(dirname "$0")/test.py $CONFIG --launcher pytorch ${@:4}
"""
UNDERSCORED = """import argparse
parser = argparse.ArgumentParser()
parser.add_argument('config')
parser.add_argument('--launcher', default='none')
parser.add_argument('--local_rank', type=int, default=0)
args = parser.parse_args()
"""


def _launches(root) -> dict[str, object]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.path: f for f in report.findings if f.rule == "DST040"}


def test_a_launch_of_a_script_parsing_only_local_rank_fails_at_torch_2(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "segmentation/dist_test.sh": DIST_TEST,
        "segmentation/test.py": UNDERSCORED,
        "detection/dist_test.sh": DIST_TEST.replace("GPUS=$3", "GPUS=$2"),
        "detection/test.py": UNDERSCORED.replace("'--local_rank',", "'--local-rank', '--local_rank',"),
        # both spellings, each in its own add_argument (round 15: PixArt-alpha train_controlnet.py:145-146)
        "controlnet/dist_test.sh": DIST_TEST.replace("GPUS=$3", "GPUS=$4"),
        "controlnet/test.py": UNDERSCORED.replace("parser.add_argument('--local_rank',",
                                                  "parser.add_argument('--local-rank', type=int, default=-1)\n"
                                                  "parser.add_argument('--local_rank',"),
        "tools/dist_train.sh": DIST_TEST.replace("launch ", "launch --use_env ").replace("test.py", "train.py"),
        "tools/train.py": UNDERSCORED,
    })
    found = _launches(tmp_path)
    failing = found["segmentation/dist_test.sh"]
    assert failing.line == 5 and failing.snippet.startswith("python -m torch.distributed.launch")
    assert failing.severity == "medium" and failing.migration == "rewrite" and failing.counted
    assert "segmentation/test.py:5" in failing.message.en and "unrecognized arguments" in failing.message.en
    assert "torchrun" in failing.replacement.en and '"--local-rank", "--local_rank"' in failing.replacement.en
    for kept in ("detection/dist_test.sh", "controlnet/dist_test.sh", "tools/dist_train.sh"):  # the alias declared; LOCAL_RANK
        assert found[kept].line == 5 and found[kept].severity == "info" and "Keep the launcher" in found[kept].replacement.en


def test_launch_scripts_of_one_entry_point_fold_into_one_finding(tmp_path):
    """Round 38 (VideoMAE): twenty pretrain.sh/finetune.sh launch the same two entry points, each declaring only
    `--local_rank`: one finding per entry point (the fix is one line of its argparse), every launch line a site, the
    README's launch of it too; a launch of an entry point declaring the alias stays its own info finding."""
    launch = "OMP_NUM_THREADS=1 python -m torch.distributed.launch --nproc_per_node=8 \\\n    run_pretraining.py --lr 1e-3\n"
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "README.md": "```bash\npython -m torch.distributed.launch --nproc_per_node=8 run_pretraining.py\n```\n",
        "scripts/k400/pretrain.sh": launch,
        "scripts/ssv2/pretrain.sh": "# ssv2\n" + launch,
        "scripts/ssv2/finetune.sh": launch.replace("run_pretraining.py", "run_finetuning.py"),
        "scripts/ssv2/alias.sh": launch.replace("run_pretraining.py", "run_alias.py"),
        "run_pretraining.py": UNDERSCORED,
        "run_finetuning.py": UNDERSCORED,
        "run_alias.py": UNDERSCORED.replace("'--local_rank',", "'--local-rank', '--local_rank',"),
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = sorted((f for f in report.findings if f.rule == "DST040"), key=lambda f: f.path)
    assert [(f.path, f.line, f.severity) for f in found] == [
        ("scripts/k400/pretrain.sh", 1, "medium"), ("scripts/ssv2/alias.sh", 1, "info"),
        ("scripts/ssv2/finetune.sh", 1, "medium")]
    pretraining = found[0]
    assert sorted(pretraining.sites) == ["README.md:2", "scripts/k400/pretrain.sh:1", "scripts/ssv2/pretrain.sh:2"]
    assert "run_pretraining.py:5" in pretraining.message.en and found[2].sites == []


def test_a_torch_1_target_keeps_the_launcher():
    """The underscored argument is what torch 1.x's launcher passes: nothing to rebuild there."""
    facts = [LaunchFacts("dist_test.sh", rank_launches=[(5, "test.py")]), LaunchFacts("test.py", underscored_rank=5)]
    findings = [object()]  # not read: the target decides first
    assert rank_launch_findings(findings, facts, "1.11.0", factory=None) is findings


def test_the_script_word_resolves_beside_the_launcher_or_from_the_root():
    declared = {"tools/test.py": 9, "train.py": 3}
    assert _resolve("tools/dist_test.sh", '$(dirname "$0")/test.py', declared) == "tools/test.py"
    assert _resolve("tools/dist_test.sh", "`dirname $0`/test.py", declared) == "tools/test.py"
    assert _resolve("tools/dist_test.sh", "tools/test.py", declared) == "tools/test.py"  # run from the root
    assert _resolve("scripts/run.sh", "train.py", declared) == "train.py"
    assert _resolve("scripts/run.sh", "$SCRIPT_DIR/train.py", declared) is None  # only the shell knows
    assert _resolve("tools/dist_test.sh", "tools/other.py", declared) is None


README = """# Training

Run it on one node (prose naming python -m torch.distributed.launch is no command):

```
python -m torch.distributed.launch --nproc_per_node=8 main_train.py --arch vit_small \\
    --data_path /path/to/train
```

```bash
python -m torch.distributed.launch --nproc_per_node=8 main_train.py --arch vit_small
python -m torch.distributed.launch --nproc_per_node=8 eval_alias.py --data_path /path/to/val
python -m torch.distributed.launch --use_env --nproc_per_node=8 main_train.py
```
"""


def test_a_readme_launch_of_a_script_parsing_only_local_rank_is_reported_on_the_readme(tmp_path):
    """Round 19 (dino, V10): the README's `python -m torch.distributed.launch ... main_dino.py`, whose parser declares
    only `--local_rank`; no shell script holds the launch, so nothing was said."""
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "README.md": README,
        "main_train.py": UNDERSCORED,
        "eval_alias.py": UNDERSCORED.replace("'--local_rank',", "'--local-rank', '--local_rank',"),
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.rule == "DST040"]
    # one finding for the script, its two launches its sites; not the alias's script, not the --use_env launch
    assert [(f.path, f.line) for f in found] == [("README.md", 6)]
    assert found[0].sites == ["README.md:6", "README.md:11"]
    failing = found[0]
    assert failing.severity == "medium" and failing.migration == "rewrite" and failing.counted
    assert "main_train.py:5" in failing.message.en and "torchrun" in failing.replacement.en
    assert failing.snippet.startswith("python -m torch.distributed.launch --nproc_per_node=8 main_train.py")


def test_a_readme_launch_at_a_torch_1_target_or_of_an_unknown_script_says_nothing():
    facts = [LaunchFacts("README.md", doc_launches=[(3, "train.py", "python -m torch.distributed.launch train.py"),
                                                   (4, "other.py", "python -m torch.distributed.launch other.py")]),
             LaunchFacts("train.py", underscored_rank=5)]
    assert doc_launch_findings(facts, "1.13.1", factory=None, context=None) == []
    assert doc_launch_findings(facts[:1], "2.1.0", factory=None, context=None) == []
