"""What a CUDA device test decides, read from the code around it: the facets that choose DEV007's texts.

- `raises`: on NPU the test sends the code to a `raise` (an `assert x.device.type == "cuda"`, also one whose other
  `or` terms may let it pass, as `assert "cuda" in device or device is None`; an if/elif chain whose
  final `else` only raises and no arm of which names the NPU; `if x != "cuda": raise`). The failure is loud, not the
  silent non-CUDA branch of the rule's main text.
- `cuda-arm`: the arm the test opens is CUDA-specific (torch.cuda.*, cuDNN switches, get_autocast_gpu_dtype, a "cuda"
  device literal, the "nccl" backend): widening the test to ("cuda", "npu") would run CUDA code on the NPU, so the
  advice is an NPU arm of its own.
- `none-handle` (with `raises`): the arm that runs on NPU only sets a handle to None (`quantization = None`) and
  code outside a check later calls or asserts it (domains/device/none_handles.py): it fails there, not here.
- `setting`: the compared value is a string the program is given (`accelerator == "cuda"`, `"cuda" in args.device`),
  not a device's `.type` or `str(device)` (a torch.device never equals a string, so a name compared with "cuda" holds
  one). Under transfer_to_npu such a setting stays "cuda" and the CUDA arm runs with its torch calls mapped; the test
  breaks only once the setting says "npu".
- `implementation-setting` (with `setting`; domains/device/implementation_settings.py): the setting names an
  implementation, not a device (NAFNet's `prefetch_mode == 'cuda'` picks CUDAPrefetcher over CPUPrefetcher): the
  function only compares or prints it, so no device API sees it; the arm runs where the user asks for that class.
- `runtime-provider`: the arm the test opens picks an ONNX Runtime execution provider for NVIDIA GPUs
  (`providers = ["CUDAExecutionProvider"]`, accelerators.toml cuda_runtime_providers): the test chooses the ONNX
  runtime's device, not torch's, and widening it to ("cuda", "npu") would hand the NPU to the CUDA provider; Ascend's
  arm is CANNExecutionProvider (onnxruntime-cann).
- `autocast-enabled`: the test is the `enabled=` value of an autocast call (`torch.autocast(device_type="cuda",
  enabled=amp and device.type == "cuda")`), or of a name the function assigns once and passes as `enabled=`: on NPU
  the region runs without autocast, at its inputs' dtype. The shim rewrites the call's "cuda" device_type but not the
  test, so autocast stays off there with it or without it. With `autocast-cuda-type`: that device_type is a "cuda"
  literal, which must change with the test.
- `cuda-only-feature`, `npu-has-feature`, `dtype-choice` (domains/device/cuda_features.py): what the test only
  switches, where the NPU path does not raise: a feature the NPU lacks (the test is right as written), a fused
  optimizer step or a half dtype the NPU has (widen the test).
- `cuda-missing-fallback`: the test is and-ed with `not torch.cuda.is_available()` (GPT-SoVITS' `if "cuda" in
  str(self.device) and not torch.cuda.is_available(): self.device = torch.device("cpu")`): its arm only handles a CUDA
  setting on a host without CUDA. A native "npu" setting fails the test and is kept, and under transfer_to_npu the
  arm is skipped; widening the test would send an "npu" setting to the fallback. Right as written.
- `cuda-autocast-gate`: the test sits in the body of `if torch.is_autocast_enabled():` with no device type (or after
  `if not torch.is_autocast_enabled(): return ...`). Called so, it reports CUDA autocast only (torch 2.4 and later
  read it as device "cuda"; transfer_to_npu leaves it alone), so under NPU autocast the gate is False and the test is
  never reached: no arm of it runs and nothing raises; what the CUDA arm does (a cast to the autocast dtype) is
  silently skipped.
- `cuda-literal-device` (domains/device/literal_devices.py): the test reads `.type` of a torch.device built from a
  "cuda" literal; transfer_to_npu does not wrap torch.device, so under it the type stays "cuda" and the test holds.
- `autocast-off` (domains/device/autocast_reads.py): the test only picks the device type of an autocast called with
  the literal `enabled=False` (`torch.autocast(enabled=False, device_type="cuda" if ... else "cpu")`, round 31 B1 row
  12): the region casts nothing on any device, whichever type the test picks.
- `cuda-missing-fallback` also where the test is the whole condition of an `if` whose CUDA arm is only `if not
  torch.cuda.is_available(): ...` and whose other arms run nothing for a value that is not one they test for
  (`else: if device == "mps": ...`, round 31 B1 row 11): "npu" passes through unchanged.
- `caught-check`: the arm is an if's block of asserts only (`if 'cuda' in device.type: assert gpu, ...`), with no
  other arm, in the body of a try whose handler catches the AssertionError: on NPU the check is skipped and what it
  would have stopped fails in the same try, which catches it (round 41 B1 class 5 row 18, yolov9 benchmarks.py:45).
- `cuda-flag`: the test (or `True if test else False`) is only the value of a callee's CUDA flag (`use_cuda=`,
  `cuda=`, `use_gpu=`; round 40 A1 row 15, B1 row 22, B2 row 39: mmyolo boxam_utils.py:254,263 handing
  pytorch-grad-cam `use_cuda=`). The flag only tells the callee whether to make its own `.cuda()` moves: on NPU it is
  False, the callee leaves tensors where the caller put them; a callee in the project carries its own findings.
- `measurement-only`: the arm only synchronises or resets/reads memory statistics for a report
  (`torch.cuda.synchronize()`, `reset_peak_memory_stats`, `x.append(torch.cuda.max_memory_allocated())`): on NPU the
  figures are unsynchronised or missing, nothing fails (round 27 A1 W1, B1 C8).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import only_raises
from ascend_feasibility.analyzer.context.runtime_providers import cuda_provider_named
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.domains.device import literals
from ascend_feasibility.domains.device.autocast_reads import AUTOCAST_OFF, only_turns_autocast_off
from ascend_feasibility.domains.device.cuda_features import feature_facets
from ascend_feasibility.domains.device.fast_path import CUDA_ARM_NO_NPU_KERNEL, RUNTIME_PROVIDER, no_npu_kernel
from ascend_feasibility.domains.device.implementation_settings import picked_class
from ascend_feasibility.domains.device.literal_devices import built_from_cuda_literal
from ascend_feasibility.domains.device.none_handles import none_handles, unchecked_use
from tree_sitter import Node

RAISES = "raises"
CUDA_ARM = "cuda-arm"
SHIM_MAPS_ARM = "shim-maps-arm"  # every CUDA name of the arm is a torch.cuda name transfer_to_npu maps (the scanner's)
SETTING = "setting"
IMPLEMENTATION_SETTING = "implementation-setting"  # the setting picks a class, and reaches no device API
AUTOCAST_GATE = "cuda-autocast-gate"
NONE_HANDLE = "none-handle"
NON_BLOCKING = "non-blocking-choice"
AUTOCAST_ENABLED = "autocast-enabled"
AUTOCAST_CUDA_TYPE = "autocast-cuda-type"  # that autocast's device_type is a "cuda" literal
QUERY_DEFAULT = "query-default"
CUDA_MISSING = "cuda-missing-fallback"  # and-ed with `not torch.cuda.is_available()` (_with_cuda_missing)
CUDA_LITERAL_DEVICE = "cuda-literal-device"
MEASUREMENT_ONLY = "measurement-only"
CAUGHT_CHECK = "caught-check"  # the CUDA arm only asserts, inside a try whose handler catches the AssertionError
CUDA_FLAG = "cuda-flag"  # the test only fills a callee's `use_cuda=` flag
CUDA_FLAG_KEYWORDS = frozenset({"use_cuda", "cuda", "use_gpu"})
CATCH_ASSERTION = frozenset({"Exception", "BaseException", "AssertionError"})
# torch.cuda calls that only synchronise or reset/read memory statistics: an arm of nothing else only measures
MEASURES = frozenset({"torch.cuda." + n for n in (
    "synchronize", "reset_peak_memory_stats", "reset_max_memory_allocated", "empty_cache", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved")})
CUDA_AVAILABLE = "torch.cuda.is_available"
LITERALS = frozenset({"integer", "float", "true", "false", "string"})  # not None: a missing answer, not a default
# called with no device type these report CUDA autocast only (torch/amp/autocast_mode.py; torch.cuda's are CUDA's)
CUDA_AUTOCAST_GATES = frozenset({"torch.is_autocast_enabled", "torch.cuda.is_autocast_enabled"})
NEGATIVE = frozenset({"!=", "not in"})
CUDA_NAMESPACES = ("torch.cuda", "torch.backends.cudnn", "torch.backends.cuda")
CUDA_FUNCTIONS = frozenset({"torch.get_autocast_gpu_dtype", "torch.set_autocast_gpu_dtype"})
CUDA_BACKENDS = frozenset({"nccl"})
AUTOCAST_CALL = "autocast"
MAX_NODES = 2_000  # the walk over one arm
MAX_FILE_NODES = 50_000  # the walk over a file for a predicate's callers
MAX_ARMS = 12
_NOT_CONDITIONS = frozenset({"string", "comment"})
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})
_READ_WHOLE = frozenset({"function_definition", "class_definition", "lambda", "string"})  # an arm's walk does not enter


def facets(test: Node, imports: ImportTable) -> tuple[str, ...]:
    """The facets of `test`, a comparison naming "cuda" or a `.startswith("cuda")` call."""
    found = []
    negated, through_or = _negative(test), False
    child, parent = test, test.parent
    while parent is not None and parent.type in {"parenthesized_expression", "not_operator", "boolean_operator"}:
        if parent.type == "not_operator":
            negated = not negated
        elif parent.type == "boolean_operator" and parsing.text(parent.child_by_field_name("operator")) != "and" \
                and not _cuda_test(parent):
            through_or = True  # (`x == "cuda" or x == torch.device("cuda")` is one test: its arms are the test's)
        child, parent = parent, parent.parent
    if through_or and (parent is None or parent.type != "assert_statement"):
        parent = None  # `if a or x == "cuda"`: which arm runs on NPU depends on `a`; an assert still fails loudly
    cuda_arm, npu_path = _arms(child, parent, negated)
    if npu_path is not None and _raises_on_npu(npu_path, parent):
        found.append(RAISES)
    elif npu_path is not None and _leaves_handle_none(npu_path, parent):
        found.extend((RAISES, NONE_HANDLE))
    specifics = cuda_specifics(test, imports)
    if specifics:
        found.append(CUDA_ARM)
        if all(item.startswith("torch.cuda.") for item in specifics) and _answers_default(child, parent, negated):
            found.append(QUERY_DEFAULT)
    if cuda_arm is not None and no_npu_kernel(cuda_arm):
        found.append(CUDA_ARM_NO_NPU_KERNEL)
    if cuda_arm is not None and _picks_runtime_provider(cuda_arm):
        found.append(RUNTIME_PROVIDER)
    keyword = _keyword_of(test)
    if keyword == "non_blocking":
        found.append(NON_BLOCKING)
    elif keyword in CUDA_FLAG_KEYWORDS:
        found.append(CUDA_FLAG)
    else:
        autocast = _switched_autocast(test)
        if autocast is None and _picks_disabled_autocast_type(test):
            found.append(AUTOCAST_OFF)
        if autocast is not None:
            found.append(AUTOCAST_ENABLED)
            if _cuda_device_type(autocast):
                found.append(AUTOCAST_CUDA_TYPE)
    if _compares_setting(test):
        found.append(SETTING)
        if picked_class(test) is not None:
            found.append(IMPLEMENTATION_SETTING)
    if _under_cuda_autocast_gate(test, imports):
        found.append(AUTOCAST_GATE)
    if RAISES not in found:  # a path that raises on NPU is no fallback, whatever the CUDA arm turns on
        found.extend(feature_facets(child, parent, cuda_arm, npu_path, imports))
    if not negated and _with_cuda_missing(test, imports):
        found.append(CUDA_MISSING)
    if built_from_cuda_literal(test, imports):
        found.append(CUDA_LITERAL_DEVICE)
    if cuda_arm is not None and RAISES not in found and _only_measures(cuda_arm, imports):
        found.append(MEASUREMENT_ONLY)
    if cuda_arm is not None and _only_caught_asserts(cuda_arm, parent):
        found.append(CAUGHT_CHECK)
    return tuple(found)


def identical_arms(test: Node) -> bool:
    """Does the test choose between two equal arms (`torch.float if device == "cuda" else torch.float`, or an if/else
    whose two blocks read the same)? Then no device changes what runs (round 27 A1 C4, B2 C6)."""
    child, parent, _ = _holder(test)
    if parent is None:
        return False
    if parent.type == "conditional_expression":
        parts = parent.named_children
        return len(parts) == 3 and parts[1] == child and _same(parts[0], parts[2])
    if parent.type != "if_statement" or parent.child_by_field_name("condition") != child:
        return False
    alternatives = parent.children_by_field_name("alternative")
    if len(alternatives) != 1 or alternatives[0].type != "else_clause":
        return False
    return _same(parent.child_by_field_name("consequence"), alternatives[0].child_by_field_name("body"))


def _same(one: Node | None, other: Node | None) -> bool:
    return one is not None and other is not None and parsing.text(one).split() == parsing.text(other).split()


def _only_measures(arm: Node, imports: ImportTable) -> bool:
    """Is every statement of the arm a call that only synchronises or resets/reads memory statistics, or appends
    such a reading to a list?"""
    return parsing.each_statement_is(arm, "call", lambda call: _measures(call, imports))


def _measures(call: Node, imports: ImportTable) -> bool:
    function = call.child_by_field_name("function")
    if function is not None and function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) == "append":
        arguments = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        return len(arguments) == 1 and _measure_value(arguments[0], imports)
    return _measure_call(call, imports)


def _measure_call(call: Node, imports: ImportTable) -> bool:
    function = call.child_by_field_name("function")
    return function is not None and qualified_name(function, imports) in MEASURES


def _measure_value(value: Node, imports: ImportTable) -> bool:
    """A memory reading, possibly scaled (`torch.cuda.max_memory_allocated(device) / 2**20`)."""
    while value.type in {"binary_operator", "parenthesized_expression"}:
        value = value.named_children[0]
    return value.type == "call" and _measure_call(value, imports)


def _with_cuda_missing(test: Node, imports: ImportTable) -> bool:
    """`if "cuda" in str(self.device) and not torch.cuda.is_available():`: the test is and-ed (and nothing else) with
    CUDA being absent, in an if or elif condition. Its arm only handles a CUDA setting on a host without CUDA (a CPU
    fallback): a native "npu" setting fails the test and is kept, and under transfer_to_npu is_available() is True."""
    node, terms = test, []
    while node.parent is not None and node.parent.type in {"parenthesized_expression", "boolean_operator"}:
        node = node.parent
        if node.type == "boolean_operator":
            if parsing.text(node.child_by_field_name("operator")) != "and":
                return False
            terms += [node.child_by_field_name("left"), node.child_by_field_name("right")]
    holder = node.parent
    if holder is None or holder.type not in {"if_statement", "elif_clause"} or holder.child_by_field_name("condition") != node:
        return False
    if not terms:
        return holder.type == "if_statement" and _only_cuda_missing_arm(holder, test, imports)
    return any(_cuda_missing(term, imports) for term in terms)


def _cuda_missing(term: Node | None, imports: ImportTable) -> bool:
    """Is `term` `not torch.cuda.is_available()` (through parentheses)?"""
    while term is not None and term.type == "parenthesized_expression" and term.named_children:
        term = term.named_children[0]
    argument = term.child_by_field_name("argument") if term is not None and term.type == "not_operator" else None
    function = argument.child_by_field_name("function") if argument is not None and argument.type == "call" else None
    return function is not None and function.type in {"identifier", "attribute"} \
        and qualified_name(function, imports) == CUDA_AVAILABLE


def _only_cuda_missing_arm(statement: Node, test: Node, imports: ImportTable) -> bool:
    """`if device == "cuda": if not torch.cuda.is_available(): device = "cpu"` (else: only tests of `device` for other
    values, `if device == "mps": ...`; round 31 B1 row 11): the CUDA arm is one `if not torch.cuda.is_available()`
    without else, and a value the arms do not name (a native "npu") runs nothing and passes through unchanged."""
    operands = [o for o in test.named_children if literals.cuda_literal_in(o) is None]
    if test.type != "comparison_operator" or len(operands) != 1:
        return False
    body = statement.child_by_field_name("consequence")
    inner = [c for c in (body.named_children if body is not None else []) if c.type != "comment"]
    if len(inner) != 1 or inner[0].type != "if_statement" or inner[0].children_by_field_name("alternative") \
            or not _cuda_missing(inner[0].child_by_field_name("condition"), imports):
        return False
    name = parsing.text(operands[0])
    for alternative in statement.children_by_field_name("alternative"):
        if alternative.type == "elif_clause":
            if not _tests_other_value(alternative.child_by_field_name("condition"), name):
                return False
            continue
        block = alternative.child_by_field_name("body")
        for nested in (c for c in (block.named_children if block is not None else []) if c.type != "comment"):
            if nested.type != "if_statement" or not _tests_other_value(nested.child_by_field_name("condition"), name):
                return False
            if any(a.type != "elif_clause" or not _tests_other_value(a.child_by_field_name("condition"), name)
                   for a in nested.children_by_field_name("alternative")):
                return False
    return True


def _tests_other_value(condition: Node | None, name: str) -> bool:
    """Is `condition` `name == "<a string>"` (or `in`): false for a value it does not name?"""
    if condition is None or condition.type != "comparison_operator":
        return False
    if not {parsing.text(op) for op in condition.children_by_field_name("operators")} <= {"==", "in"}:
        return False
    operands = condition.named_children
    return len(operands) == 2 and parsing.text(operands[0]) == name and operands[1].type == "string"


def _picks_disabled_autocast_type(test: Node) -> bool:
    """Is the test (or a conditional value it is the condition of) the device type of an autocast call that passes
    the literal `enabled=False` (`torch.autocast(enabled=False, device_type="cuda" if cuda(x) else "cpu")`)?"""
    child, parent = test, test.parent
    while parent is not None and parent.type in {"parenthesized_expression", "not_operator", "boolean_operator"}:
        child, parent = parent, parent.parent
    if parent is not None and parent.type == "conditional_expression" and len(parent.named_children) == 3 \
            and parent.named_children[1] == child:
        child, parent = parent, parent.parent
    if parent is not None and parent.type == "keyword_argument":
        if parsing.text(parent.child_by_field_name("name")) != "device_type":
            return False
        child, parent = parent, parent.parent
    elif parent is None or parent.type != "argument_list" or parent.named_children[0] != child:
        return False
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    return function is not None and _last_name(function) == AUTOCAST_CALL and only_turns_autocast_off(call)


def cuda_specifics(test: Node, imports: ImportTable) -> list[str]:
    """What makes the code the test opens CUDA-specific, in order, each once: the torch.cuda/cuDNN names it uses
    (`torch.cuda.set_device`), `"cuda" device`, `"nccl" backend`. The code is the test's own arm, and one level into
    the functions of the file that arm calls by name (`pin_cuda_ordinal(target.ordinal)`); for a predicate (a function
    or property whose one statement returns the test, `return self.device == "cuda"`), the arms its callers in the
    file open with it."""
    child, parent, negated = _holder(test)
    if parent is not None and parent.type == "return_statement":
        arms = _predicate_arms(parent)
    else:
        arm = _arms(child, parent, negated)[0]
        arms = [arm] if arm is not None else _after_early_exit(child, parent, negated)
    found: list[str] = []
    for arm in arms:
        for node in [arm, *_called_definitions(arm)]:
            for item in _cuda_items(node, imports):
                if item not in found:
                    found.append(item)
    return found


def _answers_default(condition: Node, parent: Node | None, negated: bool) -> bool:
    """Does the path NPU tensors take only return a literal (`if self.device.type != "cuda": return 1.0` before the
    code that asks torch.cuda for the answer: mem_get_info, a capability)? Then the function answers a fixed default
    on the NPU: nothing fails. (An if/else whose arms both return is DEV145's fast path.)"""
    if not negated or parent is None or parent.type != "if_statement" \
            or parent.child_by_field_name("condition") != condition or parent.children_by_field_name("alternative"):
        return False
    other = parent.child_by_field_name("consequence")
    statements = [s for s in (other.named_children if other is not None else []) if s.type != "comment"]
    return len(statements) == 1 and statements[0].type == "return_statement" and len(statements[0].named_children) == 1 \
        and statements[0].named_children[0].type in LITERALS


def _after_early_exit(condition: Node, parent: Node | None, negated: bool) -> list[Node]:
    """The statements after `if x.device.type != "cuda": return ...` (no else) in its block: the code only CUDA
    reaches, as an arm (`free, total = torch.cuda.mem_get_info(self.device)` below the early return)."""
    if not negated or parent is None or parent.type != "if_statement" or parent.child_by_field_name("condition") != condition \
            or parent.children_by_field_name("alternative") or not _leaves(parent.child_by_field_name("consequence")):
        return []
    following, arms = parent.next_named_sibling, []
    while following is not None and len(arms) < MAX_ARMS:
        arms.append(following)
        following = following.next_named_sibling
    return arms


def _holder(test: Node) -> tuple[Node, Node | None, bool]:
    """(the test with its parentheses, `not` and `and` terms, the statement or expression holding that, negated)."""
    negated = _negative(test)
    child, parent = test, test.parent
    while parent is not None and parent.type in {"parenthesized_expression", "not_operator", "boolean_operator"}:
        if parent.type == "not_operator":
            negated = not negated
        elif parent.type == "boolean_operator" and parsing.text(parent.child_by_field_name("operator")) != "and":
            return child, None, negated
        child, parent = parent, parent.parent
    return child, parent, negated


def _predicate_arms(statement: Node) -> list[Node]:
    """The arms the callers in this file open with a predicate whose one statement is `statement`: `if x.name:` opens
    its body, `if not x.name: return` what follows it in its block (with `x.name()` alike)."""
    body = statement.parent
    function = body.parent if body is not None and body.type == "block" else None
    if function is None or function.type != "function_definition":
        return []
    if [s for s in body.named_children if s.type != "comment" and not _is_docstring(s)] != [statement]:
        return []
    name = parsing.text(function.child_by_field_name("name"))
    arms: list[Node] = []
    for node in parsing.walk(parsing.root_of(statement), limit=MAX_FILE_NODES, prune=_NOT_CONDITIONS):
        if node.type not in {"if_statement", "elif_clause"}:
            continue
        condition = node.child_by_field_name("condition")
        negated = condition is not None and condition.type == "not_operator"
        tested = condition.child_by_field_name("argument") if negated else condition
        if tested is not None and tested.type == "call":
            tested = tested.child_by_field_name("function")
        if tested is None or _last_name(tested) != name:
            continue
        consequence = node.child_by_field_name("consequence")
        if not negated:
            arms.append(consequence)
        elif node.type == "if_statement" and not node.children_by_field_name("alternative") and _leaves(consequence):
            following = node.next_named_sibling
            while following is not None:
                arms.append(following)
                following = following.next_named_sibling
        if len(arms) > MAX_ARMS:
            break
    return [a for a in arms if a is not None]


def _last_name(node: Node) -> str:
    if node.type == "identifier":
        return parsing.text(node)
    if node.type == "attribute":
        return parsing.text(node.child_by_field_name("attribute"))
    return ""


def _is_docstring(statement: Node) -> bool:
    return statement.type == "expression_statement" and bool(statement.named_children) \
        and statement.named_children[0].type == "string"


def _called_definitions(arm: Node) -> list[Node]:
    """The bodies of the module-level functions of the file that `arm` calls by their plain name."""
    called = {parsing.text(n.child_by_field_name("function")) for n in parsing.walk(arm, limit=MAX_NODES, prune=_READ_WHOLE)
              if n.type == "call" and n.child_by_field_name("function") is not None
              and n.child_by_field_name("function").type == "identifier"}
    if not called:
        return []
    bodies = []
    for statement in parsing.root_of(arm).named_children:
        definition = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if definition is not None and definition.type == "function_definition" \
                and parsing.text(definition.child_by_field_name("name")) in called:
            bodies.append(definition.child_by_field_name("body"))
    return [b for b in bodies if b is not None][:MAX_ARMS]


def _keyword_of(test: Node, call_name: str | None = None) -> str | None:
    """The keyword whose value the test is (through `and`, parentheses, `bool(...)`): `non_blocking=` (it only chooses
    whether a copy is asynchronous), `enabled=` (it only switches an autocast region on). With `call_name`, only a
    keyword of a call whose last name is that (`torch.autocast`, `torch.cuda.amp.autocast`)."""
    child, parent = test, test.parent
    while parent is not None:
        if parent.type in {"parenthesized_expression", "argument_list"}:
            pass
        elif parent.type == "boolean_operator" and parsing.text(parent.child_by_field_name("operator")) == "and":
            pass
        elif parent.type == "call" and parsing.text(parent.child_by_field_name("function")) == "bool":
            pass
        elif _as_bool(parent, child):
            pass
        else:
            break
        child, parent = parent, parent.parent
    if parent is None or parent.type != "keyword_argument" or parent.child_by_field_name("value") != child:
        return None
    if call_name is not None:
        call = parent.parent.parent if parent.parent is not None else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None or _last_name(function) != call_name:
            return None
    return parsing.text(parent.child_by_field_name("name"))


def _as_bool(conditional: Node, test: Node) -> bool:
    """Is `conditional` `True if test else False`: the test's own truth value?"""
    parts = conditional.named_children if conditional.type == "conditional_expression" else []
    return len(parts) == 3 and parts[1] == test and parts[0].type == "true" and parts[2].type == "false"


def _only_caught_asserts(arm: Node, holder: Node | None) -> bool:
    """Is the CUDA arm an if's block of asserts only, with no other arm, inside the body of a try whose handler catches
    an AssertionError (`except Exception`, a bare except)? On NPU the asserts are skipped, and what they would have
    stopped fails later in the same try, whose handler catches that too (round 41 B1 class 5 row 18: yolov9
    benchmarks.py:45 `if 'cuda' in device.type: assert gpu, ...`, in a loop of export formats under try/except
    Exception)."""
    if holder is None or holder.type != "if_statement" or holder.child_by_field_name("alternative") is not None:
        return False
    statements = [s for s in arm.named_children if s.type != "comment"] if arm.type == "block" else []
    if not statements or any(s.type != "assert_statement" for s in statements):
        return False
    child, scope = holder, holder.parent
    while scope is not None and scope.type not in _NESTED:
        if scope.type == "try_statement" and scope.child_by_field_name("body") == child:
            return any(_catches_assertion(clause) for clause in scope.named_children if clause.type == "except_clause")
        child, scope = scope, scope.parent
    return False


def _catches_assertion(clause: Node) -> bool:
    caught = next((c for c in clause.named_children if c.type != "block" and c.type != "comment"), None)
    if caught is None:
        return True  # a bare except
    if caught.type == "as_pattern":
        caught = caught.named_children[0] if caught.named_children else caught
    names = caught.named_children if caught.type == "tuple" else [caught]
    return any(parsing.text(n).rsplit(".", 1)[-1] in CATCH_ASSERTION for n in names)


def autocast_enabled_test(call: Node) -> Node | None:
    """The CUDA device test an autocast call's `enabled=` value holds as a positive term (`enabled=amp and
    device.type == "cuda"`), also through a name the enclosing function assigns once (`on = device.type == "cuda"
    and amp` ... `enabled=on`), or None."""
    value = _enabled_value(call)
    if value is not None and value.type == "identifier":
        value = assigned_once(value)
    return _cuda_term(value) if value is not None else None


def _enabled_value(call: Node) -> Node | None:
    arguments = call.child_by_field_name("arguments")
    keyword = next((a for a in (arguments.named_children if arguments is not None else [])
                    if a.type == "keyword_argument" and parsing.text(a.child_by_field_name("name")) == "enabled"), None)
    return keyword.child_by_field_name("value") if keyword is not None else None


def _cuda_term(value: Node, depth: int = 0) -> Node | None:
    """A comparison with a "cuda" literal that `value` is, or holds as a term of an `and` (through parentheses)."""
    if depth > 8:
        return None
    if value.type == "parenthesized_expression" and value.named_children:
        return _cuda_term(value.named_children[0], depth + 1)
    if value.type == "boolean_operator" and parsing.text(value.child_by_field_name("operator")) == "and":
        for side in ("left", "right"):
            part = value.child_by_field_name(side)
            found = _cuda_term(part, depth + 1) if part is not None else None
            if found is not None:
                return found
        return None
    if value.type == "comparison_operator" and not _negative(value) \
            and any(literals.cuda_literal_in(o) is not None for o in value.named_children):
        return value
    return None


def _function_of(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in {"function_definition", "module"}:
        current = current.parent
    return current


def assigned_once(name: Node) -> Node | None:
    """The value the enclosing function (or module) assigns to this name, where it assigns it exactly once."""
    scope = _function_of(name)
    values = []
    for node in parsing.walk(scope, limit=MAX_FILE_NODES, prune=_NESTED, enter_root=True):
        if node.type in {"assignment", "augmented_assignment"}:
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier" and parsing.text(left) == parsing.text(name):
                values.append(node.child_by_field_name("right") if node.type == "assignment" else None)
    return values[0] if len(values) == 1 else None


def _switched_autocast(test: Node) -> Node | None:
    """The autocast call whose `enabled=` value the test is (a positive term of an `and`, through parentheses), or
    whose `enabled=` is a name the function assigns once from a value holding the test; None otherwise."""
    if _keyword_of(test, AUTOCAST_CALL) == "enabled":
        child = test
        while child.type != "keyword_argument":
            child = child.parent
        return child.parent.parent
    child, parent = test, test.parent
    while parent is not None and (parent.type == "parenthesized_expression" or (
            parent.type == "boolean_operator" and parsing.text(parent.child_by_field_name("operator")) == "and")):
        child, parent = parent, parent.parent
    if parent is None or parent.type != "assignment" or parent.child_by_field_name("right") != child:
        return None
    left = parent.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return None
    scope = _function_of(parent)
    for node in parsing.walk(scope, limit=MAX_FILE_NODES, prune=_NESTED, enter_root=True):
        if node.type == "call" and _last_name(node.child_by_field_name("function") or node) == AUTOCAST_CALL:
            value = _enabled_value(node)
            if value is not None and value.type == "identifier" and parsing.text(value) == parsing.text(left) \
                    and assigned_once(value) == child:
                return node
    return None


def _cuda_device_type(call: Node) -> bool:
    """Is the autocast's device type (first argument or `device_type=`) a "cuda" literal?"""
    arguments = call.child_by_field_name("arguments")
    named = arguments.named_children if arguments is not None else []
    value = next((a.child_by_field_name("value") for a in named if a.type == "keyword_argument"
                  and parsing.text(a.child_by_field_name("name")) == "device_type"), None)
    if value is None and named and named[0].type != "keyword_argument":
        value = named[0]
    return value is not None and value.type == "string" and literals.device_literal(value) is not None


def _under_cuda_autocast_gate(test: Node, imports: ImportTable) -> bool:
    """Is `test` reached only where the no-argument autocast query is True: inside the body of an if (or an `and`)
    testing it, or after an earlier `if not <query>: return` of its block (up to the enclosing function)?"""
    child, parent = test, test.parent
    while parent is not None and parent.type not in {"function_definition", "class_definition", "module"}:
        if parent.type in {"if_statement", "elif_clause"} and parent.child_by_field_name("consequence") == child:
            if _gate_terms(parent.child_by_field_name("condition"), imports, negated=False):
                return True
        if parent.type == "boolean_operator" and parsing.text(parent.child_by_field_name("operator")) == "and":
            left = parent.child_by_field_name("left")
            if left is not child and _gate_terms(left, imports, negated=False):
                return True
        if parent.type == "block":
            sibling = child.prev_named_sibling
            while sibling is not None:
                if (sibling.type == "if_statement" and not sibling.children_by_field_name("alternative")
                        and _gate_terms(sibling.child_by_field_name("condition"), imports, negated=True)
                        and _leaves(sibling.child_by_field_name("consequence"))):
                    return True
                sibling = sibling.prev_named_sibling
        child, parent = parent, parent.parent
    return False


def _gate_terms(condition: Node | None, imports: ImportTable, negated: bool) -> bool:
    """`condition` is the no-argument query, alone or a term of an `and`; when `negated`, `not <query>` alone."""
    while condition is not None and condition.type == "parenthesized_expression":
        condition = condition.named_children[0] if condition.named_children else None
    if condition is None:
        return False
    if negated:
        return condition.type == "not_operator" and _gate_terms(condition.child_by_field_name("argument"), imports, False)
    if condition.type == "boolean_operator" and parsing.text(condition.child_by_field_name("operator")) == "and":
        return any(_gate_terms(condition.child_by_field_name(side), imports, False) for side in ("left", "right"))
    if condition.type != "call":
        return False
    arguments = condition.child_by_field_name("arguments")
    function = condition.child_by_field_name("function")
    return (arguments is not None and not arguments.named_children and function is not None
            and qualified_name(function, imports) in CUDA_AUTOCAST_GATES)


def _leaves(block: Node | None) -> bool:
    statements = [s for s in (block.named_children if block is not None else []) if s.type != "comment"]
    return bool(statements) and statements[-1].type in {"return_statement", "raise_statement", "continue_statement"}


def _arms(condition: Node, parent: Node | None, negated: bool) -> tuple[Node | None, Node | None]:
    """(the code the test opens on CUDA, what runs instead on NPU), as far as the statement holding it says."""
    if parent is None:
        return None, None
    if parent.type == "assert_statement":
        return None, (None if negated else parent)
    if parent.type == "conditional_expression":
        parts = parent.named_children
        if len(parts) == 3 and parts[1] == condition:
            return (parts[2], None) if negated else (parts[0], None)
        return None, None
    if parent.type not in {"if_statement", "elif_clause"} or parent.child_by_field_name("condition") != condition:
        return None, None
    consequence = parent.child_by_field_name("consequence")
    if negated:
        return None, consequence
    return consequence, parent


def _raises_on_npu(path: Node, holder: Node | None) -> bool:
    if path.type == "assert_statement":
        return True
    if path.type == "block":  # a negated test's own arm
        return only_raises(path)
    chain = holder.parent if holder is not None and holder.type == "elif_clause" else holder
    if chain is None or chain.type != "if_statement":
        return False
    conditions = [chain.child_by_field_name("condition")]
    final = None
    for clause in chain.children_by_field_name("alternative"):
        if clause.type == "elif_clause":
            conditions.append(clause.child_by_field_name("condition"))
        elif clause.type == "else_clause":
            final = clause
    if final is None or any(c is not None and _names_npu(c) for c in conditions):
        return False
    return only_raises(final)


def _leaves_handle_none(path: Node, holder: Node | None) -> bool:
    """Does the arm that runs on NPU only set handles to None that code outside a check then uses (none_handles)?"""
    if path.type == "block":  # a negated test's own arm
        arm, statement = path, path.parent
    elif holder is not None and holder.type == "if_statement":
        alternatives = holder.children_by_field_name("alternative")
        if len(alternatives) != 1 or alternatives[0].type != "else_clause":
            return False
        arm, statement = alternatives[0].child_by_field_name("body"), holder
    else:
        return False
    return arm is not None and statement is not None and unchecked_use(statement, none_handles(arm)) is not None


def _names_npu(node: Node) -> bool:
    return any((current.type == "string" and literals.names_npu(current))
               or (current.type == "identifier" and "npu" in parsing.text(current).lower())
               for current in parsing.walk(node, limit=MAX_NODES))


def _cuda_items(arm: Node, imports: ImportTable) -> list[str]:
    found = []
    for node in parsing.walk(arm, limit=MAX_NODES, prune=_READ_WHOLE):
        if node.type == "attribute":
            if node.parent is not None and node.parent.type == "attribute" and node.parent.child_by_field_name("object") == node:
                continue  # `torch.cuda` of `torch.cuda.set_device`: the longer name is read
            name = qualified_name(node, imports)
            if name is not None and (name in CUDA_FUNCTIONS or any(
                    name == space or name.startswith(space + ".") for space in CUDA_NAMESPACES)):
                found.append((node.start_byte, name))
        elif node.type == "string":
            if literals.is_message_argument(node) or literals.is_docstring(node):
                continue
            if literals.string_parts(node)[1].strip().lower() in CUDA_BACKENDS:
                found.append((node.start_byte, f'"{literals.string_parts(node)[1].strip().lower()}" backend'))
            elif literals.device_literal(node) is not None:
                found.append((node.start_byte, 'a "cuda" device'))
    return [item for _, item in sorted(found)]


def _picks_runtime_provider(arm: Node) -> bool:
    """Does the arm name an ONNX Runtime execution provider for NVIDIA GPUs (a string, not a message)?"""
    return cuda_provider_named(arm) is not None


def provider_choice(test: Node, imports: ImportTable) -> bool:
    """Is `test` (a CUDA check, `torch.cuda.is_available()`) the condition of an if or a conditional expression whose
    CUDA arm only picks an ONNX Runtime provider for NVIDIA GPUs: it names one and no torch.cuda name, "cuda" device
    or "nccl" backend (`["CUDAExecutionProvider"] if torch.cuda.is_available() else ["CPUExecutionProvider"]`)? An
    arm that also chooses the torch device is a device choice too, and stays one."""
    child, parent, negated = _holder(test)
    arm = _arms(child, parent, negated)[0]
    return arm is not None and _picks_runtime_provider(arm) and not cuda_specifics(test, imports)


def _cuda_test(node: Node) -> bool:
    """A positive test naming "cuda" (`x == "cuda"`, `x == torch.device("cuda")`, `"cuda" in x`,
    `x.startswith("cuda")`), or an `or` of such tests."""
    if node.type == "parenthesized_expression":
        return bool(node.named_children) and _cuda_test(node.named_children[0])
    if node.type == "boolean_operator":
        return parsing.text(node.child_by_field_name("operator")) == "or" \
            and all(_cuda_test(node.child_by_field_name(side)) for side in ("left", "right"))
    if node.type == "comparison_operator":
        return not _negative(node) and any(_names_cuda(operand) for operand in node.named_children)
    if node.type == "call":
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        return function is not None and function.type == "attribute" \
            and parsing.text(function.child_by_field_name("attribute")) == "startswith" \
            and arguments is not None and any(_names_cuda(a) for a in arguments.named_children)
    return False


def _names_cuda(operand: Node) -> bool:
    """A "cuda" literal (or a collection of them), or `torch.device` of one."""
    if literals.cuda_literal_in(operand) is not None:
        return True
    arguments = operand.child_by_field_name("arguments") if operand.type == "call" else None
    return arguments is not None and parsing.text(operand.child_by_field_name("function")).endswith("device") \
        and any(literals.cuda_literal_in(a) is not None for a in arguments.named_children[:1])


def _compares_setting(test: Node) -> bool:
    """Is the value tested a name or attribute holding a string (not `.type`, not a call such as str(device))?"""
    if test.type == "call":  # `<value>.startswith("cuda")`
        function = test.child_by_field_name("function")
        operands = [function.child_by_field_name("object")] if function is not None else []
    else:
        operands = [o for o in test.named_children if o.type not in {"string", "tuple", "list", "set"}]
    if len(operands) != 1 or operands[0] is None:
        return False
    operand = operands[0]
    if operand.type == "identifier":
        last = parsing.text(operand)
    elif operand.type == "attribute":
        last = parsing.text(operand.child_by_field_name("attribute"))
    else:
        return False
    return "type" not in last.lower()


def _negative(test: Node) -> bool:
    if test.type != "comparison_operator":
        return False
    return bool({parsing.text(o) for o in test.children_by_field_name("operators")} & NEGATIVE)
