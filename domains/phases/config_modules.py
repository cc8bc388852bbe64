"""A config module: a Python file whose top level only binds settings, read by a framework that loads it by its path
(mmengine's `Config.fromfile`, `with read_base():` plus `model = dict(...)`, `_base_ = [...]` lists,
`train_cfg.update(max_iters=...)`). Its top-level statements run when the framework reads it, yet it is no entry
point of the product: nothing is run there, so it needs no torch_npu import (domains/phases/plan.py `assign_phases`;
round 28 verdicts W4). What it may call is data: knowledge/phases/signals.toml [entries] config_calls."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.reference_checks import MAX_NODES, called_names
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from ascend_feasibility.domains.base import UNREAD_BASE
from ascend_feasibility.domains.phases.lazy_tables import _string as literal_string
from ascend_feasibility.domains.phases.lazy_tables import _strings as literal_strings
from ascend_feasibility.knowledge import load_phase_signals

_IMPORTS = {"import_statement", "import_from_statement", "future_import_statement"}
_BINDINGS = {"assignment", "augmented_assignment", "string"}  # a docstring is a string statement


def is_config_module(module: ModuleStatements) -> bool:
    """Are the module's top-level statements only imports, `with read_base():` blocks of imports, and assignments
    or method calls whose every call is a config call (`dict(...)`, `model.update(...)`), with at least one
    such setting? A definition, a loop, an `if` (a `__main__` guard among them) or any other call makes it code."""
    allowed = frozenset(load_phase_signals().entries.config_calls)
    if not allowed:
        return False
    budget = [MAX_NODES]
    bound = False
    for statement, kind, head in zip(module.statements, module.kinds, module.heads, strict=True):
        if kind in _IMPORTS or kind == "comment":
            continue
        if kind == "with_statement":
            body = statement.child_by_field_name("body")
            if body is None or any(s.type not in _IMPORTS and s.type != "comment" for s in body.named_children):
                return False
            if not called_names(statement, budget) <= allowed:
                return False
            continue
        if kind != "expression_statement" or head is None or (head.type not in _BINDINGS and head.type != "call"):
            return False
        if not called_names(statement, budget) <= allowed or budget[0] <= 0:
            return False
        bound |= head.type != "string"  # a setting bound or updated (`model.update(dict(prior_loss_weight=1))`)
    return bound




def config_bases(module: ModuleStatements) -> list[str]:
    """The configs a config module inherits: the strings of its top-level `_base_ = '...'` or `_base_ = [...]`
    (mmcv/mmengine's Config resolves them from the config's own folder). Another form (a concatenation, a name) gives
    UNREAD_BASE: what it inherits is unknown (analyzer/context/config_reach.py then judges no config dead)."""
    found: list[str] = []
    for kind, head in zip(module.kinds, module.heads, strict=True):
        if kind != "expression_statement" or head is None or head.type != "assignment":
            continue
        left, right = head.child_by_field_name("left"), head.child_by_field_name("right")
        if left is None or parsing.text(left) != "_base_":
            continue
        strings = [single] if (single := literal_string(right)) else literal_strings(right)
        known = right is not None and (bool(single) or (right.type in ("list", "tuple")
                                                        and len(strings) == len(right.named_children)))
        found += strings if known else [UNREAD_BASE]
    return found
