"""Sites whose value is only shown (analyzer/context/display.py) on small parsed snippets: a message or raise
argument, a progress bar's text, a report table's value, a conditional that picks between numbers, a list of backend
names, or a name whose every later use is one of those. Each expectation is read from the module's docstrings;
tests/test_context.py runs the same reader through whole analyses."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import display
from ascend_feasibility.analyzer.context.display import DisplaySites
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()
AVAILABLE = "torch.cuda.is_available()"
DISPLAY_RULE = "DEV006"  # in display_rules (conventions.toml)
OTHER_RULE = "DEV004"  # a placement: moves data, not shown


def sites() -> DisplaySites:
    return DisplaySites(CONVENTIONS.guards)  # built in each test, so that a changed constructor is seen


def shown(code: str, needle: str = AVAILABLE, rule: str = DISPLAY_RULE, symbol: str = "", occurrence: int = 0):
    """The deciding node's type and text when the site is cosmetic, else None."""
    found = sites().cosmetic(node_at(code, needle, occurrence), rule, symbol)
    if found is None:
        return None
    assert found.reach == "cosmetic"
    return found.node.type, parsing.text(found.node)


# which findings qualify ------------------------------------------------------------------------------------------
def test_only_display_rules_or_display_symbols_qualify():
    code = f"print({AVAILABLE})\n"
    assert sites().cosmetic(node_at(code, AVAILABLE), OTHER_RULE) is None  # no symbol given
    assert shown(code, rule=DISPLAY_RULE) == ("call", code.strip())
    assert shown(code, rule=OTHER_RULE) is None  # a rule that is neither, with no symbol
    assert shown(code, rule=OTHER_RULE, symbol="torch.cuda.is_available") == ("call", code.strip())
    assert shown(code, rule=OTHER_RULE, symbol="torch.cuda.synchronize") is None


def test_the_conventions_are_read_into_the_sites():
    read = sites()
    assert read.rules == frozenset(CONVENTIONS.guards.display_rules)
    assert read.symbols == frozenset(CONVENTIONS.guards.display_symbols)
    assert read.message_calls == frozenset(CONVENTIONS.guards.message_calls)
    assert read.message_prefixes == tuple(CONVENTIONS.guards.message_call_prefixes)
    assert read.message_attributes == frozenset(CONVENTIONS.guards.message_attributes)
    assert read.backend_names == frozenset(CONVENTIONS.guards.backend_names)


# message calls -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    f"print({AVAILABLE})",
    f"logger.info('cuda: %s', {AVAILABLE})",
    f"self.log.warning_once({AVAILABLE})",
    f"log_message({AVAILABLE})",  # a prefix
    f"utils.print_once({AVAILABLE})",  # a prefix after the last dot
    f"pbar.set_description(f'{{{AVAILABLE}}}')",  # inside an f-string's interpolation
    f"print(str({AVAILABLE}))",  # nested in another call inside the message
])
def test_an_argument_of_a_message_call_is_shown(call):
    assert shown(f"{call}\n") == ("call", call)


@pytest.mark.parametrize("call", [
    f"run({AVAILABLE})",
    f"logprob({AVAILABLE})",  # starts with `log`, not with the prefix `log_`
    f"reprint({AVAILABLE})",  # ends with a message name, but the name is not it
    f"printer.setup({AVAILABLE})",  # the last part is what is called
    f"info_table.build({AVAILABLE})",
])
def test_an_argument_of_another_call_is_not_shown(call):
    assert shown(f"{call}\n") is None


def test_the_message_is_the_innermost_call_that_shows_and_the_walk_stops_at_it():
    code = f"run(print({AVAILABLE}))\n"
    assert shown(code) == ("call", f"print({AVAILABLE})")


def test_an_argument_of_the_exception_a_raise_builds_is_shown():
    code = f"def f():\n    raise NotImplementedError(f'cuda {{{AVAILABLE}}}')\n"
    assert shown(code) == ("call", f"NotImplementedError(f'cuda {{{AVAILABLE}}}')")
    # the same exception built but not raised is a value like any other
    assert shown(f"error = NotImplementedError({AVAILABLE})\nuse(error)\n") is None


