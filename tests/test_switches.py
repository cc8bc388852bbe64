"""Off-by-default switches (analyzer/context/switches.py) on small parsed snippets: which switch makes a site
`optional`, which flag is on by default, and the helpers the project pass shares (declared_option, argument_switch,
first_term, switch_rule). Each expectation is read from the module's docstrings; tests/test_opt_in.py runs the same
reader through whole analyses."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import switches as s
from ascend_feasibility.analyzer.context.guards import Guard, GuardReader
from ascend_feasibility.analyzer.context.switches import ExplainedGuard, SwitchReader
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()
OPT_IN = CONVENTIONS.opt_in
SITE = "xformers_attention(q, k, v)"


def reader() -> SwitchReader:
    guards = GuardReader(CONVENTIONS.guards, CONVENTIONS.backends, tuple(OPT_IN.disabled_values))
    switches = SwitchReader(guards, OPT_IN.argument_objects, OPT_IN.mainstream_switch_tokens,
                            OPT_IN.feature_switch_tokens)
    guards.start_unit()
    return switches


def definition(code: str, needle: str, kind: str = "function_definition"):
    """The `kind` node around the first `needle`."""
    node = node_at(code, needle)
    while node.type != kind:
        node = node.parent
    return node


def switched(code: str, needle: str = SITE, feature: bool = True, occurrence: int = 0):
    """(the deciding statement's first line, the reason's why) when the site is optional, else None."""
    found = reader().guard(node_at(code, needle, occurrence), feature)
    if found is None:
        return None
    assert found.reach == "optional"
    return parsing.text(found.node).splitlines()[0], found.why


def on_by_default(code: str, needle: str, occurrence: int = 0) -> bool:
    return reader().on_by_default(node_at(code, needle, occurrence))


# _off, ExplainedGuard ----------------------------------------------------------------------------------------------
def test_off_is_false_or_none_for_a_flag_shaped_name():
    assert s._off("False", False) and s._off("False", True)
    assert s._off("None", True)
    assert not s._off("None", False)  # `collection=None`: a value not given
    assert not s._off("True", True) and not s._off("0", True) and not s._off("false", True)


def test_an_explained_guard_puts_its_why_before_the_line():
    node = node_at("if use_xformers:\n    pass\n", "if use_xformers:")
    assert ExplainedGuard("optional", node, why="because").reason() == "because; line 1: if use_xformers:"
    assert ExplainedGuard("optional", node).reason() == Guard("optional", node).reason() == "line 1: if use_xformers:"


# parameters --------------------------------------------------------------------------------------------------------
def _param(default: str, name: str = "use_xformers", body: str = f"if {{name}}:\n        return {SITE}") -> str:
    return f"def attend(q, k, v, {name}={default}):\n    {body.format(name=name)}\n    return q\n"


def test_a_parameter_defaulting_to_false_makes_its_branch_optional():
    assert switched(_param("False")) == ("if use_xformers:", "`use_xformers=False` by default (attend())")


def test_a_flag_shaped_parameter_defaulting_to_none_is_off_too():
    assert switched(_param("None")) == ("if use_xformers:", "`use_xformers=None` by default (attend())")
    assert switched(_param("None", name="xformers")) is None  # not flag-shaped: a value not given
    assert switched(_param("False", name="xformers")) == ("if xformers:", "`xformers=False` by default (attend())")


@pytest.mark.parametrize("default", ["True", "1", "'auto'"])
def test_a_parameter_defaulting_to_anything_else_is_no_switch(default):
    assert switched(_param(default)) is None


def test_a_typed_parameter_is_read_like_a_plain_one():
    code = f"def attend(q, use_xformers: bool = False):\n    if use_xformers:\n        return {SITE}\n"
    assert switched(code) == ("if use_xformers:", "`use_xformers=False` by default (attend())")


def test_a_mainstream_switch_is_never_taken():
    assert switched(_param("False", name="use_cuda")) is None
    assert switched(_param("False", name="use-amp_mode")) is None


def test_a_switch_naming_no_feature_is_taken_only_for_a_cuda_only_feature():
    code = _param("False", name="use_stream")
    assert switched(code, feature=False) is None
    assert switched(code, feature=True) == ("if use_stream:", "`use_stream=False` by default (attend())")
    assert switched(_param("False"), feature=False) is not None  # `xformers` is a feature word


def test_a_caller_passing_true_turns_the_parameter_on():
    code = _param("False") + "attend(q, k, v, True)\n"
    assert switched(code) is None
    code = _param("False") + "attend(q, k, v, use_xformers=False)\nattend(q, k, v)\n"
    assert switched(code) == ("if use_xformers:", "`use_xformers=False` by default (attend())")
    code = _param("False") + "attend(q, k, v, None)\n"
    assert switched(code) is not None


def test_a_caller_passing_an_off_switch_leaves_it_off():
    code = _param("False") + "def run(q, use_xformers=False):\n    attend(q, q, q, use_xformers)\n"
    assert switched(code) is not None
    code = _param("False") + "def run(q, use_xformers=True):\n    attend(q, q, q, use_xformers)\n"
    assert switched(code) is None


def test_a_parameter_of_an_outer_function_is_found():
    code = (f"def outer(use_xformers=False):\n    def inner(q):\n        if use_xformers:\n            return {SITE}\n"
            "    return inner\n")
    assert switched(code) == ("if use_xformers:", "`use_xformers=False` by default (outer())")


def test_a_name_that_is_no_parameter_is_no_switch():
    assert switched(f"def attend(q):\n    if use_xformers:\n        return {SITE}\n") is None
    assert switched(f"if use_xformers:\n    {SITE}\n") is None


def test_a_parameter_without_default_is_a_switch_when_every_call_passes_one():
    code = (f"def replace(unet, xformers):\n    if xformers:\n        {SITE}\n"
            "parser.add_argument('--xformers', action='store_true')\n"
            "replace(unet, args.xformers)\n")
    assert switched(code) == ("if xformers:", "`--xformers` is off unless given (line 4)")
    assert switched(code + "replace(unet, True)\n") is None
    assert switched(code + "replace(unet)\n") is None  # the argument not given: nothing known
    # a keyword argument for it
    assert switched(code.replace("replace(unet, args.xformers)", "replace(xformers=args.xformers, unet=unet)")) is not None


def test_a_method_parameter_is_counted_after_self():
    code = ("class A:\n"
            f"    def replace(self, unet, xformers):\n        if xformers:\n            {SITE}\n"
            "    def run(self, args):\n        self.replace(unet, args.xformers)\n"
            "parser.add_argument('--xformers', action='store_true')\n")
    assert switched(code) == ("if xformers:", "`--xformers` is off unless given (line 7)")
    assert switched(code.replace("self.replace(unet, args.xformers)", "self.replace(args.xformers, unet)")) is None


def test_a_parameter_without_default_and_no_caller_is_no_switch():
    assert switched(f"def replace(unet, xformers):\n    if xformers:\n        {SITE}\n") is None


def test_arguments_passed_through_parameters_are_followed_four_levels():
    def chain(levels: int) -> str:
        lines = [f"def f0(x, xformers):\n    if xformers:\n        {SITE}\n"]
        for i in range(1, levels):
            lines.append(f"def f{i}(x, xformers):\n    f{i - 1}(x, xformers)\n")
        lines.append(f"parser.add_argument('--xformers', action='store_true')\nf{levels - 1}(x, args.xformers)\n")
        return "".join(lines)
    assert switched(chain(4)) is not None
    assert switched(chain(5)) is None


# where the site sits -----------------------------------------------------------------------------------------------
def test_an_elif_arm_is_reached_only_with_its_switch_on():
    code = f"def attend(q, use_xformers=False):\n    if q:\n        pass\n    elif use_xformers:\n        {SITE}\n"
    assert switched(code) == ("elif use_xformers:", "`use_xformers=False` by default (attend())")


def test_an_else_arm_or_the_condition_itself_is_not_switched():
    code = f"def attend(q, use_xformers=False):\n    if use_xformers:\n        pass\n    else:\n        {SITE}\n"
    assert switched(code) is None
    code = f"def attend(q, use_xformers=False):\n    if q:\n        pass\n    elif use_xformers:\n        pass\n    else:\n        {SITE}\n"
    assert switched(code) is None
    code = "def attend(q, use_xformers=False):\n    if xformers_ok() and use_xformers:\n        pass\n"
    assert switched(code, needle="xformers_ok()") is None  # the left operand runs whatever the switch
    code = "def attend(q, use_xformers=False):\n    if q:\n        pass\n    elif xformers_ok() and use_xformers:\n        pass\n"
    assert switched(code, needle="xformers_ok()") is None


def test_the_right_operand_of_an_and_runs_only_with_its_switch_on():
    code = "def attend(q, use_xformers=False):\n    if use_xformers and xformers_ok():\n        pass\n"
    assert switched(code, needle="xformers_ok()") == ("use_xformers and xformers_ok()",
                                                       "`use_xformers=False` by default (attend())")
    code = "def attend(q, use_xformers=False):\n    if q:\n        pass\n    elif use_xformers and xformers_ok():\n        pass\n"
    assert switched(code, needle="xformers_ok()") is not None
    code = "def attend(q, use_xformers=False):\n    if use_xformers or xformers_ok():\n        pass\n"
    assert switched(code, needle="xformers_ok()") is None  # `or`: runs while the switch is off


def test_the_else_arm_of_a_negated_switch_is_reached_only_with_it_on():
    # LlamaGen's `if not args.debug: device = rank % n else: device = 'cuda'` (round 23 A1 31)
    code = f"def attend(q, use_xformers=False):\n    if not use_xformers:\n        pass\n    else:\n        {SITE}\n"
    assert switched(code) == ("if not use_xformers:", "`use_xformers=False` by default (attend())")
    code = ("import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--debug', action='store_true')\n"
            "args = parser.parse_args()\nif not args.debug:\n    device = local_device()\nelse:\n    device = 'cuda'\n")
    assert switched(code, needle="'cuda'", feature=False) == ("if not args.debug:", "`--debug` is off unless given (line 3)")
    assert switched(code, needle="local_device()", feature=False) is None  # the arm the default takes
    # not the switch's arm: an elif before the else, a switch on by default, a test that is no negation
    code = f"def attend(q, use_xformers=False):\n    if not use_xformers:\n        pass\n    elif q:\n        pass\n    else:\n        {SITE}\n"
    assert switched(code) is None
    code = f"def attend(q, use_xformers=True):\n    if not use_xformers:\n        pass\n    else:\n        {SITE}\n"
    assert switched(code) is None
    code = f"def attend(q, use_xformers=False):\n    if not q:\n        pass\n    else:\n        {SITE}\n"
    assert switched(code) is None


CLICK = ("import click\nimport torch\n\n\ndef init_model(path, compile=False):\n    model = load(path)\n"
         "    if compile:\n        model = torch.compile(model)\n    return model\n\n\n@click.command()\n"
         "@click.option(\"--checkpoint\", type=str)\n@click.option({declaration})\ndef main(checkpoint, compile):\n"
         "    init_model(checkpoint, compile=compile)\n")


@pytest.mark.parametrize("declaration", ['"--compile/--no-compile", default=False', '"--compile", is_flag=True',
                                         '"--compile/--no-compile"', '"--use-compile", "compile", is_flag=True'])
def test_a_click_flag_off_by_default_is_a_switch(declaration):
    # fish-speech's `--compile/--no-compile` (default False) reaching init_model(compile=compile) (round 23 A1 44)
    found = switched(CLICK.format(declaration=declaration), needle="torch.compile(model)")
    assert found == ("if compile:", "`compile=False` by default (init_model())")  # its one caller passes the flag
    main = definition(CLICK.format(declaration=declaration), "def main")
    assert s.click_option_off(main, "compile") == f"`{'--use-compile' if 'use' in declaration else '--compile'}` is off unless given (line 14)"


@pytest.mark.parametrize("declaration", ['"--compile/--no-compile", default=True', '"--compile", default=1',
                                         '"--other", is_flag=True', '"--compile", type=bool'])
def test_a_click_option_on_by_default_or_of_another_name_is_no_switch(declaration):
    assert switched(CLICK.format(declaration=declaration), needle="torch.compile(model)") is None
    assert s.click_option_off(definition(CLICK.format(declaration=declaration), "def main"), "compile") is None


def test_the_true_arm_of_a_conditional_expression_is_switched():
    code = f"def attend(q, k, v, use_xformers=False):\n    return {SITE} if use_xformers else sdpa(q, k, v)\n"
    assert switched(code) == (f"{SITE} if use_xformers else sdpa(q, k, v)", "`use_xformers=False` by default (attend())")
    code = f"def attend(q, k, v, use_xformers=False):\n    return sdpa(q, k, v) if use_xformers else {SITE}\n"
    assert switched(code) is None


@pytest.mark.parametrize("condition", ["use_xformers and q is not None", "q is not None and use_xformers",
                                       "(use_xformers)", "(q and (use_xformers))"])
def test_one_term_of_an_and_is_enough(condition):
    code = f"def attend(q, use_xformers=False):\n    if {condition}:\n        return {SITE}\n"
    assert switched(code) == (f"if {condition}:", "`use_xformers=False` by default (attend())")


@pytest.mark.parametrize("condition", ["use_xformers or q", "not use_xformers", "use_xformers == 1",
                                       "q is None and (use_xformers or q)"])
def test_an_or_a_not_or_a_comparison_decides_nothing(condition):
    code = f"def attend(q, use_xformers=False):\n    if {condition}:\n        return {SITE}\n"
    assert switched(code) is None


def test_nested_ands_are_read_eight_levels_deep():
    def nested(levels: int) -> str:
        condition = "use_xformers"
        for _ in range(levels):
            condition = f"q and ({condition})"
        return f"def attend(q, use_xformers=False):\n    if {condition}:\n        return {SITE}\n"
    assert switched(nested(8)) is not None
    assert switched(nested(9)) is None


def test_after_an_early_exit_the_rest_is_switched():
    for exit_ in ("return q", "raise ValueError('off')", "return"):
        code = f"def attend(q, use_xformers=False):\n    if not use_xformers:\n        {exit_}\n    x = 1\n    return {SITE}\n"
        assert switched(code) == ("if not use_xformers:", "`use_xformers=False` by default (attend())")
    code = (f"def attend(q, use_xformers=False):\n    if not use_xformers:\n        return q\n        # nothing more\n"
            f"    return {SITE}\n")
    assert switched(code) is not None


@pytest.mark.parametrize("check", [
    "if not use_xformers:\n        return q\n    else:\n        pass\n",  # an if with an else is no early exit
    "if not use_xformers:\n        return q\n    elif q:\n        pass\n",
    "if not use_xformers:\n        print(q)\n",  # does not leave
    "if use_xformers:\n        return q\n",  # leaves with the switch on
    "if not use_cuda:\n        return q\n",  # a mainstream switch
])
def test_other_checks_before_the_site_are_no_early_exit(check):
    code = f"def attend(q, use_xformers=False, use_cuda=False):\n    {check}    return {SITE}\n"
    assert switched(code) is None


def test_an_early_exit_is_looked_for_fifty_statements_back():
    def code(between: int) -> str:
        return ("def attend(q, use_xformers=False):\n    if not use_xformers:\n        return q\n"
                + "    x = 1\n" * between + f"    return {SITE}\n")
    assert switched(code(49)) is not None
    assert switched(code(50)) is None


def test_an_early_exit_further_back_among_other_ifs_is_found():
    code = ("def attend(q, use_xformers=False):\n    if not use_xformers:\n        return q\n"
            "    if q:\n        return q\n    if not q:\n        return q\n"
            f"    return {SITE}\n")
    assert switched(code) == ("if not use_xformers:", "`use_xformers=False` by default (attend())")


# callers -----------------------------------------------------------------------------------------------------------
CLASS = ("class Attn:\n"
         "    def __init__(self, use_xformers=False):\n        self.use_xformers = use_xformers\n"
         f"    def forward_xformers(self, q, k, v):\n        return {SITE}\n"
         "    def forward(self, q, k, v):\n        if self.use_xformers:\n            return self.forward_xformers(q, k, v)\n"
         "        return q\n")


def test_a_method_every_call_of_which_is_switched_is_optional():
    assert switched(CLASS) == ("if self.use_xformers:", "`use_xformers=False` by default (Attn())")


def test_one_unswitched_call_of_the_method_keeps_it_required():
    assert switched(CLASS + "    def other(self, q):\n        return self.forward_xformers(q, q, q)\n") is None


def test_a_call_on_another_object_is_no_call_of_the_method():
    code = CLASS + "    def other(self, q):\n        return sbx.forward_xformers(q, q, q)\n"
    assert switched(code) is not None
    # and a bare call of the name is no call of a method either
    code = CLASS + "    def other(self, q):\n        return forward_xformers(q, q, q)\n"
    assert switched(code) is not None


def test_a_function_is_called_by_its_bare_name_only():
    code = (f"def helper_xformers(q, k, v):\n    return {SITE}\n"
            "def attend(q, use_xformers=False):\n    if use_xformers:\n        return helper_xformers(q, q, q)\n")
    assert switched(code) == ("if use_xformers:", "`use_xformers=False` by default (attend())")
    assert switched(code + "mod.helper_xformers(1, 2, 3)\n") is not None
    assert switched(code + "helper_xformers(1, 2, 3)\n") is None


def test_a_call_inside_the_function_itself_is_no_caller():
    code = (f"def helper_xformers(q, k, v):\n    if q:\n        return helper_xformers(q, k, v)\n    return {SITE}\n"
            "def attend(q, use_xformers=False):\n    if use_xformers:\n        return helper_xformers(q, q, q)\n")
    assert switched(code) is not None


def test_a_top_level_function_nobody_calls_is_not_switched():
    code = f"def helper_xformers(q, k, v):\n    return {SITE}\n"
    assert switched(code) is None


def test_a_nested_function_nobody_calls_is_read_in_its_outer_function():
    code = (f"def outer(use_xformers=False):\n    if use_xformers:\n        def inner(q, k, v):\n            return {SITE}\n"
            "        return inner\n")
    assert switched(code) == ("if use_xformers:", "`use_xformers=False` by default (outer())")
    code = (f"def outer(use_xformers=False):\n    def inner(q, k, v):\n        return {SITE}\n"
            "    if use_xformers:\n        return inner\n    return inner(1, 2, 3)\n")
    assert switched(code) is None  # called unswitched


def test_callers_are_followed_three_functions_up():
    def chain(levels: int) -> str:
        lines = [f"def f0(q):\n    return {SITE}\n"]
        for i in range(1, levels):
            lines.append(f"def f{i}(q):\n    return f{i - 1}(q)\n")
        lines.append(f"def top(q, use_xformers=False):\n    if use_xformers:\n        return f{levels - 1}(q)\n")
        return "".join(lines)
    assert switched(chain(3)) == ("if use_xformers:", "`use_xformers=False` by default (top())")
    assert switched(chain(4)) is None


def test_at_most_fifty_calls_are_read():
    def code(calls: int) -> str:
        return (f"def helper_xformers(q):\n    return {SITE}\n"
                "def attend(q, use_xformers=False):\n"
                + "    if use_xformers:\n        helper_xformers(q)\n" * calls)
    assert switched(code(50)) is not None
    assert switched(code(51)) is None


def test_the_answer_is_remembered_per_unit_and_forgotten_with_it():
    switches = reader()
    code = _param("False")
    site = node_at(code, SITE)
    first = switches.guard(site, True)
    assert first is not None and switches.guard(site, True) == first
    assert switches.guard(site, True).why == first.why
    switches.guards.start_unit()
    assert switches._memo == {} and switches._options is None
    other = node_at(_param("True"), SITE)
    assert switches.guard(other, True) is None


# attributes --------------------------------------------------------------------------------------------------------
def _cls(init: str, more: str = "", condition: str = "self.use_xformers") -> str:
    return ("class Attn:\n"
            f"    def __init__(self):\n        {init}\n{more}"
            f"    def forward(self, q, k, v):\n        if {condition}:\n            return {SITE}\n        return q\n")


def test_an_attribute_the_class_sets_only_off_is_a_switch():
    assert switched(_cls("self.use_xformers = False")) == (
        "if self.use_xformers:", "`self.use_xformers = False` by default (line 3)")
    assert switched(_cls("self.use_xformers = None")) == (
        "if self.use_xformers:", "`self.use_xformers = None` by default (line 3)")


def test_an_attribute_set_on_anywhere_is_no_switch():
    assert switched(_cls("self.use_xformers = False", "    def enable(self):\n        self.use_xformers = True\n")) is None
    assert switched(_cls("self.use_xformers = True")) is None
    assert switched(_cls("self.use_xformers = GLOBAL")) is None  # not known
    assert switched(_cls("self.use_xformers = 'yes'")) is None


def test_an_attribute_that_is_a_value_not_set_yet_is_no_switch():
    code = _cls("self.xformers_op = None", condition="self.xformers_op")  # not flag-shaped
    assert switched(code) is None
    code = _cls("self.xformers_op = none", condition="self.xformers_op")  # lower case: still no switch
    assert switched(code) is None


def test_a_setters_argument_without_default_keeps_the_class_default():
    setter = "    def set_xformers(self, value):\n        self.use_xformers = value\n"
    assert switched(_cls("self.use_xformers = False", setter)) == (
        "if self.use_xformers:", "`self.use_xformers = False` by default (line 3)")
    assert switched(_cls("self.other = 1", setter)) is None  # the setter alone says nothing


def test_a_setters_argument_with_a_default_is_read_as_a_parameter():
    setter = "    def set_xformers(self, value=True):\n        self.use_xformers = value\n"
    assert switched(_cls("self.use_xformers = False", setter)) is None
    setter = "    def set_xformers(self, use_xformers=False):\n        self.use_xformers = use_xformers\n"
    assert switched(_cls("self.other = 1", setter)) == (
        "if self.use_xformers:", "`use_xformers=False` by default (set_xformers())")


def test_only_the_assignments_of_the_attribute_itself_count():
    assert switched(_cls("self.use_xformers = False", "    def f(self):\n        self.use_xformers2 = True\n"
                                                      "        other.use_xformers = True\n")) is not None


def test_an_attribute_of_another_object_is_no_switch():
    assert switched(_cls("self.use_xformers = False", condition="model.use_xformers")) is None
    assert switched(_cls("self.use_cuda = False", condition="self.use_cuda")) is None  # mainstream


def test_an_attribute_outside_any_class_is_no_switch():
    assert switched(f"def f(self):\n    if self.use_xformers:\n        return {SITE}\n") is None


# command-line options ----------------------------------------------------------------------------------------------
def _cli(declaration: str, condition: str = "args.xformers") -> str:
    return f"parser.add_argument({declaration})\nif {condition}:\n    {SITE}\n"


@pytest.mark.parametrize("condition", ["args.xformers", "opt.xformers", "self.args.xformers"])
def test_an_option_declared_off_is_a_switch(condition):
    assert switched(_cli("'--xformers', action='store_true'", condition)) == (
        f"if {condition}:", "`--xformers` is off unless given (line 1)")


@pytest.mark.parametrize("declaration", ["'--xformers', action='store_true', default=True",
                                         "'--xformers', action='store_false'", "'--xformers', type=int, default=0",
                                         "'--other', action='store_true'"])
def test_an_option_on_by_default_or_not_declared_is_no_switch(declaration):
    assert switched(_cli(declaration)) is None


def test_an_option_of_another_object_is_no_switch():
    assert switched(_cli("'--xformers', action='store_true'", "config.xformers")) is None


def test_an_option_declared_twice_is_off_only_if_both_declare_it_off():
    code = ("parser.add_argument('--xformers', action='store_true')\n"
            "parser.add_argument('--xformers', action='store_true', default=True)\n"
            f"if args.xformers:\n    {SITE}\n")
    assert switched(code) is None
    code = ("parser.add_argument('--xformers', action='store_true')\n"
            "parser.add_argument('--xformers', default=False)\n"
            f"if args.xformers:\n    {SITE}\n")
    assert switched(code) == ("if args.xformers:", "`--xformers` is off unless given (line 2)")


def test_only_add_argument_methods_declare_options():
    code = f"add_argument('--xformers', action='store_true')\nif args.xformers:\n    {SITE}\n"
    assert switched(code) is None


def test_options_are_read_once_per_unit():
    switches = reader()
    code = _cli("'--xformers', action='store_true'")
    options = switches._options_of(node_at(code, SITE))
    assert options == {"xformers": (True, 1, "--xformers")}
    assert switches._options_of(node_at("x = 1\n", "x")) is options


# on by default -----------------------------------------------------------------------------------------------------
def test_a_parameter_defaulting_true_is_on_by_default():
    code = "def f(q, use_flash=True):\n    if use_flash:\n        pass\n"
    assert on_by_default(code, "use_flash", 1)
    assert not on_by_default(code.replace("True", "False"), "use_flash", 1)
    assert not on_by_default(code.replace("=True", ""), "use_flash", 1)  # no default: nothing known
    assert not on_by_default(code.replace("True", "1"), "use_flash", 1)


def test_a_parameter_defaulting_off_that_a_caller_turns_on_is_on_by_default():
    code = "def f(q, use_flash=False):\n    if use_flash:\n        pass\nf(1, True)\n"
    assert on_by_default(code, "use_flash", 1)
    code = "def f(q, use_flash=None):\n    if use_flash:\n        pass\nf(1, True)\n"
    assert on_by_default(code, "use_flash", 1)
    assert not on_by_default(code.replace("f(1, True)", "f(1, False)"), "use_flash", 1)


def test_on_by_default_reads_parentheses_and_outer_functions():
    code = "def f(q, use_flash=True):\n    def g():\n        if (use_flash):\n            pass\n"
    assert on_by_default(code, "(use_flash)")
    code = "def f(q, use_flash=True):\n    def g(use_flash=False):\n        if use_flash:\n            pass\n"
    assert not on_by_default(code, "use_flash", 2)  # the nearest parameter of that name decides


def test_a_name_that_is_no_parameter_or_another_expression_is_not_on_by_default():
    assert not on_by_default("def f():\n    if use_flash:\n        pass\n", "use_flash")
    assert not on_by_default("if use_flash:\n    pass\n", "use_flash")
    assert not on_by_default("def f(use_flash=True):\n    if use_flash():\n        pass\n", "use_flash()")


def test_an_attribute_the_class_sets_on_is_on_by_default():
    cls = "class A:\n    def __init__(self{params}):\n        {init}\n    def f(self):\n        if self.flash:\n            pass\n"
    assert on_by_default(cls.format(params="", init="self.flash = True"), "self.flash", 1)
    assert on_by_default(cls.format(params="", init="self.flash = False\n        self.flash = True"), "self.flash", 2)
    assert not on_by_default(cls.format(params="", init="self.flash = False"), "self.flash", 1)
    assert not on_by_default(cls.format(params="", init="self.flash = 1"), "self.flash", 1)
    assert on_by_default(cls.format(params=", flash=True", init="self.flash = flash"), "self.flash", 1)
    assert not on_by_default(cls.format(params=", flash=False", init="self.flash = flash"), "self.flash", 1)
    assert not on_by_default(cls.format(params=", flash", init="self.flash = flash"), "self.flash", 1)
    assert not on_by_default(cls.format(params="", init="self.flash = other"), "self.flash", 1)


def test_an_option_declared_on_is_on_by_default():
    code = "parser.add_argument('--flash', action='store_true', default=True)\nif args.flash:\n    pass\n"
    assert on_by_default(code, "args.flash")
    assert not on_by_default(code.replace(", default=True", ""), "args.flash")
    assert not on_by_default(code.replace("--flash", "--other"), "args.flash")  # not declared: nothing known
    code = "parser.add_argument('--flash', action='store_true', default=True)\nif config.flash:\n    pass\n"
    assert not on_by_default(code, "config.flash")


# the helpers the project pass shares -------------------------------------------------------------------------------
def _call(code: str):
    return node_at(code, code.strip())


@pytest.mark.parametrize("code, expected", [
    ("parser.add_argument('--fp8_base', action='store_true')", ("fp8_base", True, "--fp8_base")),
    ('p.add_argument("-x", "--use-xformers", action="store_true")', ("use_xformers", True, "--use-xformers")),
    ("p.add_argument('--xf', dest='use_xf', action='store_true')", ("use_xf", True, "--xf")),
    ("p.add_argument('--xf', action='store_true', default=None)", ("xf", True, "--xf")),
    ("p.add_argument('--xf', action='store_true', default=True)", ("xf", False, "--xf")),
    ("p.add_argument('--xf', action='store_false')", ("xf", False, "--xf")),
    ("p.add_argument('--xf', action='count')", ("xf", False, "--xf")),
    ("p.add_argument('--xf', action='store_const', default=False)", ("xf", False, "--xf")),
    ("p.add_argument('--xf', default=False)", ("xf", True, "--xf")),
    ("p.add_argument('--xf', default=None)", ("xf", False, "--xf")),
    ("p.add_argument('--xf', default='False')", ("xf", False, "--xf")),
    ("p.add_argument('--xf', type=int)", ("xf", False, "--xf")),
    ("p.add_argument('-x', action='store_true')", None),  # no long flag
    ("p.add_argument('name')", None),
    ("p.add_argument(action='store_true')", None),
])
def test_declared_option(code, expected):
    assert s.declared_option(_call(code)) == expected


def test_declared_option_needs_arguments():
    call = _call("p.add_argument('--x')")
    assert s.declared_option(call.child_by_field_name("function")) is None  # an attribute has no arguments


OBJECTS, MAINSTREAM = frozenset(OPT_IN.argument_objects), frozenset(OPT_IN.mainstream_switch_tokens)


@pytest.mark.parametrize("condition, expected", [
    ("args.fp8_base", "fp8_base"), ("self.args.fp8_base", "fp8_base"), ("opt.xformers", "xformers"),
    ("q and args.fp8", "fp8"), ("(args.fp8 and q)", "fp8"), ("args.fp8 or q", None), ("not args.fp8", None),
    ("config.fp8", None), ("fp8", None), ("args.use_amp", None), ("args.fp8()", None), ("args.__fp8", "__fp8"),
])
def test_argument_switch(condition, expected):
    node = node_at(f"if {condition}:\n    pass\n", condition)
    assert s.argument_switch(node, OBJECTS, MAINSTREAM) == expected


def test_first_term_passes_its_depth_and_stops_at_eight():
    seen = []

    def read(term, depth):
        seen.append((parsing.text(term), depth))
        return None

    condition = node_at("if a and (b and c):\n    pass\n", "a and (b and c)")
    assert s.first_term(condition, read) is None
    assert seen == [("a", 1), ("b", 2), ("c", 2)]
    seen.clear()
    assert s.first_term(condition, read, 8) is None
    assert seen == [("a and (b and c)", 8)]
    assert s.first_term(condition, lambda term, depth: parsing.text(term) if parsing.text(term) != "a" else None) == "b"


def test_switch_rule_takes_feature_switches_that_are_not_mainstream():
    takes = s.switch_rule(OPT_IN)
    assert takes("use_xformers", False) and takes("fp8-base", False)
    assert not takes("synchronize_step", False) and takes("synchronize_step", True)
    assert not takes("use-cuda-graph", True) and not takes("xformers_CUDA", True)


# small helpers -----------------------------------------------------------------------------------------------------
def test_parameter_finds_position_and_default():
    function = definition("def f(self, a, b: int, c=1, d: bool = False, *e, **g):\n    pass\n", "def f")
    assert s._parameter(function, "a") == (1, None)
    assert s._parameter(function, "b") == (2, None)
    index, default = s._parameter(function, "c")
    assert index == 3 and parsing.text(default) == "1"
    index, default = s._parameter(function, "d")
    assert index == 4 and parsing.text(default) == "False"
    assert s._parameter(function, "e") is None and s._parameter(function, "z") is None


@pytest.mark.parametrize("header, expected", [
    ("def f(self, a):", True), ("def f(cls):", True), ("def f(self: 'A'):", True), ("def f(a, self):", False),
    ("def f():", False), ("def f(selfish):", False),
])
def test_is_method(header, expected):
    function = definition(f"{header}\n    pass\n", header)
    assert s._is_method(function) is expected


@pytest.mark.parametrize("call, index, expected", [
    ("f(a, b, c)", 1, "b"), ("f(a, b, c)", 2, "c"), ("f(a, b, c)", 3, None), ("f(a, b, c)", -1, None),
    ("f(a, x=b)", 1, "b"), ("f(a, b, x=c)", 1, "c"), ("f(*a, b)", 1, None), ("f(a, **k)", 1, None),
    ("f(a, # note\n b)", 1, "b"), ("obj.f(a, b)", 0, "a"), ("f(a, y=b, c)", 1, "c"),
])
def test_argument_for_a_parameter(call, index, expected):
    argument = s._argument(node_at(call, "f"), index, "x")  # the called name, bare or after a dot
    assert (parsing.text(argument) if argument is not None else None) == expected


def test_argument_outside_a_call_is_none():
    assert s._argument(node_at("x = f\n", "f"), 0, "x") is None


def test_enclosing_and_nested():
    code = "class A:\n    def f(self):\n        def g():\n            return 1\n"
    g, f = definition(code, "def g"), definition(code, "def f")
    assert s._enclosing(g, "function_definition").start_point == f.start_point  # (two parses: compared by place)
    assert s._enclosing(g, "class_definition").type == "class_definition"
    assert s._enclosing(f, "module").type == "module"
    assert s._enclosing(g, "while_statement") is None
    assert s._nested(g) and not s._nested(f)


def test_enclosing_walks_at_most_max_depth_ancestors():
    def code(m: int) -> str:
        return "def f():\n    return " + "(" * m + "x" + ")" * m + "\n"
    # x, then m parentheses, the return, the block: the function is the (m + 3)-th ancestor
    m = s.MAX_DEPTH - 3
    assert s._enclosing(node_at(code(m), "x"), "function_definition") is not None
    assert s._enclosing(node_at(code(m + 1), "x"), "function_definition") is None


def test_self_assignments_reads_the_class_without_entering_assignments():
    code = ("class A:\n    def f(self):\n        self.x = 1\n        self.x = self.y = 2\n        other.x = 3\n"
            "        self.xy = 4\n")
    cls = definition(code, "class A", "class_definition")
    assert sorted(parsing.text(r) for r in s._self_assignments(cls, "x")) == ["1", "self.y = 2"]
    assert list(s._self_assignments(None, "x")) == []


# answers the first mutation run left open ------------------------------------------------------------------------------
def test_the_reader_registers_its_on_by_default_with_the_guards():
    switches = reader()
    assert switches.guards.on_by_default == switches.on_by_default
    assert switches._forget_unit in switches.guards.unit_resets


def test_before_any_site_a_switch_naming_no_feature_is_not_taken():
    # on_by_default may be asked before guard(): the reader then reads no site as a CUDA-only feature, so a caller
    # passing `use_stream` (no feature word) is read as turning the parameter on
    code = ("def f(q, use_stream=False):\n    if use_stream:\n        pass\n"
            "def g(use_stream=False):\n    f(1, use_stream)\n")
    assert on_by_default(code, "use_stream", 1)


def test_a_keyword_argument_turning_the_parameter_on_is_read():
    code = "def f(q, use_flash=False):\n    if use_flash:\n        pass\nf(1, use_flash=True)\n"
    assert on_by_default(code, "use_flash", 1)
    assert switched(_param("False") + "attend(q, k, v, use_xformers=True)\n") is None


def test_a_setter_turning_the_attribute_on_is_read():
    code = ("class A:\n    def set_flash(self, use_flash=False):\n        self.use_flash = use_flash\n"
            "    def enable(self):\n        self.set_flash(True)\n"
            "    def f(self):\n        if self.use_flash:\n            pass\n")
    assert not on_by_default(code, "self.use_flash", 1)  # set only from the setter's parameter, which defaults off
    code = ("class Attn:\n    def set_x(self, use_xformers=False):\n        self.use_xformers = use_xformers\n"
            "    def setup(self, args):\n        self.set_x(args.xformers)\n"
            f"    def forward(self, q, k, v):\n        if self.use_xformers:\n            return {SITE}\n"
            "parser.add_argument('--xformers', action='store_true')\n")
    assert switched(code) == ("if self.use_xformers:", "`use_xformers=False` by default (set_x())")
    assert switched(code.replace("self.set_x(args.xformers)", "self.set_x(True)")) is None


def test_a_nested_args_object_is_read_by_its_last_name():
    code = "parser.add_argument('--flash', action='store_true', default=True)\nif self.cfg.args.flash:\n    pass\n"
    assert on_by_default(code, "self.cfg.args.flash")
    assert switched(_cli("'--xformers', action='store_true'", "self.cfg.args.xformers")) is not None
    node = node_at("if self.cfg.args.fp8:\n    pass\n", "self.cfg.args.fp8")
    assert s.argument_switch(node, OBJECTS, MAINSTREAM) == "fp8"


def _pass_through(levels: int) -> str:
    """f's switch passed down from `levels` functions, the last called with an option declared off."""
    lines = ["def f(q, use_flash=False):\n    if use_flash:\n        pass\n"]
    names = ["f"] + [f"g{i}" for i in range(1, levels + 1)]
    for i in range(1, levels + 1):
        lines.append(f"def {names[i]}(q, use_flash=False):\n    {names[i - 1]}(q, use_flash)\n")
    lines.append(f"parser.add_argument('--flash', action='store_true')\n{names[-1]}(q, args.flash)\n")
    return "".join(lines)


