"""Module-level definitions that call through an optional compiled extension the module imports by a relative name:
`try: from . import fused_act_ext` / `except ImportError: pass` at the module's top level (or in an arm of a
module-level `if`), then `fused_act_ext.fused_bias_act(...)` inside a function or class. Where the project holds no
such module and builds none (analyzer/context/unbuilt_extensions.py), those definitions cannot run on any device."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases.symbols import import_froms, unit_statements
from tree_sitter import Node

SWALLOWED = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})


def extension_users(unit: Unit) -> list[tuple[str, int, int]]:
    """(the extension's name, first line, last line) of each module-level function or class writing `name.` where
    `name` is imported only by `from . import name` in a module-level `try:` whose handlers catch the import's
    failure and bind nothing else (`pass`, a comment)."""
    data = unit.source.data
    if b"from . import" not in data or b"except" not in data:
        return []
    module = unit_statements(unit)
    names: set[str] = set()
    for statement, kind in zip(module.statements, module.kinds, strict=True):
        for attempt in _module_tries(statement, kind):
            names |= _swallowed_relative_imports(attempt)
    if not names:
        return []
    found = []
    for statement, definition in zip(module.statements, module.definitions, strict=True):
        if definition is None or definition.type not in {"function_definition", "class_definition"}:
            continue
        used = {parsing.text(node.child_by_field_name("object")) for node in parsing.walk(statement, limit=200_000)
                if node.type == "attribute" and node.child_by_field_name("object") is not None
                and node.child_by_field_name("object").type == "identifier"}
        for name in sorted(used & names):
            found.append((name, statement.start_point.row + 1, statement.end_point.row + 1))
    return found


def _module_tries(statement: Node, kind: str) -> list[Node]:
    """The `try` statements at module level, directly or in the arms of a module-level `if` (`if JIT: ... else:`)."""
    if kind == "try_statement":
        return [statement]
    if kind != "if_statement":
        return []
    blocks = [child for child in statement.named_children if child.type == "block"]
    blocks += [block for clause in statement.named_children if clause.type in {"else_clause", "elif_clause"}
               for block in clause.named_children if block.type == "block"]
    return [inner for block in blocks for inner in block.named_children if inner.type == "try_statement"]


def _swallowed_relative_imports(attempt: Node) -> set[str]:
    """`from . import name` in the try's body, where every handler catches an import failure and binds nothing."""
    body = attempt.child_by_field_name("body")
    handlers = [child for child in attempt.named_children if child.type == "except_clause"]
    if body is None or not handlers:
        return set()
    for handler in handlers:
        caught = [child for child in handler.named_children if child.type != "block"]
        if not caught or not all(parsing.text(node).split(" as ")[0].strip("() ") in SWALLOWED for node in caught[:1]):
            return set()
        block = next((child for child in handler.named_children if child.type == "block"), None)
        if block is None or any(child.type not in {"pass_statement", "comment"} for child in block.named_children):
            return set()
    names = set()
    for statement in body.named_children:
        if statement.type != "import_from_statement":
            continue
        source = statement.child_by_field_name("module_name")
        if source is None or parsing.text(source) != ".":
            continue
        for name in statement.children_by_field_name("name"):
            if name.type == "dotted_name":
                names.add(parsing.text(name))
    return names


MAX_NAME_LINES = 50  # lines kept per imported name (imported_name_lines)


def caught_import_users(unit: Unit) -> list[tuple[str, int, tuple[str, ...]]]:
    """(the module, the import's line, the definitions using it) of each `import name` or `from . import name` in a
    module-level `try:` whose every handler (a bare `except:` too) binds nothing: RAFT-Stereo's core/corr.py
    `try: import corr_sampler` / `except: pass`, used by `class CorrSampler` (`corr_sampler.forward(...)`), named only
    by `class CorrBlockFast1D`. The definitions are those writing `name.` and, in turn, the module-level definitions
    naming one of them; none where the file names the module or one of those definitions anywhere else at module level
    (outside the try and the definitions). The project pass (analyzer/context/arm_selected.py) asks where the project
    names those definitions."""
    data = unit.source.data
    if b"import" not in data or b"except" not in data:
        return []
    module = unit_statements(unit)
    imports: dict[str, int] = {}
    tries = []
    for statement, kind in zip(module.statements, module.kinds, strict=True):
        for attempt in _module_tries(statement, kind):
            for name, line in _swallowed_imports(attempt):
                imports.setdefault(name, line)
                tries.append(attempt)
    if not imports:
        return []
    definitions = [(statement, definition) for statement, definition in zip(module.statements, module.definitions,
                                                                             strict=True) if definition is not None]
    words = [(parsing.text(definition.child_by_field_name("name") or definition), _identifiers(statement))
             for statement, definition in definitions]
    others = set()  # identifiers of module-level code outside the definitions and the tries
    for statement, definition in zip(module.statements, module.definitions, strict=True):
        if definition is None and not any(statement.start_byte <= t.start_byte < statement.end_byte for t in tries):
            others |= _identifiers(statement)
    found = []
    for name, line in imports.items():
        users = {own for own, used in words if name in used}
        while True:
            more = {own for own, used in words if own not in users and used & users}
            if not more:
                break
            users |= more
        if users and not (others & (users | {name})):
            found.append((name, line, tuple(sorted(users))))
    return found


def imported_name_lines(unit: Unit) -> list[tuple[str, str, tuple[int, ...]]]:
    """(the module as written, the name imported, the lines writing it outside the import) of each name a module-level
    `from m import a` binds (an alias: its lines under the imported name)."""
    data = unit.source.data
    if b"from" not in data or b"import" not in data:
        return []
    module = unit_statements(unit)
    bound: dict[str, tuple[str, str]] = {}  # the name the file writes → (module, imported name)
    skip = []
    for statement, kind in zip(module.statements, module.kinds, strict=True):
        for node in import_froms(statement, kind):
            source = node.child_by_field_name("module_name")
            if source is None:
                continue
            skip.append(node)
            for name in node.children_by_field_name("name"):
                alias = name.child_by_field_name("alias") if name.type == "aliased_import" else None
                original = name.child_by_field_name("name") if alias is not None else name
                bound[parsing.text(alias if alias is not None else name)] = (parsing.text(source), parsing.text(original))
    if not bound:
        return []
    lines: dict[str, list[int]] = {}
    skipped = {node.id for node in skip}
    for node in parsing.walk(module.root, limit=200_000, prune=lambda n: n.id in skipped):
        if node.type == "identifier":
            text = parsing.text(node)
            if text in bound and len(lines.setdefault(text, [])) < MAX_NAME_LINES:
                lines[text].append(node.start_point.row + 1)
    return [(source, original, tuple(lines.get(name, ()))) for name, (source, original) in sorted(bound.items())]


def _identifiers(node: Node) -> set[str]:
    return {parsing.text(n) for n in parsing.walk(node, limit=200_000) if n.type == "identifier"}


def _swallowed_imports(attempt: Node) -> list[tuple[str, int]]:
    """(name, line) of `import name` / `from . import name` in the try's body, where every handler catches an import
    failure (a bare `except:` catches all) and binds nothing."""
    body = attempt.child_by_field_name("body")
    handlers = [child for child in attempt.named_children if child.type == "except_clause"]
    if body is None or not handlers:
        return []
    for handler in handlers:
        caught = [child for child in handler.named_children if child.type != "block"]
        if caught and parsing.text(caught[0]).split(" as ")[0].strip("() ") not in SWALLOWED:
            return []
        block = next((child for child in handler.named_children if child.type == "block"), None)
        if block is None or any(child.type not in {"pass_statement", "comment"} for child in block.named_children):
            return []
    found = []
    for statement in body.named_children:
        if statement.type == "import_statement":
            found += [(parsing.text(name), statement.start_point.row + 1)
                      for name in statement.children_by_field_name("name") if name.type == "dotted_name"
                      and "." not in parsing.text(name)]
        elif statement.type == "import_from_statement":
            source = statement.child_by_field_name("module_name")
            if source is not None and parsing.text(source) == ".":
                found += [(parsing.text(name), statement.start_point.row + 1)
                          for name in statement.children_by_field_name("name") if name.type == "dotted_name"]
    return found
