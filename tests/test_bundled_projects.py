"""Another project's training recipe bundled inside a package of this one (analyzer/context/bundled_projects.py): its
scripts are no entries of the host and do not make the host a training project (round 27 verdict V5, A1 C1:
SadTalker's src/face3d/models/arcface_torch, insightface's recipe with its own run.sh and train.py). A script of it
that the host launches stays an entry; a recipe folder outside any package is the project's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from ascend_feasibility.analyzer.context.bundled_projects import (
    bundled_project_folders,
    sys_path_copies,
    unimported_projects,
)
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.domains.phases.facts import PhaseFacts

from tests.helpers import write_tree as write

RECIPE = "src/face3d/models/arcface_torch"
TRAIN = """import torch
import torch.distributed as dist
from backbones import get_model
from utils.utils_logging import init_logging


def main():
    init_logging()
    dist.init_process_group('nccl')
    torch.cuda.set_device(0)
    model = get_model().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        loss = model(torch.randn(2, 3, 112, 112).cuda()).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"""
BACKBONE = """import torch


class IResNet(torch.nn.Module):
    def forward(self, x):
        return x.to("cuda")


def get_model():
    return IResNet()
"""
LOGGING = """import torch


def init_logging():
    return torch.device("cuda")
"""
INFERENCE = """import torch
from src.face3d.models.arcface_torch.backbones import get_model


@torch.no_grad()
def main():
    model = get_model().cuda()
    with torch.inference_mode():
        return model(torch.zeros(1))


if __name__ == "__main__":
    main()
