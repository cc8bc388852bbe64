"""Nested projects on a torch line of their own (analyzer/core/subprojects.py): their findings are judged at their own
target, chosen from their own build files; a folder on the root's line, one without an install, or one the root's
code imports stays part of the root project."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.core.subprojects import install_folders, script_folders

MESH = ("import torch\nfrom torch.distributed.device_mesh import init_device_mesh\n\n\n"
        "def build(n):\n    return init_device_mesh(\"cuda\", (n,), mesh_dim_names=(\"dp\",))\n")


def _tree(root: Path, sub_torch: str, sub_install: bool = True, outside_import: bool = False) -> Path:
    files = {
        "pyproject.toml": "[project]\nname = \"app\"\nversion = \"1\"\ndependencies = [\"torch==2.1.0\"]\n",
        "app/__init__.py": "",
        "app/mesh.py": MESH + ("from verl.workers import mesh as rl_mesh\n" if outside_import else ""),
        "rl/requirements.txt": "transformers\n",
        "rl/Dockerfile": f"FROM python:3.10\nRUN pip install \"torch=={sub_torch}\"\n",
        "rl/verl/__init__.py": "",
        "rl/verl/workers/__init__.py": "",
        "rl/verl/workers/mesh.py": "# the rollout mesh\n" + MESH,  # not byte-identical: no copy folded into the other
    }
    if sub_install:
        files["rl/setup.py"] = "from setuptools import find_packages, setup\nsetup(name='verl', packages=find_packages())\n"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _mesh_findings(report) -> dict[str, tuple[str, str]]:
    return {f.path: (f.severity, f.migration) for f in report.findings if f.rule == "DST006"}


def test_a_nested_project_on_another_torch_line_is_judged_at_its_own_target(tmp_path):
    report = analyze(_tree(tmp_path, "2.6.0"), AnalyzeOptions(jobs=1))
    assert report.target.torch == "2.1.0"
    [sub] = report.target.subprojects
    assert (sub.folder, sub.torch) == ("rl", "2.6.0") and sub.release.startswith("2.6.0")
    assert "rl/Dockerfile" in sub.reason.en and "sub-project rl" in sub.reason.en
    mesh = _mesh_findings(report)
    # transfer_to_npu wraps init_device_mesh from the 7.0.0 releases (torch 2.6 has them), not on the torch 2.1 line
    assert mesh["rl/verl/workers/mesh.py"] == ("info", "auto")
    assert mesh["app/mesh.py"][1] == "rewrite"
    assert not [f for f in report.findings if f.rule == "DEP016" and f.path == "rl/Dockerfile"]
    # its required work is its own part of the estimate, never in the root's total or the verdict
    part = report.effort.subprojects["rl"]
    assert part.high_days > 0
    apart = [i for i in report.effort.items if i.bucket == "sub-project"]
    assert apart and all(site.startswith("rl/") for i in apart for site in i.sites)
    assert not [i for i in report.effort.items if i.bucket in {"required", "other-phases"}
                and any(site.startswith("rl/") for site in i.sites)]
    assert not any("rl/" in driver.en for driver in report.verdict.drivers)


def test_a_nested_folder_on_the_roots_line_without_an_install_or_imported_by_the_root_is_no_subproject(tmp_path):
    for name, tree in [("same line", dict(sub_torch="2.1.0")), ("no install", dict(sub_torch="2.6.0", sub_install=False)),
                       ("imported", dict(sub_torch="2.6.0", outside_import=True))]:
        folder = tmp_path / name.replace(" ", "_")
        folder.mkdir()
        report = analyze(_tree(folder, **tree), AnalyzeOptions(jobs=1))
        assert report.target.subprojects == [] and report.effort.subprojects == {}, name
        assert _mesh_findings(report)["rl/verl/workers/mesh.py"][1] == "rewrite", name


def test_install_folders_are_the_outermost_with_a_build_file_and_a_requirement_or_image():
    paths = ["setup.py", "requirements.txt", "rl/setup.py", "rl/Dockerfile", "rl/verl/pyproject.toml",
             "rl/verl/requirements.txt", "tools/requirements.txt", "tools/x.py", "pkg/pyproject.toml", "pkg/a.py",
             "svc/pyproject.toml", "svc/requirements-dev.txt"]
    assert install_folders(paths) == ["rl", "svc"]


def _scripted_tree(root: Path, sub_torch: str, sub_code: bool = True) -> Path:
    """Show-o's shape: the root pins torch 2.2.1 and has its own models/ package; v2/ is set up by a shell script
    (`bash build_env.sh`) and holds a models/ package of the same name."""
    files = {
        "requirements.txt": "torch==2.2.1\n",
        "models/__init__.py": "from models.net import Net\n",
        "models/net.py": MESH,
        "train.py": "from models import Net\n",
        "v2/build_env.sh": f"pip3 install torch=={sub_torch} torchvision\npip3 install -r requirements.txt\n",
        "v2/requirements.txt": "transformers\n",
    }
    if sub_code:
        files |= {"v2/models/__init__.py": "from models.mesh import build\n", "v2/models/mesh.py": MESH,
                  "v2/train.py": "from models import build\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_folder_set_up_by_its_own_shell_script_is_a_nested_project_though_the_root_has_a_same_named_package(
        tmp_path):
    report = analyze(_scripted_tree(tmp_path, "2.5.1"), AnalyzeOptions(jobs=1))
    assert report.target.torch.startswith("2.2")
    [sub] = report.target.subprojects
    assert (sub.folder, sub.torch) == ("v2", "2.5.1")
    # its pin fits its own target: no advice to move it down to the root's torch
    assert not [f for f in report.findings if f.rule == "DEP016" and f.path == "v2/build_env.sh"]


def test_a_shell_script_on_the_roots_line_or_in_a_folder_without_code_makes_no_nested_project(tmp_path):
    for name, tree in [("same_line", dict(sub_torch="2.2.1")), ("no_code", dict(sub_torch="2.5.1", sub_code=False))]:
        folder = tmp_path / name
        folder.mkdir()
        report = analyze(_scripted_tree(folder, **tree), AnalyzeOptions(jobs=1))
        assert report.target.subprojects == [], name


def test_script_folders_hold_a_shell_script_installing_torch():
    texts = {"v2/build_env.sh": b"pip3 install torch==2.5.1\n", "v3/run.sh": b"python train.py\n",
             "env.sh": b"pip install torch==2.1.0\n"}
    assert script_folders(texts, texts.__getitem__) == ["v2"]
    assert install_folders(["v2/build_env.sh", "v2/pkg/a.py", "docker/x.sh"], ["v2", "docker"]) == ["v2"]
