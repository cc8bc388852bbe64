"""Code that drives another inference runtime (analyzer/context/runtimes.py), on parsed snippets: a site in a branch
or function whose own statements import the runtime, or a name assigned at the site that only such branches read,
is `other-backend`. Each expectation is read from the module's docstrings."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import runtimes
from ascend_feasibility.analyzer.context.runtimes import RuntimeReader
from ascend_feasibility.analyzer.reading import parsing

from tests.snippets import node_at

RUNTIMES = {"tensorrt": "TensorRT", "onnxruntime": "ONNX Runtime", "paddle": "Paddle Inference"}
TRT = "code for another inference runtime (TensorRT), not torch: its CUDA settings are that runtime's, no torch_npu port item; "


def reason(code: str, needle: str, occurrence: int = 0) -> str | None:
    found = RuntimeReader(RUNTIMES).guard(node_at(code, needle, occurrence))
    if found is None:
        return None
    assert found.reach == "other-backend"
    return found.reason()


YOLO = '''def load(w, engine, onnx, paddle, device):
    cuda = torch.cuda.is_available() and device.type != "cpu"
    if onnx:
        import onnxruntime
        providers = ["CUDAExecutionProvider"] if cuda else ["CPUExecutionProvider"]
    elif engine:  # TensorRT
        import tensorrt as trt
        device = torch.device("cuda:0")
    elif paddle:
        import paddle.inference as pdi
        if cuda:
            config.enable_use_gpu(100, 0)
    else:
        device = torch.device("cuda")
'''


def test_a_site_in_an_arm_that_imports_a_runtime_is_that_runtimes():
    assert reason(YOLO, '"cuda:0"') == TRT + "line 7: import tensorrt as trt"
    assert reason(YOLO, "CUDAExecutionProvider") == (
        "code for another inference runtime (ONNX Runtime), not torch: its CUDA settings are that runtime's, no "
        "torch_npu port item; line 4: import onnxruntime")
    assert reason(YOLO, "enable_use_gpu").startswith("code for another inference runtime (Paddle Inference)")


def test_a_site_in_an_arm_without_a_runtime_is_none():
    assert reason(YOLO, '"cuda")') is None  # the else arm; `device` is read outside the runtimes' arms too


def test_a_name_read_only_by_the_runtimes_arms_is_theirs():
    assert reason(YOLO, "torch.cuda.is_available") == (
        "read only by code for another inference runtime (ONNX Runtime, Paddle Inference), not torch: no torch_npu "
        "port item; line 2: cuda = torch.cuda.is_available() and device.type != \"cpu\"")


@pytest.mark.parametrize("extra, expected", [
    ("    print(cuda)\n", False),  # a read outside the runtimes' arms
    ("    f(cuda=True)\n", True),  # a keyword's name is no read
    ("    x = torch.cuda\n", True),  # torch's attribute is no read
    ("    x = cuda.real\n", False),  # the object of an attribute is a read
    ("    if onnx:\n        import onnxruntime\n        g(cuda)\n", True),
    ("    if onnx:\n        import tensorrt\n        g(cuda)\n", True),
])
def test_every_reader_must_be_in_a_runtimes_arm(extra, expected):
    code = YOLO + extra
    found = reason(code, "torch.cuda.is_available")
    assert (found is not None) is expected
    if found is not None and "tensorrt" in extra:
        assert "(ONNX Runtime, Paddle Inference, TensorRT)" in found
    if found is not None and "onnxruntime" in extra:
        assert "(ONNX Runtime, Paddle Inference)" in found  # each runtime named once


def test_a_name_nobody_reads_is_none():
    code = "def f():\n    cuda = torch.cuda.is_available()\n    return 1\n"
    assert reason(code, "torch.cuda.is_available") is None


@pytest.mark.parametrize("code", [
    "def f(onnx):\n    self.cuda = torch.cuda.is_available()\n    if onnx:\n        import onnxruntime\n        g(self.cuda)\n",
    "def f(onnx):\n    a, b = torch.cuda.is_available(), 1\n    if onnx:\n        import onnxruntime\n        g(a)\n",
    "def f(onnx):\n    g(torch.cuda.is_available())\n    if onnx:\n        import onnxruntime\n",
])
def test_only_a_plain_name_assigned_at_the_site_is_followed(code):
    assert reason(code, "torch.cuda.is_available") is None


def test_a_module_level_name_is_read_in_the_whole_module():
    code = ("cuda = torch.cuda.is_available()\n"
            "def run(onnx):\n    if onnx:\n        import onnxruntime\n        p = 'CUDA' if cuda else 'CPU'\n")
    assert reason(code, "torch.cuda.is_available") == (
        "read only by code for another inference runtime (ONNX Runtime), not torch: no torch_npu port item; "
        "line 1: cuda = torch.cuda.is_available()")
    assert reason(code + "print(cuda)\n", "torch.cuda.is_available") is None


def test_a_function_scoped_name_is_read_in_its_function_only():
    code = ("def load(onnx):\n    cuda = torch.cuda.is_available()\n    if onnx:\n        import onnxruntime\n"
            "        g(cuda)\n")
    assert reason(code + "print(cuda)\n", "torch.cuda.is_available") is not None  # another scope's `cuda`


def test_the_reader_count_is_bounded():
    head = "def f(onnx):\n    cuda = torch.cuda.is_available()\n    if onnx:\n        import onnxruntime\n"
    fifty = head + "        g(cuda)\n" * runtimes.MAX_USES
    assert reason(fifty, "torch.cuda.is_available") is not None
    assert reason(fifty + "        g(cuda)\n", "torch.cuda.is_available") is None


def _count(node) -> int:
    return 1 + sum(_count(child) for child in node.children)


def test_the_scope_walked_for_readers_is_bounded(monkeypatch):
    # the walk visits the module's first statement last: a read there is found only when every node is walked
    code = "cuda\nif onnx:\n    import onnxruntime\n    g(cuda)\ncuda = torch.cuda.is_available()\n"
    total = _count(parsing.parse("python", code.encode()))
    monkeypatch.setattr(runtimes, "MAX_SCOPE_NODES", total)
    assert reason(code, "torch.cuda.is_available") is None
    monkeypatch.setattr(runtimes, "MAX_SCOPE_NODES", total - 1)
    assert reason(code, "torch.cuda.is_available") is not None


def _nested(levels: int) -> str:
    return ("def f(onnx):\n    cuda = " + "(" * levels + "torch.cuda.is_available()" + ")" * levels
            + "\n    if onnx:\n        import onnxruntime\n        g(cuda)\n")


def _hops(code: str, needle: str, kind: str) -> int:
    node, hops = node_at(code, needle), 0
    while node.type != kind:
        node, hops = node.parent, hops + 1
    return hops


def test_the_assignment_is_looked_for_at_most_twenty_one_levels_up():
    levels = {_hops(_nested(k), "torch.cuda.is_available", "assignment"): k for k in range(30)}
    assert reason(_nested(levels[21]), "torch.cuda.is_available") is not None
    assert reason(_nested(levels[22]), "torch.cuda.is_available") is None


def test_imports_in_a_try_or_with_directly_in_the_block_count():
    for wrapper in ["try:\n        import tensorrt\n    except ImportError:\n        pass\n",
                    "with ctx():\n        import tensorrt\n"]:
        code = f"if engine:\n    {wrapper}    x = 'cuda'\n"
        assert reason(code, "'cuda'") == TRT + "line 3: import tensorrt"


@pytest.mark.parametrize("code", [
    "if engine:\n    if y:\n        import tensorrt\n    x = 'cuda'\n",  # an import deeper than the block's own
    "if engine:\n    for i in r:\n        import tensorrt\n    x = 'cuda'\n",
    "if engine:\n    try:\n        if y:\n            import tensorrt\n    except E:\n        pass\n    x = 'cuda'\n",
    "if engine:\n    import tensorrt_llm\n    x = 'cuda'\n",  # another package
    "if engine:\n    import os\n    x = 'cuda'\n",
    "if engine:\n    from . import tensorrt\n    x = 'cuda'\n",  # the project's own module
    "import tensorrt\nx = 'cuda'\n",  # the module is no runtime's arm
    "class A:\n    import tensorrt\n    x = 'cuda'\n",  # nor a class body
    "if engine:\n    import tensorrt\nelse:\n    x = 'cuda'\n",
    "if engine == 'cuda':\n    import tensorrt\n",  # the condition is not in the arm
    "for i in r:\n    import tensorrt\n    x = 'cuda'\n",
    "while r:\n    import tensorrt\n    x = 'cuda'\n",
])
def test_what_is_not_the_runtimes_own_arm(code):
    assert reason(code, "'cuda'") is None


@pytest.mark.parametrize("code, line", [
    ("if a:\n    pass\nelse:\n    import tensorrt\n    x = 'cuda'\n", 4),
    ("if a:\n    pass\nelif b:\n    from tensorrt.x import y\n    x = 'cuda'\n", 4),
    ("def f():\n    import os, tensorrt.plugins as p\n    x = 'cuda'\n", 2),
    ("class A:\n    def f(self):\n        x = 'cuda'\n        import tensorrt\n", 4),
    ("def f():\n    import tensorrt\n    if a:\n        x = 'cuda'\n", 2),  # the function holding the arm
    ("if e:\n    import tensorrt\n    if a:\n        pass\n    else:\n        x = 'cuda'\n", 2),
])
def test_the_runtimes_arms_and_functions(code, line):
    assert reason(code, "'cuda'").endswith(f"line {line}: " + code.splitlines()[line - 1].strip())


def test_the_nearest_runtime_arm_names_its_runtime():
    code = "def f():\n    import onnxruntime\n    if a:\n        import tensorrt\n        x = 'cuda'\n"
    assert reason(code, "'cuda'") == TRT + "line 4: import tensorrt"


def test_the_walk_up_is_bounded(monkeypatch):
    code = "if engine:\n    import tensorrt\n    x = [[['cuda']]]\n"
    hops = _hops(code, "'cuda'", "if_statement")
    monkeypatch.setattr(runtimes, "MAX_DEPTH", hops)
    assert reason(code, "'cuda'") is not None
    monkeypatch.setattr(runtimes, "MAX_DEPTH", hops - 1)
    assert reason(code, "'cuda'") is None


def test_the_reader_remembers_and_answers_the_same():
    root = parsing.parse("python", YOLO.encode())

    def at(needle: str):
        start = YOLO.index(needle)
        return root.descendant_for_byte_range(start, start + len(needle))

    reader = RuntimeReader(RUNTIMES)
    first = reader.guard(at('"cuda:0"'))
    again = reader.guard(at("torch.device"))
    assert first is not None and first is again  # one answer per arm
    readers = reader.guard(at("torch.cuda.is_available"))
    assert readers is not None and readers.readers and readers.runtime == "ONNX Runtime, Paddle Inference"
    assert reader.guard(at("torch.cuda.is_available")) is readers
    assert reader.guard(at("device.type")) is readers  # the same assignment
    assert reader.guard(at('"cuda")')) is None and reader.guard(at('"cuda")')) is None


def test_imported_roots():
    def roots(code: str) -> list[str]:
        return runtimes._imported_roots(parsing.parse("python", code.encode()).named_children[0])
    assert roots("import a.b.c as d, e, f.g\n") == ["a", "e", "f"]
    assert roots("from a.b import c\n") == ["a"]
    assert roots("from . import c\n") == [""]
    assert roots("from .x.y import c\n") == [""]


def test_a_class_body_stops_the_walk_even_inside_a_runtimes_arm():
    code = "if engine:\n    import tensorrt\n    class A:\n        x = 'cuda'\n"
    assert reason(code, "'cuda'") is None
    method = "if engine:\n    import tensorrt\n    class A:\n        def f(self):\n            x = 'cuda'\n"
    assert reason(method, "'cuda'") is None


def test_the_module_itself_is_no_site():
    root = parsing.parse("python", b"cuda = torch.cuda.is_available()\n")
    assert RuntimeReader(RUNTIMES).guard(root) is None


ONLY_NAMED = '''def load(path, export):
    cuda = torch.cuda.is_available()  # exported for onnxruntime later, by another tool
    if export:
        providers = cuda
'''


def test_a_unit_that_imports_no_runtime_reads_no_names(monkeypatch):
    """A unit that spells a runtime's name but imports none cannot be its code: the reader does not collect the
    scope's reads by name to find out (a unit that imports one does: the YOLO tests above)."""
    def fail(scope):
        raise AssertionError("the reads were collected")

    monkeypatch.setattr(runtimes, "_reads_by_name", fail)
    assert reason(ONLY_NAMED, "torch.cuda.is_available") is None
    assert reason(ONLY_NAMED, "providers") is None
    with pytest.raises(AssertionError, match="the reads were collected"):
        reason(YOLO, "torch.cuda.is_available")


