"""Definitions only a failed `from DEP import NAMES` defines (domains/phases/fallback_definitions.py,
analyzer/context/fallback_copies.py): where the project declares DEP they are no path it takes (round 40 A2 class 3,
rows 52 and 97: Video-Swin-Transformer's mmaction/apis/test.py copies of mmcv.engine's functions)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

CUDA = "    return torch.ones(1).cuda()\n"
FLAGGED = ("import torch\n"
           "try:\n    from mmcv.engine import single_gpu_test, collect_results_gpu\n    from_mmcv = True\n"
           "except (ImportError, ModuleNotFoundError):\n    from_mmcv = False\n"
           "\nif not from_mmcv:\n\n    def collect_results_gpu(part):\n    " + CUDA +
           "\n    def single_gpu_test(model):\n    " + CUDA)
HANDLER = ("import torch\n"
           "try:\n    from mmcv.engine import single_gpu_test\n"
           "except ImportError:\n    def single_gpu_test(model):\n    " + CUDA)


def _tree(tmp_path, test_module: str, requirements: str | None) -> dict[tuple[int], tuple[str, str | None]]:
    files = {"tools/test.py": "from app.test import single_gpu_test, collect_results_gpu\nsingle_gpu_test(None)\n"
                              "collect_results_gpu(None)\n",
             "app/__init__.py": "", "app/test.py": test_module}
    if requirements is not None:
        files["requirements.txt"] = requirements
    write_tree(tmp_path, files)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.reach_reason) for f in report.findings
            if f.rule == "DEV004" and f.path == "app/test.py"}


def test_a_fallback_copy_under_the_failed_import_flag_of_a_declared_requirement_is_optional(tmp_path):
    reach = _tree(tmp_path, FLAGGED, "mmcv-full>=1.3.1\n")  # mmcv-full installs the `mmcv` module
    assert reach[11] == ("optional", "line 10: collect_results_gpu is defined only where `from mmcv.engine import "
                                     "...` fails, and the project declares mmcv-full, whose installed release "
                                     "provides it: a fallback copy that does not run")
    assert reach[14][0] == "optional"


def test_a_fallback_copy_in_the_handler_of_a_declared_requirement_is_optional(tmp_path):
    reach = _tree(tmp_path, HANDLER, "mmcv>=1.3.1\n")
    assert reach[6][0] == "optional" and "declares mmcv" in reach[6][1]


def test_a_fallback_for_an_undeclared_package_or_a_broad_handler_keeps_runs(tmp_path):
    assert _tree(tmp_path / "undeclared", FLAGGED, None)[11] == ("runs", None)
    assert _tree(tmp_path / "bare", HANDLER.replace("except ImportError:", "except:"), "mmcv>=1.3.1\n")[6] \
        == ("runs", None)
    # the flag read another way, or the fallback beside an else arm: not the failed import's only definitions
    other = FLAGGED.replace("if not from_mmcv:", "if from_mmcv is False:")
    assert _tree(tmp_path / "other", other, "mmcv>=1.3.1\n")[11] == ("runs", None)


def test_the_fallback_and_registry_reasons_read_in_chinese():
    from ascend_feasibility.analyzer.reporting.localize import phrase
    fallback = phrase("zh", "line 10: collect_results_gpu is defined only where `from mmcv.engine import ...` fails, "
                            "and the project declares mmcv-full, whose installed release provides it: a fallback copy "
                            "that does not run")
    assert fallback.startswith("第 10 行：collect_results_gpu 只在 `from mmcv.engine import ...` 失败时") \
        and "mmcv-full" in fallback
    registered = phrase("zh", "line 5: class AmpRunner is named nowhere else in the project (no call, reference, "
                              "export or config entry): nothing reaches it (registered in RUNNERS, which builds it "
                              "only from a config's `type=` or a string that names it)")
    assert registered.startswith("第 5 行：") and "已注册到 RUNNERS" in registered and "nothing" not in registered