"""
RUN = "CUDA_VISIBLE_DEVICES=0,1,2,3 python -m torch.distributed.launch --nproc_per_node=4 train.py configs/ms1mv3_r50\n"


def host(recipe: str = RECIPE, **extra: str) -> dict[str, str]:
    files = {"inference.py": INFERENCE.replace(RECIPE.replace("/", "."), recipe.replace("/", ".")),
             f"{recipe}/train.py": TRAIN, f"{recipe}/run.sh": RUN, f"{recipe}/README.md": "# arcface_torch\n",
             f"{recipe}/backbones/__init__.py": BACKBONE, f"{recipe}/utils/__init__.py": "",
             f"{recipe}/utils/utils_logging.py": LOGGING}
    files |= {f"{'/'.join(recipe.split('/')[:end])}/__init__.py": "" for end in range(1, recipe.count("/") + 1)}
    return files | extra


def run(root: Path):
    return analyze(root, AnalyzeOptions(jobs=1))


def required_paths(report) -> set[str]:
    return {site.rsplit(":", 1)[0] for item in report.effort.items if item.bucket == "required" for site in item.sites}


def reaches(report) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for f in report.findings:
        found.setdefault(f.path, set()).add(f.reach)
    return found


def test_a_recipe_bundled_inside_a_package_is_no_entry_and_does_not_make_the_host_train(tmp_path):
    report = run(write(tmp_path, host()))
    assert {e.path for e in report.phase_matrix.entries} == {"inference.py"}
    assert report.effort.main_phase == "inference"
    # its trainer, its launcher and what only the trainer imports are optional; the backbone the host imports runs
    found = reaches(report)
    for path in ("train.py", "run.sh", "utils/utils_logging.py"):
        assert found[f"{RECIPE}/{path}"] == {"optional"}, path
    assert found[f"{RECIPE}/backbones/__init__.py"] == {"runs"}
    assert not {p for p in required_paths(report) if p.startswith(RECIPE + "/")} - {f"{RECIPE}/backbones/__init__.py"}
    why = next(f.reach_reason for f in report.findings if f.path == f"{RECIPE}/train.py")
    assert why.startswith(f"bundled {RECIPE}/") and why.endswith("never launches train.py")


def test_a_bundled_script_the_hosts_launcher_runs_stays_an_entry(tmp_path):
    launcher = f"python -m torch.distributed.launch --nproc_per_node=4 {RECIPE}/train.py\n"
    report = run(write(tmp_path, host(**{"train_face.sh": launcher})))
    assert f"{RECIPE}/train.py" in {e.path for e in report.phase_matrix.entries}
    assert report.effort.main_phase == "training"
    found = reaches(report)
    assert found[f"{RECIPE}/train.py"] == {"runs"}
    assert found[f"{RECIPE}/run.sh"] == {"optional"}  # the host launches train.py with its own launcher, not run.sh


def test_a_recipe_folder_outside_every_package_is_the_projects_own(tmp_path):
    report = run(write(tmp_path, host("arcface_torch")))
    assert "arcface_torch/train.py" in {e.path for e in report.phase_matrix.entries}
    assert report.effort.main_phase == "training"
    assert reaches(report)["arcface_torch/train.py"] == {"runs"}


def facts(path: str, launched: list[str] | None = None) -> PhaseFacts:
    return PhaseFacts(path=path, launched_scripts=launched or [])


def test_only_a_launcher_of_its_own_script_inside_a_package_marks_a_bundled_project():
    tree = [facts("pkg/__init__.py"), facts("pkg/recipe/train.py"), facts("pkg/recipe/run.sh", ["train.py"])]
    assert bundled_project_folders(tree, {"pkg"}) == {"pkg/recipe"}
    # a launcher there that runs a script elsewhere (the root's) is no recipe of its own
    other = [facts("pkg/__init__.py"), facts("pkg/recipe/train.py"), facts("pkg/recipe/run.sh", ["tools/train.py"])]
    assert bundled_project_folders(other, {"pkg"}) == set()
    # nested recipes: the outermost holds the rest
    nested = tree + [facts("pkg/recipe/sub/eval.py"), facts("pkg/recipe/sub/eval.sh", ["eval.py"])]
    assert bundled_project_folders(nested, {"pkg", "pkg/recipe"}) == {"pkg/recipe"}


def test_an_example_folder_driving_the_projects_own_code_is_no_bundled_project(tmp_path):
    # Megatron-LM's shape: examples/ is a package, examples/bert/ holds its launcher of pretrain_bert.py, which
    # imports the project's own package: the project's example, whose scripts stay entries
    own = TRAIN.replace("from backbones import get_model", "from src.face3d.models.arcface_torch.backbones import get_model")
    report = run(write(tmp_path, host(**{"examples/__init__.py": "", "examples/bert/pretrain_bert.py": own,
                                         "examples/bert/train_bert.sh": "torchrun pretrain_bert.py\n"})))
    assert "examples/bert/pretrain_bert.py" in {e.path for e in report.phase_matrix.entries}
    assert reaches(report)["examples/bert/pretrain_bert.py"] == {"runs"}


def test_a_launcher_folder_importing_the_hosts_modules_is_no_bundled_project():
    tree = [facts("pkg/__init__.py"), facts("pkg/core.py"), facts("pkg/recipe/train.py"),
            facts("pkg/recipe/run.sh", ["train.py"])]
    for f in tree:
        f.module = f.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".") if f.path.endswith(".py") else ""
    assert bundled_project_folders(tree, {"pkg"}) == {"pkg/recipe"}
    tree[2].imports = ["pkg.core.build"]
    assert bundled_project_folders(tree, {"pkg"}) == set()


# Another project with its own setup.py shipped below a folder of the host (round 29: a human-parsing project inside a
# host's preprocessing folder, with its own trainer and library copy). Its trainer imports a sibling of the host
# (`import nets`); the host imports only its preprocessing module beside it.
NESTED = "prep/parsing/ext"
HOST_APP = """import torch
from prep.parsing.run_parse import parse


def main():
    return parse(torch.zeros(1).cuda())


if __name__ == "__main__":
    main()
"""
RUN_PARSE = """import torch


def parse(x):
    return x.to("cuda")
"""
NETS = """import torch
from prep.parsing.blocks import act


class Net(torch.nn.Module):
    def forward(self, x):
        torch.cuda.synchronize()
        return act(x.cuda())
"""
BLOCKS = """import torch


def act(x):
    torch.cuda.synchronize()
    return x.to("cuda")
"""
NESTED_TRAIN = """import torch
import nets
from extlib.layers import roi_align


def main():
    model = nets.Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        loss = roi_align(model(torch.randn(2, 3).cuda())).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"""
EXTLIB = """import torch


def roi_align(x):
    torch.cuda.synchronize()
    return x.cuda()
"""
KERNEL = """#include <cuda_runtime.h>
__global__ void roi_align_kernel(float* out) { out[threadIdx.x] = __shfl_down_sync(0xffffffff, out[0], 1); }
"""
SETUP = """from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension, BuildExtension

setup(name="extlib", packages=["extlib"],
      ext_modules=[CUDAExtension("extlib._C", ["extlib/csrc/roi_align.cu"])], cmdclass={"build_ext": BuildExtension})
