"""A device-type test that only chooses a CUDA fast path over generic code computing the same results.

`if self.use_float16 and 'cuda' in self.w.device.type: <fp16 cast> else: <fp32>` (mmpretrain's DALL-E encoder),
`if device.type == "cuda": <apex multi_tensor_l2norm> else: <torch.norm per tensor>` (fairseq's grad norm): on Ascend
the test is False and the other arm runs, which is correct, only slower. That is not DEV007's high "silently takes
the non-CUDA branch" (an assert, a flag handed on, an arm that raises or skips work): it gets its own rule (DEV145,
medium), which subsumes DEV007 on its line.

The test decides between the arms when it is the if statement's whole condition (through parentheses and `not`), or
a term of an `and` when it is positive (`==`, `in`, `startswith`): then the consequence runs only on CUDA. A negative
test (`!=`, `not in`) swaps the arms. The other arm is generic code for the same results when it is an `else` (no
`elif`), does not only raise, warn or pass, does not move data to the CPU (`.cpu()`, a "cpu" string: on Ascend that
is the whole run on the host, DEV007's slow CPU path), and produces what the CUDA arm produces: the names it binds, extends or
returns are among the CUDA arm's (`x, w, b` in both arms; `norms.append(...)` beside `norms += [...]`), or both arms
return.

"Generic" is checked against the ATen coverage tables (knowledge/operators/npu_aten.toml, per torch_npu release): an
ATen operator called by name (`torch.ops.aten.X(...)`) that no release registers for the NPU is no generic code. In
the else arm (`aten._weight_int4pack_mm_for_cpu`, torchchat's gguf_loader.py) it is a CPU kernel that NPU tensors reach
through torch_npu's CPU fallback, with host copies every call, or fail on (`else-cpu-kernel`); in the CUDA arm it means
widening the test would send NPU tensors to a kernel they do not have (`cuda-arm-no-npu-kernel`). The int4 weight-only
matmul family gets its NPU route (`int4-weight-matmul`).

The CUDA arm may instead be a precision guard: it computes in float32 where the other arm does not (`with
torch.autocast(..., dtype=torch.float32)` or `enabled=False` around the step, a `.float()` cast). On NPU the other
arm runs at the autocast dtype: the results are close, not the same (`precision_guard`, the facet that picks DEV145's
variant text)."""

from __future__ import annotations

import functools

from ascend_feasibility.analyzer.context.guards import only_raises_or_warns
from ascend_feasibility.analyzer.context.runtime_providers import cuda_provider_named
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.domains.device.none_handles import none_handles, unchecked_use
from ascend_feasibility.knowledge import load_context_conventions
from ascend_feasibility.knowledge.aten_coverage import load_coverage
from tree_sitter import Node

NEGATIVE = frozenset({"!=", "not in"})
MUTATORS = frozenset({"append", "extend", "update", "add", "insert", "copy_", "add_"})
RETURNS = "<return>"
MAX_NODES = 2_000  # the walk over one arm's statements
NESTED_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})  # not read as the arm's own code


PRECISION_GUARD = "precision-guard"
UPCASTS = frozenset({"float", "double"})
FULL_PRECISION = frozenset({"torch.float32", "torch.float", "torch.float64", "torch.double"})


# the CUDA arm names an ONNX Runtime execution provider for NVIDIA GPUs (analyzer/context/runtime_providers.py): the
# test chooses ONNX Runtime's device, not a torch fast path (round 26 B1 C6 row 24: an InferenceSession built with
# providers=["CUDAExecutionProvider"] over one with the default providers)
RUNTIME_PROVIDER = "runtime-provider"
CPU_KERNEL_ELSE = "else-cpu-kernel"
CUDA_ARM_NO_NPU_KERNEL = "cuda-arm-no-npu-kernel"
INT4_WEIGHT_MATMUL = "int4-weight-matmul"
# ATen's int4 weight-only matmul kernels (CUDA's and the CPU's); torch_npu's route is npu_weight_quant_batchmatmul
INT4_WEIGHT_MATMUL_OPS = frozenset({"_weight_int4pack_mm", "_weight_int4pack_mm_for_cpu",
                                    "_weight_int4pack_mm_with_scales_and_zeros"})
ATEN = "torch.ops.aten."
TORCH = "torch."


