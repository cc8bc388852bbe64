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


README = (
    "# alpaca-like\n\n```bash\npip install -r requirements.txt\n```\n\n## Fine-tuning\n\n```bash\n"
    "torchrun --nproc_per_node=4 --master_port=<your_random_port> llava/train/train_mem.py \\\n"
    "    --model_name_or_path <your_path_to_llama> \\\n"
    "    --fsdp \"full_shard auto_wrap\" \\\n"
    "    --tf32 True\n```\n\nOr with compile:\n\n```bash\n"
    "accelerate launch llava/train/train_dpo.py --tf32=true --torch_compile\n```\n"
)


def test_readme_launch_lines_are_read_for_the_switches_with_each_line_a_site(tmp_path):
    found = _findings(tmp_path, {**SCRIPTS, "README.md": README, "requirements.txt": "torch\ntransformers\n"})
    tf32 = [f for f in found if f.rule == "PRC047"]
    assert len(tf32) == 1 and tf32[0].path == "README.md" and tf32[0].counted  # placeholders are no redirections
    assert sorted(tf32[0].sites) == ["README.md:13", "README.md:19"]
    assert [(f.path, f.line) for f in found if f.rule == "DEV705"] == [("README.md", 19)]


def test_readme_switches_off_in_a_python_block_in_prose_or_echoed_are_not_read(tmp_path):
    readme = ("# x\n\n```bash\ntorchrun llava/train/train_mem.py --tf32 False --torch_compile False\n"
              "echo torchrun llava/train/train_mem.py --tf32 True\n```\n\n```python\n"
              "# torchrun llava/train/train_mem.py --tf32 True\n```\n\n"
              "Pass `--tf32 True` to torchrun llava/train/train_mem.py on Ampere.\n")
    assert _findings(tmp_path, {**SCRIPTS, "README.md": readme}) == []
