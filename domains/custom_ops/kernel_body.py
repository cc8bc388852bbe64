"""What a CUDA kernel's body shows about what it computes, read from its syntax tree: a recurrence (a value carried from
one iteration of a loop to the next while each iteration writes an output: a scan over the sequence, as the RWKV WKV
kernels are) or elementwise math (no loop, no shared memory, no warp or atomic operations: each thread computes its
own outputs from its inputs). The kernel's name says what its authors called it; these say what it does, so they
override a name that claims less (knowledge.classify_kernel's callers decide where)."""

from __future__ import annotations

from typing import Literal

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

Shape = Literal["recurrence", "elementwise", "running_product", "iterative_selection", "segmented_reduction",
                "group_rank", "gathered_sum"]

MAX_BODY_BYTES = 200_000  # a generated kernel past this is read by its name alone
MAX_LOOPS = 200
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
    if body is None or body.end_byte - body.start_byte > MAX_BODY_BYTES:
        return None
    declarator = function.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters") if declarator is not None else None
    parameters = {_declared_name(p) for p in params.named_children} if params is not None else set()
    declared = _declarations(body)
    # the kernel's outputs: its parameters and the pointers it derives from them (`y = _y + offset`), not shared memory
    memory = parameters | {_declared_name(node) for node in _walk(body) if node.type == "init_declarator"
                           and declared.get(_declared_name(node), (False, False))[0]
                           and node.child_by_field_name("value") is not None
                           and _value_names(node.child_by_field_name("value")) & parameters}
    loops = [node for node in _walk(body) if node.type in LOOPS]
    products = False
    for loop in loops[:MAX_LOOPS]:
        if _selects(loop, declared):
            return "iterative_selection"
        running = _running_products(loop, declared)
        if _recurrent(loop, declared, memory, running):
            return "recurrence"
        products = products or bool(running)
    if products and b"__shared__" not in body.text:
        return "running_product"
    if b"__shared__" in body.text:
        return None
    if not loops:
        counted = _atomic_shape(body, declared)
        if counted is not None:
            return counted
    if any(_segmented_sum(loop, body, declared, memory) for loop in loops[:MAX_LOOPS]):
        return "segmented_reduction"
    if not _atomic_calls(body) and any(_gathered_sum(loop, body, memory) for loop in loops[:MAX_LOOPS]):
        return "gathered_sum"
    calls = _calls(body)
    if loops or calls & own_loops or _atomic_calls(body) or any(name in SYNCHRONISING or name.startswith("__shfl")
                                                                  for name in calls):
        return None
    return "elementwise"


# threads that wait for each other trade values: a block reduction through a helper of another file (XMem's syncbn
# `reduce<...>(...); __syncthreads();`) is no elementwise math
SYNCHRONISING = frozenset({"__syncthreads", "__syncwarp", "__syncthreads_or", "__syncthreads_and", "__syncthreads_count"})


ATOMIC_ADD = "atomicAdd"


def _atomic_calls(node: Node) -> list[Node]:
    """The calls of atomic operations (atomicAdd, atomicMax, atomicCAS, ...) under `node`, by the called name."""
    return [current for current in _walk(node) if current.type == "call_expression"
            and _plain(current.child_by_field_name("function")).startswith("atomic")]


def _atomic_shape(body: Node, declared: dict[str, tuple[bool, bool]]) -> Shape | None:
    """A loop-free body whose only atomics are atomicAdd into a slot addressed by a value read from an index array:
    `cnt = atomicAdd(&counter[key[i]], 1)` whose result is kept numbers each group's members (group_rank); an
    atomicAdd whose result is dropped adds into the indexed slot (a scatter-add, the segmented_reduction class)."""
    calls = _atomic_calls(body)
    if not calls or any(_plain(call.child_by_field_name("function")) != ATOMIC_ADD for call in calls):
        return None
    loaded = _loaded_from_arrays(body)
    kept = False
    for call in calls:
        arguments = [child for child in (call.child_by_field_name("arguments") or call).named_children]
        if len(arguments) != 2 or not _addresses_by_loaded(arguments[0], loaded):
            return None
        parent = call.parent
        while parent is not None and parent.type in {"parenthesized_expression", "cast_expression"}:
            parent = parent.parent
        if parent is not None and parent.type in {"init_declarator", "assignment_expression"}:
            if _text(arguments[1]).strip() != "1":
                return None
            kept = True
        elif parent is None or parent.type != "expression_statement":
            return None
    return "group_rank" if kept else "segmented_reduction"