def test_a_superclass_is_no_message_call():
    code = f"class Info(Base({AVAILABLE})):\n    pass\n"
    assert shown(code) is None


# a progress bar's text ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("attribute", ["desc", "postfix"])
def test_a_value_assigned_to_a_progress_bars_text_is_shown(attribute):
    code = f"pbar.{attribute} = f'{{{AVAILABLE}}}'\n"
    assert shown(code) == ("assignment", code.strip())


def test_a_value_assigned_to_another_attribute_is_not_shown():
    assert shown(f"pbar.total = {AVAILABLE}\n") is None
    assert shown(f"pbar[desc] = {AVAILABLE}\n") is None  # a subscript, not an attribute


def test_the_object_whose_text_is_set_is_not_the_value_shown():
    # the site is on the left of `.desc = ...`: it is the progress bar, not its text
    code = "torch.cuda.current_stream().desc = 'x'\n"
    assert shown(code, needle="torch.cuda.current_stream()") is None


# report tables ------------------------------------------------------------------------------------------------
def test_a_value_of_a_dict_keyed_by_phrases_is_shown():
    code = f"info = {{'GPU available': {AVAILABLE}, 'torch': torch.__version__}}\n"
    table = code.split(" = ", 1)[1].strip()
    assert shown(code) == ("dictionary", table)
    code = f"info = {{'torch': torch.__version__, 'GPU available': {AVAILABLE}}}\n"
    assert shown(code) is not None  # one phrase among the keys is enough


@pytest.mark.parametrize("code", [
    f"config = {{'cuda': {AVAILABLE}, 'device': 'x'}}\n",  # keys are names, not phrases
    f"config = {{name: {AVAILABLE}, 'GPU type': 1}}\n",  # a key that is not a string
    f"config = {{**base, 'GPU type': {AVAILABLE}}}\n",  # a splat is no pair, but the rest are phrases: shown
    f"config = {{'GPU type': x for x in [{AVAILABLE}]}}\n",
    f"config = {{'GPU type': {AVAILABLE} for x in y}}\n",  # a comprehension is no table
])
def test_other_dicts_are_not_report_tables(code):
    expected = ("dictionary", code.split(" = ", 1)[1].strip()) if "**base" in code else None
    assert shown(code) == expected


def test_a_key_of_a_report_table_is_not_one_of_its_values():
    code = f"table = {{f'{{{AVAILABLE}}} GPUs': 1}}\n"
    assert shown(code) is None


# conditionals that pick numbers -------------------------------------------------------------------------------
@pytest.mark.parametrize("picks", ["1800 if {c} else 600", "1.5 if {c} else 2", "-1 if {c} else 1"])
def test_the_condition_of_a_conditional_picking_numbers_is_shown(picks):
    value = picks.format(c=AVAILABLE)
    assert shown(f"timeout = {value}\nuse(timeout)\n") == ("conditional_expression", value)


@pytest.mark.parametrize("picks", ["'cuda' if {c} else 'cpu'", "1 if {c} else size", "n if {c} else 1"])
def test_a_conditional_picking_anything_else_is_not_shown(picks):
    value = picks.format(c=AVAILABLE)
    assert shown(f"device = {value}\nuse(device)\n") is None


def test_a_number_picked_is_not_the_condition():
    # `-count if c else 1`: the site is a picked value (a unary operator, one of the number types), not the condition
    code = "size = -torch.cuda.device_count() if c else 1\nuse(size)\n"
    assert shown(code, needle="torch.cuda.device_count()") is None


# lists of backend names ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("collection", [
    '["nccl", "gloo", "mpi"]',
    "('nccl', 'gloo')",  # single quotes stripped
    '{"NCCL", "Gloo"}',  # case ignored
    '["XCCL", "gloo"]',
    '["cpu:gloo", "cuda:nccl"]',
    '["nccl", "gloo", backend]',  # only the strings are names
])
def test_a_list_of_backend_names_is_shown(collection):
    code = f"assert backend in {collection}\n"
    needle = collection[1:].split(",")[0].strip()
    assert shown(code, needle=needle, rule="DST002") == (node_at(code, collection).type, collection)


