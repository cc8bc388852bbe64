"""Native extensions a file reaches only in the CUDA arm of a device test whose other arm runs PyTorch.

stylegan3's torch_utils/ops/bias_act.py builds its plugin in `_init()` (`global _plugin; _plugin =
custom_ops.get_plugin(..., sources=['bias_act.cpp', 'bias_act.cu'])`) and calls it in `_bias_act_cuda`, and both are
reached only from `if impl == 'cuda' and x.device.type == 'cuda' and _init(): return _bias_act_cuda(...)`, after
which `return _bias_act_ref(...)` computes the same in plain PyTorch. GroundingDINO imports `_C` in a try whose bare
handler only warns, calls it in `MultiScaleDeformableAttnFunction`, and applies that Function only under
`if torch.cuda.is_available() and value.is_cuda:`, whose else arm calls `multi_scale_deformable_attn_pytorch`.
On Ascend such an extension is never built and never called: NPU tensors take the PyTorch arm.

The test decides what transfer_to_npu does to it. `x.device.type == "cuda"` stays false for an NPU tensor. But
transfer_to_npu sets `torch.Tensor.is_cuda = torch.Tensor.is_npu` and copies torch_npu.npu's names (`is_available`
among them) onto torch.cuda (Ascend/pytorch torch_npu/contrib/transfer_to_npu.py `_init` and `_patch_cuda`, on
v2.1.0-6.0.rc2, v2.9.0-7.3.0 and v2.12.0-26.1.0), so `x.is_cuda` and `torch.cuda.is_available()` become true there and
send NPU tensors into the extension that is not built (`shim`).

Read per file, only in files that test for CUDA and bind a name in a try or under `global`; the project pass
(propagation.extension_fallback, custom_ops/fallbacks.py) decides which extension a handle is."""

from __future__ import annotations

from collections import defaultdict

from ascend_feasibility.analyzer.context.import_fallbacks import REPORTING, _catching_handler, _walk
from ascend_feasibility.analyzer.context.selected_definitions import module_definitions
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

CUDA_TESTS = ("is_cuda", "device.type", "cuda.is_available")
BINDINGS = ("try:", "global ")
NATIVE_SOURCES = (".cu", ".cpp", ".cc", ".cxx")
DEFINITIONS = {"function_definition", "class_definition", "decorated_definition"}
IDENTIFIERS = "(identifier) @name"
GLOBALS = "(global_statement (identifier) @name)"
LOADS = "(assignment left: (identifier) @left right: (call) @right)"
ASSIGNMENTS = "(assignment left: (identifier) @left right: (_) @right)"
NAME_DEPTH = 2  # `sources = [...]` then `sources = [os.path.join(here, s) for s in sources]`
MAX_IDENTIFIERS = 50000

# (handle, module it imports or "", native sources its loader names, ops called on it, the module-level definitions
#  only CUDA arms reach that use it, as (name, first line, last line), the gate's line, the gate's test, the other
#  arm's function, shim)
Handle = tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[tuple[str, int, int], ...], int, str, str, bool]


