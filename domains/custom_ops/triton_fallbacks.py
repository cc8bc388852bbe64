"""Triton kernels launched only where a test holds whose else arm computes the same without them: `optional`.

TGI's metadata_kernels.block_tables_to_ragged: `if has_triton(): ... triton_block_tables_to_ragged[grid](...)` and
`else:` a Python loop that fills the same tensor. Where Triton does not run (the test is false) the else arm does the
work, so the kernel needs no port for the project to work. Judged per kernel, conservatively: its file names it only
at its definition and at its launches (a kernel put in a table or passed on may be launched from anywhere), each
launch sits in the body of an `if` that asks for Triton (a name holding "triton") whose else arm, in the same
function, does more than raise and launches no other kernel, and no other Python file of the project names it.
Megatron-LM's `if D <= 512: l2norm_fwd_kernel[grid]... else: l2norm_fwd_kernel_large[grid]...` picks between two
kernels by size: both stay counted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, NAME_BYTES, writers
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ProjectRun
    from ascend_feasibility.domains.custom_ops.records import CustomOpFacts

SCOPES = frozenset({"function_definition", "class_definition", "module", "lambda"})


def launched_with_else_arm(kernel: str, launches: list[Node], data: bytes) -> tuple[int, str] | None:
    """(line, test) of the first `if` around the kernel's launches, where each launch has an else arm as above and
    the file writes the kernel's name nowhere else; None otherwise."""
    if not launches or data.translate(NAME_BYTES).split().count(kernel.encode("utf-8")) != len(launches) + 1:
        return None
    found = None
    for launch in launches:
        test = _else_armed(launch)
        if test is None:
            return None
        found = found or test
    return found


def _else_armed(node: Node) -> tuple[int, str] | None:
    """The nearest `if` (in the launch's function) whose body holds the launch and whose else arm does not only raise."""
    current = node.parent
    while current is not None and current.type not in SCOPES:
        parent = current.parent
        if current.type == "block" and parent is not None and parent.type == "if_statement" \
                and parent.child_by_field_name("consequence") == current:
            arm = next((c for c in parent.children if c.type in {"else_clause", "elif_clause"}), None)
            body = arm.child_by_field_name("body") if arm is not None and arm.type == "else_clause" else None
            condition = parent.child_by_field_name("condition")
            if body is not None and condition is not None and _asks_for_triton(condition) and not _launches(body) \
                    and any(s.type not in {"raise_statement", "comment", "pass_statement"} for s in body.named_children):
                return parent.start_point.row + 1, " ".join(parsing.text(condition).split())[:120]
        current = parent
    return None


def _asks_for_triton(condition: Node) -> bool:
    """The test asks whether Triton is there or wanted (`has_triton()`, `HAS_TRITON`, `use_triton`): a size or mode
    test (`if D <= 512:`, `if persistent:`) picks between implementations that all run, one of them on the NPU."""
    return any(node.type == "identifier" and "triton" in parsing.text(node).lower() for node in parsing.walk(condition))


def _launches(arm: Node) -> bool:
    """Does the arm launch a kernel (`other_kernel[grid](...)`)? Then it is another kernel, not a fallback."""
    return any(node.type == "call" and (function := node.child_by_field_name("function")) is not None
               and function.type == "subscript" for node in parsing.walk(arm))


def else_armed_kernels(facts: CustomOpFacts, run: ProjectRun) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the Triton kernels launched only under a test with a working else arm."""
    kernels = [k for k in facts.kernels if k.kind == "triton" and k.else_arm is not None and len(k.name) >= MIN_NAME]
    if not kernels:
        return {}
    python = [m for m in run.modules if m.path.endswith(".py")]
    written = writers({k.name for k in kernels}, python)
    result: dict[str, list[tuple[int, int, str]]] = {}
    for k in kernels:
        if written.get(k.name, set()) - {k.path}:
            continue  # another file names it: it may launch it there
        line, test = k.else_arm
        result.setdefault(k.path, []).append((k.line, k.end_line, (
            f"line {k.line}: {k.name} is launched only where `if {test}:` (line {line}) holds; the else arm computes "
            "without it")))
    return result
