"""Which ATen operator a Python call reaches, and whether a torch_npu release runs it on the NPU.

Reads the generated tables of knowledge/operators/ (npu_aten.toml: the overloads each release registers;
aten_schema.toml: the overloads that need a backend kernel and the Python names that reach them) and the hand table
calls.toml. An overload runs on the NPU at a release when it decomposes (no backend kernel needed), or when the
release registers it or an overload whose registration covers it (its structured delegate, its out form: a registry
that lists only the out form counts as registering the function, never as a fallback). Otherwise torch_npu's
PrivateUse1 fallback runs it on the host with copies both ways (torch_npu/csrc/aten/VariableFallbackKernel.cpp,
npu_cpu_fallback), or raises where PyTorch has no CPU kernel to fall back to.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Literal

from ascend_feasibility.knowledge import KNOWLEDGE_DIR, KnowledgeBase
from ascend_feasibility.knowledge.availability import line_key, line_of
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

Status = Literal["npu", "composite", "fallback", "error"]
RUNS = frozenset({"npu", "composite"})


def _read(name: str) -> dict:
    with (KNOWLEDGE_DIR / "operators" / name).open("rb") as handle:
        return tomllib.load(handle)


def _indices(ranges: str) -> frozenset[int]:
    found: set[int] = set()
    for part in filter(None, ranges.split(",")):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return frozenset(found)


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # tensor, scalar (numbers, bools), string, other
    keyword_only: bool
    required: bool  # no default


def parse_schema(arguments: str) -> tuple[Parameter, ...]:
    """``Tensor self, Scalar other, *, bool invert=False`` -> parameters (names, coarse kinds, keyword-only)."""
    params, depth, current, keyword_only = [], 0, "", False
    for char in arguments + ",":
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            declaration, default = current.split("=", 1)[0].split(), "=" in current
            current = ""
            if declaration == ["*"]:
                keyword_only = True
            elif len(declaration) >= 2:
                params.append(Parameter(declaration[-1], _kind(declaration[0]), keyword_only, not default))
        else:
            current += char
    return tuple(params)


def _kind(type_name: str) -> str:
    base = type_name.split("(", 1)[0].rstrip("?")
    if base in {"Tensor", "Tensor[]"}:
        return "tensor"
    if base in {"Scalar", "int", "float", "bool", "SymInt", "complex"}:
        return "scalar"
    if base in {"str", "Dimname"}:
        return "string"
    return "other"


@dataclass(frozen=True)
class Call:
    """A hand-table row: a Python function that chooses its operator itself."""

    overload: str
    selector: tuple[str, int, str] | None  # (argument name, position, overload when given)


@dataclass(frozen=True)
class LibraryOp:
    """A hand-table row: a library's own operator (torchvision::deform_conv2d) that a Python name reaches."""

    operator: str
    route: str  # the facet that picks the rule's advice
    npu: str  # who registers an NPU kernel for it ("" when nobody does)


class Coverage:
    def __init__(self) -> None:
        registrations, schema, calls = _read("npu_aten.toml"), _read("aten_schema.toml"), _read("calls.toml")
        self.branches: list[str] = registrations["releases"]
        self.registered = {name: _indices(ranges) for name, ranges in registrations["registered"].items()}
        self.kernel: dict[str, tuple[bool, tuple[str, ...]]] = {
            name: (bool(row[0]), tuple(row[1:])) for name, row in schema["kernel"].items()
        }
        self.functions: dict[str, tuple[str, ...]] = {n: tuple(o) for n, o in schema["function"].items()}
        self.methods: dict[str, tuple[str, ...]] = {n: tuple(o) for n, o in schema["method"].items()}
        self.schemas = {name: parse_schema(text) for name, text in schema["schema"].items()}
        self.calls: dict[str, Call] = {}
        self.method_calls: dict[str, Call] = {}
        for row in calls.get("call", []):
            selector = row.get("selector")
            call = Call(row["overload"], (selector["name"], selector["position"], selector["overload"]) if selector else None)
            self.calls[row["function"]] = call
            if row.get("method"):
                self.method_calls[row["method"]] = call
        self.modules = {row["name"]: row["overload"] for row in calls.get("module", [])}
        self.library_ops: dict[str, LibraryOp] = {
            name: LibraryOp(row["operator"], row["route"], row.get("npu", ""))
            for row in calls.get("library_op", []) for name in row["names"]
        }
        self.untyped_methods = frozenset(calls["methods"]["untyped"])
        self.hot_functions = frozenset(calls["phase"]["hot_functions"])
        self.cold_functions = frozenset(calls["phase"]["cold_functions"])
        self.hot_suffixes = tuple(calls["phase"]["hot_suffixes"])
        self.bounds: dict[str, str] = dict(calls["bound"]["operators"])  # operator → the clamp keyword it rewrites to
        self.single_value_factories = frozenset(calls["bound"]["single_value_factories"])
        self._index = {branch: i for i, branch in enumerate(self.branches)}

    def status(self, overload: str, branch: str) -> Status:
        entry = self.kernel.get(overload)
        if entry is None:
            return "composite"
        index = self._index.get(branch)
        if index is None:
            return "npu"  # a release the table does not know: never guess a fallback
        cpu, covered_by = entry
        if any(index in self.registered.get(name, ()) for name in (overload, *covered_by)):
            return "npu"
        return "fallback" if cpu else "error"

    def runs(self, overload: str, branch: str) -> bool:
        return self.status(overload, branch) in RUNS

    def maybe_missing(self, overload: str) -> bool:
        """Does some release of the table lack a kernel for it? (Only such calls need looking at closely.)"""
        return overload in self.kernel and not all(self.runs(overload, b) for b in self.branches)

    def first_release(self, kb: KnowledgeBase, overload: str, target) -> object | None:
        """The release that gives the target's project the kernel: the oldest of the target's torch that has it,
        else the oldest for a newer torch; None when no release of the table runs it."""
        having = [r for r in kb.releases if self.runs(overload, r.branch)]
        same = [r for r in having if r.torch == target.torch]
        if same:
            return min(same, key=lambda r: (line_key(line_of(r.branch)), Version(r.torch_npu)))
        newer = [r for r in having if Version(r.torch) > Version(target.torch)]
        return min(newer, key=lambda r: (Version(r.torch), Version(r.torch_npu))) if newer else None

    def reachable(self, kb: KnowledgeBase, target) -> list:
        """The releases a project at `target` can move to: the same or a newer torch, on the same or a newer line."""
        line = line_key(line_of(target.branch))
        return [r for r in kb.releases if Version(r.torch) >= Version(target.torch) and line_key(line_of(r.branch)) >= line]


@functools.cache
def load_coverage() -> Coverage:
    return Coverage()
