"""Where port puts the device module and how each file imports it, checked by IMPORTING the rewritten files the way
the project runs them (a subprocess with the script's folder, or the installed project's folder, on sys.path), on a
host without torch_npu: the device module must then pick CUDA or the CPU, never fail."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.core.models import EffortHours, Finding
from ascend_feasibility.analyzer.port import PortOptions, port
from ascend_feasibility.analyzer.port.verify import verify_script
from ascend_feasibility.analyzer.port.worlds import Worlds

_ids = itertools.count()
SYNC = "torch.cuda.synchronize()"


def _site(files: dict[str, str], path: str) -> Finding:
    lines = files[path].splitlines()
    line = next(n for n, text in enumerate(lines, 1) if SYNC in text)
    column = lines[line - 1].index(SYNC) + 1
    return Finding.model_construct(
        rule="DEV101", path=path, line=line, column=column, end_line=line, end_column=column + len(SYNC) - 2,
        symbol="torch.cuda.synchronize", severity="info", role="product", reach="runs", suppressed=False, cell=None,
        fingerprint=f"fp{next(_ids)}", replacement=SimpleNamespace(en="use the NPU's own"),
        effort_hours=EffortHours(low=0.05, high=0.1))  # DEV101's own hours: the advice asks for an edit


def _report(files, sites, entries=(), own_packages=()):
    matrix = SimpleNamespace(entries=[SimpleNamespace(path=p, script=True, phases=["inference"]) for p in entries])
    findings = [_site(files, path) for path in sites]
    return SimpleNamespace(findings=findings, phase_matrix=matrix, custom_ops=[],
                           project=SimpleNamespace(name="proj", own_packages=list(own_packages), npu_code=[]))


def _write(root: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content, encoding="utf-8")


def _ported(tmp_path, files, sites, entries=(), own_packages=()):
    """Port the tree, then write the result into a copy: (the result, the ported tree)."""
    original = tmp_path / "original"
    _write(original, files)
    result = port(original, _report(files, sites, entries, own_packages), PortOptions())
    assert not result.unpatched, result.unpatched
    ported = tmp_path / "ported"
    _write(ported, files)
    _write(ported, {r.path: r.new for r in result.rewrites})
    _write(ported, result.new_files)
    return result, ported


def _imports(ported: Path, folder: str, module: str) -> subprocess.CompletedProcess:
    """Import `module` with `folder` first on sys.path, as `python script.py` run there (or an installed project)
    does, with the repository's root NOT on the path, on this host (no torch_npu)."""
    code = (f"import sys; sys.path.insert(0, {str(ported / folder)!r}); import importlib; "
            f"m = importlib.import_module({module!r}); import torch; "
            "print(sys.modules[[n for n in sys.modules if n.split('.')[-1] == '_device'][0]].DEVICE_TYPE)")
    return subprocess.run([sys.executable, "-c", code], cwd=ported / folder, capture_output=True, text=True, timeout=120)


# Two projects in one folder without __init__.py: a kit installed from its own setup.py (package `kit_pkg`, its files
# importing each other relatively and run.py importing it absolutely), and a script folder run as `python eval.py`
# from there, importing its helper folder (no __init__.py) by name. And a demo folder of lone scripts.
TWO_PROJECTS = {
    "evals/kit/setup.py": "from setuptools import setup\nsetup(name='kit')\n",
    "evals/kit/run.py": "import torch\nfrom kit_pkg.infer import infer\n\n\ndef main():\n    torch.cuda.synchronize()\n",
    "evals/kit/kit_pkg/__init__.py": "from . import infer\n",
    "evals/kit/kit_pkg/infer.py": "import torch\nfrom .vlm import model\n\n\ndef infer():\n    torch.cuda.synchronize()\n",
    "evals/kit/kit_pkg/vlm/__init__.py": "from . import model\n",
    "evals/kit/kit_pkg/vlm/model.py": "import torch\n\n\ndef load():\n    torch.cuda.synchronize()\n",
    "evals/vq/eval.py": ("import torch\nfrom eval_utils.args import parse\nfrom models.mini.model import load\n\n\n"
                         "def main():\n    torch.cuda.synchronize()\n"),
    "evals/vq/eval_utils/args.py": "import torch\n\n\ndef parse():\n    torch.cuda.synchronize()\n",
    "evals/vq/models/mini/model.py": "import torch\n\n\ndef load():\n    torch.cuda.synchronize()\n",
    "demos/demo.py": "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n",
}


