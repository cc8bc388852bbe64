"""Extension ops the project also computes in plain PyTorch: a module-level twin named `<op>_python`, `<op>_naive` or
`<op>_pytorch` in the file that calls the op (pytorch3d's `gather_scatter_python`, `interpolate_face_attributes_python`,
`sample_pdf_python`, `marching_cubes_naive`), whose own code calls no extension.

How the file chooses between them decides the item:
- `device-test`: the twin is called in the non-CUDA arm of a device test whose other arm (its else, or the code after an
  arm that returns) reaches the extension (graph_conv.py: `if torch.cuda.is_available() and verts.is_cuda:
  gather_scatter(...)` / `else: gather_scatter_python(...)`). NPU tensors take the twin as is; under transfer_to_npu
  `Tensor.is_cuda` is `Tensor.is_npu` and torch.cuda.is_available is torch.npu.is_available (Ascend/pytorch
  torch_npu/contrib/transfer_to_npu.py, v2.12.0-26.1.0 and v2.9.0-7.3.0), so such a test sends NPU tensors into the
  extension (`shim`);
- `flag`: the twin is called in an arm of another test (`if _python: return ..._python(...)`): the caller opts in;
- `sibling`: nothing selects it; the twin's stem is the name of a module-level definition that reaches the extension
  (`sample_pdf` / `sample_pdf_python`);
- `cpu-test`: the twin is called in the arm a test for the CPU (`x.device.type == 'cpu'`, `x.is_cpu`) takes, the other
  arm reaches the extension (StyleGAN2-style `upfirdn2d()`: `if input.device.type == 'cpu': upfirdn2d_native(...)` /
  `else: UpFirDn2d.apply(...)`): every other device, the NPU included, is sent into the extension; the port is that
  dispatch, sending non-CUDA devices to the twin.
Besides the named twins, a device test (CUDA or CPU) also selects a twin by structure: a module-level function of the
file, called in one arm while the other reaches the extension, whose every call is a torch operation (a name imported
from torch, `F.pad`, `torch.flip`), a tensor method or a Python builtin; a function calling anything else (a CPU C++ op
of another extension, a module-level loader's op) is no PyTorch path.
Either way the op's kernels are a performance item (the project's own PyTorch code is the port), not a kernel port.
The project pass (domains/custom_ops/routed_kernels.py) finds the kernels of the ops through the bindings.
"""

from __future__ import annotations

import builtins

from ascend_feasibility.analyzer.context.kernel_contract import COMPILED_MARKERS
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.custom_ops.records import RouteRecord
from tree_sitter import Node

ROUTE_SUFFIXES = ("_python", "_naive", "_pytorch")
MARKERS = tuple(s.encode() for s in ROUTE_SUFFIXES)
CUDA_TESTS = ("is_cuda", "device.type", "cuda.is_available")
SHIM_TESTS = ("is_cuda", "cuda.is_available")  # true for NPU tensors under transfer_to_npu
CPU_VALUES = ("'cpu'", '"cpu"')
BUILTINS = frozenset(dir(builtins))
STRUCTURE_MARKERS = (b"device.type", b"is_cuda", b"is_cpu")
MAX_NODES = 20000
# Python loops nested this deep (batch, row, column, face) are a per-element reference implementation written to test
# the kernel (pytorch3d's rasterize_meshes_python, marching_cubes_naive), far too slow to be the port; farthest-point
# sampling's naive twin loops over clouds and samples (2) with each step vectorised over the points.
PER_ELEMENT_DEPTH = 3
PYTHON_LOOPS = frozenset({"for_statement", "while_statement"})
DEPTH = 3


def may_route(data: bytes) -> bool:
    return any(marker in data for marker in MARKERS) or (b"def backward" in data and b"raise" in data) or (
        any(m in data for m in STRUCTURE_MARKERS) and any(m.encode() in data for m in COMPILED_MARKERS))


