"""A replacement's code rendered at its site from the call's own arguments.

The knowledge base writes a replacement's code as a template (knowledge/models.py, CallShape): ``{param}`` is the
call's argument for that parameter, ``{rest}`` the arguments the template does not place, ``{receiver}`` the object
a method is called on, ``{assigned}`` the value assigned. Rendering binds the site's arguments to the shape's
parameters, so a dtype, a mask, an activation or a value written to an environment variable reaches the snippet
as the user wrote it; an argument the replacement cannot carry is reported (``dropped``) instead of silently lost,
and when the arguments cannot be bound (``*args``, a keyword the shape does not know) no code is shown at all.
Constant branches the defaults leave behind (``x if False else y``, ``None or y``) are folded away. Where the
variable and its twin count in different units (a shape's ``convert``), the value is converted, never copied.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge.models import OPTIONAL, PLACEHOLDER, BilingualText, CallShape, ValueConversion
from tree_sitter import Node

# Argument texts that need no parentheses where the template puts them (`{q}.shape[2]`, `1.0 - {p}`).
ATOMIC = {
    "identifier", "attribute", "call", "subscript", "string", "concatenated_string", "integer", "float", "true",
    "false", "none", "parenthesized_expression", "list", "tuple", "dictionary", "set",
}
FOLD_LIMIT = 16
MAX_SCOPE_NODES = 20_000  # the walk over a function for the calls of a name a callable is bound to
CODE_LIMIT = 2000  # characters: a snippet built from arguments longer than this is not shown (and not folded)


@dataclass(frozen=True)
class Argument:
    keyword: str | None
    text: str
    atomic: bool


@dataclass(frozen=True)
class Site:
    """What a finding's code can be rendered from: a call's arguments, a method's receiver, an assigned value."""

    arguments: tuple[Argument, ...] = ()
    receiver: str | None = None
    value: str | None = None
    opaque: bool = False  # *args / **kwargs: the arguments cannot be bound
    is_call: bool = False
    literal: bool = False  # the value is written out (a literal), not computed (a variable, an expression)
    # a callable named, not called (`fn = torch.cuda.amp.autocast if c else ...`), whose call is not found: the
    # arguments are passed where it is called, so no default stands in for them
    reference: bool = False


@dataclass(frozen=True)
class Rendered:
    code: str | None
    said: tuple[str, ...] = ()  # parameters the call passes whose note (dropped or notes) the finding adds
    unbound: bool = False  # the call's arguments could not be bound: no code, and the finding says so
    text: BilingualText | None = None  # the replacement's texts where the site's value decides them (a conversion)


NO_SITE = Site()


def site_at(unit, span) -> Site:
    """The site a hit's span names in its unit (python and shell kinds; other kinds have no site)."""
    if unit.kind not in {"python", "shell", "dockerfile"}:
        return NO_SITE
    node = unit.tree().descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col))
    if node is None:
        return NO_SITE
    if unit.kind != "python":
        return _shell_site(node)
    return python_site(node)


def python_site(node: Node) -> Site:
    """The call the node is the callee of (`x.cuda` of `x.cuda(0)`) or an argument of (`"cuda"` of
    `torch.autocast("cuda")`), and the value written where the node is assigned to or names an environment variable."""
    if node.type == "identifier" and node.parent is not None and node.parent.type == "attribute":
        if node.parent.child_by_field_name("attribute") == node:
            node = node.parent  # `cuda` of `x.cuda`
    value, literal = _assigned(node) or (None, False)
    call = _call_of(node)
    if call is None and value is None and node.type in {"attribute", "identifier"}:
        call = _bound_call(node)
        if call is None:
            return Site(reference=True)
    site = _call_site(call) if call is not None else NO_SITE
    return Site(site.arguments, site.receiver, value, site.opaque, site.is_call, literal)


def _bound_call(node: Node) -> Node | None:
    """Where a callable is named and bound to a name (`autocast_fn = torch.cuda.amp.autocast if c else
    torch.cpu.amp.autocast`), the call of that name in the same function (`autocast_fn(dtype=torch.bfloat16)`, a
    lambda's included), when every such call passes the same arguments; else None."""
    current = node
    while current.parent is not None and current.parent.type in {"conditional_expression", "parenthesized_expression"}:
        current = current.parent
    assignment = current.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("right") != current:
        return None
    binding = parsing.named_binding(assignment)
    if binding is None:
        return None
    name, scope = binding
    calls = []
    for current in parsing.walk(scope, limit=MAX_SCOPE_NODES):
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is not None and function.type == "identifier" and parsing.text(function) == name:
                calls.append(current)
    arguments = {parsing.text(c.child_by_field_name("arguments")) for c in calls if c.child_by_field_name("arguments")}
    return calls[0] if calls and len(arguments) == 1 else None


