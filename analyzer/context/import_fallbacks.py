"""What a guarded import falls back to where it fails: fairseq's LightweightConv tries the CUDA LightconvLayer
`if torch.cuda.is_available(): try: from ...lightconv_layer import LightconvLayer ... except ImportError: print(e)`
and otherwise returns the pure-PyTorch `LightweightConv1dTBC(...)`; load_libnat's handler imports the CPU `libnat`.

The fallback is read from the syntax only: the first name the ImportError handler imports, calls (other than logging)
or binds in the import's place; a module-level handler that only sets a flag (`EXTENSION_BUILT = False`) falls back
to the code that checks the flag, unless a check of it only raises, and so does a handler that carries on where the
flag is set False before the try and bound in its body (`ENABLED = False; try: import ext; ENABLED = True`); else, in a function, the first call or returned
name of the statement after the guard. A handler that re-raises, and a guard with nothing after it, give none: the
import then counts as required.

A module-level try whose handler offers nothing in the import's place (it only reports or passes, sets a flag no code
checks, or imports the same package again) is no optional import (without_alternative): the module's code uses the
names as if the import succeeded (round 41 V-3, CenterPoint's spconv: box_np_ops.py `except: print("Import spconv
fail ...")`, scn.py `try: import spconv.pytorch as spconv` / `except: import spconv`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import _imported_roots
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
STOPS = {"exit", "_exit", "abort", "fail", "skip", "importorskip", "require_version", "require_version_core"}
CONDITIONS = "(if_statement condition: (_) @condition) (elif_clause condition: (_) @condition)"
REPORTING = {"print", "warn", "warning", "info", "debug", "error", "exception", "write", "format", "str", "repr"}


def import_fallback(statement: Node, cuda_only: bool = False, memo: dict | None = None) -> tuple[int, str] | None:
    """(the first line of the outermost guard, the fallback's name) of an import statement inside a try whose
    ImportError handler falls back, or, with `cuda_only` (the import's reach is cuda-only-guarded), inside an if with
    no else that a fallback follows; else None. `memo`: kept by the caller for the statements of one syntax tree."""
    attempt = _enclosing_try(statement)
    if attempt is None:
        branch = _enclosing_if(statement) if cuda_only else None
        return _following(branch, branch.child_by_field_name("consequence")) if branch is not None else None
    handlers = [c for c in attempt.children if c.type == "except_clause" and _catches_import_error(c)]
    if not handlers:
        return None
    guard = attempt
    # `if torch.cuda.is_available(): try: ...`: the if whose whole body is the try is the guard
    block = guard.parent
    if block is not None and block.type == "block" and len(block.named_children) == 1:
        owner = block.parent
        if owner is not None and owner.type == "if_statement" and not any(
                c.type in {"else_clause", "elif_clause"} for c in owner.children):
            guard = owner
    for handler in handlers:
        if any(c.type == "raise_statement" for c in _statements(handler)):
            return None
    for handler in handlers:
        name = _named_in(_statements(handler))
        if name is not None:
            return guard.start_point.row + 1, name
    flags = [flag for handler in handlers for flag in _flags(_statements(handler))]
    if not flags and not _in_function(guard) and caught_import(statement):
        flags = _raised_flags(attempt, guard)
    if flags and not _in_function(guard):
        return _checked(flags, guard, {} if memo is None else memo)
    return _following(guard, attempt.child_by_field_name("body"))


def without_alternative(statement: Node) -> bool:
    """Is the import a module-level try's whose ImportError handlers give nothing in its place: each only reports
    (print, a logger or warnings call) or passes while the file uses the import's names outside the try and the try
    sets no flag, or loads the failed package again (retries_package)? A handler that
    sets a flag is left to the code that checks it, which may sit in another file. In a function or a class the import
    is lazy: its callers decide."""
    attempt = _enclosing_try(statement)
    if attempt is None or _in_definition(attempt):
        return False
    handlers = [c for c in attempt.children if c.type == "except_clause" and _catches_import_error(c)]
    if not handlers:
        return False
    if retries_package(statement):
        return True
    return all(_only_reports(_statements(h)) for h in handlers) and not _sets_flag(attempt) \
        and _used_after(statement, attempt)


def _sets_flag(attempt: Node) -> bool:
    """Does the try's body set a name to True (`HAVE_TE = True` after `import transformer_engine`, Megatron's
    fp8_utils.py)? The code that checks the flag is the fallback, as for a handler's `HAVE_TE = False`."""
    body = attempt.child_by_field_name("body")
    for statement in body.named_children if body is not None else []:
        assignment = parsing.statement_assignment(statement)
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if right is not None and right.type == "true":
            return True
    return False


def _used_after(statement: Node, attempt: Node) -> bool:
    """Does the file read a name the import binds outside the try (box_np_ops.py's functions calling rbbox_iou)? Code
    that uses the import only inside the try's body (DeepSpeed zero/utils.py: `try: import apex;
    ZERO_SUPPORTED_OPTIMIZERS.append(apex.optimizers.FusedAdam)` / `except ImportError: pass`) skips it where it fails."""
    names = _bound_names(statement)
    if not names:
        return False
    root = parsing.root_of(statement)
    spelled = frozenset(name.encode("utf-8") for name in names)
    found = parsing.captures_around(parsing.query("python", "(identifier) @name"), root, spelled).get("name", [])
    return any(parsing.text(n) in names and not attempt.start_byte <= n.start_byte < attempt.end_byte
               and _reads_module_name(n) for n in found)


def _reads_module_name(identifier: Node) -> bool:
    """Is the identifier a read of the module-level name: not part of an import, nor a parameter or a name a
    function's parameter of the same spelling shadows (HunyuanDiT's hunyuan_models.py `def set_attn_mode(self,
    xformers, mem_eff)` beside its `import xformers`)?"""
    name = parsing.text(identifier)
    current = identifier.parent
    while current is not None:
        if current.type in {"import_statement", "import_from_statement", "parameters", "keyword_argument"} \
                and (current.type != "keyword_argument" or current.child_by_field_name("name") == identifier):
            return False
        if current.type in {"function_definition", "lambda"}:
            parameters = current.child_by_field_name("parameters")
            if parameters is not None and any(n.type == "identifier" and parsing.text(n) == name
                                              for n in parsing.walk(parameters, limit=200)):
                return False
        current = current.parent
    return True


def _bound_names(statement: Node) -> set[str]:
    """The local names an import statement binds: `import a.b` binds a, `import a as x` and `from m import y as x`
    bind x, `from m import y` binds y (a star import: none known)."""
    names = set()
    for item in statement.children_by_field_name("name"):
        alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
        if alias is not None:
            names.add(parsing.text(alias))
        elif statement.type == "import_statement":
            names.add(parsing.text(item).split(".")[0].strip())
        else:
            names.add(parsing.text(item).split(".")[-1].strip())
    return names


def retries_package(statement: Node) -> bool:
    """Does the ImportError handler around the import load the same package again (`try: import spconv.pytorch as
    spconv` / `except: import spconv`)? Where the package is missing the handler fails as well: the import is not
    caught, and either arm needs the package."""
    attempt = _enclosing_try(statement)
    roots = _imported_roots(statement) - {""}
    bound = _bound_names(statement)
    if attempt is None or not roots:
        return False
    handlers = [c for c in attempt.children if c.type == "except_clause" and _catches_import_error(c)]
    if not handlers:
        return False
    for handler in handlers:
        # the handler's own statements: an import under `if TYPE_CHECKING:` (Megatron's transformer_engine.py) or
        # another test does not run wherever the handler does
        imports = [s for s in _statements(handler) if s.type in {"import_statement", "import_from_statement"}]
        # the same names from the same package: another package's, or other names (Megatron's hybrid_flex_router.py:
        # TEColumnParallelLinear, else the project's own ColumnParallelLinear), are an alternative
        if not any(_imported_roots(i) & roots and bound <= _bound_names(i) for i in imports):
            return False
    return True


def caught_import(statement: Node) -> bool:
    """Does the import sit in a try whose handler catches its ImportError and carries on (neither raises nor exits)?
    AutoGPTQ's qlinear_cuda.py: `except ImportError: logger.warning(...); _autogptq_cuda_available = False`."""
    attempt = _enclosing_try(statement)
    handlers = [c for c in attempt.children if c.type == "except_clause" and _catches_import_error(c)] if attempt else []
    if not handlers:
        return False
    for handler in handlers:
        for node in (n for s in _statements(handler) for n in _walk(s)):
            if node.type == "raise_statement":
                return False
            if node.type == "call" and parsing.text(node.child_by_field_name("function")).rsplit(".", 1)[-1] in STOPS:
                return False
    return True


def _flags(statements: list[Node]) -> list[str]:
    """`EXTENSION_BUILT = False` / `ext = None`: names a handler that does nothing else sets to say the import failed."""
    names = []
    for statement in statements:
        assignment = parsing.statement_assignment(statement)
        if assignment is None:
            return []
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier" or right.type not in {"false", "none"}:
            return []
        names.append(parsing.text(left))
    return names


def _raised_flags(attempt: Node, guard: Node) -> list[str]:
    """TGI's bloom_modeling.py: `CUSTOM_KERNELS_ENABLED = False` at the top level, then `try: from custom_kernels import
    ...; CUSTOM_KERNELS_ENABLED = True except ImportError: pass`. The names the try's body binds (outside functions)
    that a top-level statement before the guard sets to False or None are flags: still false where the import fails."""
    body = attempt.child_by_field_name("body")
    top = guard
    while top.parent is not None and top.parent.type != "module":
        top = top.parent
    if body is None or top.parent is None:
        return []
    unset = set()
    for statement in top.parent.named_children:
        if statement.start_byte >= top.start_byte:
            break
        unset.update(_flags([statement]))
    if not unset:
        return []
    bound = []
    for node in _walk(body):
        if node.type == "assignment":
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier" and parsing.text(left) in unset:
                bound.append(parsing.text(left))
    return list(dict.fromkeys(bound))


def _checked(flags: list[str], guard: Node, memo: dict) -> tuple[int, str] | None:
    """fairseq's ngram_repeat_block.py: `if not EXTENSION_BUILT or not torch.cuda.is_available(): return False` and
    the module's Python path runs instead. The flag is a fallback when the module checks it and no check of it only
    raises; the reason names the first check."""
    root = parsing.root_of(guard)
    key = (root.id, tuple(flags))
    if key not in memo:  # a condition that mentions a flag spells it: only those around the flags are read
        spelled = frozenset(flag.encode("utf-8") for flag in flags)
        memo[key] = parsing.captures_around(parsing.query("python", CONDITIONS), root, spelled).get("condition", [])
    checks = [condition.parent for condition in memo[key] if _mentions(condition, flags)]
    if not checks:
        return None
    for check in checks:
        branches = [check.child_by_field_name("consequence")] + [c for c in check.children if c.type == "else_clause"]
        if any(b is not None and _raises_only(b) for b in branches):
            return None
    first = checks[0]
    return first.start_point.row + 1, f"the code that checks {flags[0]}"


def _mentions(condition: Node, flags: list[str]) -> bool:
    spelled = parsing.text(condition)
    if not any(flag in spelled for flag in flags):
        return False
    return any(n.type == "identifier" and parsing.text(n) in flags for n in _walk(condition))


def _raises_only(branch: Node) -> bool:
    body = branch if branch.type == "block" else next((c for c in branch.children if c.type == "block"), None)
    statements = [c for c in body.named_children if c.type != "comment"] if body is not None else []
    return bool(statements) and all(s.type == "raise_statement" for s in statements)


def _following(guard: Node, taken: Node | None) -> tuple[int, str] | None:
    """The fallback after a guard inside a function whose guarded block returns (LightweightConv: `return
    LightconvLayer(...)` in the try, `return LightweightConv1dTBC(...)` after it): the first call or returned name of
    the next statement. A guarded block that goes on, and a raise after the guard, have none."""
    if not _in_function(guard) or taken is None:
        return None  # after a module-level try come the module's definitions, not a fallback
    if not any(c.type == "return_statement" for c in taken.named_children):
        return None
    following = parsing.next_code_sibling(guard)
    if following is None or following.type == "raise_statement":
        return None
    name = _named_in([following])
    return (guard.start_point.row + 1, name) if name is not None else None


def _enclosing_if(node: Node) -> Node | None:
    """The nearest if statement around the import, when the import is in its body and it has no else."""
    current = node.parent
    while current is not None and current.type not in {"function_definition", "class_definition", "module"}:
        if current.type == "if_statement":
            if any(c.type in {"else_clause", "elif_clause"} for c in current.children):
                return None
            return current
        current = current.parent
    return None


def _enclosing_try(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in {"function_definition", "class_definition", "module"}:
        if current.type == "block" and current.parent is not None and current.parent.type == "try_statement" \
                and current.parent.child_by_field_name("body") == current:
            return current.parent
        current = current.parent
    return None


def _only_reports(statements: list[Node]) -> bool:
    for statement in statements:
        if statement.type in {"pass_statement", "comment"}:
            continue
        call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None or parsing.text(function).rsplit(".", 1)[-1] not in REPORTING - {"format", "str", "repr"}:
            return False
    return True


def _in_definition(node: Node) -> bool:
    current = node.parent
    while current is not None and current.type != "module":
        if current.type in {"function_definition", "class_definition"}:
            return True
        current = current.parent
    return False


def _in_function(node: Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            return True
        if current.type in {"class_definition", "module"}:
            return False
        current = current.parent
    return False


def _catches_import_error(handler: Node) -> bool:
    caught = [c for c in handler.named_children if c.type != "block"]
    if not caught:
        return True  # a bare except
    words = {parsing.text(n) for n in _walk(caught[0]) if n.type == "identifier"}
    return bool(words & IMPORT_ERRORS)


def _statements(handler: Node) -> list[Node]:
    body = next((c for c in handler.children if c.type == "block"), None)
    return body.named_children if body is not None else []


def _named_in(statements: list[Node]) -> str | None:
    """The first imported name, called name or returned name of these statements that is not logging."""
    for statement in statements:
        for node in _walk(statement):
            if node.type in {"import_from_statement", "import_statement"}:
                names = node.children_by_field_name("name")
                if names:
                    return _imported_name(names[0])
            elif node.type == "call":
                function = node.child_by_field_name("function")
                name = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
                if name and name not in REPORTING and name not in STOPS and not name.endswith(("Error", "Exception")):
                    return parsing.text(function)
            elif node.type == "assignment" and statement.type == "expression_statement":
                # `except ImportError: FusedLayerNorm = torch.nn.LayerNorm` binds another implementation; a flag
                # (`EXTENSION_BUILT = False`, `xops = None`) is none
                value = node.child_by_field_name("right")
                if value is not None and value.type in {"identifier", "attribute"}:
                    return parsing.text(value)
            elif node.type == "return_statement" and node.named_children and node.named_children[0].type == "identifier":
                return parsing.text(node.named_children[0])
    return None


def _imported_name(name: Node) -> str:
    """`a.b` of `a.b` and of `a.b as c` (read from the alias's `name` field: any whitespace may stand before `as`)."""
    dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
    return parsing.text(dotted if dotted is not None else name)


def _walk(node: Node, limit: int = 400):
    """Pre-order, bounded: a handler is a few statements."""
    return parsing.walk(node, limit=limit, source_order=True)


def caught_calls(calls: list[Node], names: set[str]) -> dict[str, int]:
    """Of `names`, those every call of which (`calls`: the called identifiers of one unit) sits in the body of a try,
    in the same function, whose handler catches an import error and carries on (raises nothing): name → the line of
    the first such handler. A helper that imports a missing extension raises there, and the caller's handler skips
    the rest of its try (sam2's fill_holes_in_mask_scores around get_connected_components, which imports sam2._C)."""
    seen: dict[str, int | None] = {}
    for call in calls:
        name = parsing.text(call)
        if name not in names or seen.get(name, 0) is None:
            continue
        handler = _catching_handler(call)
        if handler is None:
            seen[name] = None
        else:
            seen.setdefault(name, handler.start_point.row + 1)
    return {name: line for name, line in seen.items() if line is not None}


def _catching_handler(node: Node) -> Node | None:
    """The first except clause, of the trys around `node` in its function, that catches an import error and carries
    on: it neither raises nor stops (sys.exit, pytest.skip), nor marks the failure for later code (`ext = None`,
    `available = False`: what reads the mark decides, as with a module-level flag)."""
    attempt = _enclosing_try(node)
    while attempt is not None:
        for handler in attempt.children:
            if handler.type == "except_clause" and _catches_import_error(handler) and not _stops(handler) \
                    and not _marks(handler):
                return handler
        attempt = _enclosing_try(attempt)
    return None


def _stops(handler: Node) -> bool:
    for statement in _statements(handler):
        for node in _walk(statement):
            if node.type == "raise_statement":
                return True
            if node.type == "call":
                function = node.child_by_field_name("function")
                if function is not None and parsing.text(function).rsplit(".", 1)[-1] in STOPS:
                    return True
    return False


def _marks(handler: Node) -> bool:
    """The handler binds None or False to a name."""
    for statement in _statements(handler):
        for node in _walk(statement):
            if node.type == "assignment":
                value = node.child_by_field_name("right")
                if value is not None and value.type in {"none", "false"}:
                    return True
    return False
