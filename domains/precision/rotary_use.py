"""Whether a complex view (torch.view_as_complex) or a complex table (torch.polar) is a rotary embedding.

RoPE in complex arithmetic multiplies the query/key, viewed as complex, by a table of unit rotations and turns the
product back to real: `torch.view_as_real(xq_ * freqs_cis)` (LLaMA, SAM 2), the table made by `torch.polar(ones,
freqs)`. Other complex code has other shapes: a complex buffer restored after a transfer (nanotron's p2p
`torch.view_as_complex(buffer) if dtype.is_complex else buffer`), an FFT global filter whose complex weight
multiplies `torch.fft.rfft2(x)` before `irfft2` (HorNet, GFNet). Those are no RoPE, and RoPE advice does not fit them.

A call is read as RoPE where its function (the module, for a top-level statement) uses no FFT, and either
- turns a product back to real: `view_as_real(a * b)`, or `view_as_real(out)` after `out = a * b`;
- or names rotary embedding: the function, its class or parameters, or the names in the call's statement (or in the
  statement of a torch.polar table beside it), hold a word part `rope`/`rotary`/`rotate`/`freq`/`freqs`/`cis`/`theta`
  (`apply_rotary_emb`, `freqs_cis`, `RoPEAttention`).

A torch.polar table may also be turned into real numbers where it is made: every use of it in its function reads
`.real`/`.imag` or passes it to `view_as_real` (torchchat's `precompute_freqs_cis`: `torch.stack([freqs_cis.real,
freqs_cis.imag], -1)`). Then no complex tensor leaves the function, the rotation that reads the table is real
arithmetic, and the complex op runs once, at table build (`real_table`).

A view_as_complex may only make a complex container of the input's shape that the code fills with table values
(`output = torch.view_as_complex(x.reshape(..., -1, 2).to(torch.float64))`, then only `output[i, a:b] = freqs_i` and
`return output`: Wan S2V's `rope_precompute`): nothing is multiplied there, and the rotation is wherever the
container is consumed (`complex_container`)."""

from __future__ import annotations

import re

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

ROTARY_PARTS = frozenset({"rope", "rotary", "rotate", "freq", "freqs", "cis", "theta", "thetas"})
ROTARY_PREFIXES = ("rope", "rotary")  # RoPEAttention, ropeattn: one word once lowered
FFT_CALLS = frozenset({"fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn",
                       "irfftn", "hfft", "ihfft", "stft", "istft"})
SCOPES = {"function_definition", "module"}
MAX_NODES = 20000
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def is_rotary(call: Node) -> bool:
    """Is this view_as_complex/polar call part of a rotary embedding (see the module's docstring)?"""
    scope = _scope(call)
    nodes = _nodes(scope)
    if any(parsing.callee_name(n) in FFT_CALLS for n in nodes if n.type == "call"):
        return False
    if any(_real_of_product(n, nodes) for n in nodes if n.type == "call" and parsing.callee_name(n) == "view_as_real"):
        return True
    tables = [n for n in nodes if n.type == "call" and parsing.callee_name(n) == "polar" and n.id != call.id]
    return any(_rotary_word(name) for site in (call, *tables) for name in _names(site, scope))


def _scope(node: Node) -> Node:
    current = node.parent
    while current is not None and current.type not in SCOPES:
        current = current.parent
    return current if current is not None else node


def _nodes(scope: Node) -> list[Node]:
    """The scope's nodes, not those of functions or classes defined inside it."""
    found, stack = [], [scope]
    while stack and len(found) < MAX_NODES:
        current = stack.pop()
        found.append(current)
        stack.extend(c for c in current.named_children
                     if c.type not in {"function_definition", "class_definition", "decorated_definition"})
    return found


