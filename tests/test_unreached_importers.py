"""A module is reached only through a chain of imports from an entry (analyzer/context/unloaded.py's
unrun_definitions, propagation.guarded_modules' fixpoint): a file of definitions outside the packages that nothing
imports, launches or names is reached by no entry, and so is what only such files import, chain after chain; the
native sources a module builds at import time (`cpp_extension.load`) follow that module
(custom_ops/binding_reach.unreached_builds). Round 29: a kernel folder imported only by a network's backbone files
that nothing imports kept its CUDA kernels counted. The same files imported by an entry's chain, run by a launcher, or
loaded through a package __init__ the entry imports keep `runs`."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import reported_at, write_tree

ENTRY = """import torch
from seg.api import segment

if __name__ == "__main__":
    segment(torch.zeros(1))
"""
API = """import torch


def segment(x):
    return x.cuda()
"""
HEADS = """import torch
from layers import conv_norm


class Head(torch.nn.Module):
    def forward(self, x):
        return conv_norm(x.cuda())
"""
LAYERS = """import torch
from kernels import FusedNorm


def conv_norm(x):
    return FusedNorm()(x.to('cuda'))
"""
KERNELS_INIT = "from .ops import FusedNorm\n"
OPS = """from os import path
import torch
from torch.utils.cpp_extension import load

_src = path.join(path.dirname(path.abspath(__file__)), "src")
_backend = load(name="fused_norm", sources=[path.join(_src, f) for f in ["fused_norm.cpp", "fused_norm_cuda.cu"]])


class FusedNorm(torch.nn.Module):
    def forward(self, x):
        torch.cuda.synchronize()
        return _backend.forward(x.cuda())
"""
BINDING = """#include <torch/extension.h>
at::Tensor forward_cuda(at::Tensor x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward_cuda); }
"""
KERNEL = """#include <cuda_runtime.h>
__global__ void norm_kernel(float* out) { out[threadIdx.x] = __shfl_down_sync(0xffffffff, out[0], 1); }
"""


def tree(**extra: str) -> dict[str, str]:
    files = {"infer.py": ENTRY, "seg/api.py": API, "seg/nets/__init__.py": "",
             "seg/nets/blocks/heads.py": HEADS, "seg/nets/blocks/layers.py": LAYERS,
             "seg/kernels/__init__.py": KERNELS_INIT, "seg/kernels/ops.py": OPS,
             "seg/kernels/src/fused_norm.cpp": BINDING, "seg/kernels/src/fused_norm_cuda.cu": KERNEL}
    return files | extra


def reach_by_path(root) -> dict[str, set[tuple[str, str | None]]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in report.findings:
        if f.role == "product":
            for path in reported_at(f):
                found.setdefault(path, set()).add((f.reach, f.reach_reason))
    return found


def reaches(found: dict[str, set[tuple[str, str | None]]], path: str) -> set[str]:
    return {reach for reach, _ in found[path]}


def test_a_kernel_folder_only_unreached_modules_import_is_optional_with_its_sources(tmp_path):
    found = reach_by_path(write_tree(tmp_path, tree()))
    assert reaches(found, "seg/api.py") == {"runs"}  # the entry's chain reaches it
    # a chain of two: heads.py (nothing imports it) -> layers.py (only heads.py imports it) -> the kernels
    (why,) = {why for _, why in found["seg/nets/blocks/heads.py"]}
    assert why.startswith("a file of definitions only") and "no entry's import chain reaches it" in why
    assert found["seg/nets/blocks/layers.py"] == {
        ("optional", "imported only by modules no entry's import chain reaches: seg/nets/blocks/heads.py")}
    assert found["seg/kernels/ops.py"] == {
        ("optional", "imported only by modules no entry's import chain reaches: seg/kernels/__init__.py")}
    # the extension ops.py builds when imported: its CUDA kernel and binding follow it
    for native in ("seg/kernels/src/fused_norm_cuda.cu", "seg/kernels/src/fused_norm.cpp"):
        if native in found:
            assert reaches(found, native) == {"optional"}, native
            assert all(why.startswith("built only when seg/kernels/ops.py is imported") for _, why in found[native])
    assert "seg/kernels/src/fused_norm_cuda.cu" in found


def unreached(found: dict[str, set[tuple[str, str | None]]], path: str) -> bool:
    """Does a finding of `path` take this class's reach (the file, its importers or its builder reached by nothing)?"""
    return any(why and ("no entry's import chain" in why or why.startswith("built only when")) for _, why in found[path])


def test_the_same_kernel_folder_an_entrys_chain_imports_runs(tmp_path):
    # the entry puts the blocks' folder on sys.path and imports heads.py by its stem
    api = API.replace("x.cuda()", "Head()(x)") + "sys.path.insert(0, 'seg/nets/blocks')\nfrom heads import Head\n"
    found = reach_by_path(write_tree(tmp_path, tree(**{"seg/api.py": api})))
    for path in ("seg/nets/blocks/heads.py", "seg/nets/blocks/layers.py", "seg/kernels/ops.py",
                 "seg/kernels/src/fused_norm_cuda.cu"):
        assert "runs" in reaches(found, path) and not unreached(found, path), path


def test_a_definitions_file_a_launcher_runs_stays_an_entry(tmp_path):
    found = reach_by_path(write_tree(tmp_path, tree(**{"run_heads.sh": "python seg/nets/blocks/heads.py\n"})))
    assert not unreached(found, "seg/nets/blocks/heads.py")  # run for nothing but its own definitions
    for path in ("seg/kernels/ops.py", "seg/kernels/src/fused_norm_cuda.cu"):
        assert "runs" in reaches(found, path) and not unreached(found, path), path


