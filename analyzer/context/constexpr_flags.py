"""A Triton kernel's `tl.constexpr` flag that is off unless a caller turns it on, and no code in the file does.

nanotron's ring_attention_lucidrain.py: `if SOFTCLAMP_QK_SIM:` inside the kernels guards `libdevice.tanh`; the flag is
handed down from `softclamp_qk_sim=False` parameters (flash_attn_forward, flash_attn_backward, ring_flash_attn)
through an autograd Function's `ctx` and positional launch arguments, so following the values call by call breaks at
`.apply`. The flag's spellings are followed by name instead: the constexpr's own (SOFTCLAMP_QK_SIM) and its lower-case
twin (softclamp_qk_sim). The flag is off when, in the file,
- some parameter of that name defaults to False, and none defaults to anything but False/None/0;
- every keyword argument of that name passes False/None or the flag itself (`SOFTCLAMP_QK_SIM=SOFTCLAMP_QK_SIM`,
  `softclamp_qk_sim=ctx.softclamp_qk_sim`);
- every assignment to the name (`softclamp_qk_sim = ...`, `ctx.softclamp_qk_sim = ...`) assigns such a value.
A positional argument cannot be told apart by name: a literal True passed positionally is not seen (the parameters
of a call are in another function's signature, often another file's), so only a False default together with
pass-through keywords and assignments counts. Code the kernel runs under `if FLAG:` is then an opt-in path, as
analyzer/context/switches.py treats `use_flash_attn=False`."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

FLAG_SITES = """
(default_parameter) @default
(typed_default_parameter) @default
(keyword_argument) @keyword
(assignment) @assignment
"""
OFF_VALUES = frozenset({"False", "None", "0"})


def is_constexpr_parameter(function: Node, name: str) -> bool:
    """`name: tl.constexpr` (or `: triton.language.constexpr`, with or without a default) in the signature."""
    parameters = function.child_by_field_name("parameters")
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type not in {"typed_parameter", "typed_default_parameter"}:
            continue
        key = parameter.child_by_field_name("name") or (parameter.named_children[0] if parameter.named_children else None)
        annotation = parameter.child_by_field_name("type")
        if key is not None and parsing.text(key) == name and annotation is not None:
            return parsing.text(annotation).replace(" ", "").endswith("constexpr")
    return False


def off_flag(sites: dict[str, list[tuple[str, Node]]], name: str) -> str | None:
    """The reason the constexpr `name` is off by default and set by nothing in the file (`sites`: read_sites of
    the unit), else None."""
    twin = name.lower()
    spellings = {name, twin}
    defaults = []
    for spelling in spellings:
        for kind, value in sites.get(spelling, []):
            text = parsing.text(value)
            if kind == "default":
                if text not in OFF_VALUES:
                    return None
                defaults.append((value.start_point.row + 1, spelling, text))
            elif not (text in OFF_VALUES or _passes_through(value, spellings)):
                return None
    off = [d for d in defaults if d[2] == "False"]
    if not off:
        return None
    line, spelling, text = min(off)
    return f"`{name}` (tl.constexpr) is off unless set: `{spelling}={text}` by default (line {line}) and nothing in the file turns it on"


def _passes_through(value: Node, spellings: set[str]) -> bool:
    """`FLAG`, `flag`, `ctx.flag`, `self.flag`: the flag handed on, not a new value."""
    if value.type == "identifier":
        return parsing.text(value) in spellings
    if value.type == "attribute":
        attribute = value.child_by_field_name("attribute")
        return attribute is not None and parsing.text(attribute) in spellings
    return False


def read_sites(node: Node) -> dict[str, list[tuple[str, Node]]]:
    """The unit's parameters with defaults, keyword arguments and assignments, by the name they bind or pass."""
    root = parsing.root_of(node)
    sites: dict[str, list[tuple[str, Node]]] = {}
    captured = parsing.captures(parsing.query("python", FLAG_SITES), root)
    for kind in ("default", "keyword"):
        for node in captured.get(kind, []):
            key, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if key is not None and value is not None:
                sites.setdefault(parsing.text(key), []).append((kind, value))
    for node in captured.get("assignment", []):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            continue
        target = left.child_by_field_name("attribute") if left.type == "attribute" else left
        if target is not None and target.type == "identifier":
            sites.setdefault(parsing.text(target), []).append(("assignment", right))
    return sites