def test_callers_passing_a_switch_on_are_followed_four_levels():
    # each level passes its own off-by-default parameter; the last is called with `args.flash`, declared off: read
    # down to depth 4, every caller leaves the switch off; one level more and the reader stops, not knowing
    assert not on_by_default(_pass_through(3), "use_flash", 1)
    assert on_by_default(_pass_through(4), "use_flash", 1)


def test_a_nested_function_called_unswitched_is_not_read_in_its_outer_function():
    code = (f"def outer(q, use_xformers=False):\n    if use_xformers:\n        def inner(q):\n            return {SITE}\n"
            "    return inner(q)\n")
    assert switched(code) is None


def test_answers_are_remembered_per_question_and_node():
    switches = reader()
    code = (f"def a(q, use_xformers=False):\n    if not use_xformers:\n        return q\n    return {SITE}\n"
            f"def b(q):\n    x = 1\n    return {SITE}\n")
    assert switches.guard(node_at(code, SITE, 0), True) is not None
    assert switches.guard(node_at(code, SITE, 1), True) is None  # b: no exit before it, and nobody calls b
    code = (f"def h1(q):\n    return {SITE}\ndef h2(q):\n    return {SITE}\n"
            "def attend(q, use_xformers=False):\n    if use_xformers:\n        h1(q)\n    h2(q)\n")
    switches = reader()
    assert switches.guard(node_at(code, SITE, 0), True) is not None
    assert switches.guard(node_at(code, SITE, 1), True) is None  # h2 is called unswitched


