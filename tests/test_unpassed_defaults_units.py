"""A parameter no caller passes keeps its default (analyzer/context/unpassed_defaults.py), on parsed snippets and plain
facts: the arms and asserts a parameter's default decides, the calls a file makes of the names it binds, the names
that escape (used as values, exported, subclassed), and the project pass that joins them. Each expectation is read
from the module's docstrings; tests/test_unpassed_defaults.py runs the same code through whole analyses."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.context import unpassed_defaults as u
from ascend_feasibility.analyzer.reading import parsing

from tests.snippets import node_at
from tests.test_unpassed_defaults import RIFE  # CogVideo's RIFE_HDv3 Model, the module's own case

# The captures domains/phases/facts.py hands to `read`.
QUERY = parsing.query("python", """
(if_statement condition: (comparison_operator) @condition)
(elif_clause condition: (comparison_operator) @condition)
(if_statement condition: [(attribute) (boolean_operator)] @switch)
(elif_clause condition: [(attribute) (boolean_operator)] @switch)
(call function: (attribute attribute: (identifier) @method))
(class_definition superclasses: (argument_list)) @class
(assert_statement (comparison_operator) @assert)
(call function: (identifier) @called)
""")
ESCAPES = parsing.query("python", u.ESCAPES)
ATTRIBUTE_CALLS = parsing.query("python", u.ATTRIBUTE_CALLS)



def tree_of(code: str):
    return parsing.parse("python", code.encode())


def read(code: str, escapes_read: list | None = None) -> u.DefaultFacts:
    tree = tree_of(code)
    found = parsing.captures(QUERY, tree)

    def escapes():
        if escapes_read is not None:
            escapes_read.append(True)
        return parsing.captures(ESCAPES, tree)

    return u.read(tree, code, found.get("condition", []) + found.get("switch", []), found.get("assert", []),
                  found.get("called", []), found.get("method", []), parsing.captures(ATTRIBUTE_CALLS, tree),
                  found.get("class", []), escapes)


def arms(code: str) -> list[tuple]:
    return read(code).arms


def reading(node) -> "u._Reading":
    """The unit's reading as read() makes it: the parameters _target can read, from the node's own tree."""
    root = node
    while root.parent is not None:
        root = root.parent
    return u._Reading(u._defaulted_parameters(root))


def decided(code: str, needle: str, holds: bool):
    node = node_at(code, needle)
    return u._decided(node, holds, reading(node))


# read: arms -------------------------------------------------------------------------------------------------------
def test_the_rife_arm_is_read_with_every_field():
    assert arms(RIFE) == [(9, 9, "Model", "local_rank", 0, "-1", "line 8: if local_rank != -1:", False)]


def test_an_assert_the_default_passes_is_read_as_an_assert():
    code = ("class ParallelContext:\n"
            "    def __init__(self, size: int, backend: str = \"nccl\"):\n"
            "        assert backend == \"nccl\", \"Only nccl\"\n")
    assert arms(code) == [(3, 3, "ParallelContext", "backend", 1, '"nccl"', 'line 3: assert backend == "nccl", "Only nccl"',
                           True)]


def test_an_assert_over_lines_ends_on_its_last_line():
    code = "def f(backend='nccl'):\n    assert backend == 'nccl', (\n        'only nccl')\n"
    assert arms(code) == [(2, 3, "f", "backend", 0, "'nccl'", "line 2: assert backend == 'nccl', (", True)]


def test_a_long_assert_is_cut_at_100_characters():
    message = "m" * 120
    code = f"def f(backend='nccl'):\n    assert backend == 'nccl', '{message}'\n"
    assert arms(code)[0][6] == "line 2: " + f"assert backend == 'nccl', '{message}'"[:100]


def test_an_assert_the_default_fails_is_not_read():
    assert arms("def f(backend='nccl'):\n    assert backend == 'gloo'\n") == []


def test_a_comparison_outside_an_assert_statement_is_not_an_assert():
    code = "def f(a=0):\n    x = a == 0\n"
    node = node_at(code, "a == 0")
    assert u._assert(node, reading(node)) == []


@pytest.mark.parametrize("kind", ["if", "assert"])
def test_only_the_first_200_conditions_are_read(kind):
    line = "    if a == 1:\n        pass\n" if kind == "if" else "    assert a == 0\n"
    code = "def f(a=0):\n" + line * 201
    found = arms(code)
    assert len(found) == 200
    assert found[-1][0] == (2 * 200 + 1 if kind == "if" else 201)


def test_ifs_and_asserts_are_read_beside_each_other():
    code = "def f(a=0):\n    if a == 1:\n        pass\n    assert a == 0\n"
    assert [arm[-1] for arm in arms(code)] == [False, True]


# read: calls ------------------------------------------------------------------------------------------------------
def test_calls_of_a_bound_name_are_counted_with_their_widest_shape():
    code = ("from pkg.model import Model\n"
            "Model()\n"
            "Model(1, 2, x=3)\n"
            "Model(1, b=y)\n")
    assert read(code).calls == {"Model": (3, 2, ["b", "x=3"], False)}


def test_calls_nested_in_each_others_arguments_keep_their_own_shapes():
    # ATTRIBUTE_CALLS' three capture lists line up call by call: a misaligned one would give `cat` another's arguments
    code = ("import torch\nimport pkg\n"
            "torch.cat([torch.zeros(1, 2), self.f(3)], dim=pkg.sub.g(4, k=5))\n"
            "torch.zeros(x for x in y)\n")
    assert read(code).calls == {"cat": (1, 1, ["dim"], False), "zeros": (2, 2, [], False), "g": (1, 1, ["k=5"], False)}


def test_any_unpacking_call_marks_the_name():
    code = "from pkg.model import Model\nModel(*a)\nModel()\n"
    assert read(code).calls == {"Model": (2, 0, [], True)}
    code = "from pkg.model import Model\nModel()\nModel(**k)\n"
    assert read(code).calls == {"Model": (2, 0, [], True)}


def test_calls_of_names_the_file_does_not_bind_are_not_recorded():
    assert read("Model(1)\nprint(2)\n").calls == {}


def test_a_call_through_an_alias_is_recorded_under_the_original_name():
    assert read("from pkg.model import Model as M\nM(local_rank=0)\n").calls == {"Model": (1, 0, ["local_rank=0"], False)}


def test_a_star_import_records_any_name():
    assert read("from pkg.model import *\nModel()\n").calls == {"Model": (1, 0, [], False)}


# read: escapes ----------------------------------------------------------------------------------------------------
def test_names_in_all_escape_only_when_the_file_spells_all():
    # marked as exported: project_calls escapes the names, and a "cuda" default every call in the project passes is
    # decided all the same (propagation.project_overridden_defaults)
    assert read("__all__ = ['Model', \"build\"]\n").escaped == [u.EXPORTED + "Model", u.EXPORTED + "build"]


def test_a_file_binding_nothing_does_not_read_the_escapes():
    seen: list = []
    assert read("x = 1\nf(y)\n", seen).escaped == []
    assert seen == []
    read("def g():\n    pass\n", seen)
    assert seen == [True]


@pytest.mark.parametrize(("code", "escaped"), [
    ("from m import Model\nf(Model)\n", ["Model"]),  # an argument
    ("from m import Model as M\nf(M)\n", ["Model"]),  # under its original name
    ("from m import Model\nf(key=Model)\n", ["Model"]),
    ("from m import Model\nd = {'a': Model}\n", ["Model"]),
    ("from m import Model\nd = [Model]\n", ["Model"]),
    ("from m import Model\nd = (Model, 1)\n", ["Model"]),
    ("from m import Model\nd = Model\n", ["Model"]),
    ("def g():\n    return g\n", ["g"]),
    ("from m import Model\nisinstance(x, Model)\n", []),  # a type check calls nothing
    ("from m import Model\nissubclass(x, Model)\n", []),
    ("from m import Model\nf(Other)\n", []),  # not bound here
    ("import m\nx = getattr(m, 'Model')\n", ["Model"]),  # looked up by name
])
def test_bound_names_used_as_values_escape(code, escaped):
    assert read(code).escaped == escaped


def test_base_classes_escape_by_their_last_name():
    code = "class A(Base, pkg.mod.Other, Generic[T], metaclass=Meta):\n    pass\n"
    assert read(code).escaped == ["Base", "Other"]


def test_a_class_without_bases_gives_no_escape():
    code = "class A:\n    pass\n"
    tree = tree_of(code)
    assert u.read(tree, code, [], [], [], [], {}, [tree.named_children[0]], lambda: {}).escaped == []


def test_escaped_names_are_sorted():
    assert read("from m import b, a\nf(b)\nf(a)\n").escaped == ["a", "b"]


# unpassed_defaults ------------------------------------------------------------------------------------------------
@dataclass
class Facts:
    path: str
    module: str = ""
    default_arms: list = field(default_factory=list)
    default_taken: list = field(default_factory=list)
    default_arm_calls: list = field(default_factory=list)
    default_registered: list = field(default_factory=list)
    default_recorded: list = field(default_factory=list)
    default_reads: list = field(default_factory=list)
    default_hops: list = field(default_factory=list)
    default_foreign: list = field(default_factory=list)
    default_option_keywords: list = field(default_factory=list)
    default_forwards: list = field(default_factory=list)
    option_nones: list = field(default_factory=list)
    options: list = field(default_factory=list)
    option_values: list = field(default_factory=list)
    launch_flags: list = field(default_factory=list)
    default_calls: dict = field(default_factory=dict)
    default_escaped: list = field(default_factory=list)
    star_imports: list = field(default_factory=list)


def context(roles: dict[str, str] | None = None):
    return SimpleNamespace(of=lambda path: SimpleNamespace(role=(roles or {}).get(path, "product"), reach="runs"))


ARM = (9, 9, "Model", "local_rank", 0, "-1", "line 8: if local_rank != -1:", False)
ASSERT = (7, 7, "Context", "backend", 1, '"nccl"', 'line 7: assert backend == "nccl"', True)


def model(**kwargs) -> Facts:
    return Facts("pkg/model.py", "pkg.model", [ARM], **kwargs)


def test_an_arm_no_call_takes_is_given_with_its_reason():
    facts = [model(), Facts("pkg/app.py", "pkg.app", default_calls={"Model": (2, 0, [], False)})]
    assert u.unpassed_defaults(facts, context()) == {"pkg/model.py": [(9, 9, (
        "`local_rank=-1` by default (Model()), and none of its 2 calls in the project passes local_rank (pkg/app.py); "
        "line 8: if local_rank != -1:"), False)]}


TAKEN = ("AttentionBlock", "attention_type", 3, '"flash"', 'line 14: if attention_type == "flash":', ("QKVFlashAttention",))


@pytest.mark.parametrize("calls, on_path", [
    ((3, 1, [], False), True),  # the default, three times
    ((1, 1, ['attention_type="flash"'], False), True),  # the default passed by name
    ((1, 1, ['attention_type="legacy"'], False), False),  # another value
    ((1, 4, [], False), False),  # positionally: not known
])
def test_names_an_arm_taken_by_default_calls_are_on_the_default_path(calls, on_path):
    facts = [Facts("pkg/unet.py", "pkg.unet", default_taken=[TAKEN], default_calls={"AttentionBlock": calls})]
    found = u.default_path(facts, context())
    assert ("QKVFlashAttention" in found) == on_path
    if on_path:
        assert "`attention_type=\"flash\"` by default (AttentionBlock())" in found["QKVFlashAttention"]
        assert 'pkg/unet.py line 14: if attention_type == "flash": calls QKVFlashAttention()' in found["QKVFlashAttention"]


def test_an_arm_a_default_takes_is_read_with_the_names_it_calls():
    facts = read("class Block:\n    def __init__(self, kind=\"flash\"):\n        if kind == \"flash\":\n"
                 "            self.a = Flash()\n        else:\n            self.a = Plain()\n\n\n"
                 "class Flash:\n    pass\n\n\nclass Plain:\n    pass\n")
    assert [(name, callees) for name, _, _, _, _, callees in facts.taken] == [("Block", ("Flash",))]
    assert [(first, name) for first, _, name, *_ in facts.arms] == [(5, "Block")]  # the else arm, turned away


def test_calls_from_several_files_are_summed_and_counted():
    facts = [model(default_calls={"Model": (1, 0, ["local_rank=-1"], False)}),
             Facts("pkg/b.py", default_calls={"Model": (2, 0, [], False)}),
             Facts("pkg/a.py", default_calls={"Model": (3, 0, [], False)})]
    [(_, _, reason, _)] = u.unpassed_defaults(facts, context())["pkg/model.py"]
    assert "none of its 6 calls in the project passes local_rank (pkg/a.py and 2 more files)" in reason


def test_an_assert_keeps_its_flag_and_every_arm_of_a_file_is_read():
    facts = [Facts("pkg/model.py", "pkg.model", [ARM, ASSERT]),
             Facts("pkg/app.py", default_calls={"Model": (1, 0, [], False), "Context": (1, 1, [], False)})]
    found = u.unpassed_defaults(facts, context())["pkg/model.py"]
    assert [(first, is_assert) for first, _, _, is_assert in found] == [(9, False), (7, True)]


@pytest.mark.parametrize("change", [
    {"calls": (1, 1, [], False)},  # positionally
    {"calls": (1, 0, ["local_rank"], False)},  # a value not known
    {"calls": (1, 0, ["local_rank=0"], False)},  # another value
    {"calls": (1, 0, [], True)},  # *args
    {"escaped": True},  # used as a value somewhere
    {"nothing": True},  # never called
    {"role": "tests"},
    {"star": "pkg.model"},  # re-exported whole
])
def test_what_keeps_the_arm(change):
    arms_first = [Facts("pkg/model.py", "pkg.model", [ARM, ASSERT]),
                  Facts("pkg/app.py", default_calls={"Context": (1, 1, [], False)})]
    if "nothing" not in change:
        arms_first[1].default_calls["Model"] = change.get("calls", (1, 0, [], False))
    if "escaped" in change:
        arms_first[1].default_escaped = ["Model"]
    if "star" in change:
        arms_first[1].star_imports = [change["star"]]
    roles = {"pkg/model.py": change["role"]} if "role" in change else None
    found = u.unpassed_defaults(arms_first, context(roles)).get("pkg/model.py", [])
    if "role" in change or "star" in change:
        assert found == []
    else:
        assert [arm[-1] for arm in found] == [True]  # the assert stays read: only Model's arm is kept


def test_a_file_left_out_does_not_stop_the_next():
    facts = [Facts("tests/test_model.py", "tests.test_model", [ARM]), model(),
             Facts("pkg/app.py", default_calls={"Model": (1, 0, [], False)})]
    assert list(u.unpassed_defaults(facts, context({"tests/test_model.py": "tests"}))) == ["pkg/model.py"]


def test_two_files_calling_name_the_first_and_one_more():
    facts = [model(), Facts("pkg/b.py", default_calls={"Model": (1, 0, [], False)}),
             Facts("pkg/a.py", default_calls={"Model": (1, 0, [], False)})]
    [(_, _, reason, _)] = u.unpassed_defaults(facts, context())["pkg/model.py"]
    assert "(pkg/a.py and 1 more files)" in reason
    facts = [model(), Facts("pkg/a.py", default_calls={"Model": (1, 0, [], False)})]
    [(_, _, reason, _)] = u.unpassed_defaults(facts, context())["pkg/model.py"]
    assert "(pkg/a.py);" in reason and "more files" not in reason


def test_a_build_file_is_counted():
    facts = [model(), Facts("pkg/app.py", default_calls={"Model": (1, 0, [], False)})]
    assert list(u.unpassed_defaults(facts, context({"pkg/model.py": "build"}))) == ["pkg/model.py"]


def test_a_file_without_arms_gives_nothing():
    facts = [Facts("pkg/app.py", default_calls={"Model": (1, 0, [], False)})]
    assert u.unpassed_defaults(facts, context()) == {}


@pytest.mark.parametrize(("module", "starred", "expected"), [
    ("pkg.comm", {"pkg.comm"}, True),
    ("src.pkg.comm", {"pkg.comm"}, True),  # a src/ layout
    ("xpkg.comm", {"pkg.comm"}, False),
    ("pkg.comm", {"pkg"}, False),
    ("pkg.comm", set(), False),
    ("", {""}, False),  # the analysed folder's own __init__.py
])
def test_re_exported(module, starred, expected):
    assert u.re_exported(module, starred) is expected


@pytest.mark.parametrize(("shape", "expected"), [
    ((1, 0, [], False), False),
    ((1, 0, [], True), True),  # *args
    ((1, 1, [], False), False),  # the parameter is the second argument: one positional does not reach it
    ((1, 2, [], False), True),
    ((1, 0, ["local_rank"], False), True),  # a value that is no literal
    ((1, 0, ["local_rank=-1"], False), False),  # the default itself
    ((1, 0, ["local_rank=-1.0"], False), False),  # equal to it
    ((1, 0, ["local_rank=0"], False), True),
    ((1, 0, ["rank=0", "local_rank=-1"], False), False),  # another keyword
    ((1, 0, ["local_rank=x"], False), True),  # unknown
])
def test_passes(shape, expected):
    assert u._passes(shape, "local_rank", 1, "-1") is expected


def test_an_unknown_default_is_passed_by_any_keyword():
    assert u._passes((1, 0, ["mode=abc"], False), "mode", 0, "abc") is True


# _arms ------------------------------------------------------------------------------------------------------------
def test_a_comparison_outside_an_if_gives_no_arm():
    code = "def f(a=0):\n    while a == 1:\n        pass\n"
    node = node_at(code, "a == 1")
    assert u._arms(node, reading(node)) == []


def test_an_arm_the_default_takes_gives_the_rest_of_the_chain():
    code = ("def f(a=-1):\n"
            "    if a == -1:\n"
            "        x = 1\n"
            "    elif b:\n"
            "        x = 2\n"
            "    else:\n"
            "        x = 3\n"
            "        x = 4\n")
    assert [(first, last) for first, last, *_ in arms(code)] == [(4, 5), (6, 8)]
    assert all(arm[6] == "line 2: if a == -1:" for arm in arms(code))


def test_an_elif_true_by_default_gives_nothing():
    code = "def f(a=-1):\n    if b:\n        pass\n    elif a == -1:\n        pass\n    else:\n        pass\n"
    assert arms(code) == []


def test_an_elif_false_by_default_gives_its_body():
    code = "def f(a=-1):\n    if b:\n        pass\n    elif a == 1:\n        pass\n        pass\n"
    assert arms(code) == [(5, 6, "f", "a", 0, "-1", "line 4: elif a == 1:", False)]


def test_an_and_is_decided_by_a_term_false_by_default():
    code = "def f(a=-1):\n    if ok and a != -1:\n        pass\n"
    assert [arm[:2] for arm in arms(code)] == [(3, 3)]


def test_an_or_decides_nothing():
    assert arms("def f(a=-1):\n    if ok or a != -1:\n        pass\n    else:\n        pass\n") == []
    assert arms("def f(a=-1):\n    if a == -1 or ok:\n        pass\n    else:\n        pass\n") == []


def test_the_condition_is_its_first_line_with_spaces_collapsed_and_cut_at_100():
    code = "def f(a=-1):\n    if (a   !=  -1\n            and ok):\n        pass\n"
    node = node_at(code, "(a   !=  -1\n            and ok)")
    assert u._arms(node, reading(node))[0][6] == "line 2: if (a != -1"
    name = "v" * 120
    code = f"def f(a=-1):\n    if a != -1 and {name}:\n        pass\n"
    condition = arms(code)[0][6]
    assert condition == "line 2: " + f"if a != -1 and {name}:"[:100]


# _decided ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("signature", "condition", "holds", "expected"), [
    ("a=-1", "a != -1", False, ("f", "a", 0, "-1")),
    ("a=-1", "-1 != a", False, ("f", "a", 0, "-1")),  # swapped
    ("a=-1", "a == -1", True, ("f", "a", 0, "-1")),
    ("a=-1", "a == -1", False, None),
    ("b, a=0", "a > 0", False, ("f", "a", 1, "0")),
    ("b, a=0", "0 < a", False, ("f", "a", 1, "0")),
    ("a=0", "a >= 1", False, ("f", "a", 0, "0")),
    ("a=0", "1 <= a", False, ("f", "a", 0, "0")),
    ("a=0", "a <= -1", False, ("f", "a", 0, "0")),
    ("a=0", "a < 0", False, ("f", "a", 0, "0")),
    ("a=0", "3 > a", True, ("f", "a", 0, "0")),
    ("a=None", "a is not None", False, ("f", "a", 0, "None")),
    ("a=None", "None is a", True, ("f", "a", 0, "None")),
    ("a=False", "a is True", False, ("f", "a", 0, "False")),
    ("a=1", "a is 1", False, None),  # `is` with a number: not a singleton
    ("a=None", "a is 1", False, None),
    ("a=1", "a is None", False, None),
    ("a=None", "a > 0", False, None),  # TypeError
    ("a=None", "0 < a", False, None),
    ("a=0", "a in (1, 2)", False, None),  # no comparison with a literal
    ("a=0", "a not in (1, 2)", True, None),
    ("a=0", "a == b", False, None),
    ("a=0", "a == [1]", False, None),  # a list is no literal read here
    ("a=0", "a != (1, 2)", True, None),
    ("a=0", "0 == 1", False, None),
    ("a=0", "a.x == 1", False, None),
    ("a=0", "a == -b", False, None),  # a unary operator that is no literal
    ("a=0", "0 < a < 2", False, None),  # chained
    ("a='x'", "a == 'y'", False, ("f", "a", 0, "'x'")),
    ("a=-b", "a == 1", False, None),  # a default that is no literal
])
def test_decided(signature, condition, holds, expected):
    code = f"def f({signature}):\n    if {condition}:\n        pass\n"
    assert decided(code, condition, holds) == expected


def test_decided_reads_a_parameter_s_truth():
    assert decided("def f(a=0):\n    if not a:\n        pass\n", "not a", True) == ("f", "a", 0, "0")
    assert decided("def f(a=0):\n    if not a:\n        pass\n", "not a", False) is None
    assert decided("def f(a=True):\n    if not a:\n        pass\n", "not a", False) == ("f", "a", 0, "True")
    assert decided("def f(a=x):\n    if not a:\n        pass\n", "not a", True) is None  # no literal default
    assert decided("def f(a=0):\n    if not b:\n        pass\n", "not b", True) is None  # no parameter


def test_a_parameter_the_function_rebinds_decides_nothing():
    code = "def f(a=0):\n    a = 1\n    if a == 1:\n        pass\n"
    assert decided(code, "a == 1", False) is None


def test_the_is_not_operator_is_spelled_with_one_space():
    code = "def f(a=None):\n    if a is   not None:\n        pass\n"
    assert decided(code, "a is   not None", False) == ("f", "a", 0, "None")


# _target ----------------------------------------------------------------------------------------------------------
def target(code: str, needle: str = "a == 1", occurrence: int = 0):
    """_target of the parameter name a comparison reads (its left side)."""
    found = u._target(node_at(code, needle, occurrence).named_children[0])
    return found[1] if found is not None else None


def test_a_parameter_of_an_enclosing_function_is_its():
    code = "def outer(a=0):\n    def inner(b):\n        def deeper(c):\n            return a == 1\n"
    assert target(code) == ("outer", "a", 0, "0")


def test_a_name_no_enclosing_function_has_is_no_parameter():
    assert target("a = 0\nx = a == 1\n") is None
    assert target("def f(b=0):\n    return a == 1\n") is None


@pytest.mark.parametrize("code", [
    "def f(a):\n    return a == 1\n",  # no default
    "def f(a=g()):\n    return a == 1\n",  # not a literal
    "@dec\ndef f(a=0):\n    return a == 1\n",  # decorated
    "class M:\n    @staticmethod\n    def run(a=0):\n        return a == 1\n",  # a decorated method
    "class M:\n    def forward(self, a=0):\n        return a == 1\n",  # called as `model(x)`
    "class M:\n    def __eq__(self, a=0):\n        return a == 1\n",  # a dunder other than __call__: called as `m == x`
    "def f():\n    class M:\n        def run(self, a=0):\n            return a == 1\n",  # a method of a local class
    "class M:\n    @dec\n    def __init__(self, a=0):\n        return a == 1\n",
    "def f():\n    class M:\n        def __init__(self, a=0):\n            return a == 1\n",  # a class in a function
    "class O:\n    class M:\n        def __init__(self, a=0):\n            return a == 1\n",  # a class in a class
    "@dec\nclass M:\n    def __init__(self, a=0):\n        return a == 1\n",  # a decorated class
    "def f():\n    def __init__(self, a=0):\n        return a == 1\n",  # an __init__ in a function
    "def f():\n    def g(a=0):\n        return a == 1\n",  # a nested function
    "class M:\n    def __init__(a=0):\n        return a == 1\n",  # no self: nothing a call passes
    "if x:\n    def f(a=0):\n        return a == 1\n",  # a function behind an if
])
def test_what_has_no_target(code):
    assert target(code) is None


def test_a_method_of_a_module_level_class_is_read_by_its_calls_spelling():
    # "Class.method", position after self: unpassed_defaults.Forwards.method_kept reads `.method(...)` calls
    assert target("class M:\n    def run(self, b, a=0):\n        return a == 1\n") == ("M.run", "a", 1, "0")


def test_call_of_a_module_level_class_is_read_through_its_instances():
    # `m(x)`: judged on the calls of module-level instances (instance_calls.py)
    assert target("class M:\n    def __call__(self, a=0):\n        return a == 1\n") == ("M.__call__", "a", 0, "0")


def test_a_module_function_and_a_class_init():
    assert target("def f(b, a=0):\n    return a == 1\n") == ("f", "a", 1, "0")
    assert target("class M:\n    def __init__(self, b, a: int = 0):\n        return a == 1\n") == \
        ("M", "a", 1, "0")


def test_the_function_found_is_returned():
    code = "def f(a=0):\n    return a == 1\n"
    function, _ = u._target(node_at(code, "a == 1").named_children[0])
    assert function.type == "function_definition" and parsing.text(function.child_by_field_name("name")) == "f"


# _rebound ---------------------------------------------------------------------------------------------------------
def function_of(body: str):
    return tree_of("def f(a=0, b=0):\n" + body).named_children[0]


def rebinds(function, name: str) -> bool:
    rebound = u._rebound(function)
    return rebound is None or name in rebound


def test_one_walk_reads_every_rebound_name():
    assert set(u._rebound(function_of("    a = 1\n    for b, c in x:\n        pass\n    print(d)\n"))) == {"a", "b", "c"}


@pytest.mark.parametrize("body", [
    "    a = 1\n",
    "    a += 1\n",
    "    a: int = 1\n",
    "    x, a = 1, 2\n",
    "    (x, a) = 1, 2\n",
    "    [x, a] = 1, 2\n",
    "    x, (y, a) = 1, (2, 3)\n",
    "    for a in range(2):\n        pass\n",
    "    with open(p) as a:\n        pass\n",
    "    with open(p) as (x, a):\n        pass\n",
    "    with open(p) as [x, a]:\n        pass\n",
    "    if (a := 2):\n        pass\n",
    "    global a\n",
    "    def g():\n        nonlocal a\n",
    "    if x:\n        a = 1\n",
])
def test_a_rebinding_is_found(body):
    assert rebinds(function_of(body), "a") is True


@pytest.mark.parametrize("body", [
    "    b = a\n",
    "    self.a = 1\n",
    "    a[0] = 1\n",
    "    a.x += 1\n",
    "    for b in a:\n        pass\n",
    "    global b\n",
    "    print(a)\n",
    "    ab = 1\n",
])
def test_a_read_is_no_rebinding(body):
    assert rebinds(function_of(body), "a") is False


def _count(node) -> int:
    return 1 + sum(_count(child) for child in node.children)


def body_of(nodes: int):
    """A function whose body holds exactly `nodes` nodes, none of them assigning `a`."""
    # `pass` is 2 nodes (pass_statement, pass), `b = 1` 5 (statement, assignment, b, =, 1); the block is 1
    for passes in range(5):
        rest = nodes - 1 - 2 * passes
        if rest >= 0 and rest % 5 == 0:
            function = function_of("    pass\n" * passes + "    b = 1\n" * (rest // 5))
            assert _count(function.child_by_field_name("body")) == nodes
            return function
    raise AssertionError(nodes)


def test_a_body_of_20000_nodes_is_taken_as_rebinding():
    assert rebinds(body_of(19999), "a") is False
    assert rebinds(body_of(20000), "a") is True


def test_a_rebinding_past_the_bound_is_not_read_but_still_rebinds():
    assert rebinds(body_of(25001), "a") is True


# _names, _value, _singleton ---------------------------------------------------------------------------------------
def test_names_of_targets():
    code = "a, (b, [c, d]) = x\n"
    left = tree_of(code).named_children[0].named_children[0].child_by_field_name("left")
    assert [parsing.text(n) for n in u._names(left)] == ["a", "b", "c", "d"]
    attribute = tree_of("a.b = 1\n").named_children[0].named_children[0].child_by_field_name("left")
    assert u._names(attribute) == []


def test_value():
    assert u._value("-1") == -1 and u._value("'nccl'") == "nccl" and u._value("None") is None
    assert u._value("x") is u.UNKNOWN and u._value("f()") is u.UNKNOWN and u._value("(") is u.UNKNOWN
    assert u._value("1" * 100) == int("1" * 100)
    assert u._value("1" * 101) is u.UNKNOWN


def test_singleton():
    assert u._singleton(None, True, False) is True
    assert u._singleton(None, 0) is False
    assert u._singleton() is True


# _exported --------------------------------------------------------------------------------------------------------
def test_exported_reads_the_top_level_all():
    code = ("__all__ = ['A', \"B\", f, 3]\n"
            "__all__ += ('C',)\n"
            "__all__: list = ['D']\n"
            "__other__ = ['E']\n"
            "if x:\n    __all__ = ['F']\n"
            "pass\n"
            "__all__ += ['XModelX']\n"
            "print(1)\n"
            "import os\n")
    assert u.exported_names(tree_of(code)) == {"A", "B", "C", "D", "XModelX"}
    assert u.exported_names(tree_of("import os\n__all__ = ['A']\n")) == {"A"}  # read past other statements


# _bindings --------------------------------------------------------------------------------------------------------
def test_bindings():
    code = ("import os\n"
            "import a.b\n"
            "import c.d as cd\n"
            "from pkg.model import Model, build as make\n"
            "from pkg import sub\n"
            "def f():\n    def hidden():\n        pass\n"
            "class K:\n    def method(self):\n        pass\n"
            "@dec\ndef g():\n    pass\n"
            "@dec\nclass D:\n    pass\n"
            "try:\n    from x import T\nexcept ImportError:\n    from y import E\nelse:\n    from z import L\n"
            "finally:\n    from w import F\n"
            "if p:\n    from q import I\nelif r:\n    import s\nelse:\n    from v import V\n"
            "with m:\n    from n import W\n"
            "x = 1\n")
    bound, modules, star, own = u._bindings(tree_of(code))
    assert own == {"f", "K", "g", "D"}  # defined here and never imported
    assert u._bindings(tree_of("def f():\n    pass\nfrom x import f\n"))[3] == set()
    assert bound == {"Model": "Model", "make": "build", "sub": "sub", "f": "f", "K": "K", "g": "g", "D": "D",
                     "T": "T", "E": "E", "L": "L", "F": "F", "I": "I", "V": "V"}
    assert modules == {"os", "a", "cd", "Model", "make", "sub", "T", "E", "L", "F", "I", "V", "s"}
    assert star is False


def test_a_dotted_import_binds_its_root_and_a_dotted_name_its_last_part():
    bound, modules, _, _ = u._bindings(tree_of("import a.b.c\nfrom x import p.q.r\n"))
    assert modules == {"a", "p.q.r"}
    assert bound == {"p.q.r": "r"}  # tree-sitter reads `from x import p.q.r`, which Python refuses


def test_a_star_import_is_seen_even_after_another():
    assert u._bindings(tree_of("from a import *\nfrom b import c\n"))[2] is True
    assert u._bindings(tree_of("from b import c\nfrom a import *\n"))[2] is True


def test_alias():
    imported = tree_of("from a import b as c\n").named_children[0].children_by_field_name("name")[0]
    assert u._alias(imported) == ("b", "c")
    imported = tree_of("import a.b as c\n").named_children[0].children_by_field_name("name")[0]
    assert u._alias(imported) == ("a.b", "c")
    imported = tree_of("import a.b\n").named_children[0].children_by_field_name("name")[0]
    assert u._alias(imported) == ("a.b", "a.b")


# _calls -----------------------------------------------------------------------------------------------------------
def calls(code: str) -> list[tuple[str, str]]:
    """The calls _calls records, in source order, by name and text."""
    tree = tree_of(code)
    found = parsing.captures(QUERY, tree)
    bound, modules, star, _ = u._bindings(tree)
    return [(name, _call_text(code, start, arguments)) for name, arguments, start in sorted(
            u._calls(found.get("called", []), found.get("method", []), parsing.captures(ATTRIBUTE_CALLS, tree),
                     {k.encode(): v for k, v in bound.items()}, modules, star), key=lambda found: found[2].start_byte)]


def _call_text(code: str, start, arguments) -> str:
    """A call's text from the node it starts with to the end of its arguments (what _calls yields of it)."""
    assert arguments.parent.type == "call" and arguments.parent.start_byte == start.start_byte
    return code.encode()[start.start_byte:arguments.end_byte].decode()


