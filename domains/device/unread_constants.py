"""A module-level device constant, or an attribute store, nothing reads: `DEVICE = "cuda:0"` in an evaluation script that loads its model with
`device_map="auto"` and never names DEVICE again (Qwen's eval/evaluate_chat_humaneval.py). The literal takes effect
nowhere, so it is no device string to port (DEV001 is not reported).

Per file (`read`): the module-level plain assignments of a CUDA device literal to a name that no other identifier of
the file (outside a member name or a keyword) and no string of it spells. Per project (`unread`): such a constant
stays a finding when another file may read it: one importing it by name (`from pkg.mod import DEVICE`), importing its
module with `*`, or importing the module and writing the name anywhere (`mod.DEVICE`). A file without a module name
(outside any package root) is judged by its own reads alone only when no file writes the name.

The same for an attribute: `self.sync_cuda = th.cuda.is_available()` in consistency_models' TrainLoop, with no other
`sync_cuda` in the project (round 12 A1 row 16). Per file (`unread_stores`): the plain `self.X = ...` statements
whose value spells "cuda", where X is written once in the file (whole words of its text: a comment, a string,
`getattr(self, "X")` or a subclass's read all count). Per project (`unread`): no other file writes X at all. The
store's device findings of a query or a literal (the display rules: is_available, device names, versions; a device
string) change nothing that runs: `cosmetic` at info. A store of a call that acts (`self.m = model.cuda()` moves
the model in place) is not judged.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, NAME_BYTES, writes_word
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device import attribute_reads
from ascend_feasibility.domains.device.literals import device_literal
from tree_sitter import Node

MAX_STATEMENTS = 2000
MAX_NODES = 200_000
MAX_STORES = 200
# the device-string rules a stored value's finding may be: a literal (DEV001) or one built at run time (DEV002)
STORED_STRING_RULES = frozenset({"DEV001", "DEV002"})
MAX_DEPTH = 12  # from a "cuda" up to the statement holding it


def read(root: Node) -> list[tuple[int, str]]:
    """(line, name) of the unit's module-level device constants that the unit itself never reads."""
    candidates: dict[str, int] = {}
    assigned: dict[str, int] = {}
    for statement in root.named_children[:MAX_STATEMENTS]:
        assignment = parsing.statement_assignment(statement)
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if left is None or right is None or left.type != "identifier":
            continue
        name = parsing.text(left)
        assigned[name] = assigned.get(name, 0) + 1
        literal = device_literal(right) if right.type == "string" else None
        if literal is not None and not literal.formatted:
            candidates[name] = right.start_point.row + 1
    candidates = {name: line for name, line in candidates.items() if assigned[name] == 1}
    if not candidates:
        return []
    uses = {name: 0 for name in candidates}
    try:
        for node in parsing.walk(root, limit=MAX_NODES, named=False, strict=True):
            if node.type == "identifier":
                name = parsing.text(node)
                if name in uses and not named_field(node):
                    uses[name] += 1
            elif node.type == "string_content":
                name = parsing.text(node)
                if name in uses:
                    uses[name] += 2  # `globals()["DEVICE"]`: read by name
    except parsing.WalkLimit:
        return []
    return sorted((line, name) for name, line in candidates.items() if uses[name] == 1)  # the assignment's own


def named_field(node: Node) -> bool:
    """`node` is the member name of an attribute or a keyword argument's name: no read of a variable."""
    parent = node.parent
    field = {"attribute": "attribute", "keyword_argument": "name"}.get(parent.type) if parent is not None else None
    return field is not None and parent.child_by_field_name(field) == node


def unread(candidates: dict[str, list[tuple[int, str]]], modules) -> set[tuple[str, int]]:
    """(path, line) of the candidates no other file may read (`modules`: every file's ModuleFacts)."""
    by_path = {m.path: m for m in modules}
    result = set()
    for path, constants in candidates.items():
        own = by_path.get(path)
        module = own.module if own is not None else ""
        for line, name in constants:
            if not any(_may_read(other, module, name) for other in modules if other.path != path):
                result.add((path, line))
    return result


