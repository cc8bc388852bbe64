"""Native extensions in git submodules the tree does not hold (round 40 V-4, 4DGaussians): OPS098 at each product
import, a blocker of unknown size; a pure-Python, checked-out or unimported submodule gets none."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.install_docs import installed_local_folders, run_shell_scripts
from ascend_feasibility.analyzer.reading.submodules import names_folder

from tests.helpers import write_tree

GITMODULES = ('[submodule "submodules/simple-knn"]\n\tpath = submodules/simple-knn\n'
              '\turl = https://gitlab.inria.fr/bkerbl/simple-knn.git\n'
              '[submodule "submodules/depth-diff-gaussian-rasterization"]\n'
              '\tpath = submodules/depth-diff-gaussian-rasterization\n'
              '\turl = https://github.com/ingra14m/depth-diff-gaussian-rasterization\n')
README = ("# 4D\n\n```bash\ngit clone https://github.com/x/4DGaussians\ncd 4DGaussians\n"
          "pip install -r requirements.txt\npip install -e submodules/depth-diff-gaussian-rasterization\n"
          "pip install -e submodules/simple-knn\n```\n")
RENDERER = ("import torch\nfrom diff_gaussian_rasterization import GaussianRasterizationSettings, GaussianRasterizer\n\n\n"
            "def render(x):\n    return GaussianRasterizer(GaussianRasterizationSettings())(x)\n")
MODEL = ("import torch\nfrom simple_knn._C import distCUDA2\n\n\n"
         "def init(points):\n    return torch.clamp_min(distCUDA2(points), 1e-7)\n")
TRAIN = "from gaussian_renderer import render\nfrom scene.gaussian_model import init\n\nrender(init(None))\n"


def _tree(tmp_path, **extra):
    files = {".gitmodules": GITMODULES, "README.md": README, "requirements.txt": "torch\n", "train.py": TRAIN,
             "gaussian_renderer/__init__.py": RENDERER, "scene/__init__.py": "", "scene/gaussian_model.py": MODEL}
    files.update(extra)
    return analyze(write_tree(tmp_path, {k: v for k, v in files.items() if v is not None}), AnalyzeOptions(jobs=1))


def test_install_lines_name_the_folders_they_install_from():
    text = ("```bash\ncd repo\npip install -e submodules/simple-knn\npip install timm ./ops\n"
            "cd ops/dcn && python setup.py install\npip install git+https://github.com/x/y.git\n```\n")
    assert installed_local_folders(text) == [(3, "repo/submodules/simple-knn"), (4, "repo/ops"),
                                             (5, "repo/ops/dcn")]


def test_a_folder_is_named_by_its_import_name_or_its_tail_after_a_prefix_word():
    assert names_folder("simple_knn", "submodules/simple-knn")
    assert names_folder("diff_gaussian_rasterization", "submodules/depth-diff-gaussian-rasterization")
    assert names_folder("croco", "croco")
    assert not names_folder("rasterization", "submodules/depth-diff-gaussian-rasterization")  # one word: too little
    assert not names_folder("knn", "submodules/simple-knn")


def test_each_native_submodule_imported_by_the_product_is_one_item_at_its_imports(tmp_path):
    report = _tree(tmp_path)
    found = sorted((f.path, f.line, f.severity, f.reach, f.confidence, f.counted)
                   for f in report.findings if f.rule == "OPS098")
    # the rasterizer has no Ascend build (catalog class unsupported): a kernel to design, a blocker; simple-knn's
    # size is only unknown: high, which keeps the project from Feasible without making it Difficult
    assert found == [("gaussian_renderer/__init__.py", 2, "blocker", "runs", "low", True),
                     ("scene/gaussian_model.py", 2, "high", "runs", "low", True)]
    assert report.verdict.label.en == "Difficult"
    # the catalog knows both packages; OPS098 is their item at these imports, DEP001 not counted twice there
    rows = {row.package: row.classification for row in report.dependency_matrix}
    assert rows.get("diff-gaussian-rasterization") == "unsupported"
    assert rows.get("simple-knn") == "needs_replacement"
    assert not [f for f in report.findings if f.rule == "DEP001" and f.line == 2]
    assert any("OPS098" in driver.en for driver in report.verdict.drivers)
    assert any("simple-knn/" in d.en and "priced as one custom kernel of unknown size" in d.en for d in report.verdict.drivers)


def test_the_compiled_child_alone_says_native(tmp_path):
    report = _tree(tmp_path, **{"README.md": "# 4D\n"})  # no install line: only simple_knn._C is known native
    assert [(f.path, f.line) for f in report.findings if f.rule == "OPS098"] == [("scene/gaussian_model.py", 2)]


def test_a_caught_import_takes_the_fallbacks_reach(tmp_path):
    caught = ("try:\n    from simple_knn._C import distCUDA2\nexcept ImportError:\n    distCUDA2 = None\n")
    report = _tree(tmp_path, **{"scene/gaussian_model.py": caught})
    found = [f for f in report.findings if f.rule == "OPS098" and f.path == "scene/gaussian_model.py"]
    assert found and all(not f.counted for f in found)


def test_checked_out_pure_python_or_unimported_submodules_get_none(tmp_path):
    checked_out = _tree(tmp_path / "a", **{"submodules/simple-knn/setup.py": "from setuptools import setup\n",
                                           "submodules/depth-diff-gaussian-rasterization/setup.py": "x = 1\n"})
    assert not [f for f in checked_out.findings if f.rule == "OPS098"]
    unimported = _tree(tmp_path / "b", **{"gaussian_renderer/__init__.py": "def render(x):\n    return x\n",
                                          "scene/gaussian_model.py": "def init(p):\n    return p\n"})
    assert not [f for f in unimported.findings if f.rule == "OPS098"]
    pure = analyze(write_tree(tmp_path / "c", {
        ".gitmodules": '[submodule "croco"]\n\tpath = croco\n\turl = https://github.com/naver/croco\n',
        "requirements.txt": "torch\n", "train.py": "import torch\nfrom croco.utils.misc import f\n\nf(torch.ones(1).cuda())\n"}), AnalyzeOptions(jobs=1))
    assert not [f for f in pure.findings if f.rule == "OPS098"]
    assert any("croco/" in d.en and "the estimate excludes its code" in d.en for d in pure.verdict.drivers)  # as before


# PointNeXt (round 41): README `source install.sh`; install.sh `cd`s into folders of the openpoints submodule, which
# the tree does not hold, and builds them; the product imports `openpoints` unguarded
POINTS_MODULES = '[submodule "openpoints"]\n\tpath = openpoints\n\turl = git@github.com:guochengqian/openpoints.git\n'
POINTS_README = "# PointNeXt\n\n```bash\ngit clone --recurse-submodules x\ncd PointNeXt\nsource install.sh\n```\n"
POINTS_SCRIPT = ("#!/usr/bin/env bash\n# pip install -e ./old_ops\npip install -r requirements.txt\n\n"
                 "# install cpp extensions, the pointnet++ library\ncd openpoints/cpp/pointnet2_batch\n"
                 "python setup.py install\ncd ../\n\n# necessary only if interested in S3DIS_sphere\ncd subsampling\n"
                 "python setup.py build_ext --inplace\ncd ../../../\n")
POINTS_TRAIN = "import torch\nfrom openpoints.models import build_model_from_cfg\n\nbuild_model_from_cfg(None)\n"


def _points(tmp_path, **extra):
    files = {".gitmodules": POINTS_MODULES, "README.md": POINTS_README, "install.sh": POINTS_SCRIPT,
             "requirements.txt": "torch\n", "train.py": POINTS_TRAIN}
    files.update(extra)
    return analyze(write_tree(tmp_path, {k: v for k, v in files.items() if v is not None}), AnalyzeOptions(jobs=1))


def test_a_shell_script_is_read_for_install_lines_with_its_cd_chain_and_without_its_comments():
    assert installed_local_folders(POINTS_SCRIPT, script=True) == [(7, "openpoints/cpp/pointnet2_batch"),
                                                                    (12, "openpoints/cpp/subsampling")]
    # read as a document, `# pip install` would be a root prompt's command
    assert (2, "old_ops") in installed_local_folders(POINTS_SCRIPT)


def test_the_scripts_a_document_runs_are_named_with_its_cd_folder():
    text = "```bash\ncd repo\nsource install.sh\nbash scripts/setup_env.sh --cuda\nsh ./x.sh && python a.py\n```\n"
    assert run_shell_scripts(text) == ["repo/install.sh", "repo/scripts/setup_env.sh", "repo/x.sh"]
    assert run_shell_scripts("```bash\npython train.py\n```\n") == []


def test_a_script_the_readme_runs_building_inside_a_submodule_makes_it_native(tmp_path):
    report = _points(tmp_path)
    found = [f for f in report.findings if f.rule == "OPS098"]
    assert [(f.path, f.line, f.severity, f.reach, f.counted) for f in found] == [("train.py", 2, "high", "runs", True)]
    # the folders built inside it are named; the price stays one unknown kernel for the submodule
    assert "openpoints/cpp/pointnet2_batch, openpoints/cpp/subsampling" in found[0].message.en
    assert report.verdict.label.en == "Needs adaptation"  # unknown size, not an unknown path


def test_a_root_install_script_counts_without_the_readme_naming_it(tmp_path):
    report = _points(tmp_path, **{"README.md": "# PointNeXt\n"})
    assert [f.path for f in report.findings if f.rule == "OPS098"] == ["train.py"]


def test_a_nested_script_nothing_runs_or_a_build_outside_the_submodule_says_nothing(tmp_path):
    nested = _points(tmp_path / "a", **{"README.md": "# PointNeXt\n", "install.sh": None,
                                        "tools/install_ops.sh": POINTS_SCRIPT})
    assert not [f for f in nested.findings if f.rule == "OPS098"]
    outside = _points(tmp_path / "b", **{"install.sh": "cd ops/pointnet2\npython setup.py install\n"})
    assert not [f for f in outside.findings if f.rule == "OPS098"]