def _call_of(node: Node) -> Node | None:
    if node.type == "call":
        return node
    parent = node.parent
    if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == node:
        return parent
    if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("value") == node:
        parent = parent.parent
    if parent is not None and parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call":
        return parent.parent
    return None


def _assigned(node: Node) -> tuple[str, bool] | None:
    parent = node.parent
    if parent is not None and parent.type in {"assignment", "augmented_assignment"} and parent.child_by_field_name("left") == node:
        right = parent.child_by_field_name("right")
        return (parsing.text(right), _is_literal(right)) if right is not None else None
    if node.type == "string":
        return _env_value(node)
    return None


def _call_site(call: Node) -> Site:
    function = call.child_by_field_name("function")
    receiver = None
    if function is not None and function.type == "attribute":
        obj = function.child_by_field_name("object")
        receiver = parsing.text(obj) if obj is not None else None
    arguments: list[Argument] = []
    opaque = False
    args = call.child_by_field_name("arguments")
    for child in args.named_children if args is not None and args.type == "argument_list" else ():
        if child.type in {"list_splat", "dictionary_splat"}:
            opaque = True
        elif child.type == "keyword_argument":
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if name is not None and value is not None:
                arguments.append(Argument(parsing.text(name), parsing.text(value), value.type in ATOMIC))
        elif child.type != "comment":
            arguments.append(Argument(None, parsing.text(child), child.type in ATOMIC))
    if args is not None and args.type == "generator_expression":
        arguments.append(Argument(None, parsing.text(args), True))
    return Site(tuple(arguments), receiver, None, opaque, True)


def _env_value(string: Node) -> tuple[str, bool] | None:
    """The value written to the environment variable a string names: `os.environ["X"] = v`,
    `os.environ.setdefault("X", v)`, `{"X": v}`."""
    parent = string.parent
    if parent is None:
        return None
    if parent.type == "subscript" and parent.parent is not None and parent.parent.type == "assignment":
        if parent.parent.child_by_field_name("left") == parent:
            right = parent.parent.child_by_field_name("right")
            return _unquoted(right) if right is not None else None
    if parent.type == "argument_list":
        arguments = [c for c in parent.named_children if c.type != "comment"]
        if arguments and arguments[0] == string and len(arguments) > 1 and arguments[1].type != "keyword_argument":
            call = parent.parent
            function = call.child_by_field_name("function") if call is not None else None
            if function is not None and parsing.text(function).rsplit(".", 1)[-1] in {"setdefault", "putenv"}:
                return _unquoted(arguments[1])
    if parent.type == "pair" and parent.child_by_field_name("key") == string:
        value = parent.child_by_field_name("value")
        return _unquoted(value) if value is not None else None
    return None


def _shell_site(node: Node) -> Site:
    current = node
    for _ in range(3):
        if current is None:
            break
        if current.type == "variable_assignment":
            value = current.child_by_field_name("value")
            return Site(value=_unquoted(value)[0], literal=_unquoted(value)[1]) if value is not None \
                else Site(value="", literal=True)
        current = current.parent
    return NO_SITE


def _unquoted(node: Node) -> tuple[str, bool]:
    """The value as written, quotes dropped, and whether it is a literal (no variable, expansion or expression)."""
    text = parsing.text(node)
    if node.type in {"string", "raw_string"} and len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1], _is_literal(node)
    return text, _is_literal(node)


# Python literals and shell words: the values a conversion may read, where nothing in them is computed.
LITERAL_TYPES = {"string", "integer", "float", "word", "raw_string", "number", "concatenation"}
COMPUTED_TYPES = {"interpolation", "simple_expansion", "expansion", "command_substitution", "arithmetic_expansion",
                  "process_substitution"}


def _is_literal(node: Node) -> bool:
    """A literal: a Python string without interpolation, a number, a shell word or string without expansions."""
    if node.type not in LITERAL_TYPES:
        return False
    return not any(part.type in COMPUTED_TYPES for child in node.children for part in parsing.walk(child, named=False))


