"""Dtype assertions on the output of a module whose forward casts that output to float32 itself.

`img = self.to_rgb(x, w)` and then `assert img.dtype == torch.float32` (PRC005) pins a dtype the code decides, not the
device: StyleGAN2's ModulatedToRGB ends its forward with `if self.out_fp32: out = out.to(torch.float32)` (out_fp32
defaults to True), and an explicit cast gives float32 on the NPU as on CUDA, autocast or not. The producer often lives
in another file than the assertion, so each file records its producers (a class whose forward's one way out is a name
it casts to float32 just before returning, or that cast under `if self.<flag>:` where `<flag>` is an `__init__`
parameter defaulting to True) and its asserting sites (the asserted name bound from `self.<attr>(...)` where the class's
`__init__` builds `self.<attr> = Cls(...)`); the project pass rebuilds the PRC005 finding at such a site as the
`float32-output` variant (info) when the project defines that class once and the call keeps the flag's default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ascend_feasibility.analyzer.core.findings import FindingFactory, Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.precision.dtype_premises import explicit_float32
from tree_sitter import Node

FLOAT32_OUTPUT = "float32-output"  # PRC005's facet: the asserted value is cast to float32 by the module that made it
ASSERTION_RULE = "PRC005"
FUNCTIONS = frozenset({"function_definition", "lambda"})
FACTS_KEY = "precision"  # where the scanner leaves a unit's asserting sites (Unit.cache)
OWN_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


@dataclass
class Float32Producer:
    name: str  # the class
    flag: str | None = None  # the __init__ parameter the cast is conditioned on (`out_fp32`), defaulting to True
    flag_index: int = -1  # its position among the __init__ parameters after self


@dataclass
class ProducedOperand:
    name: str  # the class that made the asserted value
    keywords: list[str] = field(default_factory=list)  # the keyword arguments of its construction
    positional: int = 0  # how many positional arguments it was built with


@dataclass
class ProducedAssertion:
    path: str
    line: int
    operands: list[ProducedOperand] = field(default_factory=list)


@dataclass
class PrecisionFacts:
    producers: list[Float32Producer] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)  # the other classes with a forward: a name defined twice decides nothing
    assertions: list[ProducedAssertion] = field(default_factory=list)

    def extend(self, other: PrecisionFacts) -> None:
        self.producers += other.producers
        self.modules += other.modules
        self.assertions += other.assertions


def float32_producers(tree: Node) -> tuple[list[Float32Producer], list[str]]:
    """The classes of a module whose forward returns a value it casts to float32 just before (possibly under a flag),
    and the names of its other classes with a forward."""
    found, others = [], []
    for node in parsing.walk(tree, limit=200000, prune=FUNCTIONS):  # classes, not the bodies of functions
        if node.type != "class_definition":
            continue
        methods = _methods(node)
        forward = methods.get("forward")
        if forward is None:
            continue
        producer = _producer(parsing.text(node.child_by_field_name("name")), forward, methods.get("__init__"))
        if producer is not None:
            found.append(producer)
        else:
            others.append(parsing.text(node.child_by_field_name("name")))
    return found, others


def produced_operands(assertion: Node) -> list[ProducedOperand] | None:
    """For each `<name>.dtype` the assertion reads, the class whose instance (`self.<attr>`, built in `__init__`) made
    the name's last value before the assertion in its method; None where any cannot be followed."""
    function = _enclosing(assertion, {"function_definition"})
    cls = _enclosing(function, {"class_definition"}) if function is not None else None
    if cls is None:
        return None
    init = _methods(cls).get("__init__")
    operands = []
    for node in parsing.walk(assertion, limit=2000):
        if node.type != "attribute" or parsing.text(node.child_by_field_name("attribute")) != "dtype":
            continue
        owner = node.child_by_field_name("object")
        if owner is None or owner.type != "identifier" or init is None:
            return None
        made = _made_by(parsing.text(owner), assertion.start_byte, function, init)
        if made is None:
            return None
        operands.append(made)
    return operands or None


def under_autocast(node: Node) -> bool:
    """The node sits in a `with` of its function that names autocast: the cast's value may meet autocast ops."""
    current = node.parent
    while current is not None and current.type not in OWN_SCOPES:
        clause = next((c for c in current.children if c.type == "with_clause"), None) if current.type == "with_statement" else None
        if clause is not None and "autocast" in parsing.text(clause):
            return True
        current = current.parent
    return False


def float32_outputs(findings: list[Finding], facts: PrecisionFacts, factory: FindingFactory) -> list[Finding]:
    """`findings` with each PRC005 at a recorded site whose every operand a float32 producer made, rebuilt as the
    float32-output variant."""
    if not facts.assertions or not facts.producers:
        return findings
    by_name: dict[str, list[Float32Producer | None]] = {}
    for producer in facts.producers:
        by_name.setdefault(producer.name, []).append(producer)
    for name in facts.modules:
        if name in by_name:
            by_name[name].append(None)
    sites = {(a.path, a.line): a for a in facts.assertions}
    result = []
    for finding in findings:
        site = sites.get((finding.path, finding.line)) if finding.rule == ASSERTION_RULE else None
        if site is not None and all(_keeps_float32(operand, by_name.get(operand.name, [])) for operand in site.operands):
            located = Located(finding.rule, finding.symbol, finding.path, finding.line, finding.column,
                              finding.end_column, finding.snippet, finding.cell, finding.replacement.code,
                              facets=(FLOAT32_OUTPUT,), end_line=finding.end_line, role=finding.role,
                              reach=finding.reach, reach_reason=finding.reach_reason)
            finding = factory.build_located(located, 0).model_copy(update={"suppressed": finding.suppressed})
        result.append(finding)
    return result