def pytorch_routes(root: Node, path: str, imports: list[Node] | None = None, called: list[Node] | None = None
                   ) -> list[RouteRecord]:
    """`imports`, `called`: the unit's import statements and the callees of its plain-name calls, from its combined
    query; read in place of a walk of the tree where the walk would see every node (MAX_NODES)."""
    if root.descendant_count > MAX_NODES:
        imports = called = None
    top: dict[str, Node] = {}
    aliases: dict[str, str] = {}  # `gather_scatter = GatherScatter.apply`
    for child in root.named_children:
        definition = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if definition is not None and definition.type in {"function_definition", "class_definition"}:
            top[parsing.text(definition.child_by_field_name("name"))] = definition
        elif child.type == "expression_statement" and child.named_children and child.named_children[0].type == "assignment":
            left, right = child.named_children[0].child_by_field_name("left"), child.named_children[0].child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and right.type == "attribute" \
                    and parsing.text(right.child_by_field_name("attribute")) == "apply":
                aliases[parsing.text(left)] = parsing.text(right.child_by_field_name("object"))
    twins = {stem for name in top if name.endswith(ROUTE_SUFFIXES) for stem in _stems(name)}
    data = root.text or b""
    candidates = {name: d for name, d in top.items() if d.type == "function_definition"
                  and (name.endswith(ROUTE_SUFFIXES) or name in twins or not _named_once(name, data))
                  and not _extension_ops(d) and not _applies(d) and _loop_depth(d) < PER_ELEMENT_DEPTH}
    routes = {name: d for name, d in candidates.items() if name.endswith(ROUTE_SUFFIXES)}
    found = _forward_only(top, path)
    if len(candidates) > len(routes):
        torch_names, other_names = _bound_names(root, top, imports)
        routes.update({name: d for name, d in candidates.items() if name not in routes
                       and _torch_only(d, torch_names, other_names)})
    if not routes:
        return found

    def reached(nodes: list[Node], depth: int = DEPTH) -> tuple[set[str], set[str]]:
        """The extension ops the code under `nodes` calls, directly or through this file's definitions, and those
        definitions."""
        ops, names = set(), set()
        for node in nodes:
            ops |= _extension_ops(node)
            for name in _called_names(node):
                name = aliases.get(name, name)
                if name in top and name not in routes and name not in names and depth > 0:
                    names.add(name)
                    more_ops, more_names = reached([top[name]], depth - 1)
                    ops |= more_ops
                    names |= more_names
        return ops, names

    calls = _calls_by_name(root, called)
    for name, definition in routes.items():
        named = name.endswith(ROUTE_SUFFIXES)
        record = _selected(name, calls, definition, reached, path, device_only=not named)
        if record is None and named:
            twin = next((n for n in _stems(name) if n in top and n not in routes), None)
            if twin is not None:
                ops, names = reached([top[twin]])
                if ops:
                    record = RouteRecord(path, name, definition.start_point.row + 1, tuple(sorted(ops)),
                                         tuple(sorted(names | {twin})), "sibling", top[twin].start_point.row + 1, "",
                                         False)
        if record is not None:
            found.append(record)
    return found


def _stems(name: str) -> tuple[str, str]:
    """The names of a named route's sibling (`sample_pdf_python` -> `sample_pdf`, `_sample_pdf`)."""
    stem = name.lstrip("_")
    for suffix in ROUTE_SUFFIXES:
        stem = stem.removesuffix(suffix)
    return stem, f"_{stem}"


def _named_once(name: str, data: bytes) -> bool:
    """The file's bytes spell `name` once, in its own definition: nothing in the file calls it or applies it, so as a
    route found by structure it selects nothing (no call of it sits under a test), and `reached` never meets it. Such
    a function is not read for routes (three walks of its body each); a stem of a named route is kept whatever its
    count (a route, it is no sibling)."""
    return data.count(name.encode("utf-8")) == 1


def _forward_only(top: dict[str, Node], path: str) -> list[RouteRecord]:
    """autograd Functions whose forward calls extension ops and whose backward raises or is absent (marching cubes,
    box IoU: not differentiable): kind `cpu-arm`, kept by the project pass only where the extension builds a CPU
    implementation of the op (routed_kernels.py)."""
    found = []
    for name, definition in top.items():
        if definition.type != "class_definition" or "Function" not in parsing.text(
                definition.child_by_field_name("superclasses") or definition):
            continue
        methods = {}
        for item in (definition.child_by_field_name("body") or definition).named_children:
            item = item.child_by_field_name("definition") if item.type == "decorated_definition" else item
            if item is not None and item.type == "function_definition":
                methods[parsing.text(item.child_by_field_name("name"))] = item
        ops = _extension_ops(methods["forward"]) if "forward" in methods else set()
        if ops and ("backward" not in methods or _only_raises(methods["backward"])):
            found.append(RouteRecord(path, "", definition.start_point.row + 1, tuple(sorted(ops)), (name,), "cpu-arm",
                                     definition.start_point.row + 1, "", False))
    return found


