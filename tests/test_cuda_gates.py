"""CUDA checks that gate a CUDA-only feature (analyzer/context/cuda_gates.py) on small parsed snippets: what a check's
body, name, `and`-ed capability query or earlier statements say, read as the module's docstrings describe.
tests/test_context.py runs the same reader through whole analyses."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import cuda_gates as cg
from ascend_feasibility.analyzer.context.cuda_gates import CudaGates
from ascend_feasibility.analyzer.context.guards import GuardReader
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()
ACCELERATOR = "accelerator/npu_accelerator.py"


def gates(npu_accelerator: str | None = None) -> CudaGates:
    reader = GuardReader(CONVENTIONS.guards, CONVENTIONS.backends, tuple(CONVENTIONS.opt_in.disabled_values))
    reader.start_unit()
    return CudaGates(reader, npu_accelerator)


def around(code: str, needle: str, kind: str, occurrence: int = 0):
    """The `kind` node around the `occurrence`-th needle."""
    node = node_at(code, needle, occurrence)
    while node.type != kind:
        node = node.parent
    return node


def decided(guard) -> tuple[str, str] | None:
    """(reach, the deciding node's first line)."""
    return None if guard is None else (guard.reach, parsing.text(guard.node).splitlines()[0])


def test_the_conventions_are_read():
    read = gates("x.py")
    guards = CONVENTIONS.guards
    assert read.packages == frozenset(guards.cuda_only_packages) and read.calls == frozenset(guards.cuda_only_calls)
    assert read.capability == frozenset(guards.capability_calls)
    assert read.accelerator_calls == frozenset(guards.accelerator_calls)
    assert read.name_tokens == tuple(guards.cuda_only_name_tokens) and read.npu_accelerator == "x.py"


# small helpers -----------------------------------------------------------------------------------------------------
def test_enclosing_pairs_stop_at_the_function_class_or_module():
    code = "class A:\n    def f(self):\n        if x:\n            site()\n"
    parents = [p.type for _, p in cg._enclosing(node_at(code, "site()"))]
    assert parents == ["expression_statement", "block", "if_statement", "block", "function_definition"]
    children = [c.type for c, _ in cg._enclosing(node_at(code, "site()"))]
    assert children[0] == "call" and children[-1] == "block"
    parents = [p.type for _, p in cg._enclosing(node_at("site()\n", "site()"))]
    assert parents == ["expression_statement", "module"]
    assert [p.type for _, p in cg._enclosing(around(code, "class A", "class_definition"))] == ["module"]


def test_enclosing_walks_at_most_max_depth_ancestors():
    def last(m: int) -> str:
        code = "x = " + "(" * m + "site" + ")" * m + "\n"
        return [p.type for _, p in cg._enclosing(node_at(code, "site"))][-1]
    # site, m parentheses, the assignment, the statement, the module: the module is the (m + 3)-th ancestor
    assert last(cg.MAX_DEPTH - 3) == "module"
    assert last(cg.MAX_DEPTH - 2) == "expression_statement"


def test_earlier_statements_nearest_first_and_bounded():
    code = "a = 1\nb = 2\n# c\nc = 3\n"
    statement = around(code, "c = 3", "expression_statement")
    assert [parsing.text(s) for s in cg._earlier(statement)] == ["# c", "b = 2", "a = 1"]
    code = "".join(f"x{i} = {i}\n" for i in range(70)) + "last = 1\n"
    earlier = list(cg._earlier(around(code, "last = 1", "expression_statement")))
    assert len(earlier) == cg.MAX_SIBLINGS and parsing.text(earlier[-1]) == "x10 = 10"


@pytest.mark.parametrize("condition, expected", [
    ("name is None", "name"), ("self.name is None", "self.name"), ("name is not None", None), ("name == None", None),
    ("f() is None", None), ("None is name", None), ("name", None), ("a is b is None", None),
])
def test_none_test(condition, expected):
    assert cg._none_test(around(f"if {condition}:\n    pass\n", "if", "if_statement")) == expected


# accelerator abstraction -------------------------------------------------------------------------------------------
CHOICE = "def f():\n    if get_accelerator().device_name() == 'cuda':\n        flash()\n"


def test_comparing_the_accelerator_with_cuda_is_the_npu_path_only_with_an_npu_accelerator():
    found = gates(ACCELERATOR).accelerator_choice(node_at(CHOICE, "flash()"))
    assert decided(found) == ("npu-path", "if get_accelerator().device_name() == 'cuda':")
    assert gates(None).accelerator_choice(node_at(CHOICE, "flash()")) is None


def test_a_site_inside_the_comparison_is_decided_by_the_comparison():
    found = gates(ACCELERATOR).accelerator_choice(node_at(CHOICE, "device_name"))
    assert decided(found) == ("npu-path", "get_accelerator().device_name() == 'cuda'")


def test_the_accelerator_check_of_an_elif_decides():
    code = "def f():\n    if x:\n        pass\n    elif y and get_accelerator().device_name() == 'cuda':\n        flash()\n"
    assert decided(gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")))[1].startswith("elif y and")


def test_the_accelerator_check_does_not_reach_past_a_function():
    code = "if get_accelerator().device_name() == 'cuda':\n    def f():\n        flash()\n"
    assert gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")) is None
    code = "if get_accelerator().device_name() == 'cuda':\n    class A:\n        flash()\n"
    assert gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")) is None
    assert gates(ACCELERATOR).accelerator_choice(node_at("if x == 'cuda':\n    flash()\n", "flash()")) is None


def test_the_accelerator_through_a_name_the_function_assigned():
    code = ("def f():\n    accelerator = deepspeed.get_accelerator()\n"
            "    if accelerator.device_name() == 'cuda':\n        flash()\n")
    assert decided(gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")))[0] == "npu-path"


@pytest.mark.parametrize("assignment", [
    "accelerator = get_accelerator",  # not a call
    "accelerator = make_accelerator()",  # another call
    "self.accelerator = get_accelerator()",  # not a plain name
    "other = get_accelerator()",  # not the name compared
    "accelerator: int",  # no assignment
])
def test_other_assignments_do_not_name_the_accelerator(assignment):
    code = f"def f():\n    {assignment}\n    if accelerator.device_name() == 'cuda':\n        flash()\n"
    assert gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")) is None


def test_the_assignment_is_read_among_the_first_sixty_statements_of_the_function():
    def code(before: int) -> str:
        return ("def f():\n" + "    x = 1\n" * before + "    accelerator = get_accelerator()\n"
                "    if accelerator.device_name() == 'cuda':\n        flash()\n")
    assert gates(ACCELERATOR).accelerator_choice(node_at(code(cg.MAX_SIBLINGS - 1), "flash()")) is not None
    assert gates(ACCELERATOR).accelerator_choice(node_at(code(cg.MAX_SIBLINGS), "flash()")) is None


def test_a_module_level_comparison_needs_the_call_itself():
    code = "accelerator = get_accelerator()\nif accelerator.device_name() == 'cuda':\n    flash()\n"
    assert gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")) is None


def test_compares_accelerator_reads_about_two_hundred_nodes():
    def code(terms: int) -> str:
        condition = " and ".join(["x"] * terms + ["get_accelerator().device_name() == 'cuda'"])
        return f"if {condition}:\n    flash()\n"
    read = gates(ACCELERATOR)
    assert read._compares_accelerator(around(code(3), "if", "if_statement").child_by_field_name("condition"))
    # `x and x and ... and cmp` nests to the left: the comparison is popped first, whatever the number of terms
    assert read._compares_accelerator(around(code(400), "if", "if_statement").child_by_field_name("condition"))
    condition = "(" + " and ".join(["get_accelerator().device_name() == 'cuda'"] + ["x"] * 400) + ")"
    node = around(f"if {condition}:\n    flash()\n", "if", "if_statement").child_by_field_name("condition")
    assert not read._compares_accelerator(node)  # the comparison is the last node reached, past the budget


# capability ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("condition", [
    "torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 7",
    "torch.cuda.get_device_capability()[0] >= 8 and torch.cuda.is_available()",
    "(torch.cuda.is_available() and get_device_properties(0).major >= 8)",
])
def test_a_cuda_check_anded_with_a_capability_query_is_cuda_only(condition):
    code = f"if {condition}:\n    pass\n"
    found = gates().capability_pair(node_at(code, "torch.cuda.is_available()"))
    top = around(code, "if", "if_statement").child_by_field_name("condition")
    while top.type == "parenthesized_expression":
        top = top.named_children[0]
    assert decided(found) == ("cuda-only-guarded", parsing.text(top))


@pytest.mark.parametrize("condition", [
    "torch.cuda.is_available() or torch.cuda.get_device_capability()[0] >= 7",  # an or
    "torch.cuda.is_available() and x >= 7",  # no capability query
    "is_npu() and get_device_capability()[0] >= 7",  # no CUDA
    "torch.cuda.is_available()",
])
def test_other_conditions_are_no_capability_pair(condition):
    code = f"if {condition}:\n    pass\n"
    needle = "torch.cuda.is_available()" if "torch.cuda.is_available()" in condition else "is_npu()"
    assert gates().capability_pair(node_at(code, needle)) is None


def test_the_pair_is_the_outermost_boolean_around_the_site():
    # an `or` above the pair lets the body run without CUDA: the outermost boolean decides, and it is no `and`
    code = "if a or (torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 7):\n    pass\n"
    assert gates().capability_pair(node_at(code, "torch.cuda.is_available()")) is None
    code = "if not (torch.cuda.is_available() and get_device_capability()[0] >= 7):\n    pass\n"
    found = gates().capability_pair(node_at(code, "torch.cuda.is_available()"))
    assert decided(found)[1] == "torch.cuda.is_available() and get_device_capability()[0] >= 7"


def test_the_capability_walk_stops_at_other_expressions():
    # a lambda between the site and the `and`: the walk stops there
    code = "ok = (lambda: torch.cuda.is_available()) and get_device_capability()[0] >= 7\n"
    assert gates().capability_pair(node_at(code, "torch.cuda.is_available()")) is None
    code = "ok = [torch.cuda.is_available()] and get_device_capability()[0] >= 7\n"
    assert gates().capability_pair(node_at(code, "torch.cuda.is_available()")) is None


def test_the_capability_walk_is_twelve_steps():
    def code(m: int) -> str:
        return ("if " + "(" * m + "torch.cuda.is_available()" + ")" * m
                + " and get_device_capability()[0] >= 7:\n    pass\n")
    # the walk reads the site and its ancestors up to the 11th; the `and` is the (m + 1)-th (m parentheses)
    assert gates().capability_pair(node_at(code(10), "torch.cuda.is_available()")) is not None
    assert gates().capability_pair(node_at(code(11), "torch.cuda.is_available()")) is None


# bodies and names ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("body", [
    "import flash_attn", "from xformers import ops", "import os, pynvml", "from .flash_attn import x",
    "flash_attn.flash_attn_func(q)", "torch._inductor.cudagraph_mark_step_begin()", "cudagraph_mark_step_begin()",
    "check_nvlink_connectivity(fabric)", "x = init_nvml()", "import xformers.ops as xops",
    "for x in y:\n        if z:\n            import cupy",
    # diffusers' switch onto xformers (round 21 A1 row 32: `if is_xformers_available() and
    # torch.cuda.is_available(): unet.enable_xformers_memory_efficient_attention()`)
    "unet.enable_xformers_memory_efficient_attention()",
])
def test_a_check_whose_body_uses_a_cuda_only_package_gates_it(body):
    code = f"if torch.cuda.is_available():\n    {body}\n"
    assert gates().gated_body(around(code, "if", "if_statement"))


