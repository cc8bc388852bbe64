"""A collective whose `group=` is a gloo process group: it runs over gloo on CPU tensors, never over HCCL.

LoFTR's src/utils/comm.py (detectron2's comm module, round 38) gathers pickled data with
`dist.gather(tensor, tensor_list, dst=dst, group=group)`, where `group` is `_get_global_gloo_group()` when the caller
passes none, and that helper returns `dist.new_group(backend="gloo")` (or `dist.group.WORLD` when the backend already
is not NCCL). The HCCL advice on collectives (DST022's `use_compatible_impl`, DST021's dtypes) is about HCCL's
implementation: it does not apply to a gloo group's collective.

The signal: the `group=` value is `new_group(backend="gloo")` itself; or a name every binding of which in the
function is one (a parameter defaulting to None and bound in the function counts: a caller passing its own group
chooses it); or, one hop, the call of a function of the same file whose returns are each such a `new_group` or the
WORLD group, one at least the `new_group`.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.device import literals
from ascend_feasibility.domains.python_refs import argument, keywords
from tree_sitter import Node

NEW_GROUP = "torch.distributed.new_group"
GLOO = "gloo"
MAX_NODES = 20000
_NESTED = frozenset({"function_definition", "class_definition", "lambda"})


def on_gloo_group(call: Node, imports) -> bool:
    """Is the collective `call`'s `group=` argument a gloo process group (see the module's text)?"""
    group = keywords(call).get("group")
    return group is not None and _gloo_group(group, call, imports, hops=1)


def _gloo_group(value: Node, site: Node, imports, hops: int) -> bool:
    if value.type == "call":
        return _new_gloo_group(value, imports) or (hops > 0 and _helper_returns_gloo(value, site, imports))
    if value.type != "identifier":
        return False
    function = parsing.enclosing(site, {"function_definition"})
    if function is None:
        return False
    name = parsing.text(value)
    bindings = [assignment.child_by_field_name("right") for assignment in _assignments(function, name)]
    if not bindings or any(right is None for right in bindings):
        return False
    default = _parameter_default(function, name)
    if default is not None and default.type != "none":
        return False
    return all(_gloo_group(right, right, imports, hops) for right in bindings)


def _new_gloo_group(call: Node, imports) -> bool:
    """`dist.new_group(backend="gloo")` (the backend is new_group's third positional argument)."""
    function = call.child_by_field_name("function")
    if function is None or function.type not in {"identifier", "attribute"} or qualified_name(function, imports) != NEW_GROUP:
        return False
    backend = argument(call, 2, "backend")
    return backend is not None and backend.type == "string" and literals.string_parts(backend)[1] == GLOO


def _helper_returns_gloo(call: Node, site: Node, imports) -> bool:
    """`_get_global_gloo_group()`: a function of the same file whose returns are gloo groups or the WORLD group."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "identifier":
        return False
    module = site
    while module.parent is not None:
        module = module.parent
    helper = next((node for node in _definitions(module) if parsing.text(node.child_by_field_name("name")) == parsing.text(function)), None)
    if helper is None:
        return False
    values = [node.named_children[0] if node.named_child_count else None
              for node in parsing.walk(helper.child_by_field_name("body"), limit=MAX_NODES, prune=_NESTED)
              if node.type == "return_statement"]
    gloo = [value is not None and _new_gloo_group(value, imports) for value in values]
    world = [value is not None and value.type == "attribute" and parsing.text(value).endswith("group.WORLD")
             for value in values]
    return any(gloo) and all(g or w for g, w in zip(gloo, world))


def _definitions(module: Node) -> list[Node]:
    """The module's functions at its top level (decorated ones too)."""
    found = []
    for child in module.named_children:
        definition = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if definition is not None and definition.type == "function_definition":
            found.append(definition)
    return found


def _assignments(function: Node, name: str) -> list[Node]:
    return [node for node in parsing.walk(function.child_by_field_name("body"), limit=MAX_NODES, prune=_NESTED)
            if node.type in {"assignment", "augmented_assignment"} and parsing.text(node.child_by_field_name("left")) == name]


def _parameter_default(function: Node, name: str) -> Node | None:
    """The default of the function's parameter `name`; None when it is no parameter. A parameter without a default
    reads as its own name (never a `none` node: the caller picks the group)."""
    parameters = function.child_by_field_name("parameters")
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type in {"default_parameter", "typed_default_parameter"}:
            if parsing.text(parameter.child_by_field_name("name")) == name:
                return parameter.child_by_field_name("value")
        elif parsing.text(parameter).split(":", 1)[0].strip() == name:
            return parameter
    return None
