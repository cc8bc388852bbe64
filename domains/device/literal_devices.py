"""Is a CUDA device test's `<name>.type` the type of a torch.device the code builds from a "cuda" literal?

`device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` then `if device.type == "cuda":` (round 27
A1 W1, B1 C8, B2 C3). transfer_to_npu (Ascend/pytorch v2.12.0-26.1.0 torch_npu/contrib/transfer_to_npu.py) does not
wrap torch.device: it rebinds torch.Generator and torch.Event to proxies and rewrites the device arguments of the
functions and methods it wraps (`.to()`, factories, torch.cuda.*), so such a device keeps type "cuda" under it, the
test holds, `.to(device)` lands on the NPU, and the torch.cuda calls the arm makes go to torch.npu. The test breaks
only in a native port, where the device is built as "npu". Followed: the name assigned once in the test's function
(or the module), or a parameter that every call of the function in this file passes such a name or value.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.domains.device import literals
from tree_sitter import Node

MAX_FILE_NODES = 50_000
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})


def built_from_cuda_literal(test: Node, imports: ImportTable) -> bool:
    """Does `test` compare `<name>.type`, where `<name>` holds a torch.device built from a "cuda" literal?"""
    operands = [o for o in test.named_children if o.type not in {"string", "tuple", "list", "set"}]
    if test.type != "comparison_operator" or len(operands) != 1 or operands[0].type != "attribute":
        return False
    attribute = operands[0]
    name = attribute.child_by_field_name("object")
    if parsing.text(attribute.child_by_field_name("attribute")) != "type" or name is None or name.type != "identifier":
        return False
    return _holds_cuda_device(parsing.text(name), _scope(test), imports, depth=0)


def _holds_cuda_device(name: str, scope: Node | None, imports: ImportTable, depth: int) -> bool:
    if scope is None or depth > 1:
        return False
    values = _assignments(scope, name)
    if values:
        return len(values) == 1 and _cuda_device(values[0], scope, imports, depth)
    if scope.type == "function_definition":
        index = _parameter_index(scope, name)
        if index is None:
            return _holds_cuda_device(name, _scope(scope), imports, depth) if _scope(scope) is not None else False
        arguments = _caller_arguments(scope, index, name)
        return bool(arguments) and all(_cuda_device(argument, _scope(argument), imports, depth + 1)
                                       for argument in arguments)
    return False


def _cuda_device(value: Node, scope: Node | None, imports: ImportTable, depth: int) -> bool:
    if value.type == "identifier":
        return _holds_cuda_device(parsing.text(value), scope, imports, depth)
    if value.type != "call":
        return False
    function = value.child_by_field_name("function")
    if function is None or qualified_name(function, imports) != "torch.device":
        return False
    arguments = value.child_by_field_name("arguments")
    first = next((a for a in arguments.named_children if a.type != "comment"), None) if arguments else None
    if first is None:
        return False
    if first.type == "conditional_expression":
        return any(p.type == "string" and literals.cuda_literal_in(p) is not None for p in first.named_children)
    return first.type == "string" and literals.cuda_literal_in(first) is not None


def _scope(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in {"function_definition", "module"}:
        current = current.parent
    return current


def _assignments(scope: Node, name: str) -> list[Node]:
    values = []
    for node in parsing.walk(scope, limit=MAX_FILE_NODES, prune=_NESTED, enter_root=True):
        if node.type in {"assignment", "augmented_assignment"}:
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier" and parsing.text(left) == name:
                values.append(node.child_by_field_name("right") if node.type == "assignment" else left)
    return [v for v in values if v is not None]


def _parameter_index(function: Node, name: str) -> int | None:
    parameters = function.child_by_field_name("parameters")
    for index, parameter in enumerate(parameters.named_children if parameters else []):
        node = parameter if parameter.type == "identifier" else parameter.child_by_field_name("name")
        if node is None and parameter.named_children:
            node = parameter.named_children[0]
        if node is not None and parsing.text(node) == name:
            return index
    return None


def _caller_arguments(function: Node, index: int, name: str) -> list[Node]:
    """What each call of `function` (by its plain name, in this file) passes for its parameter `index` (`name`)."""
    module = function
    while module.parent is not None:
        module = module.parent
    called = parsing.text(function.child_by_field_name("name"))
    found = []
    for node in parsing.walk(module, limit=MAX_FILE_NODES):
        if node.type != "call":
            continue
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "identifier" or parsing.text(callee) != called:
            continue
        arguments = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
        keyword = next((a.child_by_field_name("value") for a in arguments if a.type == "keyword_argument"
                        and parsing.text(a.child_by_field_name("name")) == name), None)
        positional = [a for a in arguments if a.type not in {"keyword_argument", "list_splat", "dictionary_splat"}]
        value = keyword if keyword is not None else (positional[index] if index < len(positional) else None)
        if value is None:
            return []
        found.append(value)
    return found
