"""The ATen overload a Python call reaches, chosen among the candidates of its name by the call's arguments.

PyTorch's argument parser tries a name's overloads against the arguments; statically we know the keyword names,
how many positional arguments there are, and what a literal is (a number, a string). An overload survives when it
accepts those (a literal number never binds a Tensor parameter, a keyword must be one of its parameters, its
required parameters must be given); among the survivors, those that take the non-literal arguments as Tensors come
first (`torch.isin(a, b)` -> ``isin.Tensor_Tensor``). When the survivors disagree about the NPU, the caller gives
no finding, and when no overload takes the arguments (`items.sort(key=len)` is a list's) the call is not one we
know: a fallback is never guessed.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge.aten_coverage import Coverage, Parameter
from tree_sitter import Node

LITERAL_KINDS = {"integer": "scalar", "float": "scalar", "true": "scalar", "false": "scalar", "string": "string",
                 "concatenated_string": "string", "unary_operator": "scalar"}
SPLATS = {"list_splat", "dictionary_splat"}


def arguments(call: Node) -> tuple[list[Node], dict[str, Node], bool]:
    """Positional arguments, keyword arguments, and whether a splat hides some."""
    args = call.child_by_field_name("arguments")
    positional, named, splat = [], {}, False
    for child in args.named_children if args is not None else []:
        if child.type in SPLATS:
            splat = True
        elif child.type == "keyword_argument":
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if name is not None and value is not None:
                named[parsing.text(name)] = value
        elif child.type != "comment":
            positional.append(child)
    return positional, named, splat


def _literal(node: Node) -> str | None:
    if node.type == "none":
        return "none"
    kind = LITERAL_KINDS.get(node.type)
    if node.type == "unary_operator":
        operand = node.child_by_field_name("argument")
        return "scalar" if operand is not None and operand.type in {"integer", "float"} else None
    return kind


def _fits(params: tuple[Parameter, ...], positional: list[Node], named: dict[str, Node], splat: bool) -> int | None:
    """How well the arguments fit the parameters (higher: more non-literals bound to Tensors); None: they do not."""
    leading = [p for p in params if not p.keyword_only]
    if len(positional) > len(leading):
        return None
    names = {p.name for p in params}
    if any(name not in names for name in named):
        return None
    given = {p.name for p in leading[: len(positional)]} | set(named)
    if not splat and any(p.required and p.name not in given for p in params):
        return None
    score = 0
    bound = list(zip(leading, positional)) + [(p, named[p.name]) for p in params if p.name in named]
    for param, value in bound:
        literal = _literal(value)
        if literal == "scalar" and param.kind == "tensor":
            return None
        if literal == "string" and param.kind not in {"string", "other"}:
            return None
        if literal is None and param.kind == "tensor":
            score += 1
    return score


def select(coverage: Coverage, candidates: tuple[str, ...], call: Node, method: bool) -> tuple[str, ...]:
    """The overloads the call may reach, best first: one when the arguments decide, several when they do not."""
    if len(candidates) == 1:
        return candidates
    positional, named, splat = arguments(call)
    scored = []
    for overload in candidates:
        params = coverage.schemas.get(overload)
        if params is None:
            continue
        if method:
            params = params[1:]  # the receiver is `self`
        score = _fits(params, positional, named, splat)
        if score is not None:
            scored.append((score, overload))
    if not scored:
        return ()  # no overload takes these arguments: not the call we know (a list's sort(key=...))
    best = max(score for score, _ in scored)
    return tuple(overload for score, overload in scored if score == best)


def selected_by(call: Node, name: str, position: int) -> bool:
    """Is the argument given (by keyword or at `position`) and not None?"""
    positional, named, _ = arguments(call)
    value = named.get(name) if name in named else positional[position] if position < len(positional) else None
    return value is not None and value.type != "none"
