"""numba CUDA kernels (domains/custom_ops/python_scanner.py): a `@cuda.jit` function is a kernel launched on a grid,
OPS051; a `@cuda.jit(device=True)` function is a device helper compiled into the kernels that call it, never
launched, so no kernel of its own (OpenPCDet's rotate_iou.py: ten helpers and one kernel were eleven high findings;
round 36 B1 class 1, A1 class 3, verdict V-4)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

ROTATE_IOU = '''import numba
from numba import cuda


@numba.jit(nopython=True)
def div_up(m, n):
    return m // n + (m % n > 0)


@cuda.jit('(float32[:], float32[:])', device=True, inline=True)
def trangle_area(a, b):
    return a[0] * b[1] - a[1] * b[0]


@numba.cuda.jit(device=True)
def unused_helper(a):
    return a[0]


@cuda.jit('(int64, int64, float32[:], float32[:], float32[:])', fastmath=False)
def rotate_iou_kernel_eval(n, k, boxes, query, iou):
    i = cuda.threadIdx.x
    iou[i] = trangle_area(boxes, query)


def rotate_iou_gpu_eval(boxes, query, iou):
    rotate_iou_kernel_eval[1, 64](1, 1, boxes, query, iou)
'''


def test_numba_device_functions_are_no_kernels_the_launched_kernel_is(tmp_path):
    write_tree(tmp_path, {"eval/rotate_iou.py": ROTATE_IOU, "run.py": "import eval.rotate_iou\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    numba = [f for f in report.findings if f.rule == "OPS051"]
    assert [(f.path, f.line) for f in numba] == [("eval/rotate_iou.py", 21)]
    assert "rotate_iou_kernel_eval" in numba[0].symbol
    assert [row.kernel for row in report.custom_ops if row.kind == "numba"] == ["rotate_iou_kernel_eval"]
