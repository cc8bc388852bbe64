"""Whether a script keeps every tensor on the host: a TF32 switch there changes nothing (PRC010's `host-only`).

LlamaGen's tokenizer/validation/val_ddp.py (round 23 A1 C6 row 2) opens with `torch.backends.cuda.matmul.allow_tf32 =
True`, a header copied from the training scripts, yet only loads ImageFolder batches, scales them and writes PNGs,
`.to("cpu", dtype=torch.uint8)`: no model, no tensor on a device, so no CUDA matmul the switch could change, and its
NPU twin would change nothing either.

A module counts as such a script when it is an entry script (`if __name__ == "__main__":`), and nothing in it:
- moves a value to a device: `.cuda()`, `.npu()`, a `.to(...)` naming more than "cpu" or a dtype, a `device=` /
  `map_location=` / `device_ids=` other than "cpu", `torch.device(...)` of anything but "cpu", a default device;
- loads or builds a model by the usual entry points (MODEL_CALLS: `from_pretrained`, `load_state_dict`, `torch.load`,
  `torch.hub.load`, a `build_*model*` / `create_*model*` call), whose weights a later call may place itself.
A module other modules import sets the switch for them too, so only an entry script is read so.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

HOST_ONLY = "host-only"
MAX_NODES = 100_000
PLACING_KEYWORDS = frozenset({"device", "map_location", "device_ids", "output_device"})
CONVERT_KEYWORDS = frozenset({"dtype", "copy", "non_blocking", "memory_format"})
MODEL_CALLS = frozenset({"from_pretrained", "load_state_dict", "load_checkpoint", "set_default_device"})
LOADS = frozenset({"torch.load", "torch.hub.load", "torch.jit.load"})
MODEL_WORDS = ("model", "net", "network")
MODEL_VERBS = ("build", "create", "get", "make", "init", "load")


def host_only_script(root: Node) -> bool:
    """Is the module `root` an entry script that places nothing on a device and loads no model?"""
    main = False
    try:
        nodes = list(parsing.walk(root, limit=MAX_NODES, strict=True))
    except parsing.WalkLimit:
        return False
    for node in nodes:
        if node.type == "if_statement" and "__main__" in parsing.text(node.child_by_field_name("condition")):
            main = True
        elif node.type == "keyword_argument" and parsing.text(node.child_by_field_name("name")) in PLACING_KEYWORDS \
                and not _cpu(node.child_by_field_name("value")):
            return False
        elif node.type == "call" and (_places(node) or _loads_model(node)):
            return False
    return main


def _cpu(value: Node | None) -> bool:
    return value is not None and value.type == "string" and parsing.text(value).strip("'\"").split(":")[0] == "cpu"


def _places(call: Node) -> bool:
    function = call.child_by_field_name("function")
    if function is None:
        return False
    arguments = call.child_by_field_name("arguments")
    values = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
    if parsing.text(function) == "torch.device":
        return not (values and _cpu(values[0]))
    if function.type != "attribute":
        return False
    method = parsing.text(function.child_by_field_name("attribute"))
    if method in {"cuda", "npu", "type_as"}:
        return True
    if method != "to":
        return False
    for value in values:
        if value.type == "keyword_argument":
            name = parsing.text(value.child_by_field_name("name"))
            if name not in CONVERT_KEYWORDS and not (name == "device" and _cpu(value.child_by_field_name("value"))):
                return True
        elif not (_cpu(value) or (value.type == "attribute" and parsing.text(value.child_by_field_name("object")) == "torch")):
            return True  # a device variable or another tensor: a move
    return False


def _loads_model(call: Node) -> bool:
    function = call.child_by_field_name("function")
    if function is None:
        return False
    last = parsing.text(function).rsplit(".", 1)[-1]
    if last in MODEL_CALLS or parsing.text(function) in LOADS:
        return True
    lowered = last.lower()
    return lowered.startswith(MODEL_VERBS) and any(word in lowered for word in MODEL_WORDS)
