"""A module-level class or function its file names only where an import has just worked.

metaseq's `get_fused_adam_class()`: `try: fused_adam_cuda = importlib.import_module("fused_adam_cuda"); return
FusedAdamV1` / `except ImportError: ...; return None`. FusedAdamV1 is handed out only after the CUDA extension
loaded; where it is missing (any Ascend host: the extension needs nvcc) the handler's fallback is taken and nothing in
the class runs. So its sites take the import's reach, as a helper called only under an import's availability flag
does (guards.GuardReader._callers_guard). Another file naming the class may use it with no import at all:
propagation.py restores such a site, as for a public helper.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

IMPORT_CALLS = {"import_module", "__import__"}
MAX_NODES = 20_000


@dataclass(frozen=True)
class AfterImport:
    attempt: Node  # the try statement
    uses: tuple[int, ...]  # lines naming the definition (none where the try body defines it)
    module: str  # what the try imports before them


def named_only_after_import(definition: Node, import_errors: frozenset[str], cuda_only) -> AfterImport | None:
    """The try whose body defines `definition` after importing a module (metaseq's FusedAdamV2 after `from
    apex.optimizers import FusedAdam`), or names it there (a module-level class or function), every naming of it in
    the file outside itself sitting so; the try's ImportError handler carrying on. `cuda_only(module)`: is the module
    one that never imports on Ascend (a CUDA extension)? Only such an import counts. Else None."""
    holder = definition.parent.parent if definition.parent is not None and definition.parent.type == "decorated_definition" \
        else definition
    inside = _after_import(holder, import_errors, cuda_only)
    if inside is not None and holder.parent is not None and holder.parent.parent == inside[0]:
        return AfterImport(inside[0], (), inside[1])  # defined in the try body itself: it exists only after the import
    if holder.parent is None or holder.parent.type != "module":
        return None
    name = definition.child_by_field_name("name")
    if name is None:
        return None
    root = parsing.root_of(definition)
    outside = [n for n in parsing.identifiers_named(root, parsing.text(name), MAX_NODES)
               if not definition.start_byte <= n.start_byte < definition.end_byte]
    if not outside or len(outside) > 20:
        return None
    attempts = {_after_import(use, import_errors, cuda_only) for use in outside}
    if None in attempts or len(attempts) != 1:
        return None
    attempt, module = attempts.pop()
    return AfterImport(attempt, tuple(sorted(n.start_point.row + 1 for n in outside)), module)


ATTEMPTS_QUERY = "(try_statement) @try"
_TRY = frozenset({b"try"})


def has_import_attempt(root: Node, import_errors: frozenset[str], cuda_only) -> bool:
    """Does the file hold a try whose body imports a CUDA-only module and whose ImportError handler carries on?
    Where it holds none, named_only_after_import answers None for every definition of the file: the readers ask this
    once per unit first (the cursor visits only the nodes around the word `try`)."""
    for attempt in parsing.captures_around(parsing.query("python", ATTEMPTS_QUERY), root, _TRY).get("try", []):
        body = attempt.child_by_field_name("body")
        if body is None:
            continue
        modules = (_imported_module(statement) for statement in body.named_children)
        if any(module is not None and cuda_only(module) for module in modules) and _carries_on(attempt, import_errors):
            return True
    return False


def _after_import(use: Node, import_errors: frozenset[str], cuda_only) -> tuple[Node, str] | None:
    """(the try, the module) where `use` sits in a try body after an import of a CUDA-only module there, the try
    catching ImportError and carrying on."""
    block = use.parent
    while block is not None and not (block.type == "block" and block.parent is not None
                                     and block.parent.type == "try_statement"
                                     and block.parent.child_by_field_name("body") == block):
        if block.type in {"function_definition", "class_definition", "lambda", "except_clause", "finally_clause"}:
            return None
        block = block.parent
    if block is None:
        return None
    attempt = block.parent
    if not _carries_on(attempt, import_errors):
        return None
    module = None
    for statement in block.named_children:
        if statement.start_byte >= use.start_byte:
            break
        imported = _imported_module(statement)
        if imported is not None and cuda_only(imported):
            module = imported
    return (attempt, module) if module is not None else None


def _imported_module(statement: Node) -> str | None:
    """`import m` / `from m import x` / `x = importlib.import_module("m")`: the module's name."""
    if statement.type in {"import_statement", "import_from_statement"}:
        field = "module_name" if statement.type == "import_from_statement" else "name"
        named = statement.child_by_field_name(field)
        return parsing.text(named.child_by_field_name("name") or named) if named is not None else None
    assignment = parsing.statement_assignment(statement)
    call = assignment.child_by_field_name("right") if assignment is not None else None
    if call is None or call.type != "call" or parsing.callee_name(call) not in IMPORT_CALLS:
        return None
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None or first.type != "string":
        return None
    return "".join(parsing.text(c) for c in first.named_children if c.type == "string_content") or None


def _carries_on(attempt: Node, import_errors: frozenset[str]) -> bool:
    """Does an except clause of the try catch ImportError (or a listed base) without raising?"""
    for clause in attempt.children:
        if clause.type != "except_clause":
            continue
        caught = [c for c in clause.named_children if c.type != "block"]
        names = {parsing.text(n) for c in caught for n in parsing.walk(c, limit=50) if n.type == "identifier"}
        if caught and not names & import_errors:
            continue
        body = next((c for c in clause.named_children if c.type == "block"), None)
        if body is not None and not any(line.type == "raise_statement" for line in body.named_children):
            return True
    return False
