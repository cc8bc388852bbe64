"""Module-level functions and classes a file defines only where `from DEP import NAMES` failed: in the `except
ImportError:` handler of that module-level try, or under a later module-level `if not FLAG:` where the try's body sets
FLAG true and the handler sets it false (Video-Swin-Transformer's mmaction/apis/test.py: `try: from mmcv.engine
import (single_gpu_test, ...); from_mmcv = True` / `except (ImportError, ModuleNotFoundError): ... from_mmcv = False`
/ `if not from_mmcv: def single_gpu_test(...)`). They run only when the installed DEP lacks the names: the project pass
(analyzer/context/fallback_copies.py) decides whether DEP is a declared requirement."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases.symbols import unit_statements
from tree_sitter import Node

CAUGHT = frozenset({"ImportError", "ModuleNotFoundError"})
DEFINITIONS = frozenset({"function_definition", "class_definition", "decorated_definition"})


def fallback_definitions(unit: Unit) -> list[tuple[str, int, int, str]]:
    """(the module the try imports from, first line, last line, name) of each definition only a failed import
    defines."""
    data = unit.source.data
    if b"ImportError" not in data and b"ModuleNotFoundError" not in data:
        return []
    module = unit_statements(unit)
    found: list[tuple[str, int, int, str]] = []
    flags: dict[str, str] = {}  # a flag the try sets true and the handler false → the module imported from
    for statement, kind in zip(module.statements, module.kinds, strict=True):
        if kind == "try_statement":
            body = statement.child_by_field_name("body")
            imported = _absolute_from(body)
            handlers = [c for c in statement.named_children if c.type == "except_clause" and _catches_import(c)]
            if imported is None or not handlers or len(handlers) != len(
                    [c for c in statement.named_children if c.type == "except_clause"]):
                continue
            for handler in handlers:
                block = next((c for c in handler.named_children if c.type == "block"), None)
                found += [(imported, *_lines(d), _name(d)) for d in _definitions(block)]
                for flag in _set_flags(block, "False") & _set_flags(body, "True"):
                    flags[flag] = imported
        elif kind == "if_statement" and flags:
            flag = _negated_flag(statement.child_by_field_name("condition"))
            if flag in flags and not any(c.type in {"elif_clause", "else_clause"} for c in statement.named_children):
                found += [(flags[flag], *_lines(d), _name(d))
                          for d in _definitions(statement.child_by_field_name("consequence"))]
    return [entry for entry in found if entry[3]]


def _absolute_from(body: Node | None) -> str | None:
    """The module of the first `from DEP import NAMES` in the try's body, DEP not relative; None where there is none."""
    for statement in body.named_children if body is not None else ():
        if statement.type == "import_from_statement":
            source = statement.child_by_field_name("module_name")
            text = parsing.text(source) if source is not None else ""
            return text if text and not text.startswith(".") else None
    return None


def _catches_import(handler: Node) -> bool:
    """`except ImportError:` / `except (ImportError, ModuleNotFoundError):` (a bare or broader except is another case)."""
    caught = [c for c in handler.named_children if c.type not in {"block", "comment"}]
    if not caught:
        return False
    target = caught[0]
    if target.type == "as_pattern":
        target = target.named_children[0] if target.named_children else target
    names = [target] if target.type == "identifier" else target.named_children if target.type == "tuple" else []
    return bool(names) and all(n.type == "identifier" and parsing.text(n) in CAUGHT for n in names)


def _definitions(block: Node | None) -> list[Node]:
    return [c for c in block.named_children if c.type in DEFINITIONS] if block is not None else []


def _name(definition: Node) -> str:
    own = definition.child_by_field_name("definition") if definition.type == "decorated_definition" else definition
    name = own.child_by_field_name("name") if own is not None else None
    return parsing.text(name) if name is not None and name.type == "identifier" else ""


def _lines(definition: Node) -> tuple[int, int]:
    return definition.start_point.row + 1, definition.end_point.row + 1


def _set_flags(block: Node | None, value: str) -> set[str]:
    """The names a block's own statements bind to the literal `value` (`from_mmcv = False`)."""
    found = set()
    for statement in block.named_children if block is not None else ():
        assignment = parsing.statement_assignment(statement)
        if assignment is None:
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and left.type == "identifier" and right is not None and parsing.text(right) == value:
            found.add(parsing.text(left))
    return found


def _negated_flag(condition: Node | None) -> str | None:
    """`not FLAG`: FLAG."""
    if condition is None or condition.type != "not_operator":
        return None
    argument = condition.child_by_field_name("argument")
    return parsing.text(argument) if argument is not None and argument.type == "identifier" else None
