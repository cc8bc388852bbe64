"""Which scanners' trigger words a unit's text holds, found in one pass for all scanners.

Each scanner names a few words (`cuda`, `nccl`, `float64`) and only reads a unit whose text contains one of them;
most files of a large tree contain none. Asking `word in text` for each of ~90 words scanned the text ~90 times;
an Aho-Corasick automaton (pyahocorasick) over every scanner's words reads it once.
"""

from __future__ import annotations

import functools

import ahocorasick

_words: frozenset[str] = frozenset()  # every scanner class's triggers (Scanner.__init_subclass__ adds them)


def register(words: tuple[str, ...]) -> None:
    global _words
    _words = _words.union(w for w in words if w)


@functools.cache
def _automaton(words: frozenset[str]) -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    for word in words:
        automaton.add_word(word, word)
    automaton.make_automaton()
    return automaton


def present(text: str, cache: dict) -> frozenset[str]:
    """The registered words that occur in `text` (kept in the unit's `cache` for the other scanners)."""
    words = _words
    found = cache.get("triggers")
    if found is None or found[0] != words:
        seen = {word for _, word in _automaton(words).iter(text)} if words and text else set()
        found = cache["triggers"] = (words, frozenset(seen))
    return found[1]
