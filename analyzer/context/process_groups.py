"""A collective gated on `dist.is_initialized()` in a project that never starts a process group does not run.

moshi's k-means codebook init calls `distributed.gather(...)` under `if _is_distributed():`, where
`def _is_distributed(): return distributed.is_initialized() and distributed.get_world_size() > 1`; nothing in the tree
calls `init_process_group` (nor deepspeed's `init_distributed`, nor imports a framework that starts the group for the
code it runs: accelerate, lightning, the HF Trainer), so the test never holds and the collective never runs: its
finding is `optional` ("no process group is ever initialised in the project"). Per file (`read`): whether it starts
a process group (knowledge/context/conventions.toml `opt_in.process_group_initialisers` / `process_group_frameworks`)
and the if-arms whose condition needs `is_initialized()` of torch.distributed, written out or through a helper of the
same file whose one `return` needs it (`and`, never `or` or `not`). Per project (`never_initialised`): those arms,
where no file starts a group.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

MAX_NODES = 200000
MAX_ARMS = 200
DIST_OBJECTS = frozenset({"dist", "distributed", "torch.distributed"})  # what `<object>.is_initialized()` is called on
TEST = "is_initialized"
REASON = "no process group is ever initialised in the project: `{condition}` never holds"


def starts_group(called: Callable[[], Iterable[str]], imports: Iterable[str], data: bytes) -> bool:
    """Does a file with these called names (last part of each call; `called()` gives them) and absolute imports start
    a process group? `data`: the unit's bytes, which the called names are read from."""
    initialisers, frameworks = _starters()
    if may_call_initialiser(data) and any(name in initialisers for name in called()):
        return True
    # a framework or one of its submodules: one set test and one C-level prefix test per import (a loop over the
    # frameworks per import cost more than the rest of the phase facts on plain files)
    return any(module in frameworks or module.startswith(_submodule_prefixes()) for module in imports)


def may_call_initialiser(data: bytes) -> bool:
    """The trigger gate of the called names: a call named `init_process_group` spells those ASCII bytes in the
    unit's source, so a unit spelling no initialiser's name calls none, and its calls' names need not be read
    (decoding every call's name cost more than the rest of the phase facts on plain files)."""
    return any(word in data for word in _initialiser_words())


@functools.cache
def _initialiser_words() -> tuple[bytes, ...]:
    return tuple(name.encode("utf-8") for name in _starters()[0])


@functools.cache
def _submodule_prefixes() -> tuple[str, ...]:
    return tuple(f"{framework}." for framework in _starters()[1])


@functools.cache
def _starters() -> tuple[frozenset[str], frozenset[str]]:
    conventions = load_context_conventions().opt_in
    return frozenset(conventions.process_group_initialisers), frozenset(conventions.process_group_frameworks)


def gated_arms(tree: Node, text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, condition) of the if/elif bodies whose condition needs torch.distributed's
    `is_initialized()`, directly or through a one-return helper of the file."""
    if TEST not in text:
        return []
    if tree.descendant_count <= MAX_NODES:  # the walks below would read every node: a query finds the few they use
        found = parsing.captures(parsing.query("python", READ_NODES), tree)
        helpers = _helper_returns(found.get("function", []))
        # the walk's order: a node before its descendants, a later sibling's subtree before an earlier one's
        branches = sorted(found.get("branch", []), key=lambda node: (node.end_byte, -node.start_byte), reverse=True)
        return _arms(branches, helpers)
    helpers = _helpers(tree)
    arms = []
    stack, seen = [tree], 0
    while stack and seen < MAX_NODES and len(arms) < MAX_ARMS:
        node = stack.pop()
        seen += 1
        if node.type in {"if_statement", "elif_clause"}:
            arms += _arms([node], helpers)
        stack.extend(node.named_children)
    return arms


# The nodes gated_arms reads: functions (one-return helpers) and if/elif branches.
READ_NODES = "(function_definition) @function (if_statement) @branch (elif_clause) @branch"


def _arms(branches: list[Node], helpers: dict[str, Node]) -> list[tuple[int, int, str]]:
    """(first line, last line, condition) of the branches, in order, whose condition needs a process group (at most
    MAX_ARMS)."""
    arms = []
    for node in branches:
        condition, body = node.child_by_field_name("condition"), node.child_by_field_name("consequence")
        if condition is not None and body is not None and _needs_group(condition, helpers):
            arms.append((body.start_point.row + 1, body.end_point.row + 1, parsing.text(condition)))
            if len(arms) >= MAX_ARMS:
                break
    return arms


def never_initialised(facts) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, reason) of the arms that need a process group, where no file starts one."""
    if any(f.starts_process_group for f in facts):
        return {}
    return {f.path: [(first, last, REASON.format(condition=condition)) for first, last, condition in f.process_arms]
            for f in facts if f.process_arms}


def _needs_group(condition: Node, helpers: dict[str, Node], depth: int = 0) -> bool:
    """The condition holds only where `dist.is_initialized()` does: the call itself, a conjunct of `and`, or a call of
    a helper whose return needs it."""
    while condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    if condition.type == "boolean_operator":
        operator = condition.child_by_field_name("operator")
        if operator is None or parsing.text(operator) != "and":
            return False
        return any(_needs_group(side, helpers, depth) for side in (condition.child_by_field_name("left"),
                                                                     condition.child_by_field_name("right"))
                   if side is not None)
    if condition.type != "call":
        return False
    function = condition.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "attribute":
        name, owner = function.child_by_field_name("attribute"), function.child_by_field_name("object")
        if name is not None and parsing.text(name) == TEST:
            return owner is not None and parsing.text(owner) in DIST_OBJECTS
        if owner is None or parsing.text(owner) not in {"self", "cls"} or name is None:
            return False
        function = name
    if function.type != "identifier" or depth >= 3:
        return False
    returned = helpers.get(parsing.text(function))
    return returned is not None and _needs_group(returned, helpers, depth + 1)


def _helpers(tree: Node) -> dict[str, Node]:
    """name → the expression of the one `return` of each function or method defined once under that name whose body
    (past a docstring) is that return."""
    functions = []
    stack, seen = [tree], 0
    while stack and seen < MAX_NODES:
        node = stack.pop()
        seen += 1
        if node.type == "function_definition":
            functions.append(node)
        stack.extend(node.named_children)
    return _helper_returns(functions)


def _helper_returns(functions: list[Node]) -> dict[str, Node]:
    """`_helpers` of these function definitions (in any order: a name defined twice is no helper either way)."""
    found: dict[str, Node | None] = {}
    for node in functions:
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        statements = [s for s in (body.named_children if body is not None else []) if s.type != "comment"]
        if statements and statements[0].type == "expression_statement" and statements[0].named_children \
                and statements[0].named_children[0].type == "string":
            statements = statements[1:]  # the docstring
        returned = statements[0].named_children[0] if len(statements) == 1 \
            and statements[0].type == "return_statement" and statements[0].named_children else None
        if name is not None:
            key = parsing.text(name)
            found[key] = None if key in found else returned  # defined twice: no helper
    return {name: value for name, value in found.items() if value is not None}
