"""DEP050: uses of torch APIs the target torch removed (knowledge/dependencies/removed_torch_apis.toml)."""

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.dependencies.removed_torch_apis import (
    api_package,
    breaking_pins,
    copes,
    imported_modules,
    removed_apis,
)
from ascend_feasibility.knowledge import load_removed_torch_apis

from tests.helpers import analyze_snippet_project, write_tree


def test_a_row_applies_only_at_or_above_its_release():
    assert {"torch._six", "torch.solve"} <= set(removed_apis("2.12.0")) and "torch._six" in removed_apis("2.0.1")
    assert removed_apis("1.13.1") == {}


REPOSITORY = {"torch": "pytorch/pytorch", "torchvision": "pytorch/vision", "torchaudio": "pytorch/audio"}


def test_a_companion_row_applies_against_the_release_paired_with_the_target_torch():
    """torchvision removed functional_tensor in 0.17 (pytorch/vision#7953), the line paired with torch 2.2: a target
    on torch 2.12 (torchvision 0.27) lacks it, one on torch 2.1 (0.16, where it only warns) keeps it."""
    assert "torchvision.transforms.functional_tensor" in removed_apis("2.12.0")
    assert "torchvision.transforms.functional_tensor" in removed_apis("2.2.0")
    assert "torchvision.transforms.functional_tensor" not in removed_apis("2.1.0")
    assert [p.package for p in breaking_pins("basicsr", "2.12.0")] == ["basicsr"] and not breaking_pins("basicsr", "2.1.0")


def test_every_row_names_a_release_a_replacement_and_a_source():
    for api in load_removed_torch_apis().api:
        assert api.removed_in and api.replacement and api.sources
        assert any(REPOSITORY[api_package(api.name)] in source for source in api.sources), api.name


def test_a_pin_row_applies_only_where_the_target_torch_lacks_the_api_and_names_its_sources():
    assert [pin.package for pin in breaking_pins("timm", "2.12.0")] == ["timm"] and breaking_pins("timm", "1.9.0")
    assert breaking_pins("timm", "1.8.1") == [] and breaking_pins("torchvision", "2.12.0") == []
    for pin in load_removed_torch_apis().pin:
        assert pin.where and any(REPOSITORY[api_package(pin.api)] in source for source in pin.sources), pin.package


@pytest.mark.parametrize(("pin", "expected"), [
    # no release of basicsr fixes `from torchvision.transforms.functional_tensor import rgb_to_grayscale` (1.3.3.10 to
    # 1.4.2, the newest): a pin in the range, an unpinned name and a floor all install a release that fails to import
    ("basicsr==1.4.2", "high"), ("basicsr", "high"), ("basicsr>=1.4.2", "high"), ("basicsr==1.3.4.6", "high"),
    # releases from before the import
    ("basicsr==1.3.2", None), ("basicsr<=1.3.3.9", None),
    # a torch 2.1 project is moved to the torch_npu release for 2.1: its torchvision 0.16 still has the module
    ("torch==2.1.0\nbasicsr==1.4.2", None),
])
def test_a_basicsr_line_breaks_at_the_torchvision_paired_with_the_target(tmp_path, pin, expected):
    """Round 24 verdicts V1/V10 (Real-ESRGAN, GFPGAN: requirements name basicsr, whose import stops on torchvision
    >= 0.17 at basicsr/data/degradations.py)."""
    write_tree(tmp_path, {"requirements.txt": f"torch>=1.7\n{pin}\n",
                          "infer.py": "from basicsr.archs.rrdbnet_arch import RRDBNet\nnet = RRDBNet(3, 3)\n"})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP052"]
    assert [f.severity for f in found] == ([expected] if expected else [])
    if found:
        assert found[0].counted and "torchvision 0.17 removed" in found[0].message.en
        assert "no release up to 1.4.2 fixes it" in found[0].message.en and "8d56e3a0" in found[0].message.en


