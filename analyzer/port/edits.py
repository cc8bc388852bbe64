"""Edits for one Python file: each finding of a rule with an edit spec (knowledge/*/rules*.toml `edit`) becomes a
byte-range replacement or a statement inserted after its site, found through the file's tree-sitter tree. No
regular expression touches the project's code; a site the spec cannot map is left for a human with a reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading.parsing import text, walk
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
    read_rule: str = ""  # the rule named on a statement added after the site that reads the name again
    reason: str | None = None  # why it was left for a human
    absorbed: bool = False  # rewritten inside another site's change (`"cuda" if "cuda" in d else "cpu"` as a whole)
    # a device test's rewrite: "value" picks a device type (`"cuda" if "cuda" in d else "cpu"`), "widen" adds "npu" to
    # a collection of accepted types, "test" answers true on NPU where the original answered false
    test: str | None = None

    @property
    def rewritten(self) -> bool:
        return self.reason is None and (bool(self.changes) or self.absorbed)


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
              reads_flagged: bool = False, read_rule: str | None = None) -> SiteOutcome:
    """One site's changes. reads_flagged: a rule flags reads of the name (an environment variable), so a statement
    added after the site that reads it again carries `# ascend: ignore[RULE]`, RULE being `read_rule` (the rule that
    reports the read: DEV201 after a DEV703 pin), else the finding's own."""
    outcome = SiteOutcome(finding)
    outcome.read_rule = read_rule or finding.rule
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
    held = _held_path(finding.path, edit.hold_paths)
    if held is not None:
        outcome.reason = f"a {held} tool: the code is deliberate there"
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
    comment_at = starts[_marked_line(anchor, node)]
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
    return offset, f"{indent}{MARK} {finding.rule} (display-only): {shorten(finding.replacement.en, MAX_NOTE)}\n"


def shorten(plan: str, limit: int) -> str:
    """plan on one line, cut at a word boundary before limit characters (with "…") when longer."""
    plan = " ".join(plan.split())
    if len(plan) <= limit:
        return plan
    cut = plan[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > 0 else cut).rstrip(" ,;:") + "…"


def _held_path(path: str, words: list[str]) -> str | None:
    """The word of `words` that a folder or the file name of path contains (numerics checkers, debugging tools)."""
    parts = [part.lower() for part in PurePosixPath(path).with_suffix("").parts]
    return next((word for word in words if any(word in part for part in parts)), None)


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
    """The value of a string literal without prefix, escapes or interpolation, else None. A part of an implicit
    concatenation (`"cuda" ":0"`) has no value of its own: an expression put in its place would not parse."""
    if node.type != "string" or (node.parent is not None and node.parent.type == "concatenated_string"):
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
    """The string literals under node (none inside another), in source order, within `limit` nodes."""
    return [n for n in walk(node, limit=limit, prune=_STRING, named=False, source_order=True)
            if n.type == "string"]


_STRING = frozenset({"string"})


def _string(node, data, finding, edit, style, outcome) -> str | None:
    kept = False
    for literal in sorted(_strings(node), key=lambda n: n.start_byte):
        value = _plain_string(literal)
        base, colon, index = (value or "").partition(":")
        if value is None or base not in edit.values or (colon and not index.isdigit()) or value.count(":") > 1:
            change = _formatted_change(literal, edit, style)  # "cuda:%d", "cuda:" + ..., f"cuda:{rank}"
            if change is not None and _registers_kernel(literal, edit.keep_in):
                kept = True
            elif change is not None:
                outcome.changes.append(change)
            continue
        if _registers_kernel(literal, edit.keep_in):
            kept = True
            continue
        if _in_names(literal) and index == "" and _accepts(literal.parent, edit.only_in) is None:
            quote = text(literal)[0]
            outcome.changes.append(Change(literal.end_byte, literal.end_byte, f", {quote}npu{quote}", "", 0))
            continue
        held = _held_literal(literal, edit.hold_keywords)
        if held is not None:
            return held
        if index:
            template = style.template(edit, indexed=True)
            if not template:
                continue
            new = _fill(template, style, index=index)
        else:
            new = _fill(style.template(edit), style)
        outcome.changes.append(Change(literal.start_byte, literal.end_byte, new, "", 0))
    if kept and not outcome.changes:
        return "registers a kernel for CUDA only (torch.library): the NPU needs its own implementation of the op"
    return None if outcome.changes else "no plain string literal to replace"


