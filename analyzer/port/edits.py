"""Edits for one Python file: each finding of a rule with an edit spec (knowledge/*/rules*.toml `edit`) becomes a
byte-range replacement or a statement inserted after its site, found through the file's tree-sitter tree. No
regular expression touches the project's code; a site the spec cannot map is left for a human with a reason."""

from __future__ import annotations

from dataclasses import dataclass, field

from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading.parsing import text
from ascend_feasibility.knowledge.models import Edit
from tree_sitter import Node

STATEMENT_PARENTS = {"module", "block"}
MARK = "# ascend:"


@dataclass(frozen=True)
class Change:
    """Replace data[start:end] with `new` (start == end: an insertion)."""

    start: int
    end: int
    new: str
    rule: str
    comment_at: int  # byte offset of the line that gets the `# ascend: RULE` comment


@dataclass
class SiteOutcome:
    finding: Finding
    changes: list[Change] = field(default_factory=list)
    uses: set[str] = field(default_factory=set)  # device-module names the replacement needs
    needs_torch: bool = False
    statement: Node | None = None  # the statement the site belongs to
    reads_flagged: bool = False
    reason: str | None = None  # why it was left for a human


@dataclass(frozen=True)
class Style:
    name: str  # "agnostic" or "npu"
    dev: str  # the name the file imports the device module under

    def template(self, edit: Edit, indexed: bool = False) -> str:
        if indexed:
            chosen = edit.agnostic_indexed if self.name == "agnostic" else edit.npu_indexed
            return chosen or ""
        return edit.agnostic if self.name == "agnostic" else edit.npu


def byte_offset(data: bytes, line_starts: list[int], line: int, column: int) -> int:
    """1-based line and character column → byte offset in data."""
    row = line - 1
    if not 0 <= row < len(line_starts):
        return -1
    start = line_starts[row]
    end = data.find(b"\n", start)
    row_text = data[start: len(data) if end < 0 else end].decode("utf-8", errors="replace")
    return start + len(row_text[: max(0, column - 1)].encode("utf-8"))


def line_starts_of(data: bytes) -> list[int]:
    starts = [0]
    index = data.find(b"\n")
    while index >= 0:
        starts.append(index + 1)
        index = data.find(b"\n", index + 1)
    return starts


def plan_site(root: Node, data: bytes, starts: list[int], finding: Finding, edit: Edit, style: Style,
              reads_flagged: bool = False) -> SiteOutcome:
    """One site's changes. reads_flagged: the rule also flags reads of the name (an environment variable), so a
    statement added after the site that reads it again carries `# ascend: ignore[RULE]`."""
    outcome = SiteOutcome(finding)
    begin = byte_offset(data, starts, finding.line, finding.column)
    end = byte_offset(data, starts, finding.end_line, finding.end_column)
    if begin < 0 or end < begin:
        outcome.reason = "the finding's position is outside the file"
        return outcome
    node = root.descendant_for_byte_range(begin, end)
    if node is None:
        outcome.reason = "no syntax node at the finding"
        return outcome
    if not style.template(edit):
        outcome.reason = f"no rewrite in the {style.name} style"
        return outcome
    handler = _HANDLERS[edit.kind]
    outcome.reads_flagged = reads_flagged
    reason = handler(node, data, finding, edit, style, outcome)
    if reason:
        outcome.reason = reason
        outcome.changes.clear()
        return outcome
    anchor = _anchor(node)
    if anchor is None:
        outcome.reason = "the site is not inside a statement"
        outcome.changes.clear()
        return outcome
    outcome.statement = anchor
    comment_at = starts[anchor.start_point[0]]
    # an edit that leaves the matched code in place (a statement added after it) marks it handled: a later analysis
    # then reports it as suppressed, not as work still to do
    rule = f"ignore[{finding.rule}]" if edit.kind == "after" else finding.rule
    outcome.changes = [Change(c.start, c.end, c.new, rule, comment_at) for c in outcome.changes]
    if style.name == "agnostic":
        uses = {use.replace("{api}", _api(finding)) for use in edit.uses}
        outcome.uses |= uses
    outcome.needs_torch = any("torch." in change.new for change in outcome.changes)
    return outcome


MAX_NOTE = 160


def plan_note(root: Node, data: bytes, starts: list[int], finding: Finding) -> tuple[int, str] | None:
    """A display-only site's comment line (offset, text): `# ascend: RULE (display-only): <the plan>` above it."""
    begin = byte_offset(data, starts, finding.line, finding.column)
    end = byte_offset(data, starts, finding.end_line, finding.end_column)
    node = root.descendant_for_byte_range(begin, end) if 0 <= begin <= end else None
    anchor = _anchor(node) if node is not None else None
    if anchor is None:
        return None
    offset = starts[anchor.start_point[0]]
    row = data[offset: anchor.start_byte]
    indent = row[: len(row) - len(row.lstrip(b" \t"))].decode("utf-8")
    plan = " ".join(finding.replacement.en.split())
    plan = plan if len(plan) <= MAX_NOTE else plan[: MAX_NOTE - 1] + "…"
    return offset, f"{indent}{MARK} {finding.rule} (display-only): {plan}\n"