def _loaded_from_arrays(body: Node) -> set[str]:
    """The variables the body initialises or assigns from an array element (`long g = group_inds[idx]`)."""
    names = set()
    for node in _walk(body):
        whole = node.type == "init_declarator" or (node.type == "assignment_expression"
                                                   and getattr(node.child_by_field_name("left"), "type", "") == "identifier")
        target, value = _target_and_value(node) if whole else (None, None)
        if target and value is not None and any(n.type == "subscript_expression" for n in _walk(value)):
            names.add(target)
    return names


def _addresses_by_loaded(address: Node, loaded: set[str]) -> bool:
    """Does an atomic's address name an array element read from memory or a variable loaded from one (`&c[key[i]]`,
    `out + idx[0]`)? An address computed from thread indices alone is no scatter."""
    for node in _walk(address):
        if node.type == "subscript_expression" and not (node.parent is not None and node.parent.type == "pointer_expression"):
            return True  # an element read inside the address (`&c[key[i]]`'s key[i], `out + idx[0]`), not `&c[i]` itself
        if node.type == "identifier" and _text(node) in loaded:
            return True
    return False


def _segmented_sum(loop: Node, body: Node, declared: dict[str, tuple[bool, bool]], memory: set[str]) -> bool:
    """Does `loop` add loaded elements into an accumulator declared before it (`psum += cur_x[i * c]`), over a trip count
    read from an index array (`interval_length = interval_lengths[index]`), the accumulator then stored once after the
    loop? A segmented sum: BEVFusion's bev_pool_kernel."""
    condition = loop.child_by_field_name("condition")
    loaded = _loaded_from_arrays(body)
    if condition is None or not ({_text(n) for n in _walk(condition) if n.type == "identifier"} & loaded
                                 or any(n.type == "subscript_expression" for n in _walk(condition))):
        return False
    inner = _declarations(loop)
    data = {name for name, (pointer, integral) in declared.items() if name not in inner and not pointer and not integral}
    accumulators = set()
    for node in _walk(loop.child_by_field_name("body") or loop):
        if node.type == "assignment_expression" and _text(node.child_by_field_name("operator")) == "+=":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and _text(left) in data and right is not None \
                    and any(n.type in {"subscript_expression", "pointer_expression"} for n in _walk(right)):
                accumulators.add(_text(left))
    if not accumulators:
        return False
    for node in _walk(body):
        if node.type == "assignment_expression" and not (loop.start_byte <= node.start_byte < loop.end_byte):
            left, value = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and value is not None and left.type in {"subscript_expression", "pointer_expression"} \
                    and _base_name(left) in memory and _value_names(value) & accumulators:
                return True
    return False


def _gathered_sum(loop: Node, body: Node, memory: set[str]) -> bool:
    """Does `loop` add into an output element (`output[index] += ...`, a kernel output addressed without a loaded
    index) values that read an element addressed through a value loaded from an index array (`input[input_idx]` with
    `input_idx = idx[i] * c + c_idx`, or `input[idx[i]]`)? A gather of each output's neighbours and a weighted sum over
    them: pointops' aggregation and interpolation kernels (round 39 verdicts)."""
    loaded = _loaded_from_arrays(body)
    for node in _walk(loop.child_by_field_name("body") or loop):
        if node.type != "assignment_expression" or _text(node.child_by_field_name("operator")) != "+=":
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "subscript_expression" or _base_name(left) not in memory \
                or _addresses_by_loaded(left.child_by_field_name("indices") or left, loaded):
            continue
        if any(n.type == "subscript_expression" and _base_name(n) in memory
               and _addresses_by_loaded(n.child_by_field_name("indices") or n, loaded) for n in _walk(right)):
            return True
    return False


def _plain(function: Node | None) -> str:
    return _text(function).split("<", 1)[0].split("::")[-1].strip() if function is not None else ""


def loops_in(function: Node) -> bool:
    body = function.child_by_field_name("body")
    return body is not None and any(node.type in LOOPS for node in _walk(body))


