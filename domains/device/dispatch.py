"""Backend dispatch chains without an NPU arm.

An `if/elif` chain whose conditions name CUDA and at least one other accelerator backend (ROCm, XPU, MPS, MLU,
HPU, MUSA, XLA), in two or more of its arms, picks a device, a platform, its dependencies or a per-device property (the core count used for
kernel grids) backend by backend: the code is built for more than one backend and the NPU needs its own arm. The
chain is reported once, at its head, unless one of its conditions, or a condition it is nested in, already names
the NPU (or Ascend)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from ascend_feasibility.domains.python_words import words
from tree_sitter import Node

QUERY = r"""
(if_statement alternative: (elif_clause)) @chain
"""

CUDA_WORDS = {"cuda"}
OTHER_BACKENDS = {"rocm", "hip", "xpu", "mps", "mlu", "hpu", "musa", "xla"}
NPU_WORDS = {"npu", "ascend"}


class _DispatchScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list[Hit]:
        for chain in self.captures().get("chain", []):
            arms = chain_arms(chain)
            per_arm = [words(condition) for condition, _ in arms]
            named = set().union(*per_arm)
            backends = sum(1 for arm in per_arm if arm & (CUDA_WORDS | OTHER_BACKENDS))
            if backends < 2 or not named & CUDA_WORDS or not named & OTHER_BACKENDS or not lacks_npu_arm(chain):
                continue
            if any(selects_cuda_extension(body) for _, body in arms):
                continue  # a build branch: the custom_ops domain reports it (OPS062)
            if _generic_default(chain, arms):
                continue  # `else: device = torch.device(try_device)`: any other device, "npu" included, is served
            names = ", ".join(sorted((named & (CUDA_WORDS | OTHER_BACKENDS))))
            head = arms[0][0]
            self.hit("backend-dispatch-without-npu", f"{' '.join(parsing.text(head).split())[:80]} ({names})", head)
        return self.hits


def _generic_default(chain: Node, arms: list[tuple[Node, Node]]) -> bool:
    """The chain's else branch builds a device from the very name the arms compare (lerobot's
    get_safe_torch_device: `else: device = torch.device(try_device)`), so a device it does not list still works."""
    others = [c for c in chain.children_by_field_name("alternative") if c.type == "else_clause"]
    body = others[0].child_by_field_name("body") if others else None
    if body is None:
        return False
    subjects = {parsing.text(n) for condition, _ in arms for n in _compared_names(condition)}
    for call in parsing.captures(parsing.query("python", "(call) @call"), body).get("call", []):
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if (function is not None and parsing.text(function).endswith("device") and arguments is not None
                and arguments.named_children and parsing.text(arguments.named_children[0]) in subjects):
            return True
    return False


def _compared_names(condition: Node) -> list[Node]:
    """The names a condition tests (`try_device` of `try_device.startswith("cuda")` or `try_device == "mps"`)."""
    found, stack = [], [condition]
    while stack and len(found) < 20:
        current = stack.pop()
        if current.type == "identifier":
            found.append(current)
        elif current.type == "attribute":
            found.append(current)
            stack.append(current.child_by_field_name("object"))
        else:
            stack.extend(current.named_children)
    return found


def chain_arms(chain: Node) -> list[tuple[Node, Node]]:
    """(condition, body) of the `if` and each `elif` of a chain."""
    arms = []
    for clause in [chain] + [c for c in chain.children_by_field_name("alternative") if c.type == "elif_clause"]:
        condition, body = clause.child_by_field_name("condition"), clause.child_by_field_name("consequence")
        if condition is not None and body is not None:
            arms.append((condition, body))
    return arms


def lacks_npu_arm(chain: Node) -> bool:
    """No condition of the chain, nor one it is nested in, names the NPU or Ascend."""
    return not any(words(condition) & NPU_WORDS for condition, _ in chain_arms(chain)) and not _inside_npu_branch(chain)


def selects_cuda_extension(body: Node) -> bool:
    """The branch names CUDAExtension without calling it (`extension = CUDAExtension`): a build chosen by backend
    whose calls OPS020 does not see."""
    named = called = False
    stack = [body]
    while stack:
        current = stack.pop()
        if current.type == "identifier" and parsing.text(current) == "CUDAExtension":
            parent = current.parent
            if parent is not None and parent.type == "attribute":
                parent = parent.parent if parent.child_by_field_name("attribute") == current else None
            if parent is not None and parent.type == "call":
                called = True
            elif parent is not None and parent.type not in {"dotted_name", "aliased_import"}:
                named = True
        stack.extend(current.named_children)
    return named and not called


def _inside_npu_branch(node: Node) -> bool:
    """Inside a branch of a condition that names the NPU (`if x.device.type != "npu": <chain> else: <NPU path>`)."""
    current = node.parent
    while current is not None:
        if current.type in {"if_statement", "elif_clause"}:
            condition = current.child_by_field_name("condition")
            if condition is not None and words(condition) & NPU_WORDS:
                return True
        current = current.parent
    return False


class BackendDispatchScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("xpu", "mps", "rocm", "mlu", "hpu", "musa", "hip", "xla")
    scan_class = _DispatchScan
