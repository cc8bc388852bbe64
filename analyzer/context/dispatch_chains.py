"""Per-backend dispatch chains: code that picks a device, a platform or a cache call backend by backend.

A chain is either one `if/elif` statement or a run of separate `if` statements side by side in one block
(`if device.type == "cuda": torch.cuda.empty_cache()` / `if device.type == "xpu": ...`, or availability flags
`if HAS_CUDA: ...` / `if HAS_XPU: ...`). It dispatches by backend when two or more of its arms name a backend, CUDA and
at least one other accelerator among them. Without an arm naming the NPU (and outside a branch that does), the port's
gap is that missing arm: DEV220 reports it once, at the chain's first arm, and the sites in the chain's CUDA arm are
CUDA's own code (only CUDA takes that arm), not separate findings.

The backend words are knowledge (conventions.toml [backends] dispatch, npu; [guards] cuda); callers pass them in.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascend_feasibility.analyzer.context.seed_calls import chain_seeded_by_torch
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge.models import BackendConventions, GuardConventions
from tree_sitter import Node

MAX_RUN = 12  # sibling ifs read as one chain
MAX_WORD_NODES = 400


@dataclass(frozen=True)
class BackendWords:
    cuda: frozenset[str]
    others: frozenset[str]
    npu: frozenset[str]


@dataclass(frozen=True)
class Chain:
    head: Node  # the first arm's condition: where the chain is reported
    arms: tuple[tuple[Node, Node], ...]  # (condition, body) per arm
    named: frozenset[str]  # the backends the conditions name
    else_body: Node | None  # the if/elif statement's else branch (None for a run of separate ifs)


def words(node: Node) -> set[str]:
    """The lower-case words of the identifiers and string contents under `node` (identifiers split at `_`); the
    domains read conditions with it too (domains/python_words.py)."""
    found: set[str] = set()
    for current in parsing.walk(node):
        if current.type in {"identifier", "string_content"}:
            found.update(parsing.text(current).lower().replace(":", "_").split("_"))
    return found


def may_name(node: Node, wanted: frozenset[str]) -> bool:
    """Whether words(node) can hold one of `wanted`: each word is a lower-cased piece of the node's text, so a node
    whose text spells none of them (most conditions) needs no walk."""
    text = parsing.text(node).lower()
    return any(word in text for word in wanted)


def chain_arms(statement: Node) -> list[tuple[Node, Node]]:
    """(condition, body) of the `if` and each `elif` of an if-statement."""
    arms = []
    for clause in [statement] + [c for c in statement.children_by_field_name("alternative") if c.type == "elif_clause"]:
        condition, body = clause.child_by_field_name("condition"), clause.child_by_field_name("consequence")
        if condition is not None and body is not None:
            arms.append((condition, body))
    return arms


def _backend_if(node: Node | None, backend_words: frozenset[str]) -> bool:
    """An `if` without elif or else whose condition names a backend."""
    if node is None or node.type != "if_statement" or node.children_by_field_name("alternative"):
        return False
    condition = node.child_by_field_name("condition")
    return condition is not None and may_name(condition, backend_words) and bool(words(condition) & backend_words)


def sibling_run(statement: Node, backend_words: frozenset[str]) -> list[Node]:
    """The run of separate `if` statements (no elif, no else) side by side with this one whose conditions each name a
    backend, in order; comments between them do not break the run."""
    if not _backend_if(statement, backend_words):
        return [statement]
    first, seen = statement, 0
    while seen < MAX_RUN:
        previous = first.prev_named_sibling
        while previous is not None and previous.type == "comment":
            previous = previous.prev_named_sibling
        if not _backend_if(previous, backend_words):
            break
        first, seen = previous, seen + 1
    run, current = [first], first
    while len(run) < MAX_RUN:
        following = parsing.next_code_sibling(current)
        if not _backend_if(following, backend_words):
            break
        run.append(following)
        current = following
    return run


def dispatch_chain(statement: Node, backends: BackendWords) -> Chain | None:
    """The per-backend dispatch chain this if-statement is part of, if it has no NPU arm (None otherwise)."""
    if statement.type != "if_statement":
        return None
    if statement.children_by_field_name("alternative"):
        arms = chain_arms(statement)
        others = [c for c in statement.children_by_field_name("alternative") if c.type == "else_clause"]
        else_body = others[0].child_by_field_name("body") if others else None
    else:
        arms = [arm for member in sibling_run(statement, backends.cuda | backends.others | backends.npu)
                for arm in chain_arms(member)]
        if any(_other_backend_precondition(condition, body, backends) for condition, body in arms):
            # `if not _torch_is_rocm(torch): return {}` then `if not torch.cuda.is_available(): return {}`: what
            # follows runs on ROCm only, so the tests are that backend's preconditions, not a dispatch
            return None
        else_body = None
    backend_words = backends.cuda | backends.others
    if sum(1 for condition, _ in arms if may_name(condition, backend_words)) < 2:
        return None  # fewer than two arms name a backend (checked below), seen without walking each condition
    per_arm = [words(condition) for condition, _ in arms]
    named = set().union(*per_arm) if per_arm else set()
    if sum(1 for arm in per_arm if arm & backend_words) < 2 or not named & backends.cuda or not named & backends.others:
        return None
    if named & backends.npu or inside_npu_branch(statement, backends.npu):
        return None
    if not statement.children_by_field_name("alternative") and not _parallel([body for _, body in arms], backends):
        return None  # separate ifs that do different things (a version probe per backend, a warning): no dispatch
    if any(selects_cuda_extension(body) for _, body in arms):
        return None  # a build branch: the custom_ops domain reports it (OPS062)
    if _generic_default(arms, else_body):
        return None  # `else: device = torch.device(try_device)`: any other device, "npu" included, is served
    if else_body is None and chain_seeded_by_torch(statement, [body for _, body in arms]) is not None:
        return None  # `torch.manual_seed(s)` beside a cuda/mps seeding chain already seeds the NPU
    return Chain(arms[0][0], tuple(arms), frozenset(named & backend_words), else_body)


def _parallel(bodies: list[Node], backends: BackendWords) -> bool:
    """Do two of the bodies do the same thing for their backends: assign the same name (`device = ...`), return, or
    call the same function of their backends' torch modules (`torch.cuda.empty_cache()` / `torch.xpu.empty_cache()`;
    not `torch.version.cuda.split(...)`, a version string's method)?"""
    every = backends.cuda | backends.others | backends.npu
    seen: set[str] = set()
    for body in bodies:
        done: set[str] = set()
        for current in parsing.walk(body, limit=MAX_WORD_NODES * 4):
            if current.type == "assignment":
                left = current.child_by_field_name("left")
                if left is not None and left.type in {"identifier", "attribute"}:
                    done.add("=" + parsing.text(left))
            elif current.type == "return_statement":
                done.add("return")
            elif current.type == "call":
                function = current.child_by_field_name("function")
                owner = function.child_by_field_name("object") if function is not None and function.type == "attribute" else None
                parts = parsing.text(owner).split(".") if owner is not None else []
                if len(parts) >= 2 and parts[0] == "torch" and parts[1] in every:  # torch.cuda.*, torch.xpu.*
                    done.add(parsing.text(function.child_by_field_name("attribute")) + "()")
        if done & seen:
            return True
        seen |= done
    return False