def fast_path_facets(arms: tuple[Node, Node], imports: ImportTable | None = None) -> tuple[str, ...]:
    """`precision-guard` where the CUDA arm of a fast path computes in full precision (an autocast region in float32
    or disabled, a `.float()`/`.double()` cast) and the generic arm does not; `timing` where both arms only time a
    step (`timing_arms`); `else-cpu-kernel` / `cuda-arm-no-npu-kernel` (with `int4-weight-matmul`) where an arm calls
    an ATen operator no torch_npu release registers for the NPU; `runtime-provider` alone where the CUDA arm names
    an ONNX Runtime provider for NVIDIA GPUs; `map-location-only` alone where the arms differ only in torch.load's
    map_location; `cuda-only-library` alone where the CUDA arm calls a CUDA-only package (`imports`: the file's)."""
    cuda_arm, generic = arms
    if timing_arms(cuda_arm, generic):
        return (TIMING,)
    if cuda_provider_named(cuda_arm) is not None:
        return (RUNTIME_PROVIDER,)
    if map_location_only(cuda_arm, generic):
        return (MAP_LOCATION_ONLY,)
    if imports is not None and cuda_only_library(cuda_arm, imports) is not None:
        return (CUDA_ONLY_LIBRARY,)
    cuda_ops, generic_ops = no_npu_kernel(cuda_arm), no_npu_kernel(generic)
    found = []
    if generic_ops:
        found.append(CPU_KERNEL_ELSE)
    if cuda_ops:
        found.append(CUDA_ARM_NO_NPU_KERNEL)
    if {op.split(".", 1)[0] for op in cuda_ops | generic_ops} & INT4_WEIGHT_MATMUL_OPS:
        found.append(INT4_WEIGHT_MATMUL)
    if _full_precision(cuda_arm) and not _full_precision(generic):
        found.append(PRECISION_GUARD)
    return tuple(found)


# The arms differ only in torch.load's map_location (round 28 B2 C8, B1 rows 9/22): `if device == "cuda":
# torch.load(p) else: torch.load(p, map_location=lambda s, l: s)`. Both give the same weights, which the caller moves
# to its device; nothing is skipped on the NPU, and widening the test would drop the map that keeps the CUDA storages
# of the checkpoint off a host without CUDA.
MAP_LOCATION_ONLY = "map-location-only"
MAP_LOCATION = "map_location"
LOADS = frozenset({"torch.load", "load"})


def map_location_only(cuda_arm: Node, generic: Node) -> bool:
    """Do both arms hold the same statements, a torch.load among them, once every `map_location=` keyword is left
    out, and does one of them pass map_location?"""
    texts, keywords, loads = [], 0, 0
    for arm in (cuda_arm, generic):
        kept: list[str] = []
        for statement in arm.named_children:
            if statement.type == "comment":
                continue
            dropped = [node for node in parsing.walk(statement, limit=MAX_NODES) if node.type == "keyword_argument"
                       and parsing.text(node.child_by_field_name("name")) == MAP_LOCATION]
            loads += sum(1 for node in parsing.walk(statement, limit=MAX_NODES) if node.type == "call"
                         and "".join(parsing.text(node.child_by_field_name("function")).split()) in LOADS)
            keywords += len(dropped)
            kept.append(_without(statement, dropped))
        texts.append(kept)
    return bool(texts[0]) and texts[0] == texts[1] and keywords > 0 and loads > 0


def _without(statement: Node, dropped: list[Node]) -> str:
    """The statement's text with the `dropped` nodes (and their commas) left out, whitespace ignored."""
    source, start = statement.text or b"", statement.start_byte
    for node in sorted(dropped, key=lambda n: n.start_byte, reverse=True):
        source = source[:node.start_byte - start] + source[node.end_byte - start:]
    words = "".join(source.decode("utf-8", "replace").split())
    while ",)" in words or ",," in words:
        words = words.replace(",)", ")").replace(",,", ",")
    return words


# The CUDA arm calls a package that runs only on CUDA (conventions.toml `cuda_only_packages`: xformers, flash_attn
# ...; round 28 B1 row 11: `if use_xformers and 'cuda' in query.device.type: xformers.ops.memory_efficient_attention
# (...) else: <plain attention>`): on the NPU the generic arm runs, which is what a port wants. Widening the test would
# hand NPU tensors to that library; the call itself is a finding of its own.
CUDA_ONLY_LIBRARY = "cuda-only-library"


