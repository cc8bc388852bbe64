"""Device names that choose another runtime's device, not torch's (knowledge/device/accelerators.toml own_runtime):
`WhisperModel("large-v3", device="cuda")` is faster-whisper's CTranslate2 model. transfer_to_npu rewrites device
names only inside the torch APIs it wraps, and CTranslate2 takes cpu, cuda or auto: on an Ascend host the CUDA device
fails, with or without the shim, and "npu" is no answer (DEV010)."""

from __future__ import annotations

import functools

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