@pytest.mark.parametrize(("pin", "expected"), [
    # every release the line admits imports torch._six.container_abcs (timm < 0.4.4)
    ("timm==0.3.2", "high"), ("timm==0.4.3", "high"), ("timm<0.4", "high"), ("timm~=0.3.2", "high"),
    # a release from the fix on, or a line pip resolves to the newest release
    ("timm==0.4.4", None), ("timm==0.4.12", None), ("timm>=0.3.2", None), ("timm", None),
])
def test_a_pin_whose_release_imports_a_removed_api_counts_where_the_project_imports_it(tmp_path, pin, expected):
    """Round 22 verdicts (deit: timm==0.3.2, whose `import timm` stops at `from torch._six import container_abcs`)."""
    write_tree(tmp_path, {"requirements.txt": f"torch==2.1.0\n{pin}\n", "models.py": "import timm\nimport torch\n"})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP052"]
    assert [f.severity for f in found] == ([expected] if expected else [])
    if found:
        assert found[0].counted and "upgrade timm to >= 0.4.4" in found[0].message.en
        assert "torch 1.9 removed" in found[0].message.en and "not an NPU difference" in found[0].message.en


@pytest.mark.parametrize(("pin", "expected"), [("timm==0.3.2", ["high"]), ("timm==0.4.12", [])])
def test_an_install_documents_pin_is_read_as_a_manifests(tmp_path, pin, expected):
    """Round 34 V1-4: ConvNeXt's INSTALL.md:20 `pip install timm==0.3.2 tensorboardX six` (no manifest pins timm) and
    main.py's `import timm`: the finding a requirements line gets, at the document's line."""
    write_tree(tmp_path, {"INSTALL.md": f"# Install\n```\npip install {pin} tensorboardX six\n```\n",
                          "main.py": "import timm\nimport torch\n"})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP052"]
    assert [(f.path, f.line, f.severity, f.counted) for f in found] == [("INSTALL.md", 3, s, True) for s in expected]


def test_a_scripts_version_assert_is_the_release_it_runs_with(tmp_path):
    """Round 34 V1-4, mae: main_pretrain.py:27 and main_finetune.py:26 `assert timm.__version__ == "0.3.2"`, while the
    only install of timm is a fixed release (mae's demo notebook: 0.4.5): one item at the first assert listing both. An assert of a
    fixed release, one inside a function, an f-string or another operator is none."""
    script = 'import timm\nimport torch\n\nassert timm.__version__ == "0.3.2"  # version check\n'
    write_tree(tmp_path, {
        "requirements.txt": "timm==0.4.5\n",
        "main_pretrain.py": script,
        "main_finetune.py": "import timm\nassert '0.3.2' == timm.__version__, 'timm 0.3.2 only'\n",
        "fixed.py": "import timm\nassert timm.__version__ == '0.4.12'\n",
        "others.py": ("import timm\nv = '0.3.2'\nassert timm.__version__ == f'{v}'\nassert timm.__version__ != '0.3.2'\n"
                      "def check():\n    assert timm.__version__ == '0.3.2'\n"),
    })
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP052"]
    assert [(f.path, f.line, f.severity, f.counted, f.sites) for f in found] == \
        [("main_finetune.py", 2, "high", True, ["main_finetune.py:2", "main_pretrain.py:4"])]


def test_a_version_assert_adds_nothing_where_a_manifest_pin_already_breaks(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "timm==0.3.2\n",
                          "main.py": 'import timm\nassert timm.__version__ == "0.3.2"\n'})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP052"]
    assert [(f.path, f.line) for f in found] == [("requirements.txt", 1)]


@pytest.mark.parametrize(("statement", "modules"), [
    ("import torch._six", ["torch._six"]),
    ("import torch._six as six, os", ["torch._six", "os"]),
    ("from torch._six import inf, string_classes as sc", ["torch._six", "torch._six.inf", "torch._six.string_classes"]),
    ("from torch import _six", ["torch", "torch._six"]),
    ("from . import _six", []),
])
def test_imported_modules(statement, modules):
    tree = parsing.parse("python", statement.encode())
    assert imported_modules(tree.named_children[0]) == modules