@pytest.mark.parametrize("body", [
    "import os", "from torch import flash_attn", "model.cuda()", "x = flash_attn", "flash_attn_like()",
    "import torch.flash_attn", "run(flash_attn)", "unet.enable_attention_slicing()",
])
def test_a_check_whose_body_uses_nothing_cuda_only_does_not(body):
    code = f"if torch.cuda.is_available():\n    {body}\nelse:\n    import flash_attn\n"
    assert not gates().gated_body(around(code, "if", "if_statement"))


def test_a_body_is_read_up_to_four_thousand_nodes():
    def code(statements: int) -> str:
        # the last statement is read first (a stack): the block, the `pass`es, then the import: node passes + 2
        return "if torch.cuda.is_available():\n    import flash_attn\n" + "    pass\n" * statements
    assert gates().gated_body(around(code(cg.MAX_BODY_NODES - 2), "if", "if_statement"))
    assert not gates().gated_body(around(code(cg.MAX_BODY_NODES - 1), "if", "if_statement"))


def test_names_that_mark_an_nvidia_only_feature():
    read = gates()
    assert read._names_cuda_only("ActionCudaGraphManager") and read._names_cuda_only("init_NVML")
    assert not read._names_cuda_only("cuda_available") and not read._names_cuda_only("")


@pytest.mark.parametrize("code, expected", [
    ("class ActionCudaGraphManager:\n    def f(self):\n        if torch.cuda.is_available():\n            x()\n",
     "class ActionCudaGraphManager:"),
    ("def _capture_cuda_graph():\n    if torch.cuda.is_available():\n        x()\n", "def _capture_cuda_graph():"),
    ("def _capture_cuda_graph():\n    def inner():\n        if torch.cuda.is_available():\n            x()\n",
     "def _capture_cuda_graph():"),
    ("def setup():\n    if torch.cuda.is_available():\n        x()\n", None),
    ("if torch.cuda.is_available():\n    x()\n", None),
])
def test_named_cuda_only(code, expected):
    found = gates().named_cuda_only(around(code, "if torch", "if_statement"))
    assert (parsing.text(found).splitlines()[0] if found is not None else None) == expected


