"""Classes that compute an evaluation metric.

A class registered in a metrics registry (`@METRICS.register_module()`) or derived from a metric base (`BaseMetric`,
`GenerativeMetric`, torchmetrics' `Metric`) runs when the model is evaluated, and what it computes is reported, not
trained on. The names are data: knowledge/phases/signals.toml [metric_classes]. The phase plan gives such a class's
findings the evaluation phase; precision rates float64 inside one as the small matter it is there.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_phase_signals
from tree_sitter import Node

_SIGNALS = load_phase_signals().metric_classes
REGISTRIES = {name.lower() for name in _SIGNALS.registries}
BASE_SUFFIXES = tuple(_SIGNALS.base_suffixes)  # as spelled: `Symmetric` or `Geometric` is no metric base
REGISTER_METHODS = {"register_module", "register"}
FUNCTIONS = frozenset({"function_definition", "lambda"})


def is_metric_class(definition: Node) -> bool:
    """A class_definition that a metrics registry registers or that derives from a metric base."""
    bases = definition.child_by_field_name("superclasses")
    for base in bases.named_children if bases is not None else []:
        if base.type in {"identifier", "attribute"} and parsing.text(base).rsplit(".", 1)[-1].endswith(BASE_SUFFIXES):
            return True
    decorated = definition.parent
    if decorated is None or decorated.type != "decorated_definition":
        return False
    for decorator in decorated.children:
        if decorator.type != "decorator" or not decorator.named_children:
            continue
        expression = decorator.named_children[0]
        function = expression.child_by_field_name("function") if expression.type == "call" else expression
        if function is None or function.type != "attribute":
            continue
        registry = function.child_by_field_name("object")
        if (parsing.text(function.child_by_field_name("attribute")) in REGISTER_METHODS and registry is not None
                and registry.type in {"identifier", "attribute"} and _last_name(registry) in REGISTRIES):
            return True
    return False


def in_metric_class(node: Node) -> bool:
    """The node sits inside a metric class (at any depth of its methods) that no function encloses: the classes
    `metric_class_lines` gives the phase plan."""
    current, inside = node.parent, None
    while current is not None:
        if current.type == "class_definition" and is_metric_class(current):
            inside = current
        elif current.type in FUNCTIONS and inside is not None:
            return False  # a class defined in a function
        current = current.parent
    return inside is not None


def metric_class_lines(tree: Node) -> list[tuple[int, int]]:
    """(first line, last line) of each metric class of a module, decorators included."""
    found = []
    for node in parsing.walk(tree, limit=200000, prune=FUNCTIONS):  # classes, not the bodies of functions
        if node.type == "class_definition" and is_metric_class(node):
            outer = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
            found.append((outer.start_point.row + 1, outer.end_point.row + 1))
    return found


def _last_name(node: Node) -> str:
    return parsing.text(node).rsplit(".", 1)[-1].strip().lower()
