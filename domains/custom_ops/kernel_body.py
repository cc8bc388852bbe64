"""What a CUDA kernel's body shows about what it computes, read from its syntax tree: a recurrence (a value carried from
one iteration of a loop to the next while each iteration writes an output: a scan over the sequence, as the RWKV WKV
kernels are) or elementwise math (no loop, no shared memory, no warp or atomic operations: each thread computes its
own outputs from its inputs). The kernel's name says what its authors called it; these say what it does, so they
override a name that claims less (knowledge.classify_kernel's callers decide where)."""

from __future__ import annotations

from typing import Literal

from tree_sitter import Node

Shape = Literal["recurrence", "elementwise"]

LOOPS = frozenset({"for_statement", "while_statement", "do_statement", "for_range_loop"})
# The words of a type that make a variable an index, a count or a flag rather than carried data: a loop that only
# advances an index or a pointer is no recurrence.
INTEGRAL_WORDS = frozenset({
    "int", "long", "short", "unsigned", "signed", "char", "bool", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "index_t", "i32", "i64", "u32", "u64", "dim3", "auto",
})


def body_shape(function: Node, own_loops: frozenset[str] = frozenset()) -> Shape | None:
    """The shape of a kernel definition's body, or None where it shows neither. `own_loops`: the file's own functions
    whose bodies loop (a call to one is a loop the kernel runs)."""
    body = function.child_by_field_name("body")
    if body is None:
        return None
    declarator = function.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters") if declarator is not None else None
    parameters = {_declared_name(p) for p in params.named_children} if params is not None else set()
    declared = _declarations(body)
    memory = parameters | {name for name, (pointer, _) in declared.items() if pointer}
    loops = [node for node in _walk(body) if node.type in LOOPS]
    for loop in loops:
        if _recurrent(loop, declared, memory):
            return "recurrence"
    if loops or b"__shared__" in body.text or _calls(body) & own_loops:
        return None
    return "elementwise"


def loops_in(function: Node) -> bool:
    body = function.child_by_field_name("body")
    return body is not None and any(node.type in LOOPS for node in _walk(body))


def _recurrent(loop: Node, declared: dict[str, tuple[bool, bool]], memory: set[str]) -> bool:
    """Does an iteration of `loop` read a data value the previous one wrote, and write an output that depends on it?"""
    inner = _declarations(loop)
    events = list(_events(loop.child_by_field_name("body") or loop))
    data = {name for name, (pointer, integral) in declared.items() if name not in inner and not pointer and not integral}
    first: dict[str, bool] = {}  # name → its first evaluated occurrence in an iteration reads it
    written = set()
    for kind, name in events:
        first.setdefault(name, kind == "read")
        if kind in {"write", "update"}:
            written.add(name)
    carried = {name for name in data & written if first.get(name)}
    if not carried:
        return False
    assignments = [node for node in _walk(loop) if node.type in {"assignment_expression", "init_declarator"}]
    tainted = set(carried)
    changed = True
    while changed:
        changed = False
        for node in assignments:
            target, value = _target_and_value(node)
            if target and target not in tainted and value is not None and _value_names(value) & tainted:
                tainted.add(target)
                changed = True
    for node in assignments:
        if node.type != "assignment_expression":
            continue
        left, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or value is None or left.type not in {"subscript_expression", "pointer_expression"}:
            continue
        base = _base_name(left)
        if base in memory and base not in carried and _value_names(value) & tainted:
            return True
    return False


def _events(node: Node):
    """("read" | "write" | "update", name) for each variable occurrence under `node`, in evaluation order: the right of
    a plain assignment before its left, which a plain `=` to a whole variable writes (an element write reads the rest)."""
    if node.type == "assignment_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if right is not None:
            yield from _events(right)
        if left is not None:
            if left.type == "identifier" and operator is not None and operator.text == b"=":
                yield ("write", _text(left))
            else:
                base = _base_name(left)
                if base:
                    yield ("read", base)
                    yield ("update", base)
                for child in left.children:
                    if child.type == "subscript_argument_list":
                        yield from _events(child)
        return
    if node.type == "update_expression":
        base = _base_name(node.child_by_field_name("argument"))
        if base:
            yield ("read", base)
            yield ("update", base)
        return
    if node.type == "init_declarator":
        value = node.child_by_field_name("value")
        if value is not None:
            yield from _events(value)
        return
    if node.type == "identifier":
        yield ("read", _text(node))
        return
    if node.type == "call_expression":
        arguments = node.child_by_field_name("arguments")
        if arguments is not None:
            yield from _events(arguments)
        return
    if node.type == "field_expression":
        argument = node.child_by_field_name("argument")
        if argument is not None:
            yield from _events(argument)
        return
    for child in node.children:
        yield from _events(child)


