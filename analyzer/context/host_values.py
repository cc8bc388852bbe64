"""Is a tensor expression shown to be on the host (the CPU), read in its function and the file's own callers?

A value is on the host when the code puts it there on purpose: `.cpu()`, `.to("cpu")`, `torch.from_numpy(...)`, a
factory with `device="cpu"` (or `device=x.device` of such a value), and what is computed from those by calls that keep
the device (`.to(torch.float64)`, `.detach()`, `.mean()`, a subscript, `torch.cat` of a list whose every appended item is
on the host). A name is on the host when every value bound to it in the function is; a parameter when every call of
its function in the same file passes a host value there (no call in the file: unknown); a call of a function of the
file when every value it returns is. FID statistics are the shape: `features.detach().cpu().to(torch.float64)` in one
method, the float64 covariance in the methods it feeds.

A tensor made by a factory without `device=` (BARE) is on the CPU too, unless the file sets a default device
(`torch.set_default_device`, `torch.set_default_tensor_type` with a CUDA type, `with torch.device(...)`). Such a value
counts as staying on the host only while it stays in its function: a table that is returned, stored on an attribute
or registered as a buffer is usually moved to the device by another function (a RoPE table), where it is not seen."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.parsing import keywords
from tree_sitter import Node

FACTORIES = {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "randn", "rand",
             "randint", "eye", "zeros_like", "ones_like", "empty_like", "full_like"}
MOVES = {"cuda", "npu", "xpu", "mps"}
GROUPING = {"cat", "stack", "concat", "concatenate"}
SCOPES = frozenset({"function_definition", "class_definition", "lambda"})
DEPTH = 24
NO, BARE, PUT = 0, 1, 2
FUNCTION_NODES = 4000
MODULE_NODES = 200000


def on_host(node: Node, depth: int = 0, seen: frozenset = frozenset()) -> int:
    """NO, BARE (made by factories without `device=`) or PUT (the code put it on the host: `.cpu()`, `device="cpu"`,
    `torch.from_numpy`, alone or with BARE values)."""
    if node is None or depth > DEPTH:
        return NO
    kind = node.type
    if kind == "parenthesized_expression":
        return on_host(node.named_children[0], depth + 1, seen) if node.named_children else NO
    if kind == "subscript":
        return on_host(node.child_by_field_name("value"), depth + 1, seen)
    if kind == "binary_operator":
        parts = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        # a CPU tensor with a device tensor raises, so one operand on the host puts the result there (`theta ** t`)
        return max((on_host(p, depth + 1, seen) for p in parts if p is not None and not _scalar(p)), default=NO)
    if kind == "identifier":
        return _name_on_host(node, depth, seen)
    if kind == "attribute":  # `centered.T`
        if parsing.text(node.child_by_field_name("attribute")) not in {"T", "mT", "data", "real", "imag"}:
            return NO
        return on_host(node.child_by_field_name("object"), depth + 1, seen)
    if kind != "call":
        return NO
    function = node.child_by_field_name("function")
    if function is None:
        return NO
    callee = parsing.text(function)
    last = callee.rsplit(".", 1)[-1]
    if function.type == "attribute":
        owner = function.child_by_field_name("object")
        if last == "cpu" or (last == "to" and _cpu_argument(node)):
            return PUT
        if last in MOVES or (last == "to" and moves_to_device(node)):
            return NO
        if callee.startswith("torch.") or callee.startswith(("F.", "np.")):
            return _torch_call_on_host(node, callee, last, depth, seen)
        if parsing.text(owner) in {"self", "cls"}:
            return _returns_on_host(node, last, depth, seen)
        return on_host(owner, depth + 1, seen)  # a method of the tensor keeps its device
    return _returns_on_host(node, callee, depth, seen)


def device_on_host(device: Node, depth: int = 0, seen: frozenset = frozenset()) -> int:
    """`device="cpu"`, or `device=freqs.device` of a tensor the code put on the host."""
    if "cpu" in parsing.text(device):
        return PUT
    if device.type == "attribute" and parsing.text(device.child_by_field_name("attribute")) == "device":
        return PUT if on_host(device.child_by_field_name("object"), depth + 1, seen) == PUT else NO
    return NO


def moves_to_device(to_call: Node) -> bool:
    """`.to(device)`, `.to(x.device, dtype=...)`, `.to(device=d)`: not `.to(torch.float64)` or `.to(dtype=...)`."""
    arguments = to_call.child_by_field_name("arguments")
    for child in arguments.named_children if arguments is not None else []:
        text = parsing.text(child)
        if child.type == "keyword_argument":
            if parsing.text(child.child_by_field_name("name")) == "device":
                return True
        elif "dtype" not in text and "float" not in text and "torch." not in text:
            return True
    return False


def _cpu_argument(to_call: Node) -> bool:
    arguments = to_call.child_by_field_name("arguments")
    values = [c for c in (arguments.named_children if arguments is not None else [])
              if c.type != "keyword_argument" or parsing.text(c.child_by_field_name("name")) == "device"]
    return bool(values) and all(parsing.text(v.child_by_field_name("value") if v.type == "keyword_argument" else v)
                                .strip("'\"") == "cpu" for v in values[:1])


def _torch_call_on_host(call: Node, callee: str, last: str, depth: int, seen: frozenset) -> int:
    if callee == "torch.from_numpy":
        return PUT
    if last in FACTORIES:
        device = keywords(call).get("device")
        if device is None and _default_device(call):
            return NO  # `with torch.device("cuda"):` or `torch.set_default_device(...)`: factories follow it
        if device is None:
            return BARE if not last.endswith("_like") else _all(on_host(v, depth + 1, seen) for v in positional_arguments(call)[:1])
        return device_on_host(device, depth, seen)
    values = positional_arguments(call)
    if last in GROUPING:
        return _grouped_on_host(values[0], depth, seen) if values else NO
    tensors = [v for v in values if v.type not in {"integer", "float", "string", "keyword_argument"}]
    return _all(on_host(v, depth + 1, seen) for v in tensors)


def _default_device(call: Node) -> bool:
    """Factories without `device=` may not make CPU tensors here: a `with torch.device(...)` around the call, or a
    file that sets the default device."""
    current = call.parent
    while current is not None:
        if current.type == "with_statement" and "device(" in parsing.text(current.child(1) or current):
            return "cpu" not in parsing.text(current.child(1) or current)
        current = current.parent
    return sets_default_device(call)


def sets_default_device(node: Node) -> bool:
    """Does the file call `torch.set_default_device(...)`, or `torch.set_default_tensor_type(...)` with a CUDA type
    (`torch.cuda.FloatTensor`, "torch.cuda.HalfTensor")? Factories without `device=` then make device tensors."""
    root = parsing.root_of(node)
    key = (root.id, root.end_byte)
    if not _DEFAULT_DEVICE or _DEFAULT_DEVICE[0] != key:
        _DEFAULT_DEVICE[:] = [key, _default_device_call(root)]
    return _DEFAULT_DEVICE[1]


_DEFAULT_DEVICE: list = []  # [(root id, root end byte), whether the file sets a default device]: the file being scanned


def _default_device_call(root: Node) -> bool:
    try:
        for current in parsing.walk(root, limit=MODULE_NODES, strict=True):
            if current.type != "call":
                continue
            function = current.child_by_field_name("function")
            last = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
            if last == "set_default_device":
                return True
            if last == "set_default_tensor_type" and "cuda" in parsing.text(current.child_by_field_name("arguments")):
                return True
    except parsing.WalkLimit:
        return True
    return False


def _grouped_on_host(items: Node, depth: int, seen: frozenset) -> int:
    """`torch.cat(activations)` where every `activations.append(v)` in the function appends a host value."""
    if items.type in {"list", "tuple"}:
        return _all(on_host(v, depth + 1, seen) for v in items.named_children)
    if items.type != "identifier":
        return NO
    name = parsing.text(items)
    function = _function(items)
    if function is None:
        return NO
    appended = []
    for node in _nodes(function):
        if node.type == "call":
            target = node.child_by_field_name("function")
            if (target is not None and target.type == "attribute" and parsing.text(target) in {f"{name}.append", f"{name}.extend"}):
                appended.extend(positional_arguments(node)[:1])
    return _all(on_host(v, depth + 1, seen) for v in appended)


def _name_on_host(name: Node, depth: int, seen: frozenset) -> int:
    text = parsing.text(name)
    function = _function(name)
    if function is None or (text, name.start_byte) in seen:
        return NO
    seen = seen | {(text, name.start_byte)}
    values, conditional = [], False
    body = function.child_by_field_name("body")
    for node in _nodes(function):
        if node.type == "assignment" and node.end_byte <= name.start_byte:
            conditional = conditional or node.parent is None or node.parent.parent != body
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                continue
            if left.type == "identifier" and parsing.text(left) == text:
                if right.type == "list" and not right.named_children:
                    return _grouped_on_host(left, depth, seen)  # `activations = []`, filled by appends
                values.append(right)
            elif left.type in {"pattern_list", "tuple_pattern"} and text in {parsing.text(c) for c in left.named_children}:
                values.append(right)  # `mean1, covariance1 = self.statistics(...)`: every value returned
    if values and not (conditional and _parameter(function, text)):
        return _all(on_host(v, depth + 1, seen) for v in values)
    if values:  # `if not torch.is_tensor(x): x = torch.tensor(x)`: the argument itself may still arrive as it was
        return _all([*(on_host(v, depth + 1, seen) for v in values), _parameter_on_host(function, text, depth, seen)])
    return _parameter_on_host(function, text, depth, seen)


def _parameter(function: Node, name: str) -> bool:
    return name in _parameter_names(function)


def _parameter_names(function: Node) -> list[str]:
    parameters = function.child_by_field_name("parameters")
    names = []
    for child in parameters.named_children if parameters is not None else []:
        target = child if child.type == "identifier" else child.child_by_field_name("name") or (
            child.named_children[0] if child.named_children else None)
        names.append(parsing.text(target) if target is not None else "")
    return names


def _parameter_on_host(function: Node, name: str, depth: int, seen: frozenset) -> int:
    """Every call of the function in this file passes a host value for the parameter."""
    names = _parameter_names(function)
    if name not in names:
        return NO
    index = names.index(name)
    if names and names[0] in {"self", "cls"}:
        index -= 1
    defined = parsing.text(function.child_by_field_name("name"))
    calls = _calls_of(function, defined)
    passed = []
    for call in calls:
        value = keywords(call).get(name)
        if value is None:
            values = positional_arguments(call)
            value = values[index] if 0 <= index < len(values) else None
        if value is None:
            return NO
        passed.append(value)
    return _all(on_host(v, depth + 1, seen) for v in passed)


def _returns_on_host(call: Node, name: str, depth: int, seen: frozenset) -> int:
    """A call of a function defined in this file whose every returned value is on the host."""
    definition = _definition(call, name)
    if definition is None or (definition.id, "return") in seen:
        return NO
    seen = seen | {(definition.id, "return")}
    returned = [r.named_children[0] for r in _nodes(definition) if r.type == "return_statement" and r.named_children]
    values = []
    for value in returned:
        values.extend(value.named_children if value.type in {"expression_list", "tuple"} else [value])
    return _all(on_host(v, depth + 1, seen) for v in values)


def _definition(node: Node, name: str) -> Node | None:
    found = _module(node)[0].get(name.rsplit(".", 1)[-1], [])
    return found[0] if len(found) == 1 else None


def _calls_of(function: Node, name: str) -> list[Node]:
    """The file's calls of `name(...)` or `<anything>.name(...)`."""
    return _module(function)[1].get(name, [])