def _generic_default(arms, else_body: Node | None) -> bool:
    """The chain's else branch builds a device from the very name the arms compare (lerobot's
    get_safe_torch_device: `else: device = torch.device(try_device)`), so a device it does not list still works."""
    body = else_body
    if body is None:
        return False
    subjects = {parsing.text(n) for condition, _ in arms for n in _compared_names(condition)}
    for call in parsing.captures(parsing.query("python", "(call) @call"), body).get("call", []):
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if (function is not None and parsing.text(function).endswith("device") and arguments is not None
                and arguments.named_children and parsing.text(arguments.named_children[0]) in subjects):
            return True
    return False


def _compared_names(condition: Node) -> list[Node]:
    """The names a condition tests (`try_device` of `try_device.startswith("cuda")` or `try_device == "mps"`)."""
    found, stack = [], [condition]
    while stack and len(found) < 20:
        current = stack.pop()
        if current.type == "identifier":
            found.append(current)
        elif current.type == "attribute":
            found.append(current)
            stack.append(current.child_by_field_name("object"))
        else:
            stack.extend(current.named_children)
    return found


def selects_cuda_extension(body: Node) -> bool:
    """The branch names CUDAExtension without calling it (`extension = CUDAExtension`): a build chosen by backend
    whose calls OPS020 does not see."""
    named = called = False
    for current in parsing.walk(body):
        if current.type == "identifier" and parsing.text(current) == "CUDAExtension":
            parent = current.parent
            if parent is not None and parent.type == "attribute":
                parent = parent.parent if parent.child_by_field_name("attribute") == current else None
            if parent is not None and parent.type == "call":
                called = True
            elif parent is not None and parent.type not in {"dotted_name", "aliased_import"}:
                named = True
    return named and not called


def cuda_arm(chain: Chain, body: Node, backends: BackendWords) -> bool:
    """Is `body` the chain's arm for CUDA: its condition names CUDA and no other backend, and is not negated?"""
    for condition, arm_body in chain.arms:
        if arm_body.start_byte == body.start_byte and arm_body.end_byte == body.end_byte:
            named = words(condition)
            return bool(named & backends.cuda) and not named & backends.others and not _negated(condition)
    return False