def cuda_only_library(cuda_arm: Node, imports: ImportTable) -> str | None:
    """The first call of the arm whose callee resolves (through the file's imports) into a CUDA-only package."""
    packages = _cuda_only_packages()
    for node in parsing.walk(cuda_arm, limit=MAX_NODES):
        if node.type != "call":
            continue
        function = node.child_by_field_name("function")
        name = qualified_name(function, imports) if function is not None and function.type in {"identifier", "attribute"} else None
        if name is not None and name.split(".", 1)[0] in packages:
            return name
    return None


@functools.cache
def _cuda_only_packages() -> frozenset[str]:
    return frozenset(load_context_conventions().guards.cuda_only_packages)


def no_npu_kernel(block: Node) -> set[str]:
    """The ATen operators the arm calls by name (`torch.ops.aten.X(...)`, `torch.ops.aten.X.overload(...)`) that
    need a backend kernel and have none for the NPU on any release of the coverage table (an overload packet: none
    of its overloads)."""
    names, stack, seen = set(), [block], 0
    while stack and seen < MAX_NODES:
        node = stack.pop()
        seen += 1
        if node.type in {"function_definition", "class_definition", "lambda"}:
            continue
        if node.type == "call":
            callee = parsing.text(node.child_by_field_name("function"))
            if callee.startswith(ATEN):
                names.add(callee[len(ATEN):])
            elif callee.startswith(TORCH) and callee.count(".") == 1:
                names.add(callee)  # `torch._grouped_mm(...)`, `torch._weight_int4pack_mm(...)`
        stack.extend(node.named_children)
    if not names:
        return set()
    coverage = load_coverage()
    missing = set()
    for name in names:
        if name.startswith(TORCH):  # the Python function's overloads, or those of its packet (private names)
            packet = name[len(TORCH):]
            overloads = list(coverage.functions.get(name, ())) or _packet(coverage, packet)
            name = packet
        else:
            overloads = _packet(coverage, name)
        if overloads and not any(coverage.runs(o, b) for o in overloads for b in coverage.branches):
            missing.add(name)
    return missing


def _packet(coverage, name: str) -> list[str]:
    """`name` where it is an overload needing a kernel, else the overloads of the packet it names."""
    return [name] if name in coverage.kernel else list(_packets().get(name, ()))


@functools.cache
def _packets() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for overload in load_coverage().kernel:
        found.setdefault(overload.split(".", 1)[0], []).append(overload)
    return {name: tuple(overloads) for name, overloads in found.items()}


# A step timer (round 14: k-diffusion train.py:436-443 and :475-478): the CUDA arm makes `torch.cuda.Event(enable_timing=
# True)`s, synchronizes, records and reads `elapsed_time`; the else arm reads a clock into the same names. On NPU the
# clock arm measures the same duration: nothing the step computes depends on it, a diagnostic, not an optimisation.
TIMING = "timing"
EVENT_CALLS = frozenset({"Event", "record", "elapsed_time"})  # what makes the CUDA arm a device timer
TIMER_CALLS = EVENT_CALLS | {"synchronize"}
CLOCK_CALLS = frozenset({"time", "perf_counter", "monotonic", "time_ns", "perf_counter_ns", "monotonic_ns"})


def timing_arms(cuda_arm: Node, generic: Node) -> bool:
    """Does every statement of the CUDA arm only time the step with CUDA events (creating, recording or reading them,
    synchronizing), at least one an event call, and every statement of the other arm read a clock into a name?"""
    cuda_calls = _statement_calls(cuda_arm)
    clock_calls = _statement_calls(generic, assigned_only=True)
    if cuda_calls is None or clock_calls is None:
        return False
    return (all(calls and calls <= TIMER_CALLS for calls in cuda_calls) and any(calls & EVENT_CALLS for calls in cuda_calls)
            and all(calls and calls <= CLOCK_CALLS for calls in clock_calls))


