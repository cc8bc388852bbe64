"""Operator routes of point-cloud and detection libraries (round 36 verdicts): spconv's import is the sparse backbone to
move onto DrivingSDK's sparse modules, not a guard; detectron2's DeformConv is an operator with CUDA kernels only;
torch_scatter's functions each name their torch_npu 2.12 route."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree


def _findings(tmp_path, files):
    write_tree(tmp_path, {"requirements.txt": "torch\n", **files})
    return analyze(tmp_path, AnalyzeOptions(jobs=1)).findings


def test_a_spconv_import_is_priced_as_moving_the_sparse_backbone(tmp_path):
    findings = _findings(tmp_path, {"utils.py": "import spconv.pytorch as spconv\n",
                                    "train.py": "import torch\nfrom utils import spconv\n"})
    found = next(f for f in findings if f.rule == "DEP020" and f.path == "utils.py")
    assert (found.effort_hours.low, found.effort_hours.high) == (8.0, 40.0)
    assert "mx_driving" in found.replacement.en and "mode='spconv'" in found.replacement.en


def test_another_failing_import_keeps_the_guard_price(tmp_path):
    findings = _findings(tmp_path, {"train.py": "import torch\nfrom mamba_ssm import Mamba\n"})
    found = next(f for f in findings if f.rule == "DEP020")
    assert (found.effort_hours.low, found.effort_hours.high) == (0.1, 0.5)
    assert "mx_driving" not in found.replacement.en


def test_detectron2_deform_conv_built_by_the_project_is_an_operator_finding(tmp_path):
    findings = _findings(tmp_path, {
        "backbone.py": "import torch\nfrom detectron2.layers import DeformConv, Conv2d\n"
                       "conv = DeformConv(64, 64, kernel_size=3, padding=1)\nplain = Conv2d(64, 64, 3)\n"})
    calls = [f for f in findings if f.rule == "DEP030" and f.path == "backbone.py"]
    assert [(f.line, f.symbol) for f in calls] == [(3, "detectron2.layers.DeformConv")]
    assert "npu_deformable_conv2d" in calls[0].replacement.en and "mx_driving.deform_conv2d" in calls[0].replacement.en


def test_detectron2_imported_without_its_deform_conv_has_no_call_finding(tmp_path):
    findings = _findings(tmp_path, {"backbone.py": "import torch\nfrom detectron2.layers import Conv2d\n"
                                                   "plain = Conv2d(64, 64, 3)\n"})
    assert not [f for f in findings if f.rule == "DEP030"]


def test_torch_scatter_calls_into_its_compiled_ops_name_their_route(tmp_path):
    findings = _findings(tmp_path, {
        "vfe.py": "import torch\nimport torch_scatter\n"
                  "v = torch_scatter.scatter_max(x, idx, dim=0)[0]\ns = torch_scatter.segment_csr(x, indptr)\n"})
    by_symbol = {f.symbol: f.replacement.en for f in findings if f.rule == "DEP030"}
    assert "scatter_reduce_" in by_symbol["torch_scatter.scatter_max"]
    assert "fp32 and int64" in by_symbol["torch_scatter.scatter_max"]
    assert "mx_driving.scatter_max" in by_symbol["torch_scatter.scatter_max"]
    assert "repeat_interleave" in by_symbol["torch_scatter.segment_csr"]


def test_torch_scatter_sums_and_means_are_plain_pytorch(tmp_path):
    # scatter_sum/add/mean are TorchScript over scatter_add_ (torch_scatter/scatter.py), and scatter() with reduce
    # "sum" (its default), "add" or "mean" dispatches to them: they run on NPU tensors as written
    findings = _findings(tmp_path, {
        "pool.py": "import torch\nfrom torch_scatter import scatter, scatter_mean, scatter_sum\n"
                   "a = scatter_mean(x, idx, dim=0)\nb = scatter_sum(x, idx, dim=0)\nc = scatter(x, idx, dim=0)\n"
                   "d = scatter(x, idx, dim=0, reduce='mean')\ne = scatter(x, idx, 0, None, None, \"add\")\n"
                   "f = scatter(x, idx, dim=0, reduce=\"max\")\ng = scatter(x, idx, dim=0, reduce=mode)\n"})
    assert sorted(f.line for f in findings if f.rule == "DEP030" and f.path == "pool.py") == [8, 9]


def test_the_port_is_priced_once_however_many_files_import_spconv(tmp_path):
    findings = _findings(tmp_path, {"a_backbone.py": "import torch\nimport spconv.pytorch as spconv\nc = spconv.SubMConv3d(4, 4, 3)\n",
                                    "b_head.py": "import torch\nfrom spconv.pytorch import SparseConv3d\nc = SparseConv3d(4, 4, 3)\n",
                                    "train.py": "import torch\nimport a_backbone\nimport b_head\n"})
    prices = sorted((f.path, f.effort_hours.low, f.effort_hours.high) for f in findings if f.rule == "DEP020")
    assert prices == [("a_backbone.py", 8.0, 40.0), ("b_head.py", 0.1, 0.5)]
