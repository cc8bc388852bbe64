"""A DeepSpeed config only an alternative README launch passes is optional (analyzer/context/readme_alternatives.py,
round 21 V5, stanford_alpaca): the README's default `torchrun train.py --fsdp ...` comes first, the "Addressing OOM"
launch adds `--deepspeed configs/offload.json`, and the project neither declares nor imports deepspeed. Not so where
the project declares deepspeed, where the config is the only launch, or where a shell launcher names it too."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.readme_alternatives import readme_alternative_configs
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

DEFAULT = ("torchrun --nproc_per_node=4 --master_port=<your_random_port> train.py \\\n"
           "    --model_name_or_path <your_path> \\\n    --fsdp \"full_shard auto_wrap\" \\\n    --tf32 True\n")
ALTERNATIVE = ("torchrun --nproc_per_node=4 --master_port=<your_random_port> train.py \\\n"
               "    --model_name_or_path <your_path> \\\n    --deepspeed \"./configs/offload.json\" \\\n    --tf32 True\n")
README = ("# alpaca\n\n```bash\npip install -r requirements.txt\n```\n\n## Fine-tuning\n\n```bash\n" + DEFAULT
          + "```\n\n### Addressing OOM\n\n```bash\npip install deepspeed\n" + ALTERNATIVE + "```\n")
CONFIG = ('{\n  "zero_optimization": {\n    "stage": 3,\n    "offload_optimizer": {"device": "cpu"}\n  },\n'
          '  "train_micro_batch_size_per_gpu": "auto"\n}\n')
TRAIN = ("import transformers\n\n\ndef train():\n    parser = transformers.HfArgumentParser((transformers.TrainingArguments,))\n"
         "    (args,) = parser.parse_args_into_dataclasses()\n"
         "    model = transformers.AutoModelForCausalLM.from_pretrained('x')\n"
         "    transformers.Trainer(model=model, args=args).train()\n\n\nif __name__ == '__main__':\n    train()\n")
PATHS = ["train.py", "configs/offload.json", "requirements.txt", "README.md"]


class Facts:
    def __init__(self, refs=()):
        self.config_refs = list(refs)


def test_the_config_of_an_alternative_readme_launch_is_optional():
    found = readme_alternative_configs(README, PATHS, [Facts()], frozenset({"torch", "transformers"}))
    assert list(found) == ["configs/offload.json"]
    assert "README.md:20" in found["configs/offload.json"][0][2] and "README.md:10" in found["configs/offload.json"][0][2]


def test_a_declared_deepspeed_a_lone_launch_or_a_config_named_elsewhere_stays():
    assert readme_alternative_configs(README, PATHS, [Facts()], frozenset({"deepspeed"})) == {}
    lone = "# x\n\n```bash\n" + ALTERNATIVE + "```\n"
    assert readme_alternative_configs(lone, PATHS, [Facts()], frozenset()) == {}  # the only launch is the default
    after = "# x\n\n```bash\n" + ALTERNATIVE + DEFAULT + "```\n"
    assert readme_alternative_configs(after, PATHS, [Facts()], frozenset()) == {}  # DeepSpeed first: the default
    assert readme_alternative_configs(README, PATHS, [Facts(["configs/offload.json"])], frozenset()) == {}
    other = README.replace("train.py \\\n    --model_name_or_path <your_path> \\\n    --deepspeed",
                           "other.py \\\n    --model_name_or_path <your_path> \\\n    --deepspeed")
    assert readme_alternative_configs(other, PATHS, [Facts()], frozenset()) == {}  # no default launch of other.py


def _deepspeed_item(report):
    return [(bucket, item) for bucket in ("required", "optional") for item in getattr(report.effort, bucket, [])
            if item.rule == "adoption:deepspeed"]


def test_the_alternative_deepspeed_adoption_is_optional_and_a_declared_one_required(tmp_path):
    files = {"README.md": README, "requirements.txt": "torch\ntransformers>=4.28.1\n", "train.py": TRAIN,
             "configs/offload.json": CONFIG}
    report = analyze(write_tree(tmp_path / "alt", files), AnalyzeOptions(jobs=1))
    config = [f for f in report.findings if f.path == "configs/offload.json" and f.rule.startswith("DST")]
    assert config and all(f.reach == "optional" and not f.counted for f in config)
    assert "alternative launch" in (config[0].reach_reason or "")
    declared = analyze(write_tree(tmp_path / "dec", {**files, "requirements.txt": "torch\ntransformers\ndeepspeed\n"}),
                       AnalyzeOptions(jobs=1))
    kept = [f for f in declared.findings if f.path == "configs/offload.json" and f.rule.startswith("DST")]
    assert kept and all(f.reach == "runs" and f.counted for f in kept)