"""


def nested_host(**extra: str) -> dict[str, str]:
    files = {"app.py": HOST_APP, "prep/parsing/run_parse.py": RUN_PARSE, "prep/parsing/nets/__init__.py": NETS,
             "prep/parsing/blocks.py": BLOCKS,
             f"{NESTED}/setup.py": SETUP, f"{NESTED}/extlib/__init__.py": "", f"{NESTED}/extlib/layers.py": EXTLIB,
             f"{NESTED}/extlib/csrc/roi_align.cu": KERNEL, f"{NESTED}/train/train.py": NESTED_TRAIN}
    return files | extra


def test_a_nested_project_with_its_own_setup_the_host_never_imports_is_no_product(tmp_path):
    report = run(write(tmp_path, nested_host()))
    assert {e.path for e in report.phase_matrix.entries} == {"app.py"}
    found = reaches(report)
    nested = {path for path in found if path.startswith(NESTED + "/")}
    assert {f"{NESTED}/train/train.py", f"{NESTED}/extlib/layers.py", f"{NESTED}/extlib/csrc/roi_align.cu"} <= nested
    for path in nested:
        assert found[path] == {"optional"}, path
    # the host sibling only the nested project imports is optional with it; the host's own module runs
    assert found["prep/parsing/nets/__init__.py"] == {"optional"}
    why = next(f.reach_reason for f in report.findings if f.path == "prep/parsing/nets/__init__.py")
    assert why == f"imported only by a bundled project the host never imports: {NESTED}/train/train.py"
    # and what only that sibling imports, in turn
    assert found["prep/parsing/blocks.py"] == {"optional"}
    why = next(f.reach_reason for f in report.findings if f.path == "prep/parsing/blocks.py")
    assert why == "imported only by a bundled project the host never imports: prep/parsing/nets/__init__.py"
    assert found["prep/parsing/run_parse.py"] == {"runs"}
    why = next(f.reach_reason for f in report.findings if f.path == f"{NESTED}/train/train.py")
    assert why.startswith(f"bundled {NESTED}/") and why.endswith("the project never imports it")
    assert report.effort.main_phase == "inference"


def test_a_nested_project_the_host_imports_keeps_its_reach(tmp_path):
    app = HOST_APP.replace("from prep.parsing.run_parse import parse",
                           "from prep.parsing.run_parse import parse\nfrom prep.parsing.ext.extlib.layers import roi_align")
    report = run(write(tmp_path, nested_host(**{"app.py": app, "prep/__init__.py": "", "prep/parsing/__init__.py": "",
                                                f"{NESTED}/__init__.py": ""})))
    found = reaches(report)
    assert found[f"{NESTED}/extlib/layers.py"] == {"runs"}
    assert f"{NESTED}/train/train.py" in {e.path for e in report.phase_matrix.entries}
    assert found[f"{NESTED}/train/train.py"] == {"runs"}


def test_a_nested_project_the_readme_runs_keeps_its_entries(tmp_path):
    readme = f"# host\n\n```bash\npython {NESTED}/train/train.py\n```\n"
    report = run(write(tmp_path, nested_host(**{"README.md": readme})))
    assert f"{NESTED}/train/train.py" in {e.path for e in report.phase_matrix.entries}
    assert reaches(report)[f"{NESTED}/train/train.py"] == {"runs"}


def test_an_unreached_top_level_project_is_left_to_the_host():
    # a folder with its own manifest right below the root, or one whose every ancestor is unreached: the project's
    # own subproject, not a project bundled below its code
    tree = [PhaseFacts(path="tools/sub/setup.py", module="tools.sub.setup"),
            PhaseFacts(path="tools/sub/train.py", module="tools.sub.train", main_guard=True),
            PhaseFacts(path="app.py", module="app", main_guard=True)]
    assert unimported_projects(tree) == {}
    # below a folder the host imports from, it is bundled; an import into it from outside makes it the host's
    tree.append(PhaseFacts(path="tools/helpers.py", module="tools.helpers"))
    tree[2].imports = ["tools.helpers"]
    assert set(unimported_projects(tree)) == {"tools/sub/setup.py", "tools/sub/train.py"}
    tree[2].imports.append("tools.sub.train")
    assert unimported_projects(tree) == {}
    # a name both the nested project and the host define resolves to the host's own copy
    tree[2].imports[-1] = "sublib.ops"
    tree.append(PhaseFacts(path="tools/sub/sublib/ops.py", module="sublib.ops"))
    assert unimported_projects(tree) == {}
    tree.append(PhaseFacts(path="third/sublib/ops.py", module="sublib.ops"))
    assert set(unimported_projects(tree)) == {"tools/sub/setup.py", "tools/sub/train.py", "tools/sub/sublib/ops.py"}


# A whole upstream repository copied into a namespace folder of the host (no __init__.py above its own package): its
# own LICENSE, README, environment files and scripts/ launching its main_*.py from its root; the host imports one
# model module through the folder by dotted name (round 32 class 1: A1, A2, B1, B2).
COPY = "train/helpers/flownet"
MAIN = """import torch
import torch.distributed as dist
from flownet.model import FlowNet
from evaluate import validate
from tools.dist_utils import init_dist