_INDEX: list = []  # [(root id, root end byte), definitions by name, calls by last name]: the file being scanned


def _module(node: Node) -> tuple[dict[str, list[Node]], dict[str, list[Node]]]:
    root = parsing.root_of(node)
    key = (root.id, root.end_byte)
    if not _INDEX or _INDEX[0] != key:
        definitions: dict[str, list[Node]] = {}
        calls: dict[str, list[Node]] = {}
        for current in parsing.walk(root, limit=MODULE_NODES):
            if current.type == "function_definition":
                definitions.setdefault(parsing.text(current.child_by_field_name("name")), []).append(current)
            elif current.type == "call":
                target = current.child_by_field_name("function")
                if target is not None and target.type in {"identifier", "attribute"}:
                    calls.setdefault(parsing.text(target).rsplit(".", 1)[-1], []).append(current)
        _INDEX[:] = [key, definitions, calls]
    return _INDEX[1], _INDEX[2]


def _scalar(node: Node) -> bool:
    """A number, or arithmetic on sizes: `(activations.shape[0] - 1)`, `len(x)`, `x.size(0)`."""
    if node.type in {"integer", "float"}:
        return True
    if node.type == "parenthesized_expression":
        return bool(node.named_children) and _scalar(node.named_children[0])
    if node.type == "binary_operator":
        return all(_scalar(p) for p in (node.child_by_field_name("left"), node.child_by_field_name("right")) if p is not None)
    text = parsing.text(node)
    if node.type == "subscript":
        return text.split("[", 1)[0].endswith(".shape")
    if node.type == "call":
        return text.startswith(("len(", "math.")) or text.split("(", 1)[0].endswith((".size", ".numel", ".dim"))
    return node.type == "attribute" and text.endswith((".ndim",))


