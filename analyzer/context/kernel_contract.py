"""Code that is part of a custom kernel's port, not a port item of its own: inside an autograd Function whose
forward/backward calls a compiled extension (a `load(...)` module, `*_cuda.op`, `torch.ops.<project namespace>.op`;
the anchor finding on the class), a dtype assert on the
call's inputs (`assert r.dtype == torch.bfloat16`) and a buffer made on "cuda" only to be handed to the call
(`gw = torch.zeros((B, C), device='cuda')` ... `wkv_cuda.backward(..., gw, ...)`) go with the kernel: whatever
replaces it decides the dtype it takes and where its outputs live. Such a site becomes one of the anchor's sites.
A value the method reads before the call (a PyTorch path in the same code) keeps its own finding."""

from __future__ import annotations

from collections.abc import Iterable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

# torch's own operator namespaces: `torch.ops.aten.mm` is PyTorch, not a project's kernel
TORCH_NAMESPACES = frozenset({"aten", "prims", "prim", "quantized", "_quantized", "higher_order", "c10d",
                              "_c10d_functional", "_c10d_functional_autograd", "profiler", "inductor", "mkldnn",
                              "onednn", "quantized_decomposed", "_dtensor", "symm_mem"})
# torch.utils.cpp_extension's JIT loaders, and mmcv's loader of its compiled ops
# (`ext_module = ext_loader.load_ext('_ext', ['ms_deform_attn_forward', ...])`, mmcv/utils/ext_loader.py)
EXTENSION_LOADERS = ("load", "load_inline", "load_ext")
MMCV_LOADERS = ("load_ext",)
COMPILED_MARKERS = ("_C.", "_cuda.", "_ext.")
IMPORT_STATEMENTS = frozenset({"import_from_statement", "import_statement"})


def contract_sites(root: Node, anchors: Iterable[Node], sites: Iterable[tuple[object, Node]]) -> dict[object, Node]:
    """For each (key, node) of `sites`, the anchor (a class name node of `anchors`) whose kernel call the site's
    value feeds only; sites that are not such a contract are left out."""
    classes = {anchor.parent.id: anchor for anchor in anchors
               if anchor.parent is not None and anchor.parent.type == "class_definition"}
    if not classes:
        return {}
    aliases: set[str] | None = None
    found: dict[object, Node] = {}
    for key, node in sites:
        if node.type in IMPORT_STATEMENTS:
            if aliases is None:
                aliases = extension_aliases(root)
            anchor = _imported_for_decorators(root, node, classes, aliases)
            if anchor is not None:
                found[key] = anchor
            continue
        decorated = _decorated_method(node, classes)
        method = decorated or _method_of(node, classes)
        if method is None:
            continue
        if aliases is None:
            aliases = extension_aliases(root)
        calls = [call for call in _calls(method) if _is_extension_call(call, aliases)]
        # an AMP decorator (`@custom_fwd`, `@custom_bwd`) of a forward/backward that calls the kernel goes with it
        if calls and (decorated is not None or _feeds_only(node, method, calls)):
            found[key] = classes[_class_of(method).id]
    return found


def _method_of(node: Node, classes: dict[int, Node]) -> Node | None:
    """The method of one of `classes` the node sits in directly (not in a nested function)."""
    current = node
    while current is not None and current.type not in {"function_definition", "lambda", "class_definition"}:
        current = current.parent
    if current is None or current.type != "function_definition":
        return None
    owner = _class_of(current)
    return current if owner is not None and owner.id in classes else None


def _imported_for_decorators(root: Node, statement: Node, classes: dict[int, Node], aliases: set[str]) -> Node | None:
    """The anchor an import line goes with when every name it binds is used only as a decorator of kernel-calling
    methods of the anchors (`from torch.cuda.amp import custom_bwd, custom_fwd` for @custom_fwd/@custom_bwd of a
    Function that launches the extension): the first such anchor; None where a name has another use."""
    bound = set()
    for name in statement.children_by_field_name("name"):
        target = name.child_by_field_name("alias") if name.type == "aliased_import" else name
        if target is not None:
            bound.add(parsing.text(target).split(".")[0])
    anchors = []
    for use in (n for name in bound for n in _identifiers(root, name)):
        if _inside_import(use):
            continue
        method = _decorated_method(use, classes)
        if method is None or not any(_is_extension_call(call, aliases) for call in _calls(method)):
            return None
        anchors.append(classes[_class_of(method).id])
    return min(anchors, key=lambda anchor: anchor.start_byte) if anchors else None


def _inside_import(node: Node) -> bool:
    current = node.parent
    while current is not None and current.type not in IMPORT_STATEMENTS and current.type != "module":
        current = current.parent
    return current is not None and current.type in IMPORT_STATEMENTS


def _decorated_method(node: Node, classes: dict[int, Node]) -> Node | None:
    """The method of one of `classes` whose decorator the node sits in (`@custom_fwd(cast_inputs=torch.float16)`
    above `def forward`)."""
    current = node
    while current is not None and current.type != "decorator":
        if current.type in {"function_definition", "class_definition", "block", "module"}:
            return None
        current = current.parent
    decorated = current.parent if current is not None else None
    method = decorated.child_by_field_name("definition") if decorated is not None and decorated.type == "decorated_definition" else None
    if method is None or method.type != "function_definition":
        return None
    owner = _class_of(method)
    return method if owner is not None and owner.id in classes else None


