"""tree-sitter languages, parsers and compiled queries, built once per process.

Trees, nodes and queries cannot be pickled: workers build their own through these functions and return
plain data. No syntax tree outlives the file it was parsed from.
"""

from __future__ import annotations

import functools
import operator

import tree_sitter_bash
import tree_sitter_cpp
import tree_sitter_cuda
import tree_sitter_python
from tree_sitter import Language, Node, Parser, Query, QueryCursor

_GRAMMARS = {
    "python": tree_sitter_python.language,
    "bash": tree_sitter_bash.language,
    "cuda": tree_sitter_cuda.language,
    "cpp": tree_sitter_cpp.language,
}
TUPLE_TARGETS = frozenset({"pattern_list", "tuple_pattern", "list_pattern"})
TUPLE_VALUES = frozenset({"expression_list", "tuple", "list"})


@functools.cache
def language(name: str) -> Language:
    return Language(_GRAMMARS[name]())


@functools.cache
def parser(name: str) -> Parser:
    return Parser(language(name))


@functools.cache
def query(name: str, source: str) -> Query:
    return Query(language(name), source)


def parse(name: str, data: bytes) -> Node:
    return parser(name).parse(data).root_node


_START_BYTE = operator.attrgetter("start_byte")


def captures(compiled: Query, node: Node) -> dict[str, list[Node]]:
    """Captures of every pattern, each list in source order."""
    found = QueryCursor(compiled).captures(node)
    return {name: sorted(nodes, key=_START_BYTE) for name, nodes in found.items()}


def captures_around(compiled: Query, node: Node, words: frozenset[bytes]) -> dict[str, list[Node]]:
    """The captures `captures` gives, for patterns each of whose captures spells one of `words` in its own text:
    the cursor visits only the nodes that overlap an occurrence of a word, not the whole tree. Most of a query's
    cost is the walk over every node."""
    data = node.text
    if data is None:  # a tree parsed without its bytes kept
        return captures(compiled, node)
    cursor = QueryCursor(compiled)
    found: dict[str, dict[Node, None]] = {}
    for start, end in _near(data, words):
        cursor.set_byte_range(node.start_byte + start, node.start_byte + end)  # a module starts after leading blanks
        for name, nodes in cursor.captures(node).items():
            found.setdefault(name, {}).update(dict.fromkeys(nodes))  # a node over two ranges is captured twice
    return {name: sorted(nodes, key=_START_BYTE) for name, nodes in found.items()}


_NEAR = 64  # occurrences closer than this share one range: a cursor call costs more than the bytes between them


def _near(data: bytes, words: frozenset[bytes]) -> list[tuple[int, int]]:
    """The byte ranges of the words' occurrences in `data`, in order, with close ones merged."""
    spans = []
    for word in words:
        at = data.find(word)
        while at >= 0:
            spans.append((at, at + len(word)))
            at = data.find(word, at + 1)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + _NEAR:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def blanked(data: bytes, nodes) -> bytes:
    """`data` with each node's bytes replaced by spaces, offsets kept (a word search that must not see them)."""
    if not nodes:
        return data
    result = bytearray(data)
    for node in nodes:
        result[node.start_byte:node.end_byte] = b" " * (node.end_byte - node.start_byte)
    return bytes(result)


def root_of(node: Node) -> Node:
    """The root of the tree `node` belongs to (its module node): the key readers memoise a whole unit's facts by."""
    while node.parent is not None:
        node = node.parent
    return node


def enclosing(node: Node, types) -> Node | None:
    """The nearest ancestor of `node` (not itself) whose type is one of `types`; None where there is none."""
    scope = node.parent
    while scope is not None and scope.type not in types:
        scope = scope.parent
    return scope


def text(node: Node) -> str:
    data = node.text  # each access copies the bytes out of the tree: read it once
    return data.decode("utf-8", "replace") if data is not None else ""


MAX_DEPTH = 1000  # CPython refuses far shallower code; queries over deeper trees cost quadratic time
MAX_NODES = 4_000_000


def callee_name(call: Node) -> str | None:
    """The last name of the function a call names: `f(...)` → f, `a.b.f(...)` → f; None for any other callee."""
    function = call.child_by_field_name("function")
    if function is None:
        return None
    if function.type == "attribute":
        return text(function.child_by_field_name("attribute"))
    return text(function) if function.type == "identifier" else None


def keywords(call: Node) -> dict[str, Node]:
    """Keyword arguments of a call: name → value node."""
    args = call.child_by_field_name("arguments")
    result = {}
    for child in args.named_children if args is not None else []:
        if child.type == "keyword_argument":
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if name is not None and value is not None:
                result[text(name)] = value
    return result