def gated_handles(root: Node, text: str) -> list[Handle]:
    """The names this file binds to a native extension (an import caught where it fails, or a global assigned by a
    loader given native sources) every use of which sits in module-level definitions that the file reaches only in the
    CUDA arm of a device test with a PyTorch other arm."""
    if "cuda" not in text or not any(m in text for m in CUDA_TESTS) or not any(m in text for m in BINDINGS):
        return []
    candidates = (_imported(root) if "try:" in text else []) + (_loaded(root) if "global " in text else [])
    if not candidates:
        return []
    by_bytes: dict[bytes, list[Node]] = defaultdict(list)  # decoded only for the names asked about
    for node in parsing.captures(parsing.query("python", IDENTIFIERS), root).get("name", [])[:MAX_IDENTIFIERS]:
        parent = node.parent
        if parent is not None and parent.type in {"attribute", "keyword_argument"} and node != parent.named_children[0]:
            continue  # `torch._C`, `self._init()`, `f(_C=...)`: another name than the module's own
        if parent is not None and parent.type in {"function_definition", "class_definition"} \
                and parent.child_by_field_name("name") == node and parent.parent is not None and parent.parent.type != "module":
            continue  # a method or nested function of that name declares its own
        by_bytes[node.text].append(node)
    identifiers = _Names(by_bytes)
    definitions = module_definitions(root)
    gates = _gated_definitions(definitions, identifiers)
    result = []
    for handle, module, sources, binding in candidates:
        users, ops, entries = set(), set(), []
        for node in identifiers.get(handle, []):
            if _inside(node, binding) or _declares(node, handle):
                continue
            owner = _owner(node)
            arm = _cuda_arm(node) if owner is not None and owner not in gates else None
            if owner is None or (owner not in gates and arm is None):
                entries = []
                break
            if arm is not None:  # used right in the arm: the definition holding it runs on every device
                entries.append(arm)
            else:
                users.add(owner)
                entries.append(gates[owner])
            if node.parent is not None and node.parent.type == "attribute" and node.parent.child_by_field_name("object") == node:
                ops.add(parsing.text(node.parent.child_by_field_name("attribute")))
        if not entries or not ops:
            continue
        entries.sort(key=lambda g: g[0])
        line, test, fallback, _ = entries[0]
        if fallback == handle or fallback in users:
            continue
        shim = any(g[3] for g in entries)
        spans = tuple(sorted((user, definitions[user].start_point.row + 1, definitions[user].end_point.row + 1)
                             for user in users))
        result.append((handle, module, tuple(sources), tuple(sorted(ops)), spans, line, test, fallback, shim))
    return result


class _Names:
    """Identifier nodes by their text, looked up by str."""

    def __init__(self, by_bytes: dict[bytes, list[Node]]) -> None:
        self.by_bytes = by_bytes

    def get(self, name: str, default: list[Node]) -> list[Node]:
        return self.by_bytes.get(name.encode("utf-8"), default)


def _imported(root: Node) -> list[tuple[str, str, tuple[str, ...], Node]]:
    """Names bound by module-level imports inside a try whose handler catches the import error and carries on."""
    found = []
    statements = [statement for attempt in root.named_children if attempt.type == "try_statement"
                  for statement in (attempt.child_by_field_name("body").named_children
                                    if attempt.child_by_field_name("body") is not None else ())
                  if statement.type in {"import_statement", "import_from_statement"}]
    for statement in statements:
        if _catching_handler(statement) is None:
            continue
        base = statement.child_by_field_name("module_name")
        for name in statement.children_by_field_name("name"):
            dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
            alias = name.child_by_field_name("alias") if name.type == "aliased_import" else None
            if dotted is None:
                continue
            text = "".join(parsing.text(dotted).split())
            if statement.type == "import_from_statement":
                prefix = "".join(parsing.text(base).split()) if base is not None else ""
                module = f"{prefix}.{text}" if prefix and not prefix.endswith(".") else prefix + text
                bound = parsing.text(alias) if alias is not None else text
            elif alias is not None:
                module, bound = text, parsing.text(alias)
            else:
                continue  # `import a.b` binds `a`: not the extension itself
            found.append((bound, module, (), statement))
    return found


