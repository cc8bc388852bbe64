"""Whether an nn module construction can ever take PyTorch's fast path, read from the construction and, for
nn.MultiheadAttention held as `self.<name>`, from how its class calls it (round 26 A2 C5, B2 C2: rows 33, 40, 51).

torch/nn/modules/activation.py (MultiheadAttention.forward, torch v2.1-v2.9) sets `why_not_fast_path` unless
`self.batch_first`, no `bias_k`/`bias_v` (add_bias_kv), no `add_zero_attn`, and `query is key and key is value`
("non-self attention was used"); torch/nn/modules/transformer.py (TransformerEncoderLayer.forward and
TransformerEncoder's nested-tensor check) needs `self_attn.batch_first` ("self_attn.batch_first was not True"), which
the layer's own `batch_first` argument sets. A module that fails one of these never calls the fast-path operator, so
there is nothing to fall back to the CPU. Where the code does not show a literal (`batch_first=cfg.batch_first`), the
module is taken as able to."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import keywords
from tree_sitter import Node

# the constructor's positional index of batch_first, and the keywords whose literal True rules the fast path out
_BATCH_FIRST_AT = {"torch.nn.MultiheadAttention": 8, "torch.nn.TransformerEncoderLayer": 6}
_NO_FAST_PATH_IF_TRUE = {"torch.nn.MultiheadAttention": ("add_bias_kv", "add_zero_attn")}
_ENCODER = "torch.nn.TransformerEncoder"
_MHA = "torch.nn.MultiheadAttention"
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


def can_take_fast_path(name: str, call: Node, qualify) -> bool:
    """False where the construction `call` of module `name` shows a setting that rules the fast path out, or (an
    MHA held as `self.X`) every call of it in its class passes different query and key/value. `qualify(node)` gives
    a function expression's qualified name (for TransformerEncoder's inline layer)."""
    if name == _ENCODER:
        layer = _first_argument(call, "encoder_layer")
        if layer is not None and layer.type == "call":
            function = layer.child_by_field_name("function")
            if function is not None and qualify(function) == "torch.nn.TransformerEncoderLayer":
                return can_take_fast_path("torch.nn.TransformerEncoderLayer", layer, qualify)
        return True
    arguments = call.child_by_field_name("arguments")
    if any(a.type in ("list_splat", "dictionary_splat") for a in (arguments.named_children if arguments else [])):
        return True  # `**kwargs` may carry any of them
    given = keywords(call)
    if name in _BATCH_FIRST_AT:
        flag = given.get("batch_first")
        if flag is None and len(_positional(call)) <= _BATCH_FIRST_AT[name]:
            return False  # batch_first left at its default, False
        if flag is not None and flag.type == "false":
            return False
    for keyword in _NO_FAST_PATH_IF_TRUE.get(name, ()):
        value = given.get(keyword)
        if value is not None and value.type == "true":
            return False
    if name == _MHA:
        calls = _held_calls(call)
        if calls and not any(_self_attention(c) for c in calls):
            return False
    return True


def _positional(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return [a for a in (arguments.named_children if arguments is not None else [])
            if a.type not in ("keyword_argument", "comment", "list_splat", "dictionary_splat")]


def _first_argument(call: Node, keyword: str) -> Node | None:
    positional = _positional(call)
    return positional[0] if positional else keywords(call).get(keyword)


def _held_calls(construction: Node) -> list[Node]:
    """The calls of the module where its construction is assigned to `self.X`: `self.X(...)` in the class, and
    calls of a local name bound to `self.X` (`attn = self.X`)."""
    assignment = construction.parent
    if assignment is None or assignment.type != "assignment":
        return []
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "attribute" or parsing.text(left.child_by_field_name("object")) != "self":
        return []
    held = parsing.text(left)
    cls = assignment.parent
    while cls is not None and cls.type != "class_definition":
        cls = cls.parent
    if cls is None:
        return []
    aliases = set()
    for node in parsing.walk(cls):
        if node.type == "assignment":
            target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
            if target is not None and value is not None and target.type == "identifier" and parsing.text(value) == held:
                aliases.add(parsing.text(target))
    found = []
    for node in parsing.walk(cls):
        if node.type == "call":
            function = node.child_by_field_name("function")
            if function is not None and (parsing.text(function) == held or parsing.text(function) in aliases):
                found.append(node)
    return found


def _self_attention(call: Node) -> bool:
    """The call may pass one tensor as query, key and value (`attn(x, x, x)`, `attn(query=x, key=x, value=x)`); a
    call whose three arguments are not all readable is taken as one that may."""
    positional = [parsing.text(a) for a in _positional(call)]
    given = {k: parsing.text(v) for k, v in keywords(call).items()}
    texts = positional[:3] + [given.get(k) for k in ("query", "key", "value")[len(positional[:3]):]]
    if len(texts) < 3 or any(t is None for t in texts):
        return True
    if any(splat.type in ("list_splat", "dictionary_splat") for splat in call.child_by_field_name("arguments").named_children):
        return True
    return len(set(texts)) == 1