def _may_read(other, module: str, name: str) -> bool:
    if len(name) < MIN_NAME or name[0].isdigit():
        return True  # the words keep no such name: it cannot be looked for
    if not module:
        return writes_word(other.words, name)  # no module name to import it by: any writer may
    if f"{module}.{name}" in other.imports or module in other.star_imports:
        return True
    return module in other.imports and writes_word(other.words, name)


def unread_stores(root: Node, text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, attribute) of the unit's `self.X = ...` stores of a value spelling "cuda" whose X the
    unit writes only there. Read from each "cuda" of the text up to its statement, not over the whole tree."""
    candidates = _stores(root)
    if not candidates:
        return []
    counts = _counts(text, candidates)
    return [(store.start_point.row + 1, store.end_point.row + 1, name) for store, name in candidates
            if counts.get(name.encode(), 0) == 1]


def stored_only(root: Node, text: str, reads: set[str]) -> list[tuple[int, int, str]]:
    """(first line, last line, attribute) of the unit's `self.X = <value spelling "cuda">` stores whose X the unit
    writes more than once but never reads (`reads`: domains/device/attribute_reads.py): each arm of a device block
    stores `self.device_map = f"cuda:{rank}"` and nothing loads `.device_map`. A file that may read attributes it
    does not name (`vars(self)`, `self.__dict__`) is not judged."""
    candidates = _stores(root)
    if not candidates:
        return []
    counts = _counts(text, candidates)
    if attribute_reads.dumps(text):
        return []
    return [(store.start_point.row + 1, store.end_point.row + 1, name) for store, name in candidates
            if counts.get(name.encode(), 0) > 1 and name not in reads]


def _stores(root: Node) -> list[tuple[Node, str]]:
    data = root.text or b""
    candidates: dict[int, tuple[Node, str]] = {}
    at = data.find(b"cuda")
    while at >= 0 and len(candidates) < MAX_STORES:
        store = _store_around(root.descendant_for_byte_range(at, at + 4))
        if store is not None:
            candidates[store[0].start_byte] = store
        at = data.find(b"cuda", at + 4)
    return list(candidates.values())


def _counts(text: str, candidates: list[tuple[Node, str]]) -> dict[bytes, int]:
    """How often the text writes each candidate's name, as a whole word (a comment, a string and a keyword count)."""
    counts: dict[bytes, int] = {}
    names = {name.encode() for _, name in candidates}
    for word in text.encode("utf-8", "replace").translate(NAME_BYTES).split():
        if word in names:
            counts[word] = counts.get(word, 0) + 1
    return counts


def _store_around(node: Node | None) -> tuple[Node, str] | None:
    """(the statement, X) when `node` is in the value of a statement `self.X = value` (X of MIN_NAME or more)."""
    start = node.start_byte if node is not None else -1
    for _ in range(MAX_DEPTH):
        if node is None or node.type in {"function_definition", "class_definition", "block", "module"}:
            return None
        if node.type == "assignment":
            statement = node.parent
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if statement is None or statement.type != "expression_statement" or left is None or right is None \
                    or left.type != "attribute" or start < right.start_byte:  # "cuda" in the value, not the name
                return None
            obj, attribute = left.child_by_field_name("object"), left.child_by_field_name("attribute")
            if obj is None or attribute is None or obj.text != b"self" or len(attribute.text or b"") < MIN_NAME:
                return None
            return statement, parsing.text(attribute)
        node = node.parent
    return None


def unread_attributes(candidates: dict[str, list[tuple[int, int, str]]], modules) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first, last, attribute) of the stores no other file writes the attribute's name in."""
    result: dict[str, list[tuple[int, int, str]]] = {}
    for path, stores in candidates.items():
        for first, last, name in stores:
            if not any(writes_word(other.words, name) for other in modules if other.path != path):
                result.setdefault(path, []).append((first, last, name))
    return result


def unread_members(candidates: dict[str, list[tuple[int, int, str]]],
                   reads: dict[str, set[str]]) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first, last, attribute) of the `stored_only` stores no other file reads as an attribute (`reads`:
    every file's attribute_reads, by path): `lm.device_map`, `getattr(lm, "device_map")`."""
    result: dict[str, list[tuple[int, int, str]]] = {}
    for path, stores in candidates.items():
        for first, last, name in stores:
            if not any(name in names for other, names in reads.items() if other != path):
                result.setdefault(path, []).append((first, last, name))
    return result
