"""Imports a file keeps only as comments: `# from .modeling_llama import LlamaModel, LlamaForCausalLM`.

A project that retires a module of its own often comments its import out and leaves the file in place (LLaVA's
llava_llama.py:27 `# from .modeling_llama import ...` beside `from transformers import LlamaModel`; builder.py's
`# from .dev_eva_clip.eva_vit import EvaViTWrapper`). The comment is the project's own word that nothing loads the
module any more (unloaded.py reads it). Each comment holding the word `import` is parsed as Python with tree-sitter;
one that parses to a single import statement, without errors, names the modules it would load: the `from` module and
each `from m import x` as `m.x` (x may be a submodule), or each `import a.b` name. Prose that merely starts with
"from" or "import" ("# import order matters here") does not parse to an import and names nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

COMMENTS = "(comment) @comment"
WORDS = frozenset({b"import"})
# The trigger gate: every Python comment starts with this byte, so a file without it comments nothing out (and holds
# no comment for the query to find); most generated and many small files have none.
COMMENT_MARK = b"#"
IMPORTS = frozenset({"import_statement", "import_from_statement"})
MAX_COMMENT = 500  # a longer comment is prose or a commented block, not one import line


def commented_imports(tree: Node, absolute: Callable[[str], str]) -> list[tuple[str, int]]:
    """(dotted module, line) of each module the file's commented-out import statements name; `absolute` turns a
    relative module (`.modeling_llama`) into its dotted name from the file's package."""
    found: list[tuple[str, int]] = []
    if COMMENT_MARK not in (tree.text or COMMENT_MARK):
        return found
    for comment in parsing.captures_around(parsing.query("python", COMMENTS), tree, WORDS).get("comment", []):
        data = comment.text or b""
        if len(data) > MAX_COMMENT:
            continue
        body = data.lstrip(b"#").strip()
        if not body.startswith((b"from", b"import")):
            continue
        root = parsing.parse("python", body)
        statements = root.named_children
        if root.has_error or len(statements) != 1 or statements[0].type not in IMPORTS:
            continue
        line = comment.start_point.row + 1
        found += [(module, line) for module in _modules(statements[0], absolute)]
    return found


def _modules(statement: Node, absolute: Callable[[str], str]) -> list[str]:
    """The dotted modules one import statement may load."""
    names = [_imported_name(n) for n in statement.children_by_field_name("name")]
    if statement.type == "import_statement":
        return [n for n in names if n]
    source = statement.child_by_field_name("module_name")
    if source is None:
        return []
    module = absolute("".join(parsing.text(source).split()))
    if not module:
        return []
    return [module] + [f"{module}.{n}" for n in names if n]


def _imported_name(name: Node) -> str:
    """`a.b` of `a.b` or `a.b as c`."""
    if name.type == "aliased_import":
        inner = name.child_by_field_name("name")
        return parsing.text(inner) if inner is not None else ""
    return parsing.text(name) if name.type == "dotted_name" else ""
