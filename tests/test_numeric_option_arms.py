"""Arms an option's number decides (round 20 V3, B1 C3, B2 class 1): `bits: int = field(default=16)` in a dataclass
HfArgumentParser parses, and in another file `if training_args.bits in [4, 8]:` / `load_in_8bit=training_args.bits
== 8`. Such an arm runs only where a shipped launcher or config gives the option a value it takes."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.switches import dataclass_field, option_value_test
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.phases import facts as phase_facts

from tests.helpers import write_tree

OBJECTS = frozenset({"args", "training_args"})

ARGS = '''from dataclasses import dataclass, field

import transformers


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="facebook/opt-125m")


@dataclass
class TrainingArguments(transformers.TrainingArguments):
    double_quant: bool = field(default=True)
    bits: int = field(default=16)
'''

TRAIN = '''import torch
import transformers
from transformers import BitsAndBytesConfig

from pkg.args import ModelArguments, TrainingArguments


def train():
    parser = transformers.HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_args_into_dataclasses()
    extra = {}
    if training_args.bits in [4, 8]:
        extra.update(
            dict(
                load_in_4bit=training_args.bits == 4,
                load_in_8bit=training_args.bits == 8,
                quantization_config=BitsAndBytesConfig(
                    load_in_4bit=training_args.bits == 4,
                    load_in_8bit=training_args.bits == 8,
                    bnb_4bit_compute_dtype=torch.bfloat16,
                    bnb_4bit_use_double_quant=training_args.double_quant,
                ),
            )
        )
    return transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path, **extra)


if __name__ == "__main__":
    train()
'''

LAUNCH = "#!/bin/bash\ndeepspeed pkg/train.py \\\n    --model_name_or_path lmsys/vicuna-7b \\\n    {flags}--output_dir ./out\n"


def _quantised(tmp_path, files: dict[str, str]) -> dict[str, tuple[str, str, list[str]]]:
    """symbol → (reach, reason, sites) of the DEP032 findings of a project shaped like LLaVA-NeXT's training."""
    tree = {"pkg/__init__.py": "", "pkg/args.py": ARGS, "pkg/train.py": TRAIN,
            "requirements.txt": "transformers==4.40.0\nbitsandbytes==0.41.0\n", **files}
    write_tree(tmp_path, tree)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = {}
    for f in report.findings:
        if f.rule == "DEP032":
            assert f.symbol not in found, f"{f.symbol} counted twice"
            found[f.symbol] = (f.reach, f.reach_reason or "", list(f.sites or []))
    return found


EIGHT = "load_in_8bit=training_args.bits == 8"
DOUBLE = "bnb_4bit_use_double_quant=training_args.double_quant"


def test_a_dataclass_number_default_no_launcher_changes_makes_the_quantised_arm_optional(tmp_path):
    found = _quantised(tmp_path, {"scripts/train.sh": LAUNCH.format(flags="--bf16 True ")})
    assert found[EIGHT][0] == "optional" and found[DOUBLE][0] == "optional"
    reason = found[EIGHT][1]
    assert "`--bits` is 16 unless given (pkg/args.py:14)" in reason and "no launch script passes 4, 8" in reason
    assert "if training_args.bits in [4, 8]:" in reason


def test_a_launcher_passing_the_value_keeps_the_arm_and_one_setting_passed_twice_is_one_item(tmp_path):
    found = _quantised(tmp_path, {"scripts/train.sh": LAUNCH.format(flags="--bits 8 ")})
    assert found[EIGHT][0] == "runs" and found[DOUBLE][0] == "runs"
    # the kwarg and its copy inside BitsAndBytesConfig(...), an argument of the same dict(...): one finding
    assert found[EIGHT][2] == ["pkg/train.py:16", "pkg/train.py:19"]


def test_a_launcher_passing_another_value_turns_on_only_the_arms_that_take_it(tmp_path):
    found = _quantised(tmp_path, {"scripts/train.sh": LAUNCH.format(flags="--bits=4 ")})
    assert found[DOUBLE][0] == "runs"  # `bits in [4, 8]` holds for 4
    assert found[EIGHT][0] == "optional"  # `bits == 8` does not
    assert "no launch script passes 8; line 16: load_in_8bit=training_args.bits == 8" in found[EIGHT][1]


def test_a_config_naming_the_option_may_set_the_number(tmp_path):
    found = _quantised(tmp_path / "set", {"configs/train.yaml": "model_name_or_path: x\nbits: 8\n"})
    assert found[EIGHT][0] == "runs" and found[DOUBLE][0] == "runs"  # a number a config sets is out of sight
    found = _quantised(tmp_path / "unset", {"configs/train.yaml": "model_name_or_path: x\nbf16: true\n"})
    assert found[EIGHT][0] == "optional" and found[DOUBLE][0] == "optional"


