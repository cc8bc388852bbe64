"""The seeding reader on parsed snippets (analyzer/context/seeding.py): a CUDA seeding call beside the torch call that
already seeds every device is `npu-path`, decided by that torch call. Each expectation is read from the module's
docstring."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import seed_calls, seeding
from ascend_feasibility.analyzer.reading import parsing

from tests.snippets import node_at


def decided(code: str, needle: str, occurrence: int = 0) -> str | None:
    """The reason of the guard found for the node at `needle`, None when there is none."""
    found = seeding.seeded_for_every_device(node_at(code, needle, occurrence))
    if found is None:
        return None
    assert found.reach == "npu-path"
    reason = found.reason()
    assert seeding.seeded_by_torch(reason)  # the estimate's "already ported" count leaves it out
    return reason.removesuffix(f" ({seeding.SEEDS_EVERY_DEVICE})")


@pytest.mark.parametrize("cuda, torch_call", [
    ("torch.cuda.manual_seed(0)", "torch.manual_seed(0)"),
    ("torch.cuda.manual_seed_all(0)", "torch.manual_seed(0)"),
    ("torch.cuda.seed()", "torch.seed()"),
    ("torch.cuda.seed_all()", "torch.seed()"),
])
def test_each_cuda_seeding_call_pairs_with_its_torch_call(cuda, torch_call):
    code = f"import torch\n{torch_call}\n{cuda}\n"
    assert decided(code, cuda) == f"line 2: {torch_call}"
    # the torch call after the CUDA one counts as well
    code = f"import torch\n{cuda}\n{torch_call}\n"
    assert decided(code, cuda) == f"line 3: {torch_call}"


@pytest.mark.parametrize("cuda, other", [
    ("torch.cuda.manual_seed(0)", "torch.seed()"),  # a fixed CUDA seed beside a random one: the NPU lacks it
    ("torch.cuda.seed()", "torch.manual_seed(0)"),
    ("torch.cuda.manual_seed(0)", "torch.cuda.manual_seed_all(0)"),
    ("torch.cuda.manual_seed(0)", "random.seed(0)"),
])
def test_the_pairs_stay_apart(cuda, other):
    assert decided(f"{other}\n{cuda}\n", cuda) is None


def test_a_torch_call_that_is_not_a_call_does_not_count():
    assert decided("f = torch.manual_seed\ntorch.cuda.manual_seed(0)\n", "torch.cuda.manual_seed") is None
    assert decided("torch.manual_seed\ntorch.cuda.manual_seed(0)\n", "torch.cuda.manual_seed") is None


def test_an_assigned_torch_seed_counts():
    code = "s = torch.seed()\ntorch.cuda.seed()\n"
    assert decided(code, "torch.cuda.seed") == "line 1: s = torch.seed()"
    # the right side must be the call itself
    assert decided("s = g(torch.seed())\ntorch.cuda.seed()\n", "torch.cuda.seed") is None
    assert decided("s = 1\ntorch.cuda.seed()\n", "torch.cuda.seed") is None


@pytest.mark.parametrize("needle", ["torch.cuda.manual_seed(0)", "torch.cuda.manual_seed", "torch", "cuda",
                                     "manual_seed", "0", "(0)"])
def test_any_node_of_the_call_finds_it(needle):
    code = "torch.manual_seed(0)\ntorch.cuda.manual_seed(0)\n"
    occurrence = 1 if needle in {"torch", "manual_seed", "0", "(0)"} else 0
    if needle == "torch":
        occurrence = 1
    assert decided(code, needle, occurrence) == "line 1: torch.manual_seed(0)"


def test_the_call_is_looked_for_at_most_four_levels_up():
    four = "torch.manual_seed(0)\ntorch.cuda.manual_seed(qq.b.c)\n"  # qq → qq.b → qq.b.c → (…) → call
    assert decided(four, "qq", 0) == "line 1: torch.manual_seed(0)"
    five = "torch.manual_seed(0)\ntorch.cuda.manual_seed(qq.b.c.d)\n"
    assert decided(five, "qq", 0) is None


def test_no_call_above_the_node_is_none():
    root = parsing.parse("python", b"torch.manual_seed(0)\n")
    assert seeding.seeded_for_every_device(root) is None
    assert decided("x = 1\n", "1") is None


def test_the_cuda_call_must_be_a_statement_of_its_own():
    assert decided("torch.manual_seed(0)\ns = torch.cuda.seed()\n", "torch.cuda.seed") is None
    assert decided("torch.manual_seed(0)\nf(torch.cuda.manual_seed(0))\n", "torch.cuda.manual_seed") is None
    assert decided("def f():\n    torch.seed()\n    return torch.cuda.seed()\n", "torch.cuda.seed") is None


def test_the_cuda_call_alone_in_an_if_looks_at_the_block_around_it():
    code = "torch.seed()\nif torch.cuda.is_available():\n    torch.cuda.seed()\n"
    assert decided(code, "torch.cuda.seed") == "line 1: torch.seed()"
    commented = "torch.seed()\nif torch.cuda.is_available():\n    # seed\n    torch.cuda.seed()\n"
    assert decided(commented, "torch.cuda.seed") == "line 1: torch.seed()"
    inside = "def f():\n    x = 1\n    if ok:\n        torch.cuda.seed()\n    torch.seed()\n"
    assert decided(inside, "torch.cuda.seed") == "line 5: torch.seed()"
    # the torch call inside the if is found in the first round
    both = "if ok:\n    torch.cuda.seed()\n    torch.seed()\n"
    assert decided(both, "torch.cuda.seed") == "line 3: torch.seed()"


@pytest.mark.parametrize("code", [
    "torch.seed()\nif ok:\n    torch.cuda.seed()\nelse:\n    pass\n",  # an else: the if decides something else
    "torch.seed()\nif ok:\n    torch.cuda.seed()\nelif other:\n    pass\n",
    "torch.seed()\nif ok:\n    torch.cuda.seed()\n    x = 1\n",  # not alone in the if
    "torch.seed()\nif a:\n    if b:\n        torch.cuda.seed()\n",  # two ifs up: only the block around one is read
    "torch.seed()\nfor i in r:\n    torch.cuda.seed()\n",  # a loop is no if
    "torch.seed()\nwhile ok:\n    torch.cuda.seed()\n",
])
def test_other_blocks_around_the_call_find_nothing(code):
    assert decided(code, "torch.cuda.seed") is None


def test_the_siblings_read_are_bounded():
    near = "x = 1\n" * (seeding.MAX_SIBLINGS * 2 - 2) + "torch.seed()\ntorch.cuda.seed()\n"
    assert decided(near, "torch.cuda.seed") == f"line {seeding.MAX_SIBLINGS * 2 - 1}: torch.seed()"
    far = "x = 1\n" * (seeding.MAX_SIBLINGS * 2 - 1) + "torch.cuda.seed()\ntorch.seed()\n"
    assert decided(far, "torch.cuda.seed") is None
    # at the boundary, the 120th statement is still read
    edge = "x = 1\n" * (seeding.MAX_SIBLINGS * 2 - 2) + "torch.cuda.seed()\ntorch.seed()\n"
    assert decided(edge, "torch.cuda.seed") == f"line {seeding.MAX_SIBLINGS * 2}: torch.seed()"


def test_only_expression_statements_are_read_as_the_torch_call():
    # an assert is skipped under `python -O`: it seeds nothing for sure
    assert decided("assert torch.manual_seed(0)\ntorch.cuda.manual_seed(0)\n", "torch.cuda.manual_seed") is None
    # statements without children and comments beside the call are passed over
    code = "def f():\n    pass\n    # seeds\n    torch.cuda.seed()\n    torch.seed()\n"
    assert decided(code, "torch.cuda.seed") == "line 5: torch.seed()"


def test_an_if_holding_only_cuda_seeding_calls_looks_at_the_block_around_it():
    # round 21 A1 rows 6, 37, 48 (moshi server.py): both CUDA calls under one availability check
    code = ("def seed_all(s):\n    torch.manual_seed(s)\n    if torch.cuda.is_available():\n"
            "        torch.cuda.manual_seed(s)\n        torch.cuda.manual_seed_all(s)\n")
    assert decided(code, "torch.cuda.manual_seed(s)") == "line 2: torch.manual_seed(s)"
    assert decided(code, "torch.cuda.manual_seed_all") == "line 2: torch.manual_seed(s)"
    # a call torch.seed() does not cover among them: the pair stays apart
    mixed = "torch.seed()\nif ok:\n    torch.cuda.seed()\n    torch.cuda.manual_seed_all(0)\n"
    assert decided(mixed, "torch.cuda.seed") is None
    assert decided(mixed, "torch.cuda.manual_seed_all") is None


SWITCH_GUARD = ("import torch\ndef set_seed(s):\n    torch.manual_seed(s)\n    if torch.cuda.is_available():\n"
                "        torch.cuda.manual_seed(s)\n        torch.cuda.manual_seed_all(s)\n        {switch}\n")


def decided_with_imports(code: str, needle: str) -> str | None:
    from ascend_feasibility.analyzer.reading.python_names import ImportTable

    node = node_at(code, needle)
    imports = ImportTable()
    imports.add_tree(parsing.root_of(node))
    found = seeding.seeded_for_every_device(node, imports)
    return found.reason().removesuffix(f" ({seeding.SEEDS_EVERY_DEVICE})") if found is not None else None


@pytest.mark.parametrize("switch", ["torch.backends.cudnn.deterministic = True", "torch.backends.cudnn.benchmark = False",
                                    "torch.backends.cuda.matmul.allow_tf32 = False"])
def test_cuda_backend_switches_beside_the_seeding_calls_are_left_aside(switch):
    # round 32 A2 rows 51, 52, 58 (set_seed with cudnn.deterministic under the check): the switches act on CUDA
    # kernels only, and torch.manual_seed(s) has seeded the NPU already
    code = SWITCH_GUARD.format(switch=switch)
    assert decided_with_imports(code, "torch.cuda.manual_seed(s)") == "line 3: torch.manual_seed(s)"
    assert decided_with_imports(code, "torch.cuda.manual_seed_all") == "line 3: torch.manual_seed(s)"


@pytest.mark.parametrize("other", [
    "torch.backends.cudnn.deterministic = flag()",  # a call's value: not a plain switch
    "device = torch.device('cuda')",  # not a switch: the body does more than seed
    "model.deterministic = True",  # an attribute outside the switch namespaces
])
def test_other_statements_beside_the_seeding_calls_keep_them_apart(other):
    code = SWITCH_GUARD.format(switch=other)
    assert decided_with_imports(code, "torch.cuda.manual_seed(s)") is None


def test_switches_without_the_torch_call_are_no_seeding():
    code = SWITCH_GUARD.format(switch="torch.backends.cudnn.deterministic = True").replace(
        "    torch.manual_seed(s)\n", "    random.seed(s)\n")
    assert decided_with_imports(code, "torch.cuda.manual_seed(s)") is None


SEED_HELPER = "def seed_cuda(s):\n    {body}\n\ndef main(s):\n    torch.manual_seed(s)\n    {call}\n"


def test_a_function_that_only_seeds_cuda_is_decided_at_its_calls():
    code = SEED_HELPER.format(body="torch.cuda.manual_seed_all(s)", call="seed_cuda(s)")
    assert decided(code, "torch.cuda.manual_seed_all") == "line 5: torch.manual_seed(s)"
    guarded = SEED_HELPER.format(body='"""CUDA too."""\n    if torch.cuda.is_available():\n        torch.cuda.manual_seed(s)'
                                 '\n        torch.cuda.manual_seed_all(s)', call="seed_cuda(s)")
    assert decided(guarded, "torch.cuda.manual_seed_all") == "line 8: torch.manual_seed(s)"


@pytest.mark.parametrize("code", [
    SEED_HELPER.format(body="torch.cuda.manual_seed_all(s)", call="x = seed_cuda(s)"),  # its value is used
    SEED_HELPER.format(body="torch.cuda.manual_seed_all(s)", call="pass"),  # never called: nothing seeds the NPU
    SEED_HELPER.format(body="torch.cuda.manual_seed_all(s)\n    x = 1", call="seed_cuda(s)"),  # does more than seed
    SEED_HELPER.format(body="torch.cuda.manual_seed_all(s)", call="seed_cuda(s)") + "seed_cuda(1)\n",  # a call alone
    SEED_HELPER.format(body="torch.cuda.manual_seed_all(s)", call="seed_cuda(s)").replace("torch.manual_seed(s)", "torch.seed()"),
    "class A:\n    def seed_cuda(self, s):\n        torch.cuda.manual_seed_all(s)\n\n    def main(self, s):\n"
    "        torch.manual_seed(s)\n        self.seed_cuda(s)\n",  # a method: its calls are not read
])
def test_a_seeding_helper_needs_the_torch_call_beside_every_call(code):
    assert decided(code, "torch.cuda.manual_seed_all") is None


CUDA_MPS_CHAIN = ("    if torch.cuda.is_available():\n        torch.cuda.manual_seed(seed)\n"
                  "    if torch.backends.mps.is_available():\n        torch.mps.manual_seed(seed)\n")


def _chain_covered(code: str) -> str | None:
    """The covering statement chain_seeded_by_torch finds for the first `if` of the code, read as the dispatch reader
    reads a run of separate ifs (each arm's body)."""
    statement = node_at(code, "if torch.cuda")
    while statement.type != "if_statement":
        statement = statement.parent
    bodies, sibling = [], statement
    while sibling is not None and sibling.type == "if_statement":
        bodies.append(sibling.child_by_field_name("consequence"))
        sibling = sibling.next_named_sibling
    found = seed_calls.chain_seeded_by_torch(statement, bodies)
    return parsing.text(found) if found is not None else None


def test_a_cuda_mps_seeding_chain_beside_torch_manual_seed_is_covered():
    # LTX-Video's seed_everething (round 22 A2 69 / B2 33): torch.manual_seed seeds cuda, mps, xpu and the NPU
    code = f"def seed_all(seed):\n    random.seed(seed)\n    torch.manual_seed(seed)\n{CUDA_MPS_CHAIN}"
    assert _chain_covered(code) == "torch.manual_seed(seed)"
    xpu = code.replace("torch.mps.manual_seed", "torch.xpu.manual_seed_all")
    assert _chain_covered(xpu) == "torch.manual_seed(seed)"


@pytest.mark.parametrize("before, chain", [
    ("random.seed(seed)", CUDA_MPS_CHAIN),  # no torch call seeding every device: the NPU arm is missing
    ("torch.seed()", CUDA_MPS_CHAIN),  # a random seed beside fixed CUDA/MPS seeds: the NPU lacks the fixed one
    ("torch.manual_seed(seed)", CUDA_MPS_CHAIN.replace("torch.mps.manual_seed(seed)", "device = 'mps'")),
    ("torch.manual_seed(seed)", CUDA_MPS_CHAIN.replace("        torch.cuda.manual_seed(seed)\n",
                                                       "        torch.cuda.manual_seed(seed)\n        x = 1\n")),
])
def test_a_seeding_chain_without_its_covering_call_stays_a_chain(before, chain):
    assert _chain_covered(f"def seed_all(seed):\n    {before}\n{chain}") is None


def test_a_cuda_seeding_call_in_an_if_elif_seeding_chain_beside_torch_manual_seed_is_npu_path():
    # accelerate's examples: `torch.manual_seed(seed)` then `if cuda: manual_seed_all elif xpu: xpu.manual_seed_all`
    chain = ("def seed_all(seed):\n    torch.manual_seed(seed)\n    if torch.cuda.is_available():\n"
             "        torch.cuda.manual_seed_all(seed)\n    elif is_xpu_available():\n        torch.xpu.manual_seed_all(seed)\n")
    assert decided(chain, "torch.cuda.manual_seed_all") == "line 2: torch.manual_seed(seed)"
    # an elif doing anything else, or an else, is another path: not decided here
    assert decided(chain.replace("torch.xpu.manual_seed_all(seed)", "device = 'xpu'"), "torch.cuda.manual_seed_all") is None
    assert decided(chain.replace("elif is_xpu_available():", "else:"), "torch.cuda.manual_seed_all") is None