CALLS = {"execute_async_v3": "TensorRT", "execute_v2": "TensorRT", "create_execution_context": "TensorRT"}
FLOW = '''class Flow:
    def forward_estimator(self, x):
        if isinstance(self.estimator, torch.nn.Module):
            torch.cuda.synchronize()
            return self.estimator(x)
        else:
            [estimator, stream], engine = self.estimator.acquire_estimator()
            torch.cuda.current_stream().synchronize()
            with stream:
                assert estimator.execute_async_v3(torch.cuda.current_stream().cuda_stream) is True
        return x

    def step(self, x):
        if x.is_cuda:
            torch.cuda.current_stream().synchronize()
        else:
            self.engine.execute_v2([x.data_ptr()])
        y = torch.cuda.Stream()
        return x


class Wrapper:
    def __init__(self, engine, device):
        self.context = engine.create_execution_context()
        self.stream = torch.cuda.stream(torch.cuda.Stream(device))
'''


def calls_reason(code: str, needle: str, occurrence: int = 0) -> str | None:
    found = RuntimeReader(RUNTIMES, CALLS).guard(node_at(code, needle, occurrence))
    return found.reason() if found is not None else None


def test_a_site_in_a_block_calling_a_runtimes_method_is_that_runtimes():
    # round 19 A1 row 28 (CosyVoice flow_matching.py): the else arm runs a TensorRT context another function built;
    # nothing in this file imports tensorrt
    first = "line 10: estimator.execute_async_v3(torch.cuda.current_stream().cuda_stream)"
    assert calls_reason(FLOW, "torch.cuda.current_stream", 0) == TRT + first
    assert calls_reason(FLOW, "torch.cuda.current_stream", 1) == TRT + first
    assert calls_reason(FLOW, "torch.cuda.Stream", 1) == TRT + "line 24: engine.create_execution_context()"