def test_copies_in_separate_calls_stay_separate_items(tmp_path):
    separate = TRAIN.replace("quantization_config=BitsAndBytesConfig(", "quantization_config=None,\n            )\n"
                             "        )\n        config = BitsAndBytesConfig(\n            x=dict(")
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/args.py": ARGS, "pkg/train.py": separate,
                          "scripts/train.sh": LAUNCH.format(flags="--bits 8 ")})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    eights = [f for f in report.findings if f.rule == "DEP032" and f.symbol == EIGHT]
    assert len(eights) == 2 and not any(f.sites for f in eights)


def _node(code: str, kind: str):
    root = parsing.parse("python", code.encode())
    return next(n for n in parsing.walk(root, limit=1000) if n.type == kind)


def test_a_dataclass_field_number_default_is_read():
    assert dataclass_field(_node("bits: int = field(default=16)\n", "assignment")) == ("bits", "16", 1)
    assert dataclass_field(_node("fsdp_size: int = -1\n", "assignment")) == ("fsdp_size", "-1", 1)
    assert dataclass_field(_node("lr: float = 2e-5\n", "assignment")) == ("lr", "2e-5", 1)
    assert dataclass_field(_node("size: int = other_size\n", "assignment")) is None
    assert dataclass_field(_node("size: int = -x\n", "assignment")) is None


def test_a_test_of_an_option_for_numbers_is_an_arm_and_a_negated_one_is_not():
    def read(text):
        return option_value_test(_node(f"if {text}:\n    pass\n", "comparison_operator"), OBJECTS)
    assert read("training_args.bits in [4, 8]") == ("bits", ("4", "8"))
    assert read("args.bits == 8") == ("bits", ("8",))
    assert read("8 == args.bits") == ("bits", ("8",))
    assert read("args.offset == -1") == ("offset", ("-1",))
    assert read("args.bits != 8") is None  # holds by default
    assert read("args.bits not in [4, 8]") is None
    assert read("model.bits == 8") is None  # no parsed command line


def _arms(code: str):
    root = parsing.parse("python", code.encode())
    captures = parsing.captures(parsing.query("python", phase_facts.QUERY), root)
    return phase_facts._option_value_arms(captures.get("condition", []) + captures.get("keyword_test", []))[0]


def test_a_keyword_passing_an_option_test_is_an_arm_only_on_lines_of_its_own():
    own = _arms("load(\n    path,\n    load_in_8bit=args.bits == 8,\n)\n")
    assert [(a[0], a[1], a[2], a[3]) for a in own] == [(3, 3, "bits", ("8",))]
    assert _arms("load(path.cuda(), load_in_8bit=args.bits == 8)\n") == []  # the line is the call's too


BUILDER = '''import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig


def load_pretrained_model(model_path, load_8bit=False, load_4bit=False):
    kwargs = {}
    if load_8bit:
        kwargs["load_in_8bit"] = True
    elif load_4bit:
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_use_double_quant=True,
        )
    return AutoModelForCausalLM.from_pretrained(model_path, **kwargs)
'''
CLI = '''import argparse

from pkg.builder import load_pretrained_model

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--load-8bit", action="store_true")
    parser.add_argument("--load-4bit", action="store_true")
    args = parser.parse_args()
    load_pretrained_model("x", args.load_8bit, args.load_4bit)
'''


def test_a_route_gap_behind_a_parameter_off_by_default_is_optional_unless_a_launcher_turns_it_on(tmp_path):
    """DEP032 is a feature (flag_rules): LLaVA-NeXT builder.py's `elif load_4bit:`, `--load-4bit` store_true."""
    def double_quant(root, files):
        write_tree(root, {"pkg/__init__.py": "", "pkg/builder.py": BUILDER, "pkg/cli.py": CLI, **files})
        report = analyze(root, AnalyzeOptions(jobs=1))
        return next((f.reach, f.reach_reason or "") for f in report.findings
                    if f.rule == "DEP032" and f.symbol == "bnb_4bit_use_double_quant=True")
    reach, reason = double_quant(tmp_path / "off", {})
    assert reach == "optional" and "`load_4bit=False` by default" in reason and "elif load_4bit:" in reason
    reach, reason = double_quant(tmp_path / "on", {"scripts/serve.sh": "python -m pkg.cli --load-4bit\n"})
    assert reach == "runs" and "`--load-4bit` passed by scripts/serve.sh" in reason


def test_a_route_gap_inside_a_try_is_no_fallback(tmp_path):
    """DEP032 is a feature for switches only, not for guards' fallbacks (unsloth's studio trainer: the `optim` default
    "adamw_8bit" inside the training `try ... except Exception`, which only reports the failure)."""
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/trainer.py": '''import logging

from transformers import TrainingArguments


def run(settings):
    try:
        optim_value = settings.get("optim", "adamw_8bit")
        return TrainingArguments(output_dir="out", optim=optim_value)
    except Exception as e:
        logging.error("training failed: %s", e)
        raise


if __name__ == "__main__":
    run({})
'''})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert [f.reach for f in report.findings if f.rule == "DEP032" and f.symbol == "adamw_8bit"] == ["runs"]
