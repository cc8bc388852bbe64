"""A constructor's default carried through `self.<attribute>` into the class's methods (unpassed_defaults' hop).

An attribute `__init__` sets to a test of the parameter against a literal (`self.is_input_vectorized =
num_vector_embeds is not None`, diffusers' Transformer2DModel) carries that test's value at the default (`derived`):
`if self.is_input_vectorized:` is then false wherever no construction passes num_vector_embeds.

lmms-eval's `Bagel.__init__(self, ..., seed: int = 0)` stores `self.seed = seed`, and `set_seed(self, seed)`, called
only as `self.set_seed(self.seed)`, tests `if seed > 0:`; `CambrianS.__init__(consolidation_method="drop")` stores
`self.consolidation_method`, which a method tests with `== "drop_merge"`. Where the attribute is bound only there
(the class stores it nowhere else, sets no attribute by name), the `__init__` default decides the method's test as it
would decide the same test in `__init__`: the test is read as one on the `__init__` parameter (`hops`). What the
project may do from outside the class (store `model.seed = 42`, call `model.set_seed(5)`) is recorded per file
(`foreign`) and checked across the project by unpassed_defaults.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ascend_feasibility.analyzer.context.instance_calls import call_passes
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

SELF = "self"

# Stores to an attribute: the targets of assignments (plain, augmented, annotated), loops and `with ... as`
STORES = """
(assignment left: (_) @target)
(augmented_assignment left: (_) @target)
(for_statement left: (_) @target)
(with_item value: (as_pattern alias: (_) @target))
((call function: (identifier) @setattr arguments: (argument_list . (_) @object . (_) @key))
 (#eq? @setattr "setattr"))
"""

# Calls of a method on self (`self.set_seed(self.seed)`), and every mention of `self.<name>`
SELF_ATTRIBUTES = """
(attribute object: (identifier) @object attribute: (identifier) @name)
"""


@dataclass
class Hops:
    """One file's hops: attribute → the `__init__` parameter's target, by class; method parameter → attribute."""
    # class node id → attribute → (class, parameter, position in a call, default)
    attributes: dict[int, dict[str, tuple[str, str, int, str]]] = field(default_factory=dict)
    # method node id → parameter → (attribute, method name)
    parameters: dict[int, dict[str, tuple[str, str]]] = field(default_factory=dict)
    spans: list[tuple[int, int]] = field(default_factory=list)  # the classes with a hop
    # class node id → attribute → (operator, literal) of an attribute `__init__` sets to a test of its parameter
    # (`self.is_input_vectorized = num_vector_embeds is not None`): its value is that test's at the default
    derived: dict[int, dict[str, tuple[str, str]]] = field(default_factory=dict)

    def derivation(self, method: Node, attribute: str) -> tuple[str, str] | None:
        """(operator, literal) of `attribute` in the class of `method` where `__init__` stores a test of the
        parameter in it; None where it stores the parameter itself."""
        return self.derived.get(class_block(method).parent.id, {}).get(attribute)

    def inside(self, node: Node) -> bool:
        return any(start <= node.start_byte < end for start, end in self.spans)

    def target(self, name_node: Node) -> tuple[Node, tuple[str, str, int, str], tuple[str, str]] | None:
        """(method, the `__init__` target, (attribute, method or "")) of `self.<attribute>` or of a method parameter
        read in a method of a class with hops (the method directly in the class body)."""
        method = _method(name_node)
        if method is None:
            return None
        cls = class_block(method).parent
        attributes = self.attributes.get(cls.id)
        if attributes is None:
            return None
        if name_node.type == "attribute":
            holder, attribute = name_node.child_by_field_name("object"), name_node.child_by_field_name("attribute")
            if holder is None or attribute is None or holder.type != "identifier" or parsing.text(holder) != SELF:
                return None
            found = attributes.get(parsing.text(attribute))
            return (method, found, (parsing.text(attribute), "")) if found is not None else None
        carried = self.parameters.get(method.id, {}).get(parsing.text(name_node))
        if carried is None or carried[0] not in attributes:
            return None
        return method, attributes[carried[0]], carried


def hops(functions: list[Node], rebound) -> Hops:
    """The hops of the classes whose `__init__` is among `functions` (unpassed_defaults._defaulted_functions): an
    attribute stored once in the class, in `__init__`, as `self.attribute = parameter` from a parameter with a literal
    default that `__init__` never rebinds; and a method's parameter every call of which in the class (`self.method(...)`,
    at least one, the method used no other way) passes `self.attribute`. `rebound(function)`: unpassed_defaults._rebound."""
    found = Hops()
    for init in functions:
        block = class_block(init)
        cls = block.parent if block is not None else None
        if cls is None or cls.type != "class_definition" or b"setattr" in cls.text or b"__dict__" in cls.text:
            continue
        changed = rebound(init)
        if changed is None:
            continue
        defaults = _defaults(init)
        stores = _self_stores(cls)
        attributes = {}
        derived = {}
        for attribute, places in stores.items():
            if len(places) != 1:
                continue
            store = places[0]
            value = store.parent.child_by_field_name("right") if store.parent.type == "assignment" else None
            if value is None or (_method(store) is None or _method(store).id != init.id):
                continue
            derivation = _derivation(value) if value.type == "comparison_operator" else None
            if value.type != "identifier" and derivation is None:
                continue
            parameter = parsing.text(value) if derivation is None else derivation[0]
            if parameter in defaults and not changed.get(parameter):
                index, default = defaults[parameter]
                attributes[attribute] = (parsing.text(cls.child_by_field_name("name")), parameter, index - 1, default)
                if derivation is not None:
                    derived[attribute] = derivation[1:]
        if not attributes:
            continue
        found.attributes[cls.id] = attributes
        if derived:
            found.derived[cls.id] = derived
        found.spans.append((cls.start_byte, cls.end_byte))
        found.parameters.update(_carried(cls, attributes, rebound))
    return found


def _derivation(value: Node) -> tuple[str, str, str] | None:
    """(parameter, operator, literal) of `parameter <op> literal` (`num_vector_embeds is not None`), the parameter on
    the left; None for any other comparison."""
    from ascend_feasibility.analyzer.context.unpassed_defaults import COMPARE, LITERAL_TYPES
    operators = value.children_by_field_name("operators")
    if len(value.named_children) != 2 or len(operators) != 1:
        return None
    left, right = value.named_children
    spelled = " ".join(parsing.text(operators[0]).split())
    if left.type != "identifier" or right.type not in LITERAL_TYPES or spelled not in COMPARE:
        return None
    return parsing.text(left), spelled, parsing.text(right)


def foreign(tree: Node, stores: list[Node], methods: list[Node], modules: set[str], called: list[Node] | None = None,
            attributes: list[Node | None] | None = None) -> list[str]:
    """Attribute names the file stores or calls on an object other than `self` or an imported module, as "store:name"
    and "call:name": what may change an attribute, or call a method, of a class with hops from outside it. `stores`:
    the left sides of the file's assignments that hold an attribute; `methods`: the name of every attribute call;
    `called`: the callee of every call of a plain name (the unit's combined query holds both), where a `setattr` is
    looked for (None: a query of its own); `attributes`: each method name's parent, where the caller has them."""
    names = set()
    modules_bytes = {module.encode("utf-8") for module in modules}
    skipped = {SELF.encode("utf-8")} | modules_bytes
    if attributes is None:
        attributes = [callee.parent for callee in methods]
    for callee, attribute in zip(methods, attributes, strict=True):
        holder = attribute.child_by_field_name("object") if attribute is not None else None
        if holder is None:
            continue
        if not (holder.type == "identifier" and holder.text in skipped):
            names.add("call:" + callee.text.decode("utf-8", "replace"))
        if not (holder.type == "identifier" and holder.text in modules_bytes):  # self.load(...) counts here
            names.update(_passes(callee, attribute))
    for target in stores:
        for attribute in _attributes(target):
            holder, name = attribute.child_by_field_name("object"), attribute.child_by_field_name("attribute")
            if holder is not None and name is not None and not (holder.type == "identifier" and holder.text == b"self"):
                names.add("store:" + name.text.decode("utf-8", "replace"))
    for key in _setattr_keys(tree, called):  # setattr(x, "seed", ...) on anything; setattr(x, name, ...): any name
        if key.type == "string":
            names.add(f"store:{parsing.text(key).strip(chr(39) + chr(34))}")
        else:
            keys = _looped_keys(key)
            names.update(f"store:{k}" for k in keys) if keys is not None else names.add("store:*")
    return sorted(names)


def _setattr_keys(tree: Node, called: list[Node] | None) -> list[Node]:
    """The key (second argument) of every `setattr(...)` call of two arguments or more, as STORES' `key` capture: from
    the callees of plain-name calls where given (in their order, not the keys'), else by the query over the tree."""
    if called is None:
        return parsing.captures(parsing.query("python", STORES), tree).get("key", []) if b"setattr" in tree.text else []
    keys = []
    for callee in called:
        if callee.text != b"setattr":
            continue
        call = callee.parent
        arguments = call.child_by_field_name("arguments") if call is not None else None
        if arguments is not None and arguments.type == "argument_list" and arguments.named_child_count >= 2:
            keys.append(arguments.named_children[1])
    return keys


def _looped_keys(key: Node) -> list[str] | None:
    """The strings a `setattr(x, k, ...)` key can hold where `k` is the variable of an enclosing loop over a literal
    collection of strings, written in place or bound once to a name in the same function (diffusers' disable_freeu:
    `freeu_keys = {"s1", "s2", "b1", "b2"}; for k in freeu_keys: setattr(block, k, None)`); None for any other key."""
    if key.type != "identifier":
        return None
    loop = key.parent
    while loop is not None and not (loop.type == "for_statement" and loop.child_by_field_name("left") is not None
                                    and loop.child_by_field_name("left").text == key.text):
        if loop.type in {"function_definition", "lambda", "class_definition", "module"}:
            return None
        loop = loop.parent
    collection = loop.child_by_field_name("right") if loop is not None else None
    if collection is not None and collection.type == "identifier":
        collection = _bound_once(collection)
    if collection is None or collection.type not in {"set", "list", "tuple"} or not collection.named_children:
        return None
    if any(item.type != "string" or item.named_children and any(c.type == "interpolation" for c in item.named_children)
           for item in collection.named_children):
        return None
    return [parsing.text(item).strip(chr(39) + chr(34)) for item in collection.named_children]


def _bound_once(name: Node) -> Node | None:
    """The right side of the one plain assignment to `name` in its enclosing function (None where it is bound
    otherwise or more than once, or is no function's local)."""
    function = name.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None:
        return None
    found = []
    for node in parsing.walk(function.child_by_field_name("body"), limit=20000):
        parent = node.parent
        if node.type != "identifier" or node.text != name.text or parent is None:
            continue
        if parent.type in {"pattern_list", "tuple_pattern", "list_pattern", "global_statement", "nonlocal_statement",
                           "as_pattern_target"} or (parent.type in {"assignment", "augmented_assignment", "for_statement",
                                                                     "named_expression"}
                                                    and parent.child_by_field_name("left" if parent.type != "named_expression" else "name") == node):
            found.append(parent)
    if len(found) != 1 or found[0].type != "assignment":
        return None
    return found[0].child_by_field_name("right")


def _passes(callee: Node, attribute: Node) -> set[str]:
    """What a method call passes, as "pass:method:keyword" ("pass:method:keyword=literal"), "pass:method:*" (a splat) and
    "pos:method:N" (N positional arguments, 0 too): whether any call of the method name may pass a parameter
    (unpassed_defaults.Forwards reads them for a method that forwards its default). `attribute`: the callee's parent."""
    call = attribute.parent
    arguments = call.child_by_field_name("arguments") if call is not None and call.type == "call" else None
    if arguments is None or not arguments.named_children:
        return set()
    # `pos:method:0` too: the method is called; the positional values (`arg:`) are the instance records' own
    return {r for r in call_passes(call, callee.text.decode("utf-8", "replace")) if not r.startswith("arg:")}


def _defaults(init: Node) -> dict[str, tuple[int, str]]:
    from ascend_feasibility.analyzer.context.unpassed_defaults import LITERAL_TYPES
    result = {}
    parameters = init.child_by_field_name("parameters")
    for index, parameter in enumerate(parameters.named_children if parameters is not None else []):
        if parameter.type in {"default_parameter", "typed_default_parameter"}:
            key, value = parameter.child_by_field_name("name"), parameter.child_by_field_name("value")
            if key is not None and value is not None and value.type in LITERAL_TYPES:
                result[parsing.text(key)] = (index, parsing.text(value))
    return result


def _self_stores(cls: Node) -> dict[str, list[Node]]:
    """attribute → the `self.attribute` targets the class body stores to (any method, nested ones too)."""
    stores: dict[str, list[Node]] = {}
    body = cls.child_by_field_name("body")
    for target in parsing.captures(parsing.query("python", STORES), body).get("target", []) if body is not None else []:
        for attribute in _attributes(target):
            holder, name = attribute.child_by_field_name("object"), attribute.child_by_field_name("attribute")
            if holder is not None and name is not None and holder.type == "identifier" and parsing.text(holder) == SELF:
                stores.setdefault(parsing.text(name), []).append(attribute)
            elif name is not None:
                stores.setdefault(parsing.text(name), []).extend([attribute, attribute])  # another object's: not once
    return stores


def _attributes(node: Node) -> list[Node]:
    if node.type == "attribute":
        return [node]
    if node.type in {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression",
                     "as_pattern_target"}:
        return [a for child in node.named_children for a in _attributes(child)]
    return []


def _carried(cls: Node, attributes: dict[str, tuple], rebound) -> dict[int, dict[str, tuple[str, str]]]:
    """method id → parameter → (attribute, method) where every use of `self.method` in the class is a call passing
    `self.attribute` for that parameter (by position or keyword, no *args/**kwargs)."""
    body = cls.child_by_field_name("body")
    methods = {}
    for member in body.named_children if body is not None else []:
        name = member.child_by_field_name("name") if member.type == "function_definition" else None
        if name is not None and parsing.text(name) != "__init__":
            methods[parsing.text(name)] = member
    if not methods:
        return {}
    uses: dict[str, list[Node]] = {}
    found = parsing.captures(parsing.query("python", SELF_ATTRIBUTES), body)
    for holder, name in zip(found.get("object", []), found.get("name", []), strict=True):
        if parsing.text(holder) == SELF and parsing.text(name) in methods:
            uses.setdefault(parsing.text(name), []).append(name.parent)
    result = {}
    for method_name, used in uses.items():
        method = methods[method_name]
        changed = rebound(method)
        if changed is None:
            continue
        parameters = method.child_by_field_name("parameters")
        names = [_name(p) for p in (parameters.named_children if parameters is not None else [])][1:]  # past self
        carried = {}
        for position, parameter in enumerate(names):
            if parameter is None or changed.get(parameter):
                continue
            passed = {_passed(use, position, parameter) for use in used}
            if len(passed) == 1 and None not in passed and next(iter(passed)) in attributes:
                carried[parameter] = (next(iter(passed)), method_name)
        if carried:
            result[method.id] = carried
    return result


def _passed(use: Node, position: int, parameter: str) -> str | None:
    """The attribute `self.method(...)` passes as `self.attribute` for the parameter, or None (not a call, a splat,
    another value)."""
    call = use.parent
    if call is None or call.type != "call" or call.child_by_field_name("function") != use:
        return None
    arguments = call.child_by_field_name("arguments")
    given = None
    for index, argument in enumerate(arguments.named_children if arguments is not None else []):
        if argument.type in {"list_splat", "dictionary_splat"}:
            return None
        if argument.type == "keyword_argument":
            if parsing.text(argument.child_by_field_name("name")) == parameter:
                given = argument.child_by_field_name("value")
        elif index == position:
            given = argument
    if given is None or given.type != "attribute":
        return None
    holder, name = given.child_by_field_name("object"), given.child_by_field_name("attribute")
    if holder is None or holder.type != "identifier" or parsing.text(holder) != SELF or name is None:
        return None
    return parsing.text(name)


def _name(parameter: Node) -> str | None:
    if parameter.type == "identifier":
        return parsing.text(parameter)
    if parameter.type == "typed_parameter":
        first = parameter.named_children[0] if parameter.named_children else None
        return parsing.text(first) if first is not None and first.type == "identifier" else None
    if parameter.type in {"default_parameter", "typed_default_parameter"}:
        key = parameter.child_by_field_name("name")
        return parsing.text(key) if key is not None else None
    return None


def _method(node: Node) -> Node | None:
    """The function directly in a class body that `node` is in (not in a nested function), undecorated or an
    `__init__` under config recorders only (class_block)."""
    current = node.parent
    while current is not None and current.type not in {"function_definition", "lambda", "class_definition"}:
        current = current.parent
    if current is None or current.type != "function_definition":
        return None
    block = class_block(current)
    cls = block.parent if block is not None else None
    return current if cls is not None and cls.type == "class_definition" else None


def class_block(function: Node) -> Node | None:
    """The block `function` is a member of: its parent, or, for an `__init__` decorated only by config recorders
    (`@register_to_config`: they record the call's keywords and run it unchanged), its decorated definition's parent.
    None for any other decorated function or a function outside a block."""
    holder = function.parent
    if holder is not None and holder.type == "decorated_definition" and config_recorded(holder):
        name = function.child_by_field_name("name")
        holder = holder.parent if name is not None and name.text == b"__init__" else None
    return holder if holder is not None and holder.type == "block" else None


def config_recorded(decorated: Node) -> bool:
    """Every decorator of `decorated` a config recorder by name (knowledge: conventions' opt_in.config_recorders),
    spelled bare or through a module (`@register_to_config`, `@configuration_utils.register_to_config`)."""
    decorators = [c for c in decorated.named_children if c.type == "decorator"]
    for decorator in decorators:
        name = decorator.named_children[0] if decorator.named_children else None
        if name is None or name.type not in {"identifier", "attribute"} or (
                parsing.text(name).rsplit(".", 1)[-1] not in _recorders()):
            return False
    return bool(decorators)


@functools.cache
def _recorders() -> frozenset[str]:
    from ascend_feasibility.knowledge import load_context_conventions
    return frozenset(load_context_conventions().opt_in.config_recorders)
