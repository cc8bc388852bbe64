"""Shell files that are notes, not scripts: a launch line kept beside pasted output (round 24 A2 C5).

A developer's scratch file (lmms-eval's miscs/script.sh) holds one `accelerate launch ...` line and then the result
tables it printed (`|mme |N/A |none | 0|...|`) and prose (`gpu = 8 bs 1:`). Nobody runs it: it is a record, and its
launch line needs no port edit of its own. Read with tree-sitter: where the lines holding a top-level ERROR node (what
bash cannot parse: a table row's leading `|`) are at least half of the file's non-blank lines, and the file runs
MAX_LAUNCHES launch commands or fewer, the file is a note, its findings documentation's (role `docs`, uncounted). A
shell script, however long, parses; one stray error line in a long script leaves it a script.
"""

from __future__ import annotations

from tree_sitter import Node

MAX_LAUNCHES = 2  # a note records a run or two; a script that launches more is a launcher with errors
MIN_LINES = 4  # fewer lines say too little either way


def unparsed_share(tree: Node, data: bytes) -> tuple[int, int]:
    """(lines holding a top-level ERROR node or stray `|`, non-blank lines) of a shell file."""
    lines = sum(1 for line in data.splitlines() if line.strip())
    # in bash a `|` joins two commands inside a pipeline node; one left at the top level, like an ERROR node, is text
    # bash could not read
    rows = {child.start_point.row for child in tree.children if child.type in ("ERROR", "|")}
    return len(rows), lines


def is_note(unparsed: int, lines: int, launches: int) -> bool:
    """Is a shell file with these counts a note (pasted output beside a launch line or two)?"""
    return lines >= MIN_LINES and launches <= MAX_LAUNCHES and 2 * unparsed >= lines


def notes(facts) -> dict[str, str]:
    """path → why, for the shell files that are notes."""
    return {f.path: (f"a note, not a script: {f.unparsed_lines[0]} of its {f.unparsed_lines[1]} lines are not shell "
                     "(pasted output or prose beside its launch line); nobody runs it")
            for f in facts if f.unparsed_lines and is_note(*f.unparsed_lines, len(f.launches))}
