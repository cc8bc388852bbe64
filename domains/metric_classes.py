"""Classes and functions that compute an evaluation metric.

A class registered in a metrics registry (`@METRICS.register_module()`) or derived from a metric base (`BaseMetric`,
`GenerativeMetric`, torchmetrics' `Metric`) runs when the model is evaluated, and what it computes is reported, not
trained on. So does a function whose name holds a metric word and no loss word (`calculate_psnr_pt`,
`compute_metrics`; `ssim_loss` is trained on) and which returns a value. The names are data:
knowledge/phases/signals.toml [metric_classes]. The phase plan gives the findings of such a class or function the
evaluation phase; precision rates float64 inside one as the small matter it is there.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_phase_signals
from tree_sitter import Node

_SIGNALS = load_phase_signals().metric_classes
REGISTRIES = {name.lower() for name in _SIGNALS.registries}
BASE_SUFFIXES = tuple(_SIGNALS.base_suffixes)  # as spelled: `Symmetric` or `Geometric` is no metric base
FUNCTION_WORDS = frozenset(word.lower() for word in _SIGNALS.function_words)
TRAINED_WORDS = frozenset(word.lower() for word in _SIGNALS.trained_words)
REGISTER_METHODS = {"register_module", "register"}
FUNCTIONS = frozenset({"function_definition", "lambda"})
MAX_NODES = 200_000  # nodes a walk over a whole module reads at most


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


def is_metric_function(definition: Node) -> bool:
    """A function_definition named with a metric word and no trained-on word (its name's words split at `_`), whose
    own body returns a value: a score computed for a report."""
    name = definition.child_by_field_name("name")
    words = set(parsing.text(name).lower().strip("_").split("_")) if name is not None else set()
    if not words & FUNCTION_WORDS or words & TRAINED_WORDS:
        return False
    body = definition.child_by_field_name("body")
    return body is not None and any(node.type == "return_statement" and node.named_children
                                    for node in parsing.walk(body, limit=20000, prune=FUNCTIONS | {"class_definition"}))


def in_metric_code(node: Node) -> bool:
    """The node sits inside a metric class or inside a metric function (at any depth)."""
    if in_metric_class(node):
        return True
    current = node.parent
    while current is not None:
        if current.type == "function_definition" and is_metric_function(current):
            return True
        current = current.parent
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
    for node in parsing.walk(tree, limit=MAX_NODES, prune=FUNCTIONS):  # classes, not the bodies of functions
        if node.type == "class_definition" and is_metric_class(node):
            outer = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
            found.append((outer.start_point.row + 1, outer.end_point.row + 1))
    return found


def metric_function_lines(tree: Node, function_names: list[Node]) -> list[tuple[int, int]]:
    """(first line, last line) of each metric function of a module, decorators left out. `function_names`: the name
    of each function definition of the tree (a query's captures), read instead of walking the whole tree."""
    if tree.descendant_count > MAX_NODES:  # the walk's limit may leave some out
        definitions = [node for node in parsing.walk(tree, limit=MAX_NODES) if node.type == "function_definition"]
    else:
        definitions = parsing.in_walk_order(name.parent for name in function_names)
    return [(node.start_point.row + 1, node.end_point.row + 1) for node in definitions if is_metric_function(node)]


def mentions_metric(text: str) -> bool:
    """A cheap test before parsing for metric code: most files name no metric."""
    lowered = text.lower()
    return "metric" in lowered or any(word in lowered for word in FUNCTION_WORDS)


def _last_name(node: Node) -> str:
    return parsing.text(node).rsplit(".", 1)[-1].strip().lower()
