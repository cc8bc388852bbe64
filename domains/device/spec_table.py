"""The CUDA device name looked up in a table of GPU models that has no Ascend row.

`GPU_SPECS = {"a100": {"flops": 312e12, ...}, "h100": {...}}` and, in the same file, `get_device_name(
torch.cuda.get_device_name(0))` that normalises the name to a key of the table (open-instruct's MFU metrics): on
Ascend the name is an Ascend one (torch.npu.get_device_name, which transfer_to_npu substitutes for the torch.cuda
call), the table has no row for it, and the lookup raises or the figure it feeds (peak FLOPs for MFU, bandwidth) is
wrong. The work is a missing NPU row, not the rename DEV100 advises, so the name's call gets this rule (DEV149),
which subsumes DEV100 on its line.

A table is a dict literal bound to a name at module level, with at least two string keys that all name NVIDIA GPU
models, and none an Ascend one; the name's value must reach a read of the table in the file (a subscript, `in`, a
loop, `.get`), directly, through a function of the file that reads it, or through a name it is assigned to. A name
only printed or put in a report is DEV100's.
"""

from __future__ import annotations

import re

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.device.enumerations import string_value
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, unit_references

NAME_CALLS = frozenset({"torch.cuda.get_device_name"})
# a key naming an NVIDIA model: a100, h100, h200, b200, gb200, v100, l40s, t4, a6000, "rtx 4090", "NVIDIA H100 80GB"
GPU_MODEL = re.compile(r"(^|[^a-z0-9])(nvidia|tesla|geforce|quadro|rtx|gtx|titan|(gb|[abhlvtpk])\d{1,4}[a-z]?|\d{4})($|[^a-z0-9])")
# a key naming an Ascend model: "ascend910b", "910b2", "atlas 800", "npu"
ASCEND_MODEL = re.compile(r"ascend|atlas|npu|910|310|950")
MIN_ROWS = 2


def gpu_tables(root) -> list[str]:
    """Names bound at module level to a dict literal whose string keys all name NVIDIA GPU models (no Ascend row)."""
    names = []
    for statement in root.named_children:
        assignment = parsing.statement_assignment(statement)
        if assignment is None:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier" or right.type != "dictionary":
            continue
        keys = [pair.child_by_field_name("key") for pair in right.named_children if pair.type == "pair"]
        words = [string_value(k).lower() for k in keys if k is not None and k.type == "string"]
        if len(words) < MIN_ROWS or len(words) != len(keys):
            continue
        if all(GPU_MODEL.search(w) for w in words) and not any(ASCEND_MODEL.search(w) for w in words):
            names.append(parsing.text(left))
    return names


LOOKUPS = r"""
(subscript value: (identifier) @table)
(comparison_operator (identifier) @table)
(for_statement right: (identifier) @table)
(for_in_clause right: (identifier) @table)
(call function: (attribute object: (identifier) @table attribute: (identifier) @method) (#any-of? @method "get" "items" "keys"))
"""


STATEMENT_PARENTS = frozenset({"block", "module"})
MAX_UP = 40


class Lookups:
    """Where the file reads its GPU tables: the lookup nodes, and the names of the functions holding one."""

    def __init__(self, root, tables: list[str]) -> None:
        found = parsing.captures(parsing.query("python", LOOKUPS), root).get("table", [])
        self.nodes = [node for node in found if parsing.text(node) in tables]
        self.functions = set()
        for node in self.nodes:
            function = node.parent
            while function is not None and function.type != "function_definition":
                function = function.parent
            if function is not None:
                self.functions.add(parsing.text(function.child_by_field_name("name")))

    def inside(self, node) -> bool:
        return any(node.start_byte <= n.start_byte and n.end_byte <= node.end_byte for n in self.nodes)

    def reached_by(self, value) -> bool:
        """The value is looked up: it is passed to a function of the file that reads a table, or the statement that
        holds it reads one (`next(k for k in GPU_SPECS if k in name)`), or it is assigned to a name that a later
        statement of the same function uses so."""
        statement, assigned = self._holding(value)
        if statement is None:
            return False
        if statement is not value and (self.inside(statement) or self._passed_to_lookup(value, statement)):
            return True
        if assigned is None:
            return False
        sibling = statement.next_named_sibling
        while sibling is not None:
            for use in _identifiers(sibling, assigned):
                if self.inside(sibling) or self._passed_to_lookup(use, sibling):
                    return True
            sibling = sibling.next_named_sibling
        return False

    def _holding(self, value):
        """The statement holding `value`, and the plain name it is assigned to there (None when it is not)."""
        node, depth, assigned = value, 0, None
        while node.parent is not None and node.parent.type not in STATEMENT_PARENTS and depth < MAX_UP:
            parent = node.parent
            if parent.type == "assignment" and parent.child_by_field_name("right") is not None \
                    and parent.child_by_field_name("right").start_byte <= value.start_byte:
                left = parent.child_by_field_name("left")
                assigned = parsing.text(left) if left is not None and left.type == "identifier" else None
            node, depth = parent, depth + 1
        return (node, assigned) if node.parent is not None else (None, None)

    def _passed_to_lookup(self, value, statement) -> bool:
        node = value
        while node is not statement and node.parent is not None:
            parent = node.parent
            if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call":
                function = parent.parent.child_by_field_name("function")
                name = function.child_by_field_name("attribute") if function.type == "attribute" else function
                if name is not None and parsing.text(name) in self.functions:
                    return True
            node = parent
        return False


def _identifiers(node, name: str):
    return (current for current in parsing.walk(node) if current.type == "identifier" and parsing.text(current) == name)


class _SpecTableScan(PythonScan):
    def run(self) -> list[Hit]:
        calls = [r for r in unit_references(self.unit) if r.name in NAME_CALLS and r.call is not None]
        if not calls:
            return self.hits
        root = self.unit.tree()
        tables = gpu_tables(root)
        if not tables:
            return self.hits
        lookups = Lookups(root, tables)
        for call in calls:
            if lookups.reached_by(call.call):
                self.hit("gpu-spec-table-without-npu-row", call.name, call.node, "torch.npu.get_device_name")
        return self.hits


class GpuSpecTableScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("get_device_name",)
    scan_class = _SpecTableScan
