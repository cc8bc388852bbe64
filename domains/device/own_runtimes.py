"""Device names that choose another runtime's device, not torch's (knowledge/device/accelerators.toml own_runtime):
`WhisperModel("large-v3", device="cuda")` is faster-whisper's CTranslate2 model. transfer_to_npu rewrites device
names only inside the torch APIs it wraps, and CTranslate2 takes cpu, cuda or auto: on an Ascend host the CUDA device
fails, with or without the shim, and "npu" is no answer (DEV010)."""

from __future__ import annotations

import functools

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.knowledge import load_accelerator_names
from ascend_feasibility.knowledge.models import OwnRuntime
from tree_sitter import Node


@functools.cache
def _by_callee() -> dict[str, OwnRuntime]:
    return {callee: runtime for runtime in load_accelerator_names().own_runtime for callee in runtime.callees}


def own_runtime_of(literal: Node, imports: ImportTable) -> OwnRuntime | None:
    """The runtime whose device the literal is: the `device=` value, or the positional argument at the runtime's
    device position, of a call to one of its callees (resolved through the file's imports)."""
    holder = literal.parent
    position = None
    if holder is not None and holder.type == "keyword_argument":
        name = holder.child_by_field_name("name")
        if name is None or name.text != b"device" or holder.child_by_field_name("value") != literal:
            return None
        holder = holder.parent
    elif holder is not None and holder.type == "argument_list":
        positional = [c for c in holder.named_children if c.type not in {"keyword_argument", "comment"}]
        position = positional.index(literal) if literal in positional else None
    if holder is None or holder.type != "argument_list" or holder.parent is None or holder.parent.type != "call":
        return None
    function = holder.parent.child_by_field_name("function")
    if function is None or function.type not in {"identifier", "attribute"}:
        return None
    runtime = _by_callee().get(qualified_name(function, imports) or "")
    if runtime is None or (position is not None and position != runtime.device_position):
        return None
    return runtime


MAX_NODES = 20_000  # the walk over one arm, or one function it calls
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})
TORCH_METHODS = frozenset({"cuda", "to"})  # a tensor or module moved: torch device work


def pins_only_own_runtime(write: Node, imports: ImportTable) -> bool:
    """Is the statement that sets the CUDA device mask (`os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)`) in an arm
    whose only device work is another runtime's model (built there, or by a function of the file the arm calls),
    and which touches no torch (no torch name, no `.cuda()`/`.to()`)? On Ascend that runtime runs on the CPU: the
    mask pins nothing the NPU needs."""
    statement = write
    while statement.parent is not None and statement.parent.type not in {"block", "module"}:
        statement = statement.parent
    arm = statement.parent
    if arm is None:
        return False
    own = _module_functions(arm)
    found, torch = _device_work(arm, imports)
    if torch:
        return False
    for name in _called_names(arm):
        if name in own:
            inner_found, inner_torch = _device_work(own[name], imports)
            if inner_torch:
                return False
            found = found or inner_found
    return found


def _device_work(scope: Node, imports: ImportTable) -> tuple[bool, bool]:
    """(builds a model of an own runtime, touches torch) over the scope's calls and names."""
    found = torch = False
    for node in parsing.walk(scope, limit=MAX_NODES, prune=_NESTED, enter_root=True):
        if node.type == "identifier" and parsing.text(node) == "torch":
            torch = True
        elif node.type == "call":
            function = node.child_by_field_name("function")
            if function is None or function.type not in {"identifier", "attribute"}:
                continue
            if function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) in TORCH_METHODS:
                torch = True
            callee = qualified_name(function, imports) or ""
            torch = torch or callee.startswith("torch.")
            found = found or callee in _by_callee()
    return found, torch


def _called_names(scope: Node) -> set[str]:
    return {parsing.text(n.child_by_field_name("function")) for n in parsing.walk(scope, limit=MAX_NODES, prune=_NESTED)
            if n.type == "call" and n.child_by_field_name("function") is not None
            and n.child_by_field_name("function").type == "identifier"}


def _module_functions(node: Node) -> dict[str, Node]:
    """The module-level functions of the file holding `node`, by name, each its body."""
    root = parsing.root_of(node)
    return {parsing.text(d.child_by_field_name("name")): d.child_by_field_name("body")
            for d in parsing.function_definitions(root)}
