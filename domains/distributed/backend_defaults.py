"""A parameter's "nccl" default that its function only hands to a backend call: the shim rewrites it there.

Round 41 B1 class 2 row 11, A2 row 59 (pytorchvideo pytorchvideo_trainer/module/distributed_utils.py:85):
`def init_distributed_training(..., dist_backend: str = "nccl")` whose body's one read of dist_backend is
`dist.init_process_group(backend=dist_backend, ...)`. transfer_to_npu rewrites "nccl" to "hccl" in the backend argument
of init_process_group, whatever spells it, so the default is covered like a literal written in the call
(nccl-backend-argument). The file's own `dist.get_backend() == "nccl"` elsewhere is another site with its own finding:
it does not read this default.

A default is handed on only when every read of the parameter in its function is the backend argument (by keyword or
position) of one of the backend calls, and it is not rebound there (`dist_backend = ...`, `global`), nor read by a
nested function or lambda (which may keep it for later).
"""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import argument
from tree_sitter import Node

DEFAULTS = frozenset({"default_parameter", "typed_default_parameter"})
NESTED = frozenset({"function_definition", "lambda", "class_definition"})
WALK_LIMIT = 20_000  # identifiers of one function read for the parameter's uses


def backend_call_fed(default: Node, calls: dict[str, tuple[int, str, tuple[str, ...]]],
                     resolve: Callable[[Node], str | None]) -> str | None:
    """The backend call (a key of `calls`: name → (position, keyword, capabilities)) that is the only reader of the
    parameter whose default is the string `default`; None where the parameter is read otherwise or not at all.
    `resolve`: a call's function node → its qualified name."""
    parameter = default.parent
    if parameter is None or parameter.type not in DEFAULTS or parameter.child_by_field_name("value") != default:
        return None
    name_node = parameter.child_by_field_name("name")
    function = parsing.enclosing(parameter, NESTED)
    body = function.child_by_field_name("body") if function is not None and function.type == "function_definition" else None
    if name_node is None or body is None:
        return None
    name = parsing.text(name_node)
    fed = set()
    for use in parsing.identifiers_named(body, name, WALK_LIMIT):
        call_name = _backend_call(use, calls, resolve, function)
        if call_name is None:
            return None
        fed.add(call_name)
    return next(iter(fed)) if len(fed) == 1 else None


def _backend_call(use: Node, calls, resolve, function: Node) -> str | None:
    """The backend call `use` is the backend argument of, directly in `function`'s body."""
    if parsing.enclosing(use, NESTED) != function:
        return None
    holder = use.parent
    if holder is not None and holder.type == "keyword_argument":
        if holder.child_by_field_name("value") != use:
            return None
        holder = holder.parent
    call = holder.parent if holder is not None and holder.type == "argument_list" else None
    if call is None or call.type != "call":
        return None
    name = resolve(call.child_by_field_name("function"))
    if name not in calls:
        return None
    position, keyword, capabilities = calls[name]
    given = argument(call, position, keyword)
    return name if capabilities and given is not None and given == use else None
