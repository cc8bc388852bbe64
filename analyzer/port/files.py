"""One file's rewrite: its sites' changes, the `# ascend: RULE` comments, the imports the changes need, and the
check that the result still parses (tree-sitter, no ERROR node) and compiles before anything is kept."""

from __future__ import annotations

from dataclasses import dataclass, field

from ascend_feasibility.analyzer.port.edits import MARK, Change, SiteOutcome
from ascend_feasibility.analyzer.reading.parsing import parse, text, walk
from tree_sitter import Node

IMPORT_TYPES = {"import_statement", "import_from_statement"}


@dataclass
class FileRewrite:
    path: str
    old: str
    new: str | None = None
    sites: list[SiteOutcome] = field(default_factory=list)
    problem: str | None = None  # why the file was left unpatched


def identifiers(root: Node, limit: int = 2_000_000) -> set[str]:
    return {text(node) for node in walk(root, limit=limit, named=False) if node.type == "identifier"}


def binds_torch(root: Node) -> bool:
    """A module-level `import torch` (or `import torch.x`, which binds `torch` too)."""
    for statement in root.children:
        if statement.type != "import_statement":
            continue
        for name in statement.children_by_field_name("name"):
            if name.type == "dotted_name" and text(name).split(".")[0] == "torch":
                return True
            if name.type == "aliased_import" and text(name.child_by_field_name("alias")) == "torch":
                return True
    return False


def imports_torch_npu(root: Node, limit: int = 200_000) -> bool:
    """The file imports torch_npu somewhere already (an earlier port, or the project's own setup)."""
    return imports_any(root, {"torch_npu"}, limit)


def imports_any(root: Node, modules: set[str] | frozenset[str], limit: int = 200_000) -> bool:
    """The file imports one of these top-level modules somewhere (at module level or inside a function)."""
    for node in walk(root, limit=limit, prune=IMPORT_TYPES, named=False):
        if node.type in IMPORT_TYPES:
            names = [text(n) for n in node.children_by_field_name("name")] + \
                [text(node.child_by_field_name("module_name") or node)]
            if any(name.split()[0].split(".")[0] in modules for name in names):  # "torch_npu\tas tn" too
                return True
    return False


def has_relative_import(root: Node) -> bool:
    return any(
        s.type == "import_from_statement" and (s.child_by_field_name("module_name") or s).type == "relative_import"
        for s in root.children
    )


def import_point(root: Node, data: bytes) -> int:
    """Byte offset where new imports go: after the leading run of imports, past a shebang, encoding comment,
    docstring and `__future__` imports."""
    point, first = 0, True
    for statement in root.children:
        if statement.type == "comment":
            if first:  # shebang and coding lines stay first
                end = data.find(b"\n", statement.end_byte)
                point = len(data) if end < 0 else end + 1
            continue
        is_docstring = first and statement.type == "expression_statement" and statement.child(0) is not None \
            and statement.child(0).type == "string"
        first = False
        if is_docstring or statement.type == "future_import_statement" or statement.type in IMPORT_TYPES:
            end = data.find(b"\n", statement.end_byte)
            point = len(data) if end < 0 else end + 1
            continue
        break
    return point


PATH_EDITS = {("sys.path", "append"), ("sys.path", "insert"), ("sys.path", "extend"), ("site", "addsitedir")}
LOADED_AT_CALL = {"function_definition", "decorated_definition"}


def _is_path_edit(statement: Node) -> bool:
    """`sys.path.append(...)`, `sys.path.insert(...)`, `site.addsitedir(...)` as a statement of its own, or an `if`
    (`if root not in sys.path:`) whose block holds only such statements."""
    if statement.type == "if_statement":
        block = statement.child_by_field_name("consequence")
        return statement.child_by_field_name("alternative") is None and block is not None and bool(block.named_children) \
            and all(_is_path_edit(s) for s in block.named_children if s.type != "comment")
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return False
    call = statement.named_children[0]
    function = call.child_by_field_name("function") if call.type == "call" else None
    if function is None or function.type != "attribute":
        return False
    owner = function.child_by_field_name("object")
    return (text(owner), text(function.child_by_field_name("attribute"))) in PATH_EDITS


