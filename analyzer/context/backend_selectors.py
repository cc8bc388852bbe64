"""A project's own backend selector: a module-level name assigned a backend's name in each arm of an if/elif chain
over backend probes, and the value it takes on Ascend.

text-generation-inference's utils/import_utils.py:

    if torch.version.hip is not None: SYSTEM = "rocm"
    elif torch.version.cuda is not None and torch.cuda.is_available(): SYSTEM = "cuda"
    elif is_ipex_available(): SYSTEM = "ipex"
    elif hasattr(torch, "xpu") and torch.xpu.is_available(): SYSTEM = "xpu"
    else: SYSTEM = "cpu"

torch_npu leaves `torch.version.cuda` and `torch.version.hip` None, transfer_to_npu included (it maps the `torch.cuda`
module to `torch_npu.npu` and sets only `torch.version.cann`: Ascend/pytorch v2.12.0-26.1.0 and v2.9.0-7.3.0,
torch_npu/contrib/transfer_to_npu.py `_patch_cuda`, torch_npu/utils/collect_env.py), and an Ascend host has no other
accelerator, so each of these probes is false there and SYSTEM is "cpu". A test `SYSTEM == "cuda"` elsewhere is then
no setting a user keeps (DEV007's reading): it is decided by the selector, whose missing npu value is the port's gap
(DEV220 at the chain). A probe that transfer_to_npu makes true (`torch.cuda.is_available()` alone) or anything else
this module cannot decide leaves the name unread: no selector.

The probes that are None on Ascend are knowledge (conventions.toml [backends] none_on_ascend); another accelerator's
probe is a condition naming one of [backends] other and neither CUDA nor the NPU.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from ascend_feasibility.analyzer.context.dispatch_chains import backend_words, chain_arms, words
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

MAX_ARMS = 12


@dataclass(frozen=True)
class Probes:
    none_on_ascend: frozenset[str]  # `torch.version.hip`, `torch.version.cuda`
    others: frozenset[str]  # other accelerators' words (xpu, ipex, mps, ...)
    cuda: frozenset[str]
    npu: frozenset[str]


def selectors(root: Node, probes: Probes) -> dict[str, tuple[str, int]]:
    """name → (its value on Ascend, line of the chain), for the module-level selector chains of a file."""
    found: dict[str, tuple[str, int]] = {}
    for statement in root.named_children:
        if statement.type != "if_statement":
            continue
        chosen = _selected(statement, probes)
        if chosen is not None:
            found.setdefault(chosen[0], (chosen[1], statement.start_point.row + 1))
    return found


def _selected(statement: Node, probes: Probes) -> tuple[str, str] | None:
    arms = chain_arms(statement)
    others = [c for c in statement.children_by_field_name("alternative") if c.type == "else_clause"]
    if len(arms) < 2 or len(arms) > MAX_ARMS or not others:
        return None
    values = [_string_assignments(body) for _, body in arms]
    fallback = _string_assignments(others[0].child_by_field_name("body"))
    names = set(fallback).intersection(*values)
    if len(names) != 1:
        return None
    name = names.pop()
    for (condition, _), assigned in zip(arms, values):
        held = on_ascend(condition, probes)
        if held is None:
            return None
        if held:
            return name, assigned[name]
    return name, fallback[name]


def _string_assignments(body: Node | None) -> dict[str, str]:
    """`NAME = "value"` statements directly in a block."""
    found: dict[str, str] = {}
    for statement in body.named_children if body is not None else ():
        assignment = parsing.statement_assignment(statement)
        if assignment is None:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier" and right.type == "string":
            content = [c for c in right.named_children if c.type == "string_content"]
            if len(content) == 1 and len(right.named_children) == 3:
                found[parsing.text(left)] = parsing.text(content[0])
    return found


def on_ascend(condition: Node, probes: Probes) -> bool | None:
    """The value of a backend probe on an Ascend host (torch_npu, with or without transfer_to_npu): False for a
    None-on-Ascend attribute's presence (`torch.version.cuda is not None`, `torch.version.hip`) and for another
    accelerator's probe; None where it cannot be told (a CUDA availability test, which transfer_to_npu makes true)."""
    node = condition
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node.type == "not_operator":
        inner = node.child_by_field_name("argument")
        held = on_ascend(inner, probes) if inner is not None else None
        return None if held is None else not held
    if node.type == "boolean_operator":
        operator = node.child_by_field_name("operator")
        sides = [on_ascend(s, probes) for s in (node.child_by_field_name("left"), node.child_by_field_name("right"))
                 if s is not None]
        if len(sides) != 2:
            return None
        if operator is not None and parsing.text(operator) == "and":
            return False if False in sides else (True if sides == [True, True] else None)
        return True if True in sides else (False if sides == [False, False] else None)
    subject = node
    presence = True
    if node.type == "comparison_operator" and len(node.named_children) == 2 and node.named_children[1].type == "none":
        operators = [op.type for op in node.children if not op.is_named]
        if operators not in (["is"], ["is not"]):
            return None
        subject, presence = node.named_children[0], operators == ["is not"]
    if subject.type == "attribute" and parsing.text(subject) in probes.none_on_ascend:
        return not presence  # None on Ascend
    named = words(node)
    if named & probes.others and not named & (probes.cuda | probes.npu):
        return False  # no XPU, IPEX, MPS or ROCm on an Ascend host
    return None