def _formatted_change(literal: Node, edit: Edit, style: Style) -> Change | None:
    """A device name built at run time from a literal that starts with "cuda:" (f"cuda:{rank}", "cuda:%d" % rank,
    "cuda:{}".format(rank), "cuda:" + str(rank)): the literal as an f-string naming the picked device type."""
    replacement = edit.formatted if style.name == "agnostic" else edit.npu_formatted
    if replacement is None or literal.type != "string" or "cuda" not in edit.values:
        return None
    start = literal.child(0)
    content = literal.child(1)
    end = literal.children[-1]
    if start is None or start.type != "string_start" or content is None or content.type != "string_content" \
            or end.type != "string_end" or not text(content).startswith("cuda:"):
        return None
    prefix = text(start).rstrip("'\"").lower()
    if not set(prefix) <= {"f", "r"}:  # bytes and u"" strings are left
        return None
    head = content.start_byte + len("cuda")
    if "f" in prefix or style.name != "agnostic":
        return Change(content.start_byte, head, _fill(replacement, style), "", 0)
    rest = literal.text[head - literal.start_byte: end.start_byte - literal.start_byte].decode("utf-8")
    quote = text(start)[len(prefix):]
    new = f"f{text(start)[:len(prefix)]}{quote}{_fill(replacement, style)}{rest.replace('{', '{{').replace('}', '}}')}{quote}"
    return Change(literal.start_byte, literal.end_byte, new, "", 0)


def _held_literal(literal: Node, keywords: list[str]) -> str | None:
    """Why a device literal is left: it is one name in a collection of names (`{"cpu", "cuda", "mps"}`: accepted
    values, where "npu" belongs beside it), or the value of a keyword naming a framework's accelerator."""
    parent = literal.parent
    if _in_names(literal):
        return "one name in a collection of device names that is not a set of accepted values: give NPU its own path"
    if parent is not None and parent.type == "keyword_argument" and text(parent.child_by_field_name("name")) in keywords:
        return f"{text(parent.child_by_field_name('name'))}= names a framework's accelerator, not a torch device: " \
               "use that framework's NPU accelerator"
    return None


def _in_names(literal: Node) -> bool:
    """Is the literal one string among others in a list, tuple or set?"""
    parent = literal.parent
    return parent is not None and parent.type in {"list", "tuple", "set"} \
        and sum(1 for item in parent.named_children if item.type == "string") > 1


def _accepts(collection: Node, words: list[str]) -> str | None:
    """None when the collection is a set of accepted values: the value of a keyword or assigned to a name containing
    one of words (argparse `choices=`, `SUPPORTED_DEVICES`); else why not. With no words, every collection (a list of
    environment-variable names takes its Ascend twin wherever it is used)."""
    if not words:
        return None
    holder = collection.parent
    while holder is not None and holder.type == "parenthesized_expression":
        holder = holder.parent
    if holder is not None and holder.type == "keyword_argument":
        name = text(holder.child_by_field_name("name"))
    elif holder is not None and holder.type == "assignment" and holder.child_by_field_name("right") is not None:
        name = text(holder.child_by_field_name("left")).rsplit(".", 1)[-1]
    else:
        return "a collection the code may iterate over (the devices it runs on): add an NPU path by hand"
    if not any(word in name.lower() for word in words):
        return f"{name} is not a set of accepted device types: add an NPU path by hand"
    return None


def _registers_kernel(literal: Node, callees: list[str]) -> bool:
    """Is the literal an argument (or inside one) of a call to one of callees (torch.library.custom_op(...,
    device_types="cuda"), @op.register_kernel("cuda"))?"""
    node = literal
    while node.parent is not None and node.parent.type in {"keyword_argument", "tuple", "list", "parenthesized_expression"}:
        node = node.parent
    arguments = node.parent
    if not callees or arguments is None or arguments.type != "argument_list" or arguments.parent is None:
        return False
    function = arguments.parent.child_by_field_name("function")
    return function is not None and text(function).rsplit(".", 1)[-1] in callees


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
    if len(positional) > 1 or (positional and "{comma_args}" not in style.template(edit)):
        return "a positional device argument: pick the device index by hand"
    if "{comma_args}" not in style.template(edit) and any(
            text(k.child_by_field_name("name")) == "device" and k.child_by_field_name("value").type != "integer"
            for k in keyword):
        return "a device keyword: .npu() takes an index only, pick it by hand"  # .npu(device="cuda:0") raises
    args = ", ".join([text(p) for p in positional] + [text(k) for k in keyword])
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
    calls = edit.argument_calls if style.name == "agnostic" else edit.npu_argument_calls
    parts = [f"{edit.positional[i]}={_argument_text(arg, calls, style)}" for i, arg in enumerate(positional)]
    given |= set(edit.positional[: len(positional)])
    parts += [_argument_text(k, calls, style) for k in keyword]
    parts += [f"{name}={value}" for name, value in edit.defaults.items() if name not in given]
    new = _fill(style.template(edit), style, args=", ".join(parts))
    outcome.changes.append(Change(call.start_byte, call.end_byte, new, "", 0))
    return None