def if_arms(statement: Node) -> list[tuple[Node | None, Node | None]]:
    """(condition, body) of each arm of an `if` statement in order: the `if`, each `elif`, and the `else` (condition
    None)."""
    arms = [(statement.child_by_field_name("condition"), statement.child_by_field_name("consequence"))]
    for clause in statement.children:
        if clause.type == "elif_clause":
            arms.append((clause.child_by_field_name("condition"), clause.child_by_field_name("consequence")))
        elif clause.type == "else_clause":
            arms.append((None, clause.child_by_field_name("body")))
    return arms


def statement_assignment(statement: Node) -> Node | None:
    """The plain assignment (`x = ...`) a statement is, else None."""
    inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    return inner if inner is not None and inner.type == "assignment" else None


def assignment_of(value: Node) -> Node | None:
    """The assignment whose right side `value` is (`x = torch.compile(m)` for the call), else None."""
    parent = value.parent
    return parent if parent is not None and parent.type == "assignment" and parent.child_by_field_name("right") == value \
        else None


def assigned_value(target: Node) -> Node | None:
    """The value `target` receives from the assignment whose left side it is: the whole right side, or, for an item of
    a tuple or list target (`a, b = x, y`, `(a, b) = (x, y)`), the right side's item at the same place (None where the
    right side is no literal tuple or list of as many items, or a starred item makes the places differ)."""
    parent = target.parent
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == target:
        return parent.child_by_field_name("right")
    if parent is None or parent.type not in TUPLE_TARGETS:
        return None
    assignment = parent.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("left") != parent:
        return None
    right = assignment.child_by_field_name("right")
    targets = [c for c in parent.named_children if c.type != "comment"]
    values = [c for c in right.named_children if c.type != "comment"] if right is not None and right.type in TUPLE_VALUES \
        else []
    starred = any(n.type in {"list_splat_pattern", "list_splat"} for n in (*targets, *values))
    return values[targets.index(target)] if len(values) == len(targets) and not starred else None


def next_code_sibling(node: Node) -> Node | None:
    """The next named sibling that is not a comment (the statement after `node`), else None."""
    following = node.next_named_sibling
    while following is not None and following.type == "comment":
        following = following.next_named_sibling
    return following


def name_bound_by_statement(value: Node) -> tuple[Node, Node] | None:
    """The identifier and the expression statement of `name = value` standing as a statement of its own, else None."""
    assignment = assignment_of(value)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    statement = assignment.parent if assignment is not None else None
    if left is None or left.type != "identifier" or statement is None or statement.type != "expression_statement":
        return None
    return left, statement


def over_budget(root: Node) -> str | None:
    """Why a tree is too big or too deep to query (a reason for `skipped`), or None. Iterative; stops at the limit."""
    count = root.descendant_count
    if count > MAX_NODES:
        return f"more than {MAX_NODES:,} syntax nodes: not analysed"
    if count <= MAX_DEPTH:
        return None  # a tree cannot be deeper than it has nodes
    cursor = root.walk()
    depth = 0
    while True:
        # A subtree of n nodes is at most n levels deep: one that cannot reach the limit is not walked.
        if cursor.node.descendant_count > MAX_DEPTH - depth and cursor.goto_first_child():
            depth += 1
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels: not analysed"
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None
            depth -= 1


class WalkLimit(Exception):
    """A strict walk met more nodes than its limit."""


def walk(root: Node | None, *, limit: int | None = None, prune=None, enter_root: bool = False, named: bool = True,
         source_order: bool = False, strict: bool = False):
    """The nodes of `root`'s subtree, pre-order, as the analyzers' stack loops visit them: a node is popped from the
    end of a stack and its children are pushed after it is seen, so the last child comes first (with `source_order`,
    the first). `named`: named children only. At most `limit` nodes (a limit is part of a walk's behaviour on huge
    input: each caller keeps its own); past them the walk stops, or, when `strict`, raises WalkLimit (a subtree too
    large to read whole). `prune` (a set of node types, or a predicate on a node): such a node is yielded but its
    children are not walked; with `enter_root`, the root's are walked whatever it is (a function read from inside)."""
    if root is None:
        return
    left = -1 if limit is None else limit
    stack = [root]
    pop, extend = stack.pop, stack.extend
    if prune is None and named and not source_order:  # the common walk, without the per-node tests below
        while stack:
            if left == 0:
                if strict:
                    raise WalkLimit
                return
            left -= 1
            node = pop()
            yield node
            extend(node.named_children)
        return
    types = prune if isinstance(prune, (set, frozenset)) else None
    while stack:
        if left == 0:
            if strict:
                raise WalkLimit
            return
        left -= 1
        node = pop()
        yield node
        if prune is not None and (node.type in types if types is not None else prune(node)) \
                and (node is not root or not enter_root):
            continue
        children = node.named_children if named else node.children
        extend(reversed(children) if source_order else children)


