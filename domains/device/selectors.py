"""A "cuda" string that picks an implementation, not a device.

stylegan3's `def upfirdn2d(x, f, ..., impl='cuda')` checks `assert impl in ['ref', 'cuda']` and takes its CUDA plugin
only `if impl == 'cuda' and x.device.type == 'cuda'`; `filter2d(..., impl='cuda')` hands its `impl` on to
`upfirdn2d(..., impl=impl)`. The name's values are implementations ('ref' is no device), so "cuda" there is a choice
of code path: the advised "npu" would fail the assert, and on an NPU tensor the device test already sends the call to
the reference path. Such a literal is no device string (DEV001 is not reported); where the CUDA path matters, its
kernel and device test have findings of their own.

A name is a selector when its function (or module, for a module-level assignment) compares it with string literals
(`==`, `!=`, `in`, `not in` a list, tuple or set of them, in an `if`, an `assert` or anywhere) and one of those strings
names no device (DEVICE_WORDS: torch's device types, "npu", "gpu", "auto"). A literal is such a name's value when it
is the default of a parameter of that name, the value of a plain assignment to it, or a keyword argument of that name
in a call of a function of the same file whose parameter it is; and a parameter that its function only hands on by
keyword to such a parameter (`impl=impl`), up to three calls deep, is one too. A name compared only with device
strings (`device in ("cpu", "cuda")`) stays a device.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device.literals import DEVICE_TYPES, names_builds, plain_word
from tree_sitter import Node

DEVICE_WORDS = DEVICE_TYPES | {"npu", "gpu", "auto", "hip", "tpu", ""}
MAX_NODES = 20000
MAX_HOPS = 3
FUNCTIONS = {"function_definition", "lambda"}


def is_selector_value(literal: Node) -> bool:
    """Is this string literal the value of a name that selects an implementation?"""
    parent = literal.parent
    if parent is None:
        return False
    if parent.type in {"default_parameter", "typed_default_parameter"} and parent.child_by_field_name("value") == literal:
        function = _function_of_parameter(parent)
        name = parent.child_by_field_name("name")
        return function is not None and name is not None and _selects(function, parsing.text(name), MAX_HOPS)
    if parent.type == "assignment" and parent.child_by_field_name("right") == literal:
        left = parent.child_by_field_name("left")
        scope = _scope(parent)
        return left is not None and left.type == "identifier" and _selects(scope, parsing.text(left), MAX_HOPS)
    if parent.type == "keyword_argument" and parent.child_by_field_name("value") == literal:
        call = parent.parent.parent if parent.parent is not None else None
        key = parent.child_by_field_name("name")
        function = _called_function(call) if call is not None and call.type == "call" else None
        return function is not None and key is not None and _selects(function, parsing.text(key), MAX_HOPS)
    return False


def _selects(scope: Node, name: str, hops: int) -> bool:
    """Does the scope compare `name` with a string that names no device, or hand it on to a parameter that does?"""
    body = scope.child_by_field_name("body") if scope.type in FUNCTIONS else scope
    if body is None:
        return False
    stack, seen = [body], 0
    while stack:
        seen += 1
        if seen > MAX_NODES:
            return False
        node = stack.pop()
        if node.type == "comparison_operator" and _compares_with_other_words(node, name):
            return True
        if hops > 0 and node.type == "keyword_argument":
            value, key = node.child_by_field_name("value"), node.child_by_field_name("name")
            if value is not None and key is not None and value.type == "identifier" and parsing.text(value) == name:
                call = node.parent.parent if node.parent is not None else None
                callee = _called_function(call) if call is not None and call.type == "call" else None
                if callee is not None and callee != scope and _selects(callee, parsing.text(key), hops - 1):
                    return True
        stack.extend(c for c in node.named_children if c.type not in FUNCTIONS | {"class_definition"})
    return False


def _compares_with_other_words(comparison: Node, name: str) -> bool:
    operands = [o for o in comparison.named_children if o.type != "comment"]
    operators = [parsing.text(o) for o in comparison.children_by_field_name("operators")]
    if len(operands) != 2 or len(operators) != 1 or operators[0] not in {"==", "!=", "in", "not in"}:
        return False
    if not any(o.type == "identifier" and parsing.text(o) == name for o in operands):
        return False
    other = operands[1] if operands[0].type == "identifier" and parsing.text(operands[0]) == name else operands[0]
    items = other.named_children if other.type in {"list", "tuple", "set"} else [other]
    words = [_word(item) for item in items]
    return all(w is not None for w in words) and any(w not in DEVICE_WORDS for w in words)


_word = plain_word


def _function_of_parameter(parameter: Node) -> Node | None:
    parameters = parameter.parent
    function = parameters.parent if parameters is not None else None
    return function if function is not None and function.type == "function_definition" else None


def _scope(node: Node) -> Node:
    current = node.parent
    while current is not None and current.type not in FUNCTIONS | {"module"}:
        current = current.parent
    return current if current is not None else node


def _called_function(call: Node) -> Node | None:
    """The module-level function of the same file a call by plain name reaches, when the file defines it once."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "identifier":
        return None
    name = parsing.text(function)
    root = parsing.root_of(call)
    found = None
    for statement in root.named_children[:2000]:
        definition = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if definition is not None and definition.type == "function_definition":
            key = definition.child_by_field_name("name")
            if key is not None and parsing.text(key) == name:
                if found is not None:
                    return None
                found = definition
    return found


def is_selector_test(comparison: Node) -> bool:
    """A comparison of an implementation selector: with a collection holding a word that names no device
    (`impl in ['ref', 'cuda']`) or naming builds (`accel in ("cuda", "vulkan", "rocm")`: prebuilt flavours,
    literals.names_builds), or of a name its scope compares with a word that names no device (`impl == 'cuda'` beside
    that assert)."""
    operands = [o for o in comparison.named_children if o.type != "comment"]
    if len(operands) != 2:
        return False
    for operand in operands:
        items = operand.named_children if operand.type in {"list", "tuple", "set"} else [operand]
        words = [_word(item) for item in items]
        if operand.type in {"list", "tuple", "set"} and all(w is not None for w in words) \
                and (any(w not in DEVICE_WORDS for w in words) or names_builds(words)):
            return True
    names = [parsing.text(o) for o in operands if o.type == "identifier"]
    return len(names) == 1 and _selects(_scope(comparison), names[0], 0)