def _argument_text(argument: Node, calls: dict[str, str], style: Style) -> str:
    """The argument's text, each call in it without arguments whose callee is written as a key of `calls`
    (`torch.get_autocast_gpu_dtype()`) rebuilt as that key's template."""
    if not calls:
        return text(argument)
    found = sorted(((node.start_byte, node.end_byte, _fill(calls[text(node.child_by_field_name("function"))], style))
                    for node in walk(argument) if node.type == "call"
                    and text(node.child_by_field_name("function")) in calls
                    and not node.child_by_field_name("arguments").named_children), reverse=True)
    source = argument.text
    for start, end, new in found:
        start, end = start - argument.start_byte, end - argument.start_byte
        source = source[:start] + new.encode("utf-8") + source[end:]
    return source.decode("utf-8")


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
    mark = f"  {MARK} ignore[{outcome.read_rule}] (port)" if outcome.reads_flagged else ""
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


# Where `not f(x)` may stand without parentheses (a comparison, arithmetic or `await` around it would bind tighter).
_LOOSE_PARENTS = {
    "if_statement", "elif_clause", "while_statement", "boolean_operator", "not_operator", "parenthesized_expression",
    "assignment", "return_statement", "expression_statement", "assert_statement", "conditional_expression",
    "keyword_argument", "argument_list", "lambda",
}