def test_calls_of_bound_names_and_through_modules():
    code = ("import pkg.model\n"
            "import other as o\n"
            "from pkg.model import Model as M\n"
            "M(1)\n"
            "pkg.model.Model(2)\n"
            "o.build(3)\n"
            "obj.Model(4)\n"
            "make().Model(5)\n"
            "unknown(6)\n")
    assert calls(code) == [("Model", "M(1)"), ("Model", "pkg.model.Model(2)"), ("build", "o.build(3)")]


def test_calls_through_other_objects_do_not_stop_the_reading():
    code = "import pkg\nobj.Model(1)\nmake().Model(2)\npkg.Model(3)\n"
    assert calls(code) == [("Model", "pkg.Model(3)")]


def test_a_class_constructing_itself():
    code = ("class Model:\n"
            "    @classmethod\n"
            "    def make(cls, r):\n"
            "        return cls(r)\n"
            "    def copy(self):\n"
            "        return self.__class__(1)\n")
    assert calls(code) == [("Model", "cls(r)"), ("Model", "self.__class__(1)")]


def test_cls_and_class_outside_a_class_are_no_calls():
    assert calls("def make(cls):\n    return cls(1)\n") == []
    assert calls("def make(x):\n    return x.__class__(1)\n") == []


def test_a_method_name_not_called_is_no_call():
    code = "import pkg\nt = pkg.Model\n"
    tree = tree_of(code)
    name = node_at(code, "Model")
    assert list(u._calls([], [name], {}, {}, {"pkg"}, False)) == []
    assert tree is not None


