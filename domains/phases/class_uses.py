"""How a Python file's module-level classes use names: in which methods, what they subclass, which methods they
override, and which names the file writes only as a base class (analyzer/context/overridden_methods.py reads them).

BasicSR's `ModulatedDeformConvPack.forward` calls `modulated_deform_conv` (an autograd Function's `apply`), and the
only class the project creates from it, `DCNv2Pack(ModulatedDeformConvPack)`, defines its own `forward` without
calling `super()`: the base method never runs, so the Function is not reached through it. The words are matched as
symbols.py matches them (whole words of the text, comments and strings included), so a name written anywhere else
counts as a use: the reading errs towards `runs`."""

from __future__ import annotations

import bisect
from collections.abc import Callable

import ahocorasick_rs
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, NAME_BYTES
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from ascend_feasibility.analyzer.reading.source import decode_python
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases.symbols import OTHER_SPACES, import_froms, unit_statements
from tree_sitter import Node

NEUTRAL, BASE = "neutral", "base"  # an import or `__all__`; a base class list


def class_shapes(unit: Unit) -> list[tuple[str, list[str], list[str]]]:
    """The class_shapes of a file alone (class_uses' second list): what every file keeps; the other two lists are
    read at project time, for the few files the project pass asks about (PhaseFacts.uses_later, later_uses)."""
    read = _classes(unit)
    return read[1] if read is not None else []


def later_uses(path: str, source: Callable[[str], bytes | None] | None
               ) -> tuple[list[tuple[str, str, list[str]]], list[str]]:
    """(method_users, base_only) of a Python file whose facts held them back (PhaseFacts.uses_later), read at project
    time from `source(path)`: the bytes the scan read (checked against their content hash). Where those bytes are no
    longer to be had, or the reading fails, none: what keeps every class of the file reached (overridden_methods)."""
    data = source(path) if source is not None else None
    if data is None:
        return [], []
    unit = Unit(path, "python", decode_python(data))
    try:
        method_users, _, base_only = class_uses(unit)
    except Exception:  # noqa: BLE001 - a reader's failure at project time must not lose the report: nothing decided
        return [], []
    finally:
        unit.release_tree()
    return method_users, base_only


def class_uses(unit: Unit) -> tuple[list[tuple[str, str, list[str]]], list[tuple[str, list[str], list[str]]], list[str]]:
    """(method_users, class_shapes, base_only) of a file:
    - method_users: (name, class, methods) for a name the file's module-level class writes only inside those methods
      (a module-level name of the file or one it imports);
    - class_shapes: (class, its bases' last names, the methods it defines that neither call `super` nor name a base);
    - base_only: the file's own classes and the names it imports that it writes nowhere but in base class lists,
      imports, `__all__` and the class's own statement (`super(C, self)`): nothing here creates them."""
    read = _classes(unit)
    if read is None:
        return [], [], []
    module, shapes, own_classes, zones = read
    imported: set[str] = set()
    for statement, kind, head in zip(module.statements, module.kinds, module.heads, strict=True):
        for node in import_froms(statement, kind):
            zones.append((node.start_byte, node.end_byte, NEUTRAL, ""))
            for item in node.children_by_field_name("name"):
                alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                imported.add(parsing.text(alias if alias is not None else item).split(".")[-1])
        if head is not None and head.type == "assignment" and kind == "expression_statement":
            left = head.child_by_field_name("left")
            if left is not None and parsing.text(left) == "__all__":
                zones.append((statement.start_byte, statement.end_byte, NEUTRAL, ""))
    own = {name: statement for name, statement in own_classes}
    names = sorted(name for name in imported | set(own) | _module_names(module) if len(name) >= MIN_NAME)
    if not names:
        return [], shapes, []
    classes_by_start = sorted((statement.start_byte, statement.end_byte, name) for name, statement in own_classes)
    class_starts = [start for start, _, _ in classes_by_start]
    zones.sort()
    zone_starts = [start for start, _, _, _ in zones]
    automaton = ahocorasick_rs.BytesAhoCorasick([f" {name} ".encode("utf-8", "replace") for name in names])
    haystack = b" " + unit.source.data.translate(NAME_BYTES) + b" "
    methods: dict[tuple[str, str], set[str]] = {}
    class_level: set[tuple[str, str]] = set()  # (name, class) written in the class outside its methods
    creating: set[str] = set()  # names written somewhere that is no base list, import, `__all__` or own statement
    for index, start, end in automaton.find_matches_as_indexes(haystack, overlapping=True):
        name = names[index]
        holder = bisect.bisect_right(class_starts, start) - 1
        holder_class = classes_by_start[holder][2] if holder >= 0 and end - 2 <= classes_by_start[holder][1] else None
        zone = _innermost(zones, zone_starts, start, end)
        kind = zone[2] if zone is not None else None
        if holder_class is not None and holder_class != name:
            if kind is not None and kind.startswith("method:") and zone[3] == holder_class:
                methods.setdefault((name, holder_class), set()).add(kind[len("method:"):])
            else:
                class_level.add((name, holder_class))
        if kind in {NEUTRAL, BASE} or holder_class == name:
            continue
        creating.add(name)
    method_users = sorted((name, holder, sorted(found)) for (name, holder), found in methods.items()
                          if (name, holder) not in class_level)
    base_only = sorted(name for name in names if name not in creating and (name in own or name in imported))
    return method_users, shapes, base_only