def in_walk_order(nodes) -> list[Node]:
    """`nodes` (a query's captures, say) in the order `walk` yields them: a node before the nodes inside it, else the
    one later in the source first. For nodes no two of which span the same bytes (calls, definitions)."""
    return sorted(nodes, key=lambda node: (-node.end_byte, node.start_byte))


IDENTIFIERS = "(identifier) @identifier"


def identifiers_named(root: Node, name: str, limit: int) -> list[Node]:
    """The Python identifiers spelling `name` among the nodes `walk(root, limit=limit)` yields, in its order (the last
    first: identifiers hold no identifier). Where the walk would read the whole subtree (it has no more nodes than the
    limit), the cursor visits only the nodes around the name's occurrences instead."""
    if root.descendant_count > limit:
        return [node for node in walk(root, limit=limit) if node.type == "identifier" and text(node) == name]
    found = captures_around(query("python", IDENTIFIERS), root, frozenset({name.encode("utf-8")}))
    return [node for node in reversed(found.get("identifier", [])) if text(node) == name]


def named_binding(assignment: Node) -> tuple[str, Node] | None:
    """The plain name an assignment binds and the function (or module) it is bound in; None for other targets."""
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return None
    scope = enclosing(assignment, {"function_definition", "module"})
    return text(left), scope


def import_bound_name(statement: Node, name: Node) -> str:
    """The name an import binds: its alias, else the first part of `import a.b`, else the last of `from m import a`."""
    if name.type == "aliased_import":
        alias = name.child_by_field_name("alias")
        if alias is not None:
            return text(alias)
    dotted = text(name.child_by_field_name("name") if name.type == "aliased_import" else name)
    return dotted.split(".")[0] if statement.type == "import_statement" else dotted.split(".")[-1]


def top_level_from_imports(root: Node) -> dict[str, tuple[str, str]]:
    """local name → (module as written, dots included; its name there) for the file's top-level
    `from module import name [as local]` statements; a later import of the same local name wins, as at run time."""
    imported = {}
    for statement in root.named_children:
        if statement.type != "import_from_statement":
            continue
        module = statement.child_by_field_name("module_name")
        for item in statement.children_by_field_name("name"):
            original = item.child_by_field_name("name") if item.type == "aliased_import" else item
            local = item.child_by_field_name("alias") if item.type == "aliased_import" else item
            if module is not None and original is not None and local is not None:
                imported[text(local)] = (text(module), text(original))
    return imported


def each_statement_is(block: Node, kind: str, test) -> bool:
    """Is `block` a non-empty block whose every statement (comments aside) is an expression statement holding a `kind`
    node (a call, an assignment) that passes `test`?"""
    if block.type != "block":
        return False
    statements = [s for s in block.named_children if s.type != "comment"]
    for statement in statements:
        inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if inner is None or inner.type != kind or not test(inner):
            return False
    return bool(statements)


def function_definitions(block: Node | None) -> list[Node]:
    """The function definitions directly in `block` (a class body, a module), decorated ones unwrapped."""
    found = []
    for item in block.named_children if block is not None else []:
        definition = item.child_by_field_name("definition") if item.type == "decorated_definition" else item
        if definition is not None and definition.type == "function_definition":
            found.append(definition)
    return found


def first_error_row(root: Node) -> int | None:
    """0-based row of the first syntax error, or None when the tree is clean."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node.start_point.row
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_error or c.is_missing]))
    return root.start_point.row


def later_uses(assignment: Node, left: Node) -> list[Node] | None:
    """The uses of the plain name `left` that `assignment` binds, after it in its function (or module), the names
    other assignments bind left out; None where the assignment sits in neither."""
    scope = enclosing(assignment, {"function_definition", "module"})
    if scope is None:
        return None
    return [use for use in identifiers_named(scope, text(left), 20000)
            if use.start_byte >= assignment.end_byte and not _bound_by_assignment(use)]


def _bound_by_assignment(identifier: Node) -> bool:
    parent = identifier.parent
    target = parent.child_by_field_name("left") if parent is not None and parent.type == "assignment" else None
    return target is not None and (target.start_byte, target.end_byte, target.type) == (
        identifier.start_byte, identifier.end_byte, identifier.type)