def test_a_star_import_records_unbound_names_but_cls_stays_a_class():
    code = "from a import *\nModel(1)\n"
    assert calls(code) == [("Model", "Model(1)")]
    assert calls("from a import *\ndef f(cls):\n    return cls(1)\n") == []


def test_class_name():
    code = "class K:\n    def f(self):\n        return cls(1)\n"
    assert u._class_name(node_at(code, "cls")) == "K"
    assert u._class_name(node_at("cls(1)\n", "cls")) is None


# _shape -----------------------------------------------------------------------------------------------------------
def shape(arguments: str):
    code = f"f({arguments})\n"
    return u._shape(tree_of(code).named_children[0].named_children[0].child_by_field_name("arguments"))


@pytest.mark.parametrize(("arguments", "expected"), [
    ("", (0, set(), False)),
    ("1, x, g()", (3, set(), False)),
    ("1,  # a comment\n  2", (2, set(), False)),
    ("a=1, b=-1, c=None, d='x', e=True, f=1.5", (0, {"a=1", "b=-1", "c=None", "d='x'", "e=True", "f=1.5"}, False)),
    ("a=y, b=[1], c=-y, d=f'x'", (0, {"a", "b", "c", "d"}, False)),
    ("*args", (0, set(), True)),
    ("1, **kwargs", (1, set(), True)),
])
def test_shape(arguments, expected):
    assert shape(arguments) == expected