def test_each_import_world_gets_its_own_device_module_and_every_rewritten_file_imports(tmp_path):
    sites = [p for p in TWO_PROJECTS if p.endswith(".py") and not p.endswith(("__init__.py", "setup.py"))]
    result, ported = _ported(tmp_path, TWO_PROJECTS, sites, entries=["evals/kit/run.py", "evals/vq/eval.py", "demos/demo.py"])
    assert sorted(result.new_files) == ["demos/_device.py", "evals/kit/kit_pkg/_device.py", "evals/vq/_device.py"]
    assert "evals/_device.py" not in result.new_files  # evals/ holds two projects; nothing imports it by name
    new = {r.path: r.new for r in result.rewrites}
    assert "from .. import _device  # ascend: port" in new["evals/kit/kit_pkg/vlm/model.py"]
    assert "from . import _device  # ascend: port" in new["evals/kit/kit_pkg/infer.py"]
    assert "from kit_pkg import _device  # ascend: port" in new["evals/kit/run.py"]
    for path in ("evals/vq/eval.py", "evals/vq/eval_utils/args.py", "evals/vq/models/mini/model.py", "demos/demo.py"):
        assert "\nimport _device  # ascend: port" in new[path], path
    host = "cuda" if __import__("torch").cuda.is_available() else "cpu"
    for folder, module in [("evals/kit", "kit_pkg"), ("evals/kit", "kit_pkg.vlm.model"), ("evals/kit", "run"),
                           ("evals/vq", "eval"), ("evals/vq", "eval_utils.args"), ("evals/vq", "models.mini.model"),
                           ("demos", "demo")]:
        done = _imports(ported, folder, module)
        assert done.returncode == 0 and done.stdout.split()[-1] == host, (folder, module, done.stderr)


def test_a_relative_import_never_climbs_a_folder_without_init(tmp_path):
    # Megatron's layout: megatron/ (no __init__.py) imported by name from the root; core/ a regular package using
    # relative imports. The module goes to megatron/_device.py (a namespace package of the root's world), and the
    # files reach it by an absolute import: `from .. import _device` would climb out of megatron.core.
    files = {"megatron/core/__init__.py": "", "megatron/core/utils.py": "X = 1\n",
             "megatron/core/layers.py": "import torch\nfrom .utils import X\n\n\ndef f():\n    torch.cuda.synchronize()\n",
             "megatron/training/__init__.py": "",
             "megatron/training/train.py": "import torch\nfrom megatron.core import layers\n\n\ndef g():\n"
                                           "    torch.cuda.synchronize()\n",
             "pretrain.py": "import torch\nfrom megatron.training import train\n\n\ndef main():\n    torch.cuda.synchronize()\n"}
    result, ported = _ported(tmp_path, files, ["megatron/core/layers.py", "megatron/training/train.py", "pretrain.py"],
                             entries=["pretrain.py"])
    assert list(result.new_files) == ["megatron/_device.py"]
    for path in ("megatron/core/layers.py", "megatron/training/train.py", "pretrain.py"):
        assert "from megatron import _device  # ascend: port" in next(r.new for r in result.rewrites if r.path == path)
    for module in ("megatron.core.layers", "megatron.training.train", "pretrain"):
        done = _imports(ported, ".", module)
        assert done.returncode == 0, (module, done.stderr)


