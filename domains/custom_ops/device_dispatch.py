"""C++ device dispatch that knows CPU and CUDA only.

An op's host function that picks its implementation by device (`if (x.is_cuda()) {...CUDA...} else {CHECK_CPU(x);
...Cpu...}`, pytorch3d csrc/*/*.h) or checks that a tensor is on one of them (`TORCH_CHECK_ARG(device.type() ==
c10::DeviceType::CUDA || device.type() == c10::DeviceType::CPU, ...)`, pytorch3d pulsar renderer.cpp:98). An NPU
tensor's device type is PrivateUse1 (torch_npu's DeviceUtils.h: `is_npu(tensor)` is `tensor.is_privateuseone()`), so
in C++ it is neither `is_cuda()` nor `is_cpu()` (transfer_to_npu patches Python only): it takes the CPU arm, where a
CHECK_CPU fails it or a data_ptr read touches device memory from the host, or it fails the check. Reported once per
test, unless the test or its else-if chain already names the NPU. A test inside `#ifdef WITH_CUDA` counts too:
without it the build without CUDA sends every tensor, an NPU one included, down the CPU path.

The converse shape is a device choice that knows CPU and CUDA only: a test for the CPU (`== "cpu"`, `kCPU`) whose one
arm picks the CPU and whose other arm picks CUDA for every other device (torchchat runner/run.cpp:868,
`aoti_metadata["AOTI_DEVICE_KEY"] == "cpu" ? torch::Device(torch::kCPU) : torch::Device(torch::kCUDA)`): an NPU model
or tensor is put on CUDA (facet `maps-to-cuda`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit, Scanner, Span, Unit
from ascend_feasibility.domains.rule_index import RuleIndex
from tree_sitter import Node

QUERY = r"""
(if_statement condition: (_) @test)
(conditional_expression condition: (_) @pick)
((call_expression function: (identifier) @check arguments: (argument_list . (_) @checked)) (#match? @check "^[A-Z_]*(CHECK|ASSERT)[A-Z_]*$"))
"""
CUDA_METHODS = frozenset({"is_cuda"})
CPU_METHODS = frozenset({"is_cpu"})
NPU_METHODS = frozenset({"is_privateuseone", "is_npu"})
CUDA_NAMES = frozenset({"kCUDA", "CUDA"})  # at::kCUDA, c10::DeviceType::CUDA
CPU_NAMES = frozenset({"kCPU", "CPU"})
NPU_NAMES = frozenset({"kPrivateUse1", "PrivateUse1"})
NAMES = ("identifier", "field_identifier", "namespace_identifier", "type_identifier")
LEAVES = ("return_statement", "throw_statement")
STATEMENT_LISTS = {"compound_statement", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
ERRORS = frozenset({"AT_ERROR", "TORCH_CHECK_NOT_IMPLEMENTED"})
CHECKS = frozenset({"TORCH_CHECK", "AT_ASSERTM", "AT_ASSERT", "TORCH_INTERNAL_ASSERT"})
MAX_NODES = 400  # a test is a short expression: a longer one is read no further
MAPS_TO_CUDA = "maps-to-cuda"


class CppDeviceDispatchScanner(Scanner):
    domain = "custom_ops"
    kinds = frozenset({"cpp", "cuda"})
    triggers = ("is_cuda", "kCUDA", "DeviceType::CUDA")

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.code = RuleIndex(kb, "custom_ops").code_for("cpp-device-dispatch-cpu-cuda")

    def scan(self, unit: Unit) -> list[Hit]:
        if unit.path.endswith(".cu"):
            return []  # only nvcc compiles it: an NPU tensor never reaches its tests
        found = parsing.captures(parsing.query(unit.kind, QUERY), unit.tree())
        hits = []
        for test in found.get("test", []):
            branch = test.parent
            words = _devices(test)
            if branch.parent is not None and branch.parent.type == "else_clause":
                continue  # an else-if of a chain: its head is the dispatch
            alternative = branch.child_by_field_name("alternative")
            if "cuda" not in words and alternative is not None and not any(
                    c.type == "if_statement" for c in alternative.named_children) \
                    and _maps_to_cuda(test, branch.child_by_field_name("consequence"), alternative):
                hits.append(Hit(self.code, _symbol(test.named_children[0] if test.named_children else test),
                                Span.of(test), facets=(MAPS_TO_CUDA,)))
                continue
            if "cuda" not in words or "npu" in words or _in_npu_chain(branch) or not _has_other_arm(branch):
                continue
            hits.append(Hit(self.code, _symbol(test.named_children[0] if test.named_children else test), Span.of(test)))
        for test in found.get("pick", []):
            choice = test.parent
            if _maps_to_cuda(test, choice.child_by_field_name("consequence"), choice.child_by_field_name("alternative")):
                hits.append(Hit(self.code, _symbol(choice), Span.of(choice), facets=(MAPS_TO_CUDA,)))
        for checked in found.get("checked", []):
            words = _devices(checked)
            if {"cuda", "cpu"} <= words and "npu" not in words and _either(checked):
                hits.append(Hit(self.code, _symbol(checked), Span.of(checked)))
        return hits


def _devices(node: Node) -> set[str]:
    """The devices an expression tests: `x.is_cuda()`, `== c10::DeviceType::CUDA`, `at::kCPU`, `is_privateuseone()`."""
    found = set()
    for current in parsing.walk(node, limit=MAX_NODES, named=False):
        if current.type in NAMES:
            name = parsing.text(current)
            if name in CUDA_METHODS or name in CUDA_NAMES:
                found.add("cuda")
            elif name in CPU_METHODS or name in CPU_NAMES:
                found.add("cpu")
            elif name in NPU_METHODS or name in NPU_NAMES or _names_npu(name):
                found.add("npu")
    return found


def _maps_to_cuda(test: Node, first: Node | None, second: Node | None) -> bool:
    """A test for the CPU (`device == "cpu"`, `== at::kCPU`) that names neither CUDA nor the NPU, one arm of which names
    the CPU device and the other CUDA, neither the NPU: every device that is not the CPU is taken for CUDA."""
    if first is None or second is None:
        return False
    words = _devices(test)
    if "cuda" in words or "npu" in words or not ("cpu" in words or _names_cpu_string(test)):
        return False
    arms = (_devices(first), _devices(second))
    return not any("npu" in arm for arm in arms) and {frozenset(arm) for arm in arms} == {
        frozenset({"cpu"}), frozenset({"cuda"})}


def _names_cpu_string(node: Node) -> bool:
    """A "cpu" string literal in the expression (a device name read from a config or a model's metadata)."""
    return any(current.type == "string_literal" and parsing.text(current).strip('"').lower() == "cpu"
               for current in parsing.walk(node, limit=MAX_NODES))


def _names_npu(name: str) -> bool:
    """`is_npu`, `npu_forward`, `kNPU`, `useNpu`; not `input`."""
    return any(part.startswith("npu") for part in name.lower().split("_")) or name.endswith(("NPU", "Npu"))


def _either(node: Node) -> bool:
    """A check that admits one device or the other: `a || b` at its top."""
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    return operator is not None and operator.type == "||"


def _has_other_arm(branch: Node) -> bool:
    """A CPU arm: an else arm, or what follows a then-arm that leaves the function (`if (x.is_cuda()) return cuda(x);
    return cpu(x);`), that does more than raise (InternImage dcnv3.h: `AT_ERROR("Not implemented on the CPU")` after
    the CUDA arm is no CPU arm: the kernel's own finding carries that op's port)."""
    alternative = branch.child_by_field_name("alternative")
    if alternative is not None:
        statements = [c for c in alternative.named_children if c.type != "comment"]
        if len(statements) == 1 and statements[0].type == "compound_statement":
            statements = [c for c in statements[0].named_children if c.type != "comment"]
        return not all(_raises(s) for s in statements)
    body = branch.child_by_field_name("consequence")
    if body is None or not _leaves(body, 0):
        return False
    after = parsing.next_code_sibling(branch)
    return after is not None and not _raises(after)


def _raises(statement: Node) -> bool:
    """`throw ...;`, `AT_ERROR(...);`, `TORCH_CHECK(false, ...);`."""
    if statement.type == "throw_statement":
        return True
    call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    if call is None or call.type != "call_expression":
        return False
    name = parsing.text(call.child_by_field_name("function"))
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return name in ERRORS or (name in CHECKS and first is not None and parsing.text(first) in {"false", "0"})


def _leaves(node: Node, depth: int) -> bool:
    """A return or throw among the statements, also inside a preprocessor arm (`#ifdef WITH_CUDA return ...Cuda(x);
    #else AT_ERROR(...); #endif`, pytorch3d knn.h:67)."""
    if node.type in LEAVES:
        return True
    if depth > 4 or node.type not in STATEMENT_LISTS:
        return False
    return any(_leaves(child, depth + 1) for child in node.named_children)


def _in_npu_chain(branch: Node) -> bool:
    """Does an else-if of the chain test the NPU (`else if (x.is_privateuseone())`)?"""
    current = branch
    while current is not None and current.type == "if_statement":
        alternative = current.child_by_field_name("alternative")
        nested = next((c for c in alternative.named_children if c.type == "if_statement"), None) if alternative else None
        if nested is None:
            return False
        test = nested.child_by_field_name("condition")
        if test is not None and "npu" in _devices(test):
            return True
        current = nested
    return False


def _symbol(node: Node) -> str:
    text = " ".join(parsing.text(node).split())
    return text if len(text) <= 80 else text[:77] + "..."
