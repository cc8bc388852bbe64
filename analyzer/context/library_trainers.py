"""Libraries' trainers built and run in a file (knowledge/phases/signals.toml [training_loop]): HF's
`trainer = Seq2SeqTrainer(...)` then `trainer.train()`, Lightning's `Trainer(...).fit(model)`, mmengine's
`runner = Runner.from_cfg(cfg)` then `runner.train()` / `runner.test()` (round 38 V-5), detectron2's
`DefaultTrainer(cfg).train()`. The loop is the library's; the file runs it, for the phase of the method it calls."""

from __future__ import annotations

import fnmatch
import re

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable
from ascend_feasibility.knowledge import load_phase_signals
from tree_sitter import Node

_LOOP = load_phase_signals().training_loop
TRAINING_RUNS = frozenset(_LOOP.trainer_runs)
RUN_PHASES = {method: phase for phase, methods in _LOOP.phase_runs.items() for method in methods}
LIBRARY_TRAINERS = re.compile("|".join(fnmatch.translate(p) for p in _LOOP.library_trainers) or "(?!)")
ROOTS = frozenset(pattern.split(".")[0] for pattern in _LOOP.library_trainers)


def library_trainer(name: str) -> bool:
    """Is the qualified name a library's trainer class (or its constructor, `Runner.from_cfg`)?"""
    return LIBRARY_TRAINERS.match(name) is not None


def trainer_runs(trainers: list[Node]) -> set[str]:
    """The run methods called on a library trainer built by one of the `trainers` calls: `Trainer(...).train()`, or
    `trainer = Seq2SeqTrainer(...)` (`self.trainer = ...`, `runner = Runner.from_cfg(cfg)`) and a later
    `trainer.train()` / `runner.test()` in the same function or module (not `model.train()`, a mode switch)."""
    runs = TRAINING_RUNS | RUN_PHASES.keys()
    found: set[str] = set()
    for call in trainers:
        parent = call.parent
        if parent is not None and parent.type == "attribute":
            method = parsing.text(parent.child_by_field_name("attribute"))
            if method in runs:
                found.add(method)
            continue
        left = parent.child_by_field_name("left") if parent is not None and parent.type == "assignment" else None
        if left is None or left.type not in {"identifier", "attribute"}:
            continue
        bound, scope = parsing.text(left), parsing.enclosing(parent, {"function_definition", "module"})
        for node in parsing.walk(scope, limit=20000):
            if node.type == "call" and node.start_byte > parent.end_byte:
                function = node.child_by_field_name("function")
                if (function is not None and function.type == "attribute"
                        and parsing.text(function.child_by_field_name("attribute")) in runs
                        and parsing.text(function.child_by_field_name("object")) == bound):
                    found.add(parsing.text(function.child_by_field_name("attribute")))
    return found


def runs_in_source(root: Node) -> set[str]:
    """trainer_runs over a parsed file of its own (no unit: a tool script read before the phase facts), the trainer
    calls found through the file's imports (`from mmengine.runner import Runner`, then `Runner.from_cfg(cfg)`)."""
    table = ImportTable()
    table.add_tree(root)
    if not any(q.split(".")[0] in ROOTS for q in table.bindings.values()):
        return set()
    calls = []
    for node in parsing.walk(root, limit=200_000):
        function = node.child_by_field_name("function") if node.type == "call" else None
        if function is None or function.type not in {"identifier", "attribute"}:
            continue
        head, _, rest = parsing.text(function).partition(".")
        qualified = table.bindings.get(head)
        if qualified is not None and library_trainer(f"{qualified}.{rest}" if rest else qualified):
            calls.append(node)
    return trainer_runs(calls)