# _type_check ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("code", "expected"), [
    ("isinstance(x, Model)\n", True),
    ("issubclass(x, Model)\n", True),
    ("f(x, Model)\n", False),
    ("y = [x, Model]\n", False),
    ("y = Model\n", False),
])
def test_type_check(code, expected):
    assert u._type_check(node_at(code, "Model")) is expected


def test_the_parameters_a_unit_can_decide_are_literal_defaults_of_module_functions_and_class_inits():
    code = ("def f(a, b=1, c=None, d=x, *, e='s', g: int = -1):\n    pass\n"
            "class M:\n    def __init__(self, rank=-1, size=n):\n        pass\n    def other(self, flag=False):\n        pass\n"
            "@register\ndef g(h=1):\n    pass\n"
            "if cond:\n    def k(i=1):\n        pass\n"
            "def outer():\n    def inner(j=1):\n        pass\n")
    root = parsing.parse("python", code.encode())
    assert u._defaulted_parameters(root) == frozenset({"b", "c", "e", "g", "rank"})
    assert u._defaulted_parameters(parsing.parse("python", b"def f(a, b=x):\n    pass\n")) == frozenset()


def test_only_tests_inside_the_functions_with_literal_defaults_are_read():
    code = ("def f(a, b=1):\n    if b != 1:\n        pass\n"       # 1-3: read
            "def g(c):\n    if c != 1:\n        pass\n"           # 4-6: no literal default
            "class M:\n    def __init__(self, rank=-1):\n        assert rank == -1\n"  # 7-9: read
            "    def step(self, rank=-1):\n        if rank != -1:\n            pass\n"  # 10-12: a method
            "if b != 1:\n    pass\n")                                # 13: module level
    root = parsing.parse("python", code.encode())
    functions = u._defaulted_functions(root)
    assert [function.start_point.row + 1 for function in functions] == [1, 8]
    inside = u._Spans(functions)
    tests = [n for n in _walk(root) if n.type in {"comparison_operator"}]
    assert [t.start_point.row + 1 for t in tests if inside(t)] == [2, 9]
    assert [t.start_point.row + 1 for t in tests if not inside(t)] == [5, 11, 13]
    assert inside(functions[0]) and not u._Spans([])(functions[0])