def _loaded(root: Node) -> list[tuple[str, str, tuple[str, ...], Node]]:
    """Globals a module-level function assigns from a call given native sources (`global _plugin` ... `_plugin =
    custom_ops.get_plugin(module_name=..., sources=['bias_act.cpp', 'bias_act.cu'])`: a lazy JIT build), written in
    the call or in a name the function assigns before it (`sources = ['upfirdn2d.cpp', 'upfirdn2d.cu']; sources =
    [os.path.join(os.path.dirname(__file__), s) for s in sources]`, then `get_plugin(..., sources=sources)`)."""
    found = []
    slots = {parsing.text(a.child_by_field_name("left")) for statement in root.named_children
             if (a := parsing.statement_assignment(statement)) is not None and a.child_by_field_name("left") is not None}
    for definition in root.named_children:
        function = definition.child_by_field_name("definition") if definition.type == "decorated_definition" else definition
        if function is None or function.type != "function_definition":
            continue
        if b"global " not in function.text:
            continue
        names = {parsing.text(n) for n in parsing.captures(parsing.query("python", GLOBALS), function).get("name", [])} & slots
        if not names:
            continue
        found_here = parsing.captures(parsing.query("python", LOADS), function)
        for left, right in zip(found_here.get("left", []), found_here.get("right", [])):
            if parsing.text(left) not in names:
                continue
            arguments = right.child_by_field_name("arguments")
            sources = _native_strings(arguments) or _named_sources(arguments, function, root)
            if sources:
                found.append((parsing.text(left), "", tuple(sources), left))
    return found


def _native_strings(arguments: Node | None) -> list[str]:
    strings = []
    for node in _walk(arguments, 400) if arguments is not None else ():
        if node.type == "string_content":
            value = parsing.text(node)
            if value.endswith(NATIVE_SOURCES) and " " not in value:
                strings.append(value)
    return strings


def _named_sources(arguments: Node | None, function: Node, root: Node) -> list[str]:
    """The native sources of the names passed to a call (`sources=sources`), read from the function's assignments to
    them before the call, or the module's where the function assigns none (`_SOURCES = [...]` at the top), through
    the names those assignments read in turn (NAME_DEPTH levels)."""
    if arguments is None:
        return []
    assigned: dict[str, list[Node]] = defaultdict(list)
    captured = parsing.captures(parsing.query("python", ASSIGNMENTS), function)
    local = set()
    for left, right in zip(captured.get("left", []), captured.get("right", [])):
        local.add(parsing.text(left))
        if right.end_byte <= arguments.start_byte:
            assigned[parsing.text(left)].append(right)
    for statement in root.named_children:
        assignment = parsing.statement_assignment(statement)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if left is not None and left.type == "identifier" and right is not None and parsing.text(left) not in local:
            assigned[parsing.text(left)].append(right)
    if not assigned:
        return []

    def names_in(node: Node) -> set[str]:
        return {parsing.text(n) for n in _walk(node, 400) if n.type == "identifier" and parsing.text(n) in assigned}

    strings: list[str] = []
    pending, seen = names_in(arguments), set()
    for _ in range(NAME_DEPTH):
        following: set[str] = set()
        for name in pending - seen:
            seen.add(name)
            for right in assigned[name]:
                strings += [s for s in _native_strings(right) if s not in strings]
                following |= names_in(right)
        pending = following
    return strings


def _gated_definitions(definitions: dict[str, Node], identifiers: _Names) -> dict[str, tuple[int, str, str, bool]]:
    """Module-level definitions this file names only in CUDA arms with a PyTorch other arm, or only inside such
    definitions: name → (the gate's line, its test, the other arm's function, shim). Names nothing here uses are not
    among them (another file may call them)."""
    gated: dict[str, tuple[int, str, str, bool]] = {}
    changed = True
    while changed:
        changed = False
        for name, node in definitions.items():
            if name in gated:
                continue
            arms, ok = [], True
            for use in identifiers.get(name, []):
                if _inside(use, node):
                    continue  # its own name, its own recursion (the backward of _upfirdn2d_cuda's Function)
                owner = _owner(use)
                if owner is not None and owner in gated:
                    arms.append(gated[owner])
                    continue
                arm = _cuda_arm(use)
                if arm is None:
                    ok = False
                    break
                arms.append(arm)
            if ok and arms:
                gated[name] = min(arms, key=lambda a: a[0])
                if any(a[3] for a in arms):
                    gated[name] = (*gated[name][:3], True)
                changed = True
    return gated


