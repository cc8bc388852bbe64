"""Capability reads behind a CUDA check that transfer_to_npu makes true: the check keeps nothing off Ascend there.

torch_npu's `get_device_capability` returns None unless TORCH_NPU_DEVICE_CAPABILITY is set (Ascend/pytorch
torch_npu/npu/__init__.py on v2.9.0-26.0.0 and v2.12.0-26.1.0; always None on v2.9.0-7.3.0 and in torch_npu/npu/utils.py
on v2.1.0-6.0.rc2), and its device properties leave `major`/`minor` empty. transfer_to_npu copies torch_npu.npu's
names (`is_available`, `device_count`, `get_device_capability` among them) onto torch.cuda and aliases
`Tensor.is_cuda` to `is_npu` (torch_npu/contrib/transfer_to_npu.py, same branches). So
`torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 10` is `None[0]` on an NPU under the shim:
a TypeError (unsloth's attention_dispatch.py runs it at import). Such a check is no CUDA-only guard for a read of the
value (an index, an unpacking, an ordering comparison):
- nothing catches the TypeError: the site runs (the rule's severity);
- a handler of its function catches it (`except Exception: return False`): the check answers False on NPU, so what it
  gates is off there (a trainer's bf16 test, a kernel choice): `optional`, and the reason says why.
A check the shim leaves false for NPU (`x.device.type == "cuda"`, `torch.version.cuda`, a "cuda" string) or one that
also tests something else keeps its guard."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import MAX_DEPTH, Guard
from ascend_feasibility.analyzer.context.predicate_helpers import PredicateHelpers
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

# torch.cuda probes transfer_to_npu answers with torch_npu's (true on an NPU host, for NPU tensors)
SHIM_PROBES = frozenset({"is_available", "is_cuda", "device_count"})
# what else a CUDA check may name and stay one of those probes (`not torch.cuda.is_available()`, `device_count() > 0`)
PROBE_WORDS = SHIM_PROBES | {"torch", "cuda", "not", "and", "or"}
CATCHES_TYPE_ERROR = frozenset({"TypeError", "Exception", "BaseException"})
ORDERING = frozenset({"<", ">", "<=", ">="})
ITERATING = frozenset({"tuple", "list", "max", "min"})
CONDITIONS = {"if_statement", "elif_clause", "while_statement"}
SCOPES = {"function_definition", "class_definition", "module", "lambda"}
MAX_CONDITION_NODES = 200
MAX_HELPER_DEPTH = 4  # predicate helpers read through helpers they call


def shim_guard(guard: Guard, site: Node, predicates: PredicateHelpers | None = None) -> Guard | None:
    """`guard` (cuda-only-guarded, for a capability read at `site`) as it stands under transfer_to_npu: None where the
    site runs there, an `optional` guard where a handler catches the TypeError, `guard` itself otherwise."""
    value = _value(site)
    if not _read(value):
        return guard
    probe = _shim_probe(guard.node, site, predicates)
    if probe is None:
        return guard
    where = f"the CUDA check at line {guard.node.start_point.row + 1} ({probe}) is true on an NPU under transfer_to_npu"
    handler = _catching_handler(value)
    if handler is None:
        return None
    return Guard("optional", handler, f"{where}, and the query returns None there: the TypeError is caught here, so "
                                      "the check answers False on NPU and what it gates is off")


def _value(site: Node) -> Node:
    """The expression whose value is the query's: the call of `torch.cuda.get_device_capability`, the attribute read
    `props.major`."""
    node, depth = site, 0
    while node.parent is not None and depth < 4:
        parent = node.parent
        if parent.type == "call" and parent.child_by_field_name("function") == node:
            node = parent
        elif parent.type in {"attribute", "parenthesized_expression"} and parent.named_children[0] == node:
            node = parent
            if parent.type == "attribute":
                break
        else:
            break
        depth += 1
    return node


def _read(value: Node) -> bool:
    """Is the value indexed, unpacked, iterated or ordered (what None cannot do)?"""
    parent = value.parent
    while parent is not None and parent.type == "parenthesized_expression":
        value, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "subscript":
        return parent.child_by_field_name("value") == value
    if parent.type == "comparison_operator":
        return any(not c.is_named and parsing.text(c) in ORDERING for c in parent.children)
    if parent.type == "argument_list" and len(parent.named_children) == 1 and parent.parent is not None:
        function = parent.parent.child_by_field_name("function")  # `tuple(capability)`: iterates it
        return function is not None and parsing.text(function) in ITERATING
    if parent.type == "assignment" and parent.child_by_field_name("right") == value:
        left = parent.child_by_field_name("left")
        return left is not None and left.type in {"pattern_list", "tuple_pattern", "list_pattern"}
    return False


def _shim_probe(statement: Node, site: Node, predicates: PredicateHelpers | None = None) -> str | None:
    """The shim-true probe the deciding statement's condition consists of (`torch.cuda.is_available`), when it tests
    nothing else: every name it calls or reads outside the site is a probe's."""
    condition = statement.child_by_field_name("condition") if statement.type in CONDITIONS else (
        statement if statement.type == "boolean_operator" else None)
    if condition is None:
        return None
    return _probe_of(condition, site, predicates, 0)


