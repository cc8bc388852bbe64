"""A Lightning pin's item (DEP001, packages.toml cuda_part_in / replacement_since) belongs to the phases of the files that
build a Trainer, not to every phase its manifest serves: the 1.x -> 2.x Trainer port and the NPU accelerator are the
training script's work, and an inference script that only subclasses LightningModule or calls seed_everything needs
none of it (round 32 V4, round 33 R33-4: DynamiCrafter, zero123, AnyDoor priced 10-19 h of Trainer port in inference)."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree as write


def run(root: Path):
    return analyze(root, AnalyzeOptions(jobs=1))


MODEL = """import torch
import pytorch_lightning as pl


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.layer(x)

    def training_step(self, batch, batch_idx):
        return self(batch).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())
"""

# a 1.x Trainer built from the command line and fitted: the training entry
TRAIN = """import argparse
import torch
from torch.utils.data import DataLoader
from pytorch_lightning import Trainer
from model import Net


def main():
    parser = argparse.ArgumentParser()
    parser = Trainer.add_argparse_args(parser)
    opt = parser.parse_args()
    trainer = Trainer.from_argparse_args(opt)
    trainer.fit(Net(), DataLoader(torch.randn(8, 4)))


if __name__ == "__main__":
    main()
"""

# the sampling script: a LightningModule loaded and run under no_grad, no Trainer
SAMPLE = """import torch
from pytorch_lightning import seed_everything
from model import Net


def main():
    seed_everything(0)
    model = Net()
    model.load_state_dict(torch.load("net.ckpt", map_location="cpu"))
    model.eval()
    with torch.no_grad():
        out = model(torch.randn(1, 4))
    torch.save(out, "sample.pt")


if __name__ == "__main__":
    main()
"""

REQUIREMENTS = "torch==2.1.0\npytorch-lightning==1.9.3\n"


def lightning_items(report):
    return [f for f in report.findings if f.rule == "DEP001" and "lightning" in f.symbol and f.counted]


def test_a_lightning_pin_is_priced_in_the_phases_of_the_file_building_the_trainer(tmp_path):
    report = run(write(tmp_path, {"requirements.txt": REQUIREMENTS, "model.py": MODEL, "train.py": TRAIN,
                                  "sample.py": SAMPLE}))
    phases = {e.path: e.phases for e in report.phase_matrix.entries}
    assert "training" in phases["train.py"] and "inference" in phases["sample.py"]
    [item] = lightning_items(report)
    assert item.path == "requirements.txt" and item.effort_hours.high >= 8  # the upgrade-first Trainer port
    assert "train.py:4" in item.sites
    assert "training" in item.phases and "inference" not in item.phases


def test_the_inference_phase_holds_no_trainer_port(tmp_path):
    """The same item's hours count in training's effort and not in inference's."""
    report = run(write(tmp_path, {"requirements.txt": REQUIREMENTS, "model.py": MODEL, "train.py": TRAIN,
                                  "sample.py": SAMPLE}))
    with_trainer = report.effort.by_phase
    alone = run(write(tmp_path / "no_lightning", {"requirements.txt": "torch==2.1.0\n", "model.py": MODEL,
                                                  "train.py": TRAIN, "sample.py": SAMPLE}))
    assert with_trainer["inference"].high_days == alone.effort.by_phase["inference"].high_days
    assert with_trainer["training"].high_days > alone.effort.by_phase["training"].high_days


def test_a_data_module_combining_loaders_does_not_reach_the_accelerator(tmp_path):
    """pytorch_lightning.trainer.supporters (1.x CombinedLoader) combines data loaders on any device: a sampling script
    importing it builds no Trainer, and the item stays out of its phase."""
    sample = SAMPLE.replace("from pytorch_lightning import seed_everything\n",
                            "from pytorch_lightning import seed_everything\n"
                            "from pytorch_lightning.trainer.supporters import CombinedLoader\n")
    report = run(write(tmp_path, {"requirements.txt": REQUIREMENTS, "model.py": MODEL, "train.py": TRAIN,
                                  "sample.py": sample}))
    [item] = lightning_items(report)
    assert not any(site.startswith("sample.py") for site in item.sites)
    assert "inference" not in item.phases


def test_a_trainer_built_in_the_sampling_script_keeps_the_item_in_inference(tmp_path):
    """A Trainer built in the sampling script too: the item is in both phases (the Trainer's files)."""
    sample = SAMPLE.replace("from model import Net\n", "from model import Net\nfrom pytorch_lightning import Trainer\n") \
        .replace("    model.eval()\n", "    model.eval()\n    Trainer(accelerator=opt_accelerator)\n")
    report = run(write(tmp_path, {"requirements.txt": REQUIREMENTS, "model.py": MODEL, "train.py": TRAIN,
                                  "sample.py": sample}))
    [item] = lightning_items(report)
    assert {"training", "inference"} <= set(item.phases)


def test_an_inference_script_importing_a_helper_of_the_training_entry_gets_no_trainer_port(tmp_path):
    """The training entry builds its Trainer where it runs; a sampling script that imports a data helper of it reaches
    the file, not the Trainer: the item keeps the entry's own phases."""
    train = TRAIN.replace("\n\ndef main():", "\n\ndef make_input():\n    return torch.randn(1, 4)\n\n\ndef main():")
    sample = SAMPLE.replace("from model import Net\n", "from model import Net\nfrom train import make_input\n") \
        .replace("model(torch.randn(1, 4))", "model(make_input())")
    report = run(write(tmp_path, {"requirements.txt": REQUIREMENTS, "model.py": MODEL, "train.py": train,
                                  "sample.py": sample}))
    [item] = lightning_items(report)
    assert "train.py:4" in item.sites
    assert "training" in item.phases and "inference" not in item.phases


# another project's trainer in a copy the host puts on sys.path (instruct-pix2pix's stable_diffusion/main.py): it
# samples too, so its own evidence says inference
COPY_MAIN = TRAIN.replace("    trainer.fit(", "    with torch.no_grad():\n        Net().eval()(torch.randn(1, 4))\n    trainer.fit(")
HOST_SAMPLE = SAMPLE.replace("from model import Net\n", "from model import Net\nimport sys\nsys.path.append(\"./upstream\")\n"
                             "import hubentry\n")


def test_a_bundled_copys_trainer_puts_no_phase_on_the_hosts_lightning_pin(tmp_path):
    report = run(write(tmp_path, {"requirements.txt": REQUIREMENTS, "model.py": MODEL, "train.py": TRAIN,
                                  "sample.py": HOST_SAMPLE, "upstream/setup.py": "from setuptools import setup\n\nsetup()\n",
                                  "upstream/hubentry.py": "import torch\n\n\ndef load():\n    return torch.zeros(1)\n",
                                  "upstream/model.py": MODEL, "upstream/main.py": COPY_MAIN}))
    assert {e.path for e in report.phase_matrix.entries} == {"train.py", "sample.py"}
    [item] = [f for f in lightning_items(report) if f.path == "requirements.txt"]
    assert "upstream/main.py:4" in item.sites  # the copy's Trainer is listed, and adds no phase of its own
    assert item.phases == ["training"]