def test_a_runtimes_method_in_another_arm_or_after_it_is_none():
    assert calls_reason(FLOW, "torch.cuda.synchronize") is None  # the torch.nn.Module arm
    assert calls_reason(FLOW, "torch.cuda.current_stream", 2) is None  # the is_cuda arm beside the engine's else
    assert calls_reason(FLOW, "torch.cuda.Stream", 0) is None  # the function's own statements call no engine method
    assert reason(FLOW, "torch.cuda.current_stream", 0) is None  # without the methods: only imports decide


def test_the_analysis_reads_the_imports_from_the_units_combined_query(monkeypatch):
    # a file's analysis hands the readers its combined query's import statements (core.filework._unit_imports): a
    # query of their own would fail to compile here, and the TensorRT arm's device is still that runtime's
    from ascend_feasibility.analyzer.context import guards

    from tests.helpers import scan

    code = "import torch\n\n" + YOLO
    expected = [(f.line, f.rule, f.reach) for f in scan(code).findings]
    assert (10, "other-backend") in [(line, reach) for line, _, reach in expected]  # torch.device("cuda:0") under TensorRT
    monkeypatch.setattr(guards, "IMPORT_STATEMENTS_QUERY", "(not_a_node_type) @import")
    assert [(f.line, f.rule, f.reach) for f in scan(code).findings] == expected
    with pytest.raises(Exception):  # noqa: B017, PT011 - the reader's own query, where no unit gives the imports
        RuntimeReader(RUNTIMES).guard(node_at(YOLO, "cuda:0"))


