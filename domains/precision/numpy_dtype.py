"""Is a NumPy array float64 when it is handed to torch? Traced through the assignments of a local name or a
`self.` attribute, and through the arrays a NumPy function is computed from.

NumPy's float constructors (linspace, interp, random, ...) give float64 unless a dtype or a later `.astype(...)`
says otherwise; functions such as np.cumprod or np.exp keep their input's dtype. diffusers' schedulers build
float64 arrays and then cast them to float32 or int64 before `torch.from_numpy`, which is no float64 at all.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

FLOAT64 = ("float64", "np.double", "np.float_", "numpy.double", "dtype=float)", "dtype=float,", "astype(float)")
OTHER = ("float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool", "astype(int)", "dtype=int")
# Constructors that return float64 whatever their inputs; other NumPy functions keep their inputs' dtype.
FLOAT_BUILDERS = ("linspace", "logspace", "geomspace", "interp", "randn", "rand", "random", "uniform", "normal")
NUMPY = {"np", "numpy"}
MAX_ASSIGNMENTS = 40
_NESTED_SCOPES = frozenset({"class_definition", "lambda"})
MAX_DEPTH = 4


def is_float64(value: Node, before: Node, depth: int = 0) -> bool:
    """True when `value` (the argument of torch.from_numpy) is known to be a float64 array at `before`."""
    verdict = _judge(value)
    if verdict is not None:
        return verdict
    if value.type in {"identifier", "attribute"}:
        return _traced(parsing.text(value), before, depth)
    return _from_inputs(value, before, depth)


def _traced(name: str, before: Node, depth: int) -> bool:
    for assigned in _assignments(name, before):
        verdict = _judge(assigned)
        if verdict is not None:
            return verdict
        if name not in {parsing.text(n) for n in _names(assigned)}:
            return _from_inputs(assigned, assigned, depth)
    return False


def _from_inputs(expression: Node, before: Node, depth: int) -> bool:
    """A NumPy expression with no cast of its own is float64 when an array it is computed from is."""
    if depth >= MAX_DEPTH or expression.type != "call" or not _is_numpy_call(expression):
        return False
    arguments = expression.child_by_field_name("arguments")
    for name in _names(arguments) if arguments is not None else []:
        if name.type == "identifier" and parsing.text(name) in NUMPY:
            continue
        if is_float64(name, before, depth + 1):
            return True
    return False


def _judge(expression: Node) -> bool | None:
    """float64 (True), another dtype (False) or undecided (None), from the expression's own casts and builders."""
    text = "".join(parsing.text(expression).split())
    last_cast = text.rfind(".astype(")
    scope = text[last_cast:] if last_cast >= 0 else text
    if any(token in scope for token in OTHER):
        return False
    if any(token in scope for token in FLOAT64):
        return True
    if last_cast < 0 and expression.type == "call" and _is_numpy_call(expression):
        leaf = parsing.text(expression.child_by_field_name("function")).rpartition(".")[2]
        if leaf in FLOAT_BUILDERS and "int" not in text:
            return True
    return None


def _is_numpy_call(call: Node) -> bool:
    function = call.child_by_field_name("function")
    return function is not None and parsing.text(function).split(".")[0] in NUMPY


def _assignments(name: str, before: Node) -> list[Node]:
    """Right-hand sides assigned to `name` before `before` in its function (latest first); for a `self.`
    attribute, anywhere in the class as well."""
    scope_types = {"class_definition", "module"} if name.startswith("self.") else {"function_definition", "module"}
    scope = before
    while scope.parent is not None and scope.type not in scope_types:
        scope = scope.parent
    found: list[Node] = []
    # a `self.` attribute is read in nested classes and lambdas too
    nested = frozenset() if name.startswith("self.") else _NESTED_SCOPES
    for node in parsing.walk(scope, prune=nested, enter_root=True, named=False):
        if node.type == "assignment" and (name.startswith("self.") or node.start_byte < before.start_byte):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and parsing.text(left) == name:
                found.append(right)
                if len(found) == MAX_ASSIGNMENTS:
                    break
    return sorted(found, key=lambda n: n.start_byte, reverse=True)


def _names(node: Node) -> list[Node]:
    """Identifiers and `self.x` attributes under a node (bounded), outermost first."""
    result, stack = [], [node]
    while stack and len(result) < 200:
        current = stack.pop()
        if current.type == "identifier" or (current.type == "attribute" and parsing.text(current).startswith("self.")):
            result.append(current)
            continue
        if current.type == "call":
            arguments = current.child_by_field_name("arguments")
            function = current.child_by_field_name("function")
            if function is not None and function.type == "attribute":
                stack.append(function.child_by_field_name("object"))
            if arguments is not None:
                stack.append(arguments)
            continue
        stack.extend(current.children)
    return result