def test_a_script_folder_importing_the_project_package_uses_its_module(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/ops.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n",
             "tools/convert.py": "import torch\nfrom pkg.ops import f\n\n\ndef main():\n    torch.cuda.synchronize()\n",
             "tools/lone.py": "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n",
             "pkg/tools/split.py": "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n",
             "setup.py": "from setuptools import find_packages, setup\n\nsetup(name='pkg', packages=find_packages())\n",
             "tools/late.py": "import sys\nimport torch\nsys.path.append('..')\nfrom pkg.ops import f\n\n\ndef main():\n"
                              "    torch.cuda.synchronize()\n"}
    result, ported = _ported(tmp_path, files, ["pkg/ops.py", "tools/convert.py", "tools/lone.py", "tools/late.py",
                                                      "pkg/tools/split.py"],
                             entries=["tools/convert.py", "tools/lone.py", "tools/late.py"], own_packages=["pkg"])
    new = {r.path: r.new for r in result.rewrites}
    assert "from pkg import _device  # ascend: port" in new["tools/convert.py"]  # the package it imports already
    assert "\nimport _device  # ascend: port" in new["tools/lone.py"]  # a module beside it
    # pkg is importable only after the sys.path change, below where port puts its import: a module beside it
    assert "\nimport _device  # ascend: port" in new["tools/late.py"]
    # and it goes after the file's own sys.path edit and the imports that follow it (round 29 port W)
    late = new["tools/late.py"]
    assert late.index("from pkg.ops import f") < late.index("import _device  # ascend: port")
    assert sorted(result.new_files) == ["pkg/_device.py", "tools/_device.py"]
    # a script folder inside the installed package (run by its CLI): the package is importable there
    assert "from pkg import _device  # ascend: port" in new["pkg/tools/split.py"]
    code = f"import sys; sys.path[:0] = [{str(ported / 'tools')!r}, {str(ported)!r}]; import convert, lone, late"
    done = subprocess.run([sys.executable, "-c", code], cwd=ported / "tools", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# Pointcept's shape (round 39 port hunk 5): a script in a namespace folder inside the project's package, run by path
# (`python pkg/prep/scan/run.py`), importing nothing of the package.
STANDALONE = {"pkg/__init__.py": "", "pkg/engine.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n",
              "pkg/prep/scan/run.py": "import argparse\nimport torch\n\n\ndef main():\n    torch.cuda.synchronize()\n\n\n"
                                      "if __name__ == '__main__':\n    argparse.ArgumentParser().parse_args()\n"}


@pytest.mark.parametrize("build", [{}, {"pyproject.toml": "[tool.ruff]\nline-length = 120\n"},
                                   {"setup.py": "from setuptools import setup\n\nsetup(name='x', packages=['other'])\n"}])
def test_a_script_run_by_path_in_a_package_nothing_installs_gets_a_module_beside_it(tmp_path, build):
    """No build file installs pkg (none, one holding only a tool's settings, one installing another package): the
    script's own folder is its sys.path[0], `from pkg import _device` raises ModuleNotFoundError there."""
    files = {**STANDALONE, **build}
    result, ported = _ported(tmp_path, files, ["pkg/engine.py", "pkg/prep/scan/run.py"],
                             entries=["pkg/prep/scan/run.py"], own_packages=["pkg"])
    new = {r.path: r.new for r in result.rewrites}
    assert "\nimport _device  # ascend: port" in new["pkg/prep/scan/run.py"]
    assert "from pkg import" not in new["pkg/prep/scan/run.py"]
    assert sorted(result.new_files) == ["pkg/_device.py", "pkg/prep/scan/_device.py"]
    done = _imports(ported, "pkg/prep/scan", "run")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("build", [
    {"setup.py": "from setuptools import find_packages, setup\n\nsetup(name='pkg', packages=find_packages())\n"},
    {"setup.py": "from setuptools import setup\n\nsetup(name='pkg')\n"},  # setuptools discovers pkg
    {"pyproject.toml": "[project]\nname = 'pkg'\nversion = '1'\n"}])
def test_a_script_run_by_path_in_an_installed_package_imports_the_package_module(tmp_path, build):
    """A build file at the root installs pkg (its package list, or setuptools' discovery): after `pip install -e .`
    the package is importable from any folder, so the script shares the package's module."""
    files = {**STANDALONE, **build}
    result, ported = _ported(tmp_path, files, ["pkg/engine.py", "pkg/prep/scan/run.py"],
                             entries=["pkg/prep/scan/run.py"], own_packages=["pkg"])
    new = {r.path: r.new for r in result.rewrites}
    assert "from pkg import _device  # ascend: port" in new["pkg/prep/scan/run.py"]
    assert sorted(result.new_files) == ["pkg/_device.py"]
    code = f"import sys; sys.path[:0] = [{str(ported / 'pkg/prep/scan')!r}, {str(ported)!r}]; import run"
    done = subprocess.run([sys.executable, "-c", code], cwd=ported / "pkg/prep/scan", capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_import_worlds_come_from_the_files_own_imports(tmp_path):
    _write(tmp_path, {"a/setup.py": "", "a/p/__init__.py": "", "a/p/m.py": "", "b/run.py": "import helpers.x\n",
                      "b/helpers/x.py": "", "c/tool.py": "import datasets\n", "c/datasets/y.py": "",
                      "d/one/two.py": "", "main.py": "from d.one import two\n", "src/q/__init__.py": "",
                      "ft/__init__.py": "", "ft/train.py": "from trainer import T\n", "ft/trainer.py": "T = 1\n",
                      "lib/__init__.py": "", "lib/logging.py": "", "lib/a.py": "import logging\n",
                      "lib/quant/__init__.py": "", "lib/quant/auto.py": "import bnb\n", "lib/quant/bnb/__init__.py": "",
                      "lib/quant/bnb/q.py": "", "top/__init__.py": "", "top/a.py": "import bnb\n", "top/bnb/x.py": "",
                      "proj/__init__.py": "", "proj/nerf/__init__.py": "", "proj/nerf/train.py": "from nerf.data import D\n",
                      "proj/nerf/nerf/__init__.py": "", "proj/nerf/nerf/data.py": ""})
    worlds = Worlds(tmp_path)
    assert worlds.world_of("a/p/m.py") == PurePosixPath("a")  # its own setup.py
    assert worlds.world_of("b/helpers/x.py") == PurePosixPath("b")  # imported by name from b/run.py
    assert worlds.world_of("c/datasets/y.py") == PurePosixPath("c/datasets")  # `import datasets`: a library's name
    assert worlds.world_of("d/one/two.py") == PurePosixPath(".")  # `from d.one import two` at the root
    assert worlds.world_of("src/q/m.py") == PurePosixPath("src")
    assert worlds.world_of("main.py") == PurePosixPath(".")
    assert worlds.world_of("ft/trainer.py") == PurePosixPath("ft")  # run as `torchrun train.py` there, __init__ or not
    assert worlds.world_of("lib/a.py") == PurePosixPath(".")  # `import logging` is the standard library's
    assert worlds.world_of("lib/quant/auto.py") == PurePosixPath(".")  # `import bnb` names no module in bnb/: a library
    assert worlds.world_of("top/a.py") == PurePosixPath(".")
    assert worlds.world_of("proj/nerf/nerf/data.py") == PurePosixPath("proj/nerf")  # `from nerf.data` in train.py
    assert worlds.regular_chain("a/p/m.py", PurePosixPath("a/p"))
    assert not worlds.regular_chain("b/helpers/x.py", PurePosixPath("b/helpers"))


def test_a_folder_its_files_import_from_by_bare_name_is_an_import_root_even_when_imported_by_a_dotted_name(tmp_path):
    """Two import roots under one package tree (unsloth's studio/ and studio/backend/): the backend's launcher puts
    app/backend on sys.path, and its files import `core.*` and `utils.*` by those names; the scripts in app/ import a
    sibling by its bare name (`import helper_core`). A test at the root also imports `app.backend.core.infer`. A
    relative import climbing to app/ fails as the backend runs (`attempted relative import beyond top-level
    package`): each root gets its own device module, reached without climbing past it, and verify_npu.py imports the
    modules under their launchers' names."""
    files = {"app/__init__.py": "", "app/backend/__init__.py": "",
             "app/backend/run.py": "import sys\nimport torch\nfrom core.infer import f\n\n\ndef main():\n"
                                   "    torch.cuda.synchronize()\n",
             "app/backend/core/__init__.py": "", "app/backend/utils/__init__.py": "",
             "app/backend/utils/helpers.py": "def h():\n    return 1\n",
             "app/backend/core/infer.py": "import torch\nfrom utils.helpers import h\n\n\ndef f():\n"
                                         "    torch.cuda.synchronize()\n",
             "app/install.py": "import torch\nimport helper_core\n\n\ndef main():\n    torch.cuda.synchronize()\n",
             "app/helper_core.py": "import torch\n\n\ndef g():\n    torch.cuda.synchronize()\n",
             "pkg/__init__.py": "", "pkg/m.py": "import torch\n\n\ndef k():\n    torch.cuda.synchronize()\n",
             "tests/test_infer.py": "from app.backend.core.infer import f\n"}
    worlds = Worlds(tmp_path / "tree")
    _write(tmp_path / "tree", files)
    assert worlds.world_of("app/backend/core/infer.py") == PurePosixPath("app/backend")
    assert worlds.world_of("app/install.py") == PurePosixPath("app")
    assert worlds.world_of("pkg/m.py") == PurePosixPath(".")
    sites = ["app/backend/run.py", "app/backend/core/infer.py", "app/install.py", "app/helper_core.py", "pkg/m.py"]
    result, ported = _ported(tmp_path, files, sites, entries=["app/backend/run.py", "app/install.py"],
                             own_packages=["pkg", "app"])
    for folder, module in [("app/backend", "core.infer"), ("app/backend", "run"), ("app", "install"),
                           ("app", "helper_core"), (".", "pkg.m")]:
        done = _imports(ported, folder, module)
        assert done.returncode == 0, (module, done.stderr)
    script = verify_script(SimpleNamespace(findings=[]), result, None, tmp_path / "original")
    modules = next(line for line in script.splitlines() if line.startswith("PATCHED_MODULES = "))
    assert "'app/backend:core.infer'" in modules and "'app:install'" in modules and "'pkg.m'" in modules


# A tree that is also a ComfyUI custom node (round 18 port hunks 1, 10, 11): the root's __init__.py imports the node
# module relatively, and the node imports the library's files as `..anim.pipeline.pipe`, so the library is loaded under
# the node folder's name, where only relative imports work. anim/pipeline/ and anim/ui/ have no __init__.py, and their
# files import their siblings relatively (`from ..models.net import X`); run from the root, `predict.py` imports the
# same files as `anim.pipeline.pipe`.
COMFY_NODE = {
    "__init__.py": "from .comfy.nodes import NODE\n",
    "pyproject.toml": "[project]\nname = 'anim-node'\n\n[tool.comfy]\nPublisherId = 'me'\n",
    "anim/__init__.py": "",
    "anim/models/__init__.py": "",
    "anim/models/net.py": "import torch\nX = 1\n\n\ndef load():\n    torch.cuda.synchronize()\n",
    "anim/pipeline/pipe.py": "import torch\nfrom ..models.net import X\n\n\ndef run():\n    torch.cuda.synchronize()\n",
    "anim/ui/ui.py": "import torch\n\nfrom ..models.net import X\nfrom ..pipeline.pipe import run\n\n\ndef generate():\n"
                     "    torch.cuda.synchronize()\n",
    "anim/ui/plain.py": "import torch\nimport os\n\n\ndef generate():\n    torch.cuda.synchronize()\n",
    "comfy/__init__.py": "",
    "comfy/nodes.py": "from ..anim.pipeline.pipe import run\nfrom ..anim.ui.ui import generate\nNODE = (run, generate)\n",
    "predict.py": "import torch\nfrom anim.pipeline.pipe import run\nfrom anim.ui.plain import generate\n\n\ndef main():\n"
                  "    torch.cuda.synchronize()\n",
}


def test_a_file_whose_own_relative_imports_climb_to_the_module_imports_it_relatively(tmp_path):
    sites = ["anim/models/net.py", "anim/pipeline/pipe.py", "anim/ui/ui.py", "anim/ui/plain.py", "predict.py"]
    result, ported = _ported(tmp_path, COMFY_NODE, sites, entries=["predict.py"])
    assert list(result.new_files) == ["anim/_device.py"]
    new = {r.path: r.new for r in result.rewrites}
    # the file's own `from ..models` climbs to anim/: so may the device import, through the namespace folder
    assert "from .. import _device  # ascend: port" in new["anim/pipeline/pipe.py"]
    assert "from .. import _device  # ascend: port" in new["anim/ui/ui.py"]
    # no relative import of its own: nothing shows a relative import resolves there, the absolute one stays
    assert "from anim import _device  # ascend: port" in new["anim/ui/plain.py"]
    assert "from anim import _device  # ascend: port" in new["predict.py"]
    # run from the root: every file imports
    for module in ("predict", "anim.pipeline.pipe", "anim.ui.ui"):
        done = _imports(ported, ".", module)
        assert done.returncode == 0, (module, done.stderr)
    # loaded as a custom node: the root is a package of another name, its folder's parent on sys.path
    host = "cuda" if __import__("torch").cuda.is_available() else "cpu"
    node = ported.parent / "AnimNode"
    ported.rename(node)
    code = (f"import sys; sys.path.insert(0, {str(node.parent)!r}); import AnimNode, torch; "
            "print(sys.modules['AnimNode.anim._device'].DEVICE_TYPE)")
    done = subprocess.run([sys.executable, "-c", code], cwd=node.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split()[-1] == host, done.stderr


def test_the_custom_node_load_fails_with_an_absolute_device_import(tmp_path):
    """The check above can fail: the same node with `from anim import _device` in pipe.py does not load."""
    files = dict(COMFY_NODE)
    files["anim/_device.py"] = "DEVICE_TYPE = 'cpu'\n"
    files["anim/pipeline/pipe.py"] = "from anim import _device\nfrom ..models.net import X\n"
    node = tmp_path / "AnimNode"
    _write(node, files)
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import AnimNode"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "No module named 'anim'" in done.stderr


SMOKE = ("import torch\nfrom torch.utils.data import DataLoader, Dataset\n\n\nclass Frames(Dataset):\n"
         "    def __len__(self):\n        return 2\n\n    def __getitem__(self, i):\n        return torch.zeros(2)\n\n\n"
         "def show(loader):\n    for batch in loader:\n        print(batch.shape)\n\n\n"
         "if __name__ == \"__main__\":\n    show(DataLoader(Frames(), batch_size=1))\n")
TRAIN = "import torch\nfrom anim.data.frames import Frames\n\n\ndef main():\n    torch.cuda.synchronize()\n"


def test_a_library_module_with_a_device_free_smoke_test_gets_no_step_0(tmp_path):
    files = {"anim/__init__.py": "", "anim/data/frames.py": SMOKE, "train.py": TRAIN}
    result, _ = _ported(tmp_path, files, ["train.py"], entries=["train.py", "anim/data/frames.py"])
    assert result.entries == ["train.py"]
    new = {r.path: r.new for r in result.rewrites}
    assert "anim/data/frames.py" not in new
    assert "Step 0" in new["train.py"]


def test_a_main_block_that_reaches_device_work_or_a_module_nobody_imports_keeps_step_0(tmp_path):
    # the `__main__` block calls a function of the file that works on the device: an entry
    device = SMOKE.replace("        print(batch.shape)\n", "        print(batch.cuda().shape)\n")
    files = {"anim/__init__.py": "", "anim/data/frames.py": device, "train.py": TRAIN}
    result, _ = _ported(tmp_path / "a", files, ["train.py"], entries=["train.py", "anim/data/frames.py"])
    assert result.entries == ["anim/data/frames.py", "train.py"]
    assert "Step 0" in next(r.new for r in result.rewrites if r.path == "anim/data/frames.py")
    # a device-free `__main__` block in a file no project file imports: a script of its own, kept
    files = {"anim/__init__.py": "", "anim/data/frames.py": SMOKE, "train.py": TRAIN.replace("from anim.data.frames import Frames\n", "")}
    result, _ = _ported(tmp_path / "b", files, ["train.py"], entries=["train.py", "anim/data/frames.py"])
    assert result.entries == ["anim/data/frames.py", "train.py"]


# A nested project installed from its own folder (setup.py's find_packages) whose package holds a stray pyproject.toml
# of its own: the package is imported as `verl` from rl/, so verl/ is no project root and its files reach the device
# module through the package (EasyR1's verl/pyproject.toml beside EasyR1/setup.py).
STRAY_PYPROJECT = {
    "rl/setup.py": "from setuptools import find_packages, setup\nsetup(name='verl', packages=find_packages(where='.'))\n",
    "rl/verl/pyproject.toml": "[project]\nname = \"verl\"\ndynamic = [\"version\"]\n",
    "rl/verl/__init__.py": "",
    "rl/verl/utils/__init__.py": "",
    "rl/verl/utils/fsdp_utils.py": "import torch\n\n\ndef offload():\n    torch.cuda.synchronize()\n",
    "rl/verl/workers/__init__.py": "",
    "rl/verl/workers/fsdp_workers.py": ("import torch\n\nfrom ..utils.fsdp_utils import offload\n\n\n"
                                        "def step():\n    torch.cuda.synchronize()\n"),
}


def test_a_build_file_inside_a_package_installed_from_above_roots_no_import_world(tmp_path):
    sites = ["rl/verl/utils/fsdp_utils.py", "rl/verl/workers/fsdp_workers.py"]
    result, ported = _ported(tmp_path, STRAY_PYPROJECT, sites)
    new = {r.path: r.new for r in result.rewrites}
    assert "from utils import _device" not in new["rl/verl/utils/fsdp_utils.py"]
    host = "cuda" if __import__("torch").cuda.is_available() else "cpu"
    for module in ("verl.utils.fsdp_utils", "verl.workers.fsdp_workers"):  # `python -m verl.x` from rl/
        done = _imports(ported, "rl", module)
        assert done.returncode == 0 and done.stdout.split()[-1] == host, (module, done.stderr)


def test_a_build_file_roots_its_folder_unless_the_build_file_above_installs_it(tmp_path):
    listed = {**STRAY_PYPROJECT, "rl/setup.py": "from setuptools import setup\nsetup(name='verl', packages=['verl', 'verl.utils'])\n"}
    other = {**STRAY_PYPROJECT, "rl/setup.py": "from setuptools import setup\nsetup(name='rl', packages=['tools'])\n"}
    elsewhere = {**STRAY_PYPROJECT, "rl/setup.py": "from setuptools import find_packages, setup\nsetup(packages=find_packages('src'))\n"}
    toml_find = {**{k: v for k, v in STRAY_PYPROJECT.items() if k != "rl/setup.py"},
                 "rl/pyproject.toml": "[project]\nname = \"rl\"\n[tool.setuptools.packages.find]\nwhere = [\".\"]\n"}
    toml_other = {**toml_find, "rl/pyproject.toml": toml_find["rl/pyproject.toml"] + "include = [\"tools*\"]\n"}
    no_package = {k: v for k, v in STRAY_PYPROJECT.items() if k != "rl/verl/__init__.py"}
    for name, files, world in [("find_packages", STRAY_PYPROJECT, "rl"), ("listed", listed, "rl"),
                               ("pyproject find", toml_find, "rl"),
                               ("pyproject find, other include", toml_other, "rl/verl"), ("not listed", other, "rl/verl"),
                               ("found under src/", elsewhere, "rl/verl"), ("no __init__.py", no_package, "rl/verl")]:
        root = tmp_path / name.replace(" ", "_").replace("/", "")
        _write(root, files)
        assert Worlds(root).world_of("rl/verl/utils/fsdp_utils.py") == PurePosixPath(world), name


def test_a_script_folder_that_is_also_the_installed_package_imports_the_module_by_its_package_name(tmp_path):
    """tortoise-tts's shape: tortoise/ holds scripts run as `python tortoise/do_tts.py` (a script folder) and is the
    package setup.py installs; its files import each other as `from tortoise.models.x import ...`, and the installed
    console script loads them the same way. The device module's import follows: `from tortoise.utils import _device`,
    not the folder-relative `from utils import _device`, which fails wherever the package is loaded by its name."""
    files = {"setup.py": "import setuptools\nsetuptools.setup(name='t', packages=setuptools.find_packages())\n",
             "tortoise/__init__.py": "", "tortoise/utils/__init__.py": "", "tortoise/models/__init__.py": "",
             "tortoise/utils/audio.py": "import torch\n\n\ndef load():\n    torch.cuda.synchronize()\n",
             "tortoise/models/decoder.py": "import torch\n\n\ndef run():\n    torch.cuda.synchronize()\n",
             "tortoise/api.py": "import torch\nfrom tortoise.models.decoder import run\nfrom tortoise.utils.audio import load\n"
                                "\n\ndef tts():\n    torch.cuda.synchronize()\n",
             "tortoise/do_tts.py": "import torch\nfrom tortoise.api import tts\n\n\ndef main():\n    tts()\n\n\n"
                                   "if __name__ == '__main__':\n    main()\n"}
    sites = ["tortoise/api.py", "tortoise/models/decoder.py", "tortoise/utils/audio.py"]
    result, ported = _ported(tmp_path, files, sites, entries=["tortoise/do_tts.py"], own_packages=["tortoise"])
    new = {r.path: r.new for r in result.rewrites}
    assert sorted(result.new_files) == ["tortoise/_device.py"]
    for path in sites:
        assert "from tortoise import _device  # ascend: port" in new[path], path
    # loaded by its package name (the installed console script; the root on sys.path), every rewritten file imports
    code = f"import sys; sys.path.insert(0, {str(ported)!r}); import tortoise.api"
    done = subprocess.run([sys.executable, "-c", code], cwd=ported, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# Amphion's shape (port round 26, hunk 9): the root package models/ gets the device module; a vendored project,
# models/tta/picoaudio/picoaudio/, has a models/ folder of its own that its runner imports as `models.x`, run from there
PICO = "models/tta/picoaudio/picoaudio"
NESTED = {
    "models/__init__.py": "", "models/tts/__init__.py": "",
    "models/tts/valle.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n",
    "models/tts/vits.py": "import torch\n\n\ndef g():\n    torch.cuda.synchronize()\n",
    "bins/train.py": "import torch\nfrom models.tts.valle import f\n\n\ndef main():\n    torch.cuda.synchronize()\n",
    f"{PICO}/models/controllable_diffusion.py": "import torch\n\n\ndef h():\n    torch.cuda.synchronize()\n",
    f"{PICO}/runner/controllable_inference.py": ("import torch\nimport models.controllable_diffusion\n\n\ndef main():\n"
                                                 "    torch.cuda.synchronize()\n"),
}


def test_a_nested_project_with_its_own_top_package_gets_its_own_device_module(tmp_path):
    sites = [p for p in NESTED if not p.endswith("__init__.py")]
    result, ported = _ported(tmp_path, NESTED, sites, entries=["bins/train.py", f"{PICO}/runner/controllable_inference.py"])
    assert "models/_device.py" in result.new_files and f"{PICO}/models/_device.py" in result.new_files
    new = {r.path: r.new for r in result.rewrites}
    assert "from models import _device  # ascend: port" in new[f"{PICO}/runner/controllable_inference.py"]
    host = "cuda" if __import__("torch").cuda.is_available() else "cpu"
    for folder, module in [(PICO, "runner.controllable_inference"), (PICO, "models.controllable_diffusion"),
                           (".", "models.tts.vits")]:
        done = _imports(ported, folder, module)
        assert done.returncode == 0 and done.stdout.split()[-1] == host, (folder, module, done.stderr)
    # the root's own files still use the root's module
    assert "from . import _device  # ascend: port" in new["models/tts/vits.py"] or \
        "from models import _device  # ascend: port" in new["models/tts/vits.py"]


def test_a_file_importing_what_the_root_package_holds_uses_the_root_module(tmp_path):
    files = dict(NESTED)
    files[f"{PICO}/runner/controllable_inference.py"] = ("import torch\nimport models.tts.valle\n\n\ndef main():\n"
                                                         "    torch.cuda.synchronize()\n")
    sites = [p for p in files if not p.endswith("__init__.py")]
    result, _ = _ported(tmp_path, files, sites, entries=["bins/train.py"])
    new = {r.path: r.new for r in result.rewrites}
    # `models.tts.valle` is the root package's: the runner runs with the root on sys.path, and loads the root's module
    assert "from models import _device  # ascend: port" in new[f"{PICO}/runner/controllable_inference.py"]


def test_a_file_the_readme_runs_as_a_module_imports_the_device_module_from_the_root(tmp_path):
    """Round 27 port hunk 5 (co-tracker: `python -m gradio_demo.app` from the root, gradio_demo/ without __init__.py):
    the root is sys.path[0], so a bare `import _device` fails there; `from gradio_demo import _device` resolves."""
    body = "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n"
    files = {"gradio_demo/app.py": body, "gradio_demo/lone.py": body,
             "README.md": "Run the demo:\n\n```bash\npython -m gradio_demo.app\n```\n"}
    result, ported = _ported(tmp_path, files, ["gradio_demo/app.py", "gradio_demo/lone.py"],
                             entries=["gradio_demo/app.py", "gradio_demo/lone.py"])
    new = {r.path: r.new for r in result.rewrites}
    assert "from gradio_demo import _device  # ascend: port" in new["gradio_demo/app.py"]
    assert "\nimport _device  # ascend: port" in new["gradio_demo/lone.py"]  # no -m launch: run from its folder
    assert result.new_files.keys() == {"gradio_demo/_device.py"}
    done = subprocess.run([sys.executable, "-m", "gradio_demo.app"], cwd=ported, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    # the same tree whose README runs the script from its folder keeps the bare import
    plain = {**files, "README.md": "```bash\ncd gradio_demo && python app.py\n```\n"}
    result, _ = _ported(tmp_path / "plain", plain, ["gradio_demo/app.py"], entries=["gradio_demo/app.py"])
    assert "\nimport _device  # ascend: port" in next(r.new for r in result.rewrites if r.path == "gradio_demo/app.py")


def test_a_src_layout_package_imports_the_device_module_by_its_installed_name(tmp_path):
    """BrushNet (round 34 port hunk 3): setup.py installs src/ as `package_dir={"": "src"}`, a file of the package's
    pipelines/ imports `diffusers.utils` by the installed name (so src/ is its import world), and a test imports
    `src.diffusers...`. The device module src/diffusers/_device.py is imported as `diffusers`, below the source
    root, never as `src.diffusers` (src/ is no package and not on sys.path when the project runs)."""
    files = {"setup.py": "from setuptools import setup, find_packages\n"
                         "setup(name='diffusers', package_dir={'': 'src'}, packages=find_packages('src'))\n",
             "src/diffusers/__init__.py": "", "src/diffusers/utils.py": "X = 1\n",
             "src/diffusers/pipelines/__init__.py": "",
             "src/diffusers/pipelines/pipe.py": "import torch\n\nfrom ..utils import X\n\n\ndef run():\n"
                                                "    torch.cuda.synchronize()\n",
             "src/diffusers/pipelines/convert.py": "from diffusers.utils import X\n",
             "src/diffusers/models.py": "import torch\n\nfrom .utils import X\n\n\ndef load():\n    torch.cuda.synchronize()\n",
             "tests/test_pipe.py": "from src.diffusers.pipelines.pipe import run\n"}
    result, ported = _ported(tmp_path, files, ["src/diffusers/pipelines/pipe.py", "src/diffusers/models.py"],
                             own_packages=["diffusers"])
    assert result.device_module == "src/diffusers/_device.py"
    assert not any("src." in line for r in result.rewrites for line in r.new.splitlines() if "_device" in line)
    for module in ("diffusers.pipelines.pipe", "diffusers.models"):
        done = _imports(ported, "src", module)
        assert done.returncode == 0, (module, done.stderr)


def test_a_package_file_the_root_imports_by_its_dotted_name_is_of_the_root_world(tmp_path):
    """so-vits-svc's shape (port round 36, hunk 1): diffusion/ is a package the root's scripts import by name
    (`from diffusion.vocoder import Vocoder` in train_diff.py), and also holds a script run from there
    (onnx_export.py: `from diffusion_onnx import ...`). vocoder.py is loaded as `diffusion.vocoder` with the root on
    sys.path, so it imports the root world's device module (`from vencoder import _device`), never a bare
    `import _device` (no such top-level module); the folder's own script keeps the bare form. Every device module
    written has one content."""
    body = "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n"
    files = {"vencoder/__init__.py": "", "diffusion/__init__.py": "",
             "vencoder/a.py": body, "vencoder/b.py": body, "vencoder/c.py": body,
             "diffusion/vocoder.py": body, "diffusion/diffusion_onnx.py": "X = 1\n",
             "diffusion/onnx_export.py": "import torch\nfrom diffusion_onnx import X\n\n\ndef main():\n"
                                         "    torch.cuda.synchronize()\n",
             "train_diff.py": "import torch\nfrom diffusion.vocoder import f\nfrom vencoder.a import f as g\n\n\n"
                              "def main():\n    torch.cuda.synchronize()\n"}
    sites = ["vencoder/a.py", "vencoder/b.py", "vencoder/c.py", "diffusion/vocoder.py", "diffusion/onnx_export.py",
             "train_diff.py"]
    result, ported = _ported(tmp_path, files, sites, entries=["train_diff.py", "diffusion/onnx_export.py"],
                             own_packages=["vencoder", "diffusion"])
    new = {r.path: r.new for r in result.rewrites}
    assert "from vencoder import _device  # ascend: port" in new["diffusion/vocoder.py"]
    assert "\nimport _device  # ascend: port" not in new["diffusion/vocoder.py"]
    assert "\nimport _device  # ascend: port" in new["diffusion/onnx_export.py"]
    assert sorted(result.new_files) == ["diffusion/_device.py", "vencoder/_device.py"]
    assert len(set(result.new_files.values())) == 1
    host = "cuda" if __import__("torch").cuda.is_available() else "cpu"
    for folder, module in [(".", "train_diff"), (".", "diffusion.vocoder"), ("diffusion", "onnx_export")]:
        done = _imports(ported, folder, module)
        assert done.returncode == 0 and done.stdout.split()[-1] == host, (folder, module, done.stderr)