def main():
    dist.init_process_group('nccl')
    model = torch.nn.parallel.DistributedDataParallel(FlowNet().cuda())
    validate(model)


if __name__ == "__main__":
    main()
"""
EVALUATE = """import torch


def validate(model):
    return model(torch.zeros(1).cuda())
"""
MODEL = """import torch
from .layers import warp


class FlowNet(torch.nn.Module):
    def forward(self, x):
        return warp(x.to("cuda"))
"""
HOST = """import torch
from helpers.flownet.flownet.model import FlowNet


def main():
    model = FlowNet().cuda()
    return model(torch.zeros(1))


if __name__ == "__main__":
    main()
"""
COPY_README = "# FlowNet\n\n```bash\npip install torch==1.9.0+cu102\npython -m torch.distributed.launch --nproc_per_node=8 main.py\n```\n"


def copy_tree(**extra: str) -> dict[str, str]:
    # the copy's environment file pins no torch: a build-role environment's own torch pin carries the re-pin, and the
    # README's pin (the install document's) would then be no finding of its own (prec46f: environment files are build)
    return {"train/train.py": HOST, "train/train.sh": "accelerate launch train.py\n",
            f"{COPY}/LICENSE": "MIT\n", f"{COPY}/README.md": COPY_README,
            f"{COPY}/main.py": MAIN, f"{COPY}/evaluate.py": EVALUATE,
            f"{COPY}/flownet/__init__.py": "", f"{COPY}/flownet/model.py": MODEL,
            f"{COPY}/flownet/layers.py": "import torch\n\n\ndef warp(x):\n    return x.to('cuda')\n",
            f"{COPY}/tools/dist_utils.py": "import torch\n\n\ndef init_dist():\n    torch.cuda.set_device(0)\n",
            f"{COPY}/scripts/train.sh": "CUDA_VISIBLE_DEVICES=0 python -m torch.distributed.launch main.py --stage things\n",
            f"{COPY}/pip_install.sh": "pip install torch==1.9.0+cu102 torchvision==0.10.0+cu102\n",
            f"{COPY}/conda_environment.yml": "name: flownet\ndependencies:\n  - python=3.10\n  - cudatoolkit=10.2\n"} | extra


def test_a_whole_repository_copied_into_a_namespace_folder_keeps_only_what_the_host_imports(tmp_path):
    report = run(write(tmp_path, copy_tree()))
    assert {e.path for e in report.phase_matrix.entries} == {"train/train.py"}
    found = reaches(report)
    # the copy's trainer, what only it imports, its launchers and installer, its README and environment: optional
    for path in ("main.py", "evaluate.py", "tools/dist_utils.py", "scripts/train.sh", "pip_install.sh", "README.md",
                 "conda_environment.yml"):
        if f"{COPY}/{path}" in found:
            assert found[f"{COPY}/{path}"] == {"optional"}, path
    assert {f"{COPY}/main.py", f"{COPY}/README.md", f"{COPY}/pip_install.sh", f"{COPY}/tools/dist_utils.py"} <= set(found)
    # the module the host imports, and what it imports in turn
    assert found[f"{COPY}/flownet/model.py"] == found[f"{COPY}/flownet/layers.py"] == {"runs"}
    why = next(f.reach_reason for f in report.findings if f.path == f"{COPY}/main.py")
    assert why == (f"part of the bundled copy of {COPY}/ (another project with its own launchers); the project imports "
                   "only flownet.model")
    assert not [f for f in report.findings if f.path.startswith(COPY + "/") and f.rule.startswith("DST")
                and f.reach == "runs"]


@pytest.mark.parametrize("launcher", [{"flow.sh": f"python {COPY}/main.py\n"},
                                      {"README.md": f"# Host\n\n```bash\npython {COPY}/main.py --stage things\n```\n"}])
def test_a_copys_script_the_hosts_launcher_or_readme_runs_stays_an_entry(tmp_path, launcher):
    report = run(write(tmp_path, copy_tree(**launcher)))
    assert f"{COPY}/main.py" in {e.path for e in report.phase_matrix.entries}
    found = reaches(report)
    assert found[f"{COPY}/main.py"] == {"runs"}
    assert found[f"{COPY}/scripts/train.sh"] == {"optional"}  # the copy's own launcher is still the upstream's


def test_a_folder_with_launchers_the_host_never_imports_through_is_the_projects_own(tmp_path):
    # the same folder, but nothing outside imports a module of it by a dotted name through it: the project's own tool
    tree = copy_tree(**{"train/train.py": HOST.replace("from helpers.flownet.flownet.model import FlowNet\n",
                                                        "FlowNet = torch.nn.Identity\n")})
    report = run(write(tmp_path, tree))
    assert reaches(report)[f"{COPY}/main.py"] == {"runs"}
    assert reaches(report)[f"{COPY}/README.md"] == {"runs"}


def test_a_namespace_folder_imported_through_by_dotted_name_with_its_own_launcher():
    tree = [facts("host/train.py"), facts("host/lib/copy/main.py"), facts("host/lib/copy/pkg/__init__.py"),
            facts("host/lib/copy/pkg/model.py"), facts("host/lib/copy/scripts/run.sh", ["main.py"])]
    for f in tree:
        f.module = f.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".") if f.path.endswith(".py") else ""
    assert bundled_project_folders(tree, {"host/lib/copy/pkg"}) == set()  # nothing imports through it
    tree[0].imports = ["lib.copy.pkg.model.Model"]
    assert bundled_project_folders(tree, {"host/lib/copy/pkg"}) == {"host/lib/copy"}
    # a launcher two levels down is no launcher of the folder's root
    deep = tree[:4] + [facts("host/lib/copy/tools/sh/run.sh", ["main.py"])]
    assert bundled_project_folders(deep, {"host/lib/copy/pkg"}) == set()


# A whole upstream repository copied into a folder the host puts on sys.path: its own LICENSE, README, setup.py and
# requirements.txt beside its package and a hub entry module; the host writes `sys.path.append("./<folder>")` and
# imports the entry module by its name from the folder's root (round 33 class 1).
ONPATH = "visionlib"
HUB = """import torch


