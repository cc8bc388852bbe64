"""An operator's check script, read from its shape: a module named like a test script (`test.py` beside a kernel's
setup.py) whose `if __name__ == "__main__":` block calls module-level check functions (`check_*`, `test_*`) that
compare the op with a reference (`torch.allclose`, `gradcheck`, `torch.testing.assert_close`). InternImage's
ops_dcnv3/test.py runs `check_forward_equal_with_pytorch_double()` and its siblings, each comparing the CUDA op with
`dcnv3_core_pytorch` by `torch.allclose`; some copies import gradcheck, some do not, and all are the same test.

The reading stays narrow: one comparison in a product script (an evaluation that calls allclose once in `main()`) is
no check function, and a script whose main block calls no check function is no check script
(analyzer/context/propagation.py decides the role with the import graph: nothing in the project imports it)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.reading import parsing

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import Unit
    from tree_sitter import Node

MAX_NODES = 50_000


def called_names(node: Node, budget: list[int]) -> set[str]:
    """The last name of every call under `node` (`torch.allclose(...)` → allclose), within a node budget."""
    names: set[str] = set()
    for current in parsing.walk(node, limit=max(budget[0], 0)):
        budget[0] -= 1
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is not None and function.type == "attribute":
                function = function.child_by_field_name("attribute")
            if function is not None and function.type == "identifier":
                names.add(parsing.text(function))
    return names


def reference_checks(unit: Unit, main_block: tuple[int, int] | None) -> list[str]:
    """The check functions of a test-script-named module that compare with a reference and that its top-level
    `__main__` block calls, sorted; [] for every other file (decided before any walk: the file's stem, its main
    block and the comparison's name in its bytes)."""
    from ascend_feasibility.knowledge import load_context_conventions

    roles = load_context_conventions().roles
    if main_block is None or PurePosixPath(unit.path).stem.lower() not in roles.test_script_stems:
        return []
    comparisons = frozenset(roles.reference_comparisons)
    if not any(name.encode() in unit.source.data for name in comparisons):
        return []
    prefixes = tuple(roles.check_function_prefixes)
    budget = [MAX_NODES]
    checks: set[str] = set()
    main: Node | None = None
    for statement in unit.tree().named_children:
        definition = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if definition is not None and definition.type == "function_definition":
            name = parsing.text(definition.child_by_field_name("name") or definition)
            if name.startswith(prefixes) and called_names(definition, budget) & comparisons:
                checks.add(name)
        elif statement.type == "if_statement" and statement.start_point.row + 1 == main_block[0]:
            main = statement
    if not checks or main is None:
        return []
    return sorted(checks & called_names(main, budget))
