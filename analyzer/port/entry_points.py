"""Which of the report's entry points get port's Step 0 (`import torch_npu` where torch is imported).

An entry is a file something launches: a launch script, the README, a console script, or a `__main__` block. A
library module with a smoke test under `if __name__ == "__main__":` (a dataset file that iterates a CPU DataLoader)
is no such place: the project's own files import it, they load torch_npu through their own entry or the device
module, and its `__main__` block touches no device. Step 0 there adds an import nobody needs. Nor is a file the analyzer
found cannot be imported (every finding of it optional for that reason): its device sites are left, so Step 0 there
changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.context.dispatch_chains import words
from ascend_feasibility.analyzer.context.vendored import UNIMPORTABLE
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.port.worlds import Worlds
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained
from tree_sitter import Node

# words that name device work in a `__main__` block or a function it calls
DEVICE_WORDS = frozenset({"cuda", "npu", "device", "devices", "gpu", "gpus", "distributed", "nccl", "hccl", "accelerator",
                          "autocast", "amp"})
MAX_REACHED = 50


def smoke_test_only(root: Path, path: str, lines: set[int], worlds: Worlds) -> bool:
    """The file's `__main__` block, and the file's own functions and classes it calls (transitively), hold no
    finding's line (`lines`) and name no device, and another file of the project imports the file."""
    try:
        data = read_contained(root, path, MAX_FILE_BYTES)
    except Unreadable:
        return False
    tree = parsing.parse("python", data)
    block = _main_block(tree)
    if block is None:
        return False  # a script that works at import time, or one run by name: its own loading is the entry
    defined = {parsing.text(node.child_by_field_name("name")): node for node in _definitions(tree)}
    regions, seen, queue = [], set(), [block]
    while queue and len(regions) < MAX_REACHED:
        region = queue.pop()
        regions.append(region)
        for node in parsing.walk(region, limit=20000):
            if node.type == "call":
                function = node.child_by_field_name("function")
                name = parsing.text(function) if function is not None and function.type == "identifier" else None
                if name in defined and name not in seen:
                    seen.add(name)
                    queue.append(defined[name])
    for region in regions:
        first, last = region.start_point.row + 1, region.end_point.row + 1
        if any(first <= line <= last for line in lines) or words(region) & DEVICE_WORDS:
            return False
    return worlds.imported_by_project(path)


def unimportable(findings: list[Finding]) -> bool:
    """Every finding of the file is optional because the file cannot be imported (its imports fail: vendored.py,
    missing_modules.py): the port leaves its device sites, so Step 0 there would load torch_npu for nothing (round 26
    port hunk 4: a vendored demo whose device picks were all left)."""
    return bool(findings) and all(
        f.reach == "optional" and (f.reach_reason or "").startswith(UNIMPORTABLE) for f in findings)


def _main_block(tree) -> Node | None:
    for statement in tree.named_children:
        if statement.type != "if_statement":
            continue
        condition = statement.child_by_field_name("condition")
        text = parsing.text(condition) if condition is not None else ""
        if "__name__" in text and "__main__" in text:
            return statement
    return None


def _definitions(tree) -> list[Node]:
    found = []
    for statement in tree.named_children:
        node = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if node is not None and node.type in {"function_definition", "class_definition"}:
            found.append(node)
    return found