def past_path_edits(root: Node, data: bytes, point: int, change_starts: list[int]) -> int:
    """Where the port's own imports go in a file that edits sys.path before importing from it (`sys.path.append('./')`
    then `from utils.x import ...`): after the last module-level edit that an import follows, and past the run of
    imports after it, so that the device module's import (`from modules import _device`) sees the folder the file
    adds. `point` (import_point) stays where a rewritten statement that runs at load lies before that place (it
    would use the import before it is made) or where no import follows an edit."""
    statements = [s for s in root.children if s.type != "comment"]
    last = None
    for index, statement in enumerate(statements):
        if statement.start_byte >= point and _is_path_edit(statement) \
                and any(s.type in IMPORT_TYPES for s in statements[index + 1:]):
            last = index
    if last is None:
        return point
    end = statements[last].end_byte
    for statement in statements[last + 1:]:
        if statement.type not in IMPORT_TYPES:
            break
        end = statement.end_byte
    line_end = data.find(b"\n", end)
    moved = len(data) if line_end < 0 else line_end + 1
    if any(s.type not in LOADED_AT_CALL and s.start_byte < moved and s.end_byte > point
           and any(s.start_byte <= at < s.end_byte for at in change_starts) for s in statements):
        return point
    return moved


def after_torch_import(root: Node, data: bytes) -> int | None:
    """Byte offset of the line after the first module-level `import torch`, when there is one."""
    for statement in root.children:
        if statement.type == "import_statement" and any(
            name.type == "dotted_name" and text(name) == "torch" for name in statement.children_by_field_name("name")
        ):
            end = data.find(b"\n", statement.end_byte)
            return len(data) if end < 0 else end + 1
    return None


def compose(data: bytes, changes: list[Change], headers: list[tuple[int, str]]) -> tuple[str, list[Change]]:
    """Apply the changes (dropping any that overlap an earlier one) and the comment lines; returns the new text
    and the changes that were dropped."""
    kept: list[Change] = []
    dropped: list[Change] = []
    for change in sorted(changes, key=lambda c: (c.start, c.end, c.rule, c.new)):
        if kept and (change.start, change.end, change.new) == (kept[-1].start, kept[-1].end, kept[-1].new):
            kept.append(change)  # the same text for the same range (two rules on one literal): one edit
            continue
        if any(k.start < change.end and change.start < k.end for k in kept):
            dropped.append(change)
            continue
        kept.append(change)
    comments: dict[int, set[str]] = {}
    for change in kept:
        comments.setdefault(change.comment_at, set()).add(change.rule)
    pieces: list[tuple[int, int, bytes]] = []
    last = None
    for change in kept:
        key = (change.start, change.end, change.new)
        if key != last:
            pieces.append((change.start, change.end, change.new.encode("utf-8")))
        last = key
    for offset, rules in comments.items():
        row_end = data.find(b"\n", offset)
        row = data[offset: len(data) if row_end < 0 else row_end]
        indent = row[: len(row) - len(row.lstrip(b" \t"))]
        rewritten = sorted(r for r in rules if not r.startswith("ignore["))
        handled = sorted(r[len("ignore["):-1] for r in rules if r.startswith("ignore["))
        lines = ""
        if handled:
            lines += f"{MARK} ignore[{', '.join(handled)}] (port: completed by the statement after it)\n"
        if rewritten:
            lines += f"{MARK} {', '.join(rewritten)}\n"
        pieces.append((offset, offset, b"".join(indent + line.encode("utf-8") for line in lines.splitlines(keepends=True))))
    for at, header in headers:
        pieces.append((at, at, header.encode("utf-8")))
    out = bytearray(data)
    # from the end, so earlier offsets stay valid; at one offset the comment/header lines go before replacements
    for start, end, new in sorted(pieces, key=lambda p: (p[0], p[1]), reverse=True):
        out[start:end] = new
    return out.decode("utf-8"), dropped


def check(path: str, source: str) -> str | None:
    """None when the rewritten file parses without ERROR nodes and compiles; else why not."""
    root = parse("python", source.encode("utf-8"))
    if root.has_error:
        return "the rewrite does not parse"
    try:
        compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"the rewrite does not compile: {type(exc).__name__}"
    return None