def test_a_function_outside_a_class_is_called_by_its_bare_name_whatever_its_first_parameter():
    code = (f"def helper_xformers(self, q):\n    return {SITE}\n"
            "def attend(obj, q, use_xformers=False):\n    if use_xformers:\n        return helper_xformers(obj, q)\n")
    assert switched(code) == ("if use_xformers:", "`use_xformers=False` by default (attend())")


def test_a_classmethod_is_called_through_cls():
    code = ("class Attn:\n"
            f"    @classmethod\n    def forward_xformers(cls, q):\n        return {SITE}\n"
            "    @classmethod\n    def forward(cls, q, use_xformers=False):\n"
            "        if use_xformers:\n            return cls.forward_xformers(q)\n        return q\n")
    assert switched(code) == ("if use_xformers:", "`use_xformers=False` by default (forward())")


def test_a_method_caller_passing_the_switch_on_is_read_after_self():
    code = ("class Attn:\n"
            f"    def attend(self, q, use_xformers=False):\n        if use_xformers:\n            return {SITE}\n"
            "    def run(self, q):\n        return self.attend(q, {value})\n")
    assert switched(code.format(value="True")) is None
    assert switched(code.format(value="False")) is not None


def test_every_caller_is_read_not_only_the_first():
    assert switched(_param("False") + "attend(q, k, v, False)\nattend(q, k, v, True)\n") is None