def _statement_calls(block: Node, assigned_only: bool = False) -> list[set[str]] | None:
    """The names of the calls of each statement of `block` (the last part of each callee), or None where a statement
    is not an expression statement (a loop, an if, a return) or, with `assigned_only`, not an assignment."""
    found = []
    for statement in block.named_children:
        if statement.type == "comment":
            continue
        if statement.type != "expression_statement" or len(statement.named_children) != 1:
            return None
        expression = statement.named_children[0]
        if assigned_only and expression.type not in {"assignment", "augmented_assignment"}:
            return None
        calls = set()
        for node in parsing.walk(expression, limit=MAX_NODES):
            if node.type == "call":
                function = node.child_by_field_name("function")
                last = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else function
                calls.add(parsing.text(last) if last is not None else "")
        found.append(calls)
    return found


def fast_path_arms(test: Node) -> tuple[Node, Node] | None:
    """(the CUDA arm, the generic arm) where `test` (a comparison or `.startswith("cuda")` call naming "cuda") picks
    a CUDA arm whose `else` computes the same results generically, else None."""
    negated = _negative(test)
    child, parent, through_and, through_or, inverted = test, test.parent, False, False, False
    while parent is not None and parent.type in {"parenthesized_expression", "not_operator", "boolean_operator"}:
        if parent.type == "not_operator":
            negated = not negated
            inverted = inverted or through_or
        elif parent.type == "boolean_operator":
            if parsing.text(parent.child_by_field_name("operator")) == "and":
                through_and = True
            else:
                through_or = True
        child, parent = parent, parent.parent
    if parent is None or parent.type != "if_statement" or parent.child_by_field_name("condition") != child:
        return None
    if through_and and (negated or through_or):
        return None  # `if flag and device.type != "cuda"`: its else also runs on CUDA without the flag
    if through_or and (not negated or inverted):
        return None  # `if flag or device.type == "cuda"`: which arm runs on CUDA depends on the flag
    alternatives = parent.children_by_field_name("alternative")
    consequence = parent.child_by_field_name("consequence")
    if not alternatives and negated:
        # `if not hasattr(torch, "_grouped_mm") or x.device.type != "cuda": return <generic>` and the function's
        # remaining statements, which end in a return, as the CUDA arm
        rest = _rest_of_function(parent)
        if consequence is None or rest is None or not _returns(consequence):
            return None
        cuda_arm, generic = rest, consequence
    elif through_or or len(alternatives) != 1 or alternatives[0].type != "else_clause":
        return None
    else:
        other = alternatives[0].child_by_field_name("body")
        if consequence is None or other is None:
            return None
        cuda_arm, generic = (other, consequence) if negated else (consequence, other)
    if only_raises_or_warns(generic) or _moves_to_cpu(generic):
        return None
    if unchecked_use(parent, none_handles(generic)) is not None:
        return None  # the else leaves a handle None that later code uses unchecked: test_arms' `none-handle`
    produced, generic_produced = _produces(cuda_arm), _produces(generic)
    return (cuda_arm, generic) if generic_produced and generic_produced <= produced else None


class _Statements:
    """Statements of a block read as one arm (the same interface the arm readers use: a block's named children)."""

    type = "block"

    def __init__(self, statements: list[Node]) -> None:
        self.named_children = statements
        self.children = statements


def _rest_of_function(statement: Node) -> _Statements | None:
    """The statements after `statement` in a function's own body, where they end in a return, else None."""
    block = statement.parent
    if block is None or block.type != "block" or block.parent is None or block.parent.type != "function_definition":
        return None
    rest, sibling = [], statement.next_named_sibling
    while sibling is not None:
        if sibling.type != "comment":
            rest.append(sibling)
        sibling = sibling.next_named_sibling
    return _Statements(rest) if rest and rest[-1].type == "return_statement" else None


def _returns(block: Node) -> bool:
    """Does the block end in returning a computed value (a call in the return: `return self._loop(x)`)? A literal
    (`return False` of a capability check) or the input unchanged (`return x`, a skipped step) is no fallback."""
    statements = [s for s in block.named_children if s.type != "comment"]
    if not statements or statements[-1].type != "return_statement":
        return False
    return any(node.type == "call" for node in parsing.walk(statements[-1], limit=MAX_NODES))


