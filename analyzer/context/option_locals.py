"""A local name that holds a command-line option's value: `opt_lower = args.opt.lower()` ... `elif opt_lower ==
'fusedlamb':` (ConvNeXt's optim_factory.py), `optimizer_type = args.optimizer_type` ... `optimizer_type =
optimizer_type.lower()` (kohya's train_util.py). An arm testing the local tests the option, so switches.option_value_test
reads it as the option's arm.

Every binding of the local in its function that can reach the test must be one of: a read of the one option (`args.X`,
optionally normalised by .lower()/.upper()/.strip()/.casefold()), the local normalised (`x = x.lower()`), a string
literal (a value the local may hold besides the option's: kohya's `optimizer_type = "AdamW8bit"` under
`--use_8bit_adam`), or one part of the local split (`x = x.split("_")[-1]`, or through a local holding the split).
A config's value read by an attribute path (`opt_lower = config.TRAIN.OPTIMIZER.NAME.lower()`) is an option too.
A split part is tested as a substring of the option's value: an option holding the part holds it as a substring, so
the arm is taken for at least the values an exact reading would take. Anything else, and the local is no option."""

from __future__ import annotations

from typing import NamedTuple

from ascend_feasibility.analyzer.context.config_paths import config_path
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

NORMALISERS = {"lower", "upper", "strip", "casefold"}  # string methods that keep which option value it is


class LocalOption(NamedTuple):
    name: str  # the option's dest (`opt` for `args.opt`)
    literals: tuple[str, ...]  # string literals the local is also bound to
    split: bool  # a binding keeps one part of the value split: the arm's values are substrings of the option's


def option_local(subject: Node, objects: frozenset[str]) -> LocalOption | None:
    """The option the local `subject` holds where it is tested, or None."""
    from ascend_feasibility.analyzer.context.switches import PARAMETER_REBINDINGS, _enclosing, _parameter

    function = _enclosing(subject, "function_definition")
    body = function.child_by_field_name("body") if function is not None else None
    name = parsing.text(subject)
    if body is None or _parameter(function, name) is not None:
        return None
    query = parsing.query("python", PARAMETER_REBINDINGS)
    # the local's bindings spell its name: only the nodes around its occurrences are matched; every binding is read
    # only where a split's holder is looked for (_split_of)
    named = parsing.captures_around(query, body, frozenset({subject.text})).get("target", [])
    looped = _in_loop(subject, function)
    bindings = [n for n in named if parsing.text(n) == name and (looped or n.start_byte < subject.start_byte)]
    targets = None
    options, literals, split = set(), [], False
    for binding in bindings:
        assignment = binding.parent
        if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("left") != binding:
            return None
        right = _normalised(assignment.child_by_field_name("right"))
        if right is None:
            return None
        if right.type == "identifier" and parsing.text(right) == name:
            continue
        if _plain_string(right):
            literals.append(_string(right))
            continue
        if right.type == "subscript":  # one part of the local or of the option split
            if targets is None:
                targets = parsing.captures(query, body).get("target", [])
            right, split = _split_of(right, targets), True
            if right is None:
                return None
            if right.type == "identifier" and parsing.text(right) == name:
                continue
        option = _option_read(right, objects)
        if option is None:
            return None
        options.add(option)
    if len(options) != 1:
        return None
    return LocalOption(options.pop(), tuple(literals), split)


def _normalised(node: Node | None) -> Node | None:
    """`x.lower().strip()` → `x`: what a chain of value-keeping string methods is called on."""
    while node is not None and node.type == "call":
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if (function is None or function.type != "attribute" or arguments is None or arguments.named_children
                or parsing.text(function.child_by_field_name("attribute")) not in NORMALISERS):
            return node
        node = function.child_by_field_name("object")
    return node


def _option_read(node: Node, objects: frozenset[str]) -> str | None:
    """`args.opt` (an object the conventions name as parsed arguments): "opt"; `config.TRAIN.OPTIMIZER.NAME`, a
    config's value (config_paths): CONFIG_PREFIX + "TRAIN.OPTIMIZER.NAME"."""
    from ascend_feasibility.analyzer.context.switches import CONFIG_PREFIX

    if node.type != "attribute":
        return None
    holder, attribute = node.child_by_field_name("object"), node.child_by_field_name("attribute")
    if holder is None or attribute is None:
        return None
    if parsing.text(holder).rsplit(".", 1)[-1] in objects:
        return parsing.text(attribute)
    path = config_path(node)
    return CONFIG_PREFIX + path if path is not None else None


def _split_of(node: Node, targets: list[Node]) -> Node | None:
    """What `x.split("_")[-1]` splits (`x`, value-keeping methods left off), also through `parts[-1]` where
    `parts = x.split("_")` is the one binding of `parts`; None for another subscript."""
    value, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
    if value is None or index is None or _integer(index) is None:
        return None
    if value.type == "identifier":
        holders = [t for t in targets if parsing.text(t) == parsing.text(value)]
        assignment = holders[0].parent if len(holders) == 1 else None
        if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("left") != holders[0]:
            return None
        value = assignment.child_by_field_name("right")
    function = value.child_by_field_name("function") if value is not None and value.type == "call" else None
    arguments = value.child_by_field_name("arguments") if function is not None else None
    if function is None or function.type != "attribute" or arguments is None \
            or parsing.text(function.child_by_field_name("attribute")) not in {"split", "rsplit"}:
        return None
    separators = arguments.named_children
    if len(separators) > 1 or (separators and not _plain_string(separators[0])):
        return None
    return _normalised(function.child_by_field_name("object"))


def _integer(node: Node) -> int | None:
    text = parsing.text(node)
    return int(text) if text.removeprefix("-").isdigit() and node.type in {"integer", "unary_operator"} else None


def _in_loop(node: Node, function: Node) -> bool:
    """Is `node` inside a loop of `function`? A binding later in the loop then reaches it too."""
    current = node.parent
    while current is not None and current != function:
        if current.type in {"for_statement", "while_statement"}:
            return True
        current = current.parent
    return False


def _plain_string(node: Node) -> bool:
    return node.type == "string" and not any(c.type == "interpolation" for c in node.named_children)


def _string(node: Node) -> str:
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def literal_text(node: Node) -> str | None:
    """A plain string literal's text, or the literal a value-keeping method leaves of it (`"AdamW8bit".lower()` →
    "adamw8bit"); None for anything else."""
    methods = []
    while node.type == "call":
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if (function is None or function.type != "attribute" or arguments is None or arguments.named_children
                or parsing.text(function.child_by_field_name("attribute")) not in NORMALISERS):
            return None
        methods.append(parsing.text(function.child_by_field_name("attribute")))
        node = function.child_by_field_name("object")
    if not _plain_string(node):
        return None
    text = _string(node)
    for method in reversed(methods):
        text = getattr(text, method)()
    return text