def _real_of_product(view_as_real: Node, nodes: list[Node]) -> bool:
    arguments = view_as_real.child_by_field_name("arguments")
    values = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
    if not values:
        return False
    value = values[0]
    while value.type == "parenthesized_expression" and value.named_children:
        value = value.named_children[0]
    if _product(value):
        return True
    if value.type != "identifier":
        return False
    name = parsing.text(value)
    for node in nodes:
        if node.type == "assignment" and node.start_byte < view_as_real.start_byte:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and parsing.text(left) == name and _product(right):
                return True
    return False


def _product(node: Node) -> bool:
    if node.type == "binary_operator":
        operator = node.child_by_field_name("operator")
        return operator is not None and parsing.text(operator) == "*"
    return node.type == "call" and parsing.callee_name(node) == "mul"


def _names(call: Node, scope: Node) -> list[str]:
    """The function's and its class's names and parameters, and the identifiers of the call's statement."""
    names = []
    if scope.type == "function_definition":
        names.append(parsing.text(scope.child_by_field_name("name")))
        parameters = scope.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            identifier = parameter if parameter.type == "identifier" else next(
                (c for c in parameter.named_children if c.type == "identifier"), None)
            if identifier is not None:
                names.append(parsing.text(identifier))
        owner = scope.parent
        while owner is not None and owner.type not in {"class_definition", "module"}:
            owner = owner.parent
        if owner is not None and owner.type == "class_definition":
            names.append(parsing.text(owner.child_by_field_name("name")))
    statement = call
    while statement.parent is not None and statement.parent.type not in {"block", "module"}:
        statement = statement.parent
    names.extend(parsing.text(current) for current in parsing.walk(statement) if current.type == "identifier")
    return names


def _rotary_word(name: str) -> bool:
    lowered = name.lower()
    if lowered.startswith(ROTARY_PREFIXES) or any(f"_{p}" in lowered for p in ROTARY_PREFIXES):
        return True
    parts = [p.lower() for chunk in name.split("_") for p in _CAMEL.findall(chunk)]
    return any(p in ROTARY_PARTS for p in parts)


REAL_TABLE = "real-table"
REAL_PARTS = frozenset({"real", "imag"})


def real_table(polar: Node) -> bool:
    """Is this torch.polar call's result only turned into real numbers: `.real`/`.imag` read from it or
    `view_as_real` applied to it, directly or through the name it is assigned to (every later use of that name in the
    scope being such a read)?"""
    if _made_real(polar):
        return True
    uses = _later_uses(polar)
    return bool(uses) and all(_made_real(use) for use in uses)


def _later_uses(value: Node) -> list[Node]:
    """The reads, later in the scope, of the plain name `value` is assigned to (none where it is not so assigned)."""
    assignment = value.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("right") != value:
        return []
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return []
    name = parsing.text(left)
    return [n for n in _nodes(_scope(value)) if n.type == "identifier" and n.start_byte >= assignment.end_byte
            and parsing.text(n) == name]


def _made_real(value: Node) -> bool:
    parent = value.parent
    if parent is None:
        return False
    if parent.type == "attribute" and parent.child_by_field_name("object") == value:
        return parsing.text(parent.child_by_field_name("attribute")) in REAL_PARTS
    call = parent.parent if parent.type == "argument_list" else None
    return (call is not None and call.type == "call" and parsing.callee_name(call) == "view_as_real"
            and len([a for a in parent.named_children if a.type != "comment"]) == 1)


COMPLEX_CONTAINER = "complex-container"


def complex_container(call: Node) -> bool:
    """Is this view_as_complex call's result, assigned to a name, only written into by subscript (`name[...] = v`)
    and returned, with at least one such write (a container, not an operand)?"""
    uses = _later_uses(call)
    writes = [use for use in uses if _written_into(use)]
    return bool(writes) and all(use in writes or _returned(use) for use in uses)


def _written_into(use: Node) -> bool:
    subscript = use.parent
    if subscript is None or subscript.type != "subscript" or subscript.child_by_field_name("value") != use:
        return False
    statement = subscript.parent
    return statement is not None and statement.type == "assignment" and statement.child_by_field_name("left") == subscript


def _returned(use: Node) -> bool:
    return use.parent is not None and use.parent.type == "return_statement"
