"""Kernels of one function's class (softmax, layer norm ...) that one extension compiles are one operator, listed and
priced once (metaseq's scaled_masked_softmax_cuda: masked forward and backward); the same class in two extensions is
two operators."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree
from tests.test_unlaunched_kernels import CUDA, HEADER, _tree

BACKWARD = """
template <typename T>
__global__ void masked_softmax_warp_backward(T* grad, const T* out) {
  __shared__ float t[32];
  grad[0] = out[0];
}

template <typename T>
void dispatch_masked_softmax_backward(T* grad, const T* out) {
  masked_softmax_warp_backward<T><<<1, 32>>>(grad, out);
}
"""
CALLS_BACKWARD = CUDA.replace("  return out;", "  dispatch_masked_softmax_backward<float>(out.data_ptr<float>(), "
                                               "x.data_ptr<float>());\n  return out;")


def _softmax_findings(report) -> list:
    return [f for f in report.findings if f.rule == "OPS001" and f.reach == "runs"]


def test_forward_and_backward_of_one_extension_are_one_finding_priced_once(tmp_path):
    report = analyze(write_tree(tmp_path, _tree(**{"pkg/kernels/fused_softmax.h": HEADER + BACKWARD,
                                                    "pkg/kernels/fused_softmax_cuda.cu": CALLS_BACKWARD})),
                     AnalyzeOptions(jobs=1))
    [finding] = _softmax_findings(report)
    assert finding.line == 11
    assert "pkg/kernels/fused_softmax.h:27" in finding.sites
    [item] = [i for i in report.effort.items if i.rule == "OPS001" and i.bucket == "required"]
    assert ("masked_softmax_warp_backward: one operator with masked_softmax_warp_forward (its finding lists both), "
            "counted at masked_softmax_warp_forward = 0.0 h") in item.scaling


def test_the_same_class_in_two_extensions_is_two_operators(tmp_path):
    setup = _tree()["setup.py"].replace(
        "])], cmdclass",
        "]), CUDAExtension('pkg.kernels.other_softmax_cuda', sources=['pkg/kernels/other_softmax.cu'])], cmdclass")
    other = ("#include <torch/extension.h>\n\n__global__ void other_softmax_kernel(float* d, const float* s) {\n"
             "  __shared__ float t[32];\n  d[0] = s[0];\n}\n\ntorch::Tensor other_fwd(torch::Tensor x) {\n"
             "  other_softmax_kernel<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>());\n  return x;\n}\n\n"
             "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"forward\", &other_fwd, \"forward\");\n}\n")
    model = _tree()["pkg/model.py"] + "\nfrom pkg.kernels import other_softmax_cuda\n\n\ndef other(x):\n" \
                                      "    return other_softmax_cuda.forward(x)\n"
    report = analyze(write_tree(tmp_path, _tree(**{"setup.py": setup, "pkg/kernels/other_softmax.cu": other,
                                                    "pkg/model.py": model})), AnalyzeOptions(jobs=1))
    assert {(f.path.rsplit("/", 1)[-1], f.line) for f in _softmax_findings(report)} == {
        ("fused_softmax.h", 11), ("other_softmax.cu", 3)}
