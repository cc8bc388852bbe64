"""ONNX Runtime's execution providers for NVIDIA GPUs named in code (`providers = ["CUDAExecutionProvider"]`,
`"CUDAExecutionProvider" if torch.cuda.is_available() else "CPUExecutionProvider"`): code that names one chooses the
ONNX runtime's device, not torch's. A CUDA test whose arm picks one is right on Ascend as written (the other arm
runs the model on the CPU provider); made true on the NPU (widened, rewritten to torch.npu.is_available(), or under
transfer_to_npu) it hands the NPU host to the CUDA provider. Ascend's own provider is CANNExecutionProvider, from
the onnxruntime-cann package (knowledge/device/accelerators.toml cuda_runtime_providers).

A name shown in a message (`print("using CUDAExecutionProvider")`) chooses nothing.
"""

from __future__ import annotations

import functools

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_accelerator_names, load_context_conventions
from tree_sitter import Node

MAX_NODES = 2_000  # the walk over one arm
_READ_WHOLE = frozenset({"function_definition", "class_definition", "lambda", "string"})


@functools.cache
def _providers() -> frozenset[str]:
    return frozenset(p.lower() for p in load_accelerator_names().cuda_runtime_providers)


@functools.cache
def _messages() -> tuple[frozenset[str], tuple[str, ...]]:
    guards = load_context_conventions().guards
    return frozenset(guards.message_calls), tuple(guards.message_call_prefixes)


def cuda_provider_named(arm: Node | None) -> str | None:
    """The first NVIDIA execution provider `arm` names as a string outside a message (nested definitions are not
    entered), as written, or None."""
    if arm is None:
        return None
    for node in parsing.walk(arm, limit=MAX_NODES, prune=_READ_WHOLE, source_order=True):
        if node.type != "string":
            continue
        word = _inner(node).strip()
        if word.lower() in _providers() and not _in_message(node):
            return word
    return None


def _inner(string: Node) -> str:
    if string.child_count < 2:
        return ""
    start, end = string.children[0], string.children[-1]
    return string.text[start.end_byte - string.start_byte:end.start_byte - string.start_byte].decode("utf-8", "replace")


def _in_message(string: Node) -> bool:
    """Is the string an argument of a print, log or warning call (the conventions' message calls)?"""
    holder = string.parent
    if holder is not None and holder.type == "keyword_argument":
        holder = holder.parent
    call = holder.parent if holder is not None and holder.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if function is None:
        return False
    calls, prefixes = _messages()
    name = parsing.text(function).rsplit(".", 1)[-1]
    return name in calls or name.startswith(prefixes)
