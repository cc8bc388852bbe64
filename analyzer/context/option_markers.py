"""Arms decided by a value that only an option's arm sets: they are that option's arms too.

A copied HF Trainer sets `self.use_apex = True` only in the arm `--half_precision_backend apex` takes (elsewhere
False), so `elif self.use_apex: with amp.scale_loss(...)` runs only with that option; it imports `Adam8bit` only in the
arm of `args.optim == OptimizerNames.ADAMW_BNB`, so `if optimizer_cls.__name__ == "Adam8bit":` does too.

Per file (`marker_arms`, read only for a file with option arms): the arms whose condition holds, as one term of an
`and`, such a marker: `self.X` that its class sets only to True/False/None, True only inside option arms; `Y.__name__
== "C"` where `C` is bound in the file only by imports inside option arms. Each arm comes with the lines that set its
marker; the project pass (opt_in.switched_options) makes it optional when every such line lies in an arm it found
optional, with that arm's reason.
"""

from __future__ import annotations

from collections import defaultdict

from ascend_feasibility.analyzer.context.switches import first_term
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 200000
FLAG_VALUES = {"True", "False", "None"}
ARMS = {"if_statement", "elif_clause"}
READ = ("assignment", "import_from_statement", "import_statement", "function_definition", "class_definition",
        "if_statement", "elif_clause", "conditional_expression")  # the nodes marker_arms reads


def marker_arms(root: Node, data: bytes, option_ranges: list[tuple[int, int]]) -> list[tuple[int, int, tuple[int, ...], str]]:
    """(first line, last line, the lines setting the marker, the condition as "line N: ...") of each such arm.
    `data`: the bytes `root` was parsed from."""
    if not option_ranges or not _may_mark(data, option_ranges):
        return []

    def in_option(line: int) -> bool:
        return any(first <= line <= last for first, last in option_ranges)

    flags: dict[tuple[int, str], list[tuple[str, int]]] = defaultdict(list)  # (class, attribute) → (value, line)
    imported: dict[str, list[int]] = defaultdict(list)  # name → lines of the imports binding it
    bound: set[str] = set()  # names bound otherwise (assigned, defined): never a marker
    conditions: list[tuple[Node, Node]] = []  # (condition, the part it decides)
    for node in _nodes_read(root):
        kind = node.type
        if kind == "assignment":
            _read_assignment(node, flags, bound)
        elif kind in {"import_from_statement", "import_statement"}:
            for name in _imported_names(node):
                imported[name].append(node.start_point.row + 1)
        elif kind in {"function_definition", "class_definition"}:
            name = node.child_by_field_name("name")
            if name is not None:
                bound.add(parsing.text(name))
        elif kind in ARMS:
            condition = node.child_by_field_name("condition")
            body = node.child_by_field_name("consequence")
            if condition is not None and body is not None:
                conditions.append((condition, body))
        elif kind == "conditional_expression" and len(node.named_children) >= 3:
            conditions.append((node.named_children[1], node.named_children[0]))
    markers: dict[tuple[int, str], tuple[int, ...]] = {}
    for key, values in flags.items():
        on = tuple(line for value, line in values if value == "True")
        if on and all(value in FLAG_VALUES for value, _ in values) and all(in_option(line) for line in on):
            markers[key] = on
    names = {name: tuple(lines) for name, lines in imported.items()
             if name not in bound and all(in_option(line) for line in lines)}
    if not markers and not names:
        return []
    arms = []
    for condition, decided in conditions:
        lines = _marker_of(condition, markers, names)
        if lines is not None:
            holder = condition.parent
            first = " ".join(parsing.text(holder).splitlines()[0].split())[:100] if holder is not None else ""
            arms.append((decided.start_point.row + 1, decided.end_point.row + 1, lines,
                         f"line {condition.start_point.row + 1}: {first}"))
    return arms


def _nodes_read(root: Node) -> list[Node]:
    """The nodes of READ's types, in the order `parsing.walk` meets them (a node before the nodes inside it, a later
    sibling first): found by a query, whose walk runs in C, not by a walk in Python over every node. A tree that
    may hold more than MAX_NODES nodes is walked: the walk's limit stops it part way."""
    if root.descendant_count >= MAX_NODES:
        return [node for node in parsing.walk(root, limit=MAX_NODES) if node.type in READ]
    found = parsing.captures(parsing.query("python", "\n".join(f"({kind}) @node" for kind in READ)), root)
    # two such nodes are nested or apart (none of these types has an only child of its own span), so the walk's
    # order is the later end first, and of two ending together the outer (earlier start) first
    return sorted(found.get("node", []), key=lambda node: (-node.end_byte, node.start_byte))


def _may_mark(data: bytes, option_ranges: list[tuple[int, int]]) -> bool:
    """Whether an option arm's lines spell what a marker needs, before the walk over the whole tree: `self` and
    `True` (an assignment `self.X = True` starting in an arm lies within the arm's lines), or `import` in a file that
    spells `__name__` (a name only an arm's import binds is a marker only to a `Y.__name__ == "C"` test). Most files
    with option arms have neither."""
    lines = data.split(b"\n")  # tree-sitter counts rows by "\n" alone
    arms = [b"\n".join(lines[first - 1:last]) for first, last in option_ranges]
    return (any(b"True" in arm and b"self" in arm for arm in arms)
            or (b"__name__" in data and any(b"import" in arm for arm in arms)))


def _read_assignment(node: Node, flags: dict, bound: set[str]) -> None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None:
        return
    if left.type == "identifier":
        bound.add(parsing.text(left))
        return
    holder = left.child_by_field_name("object") if left.type == "attribute" else None
    if holder is None or parsing.text(holder) != "self":
        return
    cls = _enclosing_class(node)
    value = parsing.text(right) if right is not None else ""
    flags[(cls.id if cls is not None else -1, parsing.text(left.child_by_field_name("attribute")))].append(
        (value, node.start_point.row + 1))


def _imported_names(statement: Node) -> list[str]:
    names = []
    for name in statement.children_by_field_name("name"):
        if name.type == "aliased_import":
            alias = name.child_by_field_name("alias")
            names.append(parsing.text(alias) if alias is not None else "")
        elif statement.type == "import_from_statement":
            names.append(parsing.text(name))
    return [n for n in names if n]


def _marker_of(condition: Node, markers: dict, names: dict) -> tuple[int, ...] | None:
    """The lines setting the marker one `and` term of the condition holds (parentheses unwrapped)."""
    return first_term(condition, lambda term, _: _marker_term(term, markers, names))


def _marker_term(condition: Node, markers: dict, names: dict) -> tuple[int, ...] | None:
    if condition.type == "attribute":
        holder = condition.child_by_field_name("object")
        if holder is not None and parsing.text(holder) == "self":
            cls = _enclosing_class(condition)
            return markers.get((cls.id if cls is not None else -1, parsing.text(condition.child_by_field_name("attribute"))))
        return None
    if condition.type == "comparison_operator" and [c.type for c in condition.children if not c.is_named] == ["=="]:
        operands = condition.named_children
        if len(operands) != 2:
            return None
        subject, value = operands if operands[1].type == "string" else operands[::-1]
        if (value.type == "string" and subject.type == "attribute"
                and parsing.text(subject.child_by_field_name("attribute")) == "__name__"):
            return names.get("".join(parsing.text(c) for c in value.named_children if c.type == "string_content"))
    return None


def _enclosing_class(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type != "class_definition":
        current = current.parent
    return current
