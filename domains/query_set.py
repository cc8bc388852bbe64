"""One tree-sitter query run per Python unit for all the domains that need it.

Each domain registers its query under a key; before a unit is scanned the file worker plans which keys the unit
needs (the scanners whose triggers matched, the fact collectors), and the first domain that asks runs one
combined query for all of them: walking a tree once for eight sets of patterns costs about half of walking it
eight times. Capture names are prefixed with the key, so each domain gets back exactly its own captures.
"""

from __future__ import annotations

import functools
import re

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node, Query

_PARTS: dict[str, str] = {}
_CAPTURE = re.compile(r"@([A-Za-z_][\w\-]*)")


def register(key: str, source: str) -> str:
    if "." in key:
        raise ValueError(f"query key {key!r} must not contain '.'")
    if _PARTS.get(key, source) != source:
        raise ValueError(f"query key {key!r} registered twice with different patterns")
    _PARTS[key] = source
    return key


def plan(unit, keys: set[str]) -> None:
    """The keys this unit will ask for; they are answered by one query."""
    unit.cache["query_keys"] = set(keys)


def unit_captures(unit, key: str) -> dict[str, list[Node]]:
    """The captures of `key`'s patterns over the unit's tree, each list in source order."""
    done = unit.cache.setdefault("captures", {})
    if key not in done:
        keys = frozenset(({key} | unit.cache.get("query_keys", set())) - set(done))
        if 2 * len(keys) > len(_PARTS):
            # Most of the patterns: run them all. Every distinct set of keys is a query to compile (about 10 ms a
            # key), and a large tree meets over a hundred sets; the few extra patterns cost less to match.
            keys = frozenset(_PARTS) - set(done)
        for name in keys:
            done[name] = {}
        for name, nodes in parsing.captures(_combined(keys), unit.tree()).items():
            part, _, capture = name.partition(".")
            done[part][capture] = nodes
    return done[key]


@functools.cache
def _combined(keys: frozenset[str]) -> Query:
    return parsing.query("python", "\n".join(_CAPTURE.sub(rf"@{key}.\1", _PARTS[key]) for key in sorted(keys)))