def test_a_parameter_without_default_reads_at_most_fifty_calls():
    def code(calls: int) -> str:
        return (f"def replace(unet, xformers):\n    if xformers:\n        {SITE}\n"
                "parser.add_argument('--xformers', action='store_true')\n" + "replace(unet, args.xformers)\n" * calls)
    assert switched(code(s.MAX_CALLS)) is not None
    assert switched(code(s.MAX_CALLS + 1)) is None


def test_an_attribute_also_set_to_a_value_not_set_yet_or_unknown_is_no_switch():
    more = "    def reset(self):\n        self.xformers_op = None\n"
    assert switched(_cls("self.xformers_op = False", more, condition="self.xformers_op")) is None
    more = "    def reset(self):\n        self.use_xformers = GLOBAL\n"
    assert switched(_cls("self.use_xformers = False", more)) is None


def test_an_attribute_assigned_outside_a_method_is_not_known():
    code = ("class Attn:\n    self.use_xformers = GLOBAL\n"
            f"    def forward(self, q, k, v):\n        if self.use_xformers:\n            return {SITE}\n")
    assert switched(code) is None


def test_a_file_declaring_no_option_has_none():
    assert switched(f"if args.xformers:\n    {SITE}\n") is None


def test_an_option_declared_on_then_off_stays_on():
    code = ("parser.add_argument('--xformers', action='store_true', default=True)\n"
            "parser.add_argument('--xformers', action='store_true')\n"
            f"if args.xformers:\n    {SITE}\n")
    assert switched(code) is None


