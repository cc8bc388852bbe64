"""One tree-sitter query run per Python unit for all the domains that need it.

Each domain registers its query under a key, and the first domain that asks runs one combined query of every key:
walking a tree once for eight sets of patterns costs about half of walking it eight times, and one query compiled
once per process costs less than a query per distinct set of keys (a tree like diffusers meets two hundred sets, each
a compile of about 15 ms). Patterns registered as *gated* (text predicates that can only hold where the unit spells a
word: PythonScan.GATED) are left out of it; the unit's plan names the gated keys whose words it holds, and those run
together in a second query, over the words' occurrences only (every capture of a gated pattern spells one of its
words, so the rest of the tree cannot hold one). That query holds every gated pattern, so it is compiled once per
process whatever set of gated keys a unit asks for (a set per unit cost a compile of about 4 ms each, sixty a run). Patterns registered *alone* (a scan that runs only in the few units holding its trigger
words, yet captures most identifiers where it runs) are matched by themselves, only in the units that ask. Capture names are prefixed with the key, so each domain gets back exactly its own
captures.

A key's *filters* name captures picked from another of its captures by a test of their text, in place of a `#match?`
predicate on a node kind that every unit holds by the hundred (string contents): the binding evaluates a predicate per
candidate through a Python call on a decoded copy of its text, which cost more than the rest of the query's patterns
together; a test here runs over the bytes once per node. A test sees the text as `#match?` does (up to a NUL byte).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node, Query

_PARTS: dict[str, str] = {}
_CAPTURE = re.compile(r"@([A-Za-z_][\w\-]*)")


_GATED: dict[str, frozenset[bytes]] = {}  # gated key -> the words one of which each of its captures spells
_ALONE: set[str] = set()
_FILTERS: dict[str, dict[str, tuple[str, Callable[[bytes], bool]]]] = {}  # key -> {name: (capture, test of its text)}
# Keys of scanners' patterns (PythonScan.QUERY): only a scanner that wants the unit (its trigger words) asks for one,
# and _hits plans it. A unit whose plan holds none (most units of a large tree: no scanner's trigger word) runs the
# combined query without them, a second query of every reader's key compiled once; a scan key asked after all (none
# is, today, outside the plan) runs in a query of its own then. Each key's captures are its own patterns' whatever
# else the query holds, so this changes no capture.
_SCANS: set[str] = set()


def register(key: str, source: str, gate: tuple[str, ...] = (), alone: bool = False,
             filters: dict[str, tuple[str, Callable[[bytes], bool]]] | None = None, scan: bool = False) -> str:
    if "." in key:
        raise ValueError(f"query key {key!r} must not contain '.'")
    if _PARTS.get(key, source) != source:
        raise ValueError(f"query key {key!r} registered twice with different patterns")
    _PARTS[key] = source
    if filters:
        _FILTERS[key] = filters
    if gate:
        _GATED[key] = frozenset(word.encode("utf-8") for word in gate)
    if alone:
        _ALONE.add(key)
    if scan:
        _SCANS.add(key)
    return key


def plan(unit, keys: set[str]) -> None:
    """The keys this unit will ask for: the gated ones among them are matched together."""
    unit.cache["query_keys"] = set(keys)


def unit_captures(unit, key: str) -> dict[str, list[Node]]:
    """The captures of `key`'s patterns over the unit's tree, each list in source order."""
    done = unit.cache.setdefault("captures", {})
    if key not in done:
        if key in _ALONE:
            keys = frozenset({key})
        elif key in _GATED:
            keys = frozenset(({key} | unit.cache.get("query_keys", set())) & _GATED.keys() - set(done))
        else:
            keys = frozenset(_PARTS.keys() - _GATED.keys() - _ALONE - set(done))
            planned = unit.cache.get("query_keys")
            if key not in _SCANS and planned is not None and planned.isdisjoint(_SCANS):
                keys -= _SCANS  # no scanner reads this unit: its patterns need not be matched (_SCANS)
        for name in keys:
            done[name] = {}
        if key in _GATED:
            # one query of every gated pattern, compiled once, over the asked keys' words: each capture of an asked
            # key spells one of its words, so it lies in those ranges whatever else the query holds; the other keys'
            # captures there are dropped (their own words' ranges were not all visited)
            words = frozenset().union(*(_GATED[name] for name in keys))
            found = parsing.captures_around(_combined(frozenset(_GATED)), unit.tree(), words)
        else:
            found = parsing.captures(_combined(keys), unit.tree())
        for name, nodes in found.items():
            part, _, capture = name.partition(".")
            if part in keys:
                done[part][capture] = nodes
        for name in keys & _FILTERS.keys():
            filtered(done[name], _FILTERS[name], unit.tree())
    return done[key]


def filtered(found: dict[str, list[Node]], filters: dict[str, tuple[str, Callable[[bytes], bool]]], root: Node) -> None:
    """Adds to `found` each filter's captures: the nodes of its capture whose text passes its test, in source order
    (a name none passes stays absent, as a predicate's capture would)."""
    data = root.text or b""
    offset = root.start_byte
    picks: dict[str, list[Node]] = {name: [] for name in filters}
    by_capture: dict[str, list[tuple[Callable[[bytes], bool], list[Node]]]] = {}
    for name, (capture, test) in filters.items():
        by_capture.setdefault(capture, []).append((test, picks[name]))
    for capture, tests in by_capture.items():  # each node's text is sliced once for all the tests of its capture
        for node in found.get(capture, ()):
            text = data[node.start_byte - offset:node.end_byte - offset]
            if b"\0" in text:
                text = text.partition(b"\0")[0]
            for test, picked in tests:
                if test(text):
                    picked.append(node)
    for name, picked in picks.items():
        if picked:
            found[name] = picked


@functools.cache
def _combined(keys: frozenset[str]) -> Query:
    return parsing.query("python", "\n".join(_CAPTURE.sub(rf"@{key}.\1", _PARTS[key]) for key in sorted(keys)))
