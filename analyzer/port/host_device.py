"""A script whose device is the host: no Step 0 there, and its device pick stays.

YOLOP (port round 38 hunks 10 and 12, both needless): toolkits/deploy/gen_wts.py fixes `device = torch.device('cpu')`
and dumps the state dict as hex; export_onnx.py picks `'cuda' if torch.cuda.is_available() else 'cpu'` only as the
`map_location=` of a checkpoint it loads into a CPU model and exports with CPU inputs. On an NPU host the unchanged
check already picks 'cpu', which is what the export wants; the rewrite would only map the checkpoint to the NPU and back.

A file is such a script when it names at least one device, calls no `.cuda()`/`.npu()`, and every device it names
(`torch.device(...)`, `device=`, `map_location=`, `.to(device)`) is the host (analyzer/context/host_values.py), or is a name the
file reads only as `map_location=` while it exports (knowledge/phases/signals.toml names.export). The statements that
bind such a map-only name are the picks the port leaves.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.host_values import PUT, device_on_host, moves_to_device, positional_arguments
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_phase_signals
from tree_sitter import Node

DEVICE_KEYWORDS = frozenset({"device", "map_location"})
ACCELERATOR_MOVES = frozenset({"cuda", "npu"})
MAX_NODES = 200000

HOST_PICK_REASON = ("the device it picks only maps the checkpoint loaded here (map_location); the model and its inputs stay on "
          "the CPU for the export: on an NPU host the check already picks 'cpu'")


def host_device_picks(tree) -> list[Node] | None:
    """None when the file may put work on an accelerator; else the statements binding a device name that only maps
    a checkpoint (empty when every device the file names is the host)."""
    devices = []
    for node in parsing.walk(tree, limit=MAX_NODES):
        if node.type == "keyword_argument":
            name = node.child_by_field_name("name")
            if name is not None and parsing.text(name) in DEVICE_KEYWORDS and node.child_by_field_name("value"):
                devices.append(node.child_by_field_name("value"))
        elif node.type == "call":
            function = node.child_by_field_name("function")
            if function is None or function.type != "attribute":
                continue
            method = parsing.text(function.child_by_field_name("attribute"))
            if method in ACCELERATOR_MOVES:
                return None
            if method == "to" and moves_to_device(node):
                devices.extend(positional_arguments(node)[:1])
            elif parsing.text(function) == "torch.device":
                devices.extend(positional_arguments(node)[:1])
    if not devices:
        return None
    bindings = _bindings(tree)
    held: dict[int, Node] = {}
    for value in devices:
        if _on_host(value, bindings, set()):
            continue
        name = parsing.text(value) if value.type == "identifier" else None
        if name is None or name not in bindings or not _exports(tree) \
                or not _read_only_as_map_location(tree, name):
            return None
        held.update((statement.id, statement) for statement in bindings[name])
    return sorted(held.values(), key=lambda statement: statement.start_byte)


def _on_host(value: Node, bindings: dict[str, list[Node]], seen: set[str]) -> bool:
    if value.type == "conditional_expression":  # both arms: `'cuda' if check else 'cpu'` may be CUDA
        arms = [value.named_children[0], value.named_children[-1]] if len(value.named_children) == 3 else []
        return bool(arms) and all(_on_host(arm, bindings, seen) for arm in arms)
    if value.type == "parenthesized_expression":
        return bool(value.named_children) and _on_host(value.named_children[0], bindings, seen)
    if value.type == "call" and parsing.text(value.child_by_field_name("function")) == "torch.device":
        arguments = positional_arguments(value)
        return bool(arguments) and _on_host(arguments[0], bindings, seen)
    if value.type == "lambda":  # `map_location=lambda storage, loc: storage`: every storage stays where it loads, the CPU
        parameters = value.child_by_field_name("parameters")
        first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
        return first is not None and parsing.text(value.child_by_field_name("body")) == parsing.text(first)
    if value.type == "identifier":
        name = parsing.text(value)
        if name in seen or name not in bindings:
            return False
        return all(_on_host(statement.child_by_field_name("right"), bindings, seen | {name})
                   for statement in bindings[name])
    return value.type in {"string", "attribute"} and device_on_host(value) == PUT


def _bindings(root: Node) -> dict[str, list[Node]]:
    """Every `name = value` of the file, by name (a name bound any other way is not resolved: no entry)."""
    found: dict[str, list[Node]] = {}
    for node in parsing.walk(root, limit=MAX_NODES):
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None:
                found.setdefault(parsing.text(left), []).append(node)
    return found


def _read_only_as_map_location(root: Node, name: str) -> bool:
    """Every other occurrence of `name` is a `map_location=` value (a parameter, a `.to(name)`, a `device=name`:
    not)."""
    for node in parsing.walk(root, limit=MAX_NODES):
        if node.type != "identifier" or parsing.text(node) != name:
            continue
        parent = node.parent
        if parent.type == "assignment" and parent.child_by_field_name("left") == node:
            continue
        if parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
            continue  # `device=...` names a parameter, it reads nothing
        if parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            continue
        if parent.type == "keyword_argument" and parsing.text(parent.child_by_field_name("name")) == "map_location":
            continue
        return False
    return True


def _exports(root: Node) -> bool:
    prefixes = tuple(load_phase_signals().names.get("export", []))
    for node in parsing.walk(root, limit=MAX_NODES):
        if node.type == "call":
            function = node.child_by_field_name("function")
            if function is not None and parsing.text(function).startswith(prefixes):
                return True
    return False