def test_declared_option_strips_only_quotes():
    assert s.declared_option(_call("p.add_argument('--use_X', action='store_true')")) == ("use_X", True, "--use_X")
    assert s.declared_option(_call("p.add_argument('--a', dest='X_b', action='store_true')")) == ("X_b", True, "--a")


def test_reached_walks_at_most_max_depth_ancestors():
    def code(m: int) -> str:
        return f"def attend(q, use_xformers=False):\n    if use_xformers:\n        x = {'(' * m}{SITE}{')' * m}\n"
    # the site, m parentheses, the assignment, the statement, the block, then the if: its (m + 4)-th ancestor,
    # read at step m + 3 while the step is under MAX_DEPTH
    assert switched(code(s.MAX_DEPTH - 4)) is not None
    assert switched(code(s.MAX_DEPTH - 3)) is None


def test_self_assignments_walk_twenty_thousand_nodes():
    # The walk pops the last child first and counts every node, anonymous tokens included: the class (1), its block
    # (2), K `pass` statements of two nodes each (the statement and its `pass` token), a comment when there is one,
    # then the assignment's statement and the assignment: node 2K + 4, or 2K + 5 after a comment.
    def rights(passes: int, comment: bool) -> list[str]:
        code = "class A:\n    self.x = False\n" + ("    # c\n" if comment else "") + "    pass\n" * passes
        return [parsing.text(r) for r in s._self_assignments(definition(code, "class A", "class_definition"), "x")]
    assert rights(9998, comment=False) == ["False"]  # node 20,000
    assert rights(9998, comment=True) == []  # node 20,001
    assert s.MAX_CLASS_NODES == 20000