def test_a_package_init_the_entry_imports_keeps_the_modules_it_registers(tmp_path):
    registry = {"seg/api.py": API + "import models\n\n\ndef build(name):\n    return models.MODELS[name]()\n",
                "seg/models/__init__.py": "from .registry import MODELS\nfrom . import resnet  # registers\n",
                "seg/models/registry.py": "MODELS = {}\n",
                "seg/models/resnet.py": ("import torch\nfrom kernels import FusedNorm\nfrom .registry import MODELS\n\n\n"
                                         "class ResNet(torch.nn.Module):\n    norm = FusedNorm\n\n\n"
                                         "MODELS['resnet'] = ResNet\n")}
    found = reach_by_path(write_tree(tmp_path, tree(**registry)))
    for path in ("seg/kernels/ops.py", "seg/kernels/src/fused_norm_cuda.cu"):
        assert "runs" in reaches(found, path) and not unreached(found, path), path


def library(build: str) -> dict[str, str]:
    return {"setup.py": build,
             "lib/__init__.py": "from .api import segment\n", "lib/api.py": API, "lib/nets/__init__.py": "",
             "lib/nets/blocks/heads.py": HEADS.replace("from layers", "from lib.nets.blocks.layers"),
             "lib/nets/blocks/layers.py": LAYERS.replace("from kernels", "from lib.kernels"),
             "lib/kernels/__init__.py": KERNELS_INIT, "lib/kernels/ops.py": OPS,
             "lib/kernels/src/fused_norm.cpp": BINDING, "lib/kernels/src/fused_norm_cuda.cu": KERNEL}


def test_a_namespace_publishing_librarys_namespace_module_keeps_runs(tmp_path):
    # the same shape inside a package a setup.py publishes with find_namespace_packages(): lib/nets/blocks/ (no
    # __init__.py) is in the wheel, and its users may import lib.nets.blocks.heads themselves
    found = reach_by_path(write_tree(tmp_path, library(
        "from setuptools import setup, find_namespace_packages\nsetup(name='lib', packages=find_namespace_packages())\n")))
    for path in ("lib/nets/blocks/heads.py", "lib/nets/blocks/layers.py", "lib/kernels/src/fused_norm_cuda.cu"):
        assert "runs" in reaches(found, path) and not unreached(found, path), path


def test_a_find_packages_librarys_folder_without_init_nothing_imports_is_unreached(tmp_path):
    # find_packages() leaves lib/nets/blocks/ (no __init__.py) out of the wheel, and no file outside it imports it
    # (pytorchvideo/neural_engine/, round 41 A1 row 32): no user can import it, no entry loads it
    found = reach_by_path(write_tree(tmp_path, library(
        "from setuptools import setup, find_packages\nsetup(name='lib', packages=find_packages())\n")))
    for path in ("lib/nets/blocks/heads.py", "lib/nets/blocks/layers.py"):
        assert reaches(found, path) == {"optional"}, path
    assert reaches(found, "lib/api.py") == {"runs"}  # the package's own module is its users' API


def test_the_reasons_read_in_chinese():
    from ascend_feasibility.analyzer.context.unloaded import UNRUN_WHY
    chain = "imported only by modules no entry's import chain reaches: seg/kernels/__init__.py"
    built = ("built only when seg/kernels/ops.py is imported (its build of fused_norm at line 6), and that module is "
             f"optional: {chain}")
    unshipped = ("in lib/nets/blocks/, a folder without __init__.py that the build (find_packages) leaves out of the "
                 "package and no file outside it imports: nothing installs or loads it")
    for why in (UNRUN_WHY, chain, built, unshipped):
        assert phrase("zh", why) != why and "imported only" not in phrase("zh", why), why


def test_a_definitions_file_a_script_imports_by_its_folder_relative_name_stays_reached(tmp_path):
    # `python gen/train.py` puts gen/ on sys.path: `from src.model import Net` loads gen/src/model.py (no package
    # marker anywhere), however the project-wide module names spell it
    write_tree(tmp_path, {
        "gen/train.py": "import torch\nfrom src.model import Net\n\nif __name__ == '__main__':\n    Net()(torch.ones(1))\n",
        "gen/src/model.py": "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda()\n",
        "gen/src/unused.py": "import torch\n\n\ndef spare(x):\n    return x.cuda()\n",
    })
    findings = analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
    [model] = [f for f in findings if f.path == "gen/src/model.py" and f.rule == "DEV004"]
    assert model.reach == "runs"
    [spare] = [f for f in findings if f.path == "gen/src/unused.py" and f.rule == "DEV004"]
    assert spare.reach == "optional"


def test_a_root_module_of_definitions_is_left_to_its_users(tmp_path):
    # a module at the root that nothing imports is what a user imports (`import helpers` after copying it)
    write_tree(tmp_path, {
        "run.py": "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(1).cuda())\n",
        "helpers.py": "import torch\n\n\ndef spare(x):\n    return x.cuda()\n",
    })
    findings = analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
    [helper] = [f for f in findings if f.path == "helpers.py" and f.rule == "DEV004"]
    assert "file of definitions only" not in (helper.reach_reason or "")  # (its function, named nowhere, is unreached)
    [declared] = [f for f in findings if f.path == "helpers.py" and f.rule == "DEP013"]
    assert declared.reach == "runs"