@pytest.mark.parametrize("collection", [
    '["nccl"]',  # one name
    '["nccl", "nccl"]',  # NCCL's only
    '["nccl", "gloo", "fsdp"]',  # a string that is no backend name
])
def test_other_lists_of_strings_are_not_shown(collection):
    code = f"assert backend in {collection}\n"
    assert shown(code, needle='"nccl"', rule="DST002") is None


def test_a_list_of_backend_names_shows_only_its_strings():
    code = 'choices = [torch.distributed.get_backend(), "nccl", "gloo"]\nuse(choices)\n'
    assert shown(code, needle="torch.distributed.get_backend()", rule="DST002") is None
    assert shown('d = {"nccl": 1, "gloo": 2}\nuse(d)\n', needle='"nccl"', rule="DST002") is None  # a dict is no list


# the walk's bound ----------------------------------------------------------------------------------------------
def test_the_walk_from_a_site_ends_after_max_depth_ancestors():
    # with n parentheses around the site, the argument list is its (n + 1)-th ancestor: read while n < MAX_DEPTH
    inside = "(" * (display.MAX_DEPTH - 1) + AVAILABLE + ")" * (display.MAX_DEPTH - 1)
    assert shown(f"print({inside})\n") is not None
    outside = "(" * display.MAX_DEPTH + AVAILABLE + ")" * display.MAX_DEPTH
    assert shown(f"print({outside})\n") is None


# names whose every use is shown -------------------------------------------------------------------------------
def test_a_name_whose_every_later_use_is_shown_is_cosmetic():
    code = (f"pt_cuda = {AVAILABLE}\n"
            "print(pt_cuda)\n"
            "info = {'PyTorch version (GPU?)': f'{version} ({pt_cuda})'}\n")
    assert shown(code) == ("assignment", f"pt_cuda = {AVAILABLE}")


@pytest.mark.parametrize("code", [
    f"pt_cuda = {AVAILABLE}\n",  # never used
    f"pt_cuda = {AVAILABLE}\nprint(pt_cuda)\nif pt_cuda:\n    model.cuda()\n",  # one use decides
    f"pt_cuda = {AVAILABLE}\ndef g():\n    return pt_cuda\nprint(pt_cuda)\n",  # a module name read in a function
    f"a, b = {AVAILABLE}, 1\nprint(a)\n",  # not one name
    f"self.cuda = {AVAILABLE}\nprint(self.cuda)\n",
    f"config['x'] = x = {AVAILABLE}\nprint(x)\n",  # the value is also stored
    f"x = y = {AVAILABLE}\nprint(x)\nprint(y)\n",
    f"if {AVAILABLE}:\n    x = 1\nprint(x)\n",  # the site is a condition, not a value assigned
    f"for i in range({AVAILABLE}):\n    pass\nprint(i)\n",  # a loop's target is no assignment of the value
])
def test_a_name_with_a_use_that_is_not_shown_or_no_use_is_not(code):
    assert shown(code) is None


def test_only_uses_after_the_assignment_count():
    code = f"if pt_cuda:\n    pass\npt_cuda = {AVAILABLE}\nprint(pt_cuda)\n"
    assert shown(code) == ("assignment", f"pt_cuda = {AVAILABLE}")


def test_uses_are_read_in_the_function_that_assigns_the_name():
    code = (f"def f():\n    pt_cuda = {AVAILABLE}\n    print(pt_cuda)\n"
            "def g(pt_cuda):\n    if pt_cuda:\n        model.cuda()\n")
    assert shown(code) == ("assignment", f"pt_cuda = {AVAILABLE}")


def test_at_most_twenty_uses_are_read():
    twenty = f"n = {AVAILABLE}\n" + "print(n)\n" * 20
    assert shown(twenty) == ("assignment", f"n = {AVAILABLE}")
    assert shown(twenty + "print(n)\n") is None