# names a check is assigned to ---------------------------------------------------------------------------------------
def test_the_ifs_testing_a_checks_name_after_it():
    code = ("def f():\n    if cuda_ok:\n        pass\n"
            "    cuda_ok = torch.cuda.is_available()\n    x = 1\n"
            "    if cuda_ok:\n        import flash_attn\n    if not (cuda_ok and y):\n        raise RuntimeError()\n"
            "    if other:\n        pass\n    while cuda_ok:\n        pass\n")
    found = gates().assigned_checks(node_at(code, "torch.cuda.is_available()"))
    assert [parsing.text(f).splitlines()[0] for f in found] == ["if cuda_ok:", "if not (cuda_ok and y):"]
    assert found[0].start_point.row == 5


def test_a_module_level_flag_is_read_through_every_mention_in_the_unit():
    """HAS_CUDA-style flags: at module level every mention of the name counts (before the definition too), and one
    mention that is no if-test (a while, an argument) makes the definition a check of its own (no tests)."""
    code = ("if cuda_ok:\n    pass\n"
            "try:\n    cuda_ok = torch.cuda.is_available()\nexcept Exception:\n    cuda_ok = False\n"
            "if cuda_ok:\n    import flash_attn\nif not (cuda_ok and y):\n    raise RuntimeError()\n"
            "if not cuda_ok or z:\n    pass\n")
    found = gates().assigned_checks(node_at(code, "torch.cuda.is_available()"))
    assert [f.start_point.row for f in found] == [0, 6, 8, 10]
    for other_use in ("while cuda_ok:\n    pass\n", "loader(pin_memory=cuda_ok)\n", "x = [cuda_ok]\n"):
        assert gates().assigned_checks(node_at(code + other_use, "torch.cuda.is_available()")) == []


def test_a_check_inside_a_larger_value_or_augmented_assignment_is_read():
    code = "ok = (x and torch.cuda.is_available() and y)\nif ok:\n    pass\n"
    assert len(gates().assigned_checks(node_at(code, "torch.cuda.is_available()"))) == 1
    code = "ok += torch.cuda.is_available()\nif ok:\n    pass\n"
    assert len(gates().assigned_checks(node_at(code, "torch.cuda.is_available()"))) == 1


@pytest.mark.parametrize("code", [
    "if torch.cuda.is_available():\n    pass\nif ok:\n    pass\n",  # no assignment
    "self.ok = torch.cuda.is_available()\nif self.ok:\n    pass\n",  # not a plain name
    "a, b = torch.cuda.is_available(), 1\nif a:\n    pass\n",
    "def f(ok=torch.cuda.is_available()):\n    if ok:\n        pass\n",
])
def test_no_assigned_checks(code):
    assert gates().assigned_checks(node_at(code, "torch.cuda.is_available()")) == []


