"""Is a CUDA device test's `<name>.type` the type of a torch.device the code builds from a "cuda" literal?

`device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` then `if device.type == "cuda":` (round 27
A1 W1, B1 C8, B2 C3). transfer_to_npu (Ascend/pytorch v2.12.0-26.1.0 torch_npu/contrib/transfer_to_npu.py) does not
wrap torch.device: it rebinds torch.Generator and torch.Event to proxies and rewrites the device arguments of the
functions and methods it wraps (`.to()`, factories, torch.cuda.*), so such a device keeps type "cuda" under it, the
test holds, `.to(device)` lands on the NPU, and the torch.cuda calls the arm makes go to torch.npu. The test breaks
only in a native port, where the device is built as "npu". Followed: the name assigned once in the test's function
(or the module), or a parameter that every call of the function in this file passes such a name or value. A name
assigned several times, each time in an arm of one device pick that transfer_to_npu covers (`if
torch.cuda.is_available(): device = torch.device("cuda") elif torch.backends.mps.is_available(): ... else: ...`,
analyzer/context/shim_chains.py; round 34 B1 class 6, XMem interactive_demo.py:31-36), holds under the shim the value
of the chain's CUDA arm, which the probe selects there.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import backend_words, cuda_arm, dispatch_chain
from ascend_feasibility.analyzer.context.shim_chains import shim_covered_device_choice
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.domains.device import literals
from ascend_feasibility.knowledge import load_context_conventions
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
    if len(values) > 1:
        chosen = _shim_chain_value(values, imports)
        return chosen is not None and _cuda_device(chosen, scope, imports, depth)
    if values:
        return _cuda_device(values[0], scope, imports, depth)
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


def _shim_chain_value(values: list[Node], imports: ImportTable) -> Node | None:
    """Where every value is assigned in an arm of one shim-covered device pick, the value its CUDA arm assigns."""
    statement = _arm_statement(values[0])
    if statement is None or not all(statement.start_byte <= v.start_byte and v.end_byte <= statement.end_byte
                                    for v in values):
        return None
    conventions = load_context_conventions()
    backends = backend_words(conventions.guards, conventions.backends)
    chain = dispatch_chain(statement, backends)
    if chain is None or not shim_covered_device_choice(chain, backends, imports):
        return None
    bodies = [body for _, body in chain.arms] + ([chain.else_body] if chain.else_body is not None else [])
    if not all(any(_directly_in(v, body) for body in bodies) for v in values):
        return None  # an assignment nested deeper, or after the chain, is not one of its arms' values
    cuda = [v for v in values for _, body in chain.arms if _directly_in(v, body) and cuda_arm(chain, body, backends)]
    return cuda[0] if len(cuda) == 1 else None


def _arm_statement(value: Node) -> Node | None:
    """The if-statement whose arm (if, elif or else block) holds the assignment of `value` as a statement."""
    block = value.parent.parent.parent if value.parent and value.parent.parent else None
    clause = block.parent if block is not None and block.type == "block" else None
    if clause is not None and clause.type in {"elif_clause", "else_clause"}:
        clause = clause.parent
    return clause if clause is not None and clause.type == "if_statement" else None


def _directly_in(value: Node, body: Node) -> bool:
    statement = value.parent.parent if value.parent is not None else None
    return statement is not None and statement.parent is not None and statement.parent.id == body.id


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