def test_the_assignment_is_looked_for_at_most_thirteen_ancestors_up():
    # with m parentheses around the site, the assignment is its (m + 1)-th ancestor
    def code(m: int) -> str:
        return "n = " + "(" * m + AVAILABLE + ")" * m + "\nprint(n)\n"
    assert shown(code(12)) is not None
    assert shown(code(13)) is None


def test_uses_are_looked_for_among_the_first_20000_nodes_of_the_scope():
    # The walk pops the last child first: the module (1), `print(n)` (5 nodes, the shown use), the K `pass`
    # statements (1 each), then the `if` (1), its block (1), `pass` (1) and its condition `n`: node K + 10.
    def code(passes: int) -> str:
        return f"n = {AVAILABLE}\nif n:\n    pass\n" + "pass\n" * passes + "print(n)\n"
    assert shown(code(20000 - 10)) is None  # the `if n:` is read: a use that is not shown
    assert shown(code(20000 - 9)) == ("assignment", f"n = {AVAILABLE}")  # past the budget: only print(n) is read


def test_a_value_assigned_through_a_call_is_still_the_names():
    code = f"count = int({AVAILABLE})\nlogger.info(count)\n"
    assert shown(code) == ("assignment", f"count = int({AVAILABLE})")


# helpers --------------------------------------------------------------------------------------------------------
def test_same_compares_span_and_type():
    root = parsing.parse("python", b"(x)\n")
    statement = root.named_children[0]
    paren = statement.named_children[0]
    assert display._same(paren, paren) and display._same(statement, statement)
    assert not display._same(statement, paren)  # same span here (no newline in the statement), other type
    assert not display._same(paren, paren.named_children[0])
    assert not display._same(None, paren) and not display._same(paren, None) and not display._same(None, None)


def test_is_report_table_needs_a_dictionary():
    assert not display._is_report_table(None)
    root = parsing.parse("python", b"['a b']\n")
    assert not display._is_report_table(root.named_children[0].named_children[0])
    table = parsing.parse("python", b"{'a b': 1}\n").named_children[0].named_children[0]
    assert display._is_report_table(table)


def test_is_message_call_needs_a_call():
    assert not sites().is_message_call(None)
    statement = parsing.parse("python", b"print\n").named_children[0]
    assert not sites().is_message_call(statement.named_children[0])


# timing diagnostics (issue 28, round 8 rows A11, A21, A24, A40, A42, A59, A88, A98) ----------------------------------
EVENT = "torch.cuda.Event(enable_timing=True)"
TIME_BENCH = ("import os, torch\n"
              "def forward(x):\n"
              "    time_bench = os.getenv(\"TIME_BENCH\")\n"
              "    if time_bench:\n"
              f"        start = {EVENT}\n"
              "    return x\n")


def timed(code: str, needle: str, symbol: str):
    found = sites().cosmetic(node_at(code, needle), "DEV110", symbol)
    return None if found is None else (found.reach, found.node.start_point.row + 1)


def test_a_cuda_event_under_an_environment_switch_for_timing_is_cosmetic():
    # VILA b760c34 llava/model/qlinear_te.py:98-101
    assert timed(TIME_BENCH, EVENT, "torch.cuda.Event") == ("cosmetic", 4)
    direct = "import os, torch\nif os.environ.get('TIMING') and rank == 0:\n    e = torch.cuda.Event(enable_timing=True)\n"
    assert timed(direct, EVENT, "torch.cuda.Event") == ("cosmetic", 2)
    keyed = "import os, torch\nif 'BENCHMARK' in os.environ:\n    e = torch.cuda.Event(enable_timing=True)\n"
    assert timed(keyed, EVENT, "torch.cuda.Event") == ("cosmetic", 2)


