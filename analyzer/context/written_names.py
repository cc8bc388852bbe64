"""The words a file writes, kept as one string per file, and which files write which of a few names.

A file's words (domains/phases/symbols.py reads them from code, strings, comments, shell, YAML, JSON and build files)
are asked about only at the project level, and only for a few names: the symbols nothing seems to name
(unreferenced.py) and the native sources' file names (unbuilt.py). So each file keeps its words as one string, every
word between two spaces (` fuse_adam  load_model `): cheap to send from a worker and to cache, and one Aho-Corasick
automaton of the asked names, each between spaces, finds whole words only, in every file in one pass each."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

import ahocorasick_rs

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

# ModuleFacts.inner_named's user standing for the module's top-level `if __name__ == "__main__":` block: a symbol
# named only there (and in other module-level definitions) is unreached where that block is a library's self-test
# (analyzer/context/unreferenced.py; domains/phases/symbols.py lists it)
MAIN_BLOCK_USER = "__main__"
# the prefix of ModuleFacts.inner_named's users standing for an arm that never runs (function_objects.dead_arms: after
# `if is_xformers_available:`), followed by why: a symbol named only there is unreached (unreferenced.py)
DEAD_ARM_USER = "dead arm: "


PROSE_SUFFIXES = (".md", ".rst", ".txt")  # files whose words call or build nothing: prose
MIN_NAME = 4  # shorter names (`fn`, `run`) are too common to judge by; so is a name that starts with a digit
# bytes.translate table turning every byte but a name's into a space (runs at memory speed; UTF-8 bytes of non-ASCII
# letters are kept, so names stay whole)
NAME_BYTES = bytes(c if c >= 128 or chr(c).isalnum() or chr(c) == "_" else 32 for c in range(256))


def word_string(words: set[str]) -> str:
    """The words as one string, sorted (a cached entry must not depend on the process's string hashing)."""
    return f" {'  '.join(sorted(words))} " if words else ""


def plain_words(data: bytes) -> set[bytes]:
    """The names a text's UTF-8 bytes write that words are asked about (MIN_NAME or longer, no leading digit)."""
    return {word for word in set(data.translate(NAME_BYTES).split()) if len(word) >= MIN_NAME and not word[:1].isdigit()}


def word_string_of_bytes(words: set[bytes]) -> str:
    """word_string of UTF-8 words, decoded once: byte order is code point order in UTF-8, so the string is the same."""
    return (b" " + b"  ".join(sorted(words)) + b" ").decode("utf-8", "replace") if words else ""


def writes_word(written: str, word: str) -> bool:
    """Is `word` (no spaces) one of the words of `written`, a word_string?"""
    return f" {word} " in written


def writes_any(written: str, words) -> bool:
    return any(f" {word} " in written for word in words)


def word_set(written: str) -> set[str]:
    return {word for word in written.split(" ") if word}  # a word may hold other spaces than " " (U+00A0)


def writers(names: Iterable[str], facts: list[ModuleFacts]) -> dict[str, set[str]]:
    """name → the paths of the files that write it as a whole word. A name shorter than MIN_NAME or starting with a
    digit is never found, nor is one holding a " " (no word does)."""
    asked = sorted({name for name in names if len(name) >= MIN_NAME and not name[0].isdigit() and " " not in name})
    found: dict[str, set[str]] = defaultdict(set)
    if not asked:
        return found
    automaton = ahocorasick_rs.AhoCorasick([f" {name} " for name in asked])
    for f in facts:
        if f.words:
            for index, _, _ in automaton.find_matches_as_indexes(f.words):
                found[asked[index]].add(f.path)
    return found
