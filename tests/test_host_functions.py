"""Bound functions that are host code (Pointcept's bfs_cluster, round 39 B2 row 40) and those that may reach CUDA."""

from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.custom_ops.native import analyze_native

HEAD = "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n"
BALL = ("int ball_query_cuda(int n, const float* xyz);\n"
        "int ball_query(at::Tensor xyz, int n) { return ball_query_cuda(n, xyz.data<float>()); }\n")
CLUSTER = ("int count_cluster(const int* label, int n) { int c = 0; for (int i = 0; i < n; i++) c += label[i]; return c; }\n"
           "int cluster(at::Tensor label, int n) { return count_cluster(label.data<int>(), n); }\n")
BIND = 'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("ball_query", &ball_query); m.def("cluster", &cluster); }\n'


def _host(code: str) -> set[str]:
    return analyze_native(Unit("ops/ball.cpp", "cpp", SourceText.from_text(code))).host


def test_a_function_and_its_callees_free_of_cuda_are_host_code_and_one_calling_a_declared_launcher_is_not():
    host = _host(HEAD + BALL + CLUSTER + BIND)
    assert {"cluster", "count_cluster"} <= host
    assert "ball_query" not in host


def test_a_cuda_word_a_launch_or_a_header_of_the_project_keeps_a_function_off():
    streamed = "int cluster(at::Tensor label, int n) { auto s = at::cuda::getCurrentCUDAStream(); return n; }\n"
    assert "cluster" not in _host(HEAD + streamed + BIND.replace('m.def("ball_query", &ball_query); ', ""))
    assert _host('#include "ops.h"\n' + HEAD + CLUSTER + BIND.replace('m.def("ball_query", &ball_query); ', "")) == set()
    launched = ("__global__ void k(int* a) { a[0] = 1; }\nvoid go(int* a) { k<<<1, 1>>>(a); }\n"
                "int cluster(at::Tensor label, int n) { go(label.data<int>()); return n; }\n")
    assert "cluster" not in _host(HEAD + launched + BIND.replace('m.def("ball_query", &ball_query); ', ""))
