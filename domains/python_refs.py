"""What every Python domain scanner shares: the references a file makes to imported names, resolved to
qualified names, and the scaffolding of one scan over one unit."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import ClassVar

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import chain_and_parent, enclosing_call, qualified_name
from ascend_feasibility.domains import query_set, triggers
from ascend_feasibility.domains.base import Hit, Scanner, Span, Unit, code_context
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.domains.shell_pins import leading_devices
from tree_sitter import Node

# Include these patterns in a domain's query to receive references. A chain on `self` or `cls` is captured too (a
# text predicate costs a text read at every attribute of the tree; the `#not-any-of?` this pattern carried never
# filtered under tree-sitter 0.26 anyway): references() drops every chain whose root no import binds.
REFERENCE_PATTERNS = r"""
(attribute object: (identifier) @chain_root)
(call function: (identifier) @called_name)
(decorator (identifier) @decorator_name)
"""
REFERENCES = query_set.register("references", REFERENCE_PATTERNS)
_START_BYTE = operator.attrgetter("start_byte")


@dataclass(frozen=True)
class Reference:
    name: str  # qualified, e.g. torch.cuda.synchronize
    node: Node  # the whole `a.b.c` chain or the identifier
    call: Node | None  # the call when the reference is called: `a.b.c(...)`


def references(found: dict[str, list[Node]], unit: Unit) -> list[Reference]:
    """Each resolved reference once, in source order."""
    imports = unit.imports()
    roots = imports.root_names()
    seen: set[int] = set()
    result = []
    # Only a name bound by an import resolves: most chains start at a local name, dropped before any walk. Each
    # candidate comes with its parent, read once for the three tests below (the chain's climb read it already).
    candidates = [chain_and_parent(root) for root in found.get("chain_root", []) if root.text in roots]
    candidates += [(node, node.parent) for node in found.get("called_name", []) + found.get("decorator_name", [])
                   if node.text in roots]
    for node, parent in candidates:
        if node.id in seen or _is_definition_name(node, parent):
            continue
        name = qualified_name(node, imports)  # before _is_not_a_use: most chains are local names, never resolved
        if name is None or _is_not_a_use(node, parent):
            continue
        seen.add(node.id)
        result.append(Reference(name, node, enclosing_call(node, parent)))
    return sorted(result, key=lambda r: r.node.start_byte)


def _is_definition_name(node: Node, parent: Node | None) -> bool:
    if parent is None:
        return False
    if parent.type in {"function_definition", "class_definition", "keyword_argument"}:
        name = parent.child_by_field_name("name")
        return name is not None and name.id == node.id
    return parent.type in {"dotted_name", "aliased_import", "import_from_statement", "import_statement"}


def _is_not_a_use(node: Node, parent: Node | None) -> bool:
    """A name patched with a wrapper of itself (`F.scaled_dot_product_attention = wrap(F.scaled_dot_product_attention)`,
    a profiler), that only annotates a type (`stream: torch.cuda.Stream | None`) or that a `del` removes (`del
    torch.cuda.memory_allocated`, a benchmark's cleanup: it unbinds the name on any host) calls nothing on the device.
    `parent`: node's."""
    if parent is not None and (parent.type == "delete_statement" or parent.type == "expression_list"
                               and parent.parent is not None and parent.parent.type == "delete_statement"):
        return True
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node:
        right = parent.child_by_field_name("right")  # a patch wraps what it replaces; a setting (`= True`) is a use
        return right is not None and parsing.text(node) in parsing.text(right)
    wrapper, depth = parent, 0  # ...and the original handed to the wrapper on the right side is no call either
    while wrapper is not None and wrapper.type in {"argument_list", "call"} and depth < 4:
        wrapper, depth = wrapper.parent, depth + 1
    if wrapper is not None and wrapper.type == "assignment" and depth >= 2:
        left = wrapper.child_by_field_name("left")
        if left is not None and parsing.text(left) == parsing.text(node):
            return True
    current, depth = parent, 0
    while current is not None and depth < 8:
        if current.type == "type":
            return True
        if current.type in {"block", "module", "call", "argument_list"}:
            return False
        current, depth = current.parent, depth + 1
    return False


def unit_references(unit: Unit) -> list[Reference]:
    """The references of a whole unit, resolved once and shared by every domain's scanner."""
    cached = unit.cache.get("references")
    if cached is None:
        cached = unit.cache["references"] = references(query_set.unit_captures(unit, REFERENCES), unit)
    return cached


class PythonScan:
    """The state of one scan of one unit; domain scanners subclass it."""

    QUERY: str = ""  # the domain's own patterns; references come from unit_references()
    # True for a scan whose scanner's trigger words are rare and whose patterns capture much: its patterns are matched
    # by themselves, only in the units it runs in, not in every unit's combined query (domains.query_set)
    QUERY_ALONE: ClassVar[bool] = False
    # Patterns whose every capture spells one of the words in its own text, as ((words...), patterns): matched only in
    # units that spell one, and there only around the words (a text predicate is tested at every string or identifier
    # of every unit otherwise).
    GATED: ClassVar[tuple[tuple[tuple[str, ...], str], ...]] = ()
    # (capture name, method) pairs that run() feeds, in order, after every reference went to on_reference()
    HANDLERS: ClassVar[tuple[tuple[str, str], ...]] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.QUERY:
            query_set.register(cls.query_key(), cls.QUERY, alone=cls.QUERY_ALONE, scan=True)
        for number, (words, patterns) in enumerate(cls.GATED):
            query_set.register(f"{cls.query_key()}_gated{number}", patterns, gate=words)
            triggers.register(words)

    @classmethod
    def query_key(cls) -> str:
        return cls.__name__

    @classmethod
    def query_keys(cls, unit: Unit) -> set[str]:
        """The keys of this scan's patterns that can match in `unit`."""
        keys = {cls.query_key()} if cls.QUERY else set()
        if cls.GATED:
            present = triggers.present(unit.source.text, unit.cache)
            keys.update(f"{cls.query_key()}_gated{number}" for number, (words, _) in enumerate(cls.GATED)
                        if not present.isdisjoint(words))
        return keys

    def __init__(self, index: RuleIndex, unit: Unit) -> None:
        self.index = index
        self.unit = unit
        self.imports = unit.imports()
        self.hits: list[Hit] = []

    def run(self) -> list[Hit]:
        found = self.captures()
        for reference in unit_references(self.unit):
            self.on_reference(reference)
        for capture, method in self.HANDLERS:
            handler = getattr(self, method)
            for node in found.get(capture, []):
                handler(node)
        self.finish(found)
        return self.hits

    def on_reference(self, reference: Reference) -> None:
        self.name_rule(reference)

    def finish(self, found: dict[str, list[Node]]) -> None:
        """Work over the whole unit once the handlers ran."""

    def captures(self) -> dict[str, list[Node]]:
        keys = sorted(self.query_keys(self.unit))
        if len(keys) == 1:
            return query_set.unit_captures(self.unit, keys[0])
        merged: dict[str, list[Node]] = {}
        for key in keys:
            for name, nodes in query_set.unit_captures(self.unit, key).items():
                merged[name] = sorted(merged.get(name, []) + nodes, key=_START_BYTE) if name in merged else nodes
        return merged

    def hit(self, detector_or_code: str, symbol: str, node: Node, npu: str | None = None, **extra) -> None:
        code = self.index.code_for(detector_or_code)
        if "context" not in extra and self.index.kb.rules[code].not_auto_in:  # not automatic in some contexts
            extra["context"] = code_context(self.unit.source.text)
        self.hits.append(Hit(code, symbol, Span.of(node), npu, **extra))

    def env_string(self, node: Node) -> None:
        """A string literal that names an environment variable one of this domain's rules knows."""
        if literal_is_docstring(node) or node.child_count < 2 or in_message(node):
            return
        start, end = node.children[0], node.children[-1]
        if "f" in parsing.text(start).lower():
            return
        name = node.text[start.end_byte - node.start_byte : end.start_byte - node.start_byte].decode("utf-8", "replace")
        code = self.index.env_rule(name)
        if code is None:
            return
        listed = names_listed_with(node)
        if listed is not None and name in NAME_LIST_TWINS:
            detector, twin = NAME_LIST_TWINS[name]
            if twin in listed:
                return
            code = self.index.code_for(detector)
        elif name in LEADING_PIN_DETECTORS and module_pin_of_leading_devices(node):
            code = self.index.code_for(LEADING_PIN_DETECTORS[name])
        else:
            facets = self.env_facets(name, node)
            if facets is None:
                return
            self.hit(code, name, node, facets=facets)
            return
        self.hit(code, name, node)

    def env_facets(self, name: str, node: Node) -> tuple[str, ...] | None:
        """What the site does with the variable, for its rule's variant texts; None when it is no site of its own."""
        return ()

    def name_rule(self, reference: Reference, facets: tuple[str, ...] = ()) -> bool:
        """Report a reference whose qualified name a rule of this domain matches (with what the detector saw at the
        site, `facets`). True if it did."""
        match = self.index.match_name(reference.name)
        if match is None:
            return False
        if reference.name in self.index.not_decorators and _decorates_function(reference.node):
            return True
        if reference.call is None and not self.index.kb.rules[match[0]].match.type_tests_are_uses and in_type_test(reference.node):
            return True
        self.hit(match[0], match[1], reference.node, facets=facets)
        return True


# A variable named in a collection of variable names (`EXCLUDED_ENV_VARS = {"CUDA_VISIBLE_DEVICES", ...}`, filtered
# out of or copied into a child's environment) is not set there: the port adds its Ascend twin to the collection.
NAME_LIST_TWINS = {"CUDA_VISIBLE_DEVICES": ("visible-devices-name-list", "ASCEND_RT_VISIBLE_DEVICES")}


# The process pinning itself to the leading devices, which it takes anyway on Ascend (domains/shell_pins.py).
LEADING_PIN_DETECTORS = {"CUDA_VISIBLE_DEVICES": "cuda-visible-devices-default-pin"}


def module_pin_of_leading_devices(literal: Node) -> bool:
    """`os.environ["CUDA_VISIBLE_DEVICES"] = "0"` (or `"0,1"`, or `os.environ.setdefault(NAME, "0")`) as a statement
    of the module itself: the process pins its own leading devices. Not in a function (a child's environment, a
    worker's device), not a value computed at run time."""
    holder = literal.parent
    value = None
    if holder is not None and holder.type == "subscript" and parsing.text(holder.child_by_field_name("value")) \
            in {"os.environ", "environ"}:
        statement = holder.parent
        if statement is not None and statement.type == "assignment" and statement.child_by_field_name("left").id == holder.id:
            value = statement.child_by_field_name("right")
    elif holder is not None and holder.type == "argument_list" and holder.named_children[:1] == [literal]:
        statement = holder.parent
        function = statement.child_by_field_name("function") if statement is not None else None
        if function is not None and parsing.text(function) in {"os.environ.setdefault", "environ.setdefault"} \
                and len(holder.named_children) == 2:
            value = holder.named_children[1]
    if value is None or value.type != "string" or any(part.type == "interpolation" for part in value.named_children):
        return False
    expression = statement.parent
    if expression is None or expression.type != "expression_statement" or expression.parent is None \
            or expression.parent.type != "module":
        return False
    return leading_devices(parsing.text(value)[1:-1].strip("'\""))


def names_listed_with(literal: Node) -> set[str] | None:
    """The names of the list, tuple or set literal of plain strings that holds `literal` and others, else None. A
    one-name list is an answer, not a collection (an accelerator class's `return ['CUDA_VISIBLE_DEVICES']`)."""
    holder = literal.parent
    if holder is None or holder.type not in {"list", "tuple", "set"} or holder.named_child_count < 2:
        return None
    names = set()
    for item in holder.named_children:
        if item.type != "string" or any(part.type == "interpolation" for part in item.named_children):
            return None
        names.add(parsing.text(item)[1:-1].strip("'\""))
    return names


REMOVING_METHODS = frozenset({"pop", "unsetenv", "delenv"})
ENV_REMOVED = "env-removed"  # a site's facet: the line removes the variable (NCCL's: no twin to set on Ascend)


def removes_variable(literal: Node) -> bool:
    """The line removes the variable the string names: `os.environ.pop("NCCL_ASYNC_ERROR_HANDLING", None)`,
    `env.pop(NAME)`, `os.unsetenv(NAME)`, `monkeypatch.delenv(NAME)`, `del os.environ[NAME]`."""
    holder = literal.parent
    if holder is None:
        return False
    if holder.type == "subscript" and holder.child_by_field_name("subscript") is not None \
            and holder.child_by_field_name("subscript").id == literal.id:
        return holder.parent is not None and holder.parent.type == "delete_statement"
    if holder.type != "argument_list" or holder.named_children[:1] != [literal] or holder.parent is None:
        return False
    function = holder.parent.child_by_field_name("function")
    if function is None:
        return False
    name = function.child_by_field_name("attribute") if function.type == "attribute" else function
    return name is not None and parsing.text(name) in REMOVING_METHODS


def assigned_string(literal: Node) -> str | None:
    """The plain string a line stores under the variable the string names (`env[NAME] = "value"`,
    `os.environ.setdefault(NAME, "value")`), without its quotes; None for any other line or value."""
    holder = literal.parent
    value = None
    if holder is not None and holder.type == "subscript" and holder.child_by_field_name("subscript") is not None \
            and holder.child_by_field_name("subscript").id == literal.id:
        statement = holder.parent
        left = statement.child_by_field_name("left") if statement is not None and statement.type == "assignment" else None
        value = statement.child_by_field_name("right") if left is not None and left.id == holder.id else None
    elif holder is not None and holder.type == "argument_list" and holder.named_children[:1] == [literal] \
            and len(holder.named_children) == 2 and holder.parent is not None:
        function = holder.parent.child_by_field_name("function")
        name = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else None
        value = holder.named_children[1] if name is not None and parsing.text(name) == "setdefault" else None
    if value is None or value.type != "string" or any(part.type == "interpolation" for part in value.named_children):
        return None
    return parsing.text(value).lstrip("rbuRBU")[1:-1].strip("'\"")


MESSAGE_CALLS = frozenset({"print", "warn", "warning", "warning_once", "info", "info_once", "debug", "error", "exception",
                           "critical", "log", "log_dist", "print_rank_0"})
STATEMENTS = frozenset({"expression_statement", "return_statement", "if_statement", "block", "module", "assert_statement"})


def in_message(node: Node) -> bool:
    """Inside what a log, print or warning call shows, or a raised error's message: naming (or reading) a variable
    there to show it is not a use of it (`logger.info("NCCL_SOCKET_IFNAME = {}".format(os.environ["NCCL_SOCKET_IFNAME"]))`)."""
    current, depth = node.parent, 0
    while current is not None and depth < 30 and current.type not in STATEMENTS:
        if current.type == "raise_statement":
            return True
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is not None and parsing.text(function).rsplit(".", 1)[-1] in MESSAGE_CALLS:
                return True
        current, depth = current.parent, depth + 1
    return current is not None and current.type == "raise_statement"


TYPE_TESTS = frozenset({"isinstance", "issubclass"})
NAME_NODES = frozenset({"identifier", "attribute"})
CLASS_COLLECTIONS = frozenset({"tuple", "set", "list"})
# `type(model) in (DP, DDP)`, `type(m) is DDP`, `type(m) == DDP`: the exact class compared, nothing constructed
TYPE_COMPARISONS = frozenset({"in", "not in", "is", "is not", "==", "!="})


def in_type_test(node: Node) -> bool:
    """`isinstance(model, DDP)`, `isinstance(model, (DDP, DP))`, `type(model) in (DDP, DP)`, `type(model) is DDP`, or
    `options = (DDP, DP)` (a tuple, set or list) only tested against: a class tested against or kept in a collection of
    classes for such a test, not constructed."""
    holder = node.parent
    if holder is not None and holder.type in CLASS_COLLECTIONS:
        if not all(item.type in NAME_NODES for item in holder.named_children):
            return False
        if holder.parent is not None and holder.parent.type == "assignment":
            right = holder.parent.child_by_field_name("right")
            return right is not None and right.id == holder.id and _only_type_tested(holder.parent)
        if _type_compared(holder):
            return True
        if holder.type != "tuple":
            return False
        holder = holder.parent if holder.parent is not None and holder.parent.type == "argument_list" else holder
        node = holder.named_children[-1] if holder.type == "argument_list" else node
    elif _type_compared(node):
        return True
    if holder is None or holder.type != "argument_list" or holder.parent is None or holder.parent.type != "call":
        return False
    function = holder.parent.child_by_field_name("function")
    arguments = holder.named_children
    return (function is not None and parsing.text(function) in TYPE_TESTS and len(arguments) == 2
            and arguments[1].start_byte <= node.start_byte < arguments[1].end_byte)


def _type_compared(operand: Node) -> bool:
    """`operand` is compared with `type(x)`: `type(x) in operand`, `type(x) is operand`, `operand == type(x)`."""
    comparison = operand.parent
    if comparison is None or comparison.type != "comparison_operator" or comparison.named_child_count != 2:
        return False
    operators = {" ".join(parsing.text(op).split()) for op in comparison.children_by_field_name("operators")}
    if not operators or not operators <= TYPE_COMPARISONS:
        return False
    other = next((c for c in comparison.named_children if c.id != operand.id), None)
    if other is None or other.type != "call":
        return False
    function, arguments = other.child_by_field_name("function"), other.child_by_field_name("arguments")
    return (function is not None and parsing.text(function) == "type" and arguments is not None
            and arguments.named_child_count == 1)


def _only_type_tested(assignment: Node) -> bool:
    """`options = (DDP, DP)` whose name, in its function (or module), is only extended (`options += ...`) and tested
    against (`isinstance(model, options)`, `type(model) in options`): kept for type tests. Called or indexed
    (`options[1](model)`), it is a use."""
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return False
    name = left.text
    scope = parsing.enclosing(assignment, {"function_definition", "module"})
    return not any(node.type == "identifier" and node.text == name and node.id != left.id and not _tested_or_extended(node)
                   for node in parsing.walk(scope))


def _tested_or_extended(name: Node) -> bool:
    parent = name.parent
    if parent is not None and parent.type == "augmented_assignment":
        target = parent.child_by_field_name("left")
        return target is not None and target.id == name.id
    if _type_compared(name):
        return True
    if parent is None or parent.type != "argument_list" or parent.parent is None or parent.parent.type != "call":
        return False
    function = parent.parent.child_by_field_name("function")
    arguments = parent.named_children
    return (function is not None and parsing.text(function) in TYPE_TESTS and len(arguments) == 2
            and arguments[1].id == name.id)


def _decorates_function(node: Node) -> bool:
    """`@torch.jit.script` over a `def` (not a class, not a call whose result is kept)."""
    decorator = node.parent
    if decorator is None or decorator.type != "decorator":
        return False
    definition = decorator.parent
    target = definition.child_by_field_name("definition") if definition is not None else None
    return target is not None and target.type == "function_definition"


def literal_is_docstring(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "expression_statement" and parent.named_child_count == 1


keywords = parsing.keywords  # the core's reader, named here for the rooms that read calls through this module


def argument(call: Node, position: int, keyword: str) -> Node | None:
    """The argument given by keyword, or else the positional one at `position`."""
    named = keywords(call)
    if keyword in named:
        return named[keyword]
    args = call.child_by_field_name("arguments")
    positional = [
        c for c in (args.named_children if args is not None else [])
        if c.type not in {"keyword_argument", "list_splat", "dictionary_splat", "comment"}
    ]
    return positional[position] if position < len(positional) else None


class PythonDomainScanner(Scanner):
    """A domain's scanner over Python units: one `scan_class` instance per unit, sharing the domain's index."""

    kinds = frozenset({"python"})
    scan_class: ClassVar[type[PythonScan]]

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb, self.domain)

    def query_keys(self, unit: Unit) -> set[str]:
        return {REFERENCES} | self.scan_class.query_keys(unit)

    def scan(self, unit: Unit) -> list[Hit]:
        return self.scan_class(self.index, unit).run()
