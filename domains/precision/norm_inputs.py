"""Dtype assertions on a norm layer's own input: the same on every device.

PRC005 is for asserts whose dtype the NPU changes: an NPU fused-op replacement (npu_rms_norm, npu_layer_norm...) or an
NPU autocast list that differs from CUDA's decides the dtype of what an op returns. A norm layer that asserts the dtype
of its own forward argument (mmdetection3d's NaiveSyncBatchNorm2d, `assert input.dtype == torch.float32`; round 37 A1
C5 row 35, B2 C5 row 32) checks what its caller passes before any op of its own runs, and with no autocast in the
forward there is nothing the NPU casts in between: the check holds or fails as on CUDA.

The assertion counts as such when every `<name>.dtype` it reads is a parameter of the enclosing `forward` not bound
again before the assertion, the class is a norm layer (its name or a base names a Norm), and the forward enters no
autocast (a call or a decorator whose name ends in `autocast`, or `custom_fwd`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

AUTOCAST_WORDS = ("autocast", "custom_fwd")
MAX_NODES = 4000
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})


def norm_input_assertion(assertion: Node) -> bool:
    """Does the assertion only pin the dtype of a norm layer's own forward arguments, with no autocast around?"""
    function = assertion.parent
    while function is not None and function.type not in _NESTED:
        function = function.parent
    if function is None or function.type != "function_definition" or not _in_norm_class(function):
        return False
    operands = _dtype_operands(assertion)
    if not operands or not operands <= _parameters(function):
        return False
    body = function.child_by_field_name("body")
    nodes = list(parsing.walk(body, limit=MAX_NODES, prune=_NESTED)) if body is not None else []
    for node in nodes:
        if node.type == "assignment" and node.start_byte < assertion.start_byte:
            left = node.child_by_field_name("left")
            if left is not None and operands & {parsing.text(n) for n in parsing.walk(left, limit=50) if n.type == "identifier"}:
                return False  # the argument is rebound (cast, computed) before it is checked
        if node.type == "call" and _autocast(node.child_by_field_name("function")):
            return False
    decorated = function.parent if function.parent is not None and function.parent.type == "decorated_definition" else None
    return decorated is None or not any(_autocast(d) for d in decorated.named_children if d.type == "decorator")


def _in_norm_class(function: Node) -> bool:
    owner = function.parent
    while owner is not None and owner.type not in {"class_definition", "function_definition", "module"}:
        owner = owner.parent
    if owner is None or owner.type != "class_definition":
        return False
    words = [parsing.text(owner.child_by_field_name("name"))]
    bases = owner.child_by_field_name("superclasses")
    words += [parsing.text(b) for b in (bases.named_children if bases is not None else [])]
    return any("norm" in word.rsplit(".", 1)[-1].lower() for word in words)


def _dtype_operands(assertion: Node) -> set[str]:
    """The names whose `.dtype` the assertion reads; empty if one is not a plain name (`self.w.dtype`, `f(x).dtype`)."""
    names = set()
    for node in parsing.walk(assertion, limit=MAX_NODES):
        if node.type == "attribute" and parsing.text(node.child_by_field_name("attribute")) == "dtype":
            owner = node.child_by_field_name("object")
            if owner is None or owner.type != "identifier":
                return set()
            names.add(parsing.text(owner))
    return names


def _parameters(function: Node) -> set[str]:
    parameters = function.child_by_field_name("parameters")
    names = set()
    for child in parameters.named_children if parameters is not None else []:
        target = child if child.type == "identifier" else child.child_by_field_name("name") or (
            child.named_children[0] if child.named_children else None)
        if target is not None and target.type == "identifier":
            names.add(parsing.text(target))
    return names - {"self", "cls", "ctx"}


def _autocast(node: Node | None) -> bool:
    if node is None:
        return False
    text = parsing.text(node.named_children[0] if node.type == "decorator" and node.named_children else node)
    return text.split("(", 1)[0].rsplit(".", 1)[-1].startswith(AUTOCAST_WORDS)
