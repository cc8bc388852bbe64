"""A project's own attention registry keyed by transformers' names (nanotron's ALL_ATTENTION_FUNCTIONS, round-6 B33,
A58): its "flash_attention_2" selects the project's flash_attn_func entry, which nothing routes to the NPU, so the
transformers-choice rule (ATT030, "transformers routes it to npu_fusion_attention") is wrong there; a value that goes
into transformers' from_pretrained keeps ATT030."""

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

REGISTRY = (
    "from flash_attn import flash_attn_func\n"
    "import torch\n\n\n"
    "def flash_attention_forward(q, k, v):\n"
    "    return flash_attn_func(q, k, v)\n\n\n"
    "def sdpa_attention_forward(q, k, v):\n"
    "    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n\n\n"
    "ALL_ATTENTION_FUNCTIONS = {\n"
    "    \"flash_attention_2\": flash_attention_forward,\n"
    "    \"sdpa\": sdpa_attention_forward,\n"
    "}\n"
)
CONFIG = (
    "from pkg.attention import ALL_ATTENTION_FUNCTIONS\n\n"
    "DEFAULT_ATTENTION_IMPLEMENTATION = \"flash_attention_2\"\n"
)
CONVERT = (
    "from transformers import AutoModelForCausalLM\n\n"
    "model = AutoModelForCausalLM.from_pretrained(\"x\", attn_implementation=\"flash_attention_2\")\n"
)


def _rules(tmp_path, files):
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    return {(f.path, f.line): f.rule for f in report.findings if f.rule in {"ATT030", "ATT033"}}


def test_a_key_of_the_projects_own_registry_and_its_selections_are_not_transformers_choices(tmp_path):
    found = _rules(tmp_path, {"pkg/__init__.py": "", "pkg/attention.py": REGISTRY, "pkg/config.py": CONFIG,
                              "convert.py": CONVERT})
    assert found == {
        ("pkg/attention.py", 14): "ATT033",  # the registry's key
        ("pkg/config.py", 3): "ATT033",  # the default selects the registry's entry
        ("convert.py", 3): "ATT030",  # from_pretrained: transformers' own choice
    }


def test_without_a_registry_the_default_stays_a_transformers_choice(tmp_path):
    found = _rules(tmp_path, {"pkg/__init__.py": "", "pkg/config.py": CONFIG.replace(
        "from pkg.attention import ALL_ATTENTION_FUNCTIONS\n\n", ""), "convert.py": CONVERT})
    assert found == {("pkg/config.py", 1): "ATT030", ("convert.py", 3): "ATT030"}


# round 20 (A2 rows 61, 84; A1 row 9): LLaVA-NeXT's defaults go straight into transformers' from_pretrained while the
# project also ships a registry keyed "flash_attention_2" (a vendored modeling file's class table): a default that a
# loader receives is transformers' choice (ATT030), whatever registry the project has.
LOADER = (
    "from transformers import AutoModelForCausalLM\n\n\n"
    "def load_pretrained_model(path, attn_implementation=\"flash_attention_2\"):\n"
    "    return AutoModelForCausalLM.from_pretrained(path, attn_implementation=attn_implementation)\n"
)
FIELDS = (
    "from dataclasses import dataclass, field\n"
    "import transformers\n\n\n"
    "@dataclass\n"
    "class TrainingArguments(transformers.TrainingArguments):\n"
    "    attn_implementation: str = field(default=\"flash_attention_2\", metadata={\"help\": \"attention\"})\n\n\n"
    "def train(training_args):\n"
    "    return transformers.AutoModelForCausalLM.from_pretrained(\n"
    "        \"x\", attn_implementation=training_args.attn_implementation)\n"
)
PLAIN_FIELD = FIELDS.replace("field(default=\"flash_attention_2\", metadata={\"help\": \"attention\"})", "\"flash_attention_2\"")
OWN_CONFIG = (
    "from pkg.config_class import ModelConfig\n\n\n"
    "def build(attn_implementation=\"flash_attention_2\"):\n"
    "    return ModelConfig(attn_implementation=attn_implementation)\n"
)
UNREAD_FIELD = FIELDS.replace("attn_implementation=training_args.attn_implementation", "torch_dtype=training_args.dtype")
SHIPPED = {"pkg/__init__.py": "", "pkg/attention.py": REGISTRY}


def test_a_parameter_default_a_loader_receives_is_a_transformers_choice_beside_a_registry(tmp_path):
    assert _rules(tmp_path, {**SHIPPED, "pkg/builder.py": LOADER})[("pkg/builder.py", 4)] == "ATT030"


def test_a_class_field_a_loader_receives_is_a_transformers_choice_beside_a_registry(tmp_path):
    assert _rules(tmp_path, {**SHIPPED, "pkg/train.py": FIELDS})[("pkg/train.py", 7)] == "ATT030"


def test_a_plain_class_field_a_loader_receives_is_reported(tmp_path):
    assert _rules(tmp_path, {**SHIPPED, "pkg/train.py": PLAIN_FIELD})[("pkg/train.py", 7)] == "ATT030"


def test_a_default_for_the_projects_own_config_still_selects_the_registry(tmp_path):
    assert _rules(tmp_path, {**SHIPPED, "pkg/build.py": OWN_CONFIG})[("pkg/build.py", 4)] == "ATT033"


def test_a_field_no_loader_reads_still_selects_the_registry(tmp_path):
    assert _rules(tmp_path, {**SHIPPED, "pkg/train.py": UNREAD_FIELD})[("pkg/train.py", 7)] == "ATT033"
