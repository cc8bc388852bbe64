"""Generate knowledge/dependencies/mmcv_ops.toml: which mmcv.ops names have an Ascend (NPU) kernel on each mmcv line.

The facts come from mmcv's own ops table, docs/en/understand_mmcv/ops.md (one row per operator, a tick per device:
CPU, CUDA, MLU, MPS, Ascend), read at the last release of each line: v1.7.2 for 1.x (the `mmcv-full` package; what
a project whose `__init__` caps mmcv below 2.0 builds), v2.2.0 for 2.x. The table names operators, not Python names:
ROW_NAMES below says which names of mmcv/ops/__init__.py's `__all__` call each row's kernel (checked against the
`__all__` of both tags, so a name mmcv does not export fails the run). Names of `__all__` no row lists (Conv2d,
Linear, point_sample, QueryAndGroup, get_compiler_version) are torch wrappers or helpers without a kernel of their own.

Run with a local clone (bare or not) of open-mmlab/mmcv; the repository never needs the network at test time:

    python -m knowledge.generate_mmcv_ops --mmcv /path/to/mmcv.git
"""

from __future__ import annotations

import argparse
import ast
import subprocess
from pathlib import Path

LINES = {"1.x": "v1.7.2", "2.x": "v2.2.0"}
TABLE = "docs/en/understand_mmcv/ops.md"
EXPORTS = "mmcv/ops/__init__.py"
OUT = Path(__file__).parent / "dependencies" / "mmcv_ops.toml"

# ops.md row → the mmcv.ops names whose forward runs that row's kernel (mmcv/ops/<module>.py at both tags)
ROW_NAMES: dict[str, list[str]] = {
    "ActiveRotatedFilter": ["active_rotated_filter"],
    "AssignScoreWithK": ["assign_score_withk"],
    "BallQuery": ["ball_query"],
    "BBoxOverlaps": ["bbox_overlaps"],
    "BorderAlign": ["BorderAlign", "border_align"],
    "BoxIouRotated": ["box_iou_rotated"],
    "BoxIouQuadri": ["box_iou_quadri"],
    "CARAFE": ["CARAFE", "CARAFENaive", "CARAFEPack", "carafe", "carafe_naive"],
    "ChamferDistance": ["chamfer_distance"],
    "CrissCrossAttention": ["CrissCrossAttention"],
    "ContourExpand": ["contour_expand"],
    "ConvexIoU": ["convex_iou", "convex_giou"],
    "CornerPool": ["CornerPool"],
    "Correlation": ["Correlation"],
    "Deformable Convolution v1/v2": ["DeformConv2d", "DeformConv2dPack", "deform_conv2d"],
    "Deformable RoIPool": ["DeformRoIPool", "DeformRoIPoolPack", "ModulatedDeformRoIPoolPack", "deform_roi_pool"],
    "DiffIoURotated": ["diff_iou_rotated_2d", "diff_iou_rotated_3d"],
    "DynamicScatter": ["DynamicScatter", "dynamic_scatter"],
    "FurthestPointSample": ["furthest_point_sample"],
    "FurthestPointSampleWithDist": ["furthest_point_sample_with_dist"],
    "FusedBiasLeakyrelu": ["FusedBiasLeakyReLU", "fused_bias_leakyrelu"],
    "GatherPoints": ["gather_points"],
    "GroupPoints": ["grouping_operation"],
    "Iou3d": ["boxes_iou3d", "boxes_iou_bev", "boxes_overlap_bev", "nms_bev", "nms_normal_bev", "nms3d", "nms3d_normal"],
    "KNN": ["knn"],
    "MaskedConv": ["MaskedConv2d", "masked_conv2d"],
    "MinAreaPolygon": ["min_area_polygons"],
    "ModulatedDeformConv2d": ["ModulatedDeformConv2d", "ModulatedDeformConv2dPack", "modulated_deform_conv2d"],
    "MultiScaleDeformableAttn": ["MultiScaleDeformableAttention"],
    "NMS": ["nms", "batched_nms", "nms_match"],
    "NMSRotated": ["nms_rotated"],
    "NMSQuadri": ["nms_quadri"],
    "PixelGroup": ["pixel_group"],
    "PointsInBoxes": ["points_in_boxes_part", "points_in_boxes_cpu", "points_in_boxes_all"],
    "PointsInPolygons": ["points_in_polygons"],
    "PSAMask": ["PSAMask"],
    "RotatedFeatureAlign": ["rotated_feature_align"],
    "RoIPointPool3d": ["RoIPointPool3d"],
    "RoIPool": ["RoIPool", "roi_pool"],
    "RoIAlignRotated": ["RoIAlignRotated", "roi_align_rotated"],
    "RiRoIAlignRotated": ["RiRoIAlignRotated", "riroi_align_rotated"],
    "RoIAlign": ["RoIAlign", "roi_align", "SimpleRoIAlign"],
    "RoIAwarePool3d": ["RoIAwarePool3d"],
    "SAConv2d": ["SAConv2d"],
    "SigmoidFocalLoss": ["SigmoidFocalLoss", "sigmoid_focal_loss"],
    "SoftmaxFocalLoss": ["SoftmaxFocalLoss", "softmax_focal_loss"],
    "SoftNMS": ["soft_nms"],
    "Sparse Convolution": ["SparseConv2d", "SparseConv3d", "SparseConvTranspose2d", "SparseConvTranspose3d",
                           "SparseInverseConv2d", "SparseInverseConv3d", "SubMConv2d", "SubMConv3d", "SparseMaxPool2d",
                           "SparseMaxPool3d"],
    "Synchronized BatchNorm": ["SyncBatchNorm"],
    "ThreeInterpolate": ["three_interpolate"],
    "ThreeNN": ["three_nn"],
    "TINShift": ["TINShift", "tin_shift"],
    "UpFirDn2d": ["upfirdn2d"],
    "Voxelization": ["Voxelization", "voxelization"],
    "PrRoIPool": ["PrRoIPool", "prroi_pool"],
    "BezierAlign": ["BezierAlign", "bezier_align"],
    "BiasAct": ["bias_act"],
    "FilteredLrelu": ["filtered_lrelu"],
    "Conv2dGradfix": [],  # conv2d_gradfix's conv2d/conv_transpose2d shadow torch names: not told apart by name
}