def _only_raises(function: Node) -> bool:
    body = function.child_by_field_name("body")
    statements = [c for c in body.named_children if c.type != "comment" and not (
        c.type == "expression_statement" and c.named_children and c.named_children[0].type == "string")] if body else []
    return bool(statements) and statements[0].type == "raise_statement"


def _selected(name: str, calls: dict[str, list[Node]], definition: Node, reached, path: str, device_only: bool = False
              ) -> RouteRecord | None:
    """The route chosen by a test in this file: the twin called in one arm, the extension reached from the other
    (only a device test where `device_only`: a twin found by structure, not by name). `calls`: _calls_by_name."""
    for call in calls.get(name, ()):
        if definition.start_byte <= call.start_byte < definition.end_byte:
            continue  # a call of the route in its own body
        statement, arm = _enclosing_if(call)
        if statement is None:
            statement, arm = _returning_if_before(call)
        if statement is None:
            continue
        condition = statement.child_by_field_name("condition")
        test = " ".join(parsing.text(condition).split()) if condition is not None else ""
        consequence = statement.child_by_field_name("consequence")
        alternatives = statement.children_by_field_name("alternative")
        other_body = alternatives[0].child_by_field_name("body") if len(alternatives) == 1 \
            and alternatives[0].type == "else_clause" else None
        if arm == "consequence":
            other = [other_body] if other_body is not None else (_after(statement) if _returns(consequence) else [])
        else:
            other = [consequence]
        ops, names = reached([n for n in other if n is not None])
        if not ops:
            continue
        cpu = "is_cpu" in test or "device.type" in test and any(v in test for v in CPU_VALUES)
        device = cpu or any(t in test for t in CUDA_TESTS)
        if device_only and not device:
            continue
        negated = test.startswith("not ") or "!=" in test
        twin_when_true = negated != (arm == "consequence")
        if cpu:
            kind = "cpu-test" if twin_when_true else "device-test"  # only CPU tensors take it, or all but CPU ones
        elif device and twin_when_true:
            continue  # the twin sits in the CUDA arm: not a route for NPU tensors
        else:
            kind = "device-test" if device else "flag"
        return RouteRecord(path, name, definition.start_point.row + 1, tuple(sorted(ops)), tuple(sorted(names)),
                           kind, statement.start_point.row + 1, test,
                           kind == "device-test" and not cpu and any(t in test for t in SHIM_TESTS))
    return None


def _bound_names(root: Node, top: dict[str, Node], imports: list[Node] | None = None
                 ) -> tuple[frozenset[str], frozenset[str]]:
    """The names the file binds to torch (`import torch`, `import torch.nn.functional as F`, `from torch import nn`)
    and every other name bound at module level or by an import anywhere in it (another extension, a loader's result,
    the file's own definitions). `imports`: the file's import statements (None: walked for)."""
    torch_names, other = set(), set(top)
    for node in _walk(root) if imports is None else imports:
        if node.type == "import_statement":
            for item in node.children_by_field_name("name"):
                module = item.child_by_field_name("name") if item.type == "aliased_import" else item
                alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                dotted = parsing.text(module)
                bound = parsing.text(alias) if alias is not None else dotted.split(".", 1)[0]
                (torch_names if dotted.split(".", 1)[0] == "torch" else other).add(bound)
        elif node.type == "import_from_statement":
            source = node.child_by_field_name("module_name")
            from_torch = source is not None and parsing.text(source).split(".", 1)[0] == "torch"
            for item in node.children_by_field_name("name"):
                bound = item.child_by_field_name("alias") if item.type == "aliased_import" else item
                if bound is not None:
                    (torch_names if from_torch else other).add(parsing.text(bound).split(".")[-1])
    for child in root.named_children:
        if child.type == "expression_statement" and child.named_children and child.named_children[0].type == "assignment":
            left = child.named_children[0].child_by_field_name("left")
            if left is not None and left.type == "identifier":
                other.add(parsing.text(left))
    return frozenset(torch_names), frozenset(other - torch_names)


def _torch_only(definition: Node, torch_names: frozenset[str], other_names: frozenset[str]) -> bool:
    """Every call under `definition` is a torch operation, a tensor method (on a name the file does not bind at module
    level: a parameter or local) or a Python builtin; at least one is torch's or a tensor's."""
    torch_calls = 0
    for current in _walk(definition):
        if current.type != "call":
            continue
        function = current.child_by_field_name("function")
        if function is None:
            return False
        if function.type == "identifier":
            name = parsing.text(function)
            if name in torch_names:
                torch_calls += 1
            elif name not in BUILTINS or name in other_names:
                return False
            continue
        root = function
        while root.type in {"attribute", "call", "subscript"}:
            root = root.child_by_field_name("object" if root.type != "call" else "function") \
                if root.type != "subscript" else root.child_by_field_name("value")
            if root is None:
                return False
        if root.type != "identifier" or parsing.text(root) in other_names:
            return False
        torch_calls += 1
    return torch_calls > 0