def _api(finding: Finding) -> str:
    return (finding.symbol or "").rsplit(".", 1)[-1]


def _fill(template: str, style: Style, **values: str) -> str:
    return template.format(dev=style.dev, **values)


def _call_of(node: Node) -> Node | None:
    """The call whose callee is node (or node itself when the finding spans the whole call)."""
    if node.type == "call":
        return node
    parent = node.parent
    if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == node:
        return parent
    return None


def _callee(node, data, finding, edit, style, outcome) -> str | None:
    call = _call_of(node)
    if call is None:
        return "not a call"
    function = call.child_by_field_name("function")
    api = _api(finding)
    if api not in edit.apis:
        return f"the device module offers no {api}"
    outcome.changes.append(Change(function.start_byte, function.end_byte, _fill(style.template(edit), style, api=api), "", 0))
    return None


def _name(node, data, finding, edit, style, outcome) -> str | None:
    if node.type not in {"attribute", "identifier"}:
        return "not a name"
    if _api(finding) not in edit.apis:
        return f"{finding.symbol} is not one of {edit.apis}"
    outcome.changes.append(Change(node.start_byte, node.end_byte, _fill(style.template(edit), style), "", 0))
    return None


def _plain_string(node: Node) -> str | None:
    """The value of a string literal without prefix, escapes or interpolation, else None."""
    if node.type != "string":
        return None
    start = node.child(0)
    if start is None or start.type != "string_start" or text(start).lower() not in {'"', "'"}:
        return None
    parts = [child for child in node.children if child.type not in {"string_start", "string_end"}]
    if len(parts) > 1 or (parts and parts[0].type != "string_content"):
        return None
    value = text(parts[0]) if parts else ""
    return value if "\\" not in value else None


def cuda_literals(node: Node) -> list[Node]:
    """Plain string literals under node whose value is "cuda" or "cuda:N"."""
    found = []
    for literal in _strings(node, limit=5000):
        value = _plain_string(literal)
        if value is not None and (value == "cuda" or (value.startswith("cuda:") and value[5:].isdigit())):
            found.append(literal)
    return found


def _strings(node: Node, limit: int = 200):
    stack, seen = [node], 0
    while stack and seen < limit:
        current = stack.pop()
        seen += 1
        if current.type == "string":
            yield current
            continue
        stack.extend(reversed(current.children))


def _string(node, data, finding, edit, style, outcome) -> str | None:
    for literal in sorted(_strings(node), key=lambda n: n.start_byte):
        value = _plain_string(literal)
        if value is None:
            continue
        base, _, index = value.partition(":")
        if base not in edit.values or (index and not index.isdigit()) or (value.count(":") > 1):
            continue
        if index:
            template = style.template(edit, indexed=True)
            if not template:
                continue
            new = _fill(template, style, index=index)
        else:
            new = _fill(style.template(edit), style)
        outcome.changes.append(Change(literal.start_byte, literal.end_byte, new, "", 0))
    return None if outcome.changes else "no plain string literal to replace"


def plan_literal(literal: Node, edit: Edit, style: Style, outcome: SiteOutcome) -> None:
    """Rewrite one "cuda" string literal as the edit's string template would."""
    _string(literal, b"", outcome.finding, edit, style, outcome)


