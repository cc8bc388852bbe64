"""A module whose top-level import names a module of its own package that the project does not have cannot be
imported (analyzer/context/missing_modules.py): its findings are optional. Written from DiffSynth-Studio's
diffsynth/models/sd_text_encoder.py (`from .attention import Attention`, no diffsynth/models/attention.py)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

ENCODER = (
    "import torch\n"
    "from .attention import Attention\n\n\n"
    "def encode(x):\n"
    "    return x.cuda()\n"
)
CUDA_LINE = 6


@pytest.mark.parametrize("extra, reach", [
    ({}, "optional"),  # no pkg/models/attention anything: the import raises before any line runs
    ({"pkg/models/attention.py": "class Attention:\n    pass\n"}, "runs"),  # the module is there
    ({"pkg/models/attention/__init__.py": "class Attention:\n    pass\n"}, "runs"),  # a package of that name
    ({"setup.py": "open('pkg/models/attention.py', 'w').write('Attention = 1')\n"}, "runs"),  # a build writes it
    ({"setup.py": "from torch.utils.cpp_extension import CUDAExtension\nsetup(ext_modules=[CUDAExtension('x', [])])\n"},
     "runs"),  # a build compiles extensions: one may be pkg.models.attention
])
def test_a_module_importing_a_missing_module_of_its_package_never_runs(tmp_path, extra, reach):
    files = {"pkg/__init__.py": "from .models.other import run\n", "pkg/models/__init__.py": "",
             "pkg/models/other.py": "def run():\n    pass\n", "pkg/models/encoder.py": ENCODER, **extra}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/models/encoder.py" and f.line == CUDA_LINE]
    assert found and all(f.reach == reach for f in found)
    if reach == "optional":
        assert "pkg/models/attention, which the project does not have" in found[0].reach_reason


def test_a_namespace_package_s_module_importing_a_missing_sibling_never_runs(tmp_path):
    # DiffSynth's diffsynth/models/ holds no __init__.py; other modules import diffsynth.models.x by dotted name
    files = {"pkg/__init__.py": "from pkg.models.other import run\n", "pkg/models/other.py": "def run():\n    pass\n",
             "pkg/models/encoder.py": ENCODER}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/models/encoder.py" and f.line == CUDA_LINE]
    assert found and all(f.reach == "optional" for f in found)


def test_a_name_the_package_binds_imported_from_it_is_no_missing_module(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/models/__init__.py": "Attention = object\n",
             "pkg/models/encoder.py": ENCODER.replace("from .attention import Attention", "from . import Attention")}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/models/encoder.py" and f.line == CUDA_LINE]
    assert found and all(f.reach == "runs" for f in found)


def test_an_absolute_import_of_a_package_named_like_the_folder_is_the_installed_one(tmp_path):
    # DiffSynth's diffsynth/utils/xfuser/xdit_context_parallel.py: `from xfuser.core.distributed import ...`
    files = {"pkg/__init__.py": "", "pkg/utils/xfuser/__init__.py": "",  # pkg/utils/ holds no __init__.py
             "pkg/utils/xfuser/parallel.py": ENCODER.replace("from .attention import Attention",
                                                       "from xfuser.core.distributed import get_world_group")}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/utils/xfuser/parallel.py" and f.line == CUDA_LINE]
    assert found and all(f.reach == "runs" for f in found)


LAYERED = (
    "import torch\n"
    "from pkg.layers.abs_normalize import AbsNormalize\n"
    "from pkg.models.base_model import BaseModel\n\n"
    "def encode(x):\n"
    "    return x.cuda()\n"
)


@pytest.mark.parametrize("extra, reach", [
    # FunASR's sa_asr/e2e_sa_asr.py (round 25 A2 52): a C++ runtime beside the package builds a library; it builds
    # nothing into pkg/
    ({"runtime/CMakeLists.txt": "add_library(engine SHARED engine.cpp)\n"}, "optional"),
    # a shell script says `layers`, but nothing names base_model: the second import still fails
    ({"run.sh": "python train.py --layers 12\n"}, "optional"),
    # every missing module is named by a script that may write it
    ({"run.sh": "python gen.py layers base_model\n"}, "runs"),
    # an extension build in the package's own folder may build either module
    ({"pkg/CMakeLists.txt": "pybind11_add_module(engine engine.cpp)\n"}, "runs"),
])
def test_every_missing_import_is_asked_and_only_builds_over_the_package_excuse_it(tmp_path, extra, reach):
    files = {"pkg/__init__.py": "from pkg.models.other import run\n", "pkg/models/__init__.py": "",
             "pkg/models/other.py": "def run():\n    pass\n", "pkg/models/encoder.py": LAYERED, **extra}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/models/encoder.py" and f.line == CUDA_LINE]
    assert found and all(f.reach == reach for f in found), [(f.reach, f.reach_reason) for f in found]
    if reach == "optional" and "--layers" in extra.get("run.sh", ""):
        assert "pkg/models/base_model, which the project does not have" in found[0].reach_reason