def read_back_later(call: Node) -> bool:
    """`x = x.transpose(1, 2).double()` whose binding the function later reads with `x.numpy()` (no `force=`, no
    rebinding of x between): numpy() raises on a device tensor, so the function only ever runs on host tensors, and
    the cast keeps float64 (demucs' eval_track, whose caller moves both tensors to `eval_device = 'cpu'`)."""
    assignment = parsing.assignment_of(call)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    scope = _function(call)
    if left is None or left.type != "identifier" or scope is None:
        return False
    name = parsing.text(left)
    rebound, reads = [], []  # after the cast: where the name is bound again (its end), where `name.numpy()` starts
    for node in _nodes(scope):  # (not in source order)
        if node.start_byte <= assignment.end_byte:
            continue
        if node.type in {"assignment", "augmented_assignment", "for_statement"}:
            target = node.child_by_field_name("left")
            if target is not None and name in {parsing.text(n) for n in parsing.walk(target) if n.type == "identifier"}:
                rebound.append(node.end_byte)  # `x = x.numpy()` reads the old binding
        elif node.type == "call":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is not None and function.type == "attribute" \
                    and parsing.text(function.child_by_field_name("attribute")) == "numpy" \
                    and parsing.text(function.child_by_field_name("object")) == name \
                    and arguments is not None and not arguments.named_children:
                reads.append(node.start_byte)
    return any(not any(end <= start for end in rebound) for start in reads)