def test_assigned_checks_look_sixty_statements_ahead_and_twelve_ancestors_up():
    def ahead(between: int) -> str:
        return "def f():\n    ok = torch.cuda.is_available()\n" + "    x = 1\n" * between + "    if ok:\n        pass\n"
    assert len(gates().assigned_checks(node_at(ahead(cg.MAX_SIBLINGS - 1), "torch.cuda.is_available()"))) == 1
    assert gates().assigned_checks(node_at(ahead(cg.MAX_SIBLINGS), "torch.cuda.is_available()")) == []

    def up(m: int) -> str:
        return "def f():\n    ok = " + "(" * m + "torch.cuda.is_available()" + ")" * m + "\n    if ok:\n        pass\n"
    # the walk reads the site and its ancestors up to the 11th; the assignment is the (m + 1)-th
    assert len(gates().assigned_checks(node_at(up(10), "torch.cuda.is_available()"))) == 1
    assert gates().assigned_checks(node_at(up(11), "torch.cuda.is_available()")) == []


def test_an_assignment_in_a_block_reads_its_own_block():
    code = "def f():\n    ok = torch.cuda.is_available()\n    if ok:\n        pass\nif ok:\n    pass\n"
    found = gates().assigned_checks(node_at(code, "torch.cuda.is_available()"))
    assert [f.start_point.row for f in found] == [2]


@pytest.mark.parametrize("code, expected", [
    ("if not cuda_ok:\n    raise RuntimeError('needs CUDA')\n", True),
    ("if not cuda_ok:\n    warnings.warn('slow')\n", True),
    ("if not cuda_ok:\n    x = 1\n", False),
    ("if not cuda_ok:\n    import flash_attn\n", False),  # negated: only raising or warning counts
    ("if cuda_ok:\n    import flash_attn\n", True),
    ("if cuda_ok:\n    x = 1\n", False),
    ("if cuda_ok:\n    raise RuntimeError()\n", False),
])
def test_name_gate(code, expected):
    assert gates().name_gate(around(code, "if", "if_statement")) is expected


# detection cascades -------------------------------------------------------------------------------------------------
CASCADE = ("accelerator_name = None\n"
           "if accelerator_name is None:\n    try:\n        import torch_npu\n        accelerator_name = 'npu'\n"
           "    except ImportError:\n        pass\n"
           "if accelerator_name is None:\n    if torch.cuda.is_available():\n        accelerator_name = 'cuda'\n")


def test_a_step_after_an_npu_step_of_a_detection_cascade_is_the_npu_path():
    found = gates().detection_cascade(node_at(CASCADE, "torch.cuda.is_available()"))
    assert decided(found) == ("npu-path", "if accelerator_name is None:")
    assert found.node.start_point.row == 1


@pytest.mark.parametrize("change", [
    ("accelerator_name = 'npu'", "accelerator_name = 'xpu'"),  # the earlier step detects something else
    ("accelerator_name = 'npu'", "other_name = 'npu'"),  # it assigns another name
    ("accelerator_name = 'npu'", "accelerator_name = npu"),  # not a string
    ("if accelerator_name is None:\n    try", "if accelerator is None:\n    try"),  # it tests another name
])
def test_other_earlier_steps_decide_nothing(change):
    code = CASCADE.replace(*change)
    assert gates().detection_cascade(node_at(code, "torch.cuda.is_available()")) is None


def test_a_cascade_step_inside_a_function_and_the_names_casing():
    code = "def f():\n" + "".join("    " + line + "\n" for line in CASCADE.replace("'npu'", "'NPU'").splitlines())
    assert decided(gates().detection_cascade(node_at(code, "torch.cuda.is_available()")))[0] == "npu-path"


def test_a_site_in_the_npu_step_itself_is_not_after_it():
    assert gates().detection_cascade(node_at(CASCADE, "import torch_npu")) is None


def test_assigns_npu_reads_the_step_body_within_its_budget():
    read = gates()
    statement = around(CASCADE, "if accelerator_name is None", "if_statement")
    assert read._assigns_npu(statement, "accelerator_name") and not read._assigns_npu(statement, "other")

    def step(passes: int) -> str:
        return "if name is None:\n    name = 'npu'\n" + "    pass\n" * passes
    # the block, then the `pass`es from the last, its statement, then the assignment: node passes + 3
    assert read._assigns_npu(around(step(cg.MAX_BODY_NODES - 3), "if", "if_statement"), "name")
    assert not read._assigns_npu(around(step(cg.MAX_BODY_NODES - 2), "if", "if_statement"), "name")


# classes with an NPU branch -----------------------------------------------------------------------------------------
RMS = ("class RMSNorm(nn.Module):\n    def forward(self, x):\n        if is_torch_npu_available():\n"
       "            return torch_npu.npu_rms_norm(x)\n        return x * x\n")


def test_a_finding_about_a_class_with_an_npu_branch_is_the_npu_path():
    found = gates().class_npu_branch(node_at(RMS, "RMSNorm"))
    assert decided(found) == ("npu-path", "if is_torch_npu_available():")
    found = gates().class_npu_branch(node_at(RMS, "nn.Module"))  # on the class line
    assert decided(found) == ("npu-path", "if is_torch_npu_available():")


def test_a_site_inside_the_class_body_is_not_about_the_whole_class():
    assert gates().class_npu_branch(node_at(RMS, "x * x")) is None


