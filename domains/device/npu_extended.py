"""A device collection its own module or function extends with the NPU: `dp_factory = {'cuda': MMDataParallel, 'cpu':
MMDataParallel}` at module level, then `dp_factory['npu'] = NPUDataParallel` in build_dp's `if device == 'npu':` arm
before `dp_factory[device]` (mmrotate's and mmtracking's util_distribution.py, round 40 A1 class 2 and B2 class 1).
The table already serves the NPU where it is looked up, so its missing "npu" row is no gap (DEV009 is not reported).

The collection is the value of a plain `NAME = <collection>`; the extension is, anywhere in the same scope (the
module for a module-level name, since its functions run after it is bound; the function for a local one):
`NAME['npu'] = ...`, `NAME.update({'npu': ...})` or `NAME.update(npu=...)`, `NAME.add('npu')`, `NAME.append('npu')`,
`NAME.insert(i, 'npu')`, `NAME.setdefault('npu', ...)`, `NAME.extend([..., 'npu'])` or `NAME += [..., 'npu']`.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device.literals import names_npu
from tree_sitter import Node

EXTENDERS = frozenset({"update", "add", "append", "insert", "setdefault", "extend"})
MAX_NODES = 100_000
NPU = "npu"


def extended_with_npu(collection: Node) -> bool:
    """Whether the collection, bound to a name, has an "npu" item or key added to it in the name's scope."""
    assignment = collection.parent
    left = assignment.child_by_field_name("left") if assignment is not None and assignment.type == "assignment" else None
    if left is None or left.type != "identifier" or assignment.child_by_field_name("right") != collection:
        return False
    name = left.text
    scope = _scope(assignment)
    try:
        return any(node.type == "identifier" and node.text == name and _adds_npu(node) and not _shadowed(node, scope)
                   for node in parsing.walk(scope, limit=MAX_NODES, strict=True))
    except parsing.WalkLimit:
        return False


def _scope(node: Node) -> Node:
    """The function the node is in, or the module."""
    while node.parent is not None and node.type not in {"function_definition", "lambda"}:
        node = node.parent
    return node


def _shadowed(name: Node, scope: Node) -> bool:
    """`name` is, in a function inside `scope`, that function's own binding: a parameter, or a name it assigns without
    `global` (`def extend(factory): factory['npu'] = ...` extends its argument, not the module's table)."""
    text, node = name.text, name.parent
    while node is not None and node != scope:
        if node.type in {"function_definition", "lambda"}:
            parameters = node.child_by_field_name("parameters")
            if parameters is not None and any(n.type == "identifier" and n.text == text
                                              for n in parsing.walk(parameters, limit=MAX_NODES)):
                return True
            body = node.child_by_field_name("body")
            inner = list(parsing.walk(body, limit=MAX_NODES)) if body is not None else []
            declared = any(n.type == "global_statement" and any(c.text == text for c in n.named_children) for n in inner)
            if not declared and any(n.type == "assignment" and n.child_by_field_name("left") is not None
                                    and n.child_by_field_name("left").text == text for n in inner):
                return True
        node = node.parent
    return False


def _adds_npu(name: Node) -> bool:
    """`name` is the object of a statement adding an "npu" key or item (the module docstring's forms)."""
    parent = name.parent
    if parent is None:
        return False
    if parent.type == "subscript" and parent.child_by_field_name("value") == name:
        target = parent.parent
        return target is not None and target.type == "assignment" and target.child_by_field_name("left") == parent \
            and any(names_npu(key) for key in parent.children_by_field_name("subscript"))
    if parent.type == "augmented_assignment" and parent.child_by_field_name("left") == name:
        return _holds_npu(parent.child_by_field_name("right"))
    if parent.type != "attribute" or parent.child_by_field_name("object") != name:
        return False
    call = parent.parent
    method = parent.child_by_field_name("attribute")
    if call is None or call.type != "call" or method is None or parsing.text(method) not in EXTENDERS:
        return False
    arguments = call.child_by_field_name("arguments")
    return arguments is not None and any(_holds_npu(argument) for argument in arguments.named_children)


def _holds_npu(node: Node | None) -> bool:
    """"npu" itself, a collection holding it (a dict by key), or a keyword `npu=`."""
    if node is None:
        return False
    if node.type == "keyword_argument":
        key = node.child_by_field_name("name")
        return key is not None and parsing.text(key) == NPU
    if node.type == "dictionary":
        return any(names_npu(pair.child_by_field_name("key")) for pair in node.named_children if pair.type == "pair")
    if node.type in {"list", "tuple", "set"}:
        return any(names_npu(item) for item in node.named_children)
    return names_npu(node)