def _walk(node):
    yield node
    for child in node.named_children:
        yield from _walk(child)


def test_a_unit_without_such_parameters_reads_no_arm():
    # the comparison is of a parameter with a literal, but its default is no literal: nothing can be decided
    assert arms("def f(a=DEFAULT):\n    if a != -1:\n        pass\n") == []
    assert arms("def f(a=-1):\n    if a != -1:\n        pass\n") != []


SETATTRS = '''
def f(x, name, block):
    setattr(x, "seed", 1)
    setattr(  # a comment is an argument to STORES' anchors too
        x, "device", 2)
    setattr(x, name, 3)
    for k in {"s1", "b1"}:
        setattr(block, k, None)
    setattr(x)
    obj.setattr(x, "other", 4)
'''


def test_the_setattr_keys_from_the_calls_are_the_querys():
    """attribute_hops.foreign finds `setattr` keys among the callees of plain-name calls (the unit's combined query)
    instead of a query of its own over the tree: the same stores, a computed name as any ("store:*")."""
    from ascend_feasibility.analyzer.context import attribute_hops

    tree = tree_of(SETATTRS)
    found = parsing.captures(QUERY, tree)
    by_query = attribute_hops.foreign(tree, [], found.get("method", []), set())
    by_calls = attribute_hops.foreign(tree, [], found.get("method", []), set(), found.get("called", []))
    assert by_calls == by_query
    assert {"store:seed", "store:*", "store:s1", "store:b1"} <= set(by_calls)
    assert "store:other" not in by_calls
    assert "store:device" not in by_calls  # the comment is the first argument the anchors see: the key read is `x`


