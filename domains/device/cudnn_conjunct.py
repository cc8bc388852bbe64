"""A CUDA availability check `and`-ed with a probe of the cuDNN build: False on Ascend even under transfer_to_npu.

`torch.device('cuda' if torch.cuda.is_available() and torch.backends.cudnn.is_available() else 'cpu')` (round 31 A1
class 7): transfer_to_npu makes `torch.cuda.is_available()` answer for the NPU, but it patches torch.cuda, torch.cuda.amp
and torch.cuda.random only, not torch.backends.cudnn (Ascend/pytorch v2.12.0-26.1.0 torch_npu/contrib/transfer_to_npu.py
`_patch_cuda`). torch's `cudnn.is_available()` returns `torch._C._has_cudnn` and `cudnn.version()` returns None when
torch._C has no `_cudnn` (pytorch v2.12.0 torch/backends/cudnn/__init__.py): both are false on the CPU torch wheel
torch_npu installs over. So the conjunction is False on the NPU with the shim or without it, and the code takes the
other arm (the CPU). `torch.backends.cudnn.enabled` is not such a probe: it reads the global flag, True on every build.

The probes are knowledge (knowledge/context/conventions.toml [guards] shim_false_probes); DEV104 reads the facet
`cudnn-conjunct` (knowledge/device/rules_torch_cuda.toml): no automatic site, rewrite, medium."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

CUDNN_CONJUNCT = "cudnn-conjunct"
MAX_TERMS = 32  # terms of one `and` chain read


def cudnn_conjunct(check: Node, imports: ImportTable) -> str | None:
    """The probe (`torch.backends.cudnn.is_available`) `and`-ed positively with the call `check`, in the same
    `and` chain (through parentheses), or None. A probe under `not`, or in an `or` beside the check, is no conjunct:
    there the check alone can still decide."""
    probes = frozenset(load_context_conventions().guards.shim_false_probes)
    if not probes:
        return None
    top = check
    while top.parent is not None and (top.parent.type == "parenthesized_expression" or _is_and(top.parent)):
        top = top.parent
    if top is check:
        return None
    for term in _and_terms(top):
        if term.type != "call" or term.id == check.id:
            continue
        function = term.child_by_field_name("function")
        name = qualified_name(function, imports) if function is not None else None
        if name in probes:
            return name
    return None


def _is_and(node: Node) -> bool:
    operator = node.child_by_field_name("operator")
    return node.type == "boolean_operator" and operator is not None and parsing.text(operator) == "and"


def _and_terms(node: Node) -> list[Node]:
    """The terms of the `and` chain `node`, parentheses dropped."""
    terms, pending = [], [node]
    while pending and len(terms) < MAX_TERMS:
        current = pending.pop()
        if current.type == "parenthesized_expression" and current.named_children:
            pending.append(current.named_children[0])
        elif _is_and(current):
            pending.extend(child for child in (current.child_by_field_name("left"),
                                               current.child_by_field_name("right")) if child is not None)
        else:
            terms.append(current)
    return terms
