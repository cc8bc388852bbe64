"""Which files are entry points, and which phases an entry serves: a library module's `__main__` demo is no entry
(round 22 V3, LTX-Video), a model's internal backward pass that nothing differentiates is no training path (V2,
shap-e), and an entry that builds training and delegates its loop to a project module or a Lightning trainer trains (V1, deit, taming)."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree as write


def run(root: Path):
    return analyze(root, AnalyzeOptions(jobs=1))


def entry_paths(report) -> dict[str, list[str]]:
    return {e.path: e.phases for e in report.phase_matrix.entries}


# LTX-Video's shape: a VAE module the inference script imports runs a forward/backward demo on random inputs.
VAE = """import torch


class Autoencoder(torch.nn.Module):
    def forward(self, x):
        torch.cuda.synchronize()
        return x


def demo_forward_backward():
    model = Autoencoder()
    video = torch.randn(1, 3, 8, 64, 64)
    loss = model(video).mean()
    loss.backward()


if __name__ == "__main__":
    demo_forward_backward()
"""
INFERENCE = """import torch
from vae import Autoencoder


@torch.no_grad()
def main():
    model = Autoencoder().cuda()
    with torch.inference_mode():
        return model(torch.zeros(1))


if __name__ == "__main__":
    main()
"""


def test_an_imported_modules_demo_block_is_no_entry_and_does_not_make_the_project_train(tmp_path):
    report = run(write(tmp_path, {"inference.py": INFERENCE, "vae.py": VAE}))
    assert set(entry_paths(report)) == {"inference.py"}
    assert report.effort.main_phase == "inference"


def test_a_random_input_smoke_block_of_an_imported_module_is_no_entry(tmp_path):
    smoke = VAE.replace("    demo_forward_backward()\n", "    Autoencoder()(torch.randn(2, 3)).sum().backward()\n")
    report = run(write(tmp_path, {"inference.py": INFERENCE, "vae.py": smoke}))
    assert set(entry_paths(report)) == {"inference.py"}


def test_a_demo_block_of_a_module_nothing_imports_stays_an_entry(tmp_path):
    report = run(write(tmp_path, {"vae.py": VAE}))
    assert "training" in entry_paths(report)["vae.py"]


CLI = VAE.replace("    demo_forward_backward()\n", "    cli()\n").replace("def demo_forward_backward():", "def cli():")


def test_an_imported_modules_command_line_block_nothing_runs_is_no_entry(tmp_path):
    # round 28 C3 / V8: a module of a folder other files import for a class, whose block no README or launcher names
    inference = INFERENCE.replace("from vae import", "from models.vae import")
    report = run(write(tmp_path, {"inference.py": inference, "models/vae.py": CLI}))
    assert set(entry_paths(report)) == {"inference.py"}


def test_a_root_script_a_peer_script_imports_stays_an_entry(tmp_path):
    # serve.py's `from generate import load`: generate.py is a script of its own (its block is no demo)
    report = run(write(tmp_path, {"inference.py": INFERENCE, "vae.py": CLI}))
    assert set(entry_paths(report)) == {"inference.py", "vae.py"}


def test_an_imported_modules_block_a_launcher_or_the_readme_runs_stays_an_entry(tmp_path):
    launched = run(write(tmp_path / "a", {"inference.py": INFERENCE, "vae.py": CLI,
                                          "run_vae.sh": "#!/bin/bash\npython -m vae --steps 2\n"}))
    assert set(entry_paths(launched)) == {"inference.py", "vae.py"}
    documented = run(write(tmp_path / "b", {"inference.py": INFERENCE, "vae.py": CLI,
                                            "README.md": "# VAE\n\n```bash\npython vae.py --steps 2\n```\n"}))
    assert set(entry_paths(documented)) == {"inference.py", "vae.py"}


# NAFNet's basicsr/models/archs/__init__.py: a registry that scans its folder and imports every `*_arch.py` by name
ARCHS_INIT = """import importlib
import os