ENGINE_CALLS = {"deserialize_cuda_engine": "TensorRT", "execute_async_v2": "TensorRT"}
WRAPPERS = '''try:
    import tensorrt as trt
except Exception:
    trt = None
import onnxruntime
import torch


class TRTWrapper:
    def __init__(self, weight, device):
        device = torch.device(f"cuda:{device}")
        self.stream = torch.cuda.Stream(device=device)

    def _load(self):
        runtime = trt.Runtime(trt.Logger(trt.Logger.WARNING))
        return runtime.deserialize_cuda_engine(self.weight.read_bytes())


class ORTWrapper:
    def __init__(self, weight, device):
        self.device = torch.device(f"cuda:{device}")
        self.session = onnxruntime.InferenceSession(weight)


class Detector:
    def __init__(self, device):
        self.device = torch.device("cuda")
'''


def _class_reason(code: str, needle: str) -> str | None:
    found = RuntimeReader({**RUNTIMES, "torch2trt": "TensorRT"}, ENGINE_CALLS).guard(node_at(code, needle))
    return found.reason() if found is not None else None


def test_a_class_driving_tensorrt_is_tensorrts_whole():
    # round 40 mmyolo projects/easydeploy/model/backendwrapper.py: the device set in __init__ is the engine's
    assert _class_reason(WRAPPERS, "torch.cuda.Stream") == TRT + "line 15: trt"
    assert _class_reason(WRAPPERS, "runtime.deserialize_cuda_engine") is not None