def _running_products(loop: Node, declared: dict[str, tuple[bool, bool]]) -> set[str]:
    """The data values declared outside `loop` that each of its iterations only multiplies by a factor not naming them
    (`cum = cum * (1 - alpha)`, `t *= 1 - a`): an exclusive cumulative product over the loop's axis (torch.cumprod),
    not a state recurrence (RWKV's `s = s * w + k * v` adds a term)."""
    inner = _declarations(loop)
    data = {name for name, (pointer, integral) in declared.items() if name not in inner and not pointer and not integral}
    writes: dict[str, list[bool]] = {}
    for node in _walk(loop.child_by_field_name("body") or loop):
        if node.type == "update_expression":
            name = _base_name(node.child_by_field_name("argument"))
            if name in data:
                writes.setdefault(name, []).append(False)
        if node.type != "assignment_expression":
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier" or _text(left) not in data:
            continue
        name, operator = _text(left), _text(node.child_by_field_name("operator"))
        if operator == "*=":
            product = name not in _value_names(right)
        elif operator == "=":
            product = _scaled_by_itself(right, name)
        else:
            product = False
        writes.setdefault(name, []).append(product)
    return {name for name, kinds in writes.items() if all(kinds)}


def _scaled_by_itself(value: Node, name: str) -> bool:
    """Is `value` `name * factor` or `factor * name`, the factor not naming `name`?"""
    while value.type == "parenthesized_expression" and value.named_children:
        value = value.named_children[0]
    if value.type != "binary_expression" or _text(value.child_by_field_name("operator")) != "*":
        return False
    left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
    for own, factor in ((left, right), (right, left)):
        if own is not None and own.type == "identifier" and _text(own) == name and factor is not None \
                and name not in _value_names(factor):
            return True
    return False


def _selects(loop: Node, declared: dict[str, tuple[bool, bool]]) -> bool:
    """Does each iteration of `loop` use an index chosen by the previous one, chosen by an arg-max or arg-min
    reduction (farthest-point sampling: measure from the last selected point, select the farthest, repeat)? An index
    declared outside the loop, read first in an iteration and assigned from an expression naming argmax/argmin."""
    inner = _declarations(loop)
    indices = {name for name, (pointer, integral) in declared.items() if name not in inner and not pointer and integral}
    if not indices:
        return False
    chosen = set()
    for node in _walk(loop.child_by_field_name("body") or loop):
        if node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and _text(left) in indices and right is not None:
                text = _text(right).lower()
                if "argmax" in text or "argmin" in text:
                    chosen.add(_text(left))
    if not chosen:
        return False
    own = set(_declarations(loop, nested=False))
    first: dict[str, bool] = {}
    for kind, name in _events(loop.child_by_field_name("body") or loop, own):
        first.setdefault(name, kind == "read")
    return any(first.get(name) for name in chosen)


def _recurrent(loop: Node, declared: dict[str, tuple[bool, bool]], memory: set[str],
               running: set[str] = frozenset()) -> bool:
    """Does an iteration of `loop` read a data value the previous one wrote, and write an output that depends on it?
    `running`: the loop's running products, a cumulative product rather than a state."""
    inner = _declarations(loop)
    # an element addressed by what this iteration itself declares (its counter, `idx = t * C + i`) is this iteration's
    # own: reading or writing it carries nothing over (a nested loop's counter sweeps the whole array, so it does)
    own = set(_declarations(loop, nested=False))
    # `float& s = state[j]`: a write to s is a write to state
    aliases = {_declared_name(node): _base_name(node.child_by_field_name("value")) for node in _walk(loop)
               if node.type == "init_declarator" and node.child_by_field_name("value") is not None
               and _declarator_kind(node.child_by_field_name("declarator")) == "reference_declarator"}
    events = [(kind, aliases.get(name) or name) for kind, name in _events(loop.child_by_field_name("body") or loop, own)]
    data = {name for name, (pointer, integral) in declared.items() if name not in inner and not pointer and not integral}
    first: dict[str, bool] = {}  # name → its first evaluated occurrence in an iteration reads it
    written = set()
    for kind, name in events:
        first.setdefault(name, kind == "read")
        if kind in {"write", "update"}:
            written.add(name)
    carried = {name for name in data & written if first.get(name)} - running
    if not carried:
        return False
    assignments = [node for node in _walk(loop) if node.type in {"assignment_expression", "init_declarator"}]
    flows = []  # (the variable an assignment writes, the variables its value is computed from)
    for node in assignments:
        target, value = _target_and_value(node)
        if target and value is not None:
            flows.append((aliases.get(target) or target, _named(value, aliases)))
    tainted = set(carried)
    changed = True
    while changed:  # each pass adds a variable or ends
        changed = False
        for target, names in flows:
            if target not in tainted and names & tainted:
                tainted.add(target)
                changed = True
    for node in assignments:
        if node.type != "assignment_expression":
            continue
        left, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or value is None or left.type not in {"subscript_expression", "pointer_expression"}:
            continue
        base = _base_name(left)
        if base in memory and base not in carried and _named(value, aliases) & tainted:
            return True
    return False