_names = [f[:-3] for f in os.listdir(os.path.dirname(__file__)) if f.endswith("_arch.py")]
_modules = [importlib.import_module(f"models.archs.{name}") for name in _names]
"""
ARCHS_INFERENCE = INFERENCE.replace("from vae import Autoencoder", "from models.archs import _modules\nAutoencoder = None")


def test_a_module_its_packages_by_name_loader_imports_is_no_entry(tmp_path):
    # its `__main__` block (NAFNet's FLOP counts) is a self-test, no entry; the README running it keeps it one
    tree = {"inference.py": ARCHS_INFERENCE, "models/__init__.py": "", "models/archs/__init__.py": ARCHS_INIT,
            "models/archs/vae_arch.py": VAE}
    assert set(entry_paths(run(write(tmp_path / "a", tree)))) == {"inference.py"}
    documented = tree | {"README.md": "# VAE\n\n```bash\npython models/archs/vae_arch.py\n```\n"}
    assert set(entry_paths(run(write(tmp_path / "b", documented)))) == {"inference.py", "models/archs/vae_arch.py"}
    plain = tree | {"models/archs/__init__.py": ""}  # a package that loads nothing by name: nothing imports the module
    assert set(entry_paths(run(write(tmp_path / "c", plain)))) == {"inference.py", "models/archs/vae_arch.py"}


def test_a_script_only_a_test_imports_stays_an_entry(tmp_path):
    test = "from vae import cli\n\n\ndef test_cli():\n    cli()\n"
    report = run(write(tmp_path, {"vae.py": CLI, "tests/test_vae.py": test}))
    assert "vae.py" in entry_paths(report)


# An mmengine new-style config: loaded by path (Config.fromfile), never run (round 28 verdicts W4).
CONFIG = """from mmengine.config import read_base

from mypkg.models import Generator

with read_base():
    from .._base_.default_runtime import *  # noqa: F403

lr = 1e-4
model = dict(type=Generator, channels=64, loss=dict(weight=10.0 / 2.0))
model.update(generator=dict(out_size=256))
train_cfg.update(max_iters=800002)
"""
TRAIN = """import torch
from mypkg.models import Generator

model = Generator().cuda()
for step in range(10):
    model.train_step(torch.zeros(1))
"""
GENERATOR = "import torch\n\n\nclass Generator(torch.nn.Module):\n    def train_step(self, x):\n        return x\n"


def test_a_config_module_is_no_entry(tmp_path):
    report = run(write(tmp_path, {"configs/gan/train_gan_256.py": CONFIG + "train_cfg.update(type='train_loop')\n", "mypkg/__init__.py": "",
                                  "mypkg/models.py": GENERATOR, "train.py": TRAIN}))
    assert set(entry_paths(report)) == {"train.py"}
    updates_only = "from mmengine.config import read_base\n\nwith read_base():\n    from .train_gan_256 import *\n\n" \
        "model.update(dict(prior_loss_weight=1, class_prior_prompt='a dog'))\n"
    report = run(write(tmp_path / "b", {"configs/gan/train_gan_prior.py": updates_only, "mypkg/__init__.py": "",
                                        "mypkg/models.py": GENERATOR, "train.py": TRAIN}))
    assert set(entry_paths(report)) == {"train.py"}


def test_a_module_with_assignments_and_any_other_call_is_no_config(tmp_path):
    runs_work = CONFIG + "Runner.from_cfg(model).train()\n"
    report = run(write(tmp_path, {"configs/gan/train_gan_256.py": runs_work, "mypkg/__init__.py": "",
                                  "mypkg/models.py": GENERATOR, "train.py": TRAIN}))
    assert set(entry_paths(report)) == {"configs/gan/train_gan_256.py", "train.py"}


# shap-e's shape: gradient checkpointing defines a Function the model uses; nothing in the release takes gradients.
CHECKPOINT = """import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run, *args):
        torch.cuda.synchronize()
        return run(*args)

    @staticmethod
    def backward(ctx, *grads):
        return torch.autograd.grad(ctx.outputs, ctx.inputs, grads)
"""
MODEL = """import torch
from checkpoint import CheckpointFunction


class Transformer(torch.nn.Module):
    def forward(self, x):
        return CheckpointFunction.apply(torch.relu, x)
"""
GRAD_TEST = """import torch
from checkpoint import CheckpointFunction


def test_checkpoint_grad():
    x = torch.ones(2, requires_grad=True)
    CheckpointFunction.apply(lambda t: t * 2, x).sum().backward()