@pytest.mark.parametrize(("code", "expected"), [
    ("try:\n    from torch._six import inf\nexcept ImportError:\n    from math import inf", True),
    ("try:\n    from torch._six import inf\nexcept:\n    from math import inf", True),
    # a handler for something else lets the ImportError through
    ("try:\n    from torch._six import inf\nexcept KeyError:\n    inf = 1", False),
    # the import in the handler is not guarded by it
    ("try:\n    import foo\nexcept ImportError:\n    from torch._six import inf", False),
    ("if torch.__version__ < '2':\n    from torch._six import inf\nelse:\n    from math import inf", True),
    ("if use_six:\n    from torch._six import inf", False),
])
def test_code_that_copes(code, expected):
    tree = parsing.parse("python", code.encode())
    node = next(n for n in _walk(tree) if n.type == "import_from_statement" and b"_six" in n.text)
    assert copes(node) is expected


def test_one_site_per_file_for_a_module_and_each_call_of_a_function():
    code = ("import torch\nfrom torch._six import inf\nimport torch._six\nx = torch._six.container_abcs\n"
            "def f(a, b):\n    x = torch.solve(b, a).solution\n    return torch.solve(a, b)\n")
    report = analyze_snippet_project(code, "python")
    sites = sorted((f.line, f.symbol) for f in report.findings if f.rule == "DEP050")
    assert sites == [(2, "torch._six"), (6, "torch.solve"), (7, "torch.solve")]


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def test_an_opt_in_manifests_copy_of_the_main_pin_is_a_site_of_the_main_item(tmp_path):
    """Round 27 A1 W4 / B2 C11 (SadTalker: basicsr==1.4.2 at requirements.txt:16 and requirements3d.txt:16, the
    manifest of the opt-in 3D visualisation): one counted item with both lines as sites, not two."""
    write_tree(tmp_path, {"requirements.txt": "torch>=1.7\nbasicsr==1.4.2\n",
                          "requirements3d.txt": "torch==1.11.0\nbasicsr==1.4.2\n",
                          "infer.py": "from basicsr.archs.rrdbnet_arch import RRDBNet\nnet = RRDBNet(3, 3)\n"})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP052"]
    assert [(f.path, f.counted, f.sites) for f in found] == [
        ("requirements.txt", True, ["requirements.txt:2", "requirements3d.txt:2"])]


@pytest.mark.parametrize("main", ["torch>=1.7\nbasicsr==1.3.4.6\n", "torch>=1.7\nnumpy\n"])
def test_an_opt_in_manifests_own_pin_is_an_optional_item(tmp_path, main):
    # another pin in the main manifest, or none there: the opt-in environment's line is its own item, not counted
    write_tree(tmp_path, {"requirements.txt": main, "requirements3d.txt": "torch==1.11.0\nbasicsr==1.4.2\n",
                          "infer.py": "from basicsr.archs.rrdbnet_arch import RRDBNet\nnet = RRDBNet(3, 3)\n"})
    found = {f.path: (f.reach, f.counted) for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
             if f.rule == "DEP052"}
    assert found["requirements3d.txt"] == ("optional", False)
    assert ("requirements.txt" in found) is ("basicsr" in main)


FETCH = ("import os\nclass Detector:\n    def __init__(self, ckpt):\n        if not os.path.exists(ckpt):\n"
         "            from basicsr.utils.download_util import load_file_from_url\n            load_file_from_url(URL)\n")


@pytest.mark.parametrize(("files", "reach"), [
    # round 29 B1 class 6 row 8: the only import is the download fallback of a checkpoint the user places by hand
    ({"detector.py": FETCH}, "optional"),
    ({"detector.py": FETCH.replace("os.path.exists(ckpt)", "Path(ckpt).is_file()")}, "optional"),
    # the same import also made plainly elsewhere, or under another test, keeps the item that runs
    ({"detector.py": FETCH, "infer.py": "from basicsr.archs.rrdbnet_arch import RRDBNet\nnet = RRDBNet(3, 3)\n"}, "runs"),
    ({"detector.py": FETCH.replace("not os.path.exists(ckpt)", "ckpt is None")}, "runs"),
])
def test_a_pin_imported_only_to_download_a_missing_file_is_optional(tmp_path, files, reach):
    write_tree(tmp_path, {"requirements.txt": "torch>=1.7\nbasicsr==1.4.2\n", **files})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP052"]
    assert [f.reach for f in found] == [reach]
    if reach == "optional":
        assert "imported only where a file is missing" in found[0].reach_reason
