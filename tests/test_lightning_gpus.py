"""Lightning 1.x `Trainer(gpus=...)` (domains/device/lightning_gpus.py): GPU ids, so a CUDA accelerator request
(DEV701, its gpus-keyword variant), unless the value is 0/None/empty or an option whose default is (round 35 B2
class 4, A2 class 8: Uni-ControlNet src/train/train.py)."""

from __future__ import annotations

from tests.helpers import scan

PARSER = ("import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
          "parser.add_argument('--gpus', type=int, {default})\nargs = parser.parse_args()\n")


def _rules(source: str) -> dict[str, list]:
    found: dict[str, list] = {}
    for finding in scan(source, "python").findings:
        found.setdefault(finding.rule, []).append(finding)
    return found


def test_an_option_defaulting_to_all_gpus_asks_for_cuda():
    found = _rules(PARSER.format(default="default=-1") + "def main():\n    n = args.gpus\n    pl.Trainer(gpus=n)\n")
    assert [f.severity for f in found["DEV701"]] == ["high"] and "DEV704" not in found
    assert "gpus=" in found["DEV701"][0].message.en and "Replace `gpus=`" in found["DEV701"][0].replacement.en


def test_an_option_defaulting_to_no_gpu_is_the_auto_accelerator():
    for default in ("default=0", "default=None", "help='ids'"):
        found = _rules(PARSER.format(default=default) + "pl.Trainer(gpus=args.gpus)\n")
        assert "DEV701" not in found and "DEV704" in found, default


def test_a_parameter_or_a_literal_count_asks_for_cuda():
    assert "DEV701" in _rules("import pytorch_lightning as pl\ndef fit(n):\n    return pl.Trainer(gpus=n)\n")
    assert "DEV701" in _rules("import pytorch_lightning as pl\npl.Trainer(gpus=[0, 1], accelerator='auto')\n")


def test_a_literal_zero_or_an_explicit_accelerator_decides():
    assert "DEV701" not in _rules("import pytorch_lightning as pl\npl.Trainer(gpus=0)\n")
    assert "DEV701" not in _rules("import pytorch_lightning as pl\npl.Trainer(accelerator='cpu', gpus=2)\n")


def test_a_splatted_accelerator_decides():
    source = ("from pytorch_lightning import Trainer\ndef main(cfg):\n    config = dict(cfg)\n"
              "    config[\"accelerator\"] = \"cpu\"\n    return Trainer(**config, gpus=2)\n\nmain({})\n")
    assert "DEV701" not in _rules(source)