def _keeps_float32(operand: ProducedOperand, producers: list[Float32Producer | None]) -> bool:
    """The project defines the class once, as a producer, and the construction leaves its flag at the default."""
    if len(producers) != 1 or producers[0] is None:
        return False
    producer = producers[0]
    if producer.flag is None:
        return True
    return producer.flag not in operand.keywords and operand.positional <= producer.flag_index


def _producer(name: str, forward: Node, init: Node | None) -> Float32Producer | None:
    body = forward.child_by_field_name("body")
    statements = [s for s in (body.named_children if body is not None else []) if s.type != "comment"]
    returns = [n for n in _own_nodes(forward) if n.type == "return_statement"]
    if len(statements) < 2 or len(returns) != 1 or returns[0].id != statements[-1].id:
        return None  # one way out, at the end
    returned = statements[-1].named_children[0] if statements[-1].named_children else None
    if returned is None:
        return None
    if explicit_float32(returned):
        return Float32Producer(name)
    if returned.type != "identifier":
        return None
    before = statements[-2]
    if _casts(before, parsing.text(returned)):
        return Float32Producer(name)
    if before.type != "if_statement" or any(c.type in {"elif_clause", "else_clause"} for c in before.children):
        return None
    condition, consequence = before.child_by_field_name("condition"), before.child_by_field_name("consequence")
    inner = [s for s in (consequence.named_children if consequence is not None else []) if s.type != "comment"]
    if condition is None or len(inner) != 1 or not _casts(inner[0], parsing.text(returned)):
        return None
    flag = _self_attribute(condition)
    parameter = _true_default_parameter(init, flag) if flag is not None else None
    if parameter is None:
        return None
    return Float32Producer(name, parameter[0], parameter[1])


def _casts(statement: Node, name: str) -> bool:
    """`name = <explicit float32 cast>`."""
    assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
    if assignment is None or assignment.type != "assignment":
        return False
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    return left is not None and right is not None and parsing.text(left) == name and explicit_float32(right)


def _self_attribute(node: Node) -> str | None:
    if node.type == "attribute" and parsing.text(node.child_by_field_name("object")) == "self":
        return parsing.text(node.child_by_field_name("attribute"))
    return None


def _true_default_parameter(init: Node | None, attribute: str) -> tuple[str, int] | None:
    """The `__init__` parameter stored as `self.<attribute> = <parameter>` whose default is True, and its position."""
    if init is None:
        return None
    parameters = init.child_by_field_name("parameters")
    names = [p for p in (parameters.named_children if parameters is not None else [])]
    stored = None
    for node in _own_nodes(init):
        if node.type == "assignment" and _self_attribute(node.child_by_field_name("left")) == attribute:
            if stored is not None:
                return None  # set twice
            right = node.child_by_field_name("right")
            stored = parsing.text(right) if right is not None and right.type == "identifier" else ""
    for index, parameter in enumerate(names[1:]):
        if parameter.type == "default_parameter" and parsing.text(parameter.child_by_field_name("name")) == stored:
            value = parameter.child_by_field_name("value")
            return (stored, index) if value is not None and value.type == "true" else None
    return None


def _made_by(name: str, before: int, function: Node, init: Node) -> ProducedOperand | None:
    """The class of `self.<attr>` when the name's last binding before `before` in the function is `self.<attr>(...)`."""
    binding = None
    for node in _own_nodes(function):
        if node.type in {"assignment", "augmented_assignment", "for_statement", "with_item", "named_expression"} \
                and node.start_byte < before and name in _bound(node):
            if binding is None or node.start_byte > binding.start_byte:
                binding = node
    if binding is None or binding.type != "assignment" or binding.child_by_field_name("left").type != "identifier":
        return None
    value = binding.child_by_field_name("right")
    attribute = _self_attribute(value.child_by_field_name("function")) if value is not None and value.type == "call" else None
    if attribute is None or _enclosing(binding, {"if_statement", "for_statement", "while_statement", "try_statement",
                                                 "with_statement"}, stop=function) is not None:
        return None
    built = [n for n in _own_nodes(init) if n.type == "assignment"
             and _self_attribute(n.child_by_field_name("left")) == attribute]
    if len(built) != 1 or built[0].child_by_field_name("right").type != "call":
        return None
    call = built[0].child_by_field_name("right")
    arguments = call.child_by_field_name("arguments")
    items = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
    if any(a.type in {"list_splat", "dictionary_splat"} for a in items):
        return None
    keywords = [parsing.text(a.child_by_field_name("name")) for a in items if a.type == "keyword_argument"]
    positional = sum(1 for a in items if a.type != "keyword_argument")
    return ProducedOperand(parsing.text(call.child_by_field_name("function")).rsplit(".", 1)[-1], keywords, positional)


def _bound(node: Node) -> set[str]:
    """The names a binding statement may bind (a `with` item: every name it writes)."""
    target = node if node.type == "with_item" else node.child_by_field_name("left") or node.child_by_field_name("name")
    if target is None:
        return set()
    return {parsing.text(n) for n in parsing.walk(target, limit=200) if n.type == "identifier"}


def _methods(cls: Node) -> dict[str, Node]:
    return {parsing.text(d.child_by_field_name("name")): d
            for d in parsing.function_definitions(cls.child_by_field_name("body"))}


def _own_nodes(function: Node):
    """The function's nodes, not those of functions or classes defined inside it."""
    return parsing.walk(function, limit=20000, prune=OWN_SCOPES, enter_root=True)


def _enclosing(node: Node, types: set[str], stop: Node | None = None) -> Node | None:
    current = node.parent
    while current is not None and (stop is None or current.id != stop.id):
        if current.type in types:
            return current
        current = current.parent
    return None
