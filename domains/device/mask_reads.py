"""What a Python line does with the CUDA device mask it names: sets it, or only reads it.

DEV201's advice, "set ASCEND_RT_VISIBLE_DEVICES with the same value", is for a line that sets the mask. A line that
reads it (`os.environ.get("CUDA_VISIBLE_DEVICES", "0")`, `"CUDA_VISIBLE_DEVICES" in os.environ`,
`os.getenv(...)`, `os.environ["CUDA_VISIBLE_DEVICES"]` on the right) gets nothing from torch_npu's variable: on
Ascend it sees the unset value, so its fallback runs (unsloth 015bdef unsloth/models/rl_replacements.py:3386 names a
per-rank LoRA directory after it). The advice there is to also read ASCEND_RT_VISIBLE_DEVICES, or to use the local
rank; low where the read has a fallback, medium for a subscript that raises KeyError when the variable is unset.

A read (or a helper's argument) in a function that runs nvidia-smi serves that tool's output (unsloth's
`_cuda_compute_caps` keeps the nvidia-smi rows the mask lets through): the nvidia-smi finding (DEV211) already tells
the porter to rewrite that probe and its parsing for npu-smi, so the mask there is not a second item. Not in a
function that names the NPU or Ascend (DeepSpeed's tests/unit/common.py set_accelerator_visible runs npu-smi beside
nvidia-smi): DEV211 is silent there, and the mask read serves every backend's arm."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device.resources import npu_aware_function
from tree_sitter import Node

READ = "mask-read"  # DEV201's facet: the line reads the mask, with a fallback when it is unset
READ_USED = "mask-read-used"  # a read whose value is used as it is: a subscript raises KeyError when the mask is unset
MASKS = frozenset({"CUDA_VISIBLE_DEVICES"})
READ_METHODS = frozenset({"get", "getenv"})
WRITE_METHODS = frozenset({"setdefault", "putenv", "setenv", "pop", "delenv", "unsetenv", "update"})
LAUNCH_METHODS = frozenset({"run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput",
                            "system", "popen", "create_subprocess_exec", "create_subprocess_shell"})
SMI = "nvidia-smi"
MAX_NODES = 20000


def access(literal: Node) -> str | None:
    """READ or READ_USED when the string literal is the name of a variable the line only reads; "write" when the
    line sets or removes it; None for anything else (an argument of a helper, a collection of names)."""
    parent = literal.parent
    if parent is None:
        return None
    if parent.type == "subscript" and parent.child_by_field_name("value") is not None \
            and parent.child_by_field_name("value").id != literal.id:
        holder = parent.parent
        if holder is not None and holder.type in {"assignment", "augmented_assignment"} \
                and holder.child_by_field_name("left") is not None and holder.child_by_field_name("left").id == parent.id:
            return "write"
        if holder is not None and holder.type == "delete_statement":
            return "write"
        return READ_USED
    if parent.type == "comparison_operator" and parent.named_children[:1] == [literal]:
        operators = [parsing.text(o) for o in parent.children_by_field_name("operators")]
        return READ if operators in (["in"], ["not in"]) else None
    if parent.type == "argument_list" and parent.named_children[:1] == [literal] and parent.parent is not None:
        function = parent.parent.child_by_field_name("function")
        if function is None:
            return None
        method = parsing.text(function.child_by_field_name("attribute")) if function.type == "attribute" \
            else parsing.text(function)
        if method in READ_METHODS:
            return READ
        if method in WRITE_METHODS:
            return "write"
    return None


def serves_nvidia_smi(literal: Node) -> bool:
    """The function around the literal runs nvidia-smi: a launcher call (subprocess, os.system) whose command is a
    string starting with `nvidia-smi`, or a list or tuple whose first item is one."""
    function = literal.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None or SMI.encode() not in (function.text or b"") or npu_aware_function(literal):
        return False  # a probe with its own NPU arm (npu-smi beside nvidia-smi) reads the mask for every backend
    for current in parsing.walk(function, limit=MAX_NODES):
        if current.type != "call":
            continue
        callee = current.child_by_field_name("function")
        name = parsing.text(callee.child_by_field_name("attribute")) if callee is not None and callee.type == "attribute" \
            else parsing.text(callee) if callee is not None else ""
        arguments = current.child_by_field_name("arguments")
        if name not in LAUNCH_METHODS or arguments is None or not arguments.named_children:
            continue
        command = arguments.named_children[0]
        if command.type in {"list", "tuple"} and command.named_children:
            command = command.named_children[0]
        if command.type == "string" and _content(command).split(" ", 1)[0].rsplit("/", 1)[-1] == SMI:
            return True
    return False


def _content(string: Node) -> str:
    return "".join(parsing.text(c) for c in string.named_children if c.type == "string_content")