def _cuda_arm(node: Node) -> tuple[int, str, str, bool] | None:
    """Where `node` runs only when a CUDA device test passes and the other arm calls a function: (the test's line,
    its text, that function, whether transfer_to_npu makes the test true for NPU tensors)."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in {"module", "class_definition"}:
        if parent.type == "if_statement":
            condition = parent.child_by_field_name("condition")
            if child == parent.child_by_field_name("consequence"):
                tests = _tests(_operands(condition))
            elif child == condition:
                tests = _tests([o for o in _operands(condition) if o.end_byte <= node.start_byte])
            else:
                tests = []
            if tests:
                fallback = _other_arm(parent)
                if fallback is not None:
                    return (parent.start_point.row + 1, parsing.text(condition)[:120], fallback,
                            not any(kind == "device.type" for kind in tests))
                return None
        child, parent = parent, parent.parent
    return None


def true_under_transfer(condition: Node | None) -> bool:
    """Does transfer_to_npu make this test true on an Ascend host: an `and` chain of CUDA tests (`torch.cuda.
    is_available()`, `x.is_cuda`) with no device-type test, which stays false for NPU tensors?"""
    tests = _tests(_operands(condition))
    return bool(tests) and "device.type" not in tests


def _operands(condition: Node | None) -> list[Node]:
    """The operands of a condition's `and` chain; none where an `or` or a `not` joins them."""
    if condition is None:
        return []
    while condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    if condition.type == "boolean_operator":
        operator = next((c.type for c in condition.children if not c.is_named), "")
        if operator != "and":
            return []
        return _operands(condition.child_by_field_name("left")) + _operands(condition.child_by_field_name("right"))
    return [condition]


def _tests(operands: list[Node]) -> list[str]:
    """The CUDA device tests among an and-chain's operands: is_cuda, cuda.is_available, device.type (== "cuda")."""
    kinds = []
    for operand in operands:
        text = parsing.text(operand)
        if operand.type == "attribute" and text.endswith(".is_cuda"):
            kinds.append("is_cuda")
        elif operand.type == "call" and parsing.text(operand.child_by_field_name("function")).endswith("cuda.is_available"):
            kinds.append("cuda.is_available")
        elif operand.type == "comparison_operator" and [c.type for c in operand.children if not c.is_named] == ["=="]:
            sides = operand.named_children
            literal = next((s for s in sides if s.type == "string"), None)
            other = next((s for s in sides if s.type != "string"), None)
            if literal is not None and other is not None and parsing.text(literal)[1:-1] == "cuda" \
                    and parsing.text(other).endswith((".type", "device")):
                kinds.append("device.type")
    return kinds


def _other_arm(statement: Node) -> str | None:
    """The function the other arm calls: the else block's first call, or, when the CUDA arm returns and there is no
    else, the first call of the statement after the if. None for an elif chain, an arm that only raises or warns, and
    an arm that calls nothing."""
    from ascend_feasibility.analyzer.context.guards import only_raises_or_warns

    if any(c.type == "elif_clause" for c in statement.children):
        return None
    other = next((c for c in statement.children if c.type == "else_clause"), None)
    if other is not None:
        block = other.child_by_field_name("body")
    else:
        body = statement.child_by_field_name("consequence")
        last = body.named_children[-1] if body is not None and body.named_children else None
        if last is None or last.type != "return_statement":
            return None
        block = statement.next_named_sibling
    if block is None or (block.type == "block" and only_raises_or_warns(block)) or block.type == "raise_statement":
        return None
    for node in _walk(block, 400):
        function = node.child_by_field_name("function") if node.type == "call" else None
        if function is not None and parsing.text(function).rsplit(".", 1)[-1] not in REPORTING:
            return parsing.text(function)
    return None  # it only logs: the step is skipped, nothing computes it


