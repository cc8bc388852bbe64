"""Where an RMSNorm's scale comes from: a weight tensor the class holds, or a per-sample scale its `forward` computes
by calling a submodule on a condition (an adaptive RMSNorm, `weight = self.to_weight(cond_embedding)`; round 26 B1 C5,
A2 C9). torch_npu.npu_rms_norm(self, gamma, epsilon) takes gamma as a tensor of the normalised (trailing) shape
(Ascend/op-plugin v26.1.0 op_plugin/config/op_plugin_functions.yaml, `npu_rms_norm(Tensor self, Tensor gamma, float
epsilon=1e-06)`), so a module, or a scale that differs per sample, is never its gamma."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

COMPUTED_SCALE = "computed-scale"  # the facet: the forward multiplies by a submodule's output on a condition
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


def called_attributes(forward: Node) -> set[str]:
    """The `self.<name>` attributes the forward calls (`self.to_weight(cond)`): submodules, not tensors."""
    found = set()
    for current in parsing.walk(forward):
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is not None and function.type == "attribute":
                obj, attribute = function.child_by_field_name("object"), function.child_by_field_name("attribute")
                if obj is not None and attribute is not None and obj.type == "identifier" and parsing.text(obj) == "self":
                    found.add(parsing.text(attribute))
    return found


def computed_scale(forward: Node) -> bool:
    """The forward takes a second argument beside its input and calls a submodule on it (`self.to_weight(cond)`):
    its scale is computed per sample, not a weight tensor of the normalised shape."""
    parameters = forward.child_by_field_name("parameters")
    names = [parsing.text(p) for p in (parameters.named_children if parameters is not None else []) if p.type == "identifier"]
    conditions = set(names[2:])
    if not conditions:
        return False
    for current in parsing.walk(forward, prune=_SCOPES, enter_root=True):
        if current.type != "call":
            continue
        function = current.child_by_field_name("function")
        if function is None or function.type != "attribute" or parsing.text(function.child_by_field_name("object")) != "self":
            continue
        arguments = current.child_by_field_name("arguments")
        used = {parsing.text(n) for n in parsing.walk(arguments) if n.type == "identifier"} if arguments is not None else set()
        if used & conditions:
            return True
    return False
