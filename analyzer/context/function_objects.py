"""A function named as a condition without being called (`if is_xformers_available:`) is always true.

SUPIR's tilevae.py imports diffusers' `is_xformers_available` and tests `if is_xformers_available:` (no call): a
function object is truthy, so the `if` arm always runs and its `elif hasattr(F, "scaled_dot_product_attention"):` and
`else:` arms never do (round 30 A2 86, verdicts V1/V2). `not name` is always false the same way.

A name is read as a function where the unit binds it only as one: a module-level `def`, or an import by name of a
lower-case availability helper (`is_..._available`, the gate prefixes and suffixes of the guard conventions, spelled
lower-case: libraries define these as functions; upper-case `HAS_X` / `X_AVAILABLE` are constants), and the unit
assigns it nowhere else (no assignment, loop or `with` target, parameter, `global`, or a second definition).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 200_000  # nodes of a unit walked for its bindings
DEF_BLANKS = frozenset(b" \t\f\\\r\n")  # what may stand between `def` and the name it defines
BINDING_PARENTS = {"assignment", "augmented_assignment", "for_statement", "for_in_clause", "as_pattern_target",
                   "global_statement", "nonlocal_statement", "named_expression", "pattern_list", "tuple_pattern",
                   "list_pattern"}
PARAMETERS = {"parameters", "lambda_parameters", "default_parameter", "typed_parameter", "typed_default_parameter",
              "list_splat_pattern", "dictionary_splat_pattern"}


def tested_name(condition: Node) -> tuple[str, bool] | None:
    """(name, negated) of a condition that is a bare name, `not` of one, either in parentheses; None otherwise."""
    negated = False
    while condition.type in {"not_operator", "parenthesized_expression"} and condition.named_children:
        if condition.type == "not_operator":
            negated = not negated
            condition = condition.child_by_field_name("argument") or condition.named_children[-1]
        else:
            condition = condition.named_children[0]
    return (parsing.text(condition), negated) if condition.type == "identifier" else None


def function_names(root: Node, prefixes: frozenset[str], suffixes: frozenset[str]) -> frozenset[str]:
    """The names the unit binds only to a function (see the module's docstring)."""
    defined: dict[str, int] = {}
    imported: set[str] = set()
    other: set[str] = set()
    for node in parsing.walk(root, limit=MAX_NODES):
        kind = node.type
        if kind == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                text = parsing.text(name)
                if node.parent is not None and node.parent.type in {"module", "decorated_definition"} \
                        and (node.parent.type == "module" or node.parent.parent is not None and node.parent.parent.type == "module"):
                    defined[text] = defined.get(text, 0) + 1
                else:
                    other.add(text)  # a nested or method definition of the same name shadows it somewhere
        elif kind == "class_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                other.add(parsing.text(name))
        elif kind == "import_from_statement":
            for name in node.children_by_field_name("name"):
                if name.type == "aliased_import":
                    alias = name.child_by_field_name("alias")
                    local = parsing.text(alias) if alias is not None else ""
                else:
                    local = parsing.text(name).rsplit(".", 1)[-1]
                if _helper_shaped(local, prefixes, suffixes):
                    imported.add(local)
                else:
                    other.add(local)
        elif kind == "import_statement":
            for name in node.children_by_field_name("name"):
                alias = name.child_by_field_name("alias") if name.type == "aliased_import" else None
                other.add(parsing.text(alias) if alias is not None else parsing.text(name).split(".", 1)[0])
        elif kind == "identifier" and _bound_here(node):
            other.add(parsing.text(node))
    names = {name for name, count in defined.items() if count == 1} | imported
    return frozenset(name for name in names if name not in other and not (name in defined and name in imported))


def may_be_function(name: str, data: bytes, prefixes: frozenset[str], suffixes: frozenset[str]) -> bool:
    """`name` may be one of `function_names` of the unit whose bytes are `data`: it is helper-shaped, or some
    occurrence follows `def` across blanks and line continuations. A cheap test before that walk of the whole unit."""
    if _helper_shaped(name, prefixes, suffixes):
        return True
    word = name.encode("utf-8")
    at = data.find(word)
    while at >= 0:
        start = at
        while start > 0 and data[start - 1] in DEF_BLANKS:
            start -= 1
        if start >= 3 and data[start - 3:start] == b"def":
            return True
        at = data.find(word, at + 1)
    return False


def _helper_shaped(name: str, prefixes: frozenset[str], suffixes: frozenset[str]) -> bool:
    return name == name.lower() and any(name.startswith(p) for p in prefixes) \
        and any(name.endswith(s) for s in suffixes if s == s.lower())


def _bound_here(identifier: Node) -> bool:
    """The identifier is assigned, looped over, bound by `with ... as`, a walrus, a parameter, or declared global."""
    parent = identifier.parent
    if parent is None:
        return False
    kind = parent.type
    if kind in PARAMETERS:
        if kind in {"default_parameter", "typed_default_parameter"}:
            name = parent.child_by_field_name("name")
            return name is not None and name.id == identifier.id
        return True
    if kind in {"assignment", "augmented_assignment"}:
        left = parent.child_by_field_name("left")
        return left is not None and left.id == identifier.id
    if kind in {"for_statement", "for_in_clause"}:
        left = parent.child_by_field_name("left")
        return left is not None and left.id == identifier.id
    if kind == "named_expression":
        name = parent.child_by_field_name("name")
        return name is not None and name.id == identifier.id
    return kind in BINDING_PARENTS - {"assignment", "augmented_assignment", "for_statement", "for_in_clause",
                                       "named_expression"}


# `if name:` / `elif not name:`: the only tests a function object decides (tested_name); `if` statements with none
# are never walked for their arms. The phase facts read its captures from the unit's combined query (TESTED_KEY).
TESTED_QUERY = """
(if_statement condition: [(identifier) (not_operator) (parenthesized_expression)] @condition)
(elif_clause condition: [(identifier) (not_operator) (parenthesized_expression)] @condition)
"""


def dead_arms(root: Node, prefixes: frozenset[str], suffixes: frozenset[str],
              conditions: list[Node] | None = None) -> list[tuple[Node, str]]:
    """The arms of the unit that a test naming a function without calling it never lets run, as the guards read one
    arm at a time (guards.py _function_object_arm), here for the whole unit: every arm after `if name:` (or `elif
    name:`), and the body of `if not name:`. (arm, why) in source order; an arm inside a dead one is left out.
    `conditions`: TESTED_QUERY's `condition` captures over `root` in source order, where the caller has them."""
    if conditions is None:
        conditions = parsing.captures(parsing.query("python", TESTED_QUERY), root).get("condition", [])
    tested = [(c, found) for c in conditions if (found := tested_name(c)) is not None]
    # function_names walks the whole unit: only where a tested name may be one (an imported helper-shaped name, or a
    # name the unit defines with `def`), which few files have
    data = root.text or b""
    if not any(may_be_function(name, data, prefixes, suffixes) for _, (name, _) in tested):
        return []
    names = function_names(root, prefixes, suffixes)
    statements = {}
    for condition, (name, _) in tested:
        if name in names:
            statement = condition.parent if condition.parent.type == "if_statement" else condition.parent.parent
            statements[statement.id] = statement
    result: list[tuple[Node, str]] = []
    for statement in sorted(statements.values(), key=lambda s: s.start_byte):
        if result and statement.start_byte < result[-1][0].end_byte:
            continue  # inside an arm already dead
        arms = [(statement.child_by_field_name("condition"), statement.child_by_field_name("consequence"), statement)]
        arms += [(c.child_by_field_name("condition"), c.child_by_field_name("consequence") if c.type == "elif_clause"
                  else c.child_by_field_name("body"), c)
                 for c in statement.children if c.type in {"elif_clause", "else_clause"}]
        for index, (condition, body, holder) in enumerate(arms):
            found = tested_name(condition) if condition is not None else None
            if found is None or found[0] not in names or body is None:
                continue
            line = condition.start_point.row + 1
            if found[1]:  # `not name`: always false, its own body never runs
                result.append((body, f"line {line}: `{found[0]}` names a function and is not called: the test is "
                                     "always false, so this arm never runs"))
                continue
            why = (f"line {line}: `{found[0]}` names a function and is not called: the test is always true, so the "
                   "later arms never run")
            result += [(later_holder, why) for _, _, later_holder in arms[index + 1:]]
            break
    return result
