"""Where a precision rule's premise does not hold, read from the function's own code.

- A float32 assertion on a value that type promotion makes float32 on every device: `table + temb.float()` is
  float32 whatever `table` is (a bf16/fp16 tensor plus a float32 tensor promotes to float32), and element-wise
  arithmetic is no autocast op, so neither NPU autocast nor a fused operator changes it (`promoted_float32`).
- `.double()` whose value only feeds element-wise arithmetic that the function returns cast back to another dtype
  (`return pred.to(dtype)`), with no reduction, accumulation, matmul, loop or transcendental function on the way: if
  the NPU runs it in float32 (a dtype-only cast to double is replaced by float there), the returned bf16/fp32 value
  is the same up to that dtype's rounding (`cast_back`).
- A few literal values made in float64 on the device (`torch.tensor([a, *mid, 0], dtype=torch.float64,
  device=device)`) that only feed element-wise operators with DOUBLE kernels on the NPU (`elementwise_table`).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

ARITHMETIC = {"+", "-", "*", "/"}
# methods that keep their receiver's dtype: a float32 value stays float32 through them
SAME_DTYPE = {"chunk", "unbind", "split", "view", "reshape", "squeeze", "unsqueeze", "permute", "transpose", "contiguous",
              "clone", "expand", "expand_as", "flatten", "repeat", "narrow", "detach", "movedim", "view_as"}
FLOAT32_NAMES = {"torch.float32", "torch.float"}
WIDE_TEXT = ("double", "float64")
SCOPE_TYPES = frozenset({"function_definition", "lambda", "class_definition"})
# the calls a cast-back function may make: element-wise arithmetic, shape and index work, casts and moves. Anything
# else (a reduction, a matmul, a transcendental function whose float32 error grows with its argument, a call into a
# model or a helper this reading does not see) may make float32 differ beyond the returned dtype's rounding.
CAST_BACK_CALLS = {"double", "to", "float", "half", "bfloat16", "type_as", "unsqueeze", "squeeze", "reshape", "view",
                   "view_as", "flatten", "expand", "expand_as", "permute", "transpose", "contiguous", "clone", "detach",
                   "chunk", "split", "argmin", "argmax", "abs", "neg", "clamp", "clip", "where", "add", "sub", "mul",
                   "div", "sqrt", "rsqrt", "zeros_like", "ones_like", "full_like", "index_select", "gather", "size",
                   "dim", "len", "isinstance", "sign"}
LOOPS = {"for_statement", "while_statement", "list_comprehension", "generator_expression", "set_comprehension",
         "dictionary_comprehension"}
NARROW_CASTS = {"float", "half", "bfloat16", "type_as"}
# element-wise operators whose NPU kernels take DOUBLE (CANN aclnnSin, aclnnCos, aclnnAdd/Adds, aclnnSub,
# aclnnMul/Muls, aclnnDiv: knowledge/precision/rules_idioms.toml, PRC046's references)
DOUBLE_ELEMENTWISE = {"sin", "cos", "clone", "neg", "abs"}
# operators that raise or fall back on float64 on the NPU, and collectives that reject it
FLOAT64_TROUBLE = {"sort", "argsort", "topk", "interpolate", "upsample_bilinear", "upsample", "all_reduce", "reduce",
                   "reduce_scatter", "reduce_scatter_tensor"}
MAX_DEPTH = 3


def promoted_float32(assertion: Node) -> bool:
    """Every `<name>.dtype` the assertion reads is bound, earlier in its function, to a value that promotion or an
    explicit cast makes float32: `shift, scale = (self.table + temb.float()).chunk(2, dim=1)`."""
    function = _function(assertion)
    if function is None:
        return False
    names = []
    for node in parsing.walk(assertion):
        if node.type == "attribute" and parsing.text(node.child_by_field_name("attribute")) == "dtype":
            owner = node.child_by_field_name("object")
            if owner is None or owner.type != "identifier":
                return False
            names.append(parsing.text(owner))
    return bool(names) and all(_float32_name(name, assertion.start_byte, function, 0) for name in names)


def _float32_name(name: str, before: int, function: Node, depth: int) -> bool:
    binding = _last_binding(name, before, function)
    if binding is None:
        return False
    value = binding.child_by_field_name("right")
    return value is not None and _float32_value(value, binding.start_byte, function, depth)


def _float32_value(value: Node, before: int, function: Node, depth: int) -> bool:
    value = _strip_same_dtype(value)
    if explicit_float32(value):
        return True
    if value.type == "binary_operator":
        operator = value.child_by_field_name("operator")
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        if operator is None or parsing.text(operator) not in ARITHMETIC or left is None or right is None:
            return False
        if any(token in parsing.text(value) for token in WIDE_TEXT):
            return False  # a float64 operand would promote past float32
        return _float32_value(left, before, function, depth) or _float32_value(right, before, function, depth)
    if value.type == "identifier" and depth < MAX_DEPTH:
        return _float32_name(parsing.text(value), before, function, depth + 1)
    return False


def _strip_same_dtype(value: Node) -> Node:
    for _ in range(12):
        if value.type == "parenthesized_expression" and value.named_children:
            value = value.named_children[0]
        elif value.type == "subscript":
            value = value.child_by_field_name("value") or value
            if value.type == "subscript":
                continue
        elif value.type == "call" and _method(value) in SAME_DTYPE:
            value = value.child_by_field_name("function").child_by_field_name("object")
        else:
            break
    return value


def explicit_float32(value: Node) -> bool:
    """`x.float()`, `x.to(torch.float32)`, `x.to(dtype=torch.float)`, `x.type(torch.float32)`."""
    method = _method(value) if value.type == "call" else None
    arguments = value.child_by_field_name("arguments") if method else None
    values = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
    if method == "float":
        return not values
    if method in {"to", "type"} and values:
        last = values[-1]
        if last.type == "keyword_argument" and parsing.text(last.child_by_field_name("name")) == "dtype":
            last = last.child_by_field_name("value")
        return last is not None and parsing.text(last) in FLOAT32_NAMES and not any(
            v.type == "keyword_argument" and parsing.text(v.child_by_field_name("name")) == "device" for v in values)
    return False


def cast_back(call: Node) -> bool:
    """`.double()` in a function whose every return is a value cast back to a narrower dtype (`.to(dtype)` of a
    name or `.dtype` attribute, `.float()`, `.half()`, `.bfloat16()`, `.type_as(x)`), with nothing between that
    float32 would compute differently (only CAST_BACK_CALLS, no `@`, `**` or loop) and nothing kept on `self`."""
    function = _function(call)
    if function is None:
        return False
    returns = []
    for node in _own_nodes(function):
        if node.type in LOOPS and not _maps_a_literal(node):
            return False  # `for` and comprehensions over data accumulate; one over a literal tuple only maps casts
        if node.type == "call" and _last_name(node) not in CAST_BACK_CALLS:
            return False
        if node.type == "binary_operator" and parsing.text(node.child_by_field_name("operator")) in {"@", "**"}:
            return False
        if node.type in {"assignment", "augmented_assignment"}:
            left = node.child_by_field_name("left")
            if left is not None and left.type in {"attribute", "subscript"}:
                return False  # stored beyond the function: its later use is not read here
        if node.type in {"yield", "global_statement", "nonlocal_statement"}:
            return False
        if node.type == "return_statement":
            returns.append(node)
    if not returns:
        return False
    for statement in returns:
        values = [v for v in statement.named_children if v.type != "comment"]
        if len(values) != 1:
            return False
        value = values[0]
        parts = value.named_children if value.type in {"tuple", "expression_list"} else [value]
        if not parts or not all(_narrowing_cast(part) for part in parts):
            return False
    return True


def _maps_a_literal(node: Node) -> bool:
    """`(x.double().to(device) for x in (flow_pred, xt, sigmas))`: a comprehension over a literal tuple or list of
    names, applying the same cast to each: no accumulation."""
    if node.type not in {"generator_expression", "list_comprehension"}:
        return False
    clauses = [c for c in node.named_children if c.type in {"for_in_clause", "if_clause"}]
    if len(clauses) != 1 or clauses[0].type != "for_in_clause":
        return False
    iterated = clauses[0].child_by_field_name("right")
    return iterated is not None and iterated.type in {"tuple", "list"} and all(
        item.type in {"identifier", "attribute"} for item in iterated.named_children)


def _narrowing_cast(value: Node) -> bool:
    if value.type != "call":
        return False
    method = _method(value)
    arguments = value.child_by_field_name("arguments")
    values = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
    if method in NARROW_CASTS:
        return method == "type_as" or not values
    if method != "to" or len(values) != 1:
        return False
    target = values[0]
    if target.type == "keyword_argument":
        if parsing.text(target.child_by_field_name("name")) != "dtype":
            return False
        target = target.child_by_field_name("value")
    if target is None or any(token in parsing.text(target) for token in WIDE_TEXT):
        return False
    text = parsing.text(target)
    if target.type == "identifier":
        return "dtype" in text.lower()
    if target.type == "attribute":
        return text.endswith(".dtype") or text in {"torch.float32", "torch.float", "torch.bfloat16", "torch.float16",
                                                   "torch.half"}
    return False


def elementwise_table(call: Node, name: str, after: int) -> bool:
    """`t = torch.tensor([a, *mid, 0], dtype=torch.float64, device=d)`: a literal list made on the device whose every
    later use in the function is an operand of `+ - * /` or the argument of an element-wise operator with a DOUBLE
    kernel (`torch.sin(t)`, `t.cos()`), and the function sorts, resamples or reduces across processes nothing."""
    function_node = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    values = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
    if function_node is None or parsing.text(function_node).rsplit(".", 1)[-1] != "tensor" or not values:
        return False
    if values[0].type not in {"list", "tuple"}:
        return False
    scope = _function(call)
    if scope is None:
        return False
    uses = 0
    for node in _own_nodes(scope):
        if node.type == "call" and _last_name(node) in FLOAT64_TROUBLE:
            return False
        if node.type != "identifier" or node.start_byte < after or parsing.text(node) != name:
            continue
        parent = node.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            continue
        if not _elementwise_use(node):
            return False
        uses += 1
    return uses > 0


def _elementwise_use(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "binary_operator":
        return parsing.text(parent.child_by_field_name("operator")) in ARITHMETIC
    if parent.type == "unary_operator":
        return True
    if parent.type == "attribute" and parent.child_by_field_name("object") == node:
        outer = parent.parent
        return (outer is not None and outer.type == "call"
                and parsing.text(parent.child_by_field_name("attribute")) in DOUBLE_ELEMENTWISE)
    if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call":
        return _last_name(parent.parent) in DOUBLE_ELEMENTWISE and len(parent.named_children) == 1
    return False


def _method(call: Node) -> str | None:
    function = call.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return None
    return parsing.text(function.child_by_field_name("attribute"))


def _last_name(call: Node) -> str:
    function = call.child_by_field_name("function")
    return parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""


def _function(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in SCOPE_TYPES:
        current = current.parent
    return current if current is not None and current.type == "function_definition" else None


def _own_nodes(function: Node):
    """The function's nodes, nested functions and classes left out."""
    return parsing.walk(function, limit=20000, prune=SCOPE_TYPES, enter_root=True)


def _last_binding(name: str, before: int, function: Node) -> Node | None:
    """The last assignment before `before` in the function that binds `name` (alone or in a tuple target)."""
    found = None
    for node in _own_nodes(function):
        if node.type != "assignment" or node.start_byte >= before:
            continue
        left = node.child_by_field_name("left")
        if left is None:
            continue
        targets = [left] if left.type == "identifier" else [
            t for t in left.named_children if t.type == "identifier"] if left.type in {"pattern_list", "tuple_pattern"} else []
        if any(parsing.text(t) == name for t in targets) and (found is None or node.start_byte > found.start_byte):
            found = node
    return found
