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
