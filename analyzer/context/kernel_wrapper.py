"""The code around a launcher that compiles a CUDA kernel outside torch (CuPy's `RawKernel`, `compile_with_cache(...)
.get_function(...)`, a `@cupy.memoize` launcher: the rule's kernel_part is "launcher"): the device lines there are
sites of the kernel's port, not port items of their own (round 32 A1 rows 7, 49; A2 rows 75, 76, 92). The kernel takes
CUDA pointers and a CUDA stream, so the whole wrapper is replaced with the kernel: an `is_cuda` test with an
`assert(False)` else, `torch.cuda.current_stream().cuda_stream`, CUDA_HOME for the compiler, a device-name cache key go
with it, and advising `.is_npu` there would only send NPU pointers into the CUDA kernel.

The wrapper is, in one file:
- the launcher: the function holding the kernel's call (or decorated by `@cupy.memoize`);
- each autograd Function (a class whose base is `Function`, `autograd.Function`, `torch.autograd.Function`) with a
  method that calls the launcher by its plain name: all its methods (forward and backward launch the same kernel);
- a helper of the file whose every call sits in that wrapper (`cuda_launch(cuda_kernel(...))`: cuda_kernel serves
  only the launch).
"""

from __future__ import annotations

from collections.abc import Iterable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_FILE_NODES = 200_000
MAX_ROUNDS = 4  # helpers of helpers


def wrapper_sites(root: Node, anchors: Iterable[Node], sites: Iterable[tuple[object, Node]]) -> dict[object, Node]:
    """For each (key, node) of `sites` inside the wrapper of one of `anchors` (a launcher's kernel call), that anchor
    node; other sites are left out."""
    anchors = list(anchors)
    if not anchors:
        return {}
    functions, calls = _functions_and_calls(root)
    if not functions:
        return {}
    scopes: list[tuple[Node, list[Node]]] = []
    for anchor in anchors:
        launcher = _enclosing_function(anchor)
        if launcher is not None and launcher.parent is not None:
            scopes.append((anchor, _wrapper(launcher, functions, calls)))
    found: dict[object, Node] = {}
    for key, node in sites:
        for anchor, scope in scopes:
            if any(_inside(node, part) for part in scope):
                found[key] = anchor
                break
    return found


def _functions_and_calls(root: Node) -> tuple[dict[str, list[Node]], dict[str, list[Node]]]:
    """The file's function definitions by name, and its calls of a plain name by that name."""
    functions: dict[str, list[Node]] = {}
    calls: dict[str, list[Node]] = {}
    try:
        for node in parsing.walk(root, limit=MAX_FILE_NODES, strict=True):
            if node.type == "function_definition":
                functions.setdefault(parsing.text(node.child_by_field_name("name")), []).append(node)
            elif node.type == "call":
                callee = node.child_by_field_name("function")
                if callee is not None and callee.type == "identifier":
                    calls.setdefault(parsing.text(callee), []).append(node)
    except parsing.WalkLimit:
        return {}, {}
    return functions, calls


def _wrapper(launcher: Node, functions: dict[str, list[Node]], calls: dict[str, list[Node]]) -> list[Node]:
    """The launcher, the functions (whole classes for methods) that call it, and the helpers used only there."""
    name = parsing.text(launcher.child_by_field_name("name"))
    scope = [_decorated(launcher)]
    for call in calls.get(name, []):
        caller = _enclosing_function(call)
        if caller is None or caller.id == launcher.id:
            continue
        owner = _class_of(caller)
        if owner is None or not _autograd_function(owner):
            continue  # a plain function that launches the kernel among other work keeps its own lines
        if not any(_inside(owner, known) for known in scope):
            scope.append(owner)
    for _ in range(MAX_ROUNDS):
        grown = False
        for helper, definitions in functions.items():
            if len(definitions) != 1 or any(_inside(definitions[0], part) for part in scope):
                continue
            uses = calls.get(helper, [])
            if uses and all(any(_inside(use, part) for part in scope) for use in uses):
                scope.append(_decorated(definitions[0]))
                grown = True
        if not grown:
            break
    return scope


def _enclosing_function(node: Node) -> Node | None:
    """The function the node sits in, or the one a decorator it sits in decorates (`@cupy.memoize(...)`)."""
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            return current
        if current.type == "decorated_definition":
            definition = current.child_by_field_name("definition")
            return definition if definition is not None and definition.type == "function_definition" else None
        if current.type in {"class_definition", "module", "lambda"}:
            return None
        current = current.parent
    return None


def _decorated(definition: Node) -> Node:
    """The definition with its decorators (`@torch.cuda.amp.custom_fwd` above a forward is part of it)."""
    parent = definition.parent
    return parent if parent is not None and parent.type == "decorated_definition" else definition


def _class_of(method: Node) -> Node | None:
    parent = _decorated(method).parent
    if parent is not None and parent.type == "block":
        parent = parent.parent
    return parent if parent is not None and parent.type == "class_definition" else None


def _autograd_function(cls: Node) -> bool:
    bases = cls.child_by_field_name("superclasses")
    return bases is not None and any(parsing.text(base).split(".")[-1] == "Function" for base in bases.named_children)


def _inside(node: Node, scope: Node) -> bool:
    return scope.start_byte <= node.start_byte and node.end_byte <= scope.end_byte