def render(shape: CallShape, site: Site, symbol: str, npu: str | None) -> Rendered:
    """The shape's code at the site; code None where it needs arguments the site does not give, or the scanner's
    replacement ({npu}) and the scanner found none."""
    if not shape.code or ("{npu}" in shape.code and not npu):
        return Rendered(None)
    if not shape.uses_site():
        return Rendered(_fill(shape.code, symbol, npu))
    if site.opaque:
        return Rendered(None, unbound=True)
    bound, unknown = bind(shape, site)
    if unknown:
        return Rendered(None, unbound=True)
    template = OPTIONAL.sub(lambda m: m.group(3) if _passed(m.group(2), bound) == (m.group(1) == "?") else "", shape.code)
    placed = set(PLACEHOLDER.findall(template))
    said = tuple(p for p in [*shape.dropped, *shape.notes] if p in bound and (p in shape.notes or p not in placed))
    notes = [shape.dropped.get(p) or shape.notes[p] for p in said]
    said = tuple(p for i, p in enumerate(said) if notes[i] not in notes[:i])  # one note said once
    named = set(PLACEHOLDER.findall(shape.code)) | {m.group(2) for m in OPTIONAL.finditer(shape.code)}
    rest = _rest(shape, site, bound, named | set(shape.replaced) | set(shape.dropped), rest_slot(template)) \
        if "{rest}" in template else ""
    if rest is None:
        return Rendered(None, said, unbound=True)
    if not rest:
        template = template.replace(", {rest}", "").replace("{rest}, ", "")
    if site.value is None:
        template = template.replace("={assigned}", "")
    elif shape.convert is not None:
        value, text = convert(shape.convert, site.value) if site.literal else (None, shape.convert.not_literal)
        if value is None:
            return Rendered(None, said, text=text)
        site = Site(site.arguments, site.receiver, value, site.opaque, site.is_call, site.literal)
    values = {"npu": npu, "symbol": symbol, "rest": rest}
    missing = []

    def substitute(match) -> str:
        name = match.group(1)
        text = values[name] if name in values else _placeholder(name, shape, site, bound)
        if text is None:
            missing.append(name)
            return ""
        return text

    code = PLACEHOLDER.sub(substitute, template)  # one pass: braces in what the user wrote are never placeholders
    if missing:
        return Rendered(None, said, unbound=site.is_call)
    if len(code) > CODE_LIMIT:
        return Rendered(None, said)
    return Rendered(fold(code), said)


def convert(conversion: ValueConversion, written: str) -> tuple[str | None, BilingualText | None]:
    """The twin's value for what the site writes, or None and the texts that say why none is shown: the written
    value is no literal, converted it is at or below the twin's default, or it names options the twin does not read."""
    if conversion.options:
        return _options(conversion, written.strip())
    digits = written.strip()
    if not digits.isascii() or not digits.isdigit():
        return None, conversion.not_literal
    converted = max(1, math.ceil(int(digits) / conversion.divisor))
    if conversion.default is not None and converted <= conversion.default:
        return None, _said(conversion.at_default, "{converted}", str(converted))
    return str(converted), None


def _options(conversion: ValueConversion, written: str) -> tuple[str | None, BilingualText | None]:
    """`key:value,key:value` (a value may hold a bracketed list with commas): copied where the twin reads every key."""
    if not written or any(mark in written for mark in "$`(){}") or written[0] in "'\"":
        return None, conversion.not_literal
    keys, depth, start = [], 0, 0
    for index, char in enumerate(written + ","):
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            keys.append(written[start:index].split(":", 1)[0].strip())
            start = index + 1
    unknown = [key for key in keys if key not in conversion.options]
    if unknown:
        return None, _said(conversion.unknown_option, "{options}", ", ".join(dict.fromkeys(unknown)))
    return written, None


def _said(text: BilingualText, placeholder: str, value: str) -> BilingualText:
    return BilingualText(en=text.en.replace(placeholder, value), zh=text.zh.replace(placeholder, value))


def _passed(name: str, bound) -> bool:
    return name in bound and bound[name][1].text != "None"


def _fill(template: str, symbol: str, npu: str) -> str:
    return template.replace("{symbol}", symbol).replace("{npu}", npu or "")


def bind(shape: CallShape, site: Site) -> tuple[dict[str, tuple[int, Argument]], list[Argument]]:
    """Parameter -> (position among the arguments, argument); the arguments no parameter takes."""
    bound: dict[str, tuple[int, Argument]] = {}
    unknown: list[Argument] = []
    for index, argument in enumerate(site.arguments):
        if not shape.params:
            continue  # a shape without parameters passes every argument on through {rest}
        if argument.keyword is None:
            if index < len(shape.params) and shape.params[index] not in bound:
                bound[shape.params[index]] = (index, argument)
            else:
                unknown.append(argument)
        elif argument.keyword in shape.params and argument.keyword not in bound:
            bound[argument.keyword] = (index, argument)
        else:
            unknown.append(argument)
    return bound, unknown


REST_PROBE = "rest_placeholder_probe"


@lru_cache(maxsize=512)
def rest_slot(template: str) -> int | None:
    """How many positional arguments the template's call writes before ``{rest}``; None where a keyword argument
    (or an unpacking) comes first, or ``{rest}`` is no argument of a call: a positional argument of the site must
    then be passed by its name, or the snippet is no Python (`f(dtype=x, y)` is a SyntaxError)."""
    probe = PLACEHOLDER.sub(lambda m: REST_PROBE if m.group(1) == "rest" else "_", template)
    root = parsing.parse("python", probe.encode("utf-8"))
    node = next((n for n in parsing.walk(root) if n.type == "identifier" and parsing.text(n) == REST_PROBE), None)
    if node is None or node.parent is None or node.parent.type != "argument_list":
        return None
    before = 0
    for sibling in node.parent.named_children:
        if sibling == node:
            return before
        if sibling.type in {"keyword_argument", "list_splat", "dictionary_splat"}:
            return None
        if sibling.type != "comment":
            before += 1
    return None


