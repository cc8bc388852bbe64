"""The prose of a Python file: comments, bare string statements (docstrings) and the sentences its code only shows
(a log, print, warning or raise message). A name written there calls, builds and looks up nothing: StableSR's
basicsr/train.py writing `SRModel` in a log sentence, a `# model = BasicVSRPlusPlus(...)` line commented out, a
docstring naming `StyleGAN2Generator` (round 32 A1 rows 10, 38, 40; B1 rows 7, 24). The word index
(symbols.read_words, via facts.collect) and a file's own names (symbols.module_symbols) read the text with it blanked.

A shown string counts as prose only where it holds a space: a bare identifier-like string (`'SRModel'`) may be the
name a registry or `getattr` looks up, wherever it is written, and stays a use. Other strings (a shell line, a YAML
text, a dotted path) are never blanked."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import Unit
from tree_sitter import Node

# run in the one combined walk of the unit's tree (domains.query_set): a walk of its own cost Megatron-LM 2 % more CPU
PROSE_KEY = query_set.register("prose", """
(comment) @prose
(expression_statement . (string) @prose .)
(argument_list (string) @shown)
(argument_list (concatenated_string) @shown)
(argument_list (binary_operator left: (string) @shown))
(argument_list (binary_operator left: (concatenated_string) @shown))
(assert_statement (_) (string) @asserted .)
""")


def _message_calls() -> tuple[frozenset[str], tuple[str, ...]]:
    from ascend_feasibility.knowledge import load_context_conventions
    guards = load_context_conventions().guards
    return frozenset(guards.message_calls), tuple(guards.message_call_prefixes)


def _shown(argument: Node, calls: frozenset[str], prefixes: tuple[str, ...]) -> bool:
    """Is the string argument (directly, or the left side of `%`/`+`) a message: of a call that only shows its
    arguments (conventions guards.message_calls: print, logger.info, warnings.warn ...) or of the exception a `raise`
    builds?"""
    node = argument.parent
    if node is not None and node.type == "binary_operator":
        node = node.parent
    call = node.parent if node is not None else None
    if call is None or call.type != "call":
        return False
    if call.parent is not None and call.parent.type == "raise_statement":
        return True
    name = parsing.callee_name(call)
    return name is not None and (name in calls or name.startswith(prefixes))


def _sentence_parts(string: Node) -> list[Node]:
    """The text parts of a string (an f-string's, concatenated strings' too; never its `{...}` code), where the text
    holds a space: a sentence, not a name."""
    strings = string.named_children if string.type == "concatenated_string" else [string]
    parts = [part for s in strings for part in s.named_children if part.type == "string_content"]
    return parts if any(b" " in (part.text or b"") for part in parts) else []


def prose_nodes(unit: Unit) -> list[Node]:
    """The comments, bare string statements and shown sentences of the unit (module prose), memoised per unit."""
    found = unit.cache.get("prose_nodes")
    if found is not None:
        return found
    data = unit.source.data
    if b"#" not in data and b'"' not in data and b"'" not in data:
        unit.cache["prose_nodes"] = []
        return []
    captured = query_set.unit_captures(unit, PROSE_KEY)
    found = captured.get("prose", []) + [part for node in captured.get("asserted", []) for part in _sentence_parts(node)]
    shown = captured.get("shown", [])
    if shown:
        calls, prefixes = _message_calls()
        found += [part for node in shown if _shown(node, calls, prefixes) for part in _sentence_parts(node)]
    unit.cache["prose_nodes"] = found
    return found


def without_prose(unit: Unit) -> bytes:
    """The unit's bytes with its prose blanked (offsets kept), memoised per unit."""
    found = unit.cache.get("without_prose")
    if found is None:
        found = unit.cache["without_prose"] = parsing.blanked(unit.source.data, prose_nodes(unit))
    return found