def small_model():
    from visionlib.models import Backbone
    return Backbone().cuda()
"""
BACKBONE_MODEL = """import torch
from visionlib.layers import attend


class Backbone(torch.nn.Module):
    def forward(self, x):
        return attend(x.to("cuda"))
"""
ONPATH_TRAIN = """import torch
import torch.distributed as dist
from visionlib.models import Backbone
from visionlib.logs import setup_logging


def main():
    setup_logging()
    dist.init_process_group('nccl')
    model = torch.nn.parallel.DistributedDataParallel(Backbone().cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.zeros(1).cuda()).sum()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    main()
"""
ENCODER = """import sys
import torch
sys.path.append("./visionlib")
import hubentry


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = hubentry.small_model().to("cuda")
"""
INFER = """import torch
from model.encoder import Encoder


if __name__ == "__main__":
    Encoder()(torch.zeros(1))
"""


def on_path_tree(**extra: str) -> dict[str, str]:
    return {"infer.py": INFER, "model/__init__.py": "", "model/encoder.py": ENCODER,
            f"{ONPATH}/LICENSE": "Apache-2.0\n", f"{ONPATH}/README.md": "# visionlib\n\n```bash\npython visionlib/train/train.py\n```\n",
            f"{ONPATH}/setup.py": "from setuptools import setup\n\nsetup(name='visionlib', install_requires=['torch==1.13.1'])\n",
            f"{ONPATH}/requirements.txt": "torch==1.13.1\ntorchvision==0.14.1\nxformers==0.0.16\n",
            f"{ONPATH}/hubentry.py": HUB, f"{ONPATH}/visionlib/__init__.py": "",
            f"{ONPATH}/visionlib/models.py": BACKBONE_MODEL,
            f"{ONPATH}/visionlib/layers.py": "import torch\n\n\ndef attend(x):\n    return x.to('cuda')\n",
            f"{ONPATH}/visionlib/logs.py": "import torch\n\n\ndef setup_logging():\n    torch.cuda.set_device(0)\n",
            f"{ONPATH}/visionlib/train/__init__.py": "", f"{ONPATH}/visionlib/train/train.py": ONPATH_TRAIN} | extra


def test_a_repository_the_host_puts_on_sys_path_keeps_only_what_the_host_imports(tmp_path):
    report = run(write(tmp_path, on_path_tree()))
    assert {e.path for e in report.phase_matrix.entries} == {"infer.py"}
    found = reaches(report)
    # the copy's trainer, what only it imports, its requirements: optional
    for path in ("visionlib/train/train.py", "visionlib/logs.py", "requirements.txt"):
        assert found[f"{ONPATH}/{path}"] == {"optional"}, path
    # the entry module the host imports from the copy's root, and the modules it loads
    assert found[f"{ONPATH}/hubentry.py"] == found[f"{ONPATH}/visionlib/models.py"] == {"runs"}
    assert found[f"{ONPATH}/visionlib/layers.py"] == {"runs"}
    why = next(f.reach_reason for f in report.findings if f.path == f"{ONPATH}/visionlib/train/train.py")
    assert why == (f"part of the bundled copy of {ONPATH}/ (another project with its own packaging or environment "
                   "files, which the project puts on sys.path); the project imports only hubentry")
    assert not [f for f in report.findings if f.path.startswith(ONPATH + "/") and f.rule.startswith("DST")
                and f.reach == "runs"]


def test_a_sys_path_copys_script_the_hosts_launcher_runs_stays_an_entry(tmp_path):
    report = run(write(tmp_path, on_path_tree(**{"train.sh": f"torchrun {ONPATH}/visionlib/train/train.py\n"})))
    assert f"{ONPATH}/visionlib/train/train.py" in {e.path for e in report.phase_matrix.entries}
    assert reaches(report)[f"{ONPATH}/visionlib/train/train.py"] == {"runs"}


def test_a_folder_the_readme_works_in_is_the_projects_own_though_another_puts_it_on_sys_path(tmp_path):
    # round 33 zero123: the README runs `cd zero123` then `python gradio_new.py`, and a sibling folder puts zero123/
    # on sys.path; the folder the user works in is the project, never a bundled copy
    readme = f"# Host\n\n```bash\ncd {ONPATH}\npython visionlib/train/train.py\n```\n"
    report = run(write(tmp_path, on_path_tree(**{"README.md": readme})))
    found = reaches(report)
    assert found[f"{ONPATH}/visionlib/train/train.py"] == {"runs"}
    assert found[f"{ONPATH}/requirements.txt"] != {"optional"}
    assert f"{ONPATH}/visionlib/train/train.py" in {e.path for e in report.phase_matrix.entries}


def test_worked_in_folders_follow_the_readmes_cd_into_the_tree():
    from ascend_feasibility.analyzer.context.readme_runs import worked_in_folders
    paths = ["zero123/gradio_new.py", "zero123/ldm/util.py", "3drec/run.py"]
    readme = "```bash\ngit clone https://x/zero123.git\ncd zero123\ncd zero123\npython gradio_new.py\n```\n"
    assert worked_in_folders(readme, paths) == ("zero123",)  # the clone's own folder is a prefix the tree lacks
    assert worked_in_folders("```bash\ncd zero123\npip install -r requirements.txt\n```\n", paths) == ()  # runs nothing
    assert worked_in_folders("```bash\npython zero123/gradio_new.py\n```\n", paths) == ()  # no cd


@pytest.mark.parametrize("root", ["src", "core"])
def test_a_source_root_the_host_puts_on_sys_path_is_the_projects_own(tmp_path, root):
    # the same layout without a manifest or environment file of its own: the project's own source folder
    tree = {path.replace(ONPATH + "/", f"{root}/", 1): text.replace('"./visionlib"', f'"{root}"')
            for path, text in on_path_tree().items()
            if not path.endswith(("setup.py", "requirements.txt", "LICENSE", "README.md"))}
    report = run(write(tmp_path, tree))
    assert reaches(report)[f"{root}/visionlib/train/train.py"] == {"runs"}
    assert f"{root}/visionlib/train/train.py" in {e.path for e in report.phase_matrix.entries}


def test_a_copy_on_sys_path_needs_the_path_edit_naming_it_and_an_import_from_its_root():
    def tree(editor_words: str, dotted: list[str], imports: list[str]):
        host = PhaseFacts(path="model/encoder.py", module="model.encoder", imports=imports, words=editor_words,
                          dotted_words=dotted)
        return [host, PhaseFacts(path="lib/setup.py", module="lib.setup"),
                PhaseFacts(path="lib/hubentry.py", module="lib.hubentry"),
                PhaseFacts(path="lib/pkg/__init__.py", module="lib.pkg")]
    assert sys_path_copies(tree(" sys path append lib ", ["sys.path.append"], ["hubentry"])) == {"lib": {"hubentry"}}
    assert sys_path_copies(tree(" sys path append other ", ["sys.path.append"], ["hubentry"])) == {}  # names another folder
    assert sys_path_copies(tree(" lib ", [], ["hubentry"])) == {}  # no path edit
    assert sys_path_copies(tree(" sys path append lib ", ["sys.path.append"], ["lib.hubentry"])) == {}  # from the root
    no_manifest = tree(" sys path append lib ", ["sys.path.append"], ["hubentry"])
    no_manifest[1] = PhaseFacts(path="lib/tool.py", module="lib.tool")
    assert sys_path_copies(no_manifest) == {}
    package = tree(" sys path append lib ", ["sys.path.append"], ["hubentry"]) + [PhaseFacts(path="lib/__init__.py",
                                                                                          module="lib")]
    assert sys_path_copies(package) == {}  # a package folder of the host
    drives_host = tree(" sys path append lib ", ["sys.path.append"], ["hubentry"])
    drives_host[2].imports = ["model.encoder.Encoder"]
    assert sys_path_copies(drives_host) == {}  # its modules import the host's: the project's own examples


HOST_REQUIREMENTS = "torch==2.1.0\ntorchvision==0.16.0\n"


def _row(report, package):
    return next((row for row in report.dependency_matrix if row.package == package), None)


def test_a_bundled_copys_environment_files_are_no_dependencies_of_the_project(tmp_path):
    # prec42d: the copy's pip_install.sh / conda_environment.yml set up the upstream's environment, not the host's
    report = run(write(tmp_path, copy_tree(**{"train/requirements.txt": HOST_REQUIREMENTS})))
    torch = _row(report, "torch")
    assert torch.declared == "==2.1.0" and torch.sources == ["train/requirements.txt:1"]
    assert _row(report, "torchvision").sources == ["train/requirements.txt:2"]
    assert _row(report, "cudatoolkit") is None  # declared only by the copy's environment, imported by nothing
    assert report.torch_fit.declared == "==2.1.0"
    # the copy's lines keep their findings, at the copy's files, uncounted
    copy_env = [f for f in report.findings if f.path in {f"{COPY}/pip_install.sh", f"{COPY}/conda_environment.yml"}]
    assert copy_env and {f.reach for f in copy_env} == {"optional"}


def test_a_folder_the_host_never_imports_through_keeps_its_environment_in_the_matrix(tmp_path):
    # not a bundled copy (nothing imports through it): its install script's torch is the project's declaration too
    tree = copy_tree(**{"train/requirements.txt": HOST_REQUIREMENTS,
                        "train/train.py": HOST.replace("from helpers.flownet.flownet.model import FlowNet\n",
                                                       "FlowNet = torch.nn.Identity\n")})
    report = run(write(tmp_path, tree))
    assert f"{COPY}/pip_install.sh:1" in _row(report, "torch").sources
    assert _row(report, "cudatoolkit") is not None


def test_a_bundled_copys_readme_is_documentation(tmp_path):
    # prec42d: the upstream's README inside the copy is docs, never counted; the host's own README is not touched
    report = run(write(tmp_path, copy_tree()))
    readme = [f for f in report.findings if f.path == f"{COPY}/README.md"]
    assert readme and {(f.role, f.reach) for f in readme} == {("docs", "optional")}
    tree = copy_tree(**{"train/train.py": HOST.replace("from helpers.flownet.flownet.model import FlowNet\n",
                                                       "FlowNet = torch.nn.Identity\n")})
    own = [f for f in run(write(tmp_path / "own", tree)).findings if f.path == f"{COPY}/README.md"]
    assert own and "docs" not in {f.role for f in own}


def test_a_recipe_in_a_namespace_package_of_a_package_dir_root_is_no_entry_of_the_plan(tmp_path):
    # lib/arcface_torch/ has no __init__.py: it is a package only as a namespace package in the build's root lib/
    # (pyproject package-dir), which the plan must read as the propagation does: its trainer is then neither an
    # entry file of the port nor counted (before, the plan read packages under src/ only and kept it an entry)
    recipe = "lib/arcface_torch"
    tree = host(recipe, **{"pyproject.toml": '[project]\nname = "host"\n[tool.setuptools.package-dir]\n"" = "lib"\n'})
    del tree["lib/__init__.py"]
    tree["inference.py"] = tree["inference.py"].replace(f"from {recipe.replace('/', '.')}.", "from arcface_torch.")
    report = run(write(tmp_path, tree))
    assert reaches(report)[f"{recipe}/train.py"] == {"optional"}
    assert {e.path for e in report.phase_matrix.entries} == {"inference.py"}
    assert report.effort.main_phase == "inference"


def test_the_copies_are_found_once_per_run_for_every_pass_that_reads_them(tmp_path, monkeypatch):
    # the propagation (scripts, loose files, the host's imports), the dependency matrix and the phase plan read the
    # one BundledCopies the core builds with the run (ProjectRun.copies), never a scope of their own
    import ascend_feasibility.analyzer.context.bundled_projects as bundled

    calls = []
    found = bundled.bundled_project_folders
    monkeypatch.setattr(bundled, "bundled_project_folders", lambda *args: calls.append(args) or found(*args))
    report = run(write(tmp_path, host()))
    assert len(calls) == 1
    assert {e.path for e in report.phase_matrix.entries} == {"inference.py"}
    assert reaches(report)[f"{RECIPE}/train.py"] == {"optional"}


def test_a_copys_bare_import_of_its_own_main_is_no_import_of_the_hosts_main():
    # round 34 A2 class 1: stable_diffusion/scripts/inpaint.py's `from main import ...` means the copy's own main.py,
    # which the copy's root supplies, not the host's top-level main.py
    def tree(*copy_files: PhaseFacts):
        host = PhaseFacts(path="model/encoder.py", module="model.encoder", imports=["hubentry"],
                          words=" sys path append lib ", dotted_words=["sys.path.append"])
        return [host, PhaseFacts(path="main.py", module="main"), PhaseFacts(path="lib/setup.py", module="lib.setup"),
                PhaseFacts(path="lib/hubentry.py", module="lib.hubentry"), *copy_files]
    sample = PhaseFacts(path="lib/scripts/sample.py", module="lib.scripts.sample", imports=["main.build"])
    assert sys_path_copies(tree(PhaseFacts(path="lib/main.py", module="lib.main"), sample)) == {"lib": {"hubentry"}}
    # without a main.py of its own the copy's script imports the host's: the folder is the project's own
    assert sys_path_copies(tree(sample)) == {}


COPY_BLOCKS = """import torch


