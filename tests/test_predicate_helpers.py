"""Guards written as a call of a small predicate helper of the same file (analyzer/context/predicate_helpers.py):
the call stands for the test the helper returns, through helpers it calls, negation included; and a called
`is_cuda()` helper comparing Triton's driver backend with "cuda" is a test transfer_to_npu leaves false
(analyzer/context/shim_none.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.predicate_helpers import PredicateHelpers

from tests.helpers import scan
from tests.snippets import node_at

TRITON_IS_CUDA = (
    "import torch\nimport triton\nfrom triton.tools.tensor_descriptor import TensorDescriptor\n\n"
    "def is_cuda():\n    return triton.runtime.driver.active.get_current_target().backend == \"cuda\"\n\n"
)
DESCRIPTOR_USE = (
    "def attention(q, k, warp_specialize=False):\n"
    "    if supports_host_descriptor() and not (is_hopper() and warp_specialize):\n"
    "        desc_q = TensorDescriptor(q, shape=[8], strides=[1], block_shape=[8])\n"
    "    else:\n"
    "        desc_q = q\n"
    "    return desc_q\n"
)
HOPPER = "def is_hopper():\n    return is_cuda() and torch.cuda.get_device_capability()[0] == 9\n\n"


def reaches(code: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.reach) for f in scan(code).findings if f.rule == rule]


def test_a_descriptor_under_a_cuda_predicate_helper_is_cuda_only_guarded():
    helper = "def supports_host_descriptor():\n    return is_cuda() and torch.cuda.get_device_capability()[0] >= 9\n\n"
    code = TRITON_IS_CUDA + helper + HOPPER + DESCRIPTOR_USE
    assert reaches(code, "OPS032") == [(16, "cuda-only-guarded")]


def test_a_helper_testing_no_cuda_guards_nothing():
    helper = "def supports_host_descriptor():\n    return triton.__version__ >= \"3.4\"\n\n"
    code = TRITON_IS_CUDA + helper + HOPPER + DESCRIPTOR_USE
    assert reaches(code, "OPS032") == [(16, "runs")]


def test_a_helper_of_more_than_one_return_or_defined_twice_is_not_read():
    longer = ("def supports_host_descriptor():\n    ok = is_cuda() and torch.cuda.get_device_capability()[0] >= 9\n"
              "    return ok\n")
    code = TRITON_IS_CUDA + longer + HOPPER + DESCRIPTOR_USE
    assert reaches(code, "OPS032") == [(16, "runs")]
    twice = ("def supports_host_descriptor():\n    return is_cuda()\n\n"
             "class Other:\n    def supports_host_descriptor(self):\n        return False\n\n")
    code = TRITON_IS_CUDA + twice + HOPPER + DESCRIPTOR_USE
    assert reaches(code, "OPS032") == [(20, "runs")]


def test_a_negated_helper_guards_its_else_arm():
    code = ("import torch\nimport flash_attn\n\n"
            "def _generic(x):\n    return x.device.type != \"cuda\"\n\n"
            "def attend(q):\n    if _generic(q):\n        return q.softmax(-1)\n"
            "    else:\n        return flash_attn.flash_attn_func(q, q, q)\n")
    assert reaches(code, "ATT001") == [(11, "cuda-only-guarded")]
    flipped = code.replace("return q.softmax(-1)", "return flash_attn.flash_attn_func(q, q, q)").replace(
        "else:\n        return flash_attn.flash_attn_func(q, q, q)", "else:\n        return q.softmax(-1)")
    assert reaches(flipped, "ATT001") == [(9, "runs")]  # the helper's own arm is the one NPU tensors take


def test_a_method_helper_is_read_through_self():
    code = ("import torch\nimport flash_attn\n\nclass Attention:\n"
            "    def _fast(self, q):\n        return q.is_cuda and q.dtype == torch.float16\n\n"
            "    def forward(self, q):\n        if self._fast(q):\n            return flash_attn.flash_attn_func(q, q, q)\n"
            "        return q.softmax(-1)\n")
    assert reaches(code, "ATT001") == [(10, "cuda-only-guarded")]
    other = code.replace("if self._fast(q):", "if q.helper._fast(q):")  # not the class's own method
    assert reaches(other, "ATT001") == [(10, "runs")]


def test_a_capability_read_behind_the_triton_backend_helper_stays_guarded_under_the_shim():
    # Triton's driver backend is no torch.cuda name: transfer_to_npu leaves it "npu", so None[0] is never read
    code = TRITON_IS_CUDA + HOPPER
    assert reaches(code, "DEV120") == [(9, "cuda-only-guarded")]


def test_a_capability_read_behind_a_torch_cuda_helper_runs_under_the_shim():
    # the helper is torch.cuda.is_available(), which the shim makes true on an NPU: None[0] raises there
    code = ("import torch\n\ndef is_cuda():\n    return torch.cuda.is_available()\n\n"
            "def is_hopper():\n    return is_cuda() and torch.cuda.get_device_capability()[0] == 9\n")
    assert reaches(code, "DEV120") == [(7, "runs")]


def test_helpers_are_followed_a_bounded_depth_and_not_into_recursion():
    def chain(length: int) -> str:
        helpers = "".join(f"def h{i}(q):\n    return h{i + 1}(q)\n\n" for i in range(length - 1))
        return (f"import torch\nimport flash_attn\n\n{helpers}def h{length - 1}(q):\n    return q.device.type == \"cuda\"\n\n"
                "def attend(q):\n    if h0(q):\n        return flash_attn.flash_attn_func(q, q, q)\n    return q\n")
    assert [reach for _, reach in reaches(chain(3), "ATT001")] == ["cuda-only-guarded"]
    assert [reach for _, reach in reaches(chain(6), "ATT001")] == ["runs"]
    looping = ("import flash_attn\n\ndef a(q):\n    return b(q)\n\ndef b(q):\n    return a(q)\n\n"
               "def attend(q):\n    if a(q):\n        return flash_attn.flash_attn_func(q, q, q)\n    return q\n")
    assert [reach for _, reach in reaches(looping, "ATT001")] == ["runs"]


def test_a_call_names_a_helper_only_by_a_plain_name_or_its_own_class():
    code = ("class A:\n    def ok(self):\n        return self.x.device.type == 'cuda'\n\n"
            "def f_():\n    return not A.ok(a)\n\nA.ok(a)\nself.ok()\nobj.ok()\nf_()\ntorch.cuda.ok()\n")
    helpers = PredicateHelpers()
    named = {call: helpers.helper_of(node_at(code, call, 1 if call in ("f_()", "A.ok(a)") else 0)) is not None
             for call in ("A.ok(a)", "self.ok()", "obj.ok()", "f_()", "torch.cuda.ok()")}
    assert named == {"A.ok(a)": True, "self.ok()": True, "obj.ok()": False, "f_()": True, "torch.cuda.ok()": False}


def test_a_helper_returns_a_test_or_a_helper_call_not_a_value():
    # Megatron's test helper `_prompt` returns a tensor made on torch.cuda.current_device(): no test of anything
    code = ("def _prompt(n):\n    return torch.arange(n, device=torch.cuda.current_device())\n\n"
            "def on_gpu():\n    return is_cuda_build()\n\n"
            "def is_cuda_build():\n    return torch.version.cuda is not None\n\n"
            "def device_of():\n    return torch.cuda.current_device()\n\n"
            "_prompt(3)\non_gpu()\ndevice_of()\n")
    helpers = PredicateHelpers()
    assert helpers.helper_of(node_at(code, "_prompt(3)")) is None
    assert helpers.helper_of(node_at(code, "on_gpu()", 1)) is not None  # a call of a helper that is a test
    assert helpers.helper_of(node_at(code, "device_of()", 1)) is None
    asserted = ("import torch\n\ndef _prompt(n):\n    return torch.arange(n, device=torch.cuda.current_device())\n\n"
                "def check(bs):\n    assert hashes(_prompt(bs)) == []\n"
                "    return torch.zeros(bs, device=torch.cuda.current_device())\n")
    assert [reach for _, reach in reaches(asserted, "DEV100")] == ["runs", "runs"]


def test_the_core_hands_the_units_definitions_so_no_query_of_their_own_runs(monkeypatch):
    # the analysis of a file reads its helpers from the unit's combined query (core.filework._unit_definitions): the
    # reader's own queries would fail to compile here
    from ascend_feasibility.analyzer.context import predicate_helpers

    monkeypatch.setattr(predicate_helpers, "DEFINITIONS", "(not_a_node_type) @function")
    monkeypatch.setattr(predicate_helpers, "CLASSES", "(not_a_node_type) @name")
    helper = "def supports_host_descriptor():\n    return is_cuda() and torch.cuda.get_device_capability()[0] >= 9\n\n"
    assert reaches(TRITON_IS_CUDA + helper + HOPPER + DESCRIPTOR_USE, "OPS032") == [(16, "cuda-only-guarded")]
    method = ("class Switch:\n    @staticmethod\n    def off(x):\n        return x.device.type != 'cuda'\n\n"
              "import flash_attn\n\ndef attend(q):\n    if Switch.off(q):\n        return q.softmax(-1)\n"
              "    else:\n        return flash_attn.flash_attn_func(q, q, q)\n")
    assert reaches(method, "ATT001") == [(12, "cuda-only-guarded")]


def test_definitions_given_for_another_tree_are_not_read():
    code = "def on_gpu():\n    return torch.version.cuda is not None\n\non_gpu()\n"
    other = node_at("def unrelated():\n    return 1\n", "unrelated", 0)
    helpers = PredicateHelpers()
    helpers.unit_definitions = lambda: (other.parent.parent, [other.parent], [])
    assert helpers.helper_of(node_at(code, "on_gpu()", 1)) is not None  # read from its own tree, not the one given