def test_other_switches_or_sites_are_not_timing():
    other_variable = TIME_BENCH.replace("TIME_BENCH", "USE_FP8")
    assert timed(other_variable, EVENT, "torch.cuda.Event") is None
    negated = TIME_BENCH.replace("if time_bench:", "if not time_bench:")
    assert timed(negated, EVENT, "torch.cuda.Event") is None
    not_env = TIME_BENCH.replace('os.getenv("TIME_BENCH")', "config.time_bench")
    assert timed(not_env, EVENT, "torch.cuda.Event") is None
    moved = TIME_BENCH.replace(EVENT, "x.cuda()")
    assert sites().cosmetic(node_at(moved, "x.cuda()"), "DEV004", "torch.Tensor.cuda") is None  # data moves: runs


def test_a_synchronize_right_before_a_clock_read_is_cosmetic():
    # flux 802fb47 src/flux/cli_fill.py:309-312
    code = ("import time, torch\n"
            "def main(t0):\n"
            "    if torch.cuda.is_available():\n"
            "        torch.cuda.synchronize()\n"
            "    t1 = time.perf_counter()\n"
            "    print(f'Done in {t1 - t0:.1f}s')\n")
    assert timed(code, "torch.cuda.synchronize()", "torch.cuda.synchronize") == ("cosmetic", 5)
    assert timed(code, "torch.cuda.is_available()", "torch.cuda.is_available") == ("cosmetic", 5)
    commented = code.replace("    t1 = time.perf_counter()", "    # done\n    t1 = time.perf_counter()")
    assert timed(commented, "torch.cuda.synchronize()", "torch.cuda.synchronize") == ("cosmetic", 6)


def test_a_synchronize_a_lookup_away_from_its_clock_read_is_cosmetic():
    # round 26 A2 row 74: a Timer's end() pops the start time, then reads the clock for a logged duration
    code = ("import logging, time, torch\n"
            "class Timer:\n"
            "    def end(self, name):\n"
            "        if torch.cuda.is_available():\n"
            "            torch.cuda.synchronize()\n"
            "        start_time = self.items.pop(name)\n"
            "        delta = time.time() - start_time\n"
            "        logging.info(f'{name} finished in {delta:.2f}s')\n")
    assert timed(code, "torch.cuda.is_available()", "torch.cuda.is_available") == ("cosmetic", 7)
    assert timed(code, "torch.cuda.synchronize()", "torch.cuda.synchronize") == ("cosmetic", 7)
    work = code.replace("self.items.pop(name)", "model(x)")  # device work comes between: the wait is for it
    assert timed(work, "torch.cuda.is_available()", "torch.cuda.is_available") is None
    far = code.replace("        start_time = self.items.pop(name)\n",
                       "        a = self.items.pop(name)\n        b = a\n        start_time = b\n")
    assert timed(far, "torch.cuda.is_available()", "torch.cuda.is_available") is None


def test_a_synchronize_not_followed_by_a_clock_or_a_check_doing_more_is_not():
    then_work = "import torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\nout = model(x)\n"
    assert timed(then_work, "torch.cuda.synchronize()", "torch.cuda.synchronize") is None
    # a bare synchronize raises without CUDA (sample_projects/llm_infer/generate.py:36): it must change
    bare = "import time, torch\ntorch.cuda.synchronize()\nt1 = time.time()\n"
    assert timed(bare, "torch.cuda.synchronize()", "torch.cuda.synchronize") is None
    flagged = "import time, torch\nif args.sync:\n    torch.cuda.synchronize()\nt1 = time.time()\n"
    assert timed(flagged, "torch.cuda.synchronize()", "torch.cuda.synchronize") is None
    more = ("import time, torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\n    x = x.cuda()\n"
            "t1 = time.perf_counter()\n")
    assert timed(more, "torch.cuda.is_available()", "torch.cuda.is_available") is None
    with_else = ("import time, torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\nelse:\n    pass\n"
                 "t1 = time.perf_counter()\n")
    assert timed(with_else, "torch.cuda.is_available()", "torch.cuda.is_available") is None


# a condition whose arms only show messages ---------------------------------------------------------------------------
BF16 = "torch.cuda.is_bf16_supported"


