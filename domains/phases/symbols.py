"""Module-level functions and classes a Python file defines and never names again, and the words every file writes
(Python, shell, YAML, JSON, build files): the project pass (analyzer/context/unreferenced.py) keeps such a symbol
wherever any other file writes its name.

The words are read from the text, not the syntax tree, on purpose: a name in a comment, a docstring, a YAML `target:`,
a Makefile or a shell line keeps the symbol too. Reading more than code only ever keeps more, so the test errs towards
`runs`."""

from __future__ import annotations

from collections import Counter

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit

MIN_NAME = 4  # shorter names (`fn`, `run`) are too common to judge by
DEFINITIONS = {"function_definition": "function", "class_definition": "class"}
# byte tables (bytes.translate runs at memory speed; UTF-8 bytes of non-ASCII letters are kept, so names stay whole)
_SPACES = bytes(c if c >= 128 or chr(c).isalnum() or chr(c) == "_" else 32 for c in range(256))
_DOTTED = bytes(c if c >= 128 or chr(c).isalnum() or chr(c) in "_." else 32 for c in range(256))


def _split(text: str, table: bytes) -> set[str]:
    return {w.decode("utf-8", "replace") for w in set(text.encode("utf-8", "replace").translate(table).split())}


def _tokens(text: str) -> list[str]:
    return text.encode("utf-8", "replace").translate(_SPACES).decode("utf-8", "replace").split()


def words(text: str) -> set[str]:
    """The identifier-like words of a text (runs of letters, digits and `_`) at least MIN_NAME long."""
    return {w for w in _split(text, _SPACES) if len(w) >= MIN_NAME and not w[0].isdigit()}


def dotted_words(text: str) -> set[str]:
    """The dotted names of three parts or more a text writes (`"_target_": "llava.model.encoders.BasicImageEncoder"` in
    a string, a YAML `target:`), but attribute chains on `self`: the modules a config or registry may load by name."""
    found = set()
    for word in {w.strip(".") for w in _split(text, _DOTTED) if w.count(".") >= 2}:
        parts = word.split(".")
        if len(parts) >= 3 and parts[0] != "self" and all(p and not p[0].isdigit() for p in parts):
            found.add(word)
    return found


LOOKUP_CALLS = frozenset({"globals", "Fire", "getmembers"})  # globals()[name], fire.Fire(), inspect.getmembers(module)
_CALLED = "(call function: [(identifier) @called (attribute attribute: (identifier) @called)])"


def _looks_names_up(unit: Unit) -> bool:
    """Whether the file may find its own functions by name at run time."""
    if not any(name in unit.source.text for name in LOOKUP_CALLS):
        return False  # a call of one spells its name: most files need no query
    called = parsing.captures(parsing.query("python", _CALLED), unit.tree()).get("called", [])
    return any(parsing.text(node) in LOOKUP_CALLS for node in called)


def unnamed_symbols(unit: Unit) -> list[tuple[str, int, int, str]]:
    """Undecorated module-level functions and classes whose name the file writes nowhere but in its definition:
    (name, first line, last line, "function" or "class"). A decorator may register the symbol, so those are left out,
    and so is every symbol of a file that looks names up (`globals()`, `fire.Fire()`, `inspect.getmembers`)."""
    found = []
    for statement in unit.tree().named_children:
        kind = DEFINITIONS.get(statement.type)
        name = statement.child_by_field_name("name") if kind else None
        if name is None or name.type != "identifier":
            continue
        text = parsing.text(name)
        if len(text) >= MIN_NAME and not text.startswith("__"):
            found.append((text, statement.start_point.row + 1, statement.end_point.row + 1, kind, statement))
    if not found or _looks_names_up(unit):
        return []
    counts = Counter(_tokens(unit.source.text))
    # its own body may name it (`super(AsyncHybridAttention, self).__init__()`, a recursive call): that reaches nothing
    inside: Counter[str] = Counter()
    for name, _, _, _, statement in found:
        inside[name] += _tokens(parsing.text(statement)).count(name)
    return [(name, start, end, kind) for name, start, end, kind, _ in found if counts[name] <= inside[name]]
