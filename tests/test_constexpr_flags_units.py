"""analyzer/context/constexpr_flags.py on parsed snippets: which tl.constexpr flags are off unless a caller turns them
on (nanotron's ring_attention_lucidrain.py SOFTCLAMP_QK_SIM), each expectation read from the module's docstring."""

import pytest
from ascend_feasibility.analyzer.context import constexpr_flags as cf
from ascend_feasibility.analyzer.reading import parsing

from tests.snippets import node_at

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def _fwd_kernel(Q, SOFTCLAMP_QK_SIM: tl.constexpr, BLOCK: tl.constexpr = 64, plain=1, typed: int = 2):
    if SOFTCLAMP_QK_SIM:
        pass


def flash_attn_forward(q, softclamp_qk_sim=False):
    _fwd_kernel[grid](q, SOFTCLAMP_QK_SIM=softclamp_qk_sim)


class Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, softclamp_qk_sim=False):
        ctx.softclamp_qk_sim = softclamp_qk_sim
        return flash_attn_forward(q, softclamp_qk_sim=ctx.softclamp_qk_sim)
'''


def kernel():
    node = node_at(KERNEL, "def _fwd_kernel")
    while node.type != "function_definition":
        node = node.parent
    return node


@pytest.mark.parametrize("name, expected", [
    ("SOFTCLAMP_QK_SIM", True), ("BLOCK", True), ("plain", False), ("typed", False), ("Q", False), ("absent", False),
])
def test_constexpr_parameters_are_the_annotated_ones(name, expected):
    assert cf.is_constexpr_parameter(kernel(), name) is expected


def test_a_constexpr_annotation_may_be_spelled_in_full_or_with_spaces():
    code = "def k(A: triton.language.constexpr, B: tl . constexpr, C: tl.constexpr_like = 1):\n    pass\n"
    root = parsing.parse("python", code.encode())
    definition = root.named_children[0]
    assert cf.is_constexpr_parameter(definition, "A") and cf.is_constexpr_parameter(definition, "B")
    assert not cf.is_constexpr_parameter(definition, "C")


def test_a_function_without_parameters_has_no_constexpr():
    root = parsing.parse("python", b"lambda: 1\n")
    assert cf.is_constexpr_parameter(root.named_children[0].named_children[0], "A") is False


def sites(code: str):
    return cf.read_sites(parsing.parse("python", code.encode()).named_children[0])


def test_the_sites_are_defaults_keywords_and_assignments_by_name():
    found = cf.read_sites(node_at(KERNEL, "SOFTCLAMP_QK_SIM:"))
    kinds = {name: [(kind, parsing.text(value)) for kind, value in entries] for name, entries in found.items()}
    assert kinds["softclamp_qk_sim"] == [("default", "False"), ("default", "False"),
                                         ("keyword", "ctx.softclamp_qk_sim"), ("assignment", "softclamp_qk_sim")]
    assert kinds["SOFTCLAMP_QK_SIM"] == [("keyword", "softclamp_qk_sim")]
    assert kinds["BLOCK"] == [("default", "64")]
    assert kinds["plain"] == [("default", "1")] and kinds["typed"] == [("default", "2")]


def test_only_plain_and_attribute_targets_are_assignments():
    found = sites("a, b = 1, 2\nx[0] = 1\nself.flag = True\nflag = False\n")
    assert {name: [parsing.text(v) for _, v in entries] for name, entries in found.items()} == {"flag": ["True", "False"]}


def test_the_flag_is_off_with_a_false_default_and_pass_through_keywords_and_assignments():
    reason = cf.off_flag(cf.read_sites(node_at(KERNEL, "SOFTCLAMP_QK_SIM:")), "SOFTCLAMP_QK_SIM")
    assert reason == ("`SOFTCLAMP_QK_SIM` (tl.constexpr) is off unless set: `softclamp_qk_sim=False` by default "
                      "(line 11) and nothing in the file turns it on")


@pytest.mark.parametrize("turned_on", [
    "flash_attn_forward(q, softclamp_qk_sim=True)\n",    # a keyword with another value
    "softclamp_qk_sim = args.softclamp\n",                # an assignment of another value
    "ctx.softclamp_qk_sim = True\n",
    "def other(softclamp_qk_sim=True):\n    pass\n",     # a default that is not off
    "run(SOFTCLAMP_QK_SIM=enabled)\n",                    # the constexpr's own spelling passed another name
    "run(SOFTCLAMP_QK_SIM=self.other)\n",
])
def test_any_other_value_in_the_file_keeps_the_flag(turned_on):
    code = KERNEL + turned_on
    assert cf.off_flag(cf.read_sites(node_at(code, "SOFTCLAMP_QK_SIM:")), "SOFTCLAMP_QK_SIM") is None


@pytest.mark.parametrize("off", ["None", "0", "False"])
def test_off_values_passed_or_assigned_keep_it_off(off):
    code = KERNEL + f"flash_attn_forward(q, softclamp_qk_sim={off})\nsoftclamp_qk_sim = {off}\nx.softclamp_qk_sim = {off}\n"
    assert cf.off_flag(cf.read_sites(node_at(code, "SOFTCLAMP_QK_SIM:")), "SOFTCLAMP_QK_SIM") is not None


def test_the_flag_handed_on_by_its_own_spelling_or_an_attribute_is_no_new_value():
    code = KERNEL + "run(SOFTCLAMP_QK_SIM=SOFTCLAMP_QK_SIM)\nrun(softclamp_qk_sim=self.SOFTCLAMP_QK_SIM)\n"
    assert cf.off_flag(cf.read_sites(node_at(code, "SOFTCLAMP_QK_SIM:")), "SOFTCLAMP_QK_SIM") is not None
    code = KERNEL + "run(softclamp_qk_sim=ctx[0])\n"  # neither a name nor an attribute: a value of its own
    assert cf.off_flag(cf.read_sites(node_at(code, "SOFTCLAMP_QK_SIM:")), "SOFTCLAMP_QK_SIM") is None


def test_none_or_zero_defaults_alone_do_not_make_it_off():
    code = "def f(flag=None):\n    pass\ndef g(FLAG=0):\n    pass\n"
    assert cf.off_flag(sites(code), "FLAG") is None
    assert cf.off_flag(sites("run(FLAG=False)\n"), "FLAG") is None  # no default at all


def test_the_reason_names_the_first_false_default():
    code = "def g(x, FLAG=None):\n    pass\n\n\ndef f(flag=False):\n    pass\n\n\ndef h(FLAG=False):\n    pass\n"
    assert cf.off_flag(sites(code), "FLAG") == ("`FLAG` (tl.constexpr) is off unless set: `flag=False` by default "
                                                "(line 5) and nothing in the file turns it on")


def test_an_annotation_without_a_value_is_no_assignment_and_the_ones_after_it_are_read():
    code = KERNEL + "annotated: int\nsoftclamp_qk_sim = True\n"
    found = cf.read_sites(node_at(code, "SOFTCLAMP_QK_SIM:"))
    assert "annotated" not in found
    assert cf.off_flag(found, "SOFTCLAMP_QK_SIM") is None