def _loop_depth(definition: Node) -> int:
    deepest, stack = 0, [(definition, 0)]
    while stack:
        node, depth = stack.pop()
        if node.type in PYTHON_LOOPS:
            depth += 1
            deepest = max(deepest, depth)
        stack.extend((c, depth) for c in node.named_children
                     if c.type not in {"function_definition", "class_definition"})
    return deepest


def _extension_ops(node: Node) -> set[str]:
    """The ops called on a compiled extension under `node` (`_C.gather_scatter(...)` → gather_scatter)."""
    ops = set()
    for current in _walk(node):
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is not None and function.type == "attribute":
                compact = "".join(parsing.text(function).split())
                if any(marker in compact for marker in COMPILED_MARKERS) and not compact.startswith("torch._C."):
                    ops.add(parsing.text(function.child_by_field_name("attribute")))
    return ops


def _applies(node: Node) -> bool:
    return any(c.type == "call" and parsing.text(c.child_by_field_name("function") or c).endswith(".apply")
               for c in _walk(node))


def _called_names(node: Node) -> set[str]:
    """Plain names called (`helper(...)`) and Functions applied (`Fn.apply(...)` → Fn) under `node`."""
    names = set()
    for current in _walk(node):
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is None:
                continue
            if function.type == "identifier":
                names.add(parsing.text(function))
            elif function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) == "apply":
                owner = function.child_by_field_name("object")
                if owner is not None and owner.type == "identifier":
                    names.add(parsing.text(owner))
    return names


def _calls_by_name(root: Node, called: list[Node] | None = None) -> dict[str, list[Node]]:
    """name → the calls of the file by that plain name (`name(...)`), in source order. `called`: the callees of every
    plain-name call, in source order (None: walked for)."""
    calls: dict[str, list[Node]] = {}
    if called is not None:
        for callee in called:
            calls.setdefault(parsing.text(callee), []).append(callee.parent)
        return calls
    for c in _walk(root):
        if c.type == "call" and (f := c.child_by_field_name("function")) is not None and f.type == "identifier":
            calls.setdefault(parsing.text(f), []).append(c)
    return calls


def _enclosing_if(node: Node) -> tuple[Node | None, str]:
    """The nearest `if` holding `node` in an arm, and which arm ("consequence" or "else"); never past a function."""
    child, current = node, node.parent
    while current is not None and current.type not in {"function_definition", "class_definition", "module"}:
        if current.type == "else_clause" and current.parent is not None and current.parent.type == "if_statement":
            return current.parent, "else"
        if current.type == "if_statement":
            consequence = current.child_by_field_name("consequence")
            if consequence is not None and consequence.id == child.id:
                return current, "consequence"
            if child.type == "elif_clause":
                return None, ""
        child, current = current, current.parent
    return None, ""


def _returning_if_before(node: Node) -> tuple[Node | None, str]:
    """The nearest `if` without else before the statement holding `node`, in the same block, whose arm returns: the
    code after it is its else (`if x.is_cuda: return Fn.apply(x)` / `return twin(x)`)."""
    statement = node
    while statement.parent is not None and statement.parent.type not in {"block", "module"}:
        if statement.type in {"function_definition", "class_definition"}:
            return None, ""
        statement = statement.parent
    previous = statement.prev_named_sibling
    while previous is not None and previous.type == "comment":
        previous = previous.prev_named_sibling
    if previous is not None and previous.type == "if_statement" \
            and not previous.children_by_field_name("alternative") and _returns(previous.child_by_field_name("consequence")):
        return previous, "else"
    return None, ""


def _returns(block: Node | None) -> bool:
    statements = [c for c in block.named_children if c.type != "comment"] if block is not None else []
    return bool(statements) and statements[-1].type in {"return_statement", "raise_statement"}


def _after(statement: Node) -> list[Node]:
    siblings, seen = [], False
    for child in statement.parent.named_children if statement.parent is not None else []:
        if seen:
            siblings.append(child)
        seen = seen or child.id == statement.id
    return siblings


def _walk(node: Node):
    return parsing.walk(node, limit=MAX_NODES, source_order=True)