def _unwrap(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _is_cuda_literal(node: Node | None) -> bool:
    return node is not None and _plain_string(_unwrap(node)) == "cuda"


def _device_test(node, data, finding, edit, style, outcome) -> str | None:
    outcome.test = "test"
    return _rewrite_test(node, style, outcome)


def _rewrite_test(node, style, outcome) -> str | None:
    """`t == "cuda"` -> `t in {dev}.ACCELERATOR_TYPES`; `"cuda" in t` -> `{dev}.names_accelerator(t)`;
    `t in ("cuda", "xpu")` -> `t in ("cuda", "npu", "xpu")`; `t.startswith("cuda")` ->
    `t.startswith({dev}.ACCELERATOR_TYPES)`; `t.__contains__("cuda")` -> `{dev}.names_accelerator(t)`; `"cuda" if "cuda" in t else "cpu"` -> `{dev}.accelerator_type(t)`.
    Each answers as the original wherever no "npu" device exists (CUDA and CPU hosts)."""
    dev = style.dev
    if node.type == "call":
        arguments = node.child_by_field_name("arguments")
        literals = arguments.named_children if arguments is not None else []
        if len(literals) != 1 or not _is_cuda_literal(literals[0]):
            return "a prefix test other than \"cuda\""
        function = node.child_by_field_name("function")
        if function is not None and function.type == "attribute" and text(function.child_by_field_name("attribute")) == "__contains__":
            # `t.__contains__("cuda")` is `"cuda" in t`: str.__contains__ takes no tuple, so it becomes the helper call
            tested = text(function.child_by_field_name("object"))
            outcome.changes.append(Change(node.start_byte, node.end_byte, f"{dev}.names_accelerator({tested})", "", 0))
            outcome.uses |= {"ACCELERATOR_TYPES", "names_accelerator"}
            return None
        outcome.changes.append(Change(literals[0].start_byte, literals[0].end_byte, f"{dev}.ACCELERATOR_TYPES", "", 0))
        outcome.uses.add("ACCELERATOR_TYPES")
        return None
    if node.type != "comparison_operator":
        return "not a comparison"
    operators = [text(op) for op in node.children_by_field_name("operators")]
    operands = node.named_children
    if len(operators) != 1 or len(operands) != 2:
        return "a chained comparison"
    left, right = operands
    operator = " ".join(operators[0].split())
    if operator in {"==", "!="}:
        tested = right if _is_cuda_literal(left) else left if _is_cuda_literal(right) else None
        if tested is None:
            return "compares with a device name other than \"cuda\""
        membership = "in" if operator == "==" else "not in"
        outcome.changes.append(Change(node.start_byte, node.end_byte,
                                      f"{text(tested)} {membership} {dev}.ACCELERATOR_TYPES", "", 0))
        outcome.uses.add("ACCELERATOR_TYPES")
        return None
    if operator not in {"in", "not in"}:
        return "not an equality or membership test"
    if _is_cuda_literal(left):
        picked = _picked_type(node)
        if picked is not None and operator == "in":
            outcome.changes.append(Change(picked.start_byte, picked.end_byte,
                                          f"{dev}.accelerator_type({text(right)})", "", 0))
            outcome.uses |= {"ACCELERATOR_TYPES", "accelerator_type"}
            outcome.test = "value"
            return None
        call = f"{dev}.names_accelerator({text(right)})"
        if operator == "not in":
            parent = node.parent
            call = f"not {call}" if parent is not None and parent.type in _LOOSE_PARENTS else f"(not {call})"
        outcome.changes.append(Change(node.start_byte, node.end_byte, call, "", 0))
        outcome.uses |= {"ACCELERATOR_TYPES", "names_accelerator"}
        return None
    collection = _unwrap(right)
    if collection.type not in {"tuple", "list", "set"}:
        return "a membership test in something other than a literal collection"
    cuda = next((item for item in collection.named_children if _is_cuda_literal(item)), None)
    if cuda is None:
        return "the collection names \"cuda\" only inside another value"
    quote = text(cuda)[0]
    outcome.changes.append(Change(cuda.end_byte, cuda.end_byte, f", {quote}npu{quote}", "", 0))
    outcome.test = "widen"
    return None


def _picked_type(test: Node) -> Node | None:
    """The conditional `"cuda" if <test> else "cpu"` whose condition is test, else None."""
    node = test
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    parent = node.parent
    if parent is None or parent.type != "conditional_expression" or len(parent.named_children) != 3:
        return None
    chosen, condition, other = parent.named_children
    if condition != node or not _is_cuda_literal(chosen) or _plain_string(_unwrap(other)) != "cpu":
        return None
    return parent


def _attribute(node, data, finding, edit, style, outcome) -> str | None:
    attribute = node
    while attribute is not None and attribute.type != "attribute":
        attribute = attribute.parent
    if attribute is None or text(attribute.child_by_field_name("attribute")) not in edit.apis:
        return "not an attribute the edit rewrites"
    parent = attribute.parent
    if parent is not None and parent.type in {"assignment", "augmented_assignment"} \
            and parent.child_by_field_name("left") == attribute:
        return "the attribute is assigned, not read"
    target = attribute.child_by_field_name("object")
    new = _fill(style.template(edit), style, object=text(target))
    outcome.changes.append(Change(attribute.start_byte, attribute.end_byte, new, "", 0))
    outcome.test = "test" if edit.guard == "branch" else None
    return None


def _collection(node, data, finding, edit, style, outcome) -> str | None:
    collection = node
    while collection is not None and collection.type not in {"list", "tuple", "set"}:
        collection = collection.parent
    if collection is None:
        return "not a collection literal"
    why = _accepts(collection, edit.only_in)
    if why is not None:
        return why
    cuda = next((item for item in collection.named_children if _plain_string(item) in edit.values), None)
    if cuda is None:
        return "no \"cuda\" element"
    quote = text(cuda)[0]
    added = _fill(style.template(edit), style).replace('"', quote)
    outcome.changes.append(Change(cuda.end_byte, cuda.end_byte, f", {added}", "", 0))
    return None


_HANDLERS = {
    "callee": _callee,
    "name": _name,
    "string": _string,
    "method": _method,
    "autocast": _autocast,
    "after": _after,
    "guard_import": _guard_import,
    "device_test": _device_test,
    "attribute": _attribute,
    "collection": _collection,
}


def _marked_line(statement: Node, site: Node) -> int:
    """The row the `# ascend:` comment goes above: the statement's first, except for a parameter default. Its comment
    goes above the parameter where the signature spans several lines (inside the parentheses, beside the change it
    marks: round 22 port hunk 4), else above the `def` (between the decorators and the `def`)."""
    parameters = site.parent
    while parameters is not None and parameters.type not in {"parameters", "block", "module"}:
        parameters = parameters.parent
    if parameters is not None and parameters.type == "parameters":
        parameter = site
        while parameter.parent is not None and parameter.parent.id != parameters.id:
            parameter = parameter.parent
        if parameter.start_point[0] > parameters.start_point[0]:
            return parameter.start_point[0]
    definition = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else None
    if definition is not None and definition.start_byte <= site.start_byte:
        return definition.start_point[0]
    return statement.start_point[0]


def _anchor(node: Node) -> Node | None:
    """The statement the site belongs to: the nearest ancestor directly in a module or block body. Its comment goes
    above the line it starts on (for `if x: f()` that is the `if` line, still a valid place for a comment)."""
    current = node
    while current is not None and (current.parent is None or current.parent.type not in STATEMENT_PARENTS):
        current = current.parent
    return current
