"""A backend switch assigned a config's attribute path whose one value in the project is PyTorch's own default asks for
nothing (analyzer/context/config_defaults.py): YOLOP's `torch.backends.cudnn.deterministic = cfg.CUDNN.DETERMINISTIC`
with `_C.CUDNN.DETERMINISTIC = False` (lib/config/default.py:20) and no config file setting it (round 38 A2 class 4,
B2 class 4). An arm on an option value holding "fused" is an opt-in fused kernel (VideoMAE optim_factory.py:105,
round 38 A2 class 2)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

CONFIG = '''from yacs.config import CfgNode as CN

_C = CN()
_C.CUDNN = CN()
_C.CUDNN.BENCHMARK = True
_C.CUDNN.DETERMINISTIC = False
'''
TRAIN = '''import torch
from torch.backends import cudnn

from config import _C as cfg


def main():
    cudnn.benchmark = cfg.CUDNN.BENCHMARK
    torch.backends.cudnn.deterministic = cfg.CUDNN.DETERMINISTIC
    model = torch.nn.Conv2d(3, 8, 3).cuda()
    return model


if __name__ == "__main__":
    main()
'''


def _deterministic(tmp_path, **more):
    write_tree(tmp_path, {"requirements.txt": "torch\nyacs\n", "config.py": CONFIG, "train.py": TRAIN, **more})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return next((f.severity, f.reach, f.reach_reason) for f in report.findings
                if f.path == "train.py" and f.line == 9 and f.rule == "DEV402")


def test_a_config_default_of_false_is_a_note(tmp_path):
    assert _deterministic(tmp_path) == (
        "info", "cosmetic", "config `CUDNN.DETERMINISTIC` is False, PyTorch's own default, unless a config file sets "
        "it (config.py:6), and no config file or launch command sets it: it asks for nothing, on any device")


def test_a_config_default_of_true_keeps_the_finding(tmp_path):
    found = _deterministic(tmp_path, **{"config.py": CONFIG.replace("DETERMINISTIC = False", "DETERMINISTIC = True")})
    assert found == ("low", "runs", None)


def test_a_config_file_or_another_write_of_the_path_keeps_the_finding(tmp_path):
    yaml = {"experiments/repro.yaml": "CUDNN:\n  DETERMINISTIC: true\n"}
    assert _deterministic(tmp_path / "a", **yaml)[:2] == ("low", "runs")
    computed = CONFIG + "\n\ndef reproducible(config, on):\n    config.CUDNN.DETERMINISTIC = on\n"
    assert _deterministic(tmp_path / "b", **{"config.py": computed})[:2] == ("low", "runs")
    launched = {"run.sh": "python train.py --opts CUDNN.DETERMINISTIC True\n"}
    assert _deterministic(tmp_path / "c", **launched)[:2] == ("low", "runs")


FACTORY = '''import torch

try:
    from apex.optimizers import FusedLAMB
    has_apex = True
except ImportError:
    has_apex = False


def create_optimizer(args, parameters):
    opt_lower = args.opt.lower()
    if 'fused' in opt_lower:
        assert has_apex and torch.cuda.is_available(), 'APEX and CUDA required for fused optimizers'
    if opt_lower == 'fusedlamb':
        return FusedLAMB(parameters)
    return torch.optim.AdamW(parameters)
'''
MAIN = '''import argparse

from optim_factory import create_optimizer

parser = argparse.ArgumentParser()
parser.add_argument('--opt', default='adamw', type=str)
args = parser.parse_args()
create_optimizer(args, [])
'''


def _fused_assert(tmp_path, **more):
    write_tree(tmp_path, {"requirements.txt": "torch\napex\n", "optim_factory.py": FACTORY, "main.py": MAIN, **more})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return next((f.reach, f.reach_reason) for f in report.findings if f.path == "optim_factory.py" and f.line == 13)


def test_a_fused_arm_no_default_or_launcher_takes_is_optional(tmp_path):
    assert _fused_assert(tmp_path) == ("optional", '`--opt` is "adamw" unless given (main.py:6), and no launch script '
                                                   'passes a value holding "fused"; line 12: if \'fused\' in opt_lower:')


def test_a_launcher_passing_a_fused_value_keeps_the_arm(tmp_path):
    assert _fused_assert(tmp_path, **{"run.sh": "python main.py --opt fusedlamb\n"})[0] == "runs"