def _classes(unit: Unit) -> tuple[ModuleStatements, list[tuple[str, list[str], list[str]]], list[tuple[str, Node]],
                                  list[tuple[int, int, str, str]]] | None:
    """The file's module-level classes: (its statements, the class shapes, (name, statement) of each class, the zones
    of their methods and base lists), or None where class_uses reads nothing (no class, a syntax error, a text with
    other spaces)."""
    module = unit_statements(unit)
    if not module.classes:
        return None
    text = unit.source.text
    if unit.tree().has_error or (not text.isascii() and any(space in text for space in OTHER_SPACES)):
        return None
    zones: list[tuple[int, int, str, str]] = []  # (start, end, kind, class): methods, bases, imports
    shapes = []
    own_classes = []
    for statement, definition in module.classes:
        name_node = definition.child_by_field_name("name")
        if name_node is None:
            continue
        name = parsing.text(name_node)
        own_classes.append((name, statement))
        bases = []
        superclasses = definition.child_by_field_name("superclasses")
        for argument in superclasses.named_children if superclasses is not None else []:
            if argument.type in {"identifier", "attribute"}:
                bases.append(parsing.text(argument).rsplit(".", 1)[-1])
                zones.append((argument.start_byte, argument.end_byte, BASE, name))
        overriding = []
        body = definition.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            function = _method(member)
            method = function.child_by_field_name("name") if function is not None else None
            if method is None:
                continue
            zones.append((member.start_byte, member.end_byte, "method:" + parsing.text(method), name))
            words = set(member.text.translate(NAME_BYTES).split())
            called = parsing.text(method)
            if b"super" not in words and not words & {base.encode("utf-8", "replace") for base in bases} \
                    and not (member.text.count(called.encode("utf-8", "replace")) > 1 and _calls_named(function, called)):
                overriding.append(called)
        shapes.append((name, bases, overriding))
    return module, shapes, own_classes, zones


def _calls_named(function: Node, method: str) -> bool:
    """Does the method call `Name.<method>(...)` (a grandparent's `ModulatedDeformConv.forward(self, x)`)? A walk too
    large to finish counts as such a call."""
    try:
        for node in parsing.walk(function, limit=20_000, strict=True):
            if node.type == "call":
                callee = node.child_by_field_name("function")
                owner = callee.child_by_field_name("object") if callee is not None and callee.type == "attribute" else None
                if owner is not None and owner.type == "identifier" and parsing.text(owner) not in {"self", "cls"} \
                        and parsing.text(callee.child_by_field_name("attribute")) == method:
                    return True
    except parsing.WalkLimit:
        return True
    return False


def _method(member: Node) -> Node | None:
    if member.type == "function_definition":
        return member
    if member.type == "decorated_definition":
        inner = member.child_by_field_name("definition")
        return inner if inner is not None and inner.type == "function_definition" else None
    return None


def _module_names(module: ModuleStatements) -> set[str]:
    """The names the module's own top-level definitions and plain assignments bind."""
    names = set()
    for definition in module.definitions:
        name = definition.child_by_field_name("name") if definition is not None else None
        if name is not None:
            names.add(parsing.text(name))
    for _, assignment in module.assignments:
        left = assignment.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            names.add(parsing.text(left))
    return names


def _innermost(zones: list[tuple[int, int, str, str]], starts: list[int], start: int, end: int):
    """The zone holding the match (zones do not overlap: methods, base lists, imports), else None."""
    index = bisect.bisect_right(starts, start) - 1
    return zones[index] if index >= 0 and end - 2 <= zones[index][1] else None
