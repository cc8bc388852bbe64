"""Hugging Face TrainingArguments switches in launch scripts that do not hold on Ascend (round 20 verdicts V4,
LLaVA-NeXT): `--tf32 True` raises in TrainingArguments on the NPU (PRC047), `--torch_compile True` makes the Trainer
compile (DEV705). Many scripts sharing a switch are one item with every script as a site."""

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

FINETUNE = (
    "#!/bin/bash\n"
    "ACCELERATE_CPU_AFFINITY=1 torchrun --nproc_per_node=8 llava/train/train_mem.py \\\n"
    "    --deepspeed scripts/zero3.json \\\n"
    "    --bf16 True \\\n"
    "    --tf32 True \\\n"
    "    --torch_compile True \\\n"
    "    --torch_compile_backend \"inductor\"\n"
)
DPO = (
    "#!/bin/bash\n"
    "deepspeed llava/train/train_dpo.py \\\n"
    "    --tf32 True \\\n"
    "    --output_dir out\n"
)
TRAIN = "import transformers\n\nparser = transformers.HfArgumentParser((transformers.TrainingArguments,))\nargs = parser.parse_args_into_dataclasses()\n"
SCRIPTS = {"llava/__init__.py": "", "llava/train/__init__.py": "", "llava/train/train_mem.py": TRAIN,
           "llava/train/train_dpo.py": TRAIN}
OFF = "#!/bin/bash\ntorchrun llava/train/train_mem.py --tf32 False --torch_compile False\n"


def _findings(tmp_path, files):
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    return [f for f in report.findings if f.rule in {"PRC047", "DEV705"}]


def test_a_switch_shared_by_scripts_is_one_item_listing_each_script(tmp_path):
    found = _findings(tmp_path, {**SCRIPTS, "scripts/train/finetune.sh": FINETUNE, "scripts/train/dpo.sh": DPO})
    tf32 = [f for f in found if f.rule == "PRC047"]
    assert len(tf32) == 1 and tf32[0].severity == "high" and tf32[0].counted
    assert sorted(tf32[0].sites) == ["scripts/train/dpo.sh:3", "scripts/train/finetune.sh:5"]
    compile_ = [f for f in found if f.rule == "DEV705"]
    assert [(f.path, f.line) for f in compile_] == [("scripts/train/finetune.sh", 6)]


def test_switches_set_false_are_not_reported(tmp_path):
    assert _findings(tmp_path, {**SCRIPTS, "scripts/train/off.sh": OFF}) == []
