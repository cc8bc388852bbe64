"""Plugin registries of an application: string tables whose keys name the modules it imports by name.

An evaluation harness or a command-line tool loads its plugins one per run, chosen by a string: lmms-eval's
`AVAILABLE_SIMPLE_MODELS = {"llava": "Llava", "qwen2_5_vl": "Qwen2_5_VL", ...}` is turned into
`lmms_eval.models.simple.<key>.<Class>` and loaded with `importlib.import_module`. The reader takes every
module-level `NAME = {...}` literal of at least MIN_KEYS entries whose keys and values are all plain strings (no
f-string, no concatenation) and whose keys are identifiers, and notes whether a file loads modules by name
(`import_module(`, `__import__(`): the table and the loader may sit in different files of one package (lmms-eval's
models/__init__.py and registry_v2.py), and a table counts only in a package that has such a loader. The judge finds, inside the same
top package, the folder most of whose module stems are such keys (MIN_KEYS at least): the registry's plugin folder.
A module of that folder whose stem the table holds is loaded by the registry; one it does not hold is loaded by no
route but an import. A table of settings (`{"fp16": "float16", ...}`) names no folder's stems and has no folder.

Only an application's package is judged by it (unloaded.registry_applications): one the project runs as a program
(`__main__.py` or a console script) and that loads its plugins through such a table. A library whose users import it
module by module (no program of its own) keeps every module public whatever tables it holds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MIN_KEYS = 3  # fewer entries are a small mapping, not a plugin table
MAX_TABLES = 20
BY_NAME = ("import_module(", "__import__(")  # how a file loads a module named by a string


def string_tables(tree: Node) -> list[list[str]]:
    """The keys of each module-level `NAME = {...}` dict literal of strings to strings."""
    tables: list[list[str]] = []
    for statement in tree.named_children:
        assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        table = assignment.child_by_field_name("right") if assignment is not None and assignment.type == "assignment" else None
        if table is None or table.type != "dictionary":
            continue
        pairs = [c for c in table.named_children if c.type != "comment"]
        if len(pairs) < MIN_KEYS or any(p.type != "pair" for p in pairs):
            continue
        keys = []
        for pair in pairs:
            word = _plain(pair.child_by_field_name("key"))
            if word is None or not word.isidentifier() or _plain(pair.child_by_field_name("value")) is None:
                break
            keys.append(word)
        else:
            tables.append(keys)
            if len(tables) == MAX_TABLES:
                break
    return tables


def loads_by_name(text: str) -> bool:
    """Does the file load a module named by a string (`importlib.import_module(path)`, `__import__(path)`)?"""
    return any(call in text for call in BY_NAME)


def _plain(node: Node | None) -> str | None:
    """The text of a plain string literal (no interpolation, no concatenation), None for anything else."""
    if node is None or node.type != "string":
        return None
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    if any(c.type != "string_content" for c in parts) or len(parts) > 1:
        return None
    return parsing.text(parts[0]) if parts else ""


def plugin_folders(tables: Iterable[list[str]], stems: dict[str, set[str]]) -> dict[str, set[str]]:
    """Folder → the stems of its modules a table names, for each folder (of `stems`: folder → its module stems) where
    one table names MIN_KEYS of its modules' stems or more and more than half of them."""
    found: dict[str, set[str]] = defaultdict(set)
    for keys in tables:
        named = set(keys)
        for folder, inside in stems.items():
            hits = inside & named
            if len(hits) >= MIN_KEYS and 2 * len(hits) > len(inside):
                found[folder] |= hits
    return dict(found)
