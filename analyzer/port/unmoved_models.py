"""A CUDA check choosing where the inputs of an exported model go, for a model the code never moves.

FunASR's libtorch demo (port round 25 hunk 12): `device_id = 0 if torch.cuda.is_available() else -1` is handed to
`ContextualParaformer(..., device_id=device_id)`, whose class loads a TorchScript file with `torch.jit.load(path)` (no
map_location) and, for a device id, moves only the inputs (`feats.cuda()`), never the module. The exported file is a
CPU-traced, int8-quantised model: rewriting the check to the NPU's sends NPU inputs to a CPU module with no NPU kernels,
where the demo ran on the CPU before. So the check stays, with the reason to re-export the model for the NPU first.

The check is held when
- its statement assigns a name (`device_id = ... check ...`) that a call of the file passes as an argument;
- the callee is a class or function of this file or of the project module it is imported from (one re-export hop:
  `from pkg import C` where pkg/__init__.py imports C from a module of its own);
- that definition loads an exported model (knowledge/context/conventions.toml backends.exported_model_loaders) without
  `map_location`, into a target (`self.model`) that the file never moves (`.to(`, `.cuda(`, `.npu(` on it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.reading.parsing import text, top_level_from_imports
from ascend_feasibility.knowledge import load_context_conventions

MOVES = frozenset({"to", "cuda", "npu"})
MAX_HOPS = 2  # the module the name is imported from, and one re-export there


def unmoved_model_reason(statement, tree, path: str, load) -> str | None:
    """Why the CUDA check in `statement` stays, or None. `load(path)` gives a project file's (data, tree) or a reason."""
    name = _assigned_name(statement)
    if name is None:
        return None
    for call in _walk(tree, "call"):
        if not _passes(call, name):
            continue
        callee = _callee(call)
        found = _definition(tree, path, callee, load, MAX_HOPS) if callee else None
        if found is None:
            continue
        where, definition, module = found
        loader = _unmoved_load(definition, module)
        if loader is not None:
            return (f"the value it picks goes to {callee} ({where}), whose exported model ({loader}, no map_location) "
                    "is never moved: on the NPU only its inputs would move. Re-export the model for the NPU first, "
                    "then port this check")
    return None


def _walk(node, kind: str) -> Iterator:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            yield current
        stack.extend(reversed(current.children))


def _assigned_name(statement) -> str | None:
    node = statement
    if node is not None and node.type == "expression_statement" and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None or node.type != "assignment":
        return None
    left = node.child_by_field_name("left")
    return text(left) if left is not None and left.type == "identifier" else None


def _passes(call, name: str) -> bool:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return False
    for argument in arguments.named_children:
        value = argument.child_by_field_name("value") if argument.type == "keyword_argument" else argument
        if value is not None and value.type == "identifier" and text(value) == name:
            return True
    return False


def _callee(call) -> str | None:
    function = call.child_by_field_name("function")
    if function is not None and function.type == "identifier":
        return text(function)
    return None


def _definition(tree, path: str, name: str, load, hops: int):
    """(path, the class or function node, the module node) defining `name` for the file `path`, or None."""
    for child in tree.named_children:
        node = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if node is not None and node.type in {"class_definition", "function_definition"}:
            named = node.child_by_field_name("name")
            if named is not None and text(named) == name:
                return path, node, tree
    if hops == 0:
        return None
    module, original = top_level_from_imports(tree).get(name, (None, None))
    if original != name:  # imported under another name: not followed
        module = None
    target = _resolve(path, module, load) if module is not None else None
    if target is None:
        return None
    loaded = load(target)
    if isinstance(loaded, str):
        return None
    return _definition(loaded[1], target, name, load, hops - 1)


def _resolve(importer: str, module: str, load) -> str | None:
    """The project file `module` names from `importer`: relative from its folder, absolute from its folder or any folder
    above it (a demo beside its package, run from there), nearest first."""
    level = len(module) - len(module.lstrip("."))
    parts = [p for p in module[level:].split(".") if p]
    folder = PurePosixPath(importer).parent
    if level:
        for _ in range(level - 1):
            folder = folder.parent
        bases = [folder]
    else:
        bases = [folder, *folder.parents]
    for base in bases:
        stem = PurePosixPath(base, *parts)
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            candidate = candidate.removeprefix("./")
            if not isinstance(load(candidate), str):
                return candidate
    return None


def _unmoved_load(definition, module) -> str | None:
    """The loader call (`torch.jit.load`) in `definition` whose model, without map_location, the module never moves."""
    loaders = load_context_conventions().backends.exported_model_loaders
    for call in _walk(definition, "call"):
        function = call.child_by_field_name("function")
        called = text(function) if function is not None else ""
        if not any(called == loader or called.endswith("." + loader) for loader in loaders):
            continue
        arguments = call.child_by_field_name("arguments")
        keywords = {text(a.child_by_field_name("name")) for a in (arguments.named_children if arguments else ())
                    if a.type == "keyword_argument" and a.child_by_field_name("name") is not None}
        if "map_location" in keywords:
            continue
        parent = call.parent
        if parent is None or parent.type != "assignment" or parent.child_by_field_name("right") != call:
            continue
        target = text(parent.child_by_field_name("left"))
        if not _moved(module, target):
            return called
    return None


def _moved(module, target: str) -> bool:
    """Does the module call `.to(`, `.cuda(` or `.npu(` on `target` (`self.model.to(device)`)?"""
    for call in _walk(module, "call"):
        function = call.child_by_field_name("function")
        if function is not None and function.type == "attribute":
            attribute, owner = function.child_by_field_name("attribute"), function.child_by_field_name("object")
            if attribute is not None and owner is not None and text(attribute) in MOVES and text(owner) == target:
                return True
    return False