def _events(node: Node, own: set[str]) -> list[tuple[str, str]]:
    """("read" | "write" | "update", name) for each variable occurrence under `node`, in evaluation order: the right of
    a plain assignment before its left, which a plain `=` to a whole variable writes (an element write reads the rest);
    an element addressed by one of `own` (this iteration's index) is left out. Iterative: a long expression is deep."""
    events: list[tuple[str, str]] = []
    stack: list[Node | tuple[str, str]] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            events.append(item)
            continue
        then: list[Node | tuple[str, str]] = []  # what this node evaluates, in order
        if item.type == "subscript_expression" and _index_names(item) & own:
            continue
        if item.type == "assignment_expression":
            left, right = item.child_by_field_name("left"), item.child_by_field_name("right")
            operator = item.child_by_field_name("operator")
            if right is not None:
                then.append(right)
            if left is not None:
                element = _element(left)
                if left.type == "identifier" and operator is not None and operator.text == b"=":
                    then.append(("write", _text(left)))
                elif element is None or not _index_names(element) & own:
                    base = _base_name(left)
                    if base:
                        then += [("read", base), ("update", base)]
                    then += [child for child in left.children if child.type == "subscript_argument_list"]
        elif item.type == "update_expression":
            base = _base_name(item.child_by_field_name("argument"))
            if base:
                then += [("read", base), ("update", base)]
        elif item.type == "identifier":
            then.append(("read", _text(item)))
        elif item.type in {"init_declarator", "call_expression", "field_expression"}:
            child = item.child_by_field_name({"init_declarator": "value", "call_expression": "arguments",
                                              "field_expression": "argument"}[item.type])
            if child is not None:
                then.append(child)
        else:
            then = list(item.children)
        stack.extend(reversed(then))
    return events


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


def _named(value: Node, aliases: dict[str, str]) -> set[str]:
    return {aliases.get(name) or name for name in _value_names(value)}


def _target_and_value(node: Node) -> tuple[str | None, Node | None]:
    if node.type == "init_declarator":
        return _declared_name(node), node.child_by_field_name("value")
    return _base_name(node.child_by_field_name("left")), node.child_by_field_name("right")


def _declarations(node: Node, nested: bool = True) -> dict[str, tuple[bool, bool]]:
    """The variables declared under `node`: name → (declared as a pointer, not data a thread carries: of an index-like
    type (int, int64_t, auto) or in shared memory, a buffer threads exchange through and reset as they go); with
    nested=False, not those of the loops inside `node`."""
    found = {}
    for current in _walk(node, None if nested else LOOPS):
        if current.type == "declaration":
            type_node = current.child_by_field_name("type")
            words = set(_text(type_node).replace("::", " ").split()) if type_node is not None else set()
            shared = any(child.type == "type_qualifier" and child.text == b"__shared__" for child in current.children)
            for declarator in current.children_by_field_name("declarator"):
                name = _declared_name(declarator)
                if name:
                    found[name] = (_is_pointer(declarator), shared or bool(words & INTEGRAL_WORDS))
    return found


def _declarator_kind(declarator: Node | None) -> str:
    return declarator.type if declarator is not None else ""


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
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
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


def _walk(node: Node, stop: frozenset[str] | None = None):
    """The nodes under `node`, in source order; not below a node of a type in `stop` (other than `node` itself)."""
    return parsing.walk(node, prune=stop, enter_root=True, named=False, source_order=True)


def _element(lvalue: Node) -> Node | None:
    """The array element an lvalue writes (`a[i].x` → `a[i]`), or None."""
    while lvalue is not None and lvalue.type in {"field_expression", "parenthesized_expression"}:
        lvalue = lvalue.child_by_field_name("argument") if lvalue.type == "field_expression" else lvalue.named_children[0]
    return lvalue if lvalue is not None and lvalue.type == "subscript_expression" else None


def _index_names(subscript: Node) -> set[str]:
    """The variables the indices of `a[i][j]` name, at every level."""
    names = set()
    while subscript is not None and subscript.type == "subscript_expression":
        for child in subscript.children:
            if child.type == "subscript_argument_list":
                names |= {_text(n) for n in _walk(child) if n.type == "identifier"}
        subscript = subscript.child_by_field_name("argument")
    return names


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