def test_a_functions_rebindings_are_read_once_per_unit(monkeypatch):
    """The unit's reading keeps _rebound's answer by function: the hops, the string defaults' reads, the forwarded
    keywords and the arms' tests ask it of the same function, and it is read once."""
    code = '''
def run(device="cuda", use_amp=False, rank=-1):
    if rank != -1:
        init()
    print(device)
    step(use_amp=use_amp)


def step(use_amp=False):
    pass


run()
step()
'''
    asked = []
    rebound = u._rebound
    monkeypatch.setattr(u, "_rebound", lambda function: asked.append(function.id) or rebound(function))
    facts = read(code)
    assert facts.arms and facts.forwards and facts.reads
    assert asked and len(asked) == len(set(asked))


def test_forwarded_keywords_from_the_combined_query_are_the_own_querys():
    """`read` takes FORWARDED's captures from the unit's combined query where handed them: the arms are those its
    own query finds."""
    code = '''
def load(path, load_in_8bit=False):
    return from_pretrained(
        path,
        load_in_8bit=load_in_8bit,
    )


load("x")
'''
    tree = tree_of(code)
    found = parsing.captures(QUERY, tree)
    arguments = (tree, code, found.get("condition", []) + found.get("switch", []), found.get("assert", []),
                 found.get("called", []), found.get("method", []), parsing.captures(ATTRIBUTE_CALLS, tree),
                 found.get("class", []), lambda: parsing.captures(ESCAPES, tree), ())
    values = parsing.captures(parsing.query("python", u.FORWARDED), tree).get("value", [])
    own = u.read(*arguments).arms
    assert own and u.read(*arguments, values).arms == own
    assert u.read(*arguments, []).arms == []  # what it is handed is what it reads
