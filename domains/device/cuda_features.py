"""What a CUDA device test switches, read from where its value goes (knowledge/device/cuda_features.toml).

- `cuda-only-feature`: the test only turns on a feature the NPU lacks as torch.cuda spells it (CUDA graph capture,
  torch.compile's CUDA inductor, xformers, flash-attn), so on Ascend NPU tensors stay on the fallback, which is right
  as written; widening the test to ("cuda", "npu") would send them into the CUDA feature. Seen as: the test's value
  (directly, or through a name the function assigns once) handed to a callee named for such a feature
  (`CUDAGraphed(step, disable=x.device.type != "cuda")`); a negated test whose NPU arm only turns compilation off
  (`if x.device.type != "cuda": stack.enter_context(no_compile())`); a test whose CUDA arm calls the feature.
- `npu-has-feature`: the test is the `fused=` value of an optimizer whose fused step the NPU runs too (AdamW): on
  Ascend the unfused step runs, correct and slower; widening the test is the fix.
- `assigns-default` (not a test's): a backend switch assigned PyTorch's own default (`torch.backends.cudnn.deterministic
  = False`): it asks for nothing, on any device.
- `dtype-choice`: the test only picks a half-precision dtype for CUDA (`dtype = torch.float16` in its arm, or
  `torch.float16 if x.device.type == "cuda" else torch.float32`), or whose NPU arm only sets a flag read as the test
  of such a choice (`if x.device.type != "cuda": force_fp32 = True`), or whose CUDA arm is the name of a half-precision
  weight set (`revision = "fp16" if "cuda" in device else None`): the NPU stays in float32, correct and slower.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.feature_gates import feature_call, names_wrapper, not_a_read
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.knowledge import load_cuda_features
from tree_sitter import Node

CUDA_ONLY_FEATURE = "cuda-only-feature"
NPU_HAS_FEATURE = "npu-has-feature"
DTYPE_CHOICE = "dtype-choice"
OTHER_ARM_HALF = "other-arm-half"  # the conditional's other arm is another half dtype (bfloat16 on CUDA, float16 else)
GRAD_SCALER = "grad-scaler"  # the file names a GradScaler: float16 gradients are scaled
MAX_FILE_NODES = 50_000
ASSIGNS_DEFAULT = "assigns-default"
MAX_NODES = 2_000
MAX_USES = 8
FULL_CHOICES = frozenset({"torch.float32", "torch.float", "torch.channels_last", "torch.contiguous_format"})
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})
_PASSING = frozenset({"parenthesized_expression", "not_operator"})


def feature_facets(condition: Node, parent: Node | None, cuda_arm: Node | None, npu_path: Node | None,
                   imports: ImportTable) -> tuple[str, ...]:
    """The facets of a test (`condition`: the test with its parentheses and `not`; `parent`: what holds it; the arms
    test_arms reads from it)."""
    for receiver, keyword in _receivers(condition, parent):
        callee = _callee(receiver)
        last = callee.rsplit(".", 1)[-1]
        if names_wrapper(last):
            return (CUDA_ONLY_FEATURE,)
        if keyword is not None and _fused_optimizer(last, keyword):
            return (NPU_HAS_FEATURE,)
    if cuda_arm is not None and _turns_feature_on(cuda_arm, imports):
        return (CUDA_ONLY_FEATURE,)
    if npu_path is not None and npu_path.type == "block" and _only_turns_compile_off(npu_path, imports):
        return (CUDA_ONLY_FEATURE,)
    if npu_path is not None and npu_path.type == "block" and _only_forces_full(npu_path, imports):
        return (DTYPE_CHOICE,)
    if cuda_arm is not None and _only_picks_half(cuda_arm, imports):
        other = _other_half(cuda_arm, parent, imports)
        if other:
            return (DTYPE_CHOICE, OTHER_ARM_HALF, GRAD_SCALER) if _names_grad_scaler(cuda_arm) else (DTYPE_CHOICE, OTHER_ARM_HALF)
        return (DTYPE_CHOICE,)
    return ()


def _other_half(cuda_arm: Node, parent: Node | None, imports: ImportTable) -> bool:
    """Is the conditional expression's other arm a half dtype other than the CUDA arm's (`torch.bfloat16 if
    device.type in ["cuda", "cpu"] else torch.float16`, round 27 A1 W3, B2 C9)? The NPU then computes in it."""
    if parent is None or parent.type != "conditional_expression":
        return False
    parts = parent.named_children
    if len(parts) != 3 or cuda_arm not in (parts[0], parts[2]):
        return False
    other = parts[2] if cuda_arm == parts[0] else parts[0]
    names = load_cuda_features().half_dtypes.names
    mine, theirs = _dtype(cuda_arm, imports), _dtype(other, imports)
    return theirs in names and _canonical(theirs) != _canonical(mine)


def _canonical(dtype: str) -> str:
    return {"torch.half": "torch.float16"}.get(dtype, dtype)


def _names_grad_scaler(node: Node) -> bool:
    module = node
    while module.parent is not None:
        module = module.parent
    return any(n.type == "identifier" and parsing.text(n) == "GradScaler"
               for n in parsing.walk(module, limit=MAX_FILE_NODES))


def _receivers(condition: Node, parent: Node | None) -> list[tuple[Node, str | None]]:
    """The calls the test's value is handed to, with the keyword it goes in as (None: a positional argument): the
    test itself as an argument, or a plain name the function assigns it to once and then only hands on."""
    if parent is None:
        return []
    argument = _as_argument(condition)
    if argument is not None:
        return [argument]
    if parent.type != "assignment" or parent.child_by_field_name("right") != condition:
        return []
    left = parent.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return []
    name = parsing.text(left)
    scope = parsing.enclosing(parent, {"function_definition", "module"})
    if scope is None:
        return []
    found = []
    for node in _reads(scope, name, left):
        if _shown(node):
            continue  # `print(f"fused: {use_fused}")` only shows it
        uses = [_as_argument(node)] if _as_argument(node) is not None else _keywords_chosen(node, scope)
        if not uses or len(found) >= MAX_USES:
            return []  # tested, stored, returned or reassigned: not only handed on
        found.extend(uses)
    return found


def _reads(scope: Node, name: str, left: Node | None = None) -> list[Node]:
    return [node for node in parsing.walk(scope, limit=MAX_NODES * 5, prune=_NESTED, enter_root=True)
            if node.type == "identifier" and parsing.text(node) == name and node != left and not not_a_read(node)]


def _shown(identifier: Node) -> bool:
    parent = identifier.parent
    return parent is not None and parent.type == "interpolation"


def _keywords_chosen(use: Node, scope: Node) -> list[tuple[Node, str | None]]:
    """`extra = dict(fused=True) if use_fused else dict()` then `AdamW(..., **extra)`: (the call, "fused") for each
    call that unpacks the chosen keywords, where `use` is the condition and the true arm names them."""
    child, parent = use, use.parent
    while parent is not None and parent.type in _PASSING:
        child, parent = parent, parent.parent
    if parent is None or parent.type != "conditional_expression" or len(parent.named_children) != 3 \
            or parent.named_children[1] != child:
        return []
    keywords = _true_keywords(parent.named_children[0])
    holder = parent.parent
    if not keywords or holder is None or holder.type != "assignment" or holder.child_by_field_name("right") != parent:
        return []
    target = holder.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return []
    found = []
    for read in _reads(scope, parsing.text(target), target):
        splat = read.parent
        if splat is None or splat.type != "dictionary_splat" or splat.parent is None or splat.parent.type != "argument_list" \
                or splat.parent.parent is None or splat.parent.parent.type != "call":
            return []
        found.extend((splat.parent.parent, keyword) for keyword in keywords)
    return found


def _true_keywords(value: Node) -> list[str]:
    """The keywords `dict(k=True, ...)` (or `{"k": True}`) sets to True."""
    if value.type == "call" and parsing.text(value.child_by_field_name("function")) == "dict":
        arguments = value.child_by_field_name("arguments")
        return [parsing.text(a.child_by_field_name("name")) for a in (arguments.named_children if arguments else [])
                if a.type == "keyword_argument" and a.child_by_field_name("value") is not None
                and a.child_by_field_name("value").type == "true"]
    if value.type == "dictionary":
        return [parsing.text(p.child_by_field_name("key")).strip("'\"") for p in value.named_children
                if p.type == "pair" and p.child_by_field_name("key") is not None and p.child_by_field_name("key").type == "string"
                and p.child_by_field_name("value") is not None and p.child_by_field_name("value").type == "true"]
    return []


def _as_argument(value: Node) -> tuple[Node, str | None] | None:
    """(the call, the keyword) where `value` (through parentheses and `not`) is an argument of a call."""
    child, parent = value, value.parent
    while parent is not None and parent.type in _PASSING:
        child, parent = parent, parent.parent
    if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("value") == child:
        arguments = parent.parent
        call = arguments.parent if arguments is not None else None
        if call is not None and call.type == "call":
            return call, parsing.text(parent.child_by_field_name("name"))
    if parent is not None and parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call":
        return parent.parent, None
    return None


def _callee(call: Node) -> str:
    function = call.child_by_field_name("function")
    return parsing.text(function) if function is not None else ""


def _fused_optimizer(name: str, keyword: str) -> bool:
    return any(keyword == entry.keyword and name in entry.optimizers for entry in load_cuda_features().fused_optimizers)


def _calls(arm: Node):
    for node in parsing.walk(arm, limit=MAX_NODES, prune=_NESTED):
        if node.type == "call" and node.child_by_field_name("function") is not None:
            yield node


def _turns_feature_on(arm: Node, imports: ImportTable) -> bool:
    """Does the CUDA arm call a CUDA-only feature (a graph capture, torch.compile, xformers or flash-attn, a wrapper
    named for one)?"""
    return any(feature_call(call, imports) is not None for call in _calls(arm))


def _only_turns_compile_off(block: Node, imports: ImportTable) -> bool:
    """Is every statement of the NPU arm an expression whose calls include one that turns compilation off, and
    nothing else (`stack.enter_context(no_compile())`, `torch.compiler.disable(...)`)?"""
    table = load_cuda_features()
    statements = [s for s in block.named_children if s.type != "comment"]
    if not statements:
        return False
    for statement in statements:
        if statement.type != "expression_statement":
            return False
        off = False
        for call in _calls(statement):
            function = call.child_by_field_name("function")
            qualified = qualified_name(function, imports) or parsing.text(function)
            last = parsing.text(function).rsplit(".", 1)[-1].lower()
            if qualified in table.compile_off_calls or any(token in last for token in table.compile_off_tokens):
                off = True
        if not off:
            return False
    return True


def _only_picks_half(arm: Node, imports: ImportTable) -> bool:
    """Does the CUDA arm only name a half-precision dtype: a conditional expression's arm that is one, or a block
    whose every statement assigns one to a name?"""
    half = load_cuda_features().half_dtypes
    names = half.names
    if arm.type == "string" and not any(c.type == "interpolation" for c in arm.named_children):
        return parsing.text(arm).strip("'\"") in half.variant_names  # `"fp16" if "cuda" in device else None`
    if arm.type != "block":
        return _dtype(arm, imports) in names

    def assigns_half(assignment: Node) -> bool:
        right = assignment.child_by_field_name("right")
        return right is not None and _dtype(right, imports) in names
    return parsing.each_statement_is(arm, "assignment", assigns_half)


def _only_forces_full(arm: Node, imports: ImportTable) -> bool:
    """Does the NPU's arm only set flags (`force_fp32 = True`, round 29 A2 row 61, B2 row 37: EG3D's StyleGAN blocks)
    that the function reads only as the test of a conditional choosing between a half dtype and another (`dtype =
    torch.float16 if self.use_fp16 and not force_fp32 else torch.float32`) or a memory format (`torch.channels_last if
    ... and not force_fp32 else torch.contiguous_format`)? Off CUDA the NPU then computes in float32: correct, slower."""
    flags = []
    for statement in arm.named_children:
        assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        left = assignment.child_by_field_name("left") if assignment is not None and assignment.type == "assignment" else None
        right = assignment.child_by_field_name("right") if left is not None else None
        if left is None or left.type != "identifier" or right is None or right.type != "true":
            return False
        flags.append(left)
    scope = parsing.enclosing(arm, {"function_definition"})
    if not flags or scope is None:
        return False
    half = set(load_cuda_features().half_dtypes.names)
    chosen = half | FULL_CHOICES
    picks_half = False
    for flag in flags:
        reads = [r for r in _reads(scope, parsing.text(flag), flag) if not _parameter(r)]
        if not reads:
            return False
        for read in reads:
            choice = _conditional_testing(read)
            if choice is None:
                return False
            arms = {_dtype(choice.named_children[0], imports), _dtype(choice.named_children[2], imports)}
            if not arms <= chosen:
                return False
            picks_half = picks_half or bool(arms & half)
    return picks_half


def _parameter(identifier: Node) -> bool:
    parent = identifier.parent
    return parent is not None and (parent.type == "parameters"
                                   or (parent.type == "default_parameter" and parent.child_by_field_name("name") == identifier))


def _conditional_testing(read: Node) -> Node | None:
    """The conditional expression whose test holds the read (through `not`, `and`, parentheses), if any."""
    child, parent = read, read.parent
    while parent is not None and parent.type in {"not_operator", "boolean_operator", "parenthesized_expression"}:
        child, parent = parent, parent.parent
    if parent is None or parent.type != "conditional_expression" or len(parent.named_children) != 3 \
            or parent.named_children[1] != child:
        return None
    return parent


def _dtype(value: Node, imports: ImportTable) -> str:
    if value.type != "attribute":
        return ""
    return qualified_name(value, imports) or parsing.text(value)


def assigns_default(name: str, chain: Node) -> bool:
    """Is `chain` (the switch `name`) assigned PyTorch's default for it, a True/False literal, as the whole left side
    or as an item of a tuple target (`cudnn.benchmark, cudnn.deterministic = True, False`, round 39 B2 row 41)?"""
    default = load_cuda_features().flag_defaults.get(name)
    if default is None:
        return False
    value = parsing.assigned_value(chain)
    return value is not None and value.type == ("true" if default else "false")
