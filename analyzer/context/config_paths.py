"""A value of a config object read by an attribute path: Swin-Transformer's `config.TRAIN.OPTIMIZER.NAME`, whose
default the project assigns once (yacs: `_C.TRAIN.OPTIMIZER.NAME = 'adamw'` in config.py) and which code may set
from a command-line option (`config.TRAIN.OPTIMIZER.NAME = args.optim`, `--optim` without a default).

Per file, `path_writes` lists every assignment to such a path (the store's root left off: `_C.` and `config.` name
one config): the literal written, the option read, or something else. Per project, `path_values` gathers the values
the path may hold (opt_in.switched_options decides the arm); any other write (a value computed, read from elsewhere)
leaves the value open, and the arm runs."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

OPTION = "@"  # a write of a command-line option's value: `@optim`
UNKNOWN = "?"  # a write of anything else
LITERAL = "="  # a write of a string literal: `=adamw`


def config_path(node: Node) -> str | None:
    """`config.TRAIN.OPTIMIZER.NAME` → "TRAIN.OPTIMIZER.NAME": an attribute chain on a plain name with two or more
    attributes after it (one, `config.name`, is any object's field); None for anything else."""
    parts = []
    while node.type == "attribute":
        attribute = node.child_by_field_name("attribute")
        if attribute is None:
            return None
        parts.append(parsing.text(attribute))
        node = node.child_by_field_name("object")
    if node.type != "identifier" or len(parts) < 2 or parsing.text(node) == "self":
        return None
    return ".".join(reversed(parts))


def path_writes(stores: list[Node], objects: frozenset[str]) -> list[tuple[str, str, int]]:
    """(path, what it is set to: LITERAL + the string, OPTION + the dest, or UNKNOWN; line) of each assignment's
    attribute-path target (facts' `attribute_store` captures)."""
    found = []
    for store in stores:
        path = config_path(store)
        assignment = store.parent
        if path is None or assignment is None:
            continue
        right = assignment.child_by_field_name("right") if assignment.type == "assignment" else None
        found.append((path, _written(right, objects), store.start_point.row + 1))
    return found


def path_reads(stores: list[Node]) -> list[tuple[int, str]]:
    """(line, path) of each assignment whose value is a config's attribute path (`torch.backends.cudnn.deterministic
    = cfg.CUDNN.DETERMINISTIC`): what the project pass resolves through path_values."""
    found = []
    for store in stores:
        assignment = store.parent
        right = assignment.child_by_field_name("right") if assignment is not None and assignment.type == "assignment" \
            else None
        path = config_path(right) if right is not None and right.type == "attribute" else None
        if path is not None:
            found.append((store.start_point.row + 1, path))
    return found


def _written(right: Node | None, objects: frozenset[str]) -> str:
    if right is None:
        return UNKNOWN
    if right.type == "string" and not any(c.type == "interpolation" for c in right.named_children):
        return LITERAL + "".join(parsing.text(c) for c in right.named_children if c.type == "string_content")
    if right.type in {"true", "false"}:  # yacs' `_C.CUDNN.DETERMINISTIC = False`
        return LITERAL + parsing.text(right)
    holder = right.child_by_field_name("object") if right.type == "attribute" else None
    if holder is not None and holder.type == "identifier" and parsing.text(holder) in objects:
        return OPTION + parsing.text(right.child_by_field_name("attribute"))
    return UNKNOWN


def path_values(path: str, facts) -> tuple[set[str], set[str], str] | None:
    """(the literals the project writes to the path, lower-cased; the options it sets it from; where the first literal
    is written), or None where it writes anything else there or no literal (no default in sight)."""
    literals, options, first = set(), set(), None
    for f in facts:
        for written_path, value, line in f.path_writes:
            if written_path != path:
                continue
            if value.startswith(LITERAL):
                literals.add(value[len(LITERAL):].lower())
                first = first or f"{f.path}:{line}"
            elif value.startswith(OPTION):
                options.add(value[len(OPTION):])
            else:
                return None
    return (literals, options, first) if first is not None else None