# The calls that show a softmax over keys: an exponential (expf, __expf, exp2f, hexp, h2exp) or a softmax helper, or a
# running max over the scores (fmaxf, max, __hmax). Attention without any of them is a weighted gather of values.
SOFTMAX_PREFIXES = ("exp", "__exp", "hexp", "h2exp", "softmax", "max", "fmax", "__hmax", "warp_reduce_max", "block_reduce_max")
# Calls that compute no softmax and hide nothing: synchronisation, atomics, index arithmetic, conversions.
PLAIN_CALLS = frozenset({"min", "fminf", "fmin", "abs", "fabs", "fabsf", "floor", "floorf", "ceil", "ceilf", "round",
                         "roundf", "sqrt", "sqrtf", "rsqrtf", "__ldg", "static_cast", "reinterpret_cast", "printf",
                         "assert", "__float2half", "__half2float", "__float2bfloat16", "__bfloat162float"})


def softmax_in(function: Node, own: dict[str, Node]) -> bool | None:
    """Does a kernel's body, read with the file's own helpers it calls (`own`: their definitions by plain name), compute
    an exponential, a softmax or a max? False only where the whole body can be read: a call to a function defined
    elsewhere (flash-attn's `flash::compute_attn<...>(params)`) may hold the softmax, so it leaves the answer unknown.
    An upper-case name is a macro (CUDA_KERNEL_LOOP) and synchronisation or atomics trade no scores."""
    seen, pending = set(), [function]
    while pending:
        for name in _calls(pending.pop()):
            if name in seen:
                continue
            seen.add(name)
            if name.lower().startswith(SOFTMAX_PREFIXES):
                return True
            if name in own:
                pending.append(own[name])
            elif not (name in PLAIN_CALLS or name.isupper() or name.startswith(("atomic", "__sync", "__threadfence"))):
                return None
    return False


def class_for_shape(kb, named, shape: Shape | None, softmax: bool | None = None):
    """The kernel class once its body has spoken: a recurrence overrides a name that promised a composition of native
    operators (path "pytorch": `clampw` read as a clamp) or said nothing (the catch-all); a name that names a fused
    operator or a scan keeps its class. Elementwise math only fills in for a name that said nothing: its name may say
    which elementwise function (gelu, a cast) better than the body can. An attention name whose whole body computes no
    exponential and no max (`softmax` False) is no softmax attention: a weighted gather of values at given positions
    (MapTR's geometric kernel attention), which the body's shape names where it has one."""
    catch_all = kb.kernel_classes[-1]
    if named.name == "attention" and softmax is False:
        return kb.kernel_class(shape) if shape is not None else kb.kernel_class("gathered_sum")
    if shape in ("recurrence", "running_product", "iterative_selection") and (named.path == "pytorch" or named is catch_all):
        return kb.kernel_class(shape)
    if shape in ("segmented_reduction", "group_rank", "gathered_sum") and named is catch_all:
        return kb.kernel_class(shape)
    # a body with no loop, no atomic and no shared memory reduces nothing, whatever a name's "min" or "max" said
    if shape == "elementwise" and (named is catch_all or named.name == "reduction"):
        return kb.kernel_class("elementwise")
    return named


BACKWARD_MARKERS = {"Backward": "Forward", "backward": "forward", "BACKWARD": "FORWARD", "Bwd": "Fwd", "bwd": "fwd"}


def forward_twin(name: str, names) -> str | None:
    """The kernel among `names` that `name` is the backward of: the marker swapped (`...BackwardKernel` →
    `...ForwardKernel`, `_bwd` → `_fwd`) or dropped (`foo_backward_kernel` → `foo_kernel`)."""
    for marker, forward in BACKWARD_MARKERS.items():
        if marker in name:
            for twin in (name.replace(marker, forward), name.replace(f"_{marker}", "").replace(marker, "")):
                if twin != name and twin in names:
                    return twin
    return None


def class_of_backward(kb, name: str, own, classes: dict):
    """A backward kernel that neither its name nor its body places takes its forward twin's class where that class is a
    composition of native operators (path "pytorch"): autograd derives the backward of the composition, so it is part of
    the forward's item, not a kernel of its own (pytorch3d's SigmoidAlphaBlendBackwardKernel beside a forward whose
    body is a running product)."""
    if own is not kb.kernel_classes[-1]:
        return own
    twin = forward_twin(name, classes)
    return classes[twin] if twin is not None and classes[twin].path == "pytorch" else own
