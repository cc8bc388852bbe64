"""Uses of a library feature that its partial route to Ascend lacks, flagged where the project's Python spells them
(DEP032): qlora's `optim='paged_adamw_32bit'` default, `load_in_8bit=...`, `bnb_4bit_use_double_quant=...` with
bitsandbytes' NPU backend, which quantises NF4 only. The features and their spellings are route data
(knowledge/routes/routes.toml `lacks`); the finding's texts are the rule's variant for the feature's facet.

A string counts only as a whole value equal to a listed one (a help text that names the optimizer is no use); a
keyword counts unless its value is a literal false (`load_in_8bit=False` turns the feature off); one whose value is the
project's own switch (a name, an expression) is the low-severity `switched` variant: on only where the project sets it.
A switch forwarded into the project's own function (`_attach_hooks(model, load_in_8bit = load_in_8bit)`) is no use:
the callee spends it, and its own use is the finding."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from ascend_feasibility.knowledge import load_routes
from tree_sitter import Node

DETECTOR = "route-gap"
OFF_VALUES = frozenset({"false", "none"})  # tree-sitter node types of a literal that turns a feature off
SWITCHED = "switched"  # the facet of a keyword whose value is the project's switch, not a literal True


@dataclass(frozen=True)
class _Gaps:
    strings: dict[str, str]  # value -> facet
    keywords: dict[str, str]  # keyword -> facet
    keyword_values: dict[tuple[str, str], str]  # (keyword, value) -> facet


@functools.cache
def gaps() -> _Gaps:
    strings, keywords, keyword_values = {}, {}, {}
    for route in load_routes().route:
        for gap in route.lacks:
            strings.update({value: gap.facet for value in gap.strings})
            keywords.update({keyword: gap.facet for keyword in gap.keywords})
            keyword_values.update({(k, v): gap.facet for k, v in gap.keyword_values.items()})
    return _Gaps(strings, keywords, keyword_values)


def _words() -> tuple[str, ...]:
    found = gaps()
    return tuple(sorted({*found.strings, *found.keywords, *(k for k, _ in found.keyword_values)}))


def _query() -> str:
    """Only strings and keywords that spell a gap: the query is gated on these words, so it captures nothing else
    (tests/test_query_set.py)."""
    found = gaps()
    # a keyword spelled as a key (`kwargs["load_in_8bit"] = True`, `{"load_in_8bit": True}`) is a string too
    strings = "|".join(sorted({*found.strings, *found.keywords}))
    keywords = " ".join(f'"{k}"' for k in sorted({*found.keywords, *(k for k, _ in found.keyword_values)}))
    return (f'((string) @gap_string (#match? @gap_string "{strings}"))\n'
            f"((keyword_argument name: (identifier) @gap_keyword) (#any-of? @gap_keyword {keywords}))\n")


QUERY = _query()
LITERALS = frozenset({"true", "integer", "float", "string"})  # a literal sets the feature: a use wherever it is passed
# names a file binds to its own code: definitions, and imports from its own package (`from .diffusion import X`)
OWN_NAMES = """
(function_definition name: (identifier) @function)
(class_definition name: (identifier) @own)
(import_from_statement module_name: (relative_import) name: (dotted_name) @own)
(import_from_statement module_name: (relative_import) name: (aliased_import alias: (identifier) @own))
"""


class _RouteGapScan(PythonScan):
    GATED = ((_words(), QUERY),)
    # the names the file defines or imports relatively → the parameters a function of them declares (None: a class or
    # an import, not read); read at a first forward
    _own: dict[str, set[str] | None] | None = None

    def run(self):
        """Strings and keywords only: no gap is spelled by a name (a call into the library is DEP030's)."""
        found = self.captures()
        for node in found.get("gap_string", []):
            self._string(node)
        for node in found.get("gap_keyword", []):
            self._keyword(node)
        return self.hits
    def _string(self, node: Node) -> None:
        value = _string_value(node)
        if value in gaps().keywords:
            self._key(node, value)
            return
        facet = gaps().strings.get(value) if value is not None else None
        if facet is None or _keyword_of(node) in gaps().keywords:  # the keyword's own finding speaks for it
            return
        self.hit(DETECTOR, value, node, facets=(facet,))

    def _key(self, key: Node, keyword: str) -> None:
        """A gap keyword spelled as the key of the keywords a call is given: a subscript store (`kwargs['load_in_8bit']
        = True`, LLaVA's builder under `if load_8bit:`) or a dict entry (`{"load_in_8bit": True}`); its value asks for
        the feature as a keyword's does. A key only read (`kwargs.get("load_in_8bit")`, `if "load_in_8bit" in kw`)
        asks nothing."""
        parent = key.parent
        if parent is not None and parent.type == "subscript" and parent.child_by_field_name("subscript") == key:
            store = parent.parent
            if store is None or store.type != "assignment" or store.child_by_field_name("left") != parent:
                return
            site, value, holder = store, store.child_by_field_name("right"), parent.child_by_field_name("value")
        elif parent is not None and parent.type == "pair" and parent.child_by_field_name("key") == key:
            site, value = parent, parent.child_by_field_name("value")
            mapping = parent.parent
            holder = mapping.parent if mapping is not None else None
            if holder is not None and holder.type == "dictionary_splat":  # `f(**{"load_in_8bit": True})`
                holder = None
            elif holder is not None and holder.type == "assignment" and holder.child_by_field_name("right") == mapping:
                holder = holder.child_by_field_name("left")
            else:
                return
        else:
            return
        if value is None or value.type in OFF_VALUES:
            return
        if holder is not None and not _spread(holder, site):
            return  # a dict kept, returned or serialised (`output["load_in_8bit"] = self.load_in_8bit` in to_dict)
        facets = (gaps().keywords[keyword],) if value.type == "true" else (gaps().keywords[keyword], SWITCHED)
        self.hit(DETECTOR, parsing.text(site), site, facets=facets)

    def _keyword(self, name: Node) -> None:
        argument = name.parent
        value = argument.child_by_field_name("value") if argument is not None else None
        keyword = parsing.text(name)
        if value is None:
            return
        literal = _string_value(value) if value.type == "string" else None
        facet = gaps().keyword_values.get((keyword, literal)) if literal is not None else None
        facets: tuple[str, ...] = (facet,) if facet is not None else ()
        if facet is None and keyword in gaps().keywords and value.type not in OFF_VALUES | LITERALS \
                and self._own_callee(argument):
            return  # a forward into the project's own function: its use is where that function spends the value
        if facet is None and keyword in gaps().keywords and value.type not in OFF_VALUES:
            # a literal True asks for the feature; a name or expression passes the project's own switch, on only
            # where the project turns it on (llm-foundry's `load_in_8bit=load_in_8bit`, default False)
            facets = (gaps().keywords[keyword],) if value.type == "true" else (gaps().keywords[keyword], SWITCHED)
        if facets:
            self.hit(DETECTOR, parsing.text(argument), argument, facets=facets)


    def _own_callee(self, argument: Node) -> bool:
        """Is the keyword passed to a function or class the file defines or imports relatively
        (`_attach_bnb_multidevice_hooks(model, load_in_8bit = load_in_8bit)`, `FastDiffusionModel.from_pretrained(...)`
        with `from .diffusion import FastDiffusionModel`), or to a method of its own (`self._load(...)`)?"""
        call = argument.parent.parent if argument.parent is not None else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        parts = []
        while function is not None and function.type == "attribute":
            parts.append(function.child_by_field_name("attribute"))
            function = function.child_by_field_name("object")
        if function is None or function.type != "identifier":
            return False
        name = parsing.text(function)
        if name in {"self", "cls"}:  # `self.method(...)`: the class's own method, when the file defines it
            if len(parts) != 1 or parts[0] is None:
                return False
            name = parsing.text(parts[0])
        if self._own is None:
            found = parsing.captures(parsing.query("python", OWN_NAMES), self.unit.tree())
            self._own = {parsing.text(n): None for n in found.get("own", [])}
            for name_node in found.get("function", []):  # a function of the file: the parameters it declares
                declared = _parameters(name_node.parent)
                known = self._own.get(parsing.text(name_node))
                self._own[parsing.text(name_node)] = declared if known is None else known & declared
        if name not in self._own:
            return False
        # a function of the file spends the switch only where it declares it (one taking **kwargs hands it on)
        declared = self._own[name]
        return declared is None or parsing.text(argument.child_by_field_name("name")) in declared


def _spread(holder: Node, site: Node) -> bool:
    """Is the dict `holder` names (a plain name) given to a call as `**name` in the scope of `site` (the function, or
    the module)? Only then are its keys keywords of that call."""
    if holder.type != "identifier":
        return False
    scope = site.parent
    while scope is not None and scope.type not in {"function_definition", "module"}:
        scope = scope.parent
    if scope is None:
        return False
    name = parsing.text(holder)
    stack = [scope]
    while stack:
        node = stack.pop()
        if node.type == "dictionary_splat" and node.named_children and node.named_children[0].type == "identifier" \
                and parsing.text(node.named_children[0]) == name:
            return True
        stack.extend(node.named_children)
    return False


def _parameters(function: Node) -> set[str]:
    """The names of a function definition's parameters (`*args`/`**kwargs` apart)."""
    parameters = function.child_by_field_name("parameters") if function is not None else None
    names = set()
    for parameter in parameters.named_children if parameters is not None else []:
        name = parameter if parameter.type == "identifier" else parameter.child_by_field_name("name")
        if name is None and parameter.type == "typed_parameter" and parameter.named_children:
            name = parameter.named_children[0]
        if name is not None and name.type == "identifier":
            names.add(parsing.text(name))
    return names


def _string_value(node: Node) -> str | None:
    """The text of a plain string literal (no f-string, no concatenation), else None."""
    if node.type != "string" or node.child_count < 2:
        return None
    start, end = node.children[0], node.children[-1]
    if "f" in parsing.text(start).lower() or any(c.type == "interpolation" for c in node.children):
        return None
    return node.text[start.end_byte - node.start_byte : end.start_byte - node.start_byte].decode("utf-8", "replace")


def _keyword_of(node: Node) -> str | None:
    parent = node.parent
    if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("value") == node:
        return parsing.text(parent.child_by_field_name("name"))
    return None


class RouteGapScanner(PythonDomainScanner):
    domain = "dependencies"
    triggers = _words()
    scan_class = _RouteGapScan

    def scan(self, unit: Unit):
        return _RouteGapScan(self.index, unit).run()
