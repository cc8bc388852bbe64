"""Which scanners' trigger words a unit's text holds, found in one pass for all scanners.

Each scanner names a few words (`cuda`, `nccl`, `float64`) and only reads a unit whose text contains one of them;
most files of a large tree contain none. Asking `word in text` for each of ~90 words scanned the text ~90 times
(200 us for a 6 KB module); an Aho-Corasick automaton over every scanner's words (ahocorasick-rs) reads it once
(10 us).
"""

from __future__ import annotations

import functools

import ahocorasick_rs

_words: frozenset[str] = frozenset()  # every scanner class's triggers (Scanner.__init_subclass__ adds them)


def register(words: tuple[str, ...]) -> None:
    global _words
    _words = _words.union(w for w in words if w)


@functools.cache
def _automaton(words: frozenset[str]) -> ahocorasick_rs.AhoCorasick:
    return ahocorasick_rs.AhoCorasick(sorted(words), matchkind=ahocorasick_rs.MatchKind.Standard)


def present(text: str, cache: dict) -> frozenset[str]:
    """The registered words that occur in `text` (kept in the unit's `cache` for the other scanners)."""
    words = _words
    found = cache.get("triggers")
    if found is None or found[0] is not words:  # words registered since: read again
        seen = _automaton(words).find_matches_as_strings(text, overlapping=True) if words and text else ()
        found = cache["triggers"] = (words, frozenset(seen))
    return found[1]
