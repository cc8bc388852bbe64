"""knowledge/generate_mmcv_ops.py reads mmcv's ops table (docs/en/understand_mmcv/ops.md) and ops __all__; the
generated knowledge/dependencies/mmcv_ops.toml holds, per mmcv line, the Ascend ticks round 40's V-5 relies on."""

from ascend_feasibility.knowledge import load_mmcv_ops
from ascend_feasibility.knowledge.generate_mmcv_ops import ascend_rows, exported

TABLE = """## ops

| Device                       | CPU | CUDA | MLU | MPS | Ascend |
| ---------------------------- | --- | ---- | --- | --- | ------ |
| ActiveRotatedFilter          | √   | √    |     |     | √      |
| ConvexIoU                    |     | √    |     |     |        |
| RoIAlign                     | √   | √    | √   |     | √      |
"""


def test_the_ascend_column_is_read_row_by_row_with_its_line():
    assert ascend_rows(TABLE) == {"ActiveRotatedFilter": (True, 5), "ConvexIoU": (False, 6), "RoIAlign": (True, 7)}


def test_the_exported_names_are_the_ops_all():
    assert exported("from .nms import nms\n__all__ = ['nms', 'RoIAlign']\n") == {"nms", "RoIAlign"}


def test_the_generated_table_ticks_what_mmcv_ticks_on_each_line():
    ops = {name: op.npu for op in load_mmcv_ops().op for name in op.names}
    # v1.7.2 and v2.2.0 ops.md: NMSRotated, BoxIouRotated, RoIAlign, DeformConv2d ticked on both
    for name in ("nms_rotated", "box_iou_rotated", "batched_nms", "RoIAlign", "DeformConv2d", "points_in_polygons"):
        assert ops[name] == {"1.x": True, "2.x": True}, name
    # ConvexIoU, MinAreaPolygon, DiffIoURotated, PrRoIPool on neither; RoIAlignRotated, ChamferDistance from 2.x
    for name in ("convex_iou", "min_area_polygons", "diff_iou_rotated_2d", "PrRoIPool"):
        assert ops[name] == {"1.x": False, "2.x": False}, name
    for name in ("RoIAlignRotated", "chamfer_distance", "rotated_feature_align", "MultiScaleDeformableAttention"):
        assert ops[name] == {"1.x": False, "2.x": True}, name