def _full_precision(block: Node) -> bool:
    """Does the arm compute in full precision: `.float()`/`.double()`, or a call of an `autocast` (a `with` item)
    given a float32/float64 dtype or `enabled=False`?"""
    for node in parsing.walk(block, limit=MAX_NODES, prune=NESTED_SCOPES):
        if node.type == "call":
            function = node.child_by_field_name("function")
            last = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else function
            name = parsing.text(last) if last is not None else ""
            arguments = node.child_by_field_name("arguments")
            if name in UPCASTS and arguments is not None and not arguments.named_children:
                return True
            if name == "autocast" and arguments is not None and any(_full_precision_argument(a) for a in arguments.named_children):
                return True
    return False


def _full_precision_argument(argument: Node) -> bool:
    if argument.type != "keyword_argument":
        return False
    key, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
    if key is None or value is None:
        return False
    if parsing.text(key) == "dtype":
        return parsing.text(value) in FULL_PRECISION
    return parsing.text(key) == "enabled" and parsing.text(value) == "False"


LAYOUT_METHODS = frozenset({"contiguous"})


def only_fixes_layout(test: Node) -> bool:
    """`test` is an if statement's whole positive condition, or a term of its `and`, and the arm it opens, with no
    elif or else, only makes tensors contiguous (`q = q.contiguous()`): a workaround for a CUDA kernel's layout bug
    (transformers' SDPA paths, pytorch#112577). On NPU the arm is skipped and the results are the same."""
    if _negative(test):
        return False
    child, parent = test, test.parent
    while parent is not None and parent.type in {"parenthesized_expression", "boolean_operator"}:
        if parent.type == "boolean_operator" and parsing.text(parent.child_by_field_name("operator")) != "and":
            return False
        child, parent = parent, parent.parent
    if parent is None or parent.type != "if_statement" or parent.child_by_field_name("condition") != child:
        return False
    if parent.children_by_field_name("alternative"):
        return False
    body = parent.child_by_field_name("consequence")
    statements = [s for s in (body.named_children if body is not None else []) if s.type != "comment"]
    return bool(statements) and all(_made_contiguous(s) for s in statements)


def _made_contiguous(statement: Node) -> bool:
    """`x = x.contiguous()` or `a, b = a.contiguous(), b.contiguous()`: each name rebound to its own contiguous copy."""
    assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    if assignment is None or assignment.type != "assignment":
        return False
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    if left is None or right is None:
        return False
    targets = left.named_children if left.type in {"pattern_list", "tuple_pattern"} else [left]
    values = right.named_children if right.type in {"expression_list", "tuple"} else [right]
    if len(targets) != len(values):
        return False
    for target, value in zip(targets, values):
        function = value.child_by_field_name("function") if value.type == "call" else None
        if function is None or function.type != "attribute":
            return False
        holder, method = function.child_by_field_name("object"), function.child_by_field_name("attribute")
        if (method is None or parsing.text(method) not in LAYOUT_METHODS or holder is None
                or parsing.text(holder) != parsing.text(target)):
            return False
    return True


def _moves_to_cpu(block: Node) -> bool:
    return any((node.type == "string" and parsing.text(node).strip("'\"").lower().startswith("cpu"))
               or (node.type == "attribute" and parsing.text(node.child_by_field_name("attribute")) == "cpu")
               for node in parsing.walk(block, limit=MAX_NODES))


def _negative(test: Node) -> bool:
    if test.type != "comparison_operator":
        return False  # `.startswith("cuda")`
    operators = {parsing.text(o) for o in test.children_by_field_name("operators")}
    return bool(operators & NEGATIVE)


def _produces(block: Node) -> set[str]:
    """What an arm leaves behind: the names and attributes it assigns, those it mutates in place (`x.append(...)`),
    and whether it returns (nested functions and classes are their own scopes)."""
    produced: set[str] = set()
    for node in parsing.walk(block, limit=MAX_NODES, prune=NESTED_SCOPES):
        if node.type in {"assignment", "augmented_assignment"}:
            left = node.child_by_field_name("left")
            targets = left.named_children if left is not None and left.type in {"pattern_list", "tuple_pattern"} else [left]
            produced.update(parsing.text(t) for t in targets if t is not None)
        elif node.type == "return_statement":
            produced.add(RETURNS)
        elif node.type == "call":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "attribute":
                method = parsing.text(function.child_by_field_name("attribute"))
                if method in MUTATORS:
                    produced.add(parsing.text(function.child_by_field_name("object")))
    return produced
