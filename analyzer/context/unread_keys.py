"""A device or backend literal held by a dict entry whose key no code of the project reads: editing it changes nothing
that runs, so its finding is `cosmetic` at info.

Amphion's vendored HiFi-GAN hyper-parameters carry `"dist_config": {"dist_backend": "nccl", ...}`, and nothing in the
tree reads `dist_config` or `dist_backend` (round 26 A1 3): the value never reaches a process group.

Per file (`entries`, Python only): the lines of dict entries `"key": "string"` nested in an entry `"outer": {...}`, where
the file spells neither key anywhere else (no `cfg["key"]`, `cfg.key`, `.get("key")`, `getattr(cfg, "key")`, `key=`
keyword, nor another string or name), in a file that unpacks no mapping with `**`. A `**cfg` hands every key to a
callee that may take it by name; a top-level entry may be so unpacked in another file (`init_process_group(**DIST)`),
while a nested one is reached only by its outer key's name. A line holding another string entry whose key the file
does read is not taken. Per project (`unread`): an entry neither of whose keys another file of the project writes as a
word (code, configs, shell, docs) is unread.
"""

from __future__ import annotations

from collections import Counter

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

PAIRS = "(pair key: (string) @key value: (string) @value)"
WORDS = "[(identifier) @word (string_content) @word]"
MAX_PAIRS = 500
SPLAT_WORDS = frozenset({b"**"})
UNREAD = "no code of the project reads the key"  # the end of `unread`'s reasons


def entries(root: Node, text: str) -> list[tuple[int, str]]:
    """(line, "outer.key") of the file's nested string-valued dict entries whose keys the file spells only there."""
    if "**" in text and _splats(root):
        return []
    pairs = parsing.captures(parsing.query("python", PAIRS), root).get("key", [])[:MAX_PAIRS]
    if not pairs:
        return []
    spelled = Counter(parsing.text(word) for word in parsing.captures(parsing.query("python", WORDS), root).get("word", []))
    unread: dict[int, str] = {}
    read: set[int] = set()
    for key in pairs:
        name, line = _name(key), key.start_point.row + 1
        outer = _outer_key(key)
        if _once(name, spelled) and outer is not None and _once(_name(outer), spelled):
            unread.setdefault(line, f"{_name(outer)}.{name}")
        else:
            read.add(line)
    return sorted((line, name) for line, name in unread.items() if line not in read)


def unread(facts) -> dict[tuple[str, int], str]:
    """(path, line) → why the dict entry there is read by nothing."""
    asked = {name for f in facts for _, keys in f.unread_keys for name in keys.split(".")}
    if not asked:
        return {}
    written = writers(asked, facts)
    return {(f.path, line): f"`{keys.split('.')[-1]}` (under `{keys.split('.')[0]}`) is written only here: {UNREAD}"
            for f in facts for line, keys in f.unread_keys
            if not any(written.get(name, set()) - {f.path} for name in keys.split("."))}


def _name(key: Node) -> str:
    return "".join(parsing.text(c) for c in key.named_children if c.type == "string_content")


def _once(name: str, spelled: Counter) -> bool:
    return len(name) >= MIN_NAME and name.isidentifier() and spelled[name] == 1


def _outer_key(key: Node) -> Node | None:
    """The string key of the entry whose value is the dict holding this entry's key, or None."""
    pair = key.parent
    dictionary = pair.parent if pair is not None else None
    outer = dictionary.parent if dictionary is not None and dictionary.type == "dictionary" else None
    found = outer.child_by_field_name("key") if outer is not None and outer.type == "pair" else None
    return found if found is not None and found.type == "string" else None


def _splats(root: Node) -> bool:
    """Whether the file unpacks a mapping: every `**x` spells `**`, so only the nodes around its occurrences are
    matched (most of a file's `**` are `**kwargs` parameters and powers)."""
    return bool(parsing.captures_around(parsing.query("python", "(dictionary_splat) @splat"), root,
                                        SPLAT_WORDS).get("splat"))