def _rest(shape: CallShape, site: Site, bound, taken: set[str], slot: int | None) -> str | None:
    """The arguments the template does not place, as written. A positional one stays positional only where it keeps
    its position in the template's call (``slot``: the positional arguments the template writes before {rest});
    elsewhere (after a removed one, after the template's keyword arguments) it is passed by its parameter's name,
    and without a known name no code is shown."""
    by_index = {index: name for name, (index, _) in bound.items()}
    parts: list[str] = []
    position = slot
    for index, argument in enumerate(site.arguments):
        name = by_index.get(index)
        if name is not None and name in taken:
            continue
        if argument.keyword is not None:
            parts.append(f"{argument.keyword}={argument.text}")
            position = None  # a positional argument after a keyword is no Python
        elif position is not None and position == index:
            parts.append(argument.text)
            position += 1
        elif name is not None:
            parts.append(f"{name}={argument.text}")
            position = None
        else:
            return None
    return ", ".join(parts)


def _placeholder(name: str, shape: CallShape, site: Site, bound) -> str | None:
    if name == "assigned":
        return site.value
    if name == "receiver":
        return site.receiver
    if name in bound:
        argument = bound[name][1]
        return argument.text if argument.atomic else f"({argument.text})"
    return None if site.reference else shape.defaults.get(name)


def fold(code: str) -> str:
    """Fold the constant branches a template's defaults leave: `a if True else b`, `None or b`, `1.0 - 0.0`,
    and `kw=None` in a torch_npu call (its optional tensors default to None)."""
    for _ in range(FOLD_LIMIT):
        data = code.encode("utf-8")
        root = parsing.parse("python", data)
        if root.has_error:
            return code
        edit = _first_fold(root)
        if edit is None:
            return code
        start, end, text = edit
        code = (data[:start] + text.encode("utf-8") + data[end:]).decode("utf-8")
    return code


CONSTANT = {"true": True, "false": False, "none": False}


def _first_fold(root: Node) -> tuple[int, int, str] | None:
    for node in parsing.walk(root, source_order=True):
        if node.type == "conditional_expression" and len(node.named_children) == 3:
            body, condition, other = node.named_children
            if condition.type in CONSTANT:
                return node.start_byte, node.end_byte, parsing.text(body if CONSTANT[condition.type] else other)
        if node.type == "boolean_operator" and parsing.text(node.child(1)) == "or":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and left.type in {"none", "false"}:
                return node.start_byte, node.end_byte, parsing.text(right)
        if node.type == "binary_operator" and parsing.text(node.child(1)) == "-":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if right is not None and right.type in {"float", "integer"} and _is_zero(parsing.text(right)):
                return node.start_byte, node.end_byte, parsing.text(left)
        if node.type == "comparison_operator":
            constant = _constant_membership(node)
            if constant is not None:
                return node.start_byte, node.end_byte, constant
        if node.type == "keyword_argument" and _none_in_npu_call(node):
            return _removal(node)
    return None


def _constant_membership(node: Node) -> str | None:
    """`"silu" in ("silu", "swish")` -> "True", `None in (...)` -> "False": a literal tested against literals."""
    operators = [parsing.text(c) for c in node.children if not c.is_named]
    named = node.named_children
    if operators != ["in"] or len(named) != 2 or named[1].type != "tuple":
        return None
    left, items = named[0], named[1].named_children
    if left.type not in {"string", "none"} or not all(item.type == "string" for item in items):
        return None
    if left.type == "none":
        return "False"
    return str(_string_value(left) in {_string_value(item) for item in items})


def _string_value(node: Node) -> str:
    text = parsing.text(node)
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


def _is_zero(text: str) -> bool:
    try:
        return float(text.replace("_", "")) == 0
    except ValueError:
        return False


def _none_in_npu_call(node: Node) -> bool:
    value = node.child_by_field_name("value")
    call = node.parent.parent if node.parent is not None else None
    if value is None or value.type != "none" or call is None or call.type != "call":
        return False
    function = call.child_by_field_name("function")
    return function is not None and parsing.text(function).startswith("torch_npu.")


def _removal(node: Node) -> tuple[int, int, str]:
    """The bytes of a keyword argument and the comma before it."""
    previous = node.prev_sibling
    start = previous.start_byte if previous is not None and previous.type == "," else node.start_byte
    return start, node.end_byte, ""