def _class_of(method: Node) -> Node | None:
    parent = method.parent
    if parent is not None and parent.type == "decorated_definition":
        parent = parent.parent
    if parent is not None and parent.type == "block":
        parent = parent.parent
    return parent if parent is not None and parent.type == "class_definition" else None


def _calls(scope: Node) -> list[Node]:
    return [node for node in parsing.walk(scope) if node.type == "call"]


def extension_aliases(root: Node, loaders: tuple[str, ...] = EXTENSION_LOADERS) -> set[str]:
    """Names the file binds to a loaded extension (`wkv_cuda = load(name="wkv", ...)`) or to a custom operator
    namespace (`OP = torch.ops.rwkv7_clampw`); with `loaders`, only those bound by these loaders."""
    names: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and (
                    (right.type == "call" and _last_name(right.child_by_field_name("function")) in loaders)
                    or (loaders == EXTENSION_LOADERS and custom_namespace(right))):
                names.add(parsing.text(left))
            continue
        if node.type in {"function_definition", "class_definition", "block", "module", "if_statement",
                         "else_clause", "elif_clause", "try_statement", "except_clause", "with_statement",
                         "expression_statement", "decorated_definition", "finally_clause"}:
            stack.extend(node.named_children)
    return names


def _last_name(function: Node | None) -> str:
    if function is None:
        return ""
    if function.type == "attribute":
        function = function.child_by_field_name("attribute")
    return parsing.text(function) if function is not None and function.type == "identifier" else ""


def custom_namespace(node: Node) -> bool:
    """`torch.ops.<ns>` or below, for a namespace torch does not own."""
    parts = "".join(parsing.text(node).split()).split(".")
    return node.type == "attribute" and len(parts) >= 3 and parts[:2] == ["torch", "ops"] and parts[2] not in TORCH_NAMESPACES


def torch_own_binding(function: Node) -> bool:
    """A call into torch's own C bindings (`torch._C._nn.gelu`, `torch._C._jit_get_operation('aten::...')` and the op it
    returns): ATen operators, which torch_npu implements, not a compiled extension of the project. A lookup of an op in a
    namespace torch does not own (`_jit_get_operation('myops::fused')`) is a project op."""
    compact = "".join(parsing.text(function).split())
    if not compact.startswith("torch._C."):
        return False
    if compact.rsplit(".", 1)[-1] not in OP_LOOKUPS:
        return True
    arguments = function.parent.child_by_field_name("arguments") if function.parent is not None else None
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None or first.type != "string":
        return False
    return parsing.text(first).strip("'\"").split("::", 1)[0] in TORCH_NAMESPACES


OP_LOOKUPS = frozenset({"_jit_get_operation", "_get_operation_overload"})


def _is_extension_call(call: Node, aliases: set[str]) -> bool:
    function = call.child_by_field_name("function")
    if function is None:
        return False
    # a Triton launch (kernel[grid](...)) is no such call: triton-ascend keeps the kernel and its Python wrapper, so
    # the wrapper's buffers on "cuda" stay port items
    if function.type != "attribute":
        return False
    compact = "".join(parsing.text(function).split())
    if any(marker in compact for marker in COMPILED_MARKERS) or custom_namespace(function):
        return True
    return compact.split(".", 1)[0] in aliases


def _feeds_only(node: Node, method: Node, calls: list[Node]) -> bool:
    statement = node
    while statement.parent is not None and statement.type not in {"assert_statement", "expression_statement"}:
        statement = statement.parent
    if statement.type == "assert_statement":
        return _asserts_inputs(statement, method, calls)
    assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    if assignment is None or assignment.type != "assignment":
        return False
    target = assignment.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return False
    name = parsing.text(target)
    first = next((call for call in sorted(calls, key=lambda c: c.start_byte)
                  if call.start_byte > assignment.end_byte and name in _argument_names(call)), None)
    if first is None:
        return False
    return not any(use.start_byte > assignment.end_byte and use.end_byte < first.start_byte
                   for use in _identifiers(method, name))  # read by other code first: a PyTorch path


def _asserts_inputs(statement: Node, method: Node, calls: list[Node]) -> bool:
    """An assert on the Function's inputs (the method's parameters) or on what the kernel call takes."""
    tested = _tested_names(statement)
    parameters = method.child_by_field_name("parameters")
    inputs = {parsing.text(p) for p in (parameters.named_children if parameters is not None else []) if p.type == "identifier"}
    for call in calls:
        inputs |= _argument_names(call)
    return bool(tested) and tested <= inputs


def _tested_names(statement: Node) -> set[str]:
    """Names an assert reads, less `torch`, called builtins (`all`), attribute fields and comprehension variables."""
    bound: set[str] = set()
    names: set[str] = set()
    for node in parsing.walk(statement):
        if node.type == "for_in_clause":
            left = node.child_by_field_name("left")
            if left is not None:
                bound.add(parsing.text(left))
        if node.type == "identifier":
            parent = node.parent
            if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
                continue
            if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == node:
                continue
            names.add(parsing.text(node))
    return names - bound - {"torch"}


def _argument_names(call: Node) -> set[str]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return set()
    return {parsing.text(child) for child in arguments.named_children if child.type == "identifier"}


def _identifiers(scope: Node, name: str) -> list[Node]:
    return [node for node in parsing.walk(scope) if node.type == "identifier" and parsing.text(node) == name]

