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
        "scripts/torchrun.sh": "NCCL_P2P_DISABLE=1 torchrun --nproc_per_node=8 train.py\n",
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


def test_a_torchrun_line_with_only_its_own_options_asks_for_no_work(tmp_path):
    """Round 28 A1 C4: `torchrun --nnodes=1 --nproc_per_node=1 --master_port=N -m pkg.train` runs on the NPUs as written
    (its message already said so): 0 h, listed and not counted. A device variable on the line, torchrun's CUDA-only
    `--nproc_per_node gpu`, an option torchrun does not have or an expansion that may hold any option keeps the hours."""
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "train.py": "import torch\nprint(torch.ones(1))\n",
        "pkg/__init__.py": "",
        "pkg/train.py": "import torch\nprint(torch.ones(1))\n",
        "plain.sh": "torchrun --nnodes=1 --nproc_per_node=1 --master_port=25679 -m pkg.train --config a.yaml\n",
        "spaced.sh": "python -m torch.distributed.run --nproc-per-node 2 --rdzv_backend c10d --standalone train.py --lr 1\n",
        "pythonpath.sh": "PYTHONPATH=. torchrun --nproc_per_node=4 train.py --cuda\n",
        "visible.sh": "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node=2 train.py\n",
        "gpu_count.sh": "torchrun --nproc_per_node gpu train.py\n",
        "unknown.sh": "torchrun --gpus 2 train.py\n",
        "expanded.sh": "torchrun ${DISTRIBUTED_ARGS[@]} train.py --lr 1\n",
    })
    found = _launches(tmp_path)
    for plain in ("plain.sh", "spaced.sh", "pythonpath.sh"):
        assert found[plain].effort_hours.high == 0 and not found[plain].counted, plain
        assert "as written" in found[plain].message.en
    for asks in ("visible.sh", "gpu_count.sh", "unknown.sh", "expanded.sh"):
        assert found[asks].effort_hours.high > 0 and found[asks].counted, asks
        assert "as written" not in found[asks].message.en
