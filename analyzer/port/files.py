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