def test_a_class_of_a_runtime_with_an_ascend_route_or_of_no_runtime_keeps_its_sites():
    # ONNX Runtime has the CANN execution provider: its class is not folded; a plain class beside is the project's
    assert _class_reason(WRAPPERS, 'f"cuda:{device}")\n        self.session') is None
    assert _class_reason(WRAPPERS, 'torch.device("cuda")') is None


def test_a_branch_importing_torch2trt_is_tensorrts():
    # round 41 YOLOX yolox/evaluators/coco_evaluator.py:148-156
    code = '''def evaluate(model, trt_file, size):
    if trt_file is not None:
        from torch2trt import TRTModule
        model_trt = TRTModule()
        x = torch.ones(1, 3, size, size).cuda()
        model = model_trt
    return model(torch.ones(1).cuda())
'''
    assert _class_reason(code, "torch.ones(1, 3") == TRT + "line 3: from torch2trt import TRTModule"
    assert _class_reason(code, "torch.ones(1).cuda") is None


def test_a_product_class_with_one_tensorrt_method_among_many_keeps_its_sites():
    # tests/test_nvidia_kits.py's CosyVoice model: load_trt imports tensorrt itself; here a module-level import and
    # one TensorRT method out of three
    code = '''import torch
try:
    import tensorrt as trt
except ImportError:
    trt = None


class Model:
    def __init__(self):
        self.device = torch.device("cuda")

    def load(self, path):
        return torch.load(path)

    def infer(self, x):
        return x

    def load_trt(self, path):
        return trt.Runtime(trt.Logger())
'''
    assert _class_reason(code, 'torch.device("cuda")') is None
