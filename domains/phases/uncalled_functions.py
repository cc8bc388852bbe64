"""A script's module-level functions its own code never calls: only comments (`# test()`) or nothing name them.

GPT-SoVITS's export_torch_script.py defines `test()`, whose only call is the comment `# test()` beside `main()` in its
`if __name__ == "__main__":` block; s2_train.py defines `evaluate()` and calls it nowhere (round 25 A1 C3 rows 9, 10,
43, 39; A2 C8 row 68). `test`/`evaluate` are written in many files, so unreferenced.py, which asks whether any file writes the name, keeps them. Here the file's code is
read: a module-level, undecorated function of a script (a `__main__` block or code at its top level) is a candidate
when no identifier and no string of the file's code outside its own body names it. A file that may look its names up
(`globals()`, `fire.Fire()`) or runs tests (imports pytest or unittest: a collector calls `test*` by name) gives none.
The project pass (analyzer/context/uncalled_functions.py) keeps those no other file can call.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases.symbols import _looks_names_up
from ascend_feasibility.domains.phases.unhooked_loaders import scan_names

TEST_RUNNERS = ("pytest", "unittest")


def uncalled_functions(unit: Unit, imports: list[str], script: bool) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of the script's module-level functions its code names nowhere but in them."""
    if not script or any(name.split(".")[0] in TEST_RUNNERS for name in imports):
        return []
    root = unit.tree()
    if root.has_error:
        return []
    definitions = [(parsing.text(name), statement) for statement in root.named_children
                   if statement.type == "function_definition"
                   for name in (statement.child_by_field_name("name"),) if name is not None]
    if not definitions or _looks_names_up(unit):
        return []
    names = {name for name, _ in definitions if not name.startswith("__")}
    live: set[str] = set()
    scan_names(root, names, {(node.start_byte, node.end_byte): name for name, node in definitions}, live, set())
    return [(name, node.start_point.row + 1, node.end_point.row + 1) for name, node in definitions
            if name in names and name not in live]