def test_a_query_deciding_only_which_message_is_shown_is_cosmetic_from_the_release_it_stops_raising():
    """qlora.py: `if torch.cuda.is_bf16_supported(): print(...)`. The query answers False without CUDA from torch 2.5
    (conventions display_symbols_since); before, it calls current_device(), which raises there."""
    code = f"if {BF16}():\n    print('=' * 80)\n    print('pass --bf16')\n"
    found = DisplaySites(CONVENTIONS.guards, "2.12.0").cosmetic(node_at(code, BF16), "DEV100", BF16)
    assert found is not None and found.node.type == "if_statement" and "message" in found.reason()
    assert DisplaySites(CONVENTIONS.guards, "2.1.0").cosmetic(node_at(code, BF16), "DEV100", BF16) is None
    assert sites().cosmetic(node_at(code, BF16), "DEV100", BF16) is None  # no target: no release to read it at


@pytest.mark.parametrize("code", [
    f"if {BF16}():\n    dtype = torch.bfloat16\n",  # decides what runs
    f"if {BF16}():\n    print('bf16')\nelse:\n    dtype = torch.float16\n",  # an arm that does more
    f"if not {BF16}():\n    raise ValueError('needs bf16')\n",  # a raise stops the program
])
def test_a_query_deciding_more_than_a_message_stays(code):
    assert DisplaySites(CONVENTIONS.guards, "2.12.0").cosmetic(node_at(code, BF16), "DEV100", BF16) is None


def test_a_check_rule_leaves_its_message_only_body_to_the_check_reading():
    """`if torch.cuda.is_available(): print(...)` (DEV104, a check rule): filework's "the check only guards a message"
    decides it, as before."""
    code = f"if {AVAILABLE}:\n    print('cuda')\n"
    assert shown(code, rule="DEV104", symbol="torch.cuda.is_available") is None


# a function whose value is only shown --------------------------------------------------------------------------------
DEVICE_NAME = (
    "import torch\n"
    "def get_torch_device_name(device):\n"
    "    if hasattr(device, 'type'):\n"
    "        if device.type == 'cuda':\n"
    "            try:\n"
    "                backend = torch.cuda.get_allocator_backend()\n"
    "            except Exception:\n"
    "                backend = ''\n"
    "            return '{} {} : {}'.format(device, torch.cuda.get_device_name(device), backend)\n"
    "        else:\n"
    "            return '{}'.format(device.type)\n"
    "    return 'CUDA {}'.format(device)\n"
    "\n"
    "try:\n"
    "    print('Device:', get_torch_device_name(get_torch_device()))\n"
    "except Exception:\n"
    "    print('Could not pick default device.')\n"
)


def test_a_check_in_a_function_whose_every_call_is_shown_is_cosmetic():
    # round 26 B1 row 3: Fooocus ldm_patched/modules/model_management.py get_torch_device_name
    found = sites().cosmetic(node_at(DEVICE_NAME, "device.type == 'cuda'"), "DEV145")
    assert found is not None and found.reach == "cosmetic"
    assert found.node.start_point.row + 1 == 15
    assert "get_torch_device_name() is called only under it (line 15)" in found.note  # propagation.py reads it


@pytest.mark.parametrize("change", [
    ("print('Device:', get_torch_device_name(get_torch_device()))",
     "device = torch.device(get_torch_device_name(get_torch_device()))"),  # the value picks a device
    ("print('Device:', get_torch_device_name(get_torch_device()))",
     "print('Device:', get_torch_device_name(get_torch_device())); pick = get_torch_device_name"),  # handed on
    ("            return '{}'.format(device.type)\n",
     "            torch.cuda.set_device(device)\n            return '{}'.format(device.type)\n"),  # does more
])
def test_a_function_whose_value_is_used_or_that_does_more_keeps_its_check(change):
    code = DEVICE_NAME.replace(*change)
    assert sites().cosmetic(node_at(code, "device.type == 'cuda'"), "DEV145") is None