def _probe_of(condition: Node, site: Node, predicates: PredicateHelpers | None, depth: int) -> str | None:
    """A call of a predicate helper of the file (`is_cuda()` returning `triton.runtime.driver.active.
    get_current_target().backend == "cuda"`, predicate_helpers.py) is read as the test it returns: Triton's driver
    backend is no torch.cuda name, so the shim leaves it false for an NPU."""
    probe = None
    for node in parsing.walk(condition, limit=MAX_CONDITION_NODES, prune=lambda n: n == site or n.type == "string"):
        if node.type == "string":
            return None  # `device.type == "cuda"`: a test the shim leaves false
        if site.start_byte <= node.start_byte and node.end_byte <= site.end_byte:
            continue
        if node.type == "identifier":
            word = parsing.text(node)
            helper = _helper_called(node, predicates)
            if helper is not None:
                found = _probe_of(helper, site, predicates, depth + 1) if depth < MAX_HELPER_DEPTH else None
                if found is None:
                    return None
                probe = probe or found.removeprefix("torch.cuda.").removesuffix("()").lstrip(".")
            elif word in SHIM_PROBES:
                probe = word
            elif word not in PROBE_WORDS and not _inside_capability_read(node, site):
                return None
    return probe and ("torch.cuda." + probe + "()" if probe != "is_cuda" else ".is_cuda")


def _helper_called(name: Node, predicates: PredicateHelpers | None) -> Node | None:
    """The expression a bare call `name(...)` of a predicate helper of the file returns (None for anything else)."""
    call = name.parent
    if predicates is None or call is None or call.type != "call" or call.child_by_field_name("function") != name:
        return None
    return predicates.helper_of(call)


def _inside_capability_read(node: Node, site: Node) -> bool:
    """A name of the read's own expression (`torch.cuda.get_device_capability()[0] >= 10` around the site)."""
    value = _value(site)
    current, depth = value, 0
    while current is not None and depth < 6:
        if current.type in {"boolean_operator", "not_operator"} | CONDITIONS:
            return False
        if current.start_byte <= node.start_byte and node.end_byte <= current.end_byte:
            return True
        current, depth = current.parent, depth + 1
    return False


def _catching_handler(node: Node) -> Node | None:
    """The except clause of the enclosing function whose try body holds `node` and that catches a TypeError."""
    child, current, depth = node, node.parent, 0
    while current is not None and depth < MAX_DEPTH and current.type not in SCOPES:
        if current.type == "try_statement" and child.type == "block":
            for clause in current.named_children:
                if clause.type == "except_clause" and _catches_type_error(clause):
                    return clause
        child, current, depth = current, current.parent, depth + 1
    return None


def _catches_type_error(clause: Node) -> bool:
    caught = []
    for child in clause.named_children:
        if child.type == "block":
            break
        caught += [parsing.text(n) for n in parsing.walk(child, limit=50) if n.type == "identifier"]
    return not caught or bool(CATCHES_TYPE_ERROR.intersection(caught))