def _arguments(call: Node) -> tuple[list[Node], list[Node]] | None:
    """Positional and keyword argument nodes, or None when a call spreads *args/**kwargs or is a comprehension."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return None
    positional, keyword = [], []
    for child in arguments.named_children:
        if child.type == "comment":
            continue
        if child.type in {"list_splat", "dictionary_splat", "parenthesized_list_splat"}:
            return None
        (keyword if child.type == "keyword_argument" else positional).append(child)
    return positional, keyword


def _method(node, data, finding, edit, style, outcome) -> str | None:
    call = node if node.type == "call" else None
    while call is None and node is not None:
        node = node.parent
        call = node if node is not None and node.type == "call" else None
    if call is None:
        return "not a call"
    function = call.child_by_field_name("function")
    name = function.child_by_field_name("attribute") if function.type == "attribute" else None
    if name is None or text(name) != "cuda":
        return "not a .cuda() call"
    split = _arguments(call)
    if split is None:
        return "spread arguments"
    positional, keyword = split
    if positional:
        return "a positional device argument: pick the device index by hand"
    args = ", ".join(text(k) for k in keyword)
    target = function.child_by_field_name("object")
    new = _fill(style.template(edit), style, object=text(target), args=args, comma_args=f", {args}" if args else "")
    outcome.changes.append(Change(call.start_byte, call.end_byte, new, "", 0))
    return None


def _autocast(node, data, finding, edit, style, outcome) -> str | None:
    call = _call_of(node)
    if call is None:
        return "not a call (a bare decorator or a reference)"
    split = _arguments(call)
    if split is None:
        return "spread arguments"
    positional, keyword = split
    if len(positional) > len(edit.positional):
        return "more positional arguments than the original accepts"
    given = {text(k.child_by_field_name("name")) for k in keyword}
    parts = [f"{edit.positional[i]}={text(arg)}" for i, arg in enumerate(positional)]
    given |= set(edit.positional[: len(positional)])
    parts += [text(k) for k in keyword]
    parts += [f"{name}={value}" for name, value in edit.defaults.items() if name not in given]
    new = _fill(style.template(edit), style, args=", ".join(parts))
    outcome.changes.append(Change(call.start_byte, call.end_byte, new, "", 0))
    return None


def _after(node, data, finding, edit, style, outcome) -> str | None:
    assignment = node
    while assignment is not None and assignment.type != "assignment":
        assignment = assignment.parent
    if assignment is None:
        return "not an assignment (only writes are rewritten)"
    left = assignment.child_by_field_name("left")
    if left is None or not (left.start_byte <= node.start_byte and node.end_byte <= left.end_byte):
        return "the match is read, not assigned"
    if left.type not in {"attribute", "subscript"}:
        return "the target is not an attribute or a subscript"
    statement = assignment.parent
    if statement is None or statement.type != "expression_statement" or statement.parent is None \
            or statement.parent.type not in STATEMENT_PARENTS:
        return "the assignment is part of a larger expression"
    row_start = data.rfind(b"\n", 0, statement.start_byte) + 1
    indent = data[row_start: statement.start_byte]
    if indent.strip():
        return "the statement shares its line"
    row_end = data.find(b"\n", statement.end_byte)
    row_end = len(data) if row_end < 0 else row_end
    rest = data[statement.end_byte: row_end].strip()
    if rest and not rest.startswith(b"#"):
        return "the statement shares its line"
    container = left.child_by_field_name("value") if left.type == "subscript" else None
    new = _fill(style.template(edit), style, lhs=text(left), container=text(container) if container else text(left))
    # the added statement reads the matched name again: mark it so that a later analysis does not count it
    mark = f"  {MARK} ignore[{finding.rule}] (port)" if outcome.reads_flagged else ""
    outcome.changes.append(Change(row_end, row_end, "\n" + indent.decode("utf-8") + new + mark, "", 0))
    return None


def _guard_import(node, data, finding, edit, style, outcome) -> str | None:
    statement = node
    while statement is not None and statement.type not in {"import_statement", "import_from_statement"}:
        statement = statement.parent
    if statement is None or statement.parent is None or statement.parent.type != "module":
        return "not a module-level import"
    names = []
    for name in statement.children_by_field_name("name"):
        if name.type == "aliased_import":
            names.append(text(name.child_by_field_name("alias")))
        elif statement.type == "import_statement":
            names.append(text(name).split(".")[0])
        else:
            names.append(text(name).split(".")[-1])
    if not names or any(not n.isidentifier() for n in names):
        return "a wildcard or unusual import"
    row_start = data.rfind(b"\n", 0, statement.start_byte) + 1
    row_end = data.find(b"\n", statement.end_byte)
    row_end = len(data) if row_end < 0 else row_end
    rest = data[statement.end_byte: row_end].strip()
    if data[row_start: statement.start_byte].strip() or (rest and not rest.startswith(b"#")):
        return "the import shares its line"
    original = data[row_start: row_end].decode("utf-8")
    body = "\n".join("    " + line if line.strip() else line for line in original.split("\n"))
    handler = _fill(style.template(edit), style, names=" = ".join(dict.fromkeys(names)))
    new = f"try:\n{body}\nexcept ImportError:  # not built for Ascend\n    {handler}"
    outcome.changes.append(Change(row_start, row_end, new, "", 0))
    return None


_HANDLERS = {
    "callee": _callee,
    "name": _name,
    "string": _string,
    "method": _method,
    "autocast": _autocast,
    "after": _after,
    "guard_import": _guard_import,
}


def _anchor(node: Node) -> Node | None:
    """The statement the site belongs to: the nearest ancestor directly in a module or block body. Its comment goes
    above the line it starts on (for `if x: f()` that is the `if` line, still a valid place for a comment)."""
    current = node
    while current is not None and (current.parent is None or current.parent.type not in STATEMENT_PARENTS):
        current = current.parent
    return current