def test_a_class_without_an_npu_branch_or_no_class():
    assert gates().class_npu_branch(node_at(RMS.replace("is_torch_npu_available", "is_cuda_ok"), "RMSNorm")) is None
    assert gates().class_npu_branch(node_at("def RMSNorm(x):\n    return x\n", "RMSNorm")) is None
    code = RMS.replace("        if is_torch_npu_available():\n            return torch_npu.npu_rms_norm(x)\n",
                       "        if x:\n            pass\n        elif is_torch_npu_available():\n            return x\n")
    assert decided(gates().class_npu_branch(node_at(code, "RMSNorm")))[1] == "elif is_torch_npu_available():"


def test_the_class_is_looked_for_six_ancestors_up():
    def code(m: int) -> str:
        return "class A(" + "(" * m + "Base" + ")" * m + "):\n    if is_torch_npu_available():\n        pass\n"
    # Base, m parentheses, the argument list, the class: the class is the (m + 2)-th ancestor, reached while m + 1 < 6
    assert gates().class_npu_branch(node_at(code(4), "Base")) is not None
    assert gates().class_npu_branch(node_at(code(5), "Base")) is None


def test_the_class_body_is_read_up_to_four_thousand_nodes():
    def code(passes: int) -> str:
        return "class A:\n    if is_torch_npu_available():\n        pass\n" + "    pass\n" * passes
    # the block, the `pass`es from the last, then the if
    assert gates().class_npu_branch(node_at(code(cg.MAX_BODY_NODES - 2), "A")) is not None
    assert gates().class_npu_branch(node_at(code(cg.MAX_BODY_NODES - 1), "A")) is None


# earlier statements that exclude NPU --------------------------------------------------------------------------------
def excluded(code: str, needle: str = "flash()"):
    return decided(gates().excluded_before(node_at(code, needle)))


@pytest.mark.parametrize("before", [
    "if not torch.cuda.is_available():\n    raise RuntimeError('CUDA only')\n",  # a CUDA-only feature's arm says so
    "if q.device.type != 'cuda':\n    raise ValueError()\n",
    "assert q.is_cuda\n",
    "assert device == 'cuda'\n",
    "assert x.device_type == 'cuda', 'CUDA tensors only'\n",
    "assert Wrapper.cuda_graph is None\n",  # a CUDA-only feature's state, no availability call (Megatron's graphs)
    "assert config.cuda_graph_impl == 'local', 'Option cuda_graph_impl=local not enabled.'\n",
    "import flash_attn\n",
    "from xformers import ops\n",
    "try:\n    import flash_attn\nexcept ImportError:\n    raise ImportError('install flash-attn')\n",
    "def _check(q):\n    if not q.is_cuda:\n        raise ValueError()\n_check(q)\n",
    "@torch.no_grad()\ndef _check(q):\n    x = 1\n    if not q.is_cuda:\n        raise ValueError()\n_check(q)\n",
])
def test_an_earlier_statement_that_excludes_npu_guards_what_follows(before):
    code = before + "y = 1\nflash()\n"
    found = excluded(code)
    assert found is not None and found[0] == "cuda-only-guarded"
    assert found[1] == before.splitlines()[-1] if before.startswith(("def", "@")) else found[1] == before.splitlines()[0]


@pytest.mark.parametrize("before", [
    "if not torch.cuda.is_available():\n    x = 1\n",  # does not raise
    "if not torch.cuda.is_available():\n    raise RuntimeError()\nelse:\n    pass\n",  # has another arm
    "if torch.cuda.is_available():\n    raise RuntimeError()\n",  # raises on CUDA
    "if not (torch.cuda.is_available() or is_npu_available()):\n    raise RuntimeError()\n",  # NPU passes too
    "assert not torch.cuda.is_available()\n",
    "assert x\n",
    "import os\n",
    "try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n",  # a fallback
    "try:\n    import os\nexcept ImportError:\n    raise\n",
    "try:\n    import flash_attn\nfinally:\n    pass\n",  # no handler
    "def _check(q):\n    if not q.is_cuda:\n        return q\n_check(q)\n",  # does not raise
    # an assert of the program's precondition, not of a function's input: what follows is the main path (it stops
    # natively, passes under transfer_to_npu)
    "assert torch.cuda.is_available()\n",
    "assert torch.cuda.is_available(), 'Fine-tuning assumes at least one GPU'\n",
    "assert torch.cuda.device_count() > 0\n",
    "_check(q)\n",  # not defined here
    "obj.check(q)\n",  # not a plain name
    "x = _check(q)\ndef _check(q):\n    if not q.is_cuda:\n        raise ValueError()\n",
    "flash_attn = 1\n",
])
def test_other_earlier_statements_exclude_nothing(before):
    assert excluded(before + "flash()\n") is None


def test_a_check_after_the_site_or_in_another_function_excludes_nothing():
    assert excluded("flash()\nif not q.is_cuda:\n    raise RuntimeError()\n") is None
    code = "if not q.is_cuda:\n    raise RuntimeError()\ndef f():\n    flash()\n"
    assert excluded(code) is None


def test_an_earlier_statement_of_an_enclosing_block_in_the_function_excludes_npu():
    code = "def f(q):\n    assert q.is_cuda\n    for x in y:\n        if z:\n            flash()\n"
    assert excluded(code) == ("cuda-only-guarded", "assert q.is_cuda")


