"""Names written only in arms a version test rules out at the target (analyzer/context/version_arms.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.version_arms import version_edited_names
from ascend_feasibility.analyzer.context.versions import VersionReader
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import write_tree

FUNCTION = """import torch
from torch.autograd import Function
from torch.utils.cpp_extension import load

ext = load('ext', sources=['ops/src/k.cpp', 'ops/src/k_kernel.cu'])


class ShiftFunction(Function):
    @staticmethod
    def forward(ctx, x, w):
        return ext.forward(x, w)

    @staticmethod
    def backward(ctx, grad):
        return ext.backward(grad), None


shift = ShiftFunction.apply
"""
LAYER = """import torch
import torchvision
from distutils.version import LooseVersion

from ops.shifted import shift


class Layer(torch.nn.Module):
    def forward(self, x, w):
        if LooseVersion(torchvision.__version__) >= LooseVersion('0.9.0'):
            return torchvision.ops.deform_conv2d(x, w, w)
        else:
            return shift(x, w)
"""
TRAIN = "import torch\nfrom layer import Layer\n\ny = Layer()(torch.zeros(2), torch.ones(2))\n"


def _function_finding(root):
    report = analyze(root, AnalyzeOptions(jobs=1))
    return next(f for f in report.findings if f.rule == "OPS040")


def _tree(tmp_path, layer):
    write_tree(tmp_path, {"ops/__init__.py": "", "ops/shifted.py": FUNCTION, "ops/src/k_kernel.cu": "__global__ void k() {}\n",
                          "ops/src/k.cpp": "int f();\n", "layer.py": layer, "train.py": TRAIN})


def test_a_function_used_only_in_the_arm_the_target_torchvision_skips_is_optional(tmp_path):
    _tree(tmp_path, LAYER)
    finding = _function_finding(tmp_path)
    assert finding.reach == "optional" and finding.severity == "low"
    assert "LooseVersion(torchvision.__version__) >= LooseVersion('0.9.0')" in finding.reach_reason
    assert "torchvision 0.27" in finding.reach_reason and "never run" in finding.reach_reason


def test_a_function_the_target_still_takes_stays(tmp_path):
    # the fallback arm is the one taken at the target (a test false there), or the test is not decided
    _tree(tmp_path, LAYER.replace(">= LooseVersion('0.9.0')", ">= LooseVersion('0.99.0')"))
    assert _function_finding(tmp_path).reach == "runs"
    _tree(tmp_path, LAYER.replace("LooseVersion('0.9.0')", "LooseVersion(MIN_VERSION)"))
    assert _function_finding(tmp_path).reach == "runs"
    # another use outside the arm keeps it
    _tree(tmp_path, LAYER + "\n\ndef direct(x, w):\n    return shift(x, w)\n\n\ndirect(1, 2)\n")
    assert _function_finding(tmp_path).reach == "runs"


def _names(code: str) -> list[str]:
    root = parsing.parse("python", code.encode())
    conditions = [n for n in parsing.walk(root) if n.parent is not None and n.parent.type in {"if_statement", "elif_clause"}
                  and n.parent.child_by_field_name("condition") == n]
    reader = VersionReader("2.12.0", {}, [], {}, {"torchvision": "0.27"})
    return [name for name, *_ in version_edited_names(root, conditions, reader)]


def test_which_names_a_version_test_rules_out():
    code = ("import torch\nif torch.__version__ < '2.0':\n    from old import legacy_op\n    y = legacy_op(x)\n"
            "elif torch.__version__ < '2.3':\n    y = middle_op(x)\nelse:\n    y = new_op(x)\n")
    assert sorted(_names(code)) == ["legacy_op", "middle_op", "old"]
    # a name written outside the dead arm too is still used
    assert sorted(_names(code + "z = middle_op(x)\n")) == ["legacy_op", "old"]
    # no version in the file, or an undecided test: nothing
    assert _names("if flag:\n    y = legacy_op(x)\n") == []
    assert _names("import torch\nif torch.__version__ < MIN:\n    y = legacy_op(x)\n") == []