class Block(torch.nn.Module):
    def forward(self, x):
        return x.to('cuda')


if __name__ == "__main__":
    model = Block().eval()
    with torch.no_grad():
        print(model(torch.zeros(1).cuda()))
"""
COPY_MAIN = """import torch


def build():
    return torch.zeros(1).cuda()


if __name__ == "__main__":
    build()
"""
COPY_SAMPLE = """import torch
from main import build


if __name__ == "__main__":
    torch.cuda.synchronize()
    build()
"""
HOST_MAIN = """import sys
import torch
sys.path.append("./visionlib")
import hubentry


if __name__ == "__main__":
    hubentry.small_model()
    model = torch.nn.Linear(1, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.zeros(1).cuda()).sum()
    loss.backward()
    opt.step()
"""


def test_a_copy_importing_its_own_main_keeps_its_scripts_out_and_the_modules_the_host_builds_in(tmp_path):
    # instruct-pix2pix: a host main.py beside a copy on sys.path with its own main.py, scripts importing it, and a
    # module with a `__main__` smoke block that the host's config builds (`target: ldm.modules.encoders.modules...`)
    tree = on_path_tree(**{"main.py": HOST_MAIN, "configs/train.yaml": "model:\n  target: visionlib.blocks.Block\n",
                           f"{ONPATH}/main.py": COPY_MAIN, f"{ONPATH}/scripts/sample.py": COPY_SAMPLE,
                           f"{ONPATH}/visionlib/blocks.py": COPY_BLOCKS})
    report = run(write(tmp_path, tree))
    assert {e.path for e in report.phase_matrix.entries} == {"infer.py", "main.py"}
    found = reaches(report)
    for path in ("main.py", "scripts/sample.py", "setup.py", "visionlib/train/train.py"):
        assert found[f"{ONPATH}/{path}"] == {"optional"}, path
    assert found[f"{ONPATH}/visionlib/blocks.py"] == {"runs"}  # built by the host's config: its block a self-test
    assert found[f"{ONPATH}/hubentry.py"] == {"runs"}  # the host imports it from the copy's root