def _value_names(node: Node) -> set[str]:
    """The variables whose values an expression computes with: not the indices it addresses memory with, not the
    functions it calls, not the fields it names."""
    names = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            names.add(_text(current))
        elif current.type == "subscript_expression":
            argument = current.child_by_field_name("argument")
            if argument is not None:
                stack.append(argument)
        elif current.type == "call_expression":
            arguments = current.child_by_field_name("arguments")
            if arguments is not None:
                stack.append(arguments)
        elif current.type == "field_expression":
            argument = current.child_by_field_name("argument")
            if argument is not None:
                stack.append(argument)
        else:
            stack.extend(current.children)
    return names


def _target_and_value(node: Node) -> tuple[str | None, Node | None]:
    if node.type == "init_declarator":
        return _declared_name(node), node.child_by_field_name("value")
    return _base_name(node.child_by_field_name("left")), node.child_by_field_name("right")


def _declarations(node: Node) -> dict[str, tuple[bool, bool]]:
    """The variables declared under `node`: name → (declared as a pointer, of an index-like type: int, int64_t, auto)."""
    found = {}
    for current in _walk(node):
        if current.type == "declaration":
            type_node = current.child_by_field_name("type")
            words = set(_text(type_node).replace("::", " ").split()) if type_node is not None else set()
            for declarator in current.children_by_field_name("declarator"):
                name = _declared_name(declarator)
                if name:
                    found[name] = (_is_pointer(declarator), bool(words & INTEGRAL_WORDS))
    return found


def _is_pointer(declarator: Node) -> bool:
    while declarator is not None:
        if declarator.type == "pointer_declarator" or declarator.type == "reference_declarator":
            return True
        declarator = declarator.child_by_field_name("declarator")
    return False


def _declared_name(declarator: Node | None) -> str:
    while declarator is not None and declarator.type != "identifier":
        child = declarator.child_by_field_name("declarator")
        if child is None:
            child = next((c for c in declarator.named_children if c.type in {"identifier", "pointer_declarator",
                          "array_declarator", "reference_declarator", "init_declarator"}), None)
        declarator = child
    return _text(declarator) if declarator is not None else ""


def _base_name(node: Node | None) -> str:
    """The variable an lvalue lives in: `state[j]` → state, `*y` → y, `s.x` → s."""
    while node is not None and node.type != "identifier":
        if node.type in {"subscript_expression", "pointer_expression", "field_expression"}:
            node = node.child_by_field_name("argument")
        elif node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        else:
            return ""
    return _text(node) if node is not None else ""


def _calls(node: Node) -> set[str]:
    names = set()
    for current in _walk(node):
        if current.type == "call_expression":
            function = current.child_by_field_name("function")
            if function is not None:
                names.add(_text(function).split("<", 1)[0].split("::")[-1].strip())
    return names


def _walk(node: Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def class_for_shape(kb, named, shape: Shape | None):
    """The kernel class once its body has spoken: a recurrence overrides a name that promised a composition of native
    operators (path "pytorch": `clampw` read as a clamp) or said nothing (the catch-all); a name that names a fused
    operator or a scan keeps its class. Elementwise math only fills in for a name that said nothing: its name may say
    which elementwise function (gelu, a cast) better than the body can."""
    catch_all = kb.kernel_classes[-1]
    if shape == "recurrence" and (named.path == "pytorch" or named is catch_all):
        return kb.kernel_class("recurrence")
    if shape == "elementwise" and named is catch_all:
        return kb.kernel_class("elementwise")
    return named