def _other_backend_precondition(condition: Node, body: Node, backends: BackendWords) -> bool:
    """`if not is_rocm(): return` (or `if torch.version.hip is None: raise`): a test ruling out all but another
    accelerator, whose body leaves the block, so the code after it is that accelerator's alone. A test that also names
    CUDA or the NPU (`if not t.startswith(("cuda", "xpu")): return None`) admits more than one backend."""
    statements = [c for c in body.named_children if c.type != "comment"]
    if not statements or statements[-1].type not in LEAVES or not may_name(condition, backends.others):
        return False
    named = words(condition)
    if not named & backends.others or named & (backends.cuda | backends.npu):
        return False
    while condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    if condition.type == "not_operator":
        return True
    operators = {op.type for op in condition.children} if condition.type == "comparison_operator" else set()
    none = condition.type == "comparison_operator" and condition.named_children[-1].type == "none"
    return bool(operators & {"!=", "not in"}) or (none and "is" in operators and "is not" not in operators)


LEAVES = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})


def _negated(condition: Node) -> bool:
    while condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    if condition.type == "not_operator":
        return True
    return condition.type == "comparison_operator" and any(op.type in {"!=", "not in", "is not"} for op in condition.children)


def lacks_npu_arm(statement: Node, npu: frozenset[str]) -> bool:
    """No condition of the if/elif statement, nor one it is nested in, names the NPU or Ascend."""
    return not any(words(condition) & npu for condition, _ in chain_arms(statement)) and not inside_npu_branch(statement, npu)


def inside_npu_branch(node: Node, npu: frozenset[str]) -> bool:
    """Inside a branch of a condition that names the NPU (`if x.device.type != "npu": <chain> else: <NPU path>`)."""
    current = node.parent
    while current is not None:
        if current.type in {"if_statement", "elif_clause"}:
            condition = current.child_by_field_name("condition")
            if condition is not None and words(condition) & npu:
                return True
        current = current.parent
    return False


def backend_words(guards: GuardConventions, backends: BackendConventions) -> BackendWords:
    """The words a chain's conditions are read with: CUDA's (the parts of [guards] cuda but is/use), the other
    accelerators a chain tests ([backends] dispatch) and the NPU's ([backends] npu, split at `_` like the words)."""
    cuda = {t for name in guards.cuda for t in name.lower().split("_") if t not in {"is", "use"}}
    npu = {t for name in backends.npu for t in name.lower().split("_") if t != "torch"}
    return BackendWords(frozenset(cuda), frozenset(backends.dispatch), frozenset(npu))


def npu_text(node: Node, backends: BackendWords, torch_names_only: bool = False) -> str | None:
    """The code of `node` with its CUDA words renamed to the NPU's (`device.type == "cuda"` → `device.type == "npu"`,
    `torch.cuda.empty_cache()` → `torch.npu.empty_cache()`, `HAS_CUDA` → `HAS_NPU`), lines as in the source. With
    `torch_names_only`, None where a renamed name would be one the project does not have (`HAS_NPU`, `args.use_npu`):
    only device strings and torch's own `cuda` module are renamed then."""
    source = node.text or b""
    edits: list[tuple[int, int, str]] = []
    for current in parsing.walk(node, limit=MAX_WORD_NODES * 4):
        if current.type in {"identifier", "string_content"}:
            renamed = _renamed(parsing.text(current), backends.cuda)
            if renamed is not None and torch_names_only and current.type == "identifier" and not _torch_module(current):
                return None
            if renamed is not None:
                edits.append((current.start_byte - node.start_byte, current.end_byte - node.start_byte, renamed))
    for start, end, renamed in sorted(edits, reverse=True):
        source = source[:start] + renamed.encode("utf-8") + source[end:]
    return source.decode("utf-8", "replace")


def npu_arm(chain: Chain, backends: BackendWords) -> str | None:
    """The arm to add, its condition written from the chain's CUDA arm with the NPU's words (`if device.type ==
    "npu":`). Its body is left to the porter: a CUDA arm's calls renamed are not always right on the NPU (a grid
    sized from multi_processor_count, which torch_npu leaves None before the 26.0.0 line)."""
    for condition, body in chain.arms:
        if cuda_arm(chain, body, backends):
            renamed = npu_text(condition, backends, torch_names_only=True)
            return f"if {' '.join(renamed.split())}:\n    ..." if renamed is not None else None
    return None


def _torch_module(identifier: Node) -> bool:
    """`cuda` of `torch.cuda` (torch_npu has `torch.npu` beside it)."""
    parent = identifier.parent
    if parent is None or parent.type != "attribute" or parsing.text(identifier) != "cuda":
        return False
    owner = parent.child_by_field_name("object")
    return owner is not None and owner.id != identifier.id and parsing.text(owner) == "torch"


def _renamed(word: str, cuda: frozenset[str]) -> str | None:
    parts = word.replace(":", "_:_").split("_")
    changed = [("npu" if p.islower() else "NPU" if p.isupper() else "Npu") if p.lower() in cuda else p for p in parts]
    return "_".join(changed).replace("_:_", ":") if changed != parts else None
