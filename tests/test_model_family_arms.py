"""LLaVA-style builders pick a model family by a substring of one string (`if 'mpt' in model_name.lower():`). Where the
string is a module constant assigned once (analyzer/context/literal_flags.py: substring_test), the arms no value of it
takes are `optional`, and the reason names the test; a class only those arms build is reached only through them."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

BUILDER = '''import torch
from flash_attn import flash_attn_func

MODEL_NAME = "liuhaotian/llava-v1.5-7b"


def build(x):
    if 'llava' in MODEL_NAME.lower():
        if 'mpt' in MODEL_NAME.lower():
            return flash_attn_func(x, x, x)
        return torch.nn.functional.scaled_dot_product_attention(x, x, x)
    return x


print(build(torch.ones(1)))
'''


def _attention(tmp_path, name: str, code: str) -> tuple[str, str]:
    write_tree(tmp_path / name, {"model.py": code})
    report = analyze(tmp_path / name, AnalyzeOptions(jobs=1))
    finding, = [f for f in report.findings if f.rule == "ATT001"]
    return finding.reach, finding.reach_reason or ""


def test_an_arm_only_a_substring_the_constant_lacks_takes_is_optional(tmp_path):
    reach, reason = _attention(tmp_path, "lacks", BUILDER)
    assert reach == "optional"
    assert 'MODEL_NAME = "liuhaotian/llava-v1.5-7b"' in reason and "containing 'mpt' in any case" in reason


def test_a_constant_holding_the_substring_or_an_unknown_value_keeps_the_arm(tmp_path):
    holds = BUILDER.replace('"liuhaotian/llava-v1.5-7b"', '"mosaicml/llava-MPT-7b"')
    assert _attention(tmp_path, "holds", holds)[0] == "runs"  # lower() folds MPT to mpt
    unknown = BUILDER.replace('MODEL_NAME = "liuhaotian/llava-v1.5-7b"', 'import os\nMODEL_NAME = os.environ["MODEL"]')
    assert _attention(tmp_path, "unknown", unknown)[0] == "runs"
    rebound = BUILDER.replace("print(build", "MODEL_NAME = input()\nprint(build")
    assert _attention(tmp_path, "rebound", rebound)[0] == "runs"  # a second binding: no value is known
    elsewhere = BUILDER + "\nimport sys\nsys.modules[__name__].MODEL_NAME = 'mpt-7b'\n"
    assert _attention(tmp_path, "elsewhere", elsewhere)[0] == "runs"


def test_prefix_and_suffix_tests_and_negations(tmp_path):
    prefix = BUILDER.replace("'mpt' in MODEL_NAME.lower()", "MODEL_NAME.startswith('mosaicml/')")
    reach, reason = _attention(tmp_path, "prefix", prefix)
    assert reach == "optional" and "starting with 'mosaicml/'" in reason
    assert _attention(tmp_path, "prefix_holds", prefix.replace("liuhaotian/", "mosaicml/"))[0] == "runs"
    suffix = BUILDER.replace("'mpt' in MODEL_NAME.lower()", "MODEL_NAME.endswith('-7b')")
    assert _attention(tmp_path, "suffix", suffix)[0] == "runs"  # the constant ends with -7b
    negated = BUILDER.replace("'mpt' in MODEL_NAME.lower()", "'llava' not in MODEL_NAME")
    reach, reason = _attention(tmp_path, "negated", negated)
    assert reach == "optional" and "not containing 'llava'" in reason
    tupled = BUILDER.replace("'mpt' in MODEL_NAME.lower()", "MODEL_NAME.startswith(('mpt', 'x'))")
    assert _attention(tmp_path, "tupled", tupled)[0] == "runs"  # a tuple of prefixes is not read


FAMILY = '''from flash_attn import flash_attn_func


class MptAttention:
    def __call__(self, x):
        return flash_attn_func(x, x, x)
'''

FAMILY_BUILDER = '''import torch
from family import MptAttention

MODEL_NAME = "liuhaotian/llava-v1.5-7b"


def build(x):
    if 'mpt' in MODEL_NAME.lower():
        return MptAttention()(x)
    return torch.nn.functional.scaled_dot_product_attention(x, x, x)


print(build(torch.ones(1)))
'''


def test_a_class_only_an_untaken_family_arm_builds_follows_the_arm(tmp_path):
    write_tree(tmp_path / "lacks", {"family.py": FAMILY, "model.py": FAMILY_BUILDER})
    report = analyze(tmp_path / "lacks", AnalyzeOptions(jobs=1))
    finding, = [f for f in report.findings if f.rule == "ATT001" and f.path.endswith("family.py")]
    assert finding.reach == "optional" and "'mpt'" in (finding.reach_reason or "")
    holds = FAMILY_BUILDER.replace("liuhaotian/llava-v1.5-7b", "mosaicml/mpt-7b")
    write_tree(tmp_path / "holds", {"family.py": FAMILY, "model.py": holds})
    report = analyze(tmp_path / "holds", AnalyzeOptions(jobs=1))
    finding, = [f for f in report.findings if f.rule == "ATT001" and f.path.endswith("family.py")]
    assert finding.reach == "runs"