def test_the_else_of_a_check_that_raises_unless_cuda_is_excluded():
    code = "if not q.is_cuda:\n    raise RuntimeError()\nelse:\n    flash()\n"
    assert excluded(code) == ("cuda-only-guarded", "if not q.is_cuda:")
    code = ("if x:\n    pass\nelif not q.is_cuda:\n    raise RuntimeError()\nelif y:\n    pass\n"
            "else:\n    flash()\n")
    assert excluded(code) == ("cuda-only-guarded", "elif not q.is_cuda:")
    code = ("if x:\n    pass\nelif not q.is_cuda:\n    raise RuntimeError()\nelif y:\n    flash()\n")
    assert excluded(code) == ("cuda-only-guarded", "elif not q.is_cuda:")


def test_the_else_of_a_raise_unless_cuda_is_available_is_excluded_too():
    code = "if not torch.cuda.is_available():\n    raise RuntimeError()\nelse:\n    flash()\n"
    assert excluded(code) == ("cuda-only-guarded", "if not torch.cuda.is_available():")


def test_an_arm_after_the_site_or_the_elif_condition_itself_is_not_excluded():
    code = "if x:\n    pass\nelif y:\n    flash()\nelif not q.is_cuda:\n    raise RuntimeError()\n"
    assert excluded(code) is None
    code = "if not q.is_cuda:\n    raise RuntimeError()\nelif flash():\n    pass\n"
    assert excluded(code) is None  # the site is the elif's own condition
    code = "if x:\n    raise RuntimeError()\nelse:\n    flash()\n"
    assert excluded(code) is None


def test_earlier_statements_are_read_sixty_back():
    def code(between: int) -> str:
        return "import flash_attn\n" + "x = 1\n" * between + "flash()\n"
    assert excluded(code(cg.MAX_SIBLINGS - 1)) is not None
    assert excluded(code(cg.MAX_SIBLINGS)) is None


def test_what_was_read_of_a_unit_is_remembered_and_forgotten_with_it():
    read = gates()
    code = "import flash_attn\nflash()\n"
    site = node_at(code, "flash()")
    first = read.excluded_before(site)
    assert first is not None and read.excluded_before(site) is first
    assert read._excluding and read._excludes
    read.start_unit()
    assert read._excluding == {} and read._excludes == {} and read._users == {}


def test_calls_cuda_check_reads_the_first_sixty_statements_of_the_helper():
    def code(before: int) -> str:
        return ("def _check(q):\n" + "    x = 1\n" * before + "    if not q.is_cuda:\n        raise ValueError()\n"
                "_check(q)\nflash()\n")
    assert excluded(code(cg.MAX_SIBLINGS - 1)) is not None
    assert excluded(code(cg.MAX_SIBLINGS)) is None


@pytest.mark.parametrize("statement, expected", [
    ("import flash_attn", True), ("import os, flash_attn.ops", True), ("import xformers.ops as xops", True),
    ("from flash_attn import f", True), ("from .flash_attn import f", True), ("from os import flash_attn", False),
    ("import os", False), ("from . import flash_attn", False),
])
def test_imports_cuda_only(statement, expected):
    node = around(f"{statement}\n", statement.split()[0], "import_statement" if statement.startswith("import")
                  else "import_from_statement")
    assert gates()._imports_cuda_only(node) is expected


# classes used only under a CUDA check -------------------------------------------------------------------------------
def users(name: str = "_CudaGraphRunner", use: str = "if torch.cuda.is_available():\n        return {name}()\n    return fn\n",
          more: str = "") -> str:
    return (f"class {name}:\n    def run(self, x):\n        return launch(x)\n"
            f"def wrap(fn):\n    {use.format(name=name)}{more}")


def users_guard(code: str, needle: str = "launch(x)"):
    return gates().users_guarded(node_at(code, needle))


def test_a_private_class_used_only_under_a_cuda_check_is_cuda_only():
    found = users_guard(users())
    assert found.reach == "cuda-only-guarded" and found.note == "_CudaGraphRunner is used only where this CUDA check has passed"
    assert parsing.text(found.node).splitlines()[0] == "if torch.cuda.is_available():"


def test_a_class_named_for_an_nvidia_only_feature_qualifies_a_public_one_does_not():
    assert users_guard(users(name="CudaGraphRunner")) is not None
    assert users_guard(users(name="Runner")) is None


def test_one_use_outside_the_check_keeps_it_required():
    assert users_guard(users(more="def other():\n    return _CudaGraphRunner()\n")) is None


def test_a_class_with_no_use_or_too_many_uses_is_not_decided():
    assert users_guard(users(use="return fn\n")) is None
    many = "if torch.cuda.is_available():\n" + "        {name}()\n" * (cg.MAX_USERS + 1) + "    return fn\n"
    assert users_guard(users(use=many)) is None
    enough = "if torch.cuda.is_available():\n" + "        {name}()\n" * cg.MAX_USERS + "    return fn\n"
    assert users_guard(users(use=enough)) is not None


def test_a_method_called_only_under_a_cuda_check_is_cuda_only():
    code = ("class Runner:\n    def run(self, x):\n        return launch(x)\n"
            "def wrap(r, fn):\n    if torch.cuda.is_available():\n        return r.run(1)\n    return fn\n")
    assert users_guard(code) is None  # a public class: not asked about
    code = code.replace("class Runner", "class _Runner")
    assert users_guard(code).note == "run is used only where this CUDA check has passed"


def test_a_use_inside_the_class_itself_is_no_use():
    code = users().replace("        return launch(x)\n", "        return launch(x)\n    def again(self):\n        return _CudaGraphRunner()\n")
    assert users_guard(code) is not None