def compared_values(expression: Node) -> tuple[str, str, frozenset[str]] | None:
    """(name, operator, strings) of `NAME == "cuda"`, `NAME != "cuda"`, `NAME in ("cuda", "rocm")`."""
    node = expression
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node.type != "comparison_operator" or len(node.named_children) != 2:
        return None
    operators = [op.type for op in node.children if not op.is_named]
    if len(operators) != 1 or operators[0] not in {"==", "!=", "in", "not in"}:
        return None
    left, right = node.named_children
    if left.type != "identifier":
        left, right = right, left
        if left.type != "identifier" or operators[0] in {"in", "not in"}:
            return None
    strings = [right] if right.type == "string" else (
        list(right.named_children) if right.type in {"tuple", "list", "set"} else [])
    values = []
    for string in strings:
        content = [c for c in string.named_children if c.type == "string_content"] if string.type == "string" else []
        if len(content) != 1:
            return None
        values.append(parsing.text(content[0]))
    return (parsing.text(left), operators[0], frozenset(values)) if values else None


def file_selectors(root: Node, source: str) -> dict[str, tuple[str, int]]:
    """selectors() with the conventions' probes; nothing read where the file names none of them."""
    found = _probes()
    if not any(probe in source for probe in found.none_on_ascend):
        return {}
    return selectors(root, found)


@functools.lru_cache(maxsize=1)
def _probes() -> Probes:
    conventions = load_context_conventions()
    backends = conventions.backends
    words_of = backend_words(conventions.guards, backends)
    return Probes(frozenset(backends.none_on_ascend), frozenset(backends.other), words_of.cuda,
                  frozenset(t for name in backends.npu for t in name.lower().split("_") if t != "torch"))


def selector_tests(findings: list, facts: list, factory) -> list:
    """DEV007 at a test of a backend selector (`SYSTEM == "cuda"`, the name defined in the file or imported from the
    module defining it) whose result on Ascend the selector's value fixes: no setting transfer_to_npu keeps, and its
    CUDA arm never runs there. Placed other-backend, naming the selector, whose missing npu value (DEV220 at its
    chain) is the gap."""
    from ascend_feasibility.analyzer.core.findings import Place
    from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

    defined = {f.path: f.backend_selectors for f in facts if f.backend_selectors}
    if not defined:
        return findings
    from ascend_feasibility.analyzer.context.roles import path_view
    from ascend_feasibility.analyzer.context.unloaded import import_names

    packages = {path_view(f.path).parent for f in facts if f.module and path_view(f.path).name == "__init__.py"}
    by_module: dict[str, list[str]] = {}  # every name a defining module is imported by → its paths (copies too)
    for f in facts:
        if f.path in defined and f.module:
            for name in {f.module} | import_names(f.path, f.module, packages):
                by_module.setdefault(name, []).append(f.path)
    by_path = {f.path: f for f in facts}
    result = []
    uses: dict[tuple[str, int], list[str]] = {}  # the selector's chain → the tests placed here
    for finding in findings:
        place = None
        if finding.rule == "DEV007" and finding.reach == "runs" and finding.role in COUNTED_ROLES and finding.symbol:
            tested = _symbol_test(finding.symbol)
            selector = _selector_of(tested[0], by_path.get(finding.path), defined, by_module) if tested is not None else None
            if selector is not None:
                path, (value, line) = selector
                taken = (value in tested[2]) == (tested[1] in {"==", "in"})
                uses.setdefault((path, line), []).append(f"{finding.path}:{finding.line}")
                place = Place(finding.role, "other-backend",
                              f"`{tested[0]}` is \"{value}\" on Ascend (the backend selector at {path}:{line} has no npu "
                              f"value: DEV220 there), so this test is always {taken} there and its CUDA arm never runs")
        result.append(factory.relocate(finding, place) if place is not None else finding)
    return [_priced(f, uses[(f.path, f.line)]) if f.rule == "DEV220" and (f.path, f.line) in uses else f for f in result]


def _priced(chain, tests: list[str]):
    """The selector's missing npu value is the port's core: each test of the selector needs its npu arm, so the
    chain's finding stands for them (listed as its sites) at the per-arm price each, and is high."""
    scale = 1 + len(tests)
    hours = chain.effort_hours.model_copy(update={"low": chain.effort_hours.low * scale,
                                                  "high": chain.effort_hours.high * scale})
    return chain.model_copy(update={"severity": "high", "effort_hours": hours,
                                    "sites": list(dict.fromkeys([*chain.sites, *tests]))})


def _selector_of(name: str, facts, defined: dict[str, dict[str, tuple[str, int]]], by_module: dict[str, list[str]]):
    """(defining path, (value, line)) of the selector `name` as the file sees it: its own, or imported by name (of
    copies of the defining module, such as another backend's tree, the one nearest the importer)."""
    if facts is None:
        return None
    own = defined.get(facts.path, {}).get(name)
    if own is not None:
        return facts.path, own
    for imported in facts.imports:
        module, _, last = imported.rpartition(".")
        paths = [p for p in by_module.get(module, []) if name in defined[p]] if last == name else []
        if paths:
            path = max(paths, key=lambda p: len(os.path.commonprefix([p, facts.path])))
            return path, defined[path][name]
    return None


def _symbol_test(symbol: str) -> tuple[str, str, frozenset[str]] | None:
    """compared_values of a finding's symbol (the test's code, `SYSTEM == "cuda"`), parsed as Python."""
    root = parsing.parse("python", symbol.encode("utf-8"))
    statement = root.named_children[0] if len(root.named_children) == 1 else None
    if statement is None or statement.type != "expression_statement" or len(statement.named_children) != 1:
        return None
    return compared_values(statement.named_children[0])