"""


def test_a_models_backward_pass_nothing_differentiates_is_no_training_path(tmp_path):
    report = run(write(tmp_path, {"checkpoint.py": CHECKPOINT, "model.py": MODEL}))
    assert entry_paths(report) == {}
    assert report.effort.main_phase is None


def test_a_models_backward_pass_the_tree_differentiates_is_the_librarys_training_path(tmp_path):
    report = run(write(tmp_path, {"checkpoint.py": CHECKPOINT, "model.py": MODEL,
                                  "tests/test_checkpoint.py": GRAD_TEST}))
    assert entry_paths(report)["checkpoint.py"] == ["training"]


def test_a_kernel_librarys_exported_function_no_model_imports_stays_its_training_path(tmp_path):
    report = run(write(tmp_path, {"checkpoint.py": CHECKPOINT}))
    assert entry_paths(report)["checkpoint.py"] == ["training"]


# deit's shape: main.py builds the optimizer and the loaders (data outnumbers training) and runs engine's epoch loop.
DEIT_MAIN = """import torch
from torch.utils.data import DataLoader
from engine import train_one_epoch


def main():
    model = torch.nn.Linear(2, 2).cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    train = DataLoader([1, 2])
    val = DataLoader([3])
    test = DataLoader([4])
    for epoch in range(3):
        train_one_epoch(model, train, optimizer)


if __name__ == "__main__":
    main()
"""
ENGINE = """import torch


def train_one_epoch(model, loader, optimizer, loss_scaler=None):
    for batch in loader:
        optimizer.zero_grad()
        loss = model(batch.cuda()).mean()
        loss_scaler(loss, optimizer)
        torch.cuda.synchronize()
"""


def test_an_entry_building_training_and_delegating_its_loop_trains(tmp_path):
    report = run(write(tmp_path, {"main.py": DEIT_MAIN, "engine.py": ENGINE}))
    phases = entry_paths(report)["main.py"]
    assert "training" in phases and "data" in phases
    assert report.effort.main_phase == "training"


def test_an_entry_without_a_training_line_of_its_own_keeps_its_phases(tmp_path):
    prepare = DEIT_MAIN.replace("    optimizer = torch.optim.AdamW(model.parameters())\n", "    optimizer = None\n")
    report = run(write(tmp_path, {"main.py": prepare, "engine.py": ENGINE}))
    assert entry_paths(report)["main.py"] == ["data"]


# taming's shape: a Lightning 1.x trainer built from the command line and fitted.
LIGHTNING_MAIN = """import torch
from torch.utils.data import DataLoader
from pytorch_lightning.trainer import Trainer


def main(opt, model):
    data = DataLoader([1]), DataLoader([2]), DataLoader([3])
    trainer = Trainer.from_argparse_args(opt)
    trainer.fit(model, data)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main(None, None)
"""


def test_a_lightning_trainer_built_from_arguments_and_fitted_trains(tmp_path):
    report = run(write(tmp_path, {"main.py": LIGHTNING_MAIN}))
    assert "training" in entry_paths(report)["main.py"]


def test_a_lightning_trainer_built_but_never_run_does_not_train(tmp_path):
    report = run(write(tmp_path, {"main.py": LIGHTNING_MAIN.replace("    trainer.fit(model, data)\n", "")}))
    assert "training" not in entry_paths(report)["main.py"]


# Round 30 port hunk 7: a leftover twin of an imported model module, whose only top-level call is a sys.path bootstrap.
PIPELINE = """import os
import sys
from pathlib import Path

import torch

PROJECT_ROOT = Path(__file__).absolute().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))


class Pipeline:
    def __init__(self, gpu_id):
        self.device = 'cuda:' + str(gpu_id)

    @torch.no_grad()
    def __call__(self, x):
        return x.to(self.device)
"""
RUN = """import torch
from pipes.pipeline_hd import Pipeline


@torch.no_grad()
def main():
    return Pipeline(0)(torch.zeros(1))


if __name__ == "__main__":
    main()
"""


def test_a_module_whose_only_top_level_call_edits_sys_path_is_no_entry(tmp_path):
    report = run(write(tmp_path, {"run.py": RUN, "pipes/pipeline_hd.py": PIPELINE, "pipes/pipeline.py": PIPELINE}))
    assert set(entry_paths(report)) == {"run.py"}


def test_a_module_with_a_sys_path_edit_and_another_top_level_call_stays_an_entry(tmp_path):
    works = PIPELINE + "\nPipeline(0)(torch.zeros(1))\n"
    report = run(write(tmp_path, {"run.py": RUN, "pipes/pipeline_hd.py": PIPELINE, "pipes/pipeline.py": works}))
    assert set(entry_paths(report)) == {"run.py", "pipes/pipeline.py"}


# Verdicts round 30 B1: a console script of a src layout (`tool = "mypkg.cli:run_main"`, packages found under src/).
SRC_CLI_RUN = """import argparse

