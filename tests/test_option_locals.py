"""An arm testing a local that holds a command-line option is the option's arm (analyzer/context/option_locals.py,
switches.option_value_test, opt_in.switched_options). Round 34: ConvNeXt's `opt_lower = args.opt.lower()` ...
`opt_lower = opt_lower.split('_')[-1]` ... `elif opt_lower == 'fusedlamb':` with `--opt` default 'adamw'; kohya's
`optimizer_type = args.optimizer_type` ... `optimizer_type = "AdamW8bit"` (under another flag) ...
`optimizer_type = optimizer_type.lower()` ... `if optimizer_type == "AdamW8bit".lower():`."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.switches import option_value_test
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import write_tree

OBJECTS = frozenset({"args"})


def _tested(body: str, needle: str):
    """option_value_test of the comparison `needle` in `def f(args, flag):` + body, and the literals it adds."""
    source = "def f(args, flag):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    root = parsing.parse("python", source.encode())
    condition = next(n for n in parsing.walk(root, limit=2000) if n.type == "comparison_operator"
                     and parsing.text(n) == needle)
    literals: list[str] = []
    return option_value_test(condition, OBJECTS, literals), literals


def test_a_local_bound_to_a_normalised_option_is_the_option():
    assert _tested("opt = args.opt.lower()\nif opt == 'fusedlamb':\n    pass", "opt == 'fusedlamb'") == (
        ("opt", ("fusedlamb",)), [])
    assert _tested("opt = args.opt\nopt = opt.strip().lower()\nif opt in ('a', 'b'):\n    pass",
                   "opt in ('a', 'b')") == (("opt", ("a", "b")), [])


def test_a_literal_binding_is_a_value_the_local_may_also_hold_and_a_lowered_literal_is_evaluated():
    body = ('kind = args.optimizer_type\nif flag:\n    kind = "AdamW8bit"\nkind = kind.lower()\n'
            'if kind == "Lion8bit".lower():\n    pass')
    assert _tested(body, 'kind == "Lion8bit".lower()') == (("optimizer_type", ("lion8bit",)), ["AdamW8bit"])


def test_a_split_part_is_tested_as_a_substring_of_the_option():
    body = "opt = args.opt.lower()\nparts = opt.split('_')\nopt = parts[-1]\nif opt == 'fusedlamb':\n    pass"
    assert _tested(body, "opt == 'fusedlamb'") == (("opt", ("*fusedlamb",)), [])
    assert _tested("opt = args.opt.split('_')[0]\nif opt == 'lookahead':\n    pass", "opt == 'lookahead'") == (
        ("opt", ("*lookahead",)), [])


def test_a_binding_after_the_test_counts_only_in_a_loop():
    later = "opt = args.opt\nif 'fused' in opt:\n    pass\nopt = opt.split('_')[-1]"
    assert _tested(later, "'fused' in opt") == (("opt", ("*fused",)), [])
    looped = "opt = args.opt\nfor _ in range(2):\n    if opt == 'a':\n        pass\n    opt = compute()"
    assert _tested(looped, "opt == 'a'") == (None, [])


def test_a_local_bound_otherwise_is_no_option():
    assert _tested("opt = compute(args.opt)\nif opt == 'a':\n    pass", "opt == 'a'") == (None, [])
    assert _tested("opt = args.opt\nopt = args.other\nif opt == 'a':\n    pass", "opt == 'a'") == (None, [])
    assert _tested("opt = args.opt\nopt += 'x'\nif opt == 'a':\n    pass", "opt == 'a'") == (None, [])
    assert _tested("opt = args.opt\nif opt != 'a':\n    pass", "opt != 'a'") == (None, [])
    assert _tested("opt = model.opt\nif opt == 'a':\n    pass", "opt == 'a'") == (None, [])


FACTORY = '''import torch
from apex.optimizers import FusedLAMB


def create_optimizer(args, parameters):
    opt_lower = args.opt.lower()
    opt_split = opt_lower.split('_')
    opt_lower = opt_split[-1]
    if opt_lower == 'adamw':
        optimizer = torch.optim.AdamW(parameters)
    elif opt_lower == 'fusedlamb':
        optimizer = FusedLAMB(parameters)
    return optimizer
'''
MAIN = '''import argparse

from optim_factory import create_optimizer

parser = argparse.ArgumentParser()
parser.add_argument('--opt', default='adamw', type=str)
args = parser.parse_args()
create_optimizer(args, [])
'''


def _reach(root) -> tuple[str, str | None]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return next((f.reach, f.reach_reason) for f in report.findings if f.path == "optim_factory.py" and f.line == 12)


def test_an_arm_of_a_local_holding_an_option_that_defaults_elsewhere_is_optional(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\napex\n", "optim_factory.py": FACTORY, "main.py": MAIN})
    assert _reach(tmp_path) == ("optional", '`--opt` is "adamw" unless given (main.py:6), and no launch script passes '
                                            'a value holding "fusedlamb"; line 11: elif opt_lower == \'fusedlamb\':')


def test_a_launch_script_passing_the_value_keeps_the_arm(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\napex\n", "optim_factory.py": FACTORY, "main.py": MAIN,
                          "run.sh": "python main.py --opt lookahead_fusedlamb\n"})
    assert _reach(tmp_path)[0] == "runs"


def test_a_default_the_split_part_takes_keeps_the_arm(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\napex\n", "optim_factory.py": FACTORY,
                          "main.py": MAIN.replace("default='adamw'", "default='lookahead_fusedlamb'")})
    assert _reach(tmp_path)[0] == "runs"


CONFIG = '''from yacs.config import CfgNode as CN

_C = CN()
_C.TRAIN = CN()
_C.TRAIN.OPTIMIZER = CN()
_C.TRAIN.OPTIMIZER.NAME = 'adamw'


def update_config(config, args):
    if args.optim:
        config.TRAIN.OPTIMIZER.NAME = args.optim
'''
OPTIMIZER = '''import torch
from apex.optimizers import FusedAdam


def build_optimizer(config, parameters):
    opt_lower = config.TRAIN.OPTIMIZER.NAME.lower()
    if opt_lower == 'adamw':
        return torch.optim.AdamW(parameters)
    elif opt_lower == 'fused_adam':
        return FusedAdam(parameters)
'''
SWIN_MAIN = '''import argparse

from config import _C, update_config
from optim_factory import build_optimizer

parser = argparse.ArgumentParser()
parser.add_argument('--optim', type=str)
args = parser.parse_args()
config = _C.clone()
update_config(config, args)
build_optimizer(config, [])
'''


def _swin(tmp_path, **more):
    write_tree(tmp_path, {"requirements.txt": "torch\napex\nyacs\n", "config.py": CONFIG, "optim_factory.py": OPTIMIZER,
                          "main.py": SWIN_MAIN, **more})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return next((f.reach, f.reach_reason) for f in report.findings if f.path == "optim_factory.py" and f.line == 10)


def test_an_arm_of_a_config_path_whose_default_is_another_value_is_optional(tmp_path):
    assert _swin(tmp_path) == ("optional", 'config `TRAIN.OPTIMIZER.NAME` is "adamw" unless a config file or '
                                           '`--optim` sets it (config.py:6), and no launch script or config file '
                                           'passes "fused_adam"; line 9: elif opt_lower == \'fused_adam\':')


def test_a_config_file_or_launch_command_giving_the_value_keeps_the_arm(tmp_path):
    assert _swin(tmp_path, **{"configs/fused.yaml": "TRAIN:\n  OPTIMIZER:\n    NAME: fused_adam\n"})[0] == "runs"
    assert _swin(tmp_path / "b", **{"run.sh": "python main.py --optim fused_adam\n"})[0] == "runs"


def test_a_config_path_written_with_anything_but_a_literal_or_an_option_keeps_the_arm(tmp_path):
    computed = CONFIG + "\n\ndef pick(config, name):\n    config.TRAIN.OPTIMIZER.NAME = name\n"
    assert _swin(tmp_path, **{"config.py": computed})[0] == "runs"
    assert _swin(tmp_path / "b", **{"config.py": CONFIG.replace("_C.TRAIN.OPTIMIZER.NAME = 'adamw'\n", "")})[0] == "runs"


def test_a_split_through_a_holder_reads_every_binding(monkeypatch):
    """option_local matches the local's bindings around its name's occurrences; the bindings of every name are read
    only for a split part, whose holder (`parts = args.opt.split("_")`) is another name."""
    from ascend_feasibility.analyzer.context import option_locals

    code = ("def f(args):\n    parts = args.opt.lower().split('_')\n    opt = parts[-1]\n    if opt == 'lamb':\n"
            "        pass\n")
    tree = parsing.parse("python", code.encode())
    subject = next(n for n in parsing.walk(tree) if n.type == "identifier" and parsing.text(n) == "opt"
                   and n.parent.type == "comparison_operator")
    objects = frozenset({"args"})
    assert option_locals.option_local(subject, objects) == option_locals.LocalOption("opt", (), True)
    plain = code.replace("parts[-1]", "args.opt")
    tree = parsing.parse("python", plain.encode())
    subject = next(n for n in parsing.walk(tree) if n.type == "identifier" and parsing.text(n) == "opt"
                   and n.parent.type == "comparison_operator")
    wholes = []
    captures = parsing.captures
    monkeypatch.setattr(parsing, "captures", lambda *a: wholes.append(a) or captures(*a))
    assert option_locals.option_local(subject, objects) == option_locals.LocalOption("opt", (), False)
    assert wholes == []  # no split: the body's every binding is not matched