def _owner(node: Node) -> str | None:
    """The name of the module-level definition holding `node`; None at module level."""
    child, parent = node, node.parent
    while parent is not None and parent.type != "module":
        child, parent = parent, parent.parent
    if parent is None or child.type not in DEFINITIONS:
        return None
    definition = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
    name = definition.child_by_field_name("name") if definition is not None else None
    return parsing.text(name) if name is not None else None


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _declares(node: Node, handle: str) -> bool:
    """`global _plugin`, and a module-level `_plugin = None` (the slot a lazy build fills)."""
    parent = node.parent
    if parent is not None and parent.type == "global_statement":
        return True
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node:
        right = parent.child_by_field_name("right")
        return right is not None and right.type == "none" and _owner(node) is None
    return False


SHIM = ("under transfer_to_npu this test is true for NPU tensors (Tensor.is_cuda is aliased to is_npu and "
        "torch.cuda.is_available to torch.npu.is_available) and sends them into the missing extension: test "
        "x.device.type == 'cuda' instead")
NO_SHIM = "the test stays false for NPU tensors with or without transfer_to_npu (their device.type is 'npu')"


def gate_reason(path: str, handle: Handle) -> str:
    """Why the extension a gated handle holds never has to run on Ascend, and what its test does under the shim."""
    name, _, _, _, spans, line, test, fallback, shim = handle
    users = ", ".join(user for user, _, _ in spans[:3]) + ("" if len(spans) <= 3 else f" and {len(spans) - 3} more")
    return (f"every use of the extension ({name}{', in ' + users if users else ''}) sits in the CUDA arm of `{test}` ({path}:{line}), whose "
            f"other arm runs {fallback}() in PyTorch: NPU tensors take that path, so port it only for speed; "
            f"{SHIM if shim else NO_SHIM}")


def pytorch_fallback_arm(node: Node) -> str | None:
    """The function the other arm calls where `node` sits in the test of an `if` whose CUDA arm applies an autograd
    Function and whose else arm calls a plain function (InternImage's BEVFormer decoder:
    `if torch.cuda.is_available() and value.is_cuda: output = MultiScaleDeformableAttnFunction.apply(...)` /
    `else: output = multi_scale_deformable_attn_pytorch(...)`): NPU tensors take the PyTorch arm. None otherwise
    (a negated test, an elif chain, an arm that does something else)."""
    statement, child = node.parent, node
    while statement is not None and statement.type not in {"if_statement", "block", "module", "function_definition"}:
        statement, child = statement.parent, statement
    condition = statement.child_by_field_name("condition") if statement is not None else None
    if statement.type != "if_statement" or condition is None or child.id != condition.id:
        return None
    if "not " in parsing.text(child) or "!=" in parsing.text(child):
        return None
    alternatives = statement.children_by_field_name("alternative")
    if len(alternatives) != 1 or alternatives[0].type != "else_clause":
        return None
    consequence, other = statement.child_by_field_name("consequence"), alternatives[0].child_by_field_name("body")
    if consequence is None or other is None or not any(_applies_function(n) for n in _walk(consequence, 2000)):
        return None
    statements = [c for c in other.named_children if c.type != "comment"]
    first = statements[0] if statements else None
    value = first.named_children[0] if first is not None and first.type in {"return_statement", "expression_statement"} \
        and first.named_children else None
    if value is not None and value.type == "assignment":
        value = value.child_by_field_name("right")
    function = value.child_by_field_name("function") if value is not None and value.type == "call" else None
    if function is None or function.type not in {"identifier", "attribute"} or _applies_function(value):
        return None
    return parsing.text(function)


def _applies_function(node: Node) -> bool:
    """`SomeFunction.apply(...)`: an autograd Function applied (a class, by its name: `model.apply(init)` and
    `frame.apply(f)` are no Function)."""
    function = node.child_by_field_name("function") if node.type == "call" else None
    if function is None or function.type != "attribute":
        return False
    attribute, owner = function.child_by_field_name("attribute"), function.child_by_field_name("object")
    return attribute is not None and parsing.text(attribute) == "apply" and owner is not None \
        and owner.type == "identifier" and parsing.text(owner)[:1].isupper()
