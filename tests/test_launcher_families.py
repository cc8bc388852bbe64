"""DST040 per launcher family (knowledge/distributed/rules.toml variants accelerate-launch, deepspeed-launcher):
`accelerate launch` (accelerate >= 0.21.0 writes --gpu_ids to ASCEND_RT_VISIBLE_DEVICES, counts NPUs for
--num_processes) and `deepspeed` (>= 0.14.2: its accelerator sets ASCEND_RT_VISIBLE_DEVICES from --include/--num_gpus)
run on Ascend as written, so their item names their own flags and asks for no work (not counted); torchrun's keeps
--nproc_per_node and its hours (round 24 A2 C5: `accelerate launch` was told torchrun's flag and counted)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree


def _launches(root) -> dict[str, object]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.path: f for f in report.findings if f.rule == "DST040"}


def test_each_launcher_gets_its_own_flags_and_only_torchrun_asks_for_work(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\naccelerate\ndeepspeed\n",
        "train.py": "import torch\nprint(torch.ones(1))\n",
        "scripts/accelerate.sh": "accelerate launch --multi_gpu --num_processes 8 --gpu_ids 0,1,2,3,4,5,6,7 train.py\n",
        "scripts/deepspeed.sh": "deepspeed --include localhost:0,1 train.py --deepspeed ds.json\n",
        "scripts/torchrun.sh": "torchrun --nproc_per_node=8 train.py\n",
    })
    found = _launches(tmp_path)
    accelerate, deepspeed, torchrun = (found[f"scripts/{n}.sh"] for n in ("accelerate", "deepspeed", "torchrun"))
    assert "--num_processes" in accelerate.replacement.en and "--nproc_per_node" not in accelerate.message.en
    assert "ASCEND_RT_VISIBLE_DEVICES" in accelerate.message.en
    assert "--include" in deepspeed.message.en and "--nproc_per_node" not in deepspeed.message.en
    assert "ASCEND_RT_VISIBLE_DEVICES" in deepspeed.message.en
    assert (accelerate.effort_hours.high, deepspeed.effort_hours.high) == (0, 0)
    assert not accelerate.counted and not deepspeed.counted
    assert "--nproc_per_node" in torchrun.replacement.en and torchrun.effort_hours.high > 0 and torchrun.counted
