"""Calls of a catalogued CUDA part whose literal arguments keep them off it (knowledge: a `[[package.calls.cuda_free]]`
entry): basicsr's `ConvLayer(..., activate=False)` builds no FusedLeakyReLU, so it is no CUDA site (DEP031).

A call is judged by its arguments as written: each parameter of an entry's `when` must be given that literal, by
keyword or by position, or be left out where its default is that value. A call that unpacks arguments (`*args`,
`**kwargs`) or passes a parameter twice is never judged CUDA-free."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge.models import CudaFreeArguments
from tree_sitter import Node

UNPACKING = frozenset({"list_splat", "dictionary_splat"})


def cuda_free_arguments(kb) -> dict[str, list[CudaFreeArguments]]:
    """Qualified name -> the argument sets with which its call reaches none of its package's CUDA part."""
    result: dict[str, list[CudaFreeArguments]] = {}
    for record in kb.packages.values():
        for call in record.calls:
            for entry in call.cuda_free:
                for name in entry.names:
                    result.setdefault(name, []).append(entry)
    return result


def is_cuda_free(call: Node, entries: list[CudaFreeArguments]) -> bool:
    """Do the call's literal arguments meet every condition of one of the entries?"""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return False
    positional: list[str] = []
    keywords: dict[str, str] = {}
    for argument in arguments.named_children:
        if argument.type in UNPACKING:
            return False
        if argument.type == "keyword_argument":
            name, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
            if name is None or value is None or parsing.text(name) in keywords:
                return False
            keywords[parsing.text(name)] = parsing.text(value)
        elif argument.type != "comment":
            positional.append(parsing.text(argument))
    return any(_meets(entry, positional, keywords) for entry in entries)


def _meets(entry: CudaFreeArguments, positional: list[str], keywords: dict[str, str]) -> bool:
    if len(positional) > len(entry.params):
        return False
    bound = dict(zip(entry.params, positional))
    if set(bound) & set(keywords):
        return False  # a parameter passed twice: the call fails anyway, judge nothing
    bound.update(keywords)
    return all(_same_literal(bound.get(param, entry.defaults.get(param)), value) for param, value in entry.when.items())


def _same_literal(written: str | None, wanted: str) -> bool:
    """The literal as written, a string's quotes aside (`reduce='sum'` is `reduce="sum"`)."""
    return written is not None and _unquoted(written) == _unquoted(wanted)


def _unquoted(literal: str) -> str:
    quoted = len(literal) >= 2 and literal[0] == literal[-1] and literal[0] in "'\"" and literal[0] not in literal[1:-1]
    return literal[1:-1] if quoted else literal