def test_config_value_test_reads_the_values_before_the_subjects_binding(monkeypatch):
    code = (b"def f(optimizer_config, x):\n"
            b"    optimizer_type = optimizer_config['type']\n"
            b"    if optimizer_type == 'FusedAdam':\n"
            b"        pass\n"
            b"    if optimizer_type == x:\n"
            b"        pass\n"
            b"    if optimizer_type in ('a-b', 'c'):\n"
            b"        pass\n")
    root = parsing.parse("python", code)
    body = root.named_children[0].child_by_field_name("body")
    named, other, dashed = (statement.child_by_field_name("condition") for statement in body.named_children[1:])
    assert s.config_value_test(named) == (s.CONFIG_PREFIX + "type", ("FusedAdam",))
    looked_up = []
    monkeypatch.setattr(s, "_config_read_bound", lambda node: looked_up.append(node))
    assert s.config_value_test(other) is None and s.config_value_test(dashed) is None
    assert looked_up == []  # a value no string of a name: no query over the function for the subject


# an opt-in measurement and-ed with a CUDA test (round 27 A1 W2, rows 6 and 25) -----------------------------------
MEASURED = '''import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--measure_vram", action="store_true")
parser.add_argument("--synchronize_step", action="store_true")
args = parser.parse_args()
if args.measure_vram and torch.cuda.is_available():
    torch.cuda.synchronize()
if args.synchronize_step and torch.cuda.is_available():
    torch.cuda.synchronize()
if args.measure_vram or torch.cuda.is_available():
    torch.cuda.synchronize()
if torch.cuda.is_available() and args.measure_vram:
    pass
'''


def test_a_measurement_switch_anded_with_a_cuda_test_makes_its_arm_optional():
    found = switched(MEASURED, "torch.cuda.synchronize()", feature=False)
    assert found is not None and found[1].startswith("`--measure_vram` is off unless given")


def test_the_cuda_test_right_of_an_off_switch_runs_only_with_the_switch_on():
    found = switched(MEASURED, "torch.cuda.is_available()", feature=False)
    assert found == ("args.measure_vram and torch.cuda.is_available()",
                     found[1]) and found[1].startswith("`--measure_vram`")


def test_a_switch_naming_no_opt_in_feature_or_an_or_or_the_left_operand_is_no_opt_in():
    assert switched(MEASURED, "torch.cuda.synchronize()", feature=False, occurrence=1) is None  # --synchronize_step
    assert switched(MEASURED, "torch.cuda.is_available()", feature=False, occurrence=1) is None
    assert switched(MEASURED, "torch.cuda.synchronize()", feature=False, occurrence=2) is None  # `or`
    assert switched(MEASURED, "torch.cuda.is_available()", feature=False, occurrence=2) is None
    assert switched(MEASURED, "torch.cuda.is_available()", feature=False, occurrence=3) is None  # left of `and`
