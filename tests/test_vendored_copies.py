"""A package copied from another repository into a package of this one, still importing itself by its old top-level
name (LAVIS's lavis/common/annotator/uniformer/__init__.py: `from annotator.uniformer.mmseg.apis import ...`), cannot
be imported: its findings are optional, with the reason (analyzer/context/vendored.py). What the copy's failing
modules reach only through their own package follows; a module of the copy that imports nothing by the old name and
sits outside a failing package keeps `runs`. The copy keeps `runs` where the old name does resolve: at an import root,
beside a script that puts its folder first on sys.path, where a product file edits sys.path naming its folder, where
a dependency file names the package (installed), and where the import sits inside a function."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import reported_at, write_tree

CUDA = "import torch\nx = torch.ones(1).cuda()\n"


def _reach_by_path(root) -> dict[str, set[tuple[str, str | None]]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in report.findings:
        if f.role == "product" and f.rule == "DEV004":
            for path in reported_at(f):  # byte-identical copies fold into one finding
                found.setdefault(path, set()).add((f.reach, f.reach_reason))
    return found


def _copy(prefix: str, seg_import: str = "from annotator.uniformer.apis import run\n") -> dict[str, str]:
    """ControlNet's annotator/ as another project copies it under `prefix`."""
    return {
        f"{prefix}annotator/util.py": CUDA,
        f"{prefix}annotator/canny/__init__.py": "from annotator.util import x\n" if not prefix else CUDA,
        f"{prefix}annotator/uniformer/__init__.py": seg_import + CUDA,
        f"{prefix}annotator/uniformer/apis.py": CUDA + "def run():\n    return x\n",
        f"{prefix}annotator/uniformer/ops/__init__.py": "from .kernel import y\n",
        f"{prefix}annotator/uniformer/ops/kernel.py": CUDA + "y = x\n",
        f"{prefix}annotator/midas/__init__.py": "from .api import z\n" + CUDA,
        f"{prefix}annotator/midas/api.py": "from annotator.util import x as z\n" + CUDA,
    }


def _library(extra: dict[str, str] | None = None, seg_import: str = "from annotator.uniformer.apis import run\n"):
    return {
        "pyproject.toml": '[project]\nname = "lib"\n',
        "lib/__init__.py": "from lib.models.use import go\n",
        "lib/models/__init__.py": "",
        "lib/models/use.py": "from lib.common.annotator.canny import x\nfrom lib.common.annotator.util import x as y\n"
                             "def go():\n    return x, y\n",
        "lib/common/__init__.py": "",
        **_copy("lib/common/", seg_import),
        **(extra or {}),
    }


FAILING = {"lib/common/annotator/uniformer/__init__.py", "lib/common/annotator/uniformer/apis.py",
           "lib/common/annotator/uniformer/ops/kernel.py", "lib/common/annotator/midas/__init__.py",
           "lib/common/annotator/midas/api.py"}


def test_a_copy_importing_itself_by_its_old_name_is_optional(tmp_path):
    write_tree(tmp_path, _library())
    reach = _reach_by_path(tmp_path)
    for path in FAILING:
        assert {r for r, _ in reach[path]} == {"optional"}, path
    (_, why), = reach["lib/common/annotator/uniformer/__init__.py"]
    assert why.startswith("cannot be imported: it imports `annotator.uniformer.apis`")
    assert "lib/common/annotator/" in why and "lib/common/" in why
    assert phrase("zh", why).startswith("无法被导入：它导入 `annotator.uniformer.apis`")
    (_, why), = reach["lib/common/annotator/uniformer/ops/kernel.py"]
    assert phrase("zh", why) == "无法被导入：它所在的包 lib/common/annotator/uniformer/__init__.py 无法被导入"
    assert why == "cannot be imported: its package lib/common/annotator/uniformer/__init__.py cannot be"
    (_, why), = reach["lib/common/annotator/midas/__init__.py"]
    assert "it imports lib/common/annotator/midas/api.py at its top level" in why
    assert phrase("zh", why) == "无法被导入：它在模块顶层导入的 lib/common/annotator/midas/api.py 无法被导入"
    # what the library imports through its own name runs: canny and util import nothing by the old name
    assert reach["lib/common/annotator/util.py"] == {("runs", None)}
    assert reach["lib/common/annotator/canny/__init__.py"] == {("runs", None)}


def test_the_same_copy_at_an_import_root_runs(tmp_path):
    write_tree(tmp_path, {"app.py": "from annotator.uniformer import run\nrun()\n", **_copy("")})
    reach = _reach_by_path(tmp_path)
    assert reach["annotator/uniformer/__init__.py"] == {("runs", None)}
    assert not any(why and why.startswith("cannot be imported") for found in reach.values() for _, why in found), reach


def test_a_copy_whose_folder_a_script_or_a_path_edit_puts_on_sys_path_runs(tmp_path):
    for extra in ({"lib/common/demo.py": "if __name__ == '__main__':\n    print(1)\n"},
                  {"lib/common/run_all.py": "import torch\nprint(torch.ones(1))\n"},
                  {"tools/run.py": "import sys\nsys.path.insert(0, 'lib/common')\n"},
                  {"requirements.txt": "annotator==1.0\n"}):
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        write_tree(root, _library(extra))
        reach = _reach_by_path(root)
        assert reach["lib/common/annotator/uniformer/apis.py"] == {("runs", None)}, extra


def test_an_old_name_imported_inside_a_function_leaves_the_module_importable(tmp_path):
    seg = "def load():\n    from annotator.uniformer.apis import run\n    return run\n"
    write_tree(tmp_path, _library(seg_import=seg))
    reach = _reach_by_path(tmp_path)
    assert reach["lib/common/annotator/uniformer/apis.py"] == {("runs", None)}
    assert reach["lib/common/annotator/uniformer/__init__.py"] == {("runs", None)}


def test_a_failing_module_the_project_imports_from_outside_the_copy_keeps_runs(tmp_path):
    extra = {"lib/models/seg.py": "from lib.common.annotator.midas import z\n"}
    write_tree(tmp_path, _library(extra))
    reach = _reach_by_path(tmp_path)
    assert reach["lib/common/annotator/midas/__init__.py"] == {("runs", None)}
    assert {r for r, _ in reach["lib/common/annotator/uniformer/apis.py"]} == {"optional"}