def _show(repo: Path, tag: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{tag}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def _commit(repo: Path, tag: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-list", "-n", "1", tag], check=True, capture_output=True,
                          text=True).stdout.strip()


def ascend_rows(table: str) -> dict[str, tuple[bool, int]]:
    """Row → (an Ascend tick, its 1-based line) of ops.md's device table."""
    rows: dict[str, tuple[bool, int]] = {}
    header: list[str] = []
    for number, line in enumerate(table.splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) < 2 or all(c and set(c) <= {"-"} for c in cells):
            continue
        if cells[0] == "Device":
            header = cells
            continue
        if header:
            rows[cells[0]] = (cells[header.index("Ascend")] == "√", number)
    return rows


def exported(source: str) -> set[str]:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return {e.value for e in node.value.elts}
    return set()


def render(repo: Path) -> str:
    per_line = {line: (ascend_rows(_show(repo, tag, TABLE)), exported(_show(repo, tag, EXPORTS)), _commit(repo, tag))
                for line, tag in LINES.items()}
    out = ["# Generated by knowledge/generate_mmcv_ops.py from open-mmlab/mmcv; do not edit by hand.",
           f"# {TABLE} (its Ascend column) and {EXPORTS} (__all__) read at:"]
    out += [f"#   {line}: {LINES[line]} ({commit})" for line, (_, _, commit) in per_line.items()]
    out.append("")
    for row, names in ROW_NAMES.items():
        if not names:
            continue
        npu, references = {}, []
        for line, (rows, exports, _) in per_line.items():
            missing = [n for n in names if n not in exports]
            if row in rows and missing:
                raise SystemExit(f"{LINES[line]}: {row}: {missing} not in {EXPORTS} __all__")
            if row in rows:
                npu[line] = rows[row][0]
                references.append(f"open-mmlab/mmcv {LINES[line]}:{TABLE}:{rows[row][1]}")
        if not npu:
            continue
        out += ["[[op]]", f'row = "{row}"', "names = [" + ", ".join(f'"{n}"' for n in names) + "]",
                "npu = { " + ", ".join(f'"{line}" = {str(tick).lower()}' for line, tick in npu.items()) + " }",
                "references = [" + ", ".join(f'"{r}"' for r in references) + "]", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mmcv", type=Path, required=True, help="a clone of open-mmlab/mmcv with its tags")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.write_text(render(args.mmcv), encoding="utf-8")


if __name__ == "__main__":
    main()
