"""A "flash_attention_2" default that a Hugging Face loader receives: the choice is transformers', not a project registry's.

Two shapes hand a default straight to `from_pretrained(..., attn_implementation=...)`:
- a function parameter: `def load_pretrained_model(path, attn_implementation="flash_attention_2")` whose body calls
  `X.from_pretrained(path, attn_implementation=attn_implementation)` (LLaVA-NeXT's builder.py: every caller that
  passes nothing loads with flash-attn);
- a field of a class: `attn_implementation: str = field(default="flash_attention_2")` (an HfArgumentParser dataclass),
  or a plain `attn_implementation = "flash_attention_2"` in the class body, where the same file passes
  `<object>.attn_implementation` as a loader's `attn_implementation=` (LLaVA-NeXT's train.py:
  `from_pretrained(..., attn_implementation=training_args.attn_implementation)`).

A default that reaches the project's own config class, or a field no loader of the file reads, is not such a choice: it
may select the project's own attention registry (domains/attention/registries.py) and stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

KEYWORD = "attn_implementation"
MAX_NODES = 50_000  # the walk over the function or file looking for loader calls


def reaches_loader(node: Node, is_loader: Callable[[Node], bool]) -> bool:
    """Is the string `node` the default of a parameter or class field that a loader call (`is_loader(call)`) receives
    as its `attn_implementation=`?"""
    holder = node.parent
    if holder is not None and holder.type == "keyword_argument" and parsing.text(holder.child_by_field_name("name")) == "default":
        call = holder.parent.parent if holder.parent is not None else None  # field(default="flash_attention_2")
        holder = call.parent if call is not None and call.type == "call" else None
        node = call if holder is not None else node
    if holder is None:
        return False
    if holder.type in {"default_parameter", "typed_default_parameter"} and holder.child_by_field_name("value") == node:
        function = holder.parent.parent if holder.parent is not None else None
        name = holder.child_by_field_name("name")
        if function is None or function.type != "function_definition" or name is None:
            return False
        return _passed(function.child_by_field_name("body"), parsing.text(name), "identifier", is_loader)
    if holder.type == "assignment" and holder.child_by_field_name("right") == node and _in_class_body(holder):
        target = holder.child_by_field_name("left")
        if target is None or target.type != "identifier":
            return False
        root = parsing.root_of(holder)
        return _passed(root, parsing.text(target), "attribute", is_loader)
    return False


def _in_class_body(statement: Node) -> bool:
    block = statement.parent.parent if statement.parent is not None else None  # assignment → expression_statement → block
    return block is not None and block.type == "block" and block.parent is not None and block.parent.type == "class_definition"


def _passed(scope: Node | None, name: str, kind: str, is_loader: Callable[[Node], bool]) -> bool:
    """Does a loader call in `scope` pass `attn_implementation=<name>` (kind "identifier") or
    `attn_implementation=<object>.<name>` (kind "attribute")?"""
    if scope is None:
        return False
    try:
        for current in parsing.walk(scope, limit=MAX_NODES, strict=True):
            if current.type != "keyword_argument" or parsing.text(current.child_by_field_name("name")) != KEYWORD:
                continue
            value = current.child_by_field_name("value")
            if value is None or value.type != kind:
                continue
            spelled = parsing.text(value) if kind == "identifier" else parsing.text(value.child_by_field_name("attribute"))
            call = current.parent.parent if current.parent is not None else None
            if spelled == name and call is not None and call.type == "call" and is_loader(call):
                return True
    except parsing.WalkLimit:
        return False
    return False
