"""A module's `__main__` demo, read from its main block: the block calls a function named like a demo or a self-test
(`demo_video_autoencoder_forward_backward()`, `test_model()`) or makes random inputs (`torch.randn(...)`) to run the
module's classes once. A model module the project imports may carry such a block (LTX-Video's VAE modules run a
forward and `loss.backward()` on random video tensors there); it is no entry point of the product, so neither its
phases nor its own signals decide the project's (domains/phases/plan.py `assign_phases`). The prefixes and the
random-input calls are data: knowledge/phases/signals.toml [entries]."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.reference_checks import MAX_NODES, called_names
from ascend_feasibility.knowledge import load_phase_signals

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import Unit


def runs_demo(unit: Unit, main_block: tuple[int, int] | None) -> bool:
    """Does the file's top-level `if __name__ == "__main__":` block (its first and last line) run a demo or a
    self-test: call a function with a demo prefix, or make random inputs?"""
    if main_block is None:
        return False
    entries = load_phase_signals().entries
    prefixes = tuple(entries.demo_function_prefixes)
    inputs = frozenset(entries.smoke_inputs)
    for statement in unit.tree().named_children:
        if statement.type == "if_statement" and statement.start_point.row + 1 == main_block[0]:
            called = called_names(statement, [MAX_NODES])
            return bool(called & inputs) or any(name.startswith(prefixes) for name in called)
    return False
