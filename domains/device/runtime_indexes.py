"""Device tests in a helper that turns a device name into an ONNX Runtime session's device index (round 28 B2 C6).

`def cuda_to_int(s): if s == "cuda": return 0; device = torch.device(s); if device.type != "cuda": raise ...;
return device.index`, called only as `app.prepare(ctx_id=cuda_to_int(device))` beside `FaceAnalysis(...,
providers=["CUDAExecutionProvider"])`. The number is insightface's `ctx_id` (or a provider option's `device_id`) of
an ONNX Runtime session, not a torch device: no torch tensor sees it, and widening the test to "npu" would only hand an
NPU index to the CUDA provider. What Ascend needs is the session's provider: CANNExecutionProvider from onnxruntime-cann,
or the CPU provider (knowledge/device/accelerators.toml cuda_runtime_providers; DEV007's runtime-index variant).

The signal is structure, in the test's own file: the test sits in a function whose every call in the file is the value
of a keyword argument naming a runtime's device index (`ctx_id=`, `device_id=`), and the file names an ONNX Runtime
provider for NVIDIA GPUs outside a message. A call used anywhere else (`torch.device(helper(x))`) keeps the torch
reading.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.runtime_providers import cuda_provider_named
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

INDEX_KEYWORDS = frozenset({"ctx_id", "device_id"})
MAX_NODES = 100_000


def feeds_runtime_index(test: Node) -> bool:
    """Is `test` in a function whose every call in this file is a runtime session's device index (see the module)?"""
    function = parsing.enclosing(test, {"function_definition", "lambda"})
    if function is None or function.type != "function_definition":
        return False
    name = parsing.text(function.child_by_field_name("name"))
    root = parsing.root_of(test)
    calls, provider = [], False
    for node in parsing.walk(root, limit=MAX_NODES):
        if node.type == "string" and not provider:
            provider = cuda_provider_named(node) is not None  # in any function or class of the file
        if node.type != "call":
            continue
        callee = node.child_by_field_name("function")
        last = callee.child_by_field_name("attribute") if callee is not None and callee.type == "attribute" else callee
        if last is not None and last.type == "identifier" and parsing.text(last) == name:
            calls.append(node)
    return provider and bool(calls) and all(_index_value(call) for call in calls)


def _index_value(call: Node) -> bool:
    keyword = call.parent
    if keyword is None or keyword.type != "keyword_argument" or keyword.child_by_field_name("value") != call:
        return False
    return parsing.text(keyword.child_by_field_name("name")) in INDEX_KEYWORDS
