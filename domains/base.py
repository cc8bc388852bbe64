"""What every domain scanner receives and returns.

A scanner reads one unit of a file (a module, a notebook cell, a shell script, a Dockerfile, a YAML document)
and returns hits: a rule code, what matched and where. Turning hits into findings (severity, migration kind at
the target torch_npu, texts, effort) is the engine's job, from the knowledge base, so scanners hold no
replacement knowledge of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ascend_feasibility.analyzer.reading import dockerfile, parsing
from ascend_feasibility.analyzer.reading.python_names import IMPORT_QUERY, ImportTable
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains import query_set, triggers
from ascend_feasibility.knowledge import KnowledgeBase, Target
from tree_sitter import Node

# A Python unit's import table is read from its share of the unit's combined query (domains.query_set).
IMPORT_TABLE_QUERY = query_set.register("import_table", IMPORT_QUERY)


# A hit's `npu` text in both languages (a kernel class's replacement): English, this separator, Chinese; the finding
# takes the side of each text's language.
BILINGUAL = "\u241e"


def bilingual(en: str, zh: str) -> str:
    return f"{en}{BILINGUAL}{zh}"


@dataclass(frozen=True)
class Span:
    """0-based rows, byte columns, as tree-sitter reports them."""

    start_row: int
    start_col: int
    end_row: int
    end_col: int

    @classmethod
    def of(cls, node: Node) -> "Span":
        return cls(node.start_point.row, node.start_point.column, node.end_point.row, node.end_point.column)


@dataclass(frozen=True)
class Hit:
    rule: str
    symbol: str
    span: Span
    npu: str | None = None  # the replacement text for this occurrence, when the rule's text uses {npu}
    # transfer_to_npu capabilities that make this occurrence automatic, when they differ from the rule's own
    # (a device literal passed straight to a torch API depends on whether that API is wrapped).
    auto_when: tuple[str, ...] | None = None
    context: str | None = None  # "training" or "inference" where the code shows it
    effort: tuple[float, float] | None = None  # hours, when the occurrence's size decides them (kernels)


@dataclass
class Unit:
    """One piece of a file that is parsed on its own. `kind` is python, shell, dockerfile or yaml."""

    path: str
    kind: str
    source: SourceText
    cell: int | None = None
    _tree: Node | None = field(default=None, repr=False)
    _imports: ImportTable | None = field(default=None, repr=False)
    shared_imports: ImportTable | None = field(default=None, repr=False)
    cache: dict = field(default_factory=dict, repr=False)  # per-unit results shared by scanners; dropped with the tree

    def tree(self) -> Node:
        if self._tree is None:
            if self.kind == "dockerfile":
                self._tree = parsing.parse("bash", dockerfile.shell_view(self.source.text).encode("utf-8"))
            else:
                grammar = {"python": "python", "shell": "bash", "cuda": "cuda", "cpp": "cpp"}[self.kind]
                self._tree = parsing.parse(grammar, self.source.data)
        return self._tree

    def imports(self) -> ImportTable:
        """A notebook's cells share one table: an import in an earlier cell binds names in later ones."""
        if self.shared_imports is not None:
            return self.shared_imports
        if self._imports is None:
            self._imports = ImportTable()
            if "import" in self.source.text:  # both import statements spell the keyword
                self._imports.add_captures(query_set.unit_captures(self, IMPORT_TABLE_QUERY))
        return self._imports

    @property
    def parsed(self) -> bool:
        return self._tree is not None

    def release_tree(self) -> None:
        self._tree = None
        self.cache.clear()


class Scanner:
    """A domain scanner. Subclasses set the class attributes and implement `scan`."""

    domain: ClassVar[str]
    kinds: ClassVar[frozenset[str]]
    # The scanner only runs on a unit whose text contains one of these (a cheap pre-filter before parsing).
    triggers: ClassVar[tuple[str, ...]]

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        triggers.register(getattr(cls, "triggers", ()))

    def __init__(self, kb: KnowledgeBase, target: Target) -> None:
        self.kb = kb
        self.target = target

    def wants(self, unit: Unit) -> bool:
        if unit.kind not in self.kinds:
            return False
        return not triggers.present(unit.source.text, unit.cache).isdisjoint(self.triggers)

    def query_keys(self, unit: Unit) -> set[str]:
        """The keys of the combined Python query (domains.query_set) a scan of this unit asks for."""
        return set()

    def scan(self, unit: Unit) -> list[Hit]:
        raise NotImplementedError