def test_a_nested_or_decorated_class():
    code = "def outer():\n" + "".join("    " + line + "\n" for line in users().splitlines())
    assert users_guard(code) is None  # not module-level
    code = "@dataclass\n" + users()
    assert users_guard(code) is not None  # decorated at module level


def test_users_of_users_are_followed_three_levels():
    def chain(levels: int) -> str:
        code = "class _C0:\n    def run(self):\n        return launch(x)\n"
        for i in range(1, levels):
            code += f"class _C{i}:\n    def make(self):\n        return _C{i - 1}()\n"
        code += f"def wrap(fn):\n    if torch.cuda.is_available():\n        return _C{levels - 1}()\n    return fn\n"
        return code
    assert users_guard(chain(4)) is not None  # depths 0..3
    assert users_guard(chain(5)) is None


def test_users_guarded_remembers_per_site_and_depth():
    read = gates()
    site = node_at(users(), "launch(x)")
    first = read.users_guarded(site)
    assert read._users[(site.id, 0)] is first and read.users_guarded(site) is first


def test_a_method_of_a_nested_function_is_not_the_methods_scope():
    code = ("class _Runner:\n    def run(self, x):\n        def inner():\n            return launch(x)\n        return inner\n"
            "def wrap(r, fn):\n    if torch.cuda.is_available():\n        return r.run(1)\n    return fn\n")
    found = gates().users_guarded(node_at(code, "launch(x)"))
    # the site's nearest function is `inner`, not a method of the class: only the class's uses are read (none)
    assert found is None


# answers the first mutation run left open ------------------------------------------------------------------------------
def test_enclosing_stops_at_a_class_around_a_site_in_its_body():
    code = "import flash_attn\nclass A:\n    y = flash()\n"
    assert [p.type for _, p in cg._enclosing(node_at(code, "flash()"))][-1] == "class_definition"
    assert excluded(code) is None  # the module's statements before the class are not read for a class-level site


def test_the_accelerator_walk_reads_max_depth_nodes():
    def code(m: int) -> str:
        return ("if get_accelerator().device_name() == 'cuda':\n    x = " + "(" * m + "flash()" + ")" * m + "\n")
    # the site is node 0; the if is its (m + 4)-th ancestor, read while that number is under MAX_DEPTH
    assert gates(ACCELERATOR).accelerator_choice(node_at(code(cg.MAX_DEPTH - 5), "flash()")) is not None
    assert gates(ACCELERATOR).accelerator_choice(node_at(code(cg.MAX_DEPTH - 4), "flash()")) is None


def test_names_accelerator_looks_for_the_function_max_depth_ancestors_up():
    def comparison(m: int):
        code = ("def f():\n    accelerator = get_accelerator()\n    x = "
                + "(" * m + "accelerator.device_name() == 'cuda'" + ")" * m + "\n")
        return node_at(code, "accelerator.device_name() == 'cuda'")
    # the function is the comparison's (m + 4)-th ancestor; the walk stops at the (MAX_DEPTH + 1)-th
    assert gates(ACCELERATOR)._names_accelerator(comparison(cg.MAX_DEPTH - 3))
    assert not gates(ACCELERATOR)._names_accelerator(comparison(cg.MAX_DEPTH - 2))


def test_statements_other_than_assignments_are_passed_over():
    code = ("def f():\n    pass\n    log('x')\n    accelerator = get_accelerator()\n"
            "    if accelerator.device_name() == 'cuda':\n        flash()\n")
    assert gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")) is not None


def test_only_the_called_function_names_the_accelerator():
    code = ("def f():\n    accelerator = make_accelerator(get_accelerator)\n"
            "    if accelerator.device_name() == 'cuda':\n        flash()\n")
    assert gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")) is None


def test_compares_accelerator_reads_two_hundred_nodes_exactly():
    def condition(terms: int):
        text = "(get_accelerator().device_name() == 'cuda'" + " and x" * terms + ")"
        return around(f"if {text}:\n    pass\n", "if", "if_statement").child_by_field_name("condition")
    # the parentheses (1), then per `and` its node and its right term, then the comparison: node 2 * terms + 2
    assert gates(ACCELERATOR)._compares_accelerator(condition(99))  # node 200
    assert not gates(ACCELERATOR)._compares_accelerator(condition(100))

    def bare(terms: int):  # without the parentheses: node 2 * terms + 1
        text = "get_accelerator().device_name() == 'cuda'" + " and x" * terms
        return around(f"if {text}:\n    pass\n", "if", "if_statement").child_by_field_name("condition")
    assert gates(ACCELERATOR)._compares_accelerator(bare(99))  # node 199
    assert not gates(ACCELERATOR)._compares_accelerator(bare(100))  # node 201


def test_a_comparison_not_naming_the_accelerator_does_not_end_the_search():
    code = "if get_accelerator().device_name() == 'cuda' and x == 1:\n    flash()\n"
    assert gates(ACCELERATOR).accelerator_choice(node_at(code, "flash()")) is not None


@pytest.mark.parametrize("condition, needle", [
    ("q.is_cuda and get_device_capability()[0] >= 7", "q.is_cuda"),  # an attribute site
    ("get_device_capability(torch.cuda.current_device())[0] >= 7 and torch.cuda.is_available()",
     "torch.cuda.current_device()"),  # through an argument list, a subscript and a comparison
    ("not torch.cuda.is_available() and get_device_capability()[0] >= 7", "torch.cuda.is_available()"),
    ("HAS_CUDA and get_device_capability()[0] >= 7", "HAS_CUDA"),  # an identifier site
    ("torch.cuda.is_available() and get_device_capability()[0] >= 70", "70"),  # an integer in the pair
])
def test_the_capability_walk_passes_through_parts_of_the_pair(condition, needle):
    code = f"if {condition}:\n    pass\n"
    assert decided(gates().capability_pair(node_at(code, needle))) == ("cuda-only-guarded", condition)


