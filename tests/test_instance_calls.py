"""An arm of `__call__` testing a parameter every call of the object leaves at its False default, or passes the
literal default to (Uni-ControlNet's `OpenposeDetector.__call__(self, oriImg, hand=False)`, called only as
`apply_openpose(img, False)` through a module-level instance): optional, naming the parameter. Decided only where every
construction of the class is a module-level binding whose name is only called."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

DETECTOR = ("import torch\n\n\nclass Detector:\n    def __call__(self, img, hand=False):\n        if hand:\n"
            "            torch.cuda.synchronize()\n        return img\n")


def _sync_reach(tmp_path, caller: str, detector: str = DETECTOR) -> tuple[str, str]:
    write_tree(tmp_path, {"pkg/__init__.py": detector, "scripts/run.py": caller, "requirements.txt": "torch\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    [found] = [f for f in report.findings if f.path == "pkg/__init__.py" and f.line == 7]
    return found.reach, found.reach_reason or ""


def test_instance_called_with_the_literal_default_leaves_the_arm_optional(tmp_path):
    reach, why = _sync_reach(tmp_path, "from pkg import Detector\n\napply = Detector()\n\n\ndef main(x):\n"
                                       "    return apply(x, False)\n")
    assert reach == "optional"
    assert "`hand=False`" in why and "scripts/run.py's apply" in why


def test_instance_called_without_the_keyword_leaves_the_arm_optional(tmp_path):
    reach, _ = _sync_reach(tmp_path, "from pkg import Detector\n\napply = Detector()\nprint(apply(1))\n")
    assert reach == "optional"


def test_a_call_passing_true_keeps_the_arm(tmp_path):
    assert _sync_reach(tmp_path, "from pkg import Detector\n\napply = Detector()\nprint(apply(1, hand=True))\n")[0] == "runs"
    assert _sync_reach(tmp_path, "from pkg import Detector\n\napply = Detector()\nprint(apply(1, True))\n")[0] == "runs"


def test_an_instance_built_or_used_out_of_sight_keeps_the_arm(tmp_path):
    inside = "from pkg import Detector\n\n\ndef main(x):\n    d = Detector()\n    return d(x)\n"
    assert _sync_reach(tmp_path, inside)[0] == "runs"  # a construction no module-level binding holds
    passed = "from pkg import Detector\n\napply = Detector()\nrun_all(apply)\n"
    assert _sync_reach(tmp_path, passed)[0] == "runs"  # the instance handed on: called elsewhere
    selfish = DETECTOR + "\n    def both(self, img):\n        return self(img, hand=True)\n"
    assert _sync_reach(tmp_path, "from pkg import Detector\n\napply = Detector()\nprint(apply(1))\n", selfish)[0] == "runs"


def test_other_classes_instances_and_a_star_import_do_not_count(tmp_path):
    # Uni-ControlNet's test.py: `from utils.share import *`, then eight detectors bound and called side by side
    write_tree(tmp_path, {"utils/share.py": "X = 1\n", "pkg/other.py": "class Canny:\n    def __call__(self, a, lo, hi):\n"
                          "        return a\n"})
    caller = ("from utils.share import *\nfrom pkg import Detector\nfrom pkg.other import Canny\n\napply_canny = Canny()\n"
              "apply = Detector()\n\n\ndef main(x, lo, hi):\n    return apply_canny(x, lo, hi), apply(x, False)\n")
    assert _sync_reach(tmp_path, caller)[0] == "optional"
