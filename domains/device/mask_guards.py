"""A CUDA device mask written only when it is unset: the test that guards the write, and a write of the identity list.

Round 35 B1 class 7 (metaseq launcher/slurm.py:153-154, :348-349): `if "CUDA_VISIBLE_DEVICES" not in env:` then
`env["CUDA_VISIBLE_DEVICES"] = ...` made two DEV201 items for one edit. A read that is the test of an `if` (no elif or
else) whose body only assigns the same mask in the same mapping is part of that write: the write's item stands for
both (the read finds the mask unset on Ascend, and the write then runs as it does on CUDA).

Round 35 A1 class 5, B2 class 6 (the same lines): the value written is `",".join(map(str, range(args.num_gpus)))`, the
first N devices in order, which is what every process sees when no mask is set. Each rank then opens its device by
index, 0..N-1, and those indices name the same devices with or without the mask, so on Ascend, where torch_npu reads
ASCEND_RT_VISIBLE_DEVICES only, ignoring it changes nothing the ranks use (low). The identity list is
`",".join(map(str, range(N)))`, `",".join(str(i) for i in range(N))` (or a list comprehension), `range(0, N)`, or a
literal "0,1,...,k-1" of two ids or more; a lone "0" pins one card and keeps the medium item.

Round 38 B2 class 3 (LoFTR src/utils/misc.py:55-63): the read is bound to a name first, `visible = os.getenv(M)`,
and the next statement `if visible is None:` writes the mask (beside other variables, a re-read and log lines), its
`else` only logging. The name is used nowhere after that `if`: the read only guards the write, one item with it."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device import mask_defaults
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

IDENTITY_DEFAULT = "identity-default"  # DEV201's facet: the first N devices, written only when the mask is unset


def only_guards_own_write(literal: Node) -> bool:
    """The mask's name read in the test of an if-statement, without elif or else, whose body only assigns the same
    mask in the same mapping (`if M not in env: env[M] = v`)."""
    statement = parsing.enclosing(literal, {"if_statement"})
    condition = statement.child_by_field_name("condition") if statement is not None else None
    if condition is None or not (condition.start_byte <= literal.start_byte < condition.end_byte):
        return False
    if any(c.type in {"elif_clause", "else_clause"} for c in statement.children):
        return False
    mask = mask_defaults.content(literal)
    if not mask_defaults.asks_unset(condition, mask):
        return False
    body = statement.child_by_field_name("consequence")
    writes = [_mask_write(s, mask) for s in body.named_children] if body is not None else []
    return bool(writes) and all(w is not None for w in writes) and _mapping_of(condition) in {*writes, None}


def bound_read_guards_own_write(literal: Node) -> bool:
    """`v = os.getenv(M)` (or `os.environ.get(M)`) as a statement, whose next statement is `if v is None:` (`== ""`,
    `not v`) writing M in a mapping, every other statement of that arm writing another variable of the mapping, binding
    `v` again or logging, an `else` only logging, and `v` named nowhere after the `if` in the function or module."""
    call = literal.parent.parent if literal.parent is not None else None
    bound = parsing.name_bound_by_statement(call) if call is not None and call.type == "call" else None
    if bound is None:
        return False
    name, statement = bound
    test = parsing.next_code_sibling(statement)
    condition = test.child_by_field_name("condition") if test is not None and test.type == "if_statement" else None
    if condition is None or not _asks_name_unset(condition, parsing.text(name)):
        return False
    mask = mask_defaults.content(literal)
    body = test.child_by_field_name("consequence")
    statements = body.named_children if body is not None else []
    writes = [_mask_write(s, mask) for s in statements]
    if not any(w is not None for w in writes):
        return False
    for s, written in zip(statements, writes, strict=True):
        if written is None and not (_other_write(s) or _rebinds(s, parsing.text(name)) or _logs(s)):
            return False
    for clause in test.children:
        if clause.type == "elif_clause":
            return False
        if clause.type == "else_clause":
            block = clause.child_by_field_name("body")
            if block is None or not all(_logs(s) for s in block.named_children):
                return False
    scope = parsing.enclosing(test, {"function_definition"}) or parsing.root_of(test)
    return not any(node.type == "identifier" and parsing.text(node) == parsing.text(name)
                   and node.start_byte >= test.end_byte for node in parsing.walk(scope, limit=20_000))


def _asks_name_unset(condition: Node, name: str) -> bool:
    """`name is None`, `name == ""`, `not name`."""
    if condition.type == "not_operator":
        argument = condition.child_by_field_name("argument")
        return argument is not None and argument.type == "identifier" and parsing.text(argument) == name
    if condition.type != "comparison_operator" or condition.named_child_count != 2:
        return False
    operators = [parsing.text(o) for o in condition.children_by_field_name("operators")]
    left, right = condition.named_children
    return operators in (["is"], ["=="]) and left.type == "identifier" and parsing.text(left) == name \
        and parsing.text(right) in mask_defaults.UNSET


def _other_write(statement: Node) -> bool:
    """`X["NAME"] = v`: a write of a variable in a mapping (CUDA_DEVICE_ORDER beside the mask)."""
    assignment = parsing.statement_assignment(statement)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    key = left.child_by_field_name("subscript") if left is not None and left.type == "subscript" else None
    return key is not None and key.type == "string"


def _rebinds(statement: Node, name: str) -> bool:
    assignment = parsing.statement_assignment(statement)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    return left is not None and left.type == "identifier" and parsing.text(left) == name


def _logs(statement: Node) -> bool:
    """A call that only shows its arguments (the conventions' message calls: `logger.warning(...)`, `print(...)`)."""
    call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if function is None:
        return False
    guards = load_context_conventions().guards
    last = parsing.text(function).rsplit(".", 1)[-1]
    return last in guards.message_calls or last.startswith(tuple(guards.message_call_prefixes))


def identity_default(literal: Node) -> bool:
    """A write of the mask, made only when it is unset, whose value is the identity list 0..N-1."""
    if not mask_defaults.written_when_unset(literal):
        return False
    value = literal.parent.parent.child_by_field_name("right")
    return value is not None and _identity_list(value)


def _mask_write(statement: Node, mask: str) -> str | None:
    """The mapping's text of `X[M] = v` as an expression statement, or None for anything else."""
    assignment = parsing.statement_assignment(statement)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    if left is None or left.type != "subscript":
        return None
    key, mapping = left.child_by_field_name("subscript"), left.child_by_field_name("value")
    if key is None or mapping is None or key.type != "string" or mask_defaults.content(key) != mask:
        return None
    return parsing.text(mapping)


def _mapping_of(condition: Node) -> str | None:
    """The mapping a `M not in X` test asks (its text); None for the other shapes (`os.environ.get(M)`)."""
    if condition.type == "comparison_operator" and condition.named_child_count == 2 \
            and [parsing.text(o) for o in condition.children_by_field_name("operators")] == ["not in"]:
        return parsing.text(condition.named_children[1])
    return None


def _identity_list(value: Node) -> bool:
    if value.type == "string":
        ids = mask_defaults.content(value).split(",")
        return len(ids) > 1 and ids == [str(i) for i in range(len(ids))]
    if value.type != "call" or parsing.text(value.child_by_field_name("function") or value).split(".")[-1] != "join":
        return False
    joiner = value.child_by_field_name("function").child_by_field_name("object")
    arguments = value.child_by_field_name("arguments")
    if joiner is None or joiner.type != "string" or mask_defaults.content(joiner) != "," or arguments is None:
        return False
    items = [arguments] if arguments.type == "generator_expression" else arguments.named_children  # join(x for ...)
    if len(items) != 1:
        return False
    item = items[0]
    if item.type == "call" and parsing.text(item.child_by_field_name("function")) == "map":
        parts = item.child_by_field_name("arguments").named_children
        return len(parts) == 2 and parsing.text(parts[0]) == "str" and _range_from_zero(parts[1])
    if item.type in {"generator_expression", "list_comprehension"}:
        body = item.child_by_field_name("body")
        clauses = [c for c in item.named_children if c.type in {"for_in_clause", "if_clause"}]
        if body is None or len(clauses) != 1 or clauses[0].type != "for_in_clause":
            return False
        variable, source = clauses[0].child_by_field_name("left"), clauses[0].child_by_field_name("right")
        return variable is not None and source is not None and _range_from_zero(source) \
            and parsing.text(body) == f"str({parsing.text(variable)})"
    return False


def _range_from_zero(node: Node) -> bool:
    """`range(N)` or `range(0, N)`."""
    if node.type != "call" or parsing.text(node.child_by_field_name("function")) != "range":
        return False
    arguments = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
    return len(arguments) == 1 or (len(arguments) == 2 and parsing.text(arguments[0]) == "0")
