"""Configs nothing the project runs loads build nothing they name (analyzer/context/config_reach.py; round 42 B1
class 1: MapTR's copied `_base_` fragments and its vendored mmdetection3d's configs name VoteHead, which no MapTR
config inherits), so the registered class, the op wrapper only it calls and that op's kernels are optional."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree
from tests.test_wrapped_extensions import APP, _tree

REGISTRY = "class Registry:\n    def __init__(self, name):\n        self.name = name\n\n    def register_module(self):\n        return lambda cls: cls\n\n\nHEADS = Registry('head')\n"
HEAD = """import torch
from geolib.ops import furthest_point_sample
from geolib.registry import HEADS


@HEADS.register_module()
class VoteHead(torch.nn.Module):
    def forward(self, points):
        return furthest_point_sample(points, 16)
"""
MODELS_INIT = "from .vote_head import VoteHead\n\n__all__ = ['VoteHead']\n"
VOTENET = "model = dict(type='VoteHead', num_points=16)\n"
RUNTIME = "log_level = 'INFO'\n"
MAPTR = "_base_ = ['../_base_/default_runtime.py']\nmodel = dict(type='Encoder')\n"


def _files(app_config: str = MAPTR) -> dict[str, str]:
    files = _tree(APP)
    files.update({"geolib/geolib/registry.py": REGISTRY, "geolib/geolib/models/__init__.py": MODELS_INIT,
                  "geolib/geolib/models/vote_head.py": HEAD, "geolib/configs/votenet/votenet.py":
                  "_base_ = ['../_base_/models/votenet.py']\n", "geolib/configs/_base_/models/votenet.py": VOTENET,
                  "configs/_base_/models/votenet.py": VOTENET, "configs/_base_/default_runtime.py": RUNTIME,
                  "configs/maptr/maptr.py": app_config})
    return files


def _reach(report, name: str) -> list[tuple[str, str, str]]:
    return [(f.rule, f.reach, f.reach_reason or "") for f in report.findings if f.path.endswith(name)]


def test_a_head_only_configs_nothing_inherits_name_leaves_its_op_kernels_optional(tmp_path):
    report = analyze(write_tree(tmp_path, _files()), AnalyzeOptions(jobs=1))
    kernels = _reach(report, "ops/fps/src/fps_cuda.cu")
    assert kernels and all(reach == "optional" for _, reach, _ in kernels)
    assert all(why.startswith("only re-exported; no project code or config calls it") for _, _, why in kernels)
    assert all(reach == "runs" for _, reach, _ in _reach(report, "ops/pool/src/pool_cuda.cu"))


def test_a_head_a_live_config_inherits_keeps_its_op_kernels(tmp_path):
    inherits = "_base_ = ['../_base_/default_runtime.py', '../_base_/models/votenet.py']\n"
    report = analyze(write_tree(tmp_path, _files(inherits)), AnalyzeOptions(jobs=1))
    kernels = _reach(report, "ops/fps/src/fps_cuda.cu")
    assert kernels and all(reach == "runs" for _, reach, _ in kernels)


def test_a_base_this_reader_cannot_resolve_leaves_every_config_live(tmp_path):
    unread = "parts = ['../_base_/default_runtime.py']\n_base_ = parts + []\n"
    report = analyze(write_tree(tmp_path, _files(unread)), AnalyzeOptions(jobs=1))
    kernels = _reach(report, "ops/fps/src/fps_cuda.cu")
    assert kernels and all(reach == "runs" for _, reach, _ in kernels)