def _function(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in {"function_definition", "lambda", "class_definition", "module"}:
        current = current.parent
    return current if current is not None and current.type == "function_definition" else None


def _nodes(function: Node):
    return parsing.walk(function, limit=FUNCTION_NODES, prune=SCOPES, enter_root=True)


def _all(levels) -> int:
    """NO if there is no value or one is NO, else the highest level: a value put on the host stays PUT when a
    factory-made (BARE) one joins it (`torch.zeros(...)` as the other arm of FID's covariance)."""
    found = NO
    for level in levels:
        if level == NO:
            return NO
        found = max(found, level)
    return found


def tensor_arguments(call: Node) -> list[Node]:
    """A call's positional arguments that may be tensors (not numbers, strings or sizes)."""
    return [v for v in positional_arguments(call) if v.type != "string" and not _scalar(v)]


def positional_arguments(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return [c for c in (arguments.named_children if arguments is not None else [])
            if c.type not in {"keyword_argument", "comment", "list_splat", "dictionary_splat"}]


def stays_on_host(call: Node, moved_in_statement: bool) -> bool:
    """A float64 conversion of a host value that is not moved to a device afterwards: not in its own statement, and,
    when it is bound to a name, no `name.to(device)` / `name.cuda()` later in the function."""
    function = call.child_by_field_name("function")
    receiver = function.child_by_field_name("object") if function is not None and function.type == "attribute" else None
    level = on_host(receiver) if receiver is not None and not moved_in_statement else NO
    if level == NO or (level == BARE and _handed_out(call)):
        return False
    if level == BARE and _binding_handed_out(call):
        return False
    assignment = parsing.assignment_of(call)
    if assignment is None:
        return True
    left = assignment.child_by_field_name("left")
    name = parsing.text(left) if left is not None and left.type == "identifier" else None
    scope = _function(call)
    if name is None or scope is None:
        return name is None and left is not None and left.type != "attribute"
    for node in _nodes(scope):
        if node.type == "call" and node.start_byte > assignment.end_byte:
            target = node.child_by_field_name("function")
            if target is None or target.type != "attribute":
                continue
            if parsing.text(target.child_by_field_name("object")) != name:
                continue
            method = parsing.text(target.child_by_field_name("attribute"))
            if method in MOVES or (method == "to" and moves_to_device(node)):
                return False
    return True


HAND_OUT_CALLS = frozenset({"register_buffer", "Parameter", "register_parameter"})
READ_BACK = frozenset({"numpy", "tolist", "item"})


def _handed_out(value: Node) -> bool:
    """The value leaves its function in its own statement: returned or yielded, stored on an attribute
    (`self.freqs = ...`), or registered as a buffer or a parameter."""
    current = value.parent
    while current is not None and current.type not in {"function_definition", "lambda", "class_definition", "module"}:
        if current.type == "attribute" and parsing.text(current.child_by_field_name("attribute")) in READ_BACK:
            return False  # `return table.float().numpy()`: what leaves is no tensor
        if current.type in {"return_statement", "yield"}:
            return True
        if current.type == "assignment":
            left = current.child_by_field_name("left")
            if left is not None and left.type == "attribute":
                return True
        if current.type == "call" and _hand_out_call(current):
            return True
        if current.type.endswith("statement") and current.type != "expression_statement":
            return False
        current = current.parent
    return False


def _binding_handed_out(value: Node) -> bool:
    """The name its statement binds (`freqs = torch.arange(n).double() / n`) leaves the function later: `return freqs`,
    `self.table = freqs`, `self.register_buffer("t", freqs)`."""
    current = value.parent
    while current is not None and current.type != "assignment" and not current.type.endswith(("statement", "definition")):
        current = current.parent
    left = current.child_by_field_name("left") if current is not None and current.type == "assignment" else None
    scope = _function(value)
    if left is None or left.type != "identifier" or scope is None:
        return False
    name = parsing.text(left)
    return any(node.type == "identifier" and node.start_byte > current.end_byte and parsing.text(node) == name
               and _handed_out(node) for node in _nodes(scope))


def _hand_out_call(call: Node) -> bool:
    function = call.child_by_field_name("function")
    return function is not None and parsing.text(function).rsplit(".", 1)[-1] in HAND_OUT_CALLS