import torch

from mypkg.model import create_model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-i", "--image")
    args = parser.parse_args()
    model = create_model()
    model.eval()
    return model(torch.zeros(1))
"""
SRC_MODEL = """import torch
from PIL import Image


def load_image(path):
    image = Image.open(path)
    return torch.utils.data.DataLoader([image])


class Model(torch.nn.Module):
    def forward(self, x):
        return x


def create_model():
    return Model().to(torch.device("cuda"))
"""
PYPROJECT = """[project]
name = "mypkg"
version = "0.1"

[project.scripts]
mypkg-run = "mypkg.cli:run_main"

[tool.setuptools.packages.find]
where = ["src"]
"""


def test_a_src_layout_console_script_is_matched_to_its_package(tmp_path):
    report = run(write(tmp_path, {"pyproject.toml": PYPROJECT, "src/mypkg/__init__.py": "",
                                  "src/mypkg/cli/__init__.py": "from .run import main as run_main  # noqa\n",
                                  "src/mypkg/cli/run.py": SRC_CLI_RUN, "src/mypkg/model.py": SRC_MODEL}))
    assert set(entry_paths(report)) == {"src/mypkg/cli/__init__.py"}


def test_a_src_layout_package_no_console_script_names_has_no_entry(tmp_path):
    unnamed = PYPROJECT.replace('mypkg-run = "mypkg.cli:run_main"', 'mypkg-run = "otherpkg.cli:run_main"')
    report = run(write(tmp_path, {"pyproject.toml": unnamed, "src/mypkg/__init__.py": "",
                                  "src/mypkg/cli/__init__.py": "from .run import main as run_main  # noqa\n",
                                  "src/mypkg/cli/run.py": SRC_CLI_RUN, "src/mypkg/model.py": SRC_MODEL}))
    assert set(entry_paths(report)) == set()


# Round 30 port hunk 11: a model module the product builds only through a YAML `target:` string, with a developer
# `__main__` self-test.
CONTROL = """import torch


class Control(torch.nn.Module):
    def forward(self, x):
        return x


if __name__ == "__main__":
    from omegaconf import OmegaConf
    config = OmegaConf.load("../../options/dev/tmp.yaml")
    model = Control().cuda().eval()
    with torch.no_grad():
        print(model(torch.zeros(1).cuda()))
"""
CONFIG_YAML = """model:
  target: mymodel.modules.control.Control
  params:
    channels: 4
"""
CONFIG_APP = """import importlib

import torch
from omegaconf import OmegaConf


def instantiate_from_config(config):
    module, cls = config["target"].rsplit(".", 1)
    return getattr(importlib.import_module(module), cls)(**config.get("params", dict()))


@torch.no_grad()
def main():
    config = OmegaConf.load("options/model.yaml")
    model = instantiate_from_config(config.model).cuda()
    return model(torch.zeros(1))


if __name__ == "__main__":
    main()
"""


def test_a_module_a_yaml_target_names_is_imported_and_its_self_test_is_no_entry(tmp_path):
    report = run(write(tmp_path, {"demo.py": CONFIG_APP, "options/model.yaml": CONFIG_YAML,
                                  "mymodel/__init__.py": "", "mymodel/modules/__init__.py": "",
                                  "mymodel/modules/control.py": CONTROL}))
    assert set(entry_paths(report)) == {"demo.py"}


def test_a_module_no_config_names_keeps_its_main_block_entry(tmp_path):
    other = CONFIG_YAML.replace("mymodel.modules.control.Control", "mymodel.modules.other.Other")
    report = run(write(tmp_path, {"demo.py": CONFIG_APP, "options/model.yaml": other,
                                  "mymodel/__init__.py": "", "mymodel/modules/__init__.py": "",
                                  "mymodel/modules/control.py": CONTROL}))
    assert set(entry_paths(report)) == {"demo.py", "mymodel/modules/control.py"}
