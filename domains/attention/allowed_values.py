"""An attention name listed among the values a parameter accepts: `valid = [None, "flash_attention_2", "sdpa", "eager"]`
read only by `if attn_implementation not in valid: raise ValueError(...)` (round 24 lmms-eval's model wrappers), or
argparse's `choices=["sdpa", "flash_attention_2"]`. The collection names what is allowed, not what is chosen: the
request is the value that reaches the loader (the parameter's default, what a launcher passes), reported there.

A collection counts as allowed values when it is
- the right operand of `in` / `not in` itself (`if x not in ("sdpa", "flash_attention_2")`),
- a `choices=` argument (argparse, click), or
- bound to a plain name (`valid = [...]`, at module level or in a function) whose every read in the scope that binds it
  is the right operand of `in` / `not in` or a `choices=` argument (or part of a `raise`, the guard's message naming
  the accepted values: `f"Must be one of {valid}"`). A name read anywhere else (iterated, indexed,
  passed on, returned) may hand the element on, and the literal stays a possible request.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

COLLECTIONS = frozenset({"list", "tuple", "set"})
CONVERSIONS = frozenset({"set", "frozenset", "tuple", "list"})  # frozenset({...}) is still the collection
MEMBERSHIP = frozenset({"in", "not in"})
CHOICES = "choices"
MAX_NODES = 50_000  # the walk over the binding scope looking for reads of the name


def in_allowed_values(node: Node) -> bool:
    """Is the string `node` an element of a collection that only lists accepted values?"""
    collection = node.parent
    if collection is None or collection.type not in COLLECTIONS:
        return False
    collection = _converted(collection)
    if _membership_or_choices(collection):
        return True
    assignment = collection.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("right") != collection:
        return False
    target = assignment.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return False
    return _read_only_as_allowed(_scope(assignment), parsing.text(target), target)


def _converted(collection: Node) -> Node:
    """`frozenset({...})`, `set([...])`: the call that wraps the literal, else the literal."""
    arguments = collection.parent
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    if call is None or call.type != "call" or len(arguments.named_children) != 1:
        return collection
    function = call.child_by_field_name("function")
    return call if function is not None and parsing.text(function) in CONVERSIONS else collection


def _membership_or_choices(expression: Node) -> bool:
    """Is `expression` the right operand of `in`/`not in`, or the value of a `choices=` argument?"""
    parent = expression.parent
    if parent is None:
        return False
    if parent.type == "keyword_argument":
        name = parent.child_by_field_name("name")
        return name is not None and parsing.text(name) == CHOICES and parent.child_by_field_name("value") == expression
    if parent.type != "comparison_operator":
        return False
    operators = [" ".join(parsing.text(op).split()) for op in parent.children_by_field_name("operators")]
    operands = parent.named_children
    return len(operands) == 2 and operators and operators[0] in MEMBERSHIP and operands[1] == expression


def _scope(statement: Node) -> Node:
    """The body of the function that binds the name, else the module."""
    current = statement.parent
    while current is not None and current.type not in {"function_definition", "module"}:
        current = current.parent
    if current is None:
        root = parsing.root_of(statement)
        return root
    return current.child_by_field_name("body") if current.type == "function_definition" else current


def _inside_raise(node: Node) -> bool:
    """Is `node` part of a `raise` statement (the message of the guard that rejects other values)?"""
    current = node.parent
    while current is not None and current.type not in {"block", "module"}:
        if current.type == "raise_statement":
            return True
        current = current.parent
    return False


def _read_only_as_allowed(scope: Node | None, name: str, target: Node) -> bool:
    """Is `name` read in `scope` as a membership test's right operand or `choices=`, and otherwise only in the message
of a `raise`?"""
    if scope is None:
        return False
    reads = 0
    try:
        for current in parsing.walk(scope, limit=MAX_NODES, strict=True):
            if current.type != "identifier" or current == target or parsing.text(current) != name:
                continue
            parent = current.parent
            if parent is not None and parent.type in {"attribute", "keyword_argument"} and parent.child_by_field_name(
                    "attribute" if parent.type == "attribute" else "name") == current:
                continue  # `obj.valid`, `f(valid=...)`: another name spelled the same
            if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == current:
                return False  # bound again: which binding a read sees is not followed
            if _membership_or_choices(current):
                reads += 1
            elif _inside_raise(current):
                continue  # `raise ValueError(f"must be one of {valid}")`: the guard's message shows the list
            else:
                return False
    except parsing.WalkLimit:
        return False
    return reads > 0
