"""YAML composed under a budget: aliases past a small count, a document whose aliases expand past a node count, and
nesting past a depth are refused (billion laughs, deep nesting), never walked. JSON is checked as JSON first.

LibYAML's C parser, where PyYAML was built with it, produces the events (four times faster than the pure-Python
scanner, most of a config-heavy tree's time); the nodes are still composed here, under the budget. A text the C parser
refuses is parsed again in Python, so that what is accepted and every error message are PyYAML's own."""

from __future__ import annotations

import json

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.resolver import Resolver

try:
    from yaml._yaml import CParser
except ImportError:  # PyYAML built without LibYAML
    CParser = None

MAX_ALIASES = 100
MAX_EXPANDED_NODES = 100_000
MAX_DEPTH = 100


class YamlBudgetError(yaml.YAMLError):
    """The document is over a budget; the message says which."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class _Budget:
    """The composer's counts: every node knows its size with aliases expanded."""

    max_aliases = MAX_ALIASES

    def _start_budget(self) -> None:
        self._aliases = 0
        self._depth = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            self._aliases += 1
            if self._aliases > self.max_aliases:
                raise YamlBudgetError(f"more than {self.max_aliases} aliases (refused)")
            target = self.anchors.get(self.peek_event().anchor)
            # its anchor's node is still being composed (a scalar is whole once its anchor is set: never)
            if target is not None and not isinstance(target, yaml.ScalarNode) and id(target) not in self._sizes:
                raise YamlBudgetError("an alias inside the node it names (a document that contains itself, refused)")
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise YamlBudgetError(f"nested deeper than {MAX_DEPTH} levels (refused)")
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        # A scalar's size is 1, what a node not in _sizes counts for: most nodes are scalars, and are not recorded.
        sizes = self._sizes
        if isinstance(node, yaml.MappingNode):
            size = 1 + sum(sizes.get(id(key), 1) + sizes.get(id(value), 1) for key, value in node.value)
        elif isinstance(node, yaml.SequenceNode):
            size = 1 + sum(sizes.get(id(child), 1) for child in node.value)
        else:
            return node
        if size > MAX_EXPANDED_NODES:
            raise YamlBudgetError(f"aliases expand past {MAX_EXPANDED_NODES} nodes (refused)")
        self._sizes[id(node)] = size
        return node


class BoundedLoader(_Budget, yaml.SafeLoader):
    def __init__(self, stream) -> None:
        super().__init__(stream)
        self._start_budget()


class JsonLoader(BoundedLoader):
    max_aliases = 0  # JSON has no aliases


if CParser is not None:
    class FastBoundedLoader(_Budget, Composer, CParser, SafeConstructor, Resolver):
        """Events from LibYAML, nodes composed by PyYAML's Composer (ahead of CParser's own composer in the MRO)."""

        def __init__(self, stream) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self._start_budget()

    class FastJsonLoader(FastBoundedLoader):
        max_aliases = 0


def compose_all(text: str, json_document: bool = False) -> list[yaml.Node]:
    """The documents of a YAML text (or of a JSON one, which must parse as JSON); yaml.YAMLError when it cannot be
    composed or is over budget."""
    if json_document:
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise YamlBudgetError(f"not valid JSON: {exc.msg} (line {exc.lineno})") from None
        except RecursionError:
            raise YamlBudgetError("JSON nested too deeply (refused)") from None
    if CParser is not None:
        try:
            return _documents(text, FastJsonLoader if json_document else FastBoundedLoader)
        except YamlBudgetError:
            raise
        except yaml.YAMLError:
            pass  # PyYAML decides, with its own message
    return _documents(text, JsonLoader if json_document else BoundedLoader)


def _documents(text: str, loader: type) -> list[yaml.Node]:
    try:
        return [doc for doc in yaml.compose_all(text, Loader=loader) if doc is not None]
    except RecursionError:
        raise YamlBudgetError("nested too deeply (refused)") from None


def compose(text: str) -> yaml.Node | None:
    documents = compose_all(text)
    return documents[0] if documents else None
