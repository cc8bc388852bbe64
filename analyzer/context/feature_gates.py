"""A CUDA check whose body only turns on a CUDA-only feature (knowledge/device/cuda_features.toml): right as written.

show-o2 (round 23 A1 C3, A2 C4) writes `if torch.cuda.is_available(): flex_attention = torch.compile(flex_attention)`
in six modules. The check does not choose a device: it keeps torch.compile's CUDA inductor (a Triton template for
flex attention) CUDA-only, so on Ascend the eager function runs, which is right. Switching it to
`torch.npu.is_available()` would send the NPU into the CUDA feature; so would transfer_to_npu, which makes
torch.cuda.is_available() true there. Where nothing later in the module reads the name the body binds, the
compiled value is never called in this module at all (a dead store).

- `feature_call(call, imports)`: does a call name a CUDA-only feature (a graph capture, torch.compile, xformers or
  flash-attn, a wrapper named for one)? domains/device/cuda_features.py reads a CUDA arm with it too.
- `only_turns_feature_on(block, imports)`: the feature's names when every statement of the block is such a call or
  `name = <such a call>`, and every call in it (its arguments' too) is one: `torch.compile(model.cuda())` also moves
  a model, and is not only a feature's switch.
- `only_sets_switches(block, imports)`: every statement of the block assigns a CUDA backend switch
  (`torch.backends.cudnn.benchmark = True`, knowledge/context/conventions.toml cudnn switch_namespaces), or is an
  `if` without else whose body does only that (round 30 A2 row 67: SUPIR's enable_tf32).
- `unread_after(statement, names)`: no identifier of `names` outside `statement` and the module's imports, in a
  module-level statement: nothing in the module (a function defined before it included) reads the bound value.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.knowledge import load_context_conventions, load_cuda_features
from tree_sitter import Node

MAX_NODES = 2_000
MAX_DEPTH = 4  # nested ifs read by only_sets_switches
SWITCH_VALUES = frozenset({"true", "false", "identifier", "attribute", "integer"})  # a switch's value, not a call
MAX_MODULE_NODES = 200_000
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})


def names_wrapper(name: str) -> bool:
    """A callee named for a CUDA-only feature's wrapper (`CUDAGraphed`, `make_cuda_graph`), not an NPU one."""
    lowered = name.lower()
    return "npu" not in lowered and any(token in lowered for token in load_cuda_features().wrapper_tokens)


def feature_call(call: Node, imports: ImportTable) -> str | None:
    """The feature a call turns on (its qualified name or last part), or None."""
    table = load_cuda_features()
    function = call.child_by_field_name("function")
    if function is None:
        return None
    qualified = qualified_name(function, imports) or parsing.text(function)
    last = parsing.text(function).rsplit(".", 1)[-1]
    if qualified in table.feature_calls or qualified.split(".")[0] in table.feature_packages:
        return qualified
    if last in table.feature_methods or names_wrapper(last):
        return last
    return None


def only_turns_feature_on(block: Node, imports: ImportTable) -> list[str]:
    """The features the block turns on, where that is all it does (else [])."""
    statements = [s for s in block.named_children if s.type != "comment"]
    if not statements:
        return []
    for statement in statements:
        head = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if head is not None and head.type == "assignment":
            left, head = head.child_by_field_name("left"), head.child_by_field_name("right")
            if left is None or left.type not in {"identifier", "attribute"}:
                return []
        if head is None or head.type != "call":
            return []
    features = []
    for node in parsing.walk(block, limit=MAX_NODES, prune=_NESTED):
        if node.type == "call":
            feature = feature_call(node, imports)
            if feature is None:
                return []
            features.append(feature)
    return sorted(set(features))


def only_sets_switches(block: Node, imports: ImportTable, depth: int = 0) -> bool:
    """Does every statement of the block set a CUDA backend switch, directly or in an `if` without else (see the
    module's text)?"""
    statements = [s for s in block.named_children if s.type != "comment"]
    if not statements or depth > MAX_DEPTH:
        return False
    for statement in statements:
        if statement.type == "if_statement":
            body = statement.child_by_field_name("consequence")
            if statement.children_by_field_name("alternative") or body is None \
                    or not only_sets_switches(body, imports, depth + 1):
                return False
            continue
        if not sets_switch(statement, imports):
            return False
    return True


def sets_switch(statement: Node, imports: ImportTable) -> bool:
    """Is the statement `torch.backends.cudnn.deterministic = True` (an assignment of a plain value to a CUDA backend
    switch, knowledge/context/conventions.toml cudnn switch_namespaces)?"""
    head = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    if head is None or head.type != "assignment":
        return False
    left, right = head.child_by_field_name("left"), head.child_by_field_name("right")
    if left is None or left.type != "attribute" or right is None or right.type not in SWITCH_VALUES:
        return False
    namespaces = tuple(n + "." for n in load_context_conventions().cudnn.switch_namespaces)
    return (qualified_name(left, imports) or "").startswith(namespaces)


def bound_names(block: Node) -> list[str]:
    """The plain names the block's assignments bind (`flex_attention = torch.compile(flex_attention)`)."""
    names = []
    for statement in block.named_children:
        head = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        left = head.child_by_field_name("left") if head is not None and head.type == "assignment" else None
        if left is not None and left.type == "identifier":
            names.append(parsing.text(left))
    return names


def unread_after(statement: Node, names: list[str]) -> bool:
    """Is `statement` a module-level statement none of whose `names` any other statement of the module reads?"""
    if not names or statement.parent is None or statement.parent.type != "module":
        return False
    wanted = set(names)
    try:
        for node in parsing.walk(statement.parent, limit=MAX_MODULE_NODES, prune=_IMPORTS, strict=True):
            if node.type == "identifier" and parsing.text(node) in wanted and not _inside(node, statement) \
                    and not not_a_read(node):
                return False
            if node.type == "string" and parsing.text(node).strip("'\"") in wanted:
                return False  # `__all__ = ["flex_attention"]`, `getattr(module, "flex_attention")`: read by name
    except parsing.WalkLimit:
        return False  # too large to read whole: a read may be in what was not walked
    return True


def _inside(node: Node, statement: Node) -> bool:
    return statement.start_byte <= node.start_byte and node.end_byte <= statement.end_byte


def not_a_read(identifier: Node) -> bool:
    """A keyword's name (`flex_attention=`) or an attribute's (`self.flex_attention`): the same word, not the name."""
    parent = identifier.parent
    if parent is None:
        return False
    if parent.type == "keyword_argument":
        return parent.child_by_field_name("name") == identifier
    return parent.type == "attribute" and parent.child_by_field_name("attribute") == identifier