def test_only_a_plain_name_assigned_is_tested_by_later_ifs():
    code = "self.ok = torch.cuda.is_available()\nif flags['self.ok']:\n    pass\n"
    assert gates().assigned_checks(node_at(code, "torch.cuda.is_available()")) == []


def test_named_cuda_only_walks_max_depth_ancestors():
    def code(m: int) -> str:
        return "def _capture_cuda_graph():\n    x = " + "(" * m + "site()" + ")" * m + "\n"
    # the function is the site's (m + 4)-th ancestor
    assert gates().named_cuda_only(node_at(code(cg.MAX_DEPTH - 4), "site()")) is not None
    assert gates().named_cuda_only(node_at(code(cg.MAX_DEPTH - 3), "site()")) is None


def test_a_site_in_a_class_body_outside_its_methods_is_read_through_the_class():
    code = ("class _CudaGraphRunner:\n    y = launch(x)\n"
            "def wrap(fn):\n    if torch.cuda.is_available():\n        return _CudaGraphRunner()\n    return fn\n")
    assert users_guard(code).note == "_CudaGraphRunner is used only where this CUDA check has passed"


def test_a_function_nested_in_a_method_is_no_method():
    code = ("class _Runner:\n    def run(self, x):\n        def inner():\n            return launch(x)\n"
            "        if torch.cuda.is_available():\n            return inner()\n        return x\n")
    assert users_guard(code) is None  # inner is not asked about: only a method of the class and the class are


def test_scopes_walk_max_depth_ancestors():
    def code(m: int) -> str:
        return ("class _CudaGraphRunner:\n    def run(self, x):\n        return " + "(" * m + "launch(x)" + ")" * m + "\n"
                "def wrap(fn):\n    if torch.cuda.is_available():\n        return _CudaGraphRunner()\n    return fn\n")
    # the class is the site's (m + 5)-th ancestor
    assert users_guard(code(cg.MAX_DEPTH - 5)) is not None
    assert users_guard(code(cg.MAX_DEPTH - 4)) is None


def test_a_while_loop_is_no_step_of_a_detection_cascade():
    code = CASCADE.replace("if accelerator_name is None:\n    if torch", "while accelerator_name is None:\n    if torch")
    assert gates().detection_cascade(node_at(code, "torch.cuda.is_available()")) is None


def test_a_check_with_an_elif_arm_excludes_nothing_after_it():
    assert excluded("if not torch.cuda.is_available():\n    raise RuntimeError()\nelif x:\n    pass\nflash()\n") is None


def test_a_cuda_only_from_import_in_a_try_that_raises_excludes_npu():
    code = "try:\n    from flash_attn import f\nexcept ImportError:\n    raise\nflash()\n"
    assert excluded(code) == ("cuda-only-guarded", "try:")


def test_only_a_call_statement_is_read_as_a_call_of_a_check():
    code = "def _check(q):\n    if not q.is_cuda:\n        raise ValueError()\ndef f(q):\n    return _check(q)\n    flash()\n"
    assert excluded(code) is None


def test_the_helper_called_is_found_by_its_name():
    code = ("def other(q):\n    if not q.is_cuda:\n        raise ValueError()\n"
            "def _check(q):\n    return q\n_check(q)\nflash()\n")
    assert excluded(code) is None


@pytest.mark.parametrize("statement, expected", [
    ("import flash_attn as fa", True), ("import xformers as xf, os", True), ("import Xflash_attn", False),
])
def test_imports_cuda_only_reads_aliases(statement, expected):
    assert gates()._imports_cuda_only(around(f"{statement}\n", "import", "import_statement")) is expected


def test_the_called_names_last_part_names_an_nvidia_only_feature():
    code = "if torch.cuda.is_available():\n    torch.cuda.nvtx.range_push('step')\n"
    assert not gates().gated_body(around(code, "if", "if_statement"))  # range_push names nothing NVIDIA-only
    code = "if torch.cuda.is_available():\n    torch.cuda.nvtx_range()\n"
    assert gates().gated_body(around(code, "if", "if_statement"))


def test_a_check_assigned_in_a_class_body_is_read_by_its_siblings_not_as_a_module_flag():
    # a class attribute is no module-level flag: the ifs after it in the class body count, another use does not matter
    code = "class A:\n    ok = torch.cuda.is_available()\n    if ok:\n        pass\n    x = [ok]\n"
    found = gates().assigned_checks(node_at(code, "torch.cuda.is_available()"))
    assert [f.start_point.row for f in found] == [2]
    module = "ok = torch.cuda.is_available()\nif ok:\n    pass\nx = [ok]\n"
    assert gates().assigned_checks(node_at(module, "torch.cuda.is_available()")) == []


def test_a_module_flag_is_read_up_to_its_mention_limit():
    def flag(tests: int) -> str:
        return "ok = torch.cuda.is_available()\n" + "if ok:\n    pass\n" * tests
    # the definition is one mention: MAX_FLAG_USES mentions in all are read, one more gives none
    assert len(gates().assigned_checks(node_at(flag(cg.MAX_FLAG_USES - 1), "torch.cuda.is_available()"))) == cg.MAX_FLAG_USES - 1
    assert gates().assigned_checks(node_at(flag(cg.MAX_FLAG_USES), "torch.cuda.is_available()")) == []
