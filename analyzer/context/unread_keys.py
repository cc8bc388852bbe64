"""A device or backend literal held by a dict entry whose key no code of the project reads: editing it changes nothing
that runs, so its finding is `cosmetic` at info.

Amphion's vendored HiFi-GAN hyper-parameters carry `"dist_config": {"dist_backend": "nccl", ...}`, and nothing in the
tree reads `dist_config` or `dist_backend` (round 26 A1 3): the value never reaches a process group.

Per file (`entries`, Python only): the lines of dict entries `"key": "string"` whose key is written nowhere else in the
file (no `cfg["key"]`, `cfg.key`, `.get("key")`, `getattr(cfg, "key")`, `key=` keyword, nor another string or name
spelling it), in a file that unpacks no mapping with `**` (a `**cfg` hands every key to a callee that may take it by
name). A line holding another string entry whose key the file does read is not taken. Per project (`unread`): an entry
whose key no other file of the project writes as a word (code, configs, shell, docs) is unread.
"""

from __future__ import annotations

from collections import Counter

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

PAIRS = "(pair key: (string) @key value: (string) @value)"
WORDS = "[(identifier) @word (string_content) @word]"
MAX_PAIRS = 500
UNREAD = "no code of the project reads the key"  # the end of `unread`'s reasons


def entries(root: Node, text: str) -> list[tuple[int, str]]:
    """(line, key) of the file's string-valued dict entries whose key the file spells only there."""
    if "**" in text and _splats(root):
        return []
    pairs = parsing.captures(parsing.query("python", PAIRS), root).get("key", [])[:MAX_PAIRS]
    if not pairs:
        return []
    spelled = Counter(parsing.text(word) for word in parsing.captures(parsing.query("python", WORDS), root).get("word", []))
    unread: dict[int, str] = {}
    read: set[int] = set()
    for key in pairs:
        name = "".join(parsing.text(c) for c in key.named_children if c.type == "string_content")
        line = key.start_point.row + 1
        if len(name) >= MIN_NAME and name.isidentifier() and spelled[name] == 1:
            unread.setdefault(line, name)
        else:
            read.add(line)
    return sorted((line, name) for line, name in unread.items() if line not in read)


def unread(facts) -> dict[tuple[str, int], str]:
    """(path, line) → why the dict entry there is read by nothing."""
    asked = {name for f in facts for _, name in f.unread_keys}
    if not asked:
        return {}
    written = writers(asked, facts)
    return {(f.path, line): f"`{name}` is written only here: {UNREAD}"
            for f in facts for line, name in f.unread_keys if not written.get(name, set()) - {f.path}}


def _splats(root: Node) -> bool:
    return bool(parsing.captures(parsing.query("python", "(dictionary_splat) @splat"), root).get("splat"))
