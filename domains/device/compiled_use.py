"""Is the module `torch.compile` returns ever called? `model = torch.compile(model)` then only `model.generate(...)`.

torch.compile is lazy: it wraps the module in an OptimizedModule and compiles on the first call of the wrapper
(`__call__`, `forward`). Every other attribute goes through OptimizedModule's `__getattr__` to the original module:
`model.generate(...)` runs the original's generate, whose own calls of `self(...)` are the original's, eager, and
`model.save_pretrained(...)` saves the original. So where the name bound to the wrapper is afterwards only read for
attributes (alpaca-lora's generate.py: `model = torch.compile(model)` then `model.generate(...)` in a nested function;
its finetune.py: `trainer = Trainer(model=model)` before the compile, then only `model.save_pretrained(...)`), nothing
is ever compiled, on CUDA or on the NPU, and there is nothing to port.

Read in the function that binds it (a plain name, `name = torch.compile(...)`): every occurrence of the name after the
binding (and any in a nested function or lambda, which may run later) must be the object of an attribute other than
the wrapper's compiled entries, or a new binding of the name. A call of the name, handing it on (an argument,
`return`, a container, another name or attribute), or an assignment inside a loop (which may run again before an
earlier use) keeps the compile. A module-level binding may be imported elsewhere and is not read.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 50_000  # the walk over the function holding the binding
COMPILED_ENTRIES = frozenset({"forward", "__call__", "_call_impl", "_orig_mod"})  # what the wrapper itself runs compiled
LOOPS = frozenset({"for_statement", "while_statement"})
NESTED = frozenset({"function_definition", "lambda"})


def never_called(call: Node) -> bool:
    """`call` (a torch.compile call) is bound to a plain name of a function whose later uses only read attributes."""
    assignment = parsing.assignment_of(call)
    if assignment is None:
        return False
    target = assignment.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return False
    function = assignment.parent
    while function is not None and function.type not in {"function_definition", "module"}:
        if function.type in LOOPS:
            return False
        function = function.parent
    if function is None or function.type != "function_definition":
        return False
    name = parsing.text(target)
    try:
        for node in parsing.walk(function.child_by_field_name("body"), limit=MAX_NODES, strict=True):
            if node.type != "identifier" or parsing.text(node) != name or node == target or _other_name(node):
                continue
            if node.end_byte <= assignment.end_byte and not _nested(node, function):
                continue  # before the binding (or its own argument): the uncompiled module
            if not (_attribute_read(node) or _bound(node)):
                return False
    except parsing.WalkLimit:
        return False
    return True


def _other_name(node: Node) -> bool:
    """`x.model`'s attribute or `f(model=x)`'s keyword: the same spelling, not the name."""
    parent = node.parent
    return parent is not None and (
        (parent.type == "attribute" and parent.child_by_field_name("attribute") == node)
        or (parent.type == "keyword_argument" and parent.child_by_field_name("name") == node))


def _attribute_read(node: Node) -> bool:
    parent = node.parent
    if parent is None or parent.type != "attribute" or parent.child_by_field_name("object") != node:
        return False
    attribute = parent.child_by_field_name("attribute")
    return attribute is not None and parsing.text(attribute) not in COMPILED_ENTRIES


def _bound(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node


def _nested(node: Node, function: Node) -> bool:
    current = node.parent
    while current is not None and current != function:
        if current.type in NESTED:
            return True
        current = current.parent
    return False
