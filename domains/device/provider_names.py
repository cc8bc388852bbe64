"""Device names that are ONNX Runtime provider choices, not torch devices (round 27 A2 C9, A1 C3): `onnx_provider =
kwargs.get("onnx_provider", "cuda")` read only by `if onnx_provider.lower() == "cuda": InferenceSession(...,
providers=["CUDAExecutionProvider"])`, or `device = "cuda"` passed only as `Runner(onnx_provider=device)`. The string
selects ONNX Runtime's NVIDIA provider (analyzer/context/runtime_providers.py); "npu" there would only drop into the
CPU-provider arm by accident. Ascend's provider is CANNExecutionProvider (onnxruntime-cann).

The literal is the value assigned to a name (or the default of a `.get(key, "cuda")` assigned to it), and every read
of that name in its scope (the enclosing function, else the module) is a comparison in a condition whose arm or value
names a CUDA execution provider, or the value of a keyword argument whose name says provider. One other read (a
`torch.device(name)`, a `.to(name)`) makes it a torch device again."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.runtime_providers import cuda_provider_named
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 20_000  # the walk over one scope
_SCOPES = frozenset({"function_definition", "module"})
_CONDITIONS = frozenset({"if_statement", "elif_clause", "conditional_expression"})
PROVIDER_KEYWORD = "provider"  # onnx_provider=, providers=, execution_provider=


def names_runtime_provider(literal: Node) -> bool:
    """Is the device literal an ONNX Runtime provider choice (see the module's text)?"""
    target = _assigned_name(literal)
    if target is None:
        return False
    scope = parsing.enclosing(literal, _SCOPES)
    if scope is None:
        return False
    name = parsing.text(target)
    reads = [n for n in parsing.walk(scope, limit=MAX_NODES, enter_root=True)
             if n.type == target.type and parsing.text(n) == name and not _written(n)]
    return bool(reads) and all(_provider_read(read) for read in reads)


def _assigned_name(literal: Node) -> Node | None:
    """The identifier or `self.x` the literal is assigned to, directly or as the default of a `.get(key, literal)`."""
    value = literal
    holder = literal.parent
    if holder is not None and holder.type == "argument_list" and holder.parent is not None \
            and holder.parent.type == "call":
        function = holder.parent.child_by_field_name("function")
        arguments = [c for c in holder.named_children if c.type != "comment"]
        if function is None or function.type != "attribute" \
                or parsing.text(function.child_by_field_name("attribute")) != "get" \
                or len(arguments) != 2 or arguments[1] != literal:
            return None
        value, holder = holder.parent, holder.parent.parent
    if holder is None or holder.type != "assignment" or holder.child_by_field_name("right") != value:
        return None
    left = holder.child_by_field_name("left")
    return left if left is not None and left.type in {"identifier", "attribute"} else None


def _written(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type in {"assignment", "augmented_assignment"} \
        and parent.child_by_field_name("left") == node


def _provider_read(read: Node) -> bool:
    """A comparison inside a condition whose arm (or conditional value) names a CUDA execution provider, or the
    value of a provider keyword argument."""
    parent = read.parent
    if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("value") == read:
        return PROVIDER_KEYWORD in parsing.text(parent.child_by_field_name("name")).lower()
    node = read
    while node is not None and node.type != "comparison_operator":
        if node.type in {"block", "module", "expression_statement"}:
            return False
        node = node.parent
    if node is None:
        return False
    condition = node
    while condition.parent is not None and condition.parent.type not in _CONDITIONS:
        if condition.parent.type in {"block", "module", "expression_statement"}:
            return False
        condition = condition.parent
    holder = condition.parent
    if holder is None:
        return False
    if holder.type == "conditional_expression":
        return cuda_provider_named(holder) is not None
    return cuda_provider_named(holder.child_by_field_name("consequence")) is not None


def beside_provider_choice(test: Node) -> bool:
    """Is the device test (`d == "cuda"`) inside one keyword argument of a call whose other keyword argument makes
    the same test to pick a CUDA execution provider, while its own keyword names none (round 30 B2 row 31:
    `FaceAnalysis(providers=['CUDAExecutionProvider' if d == 'cuda' else 'CPUExecutionProvider'],
    provider_options=[{'device_id': i}] if d == 'cuda' else [])`)? Both tests choose one ONNX Runtime session's
    provider and its options: the provider's keyword carries the finding, and the two are ported together or not at
    all (analyzer/port/core.py leaves a provider pick)."""
    keyword = test.parent
    while keyword is not None and keyword.type != "keyword_argument":
        if keyword.type in {"block", "module", "expression_statement", "lambda", "call"}:
            return False
        keyword = keyword.parent
    if keyword is None or keyword.parent is None or keyword.parent.type != "argument_list":
        return False
    own = keyword.child_by_field_name("value")
    if own is None or cuda_provider_named(own) is not None:
        return False
    wanted = " ".join(parsing.text(test).split())
    for sibling in keyword.parent.named_children:
        value = sibling.child_by_field_name("value") if sibling.type == "keyword_argument" else None
        if sibling == keyword or value is None or cuda_provider_named(value) is None:
            continue
        if any(n.type == "comparison_operator" and " ".join(parsing.text(n).split()) == wanted
               for n in parsing.walk(value, limit=MAX_NODES)):
            return True
    return False
