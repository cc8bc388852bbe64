"""A module that loads a compiled extension at its top level (OpenMMLab's `ext_loader.load_ext('_ext', [...])`) in a
project that neither builds nor declares it imports nowhere, so when no entry point imports it unconditionally its
findings are optional, and so are those of the modules that import it at their top level (analyzer/context/
unbuilt_extensions.py). ControlNet's vendored mmcv ops, reached only through try/except imports, are the case. They
keep `runs` where the project builds extensions, where a dependency file names a folder holding them (mmcv-full), and
where an entry point needs them."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

OP = ("import torch\nfrom ..utils import ext_loader\next_module = ext_loader.load_ext('_ext', ['carafe_forward'])\n"
      "def carafe(x):\n    return x.cuda()\n")


def _reach(root) -> dict[str, tuple[str, str | None]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.path: (f.reach, f.reach_reason) for f in report.findings if f.rule == "DEV004" and f.role == "product"}


def _tree(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {
        "requirements.txt": "torch\n",
        "app.py": "from vendor.mmcv.heads import head\nhead()\n",
        "vendor/__init__.py": "",
        "vendor/mmcv/__init__.py": "",
        "vendor/mmcv/utils/__init__.py": "",
        "vendor/mmcv/utils/ext_loader.py": "import importlib\ndef load_ext(name, funcs):\n"
                                           "    return importlib.import_module('mmcv.' + name)\n",
        "vendor/mmcv/ops/__init__.py": "from .carafe import carafe\n",
        "vendor/mmcv/ops/carafe.py": OP,
        "vendor/mmcv/heads.py": ("try:\n    from vendor.mmcv.ops import carafe\nexcept ImportError:\n    carafe = None\n"
                                 "def head():\n    return 1\n"),
        # a head nothing imports (its import is commented out upstream), importing the ops unguarded
        "vendor/mmcv/point_head.py": "from vendor.mmcv.ops import carafe\ndef point(x):\n    return x.cuda()\n",
        **(extra or {}),
    }


def test_an_extension_module_only_guarded_imports_reach_is_optional(tmp_path):
    write_tree(tmp_path, _tree())
    found = _reach(tmp_path)
    reach, why = found["vendor/mmcv/ops/carafe.py"]
    assert reach == "optional"
    assert why == ("needs the compiled extension `_ext` when it loads, which the project neither builds nor declares; "
                   "no entry point of the project imports it unconditionally")
    assert phrase("zh", why).startswith("加载时需要已编译的扩展 `_ext`")
    # nothing imports point_head.py, and no build file publishes vendor/: unreached before its extension matters
    reach, why = found["vendor/mmcv/point_head.py"]
    assert reach == "optional" and why.startswith("imported by nothing the scripts of vendor/ load")
    # published (a pyproject at the root), a user may import it: its unguarded import of the unbuilt op decides
    published = tmp_path / "published"
    write_tree(published, _tree({"pyproject.toml": "[project]\nname = 'demo'\n"}))
    reach, why = _reach(published)["vendor/mmcv/point_head.py"]
    assert reach == "optional"
    assert why.startswith("imports vendor/mmcv/ops/carafe.py at its top level, which needs the compiled extension")
    assert phrase("zh", why).startswith("在模块顶层导入 vendor/mmcv/ops/carafe.py，而后者加载时需要已编译的扩展 `_ext`")


def test_an_extension_module_built_declared_or_needed_by_an_entry_runs(tmp_path):
    # (a pyproject beside the declaration publishes vendor/: point_head.py, importing the op unguarded, may be loaded)
    for extra in ({"setup.py": "from torch.utils.cpp_extension import CUDAExtension\n"},
                  {"requirements.txt": "torch\nmmcv-full==1.7\n", "pyproject.toml": "[project]\nname = 'demo'\n"},
                  {"app.py": "from vendor.mmcv.ops import carafe\ncarafe(1)\n"}):
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        write_tree(root, _tree(extra))
        assert _reach(root)["vendor/mmcv/ops/carafe.py"] == ("runs", None), extra
