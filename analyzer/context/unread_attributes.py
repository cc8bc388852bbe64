"""Attributes a class stores and nothing reads: `self.device = torch.device("cuda:{}".format(self.rank))` in an
`__init__`, while the code takes its device from elsewhere. A finding in the stored value concerns nothing that runs:
`optional`, with the reason.

Per file (stored_unread, from the syntax tree), a statement `self.<attr> = <value>` of a method of a module-level class
is a candidate when:
- the value is a string or is built only by calls with no effect besides their value (dead_stores.EFFECT_FREE_CALLS:
  `torch.device(...)`, `torch.cuda.is_available()`): a call with effects still runs, whatever becomes of its value;
- the file writes the attribute's name nowhere but in such statements (no `self.device` read, no `executor.device`,
  no `getattr(self, "device")`, not even in a comment): the word count errs towards a read;
- the class derives from nothing but `object` (a base class, another file's, may read it), and its body never hands
  `self` on whole (`register(self)`, `return self`, `vars(self)`, `self.__dict__`): what receives it may read any
  attribute.
The module must name the class nowhere outside its definition (a factory of its own would hand instances on).
Per project (unread_attribute_stores): the candidate holds when no other file that names the class (an instance built
there, a subclass) or that imports its module writes the attribute's name, and every file naming the class keeps its
instances to itself (kept_instances: `executor = Executor(...)`, then only `executor.<attr>`): an instance passed as
an argument may reach code, of the project or a library, that reads the attribute without naming the class.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.dead_stores import effect_free
from ascend_feasibility.analyzer.context.unreferenced import importers_of
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, NAME_BYTES, writers
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from tree_sitter import Node

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

VALUE_TYPES = frozenset({"call", "conditional_expression", "string"})
WHOLE_SELF_WORDS = frozenset({b"__dict__", b"vars", b"getattr", b"__getattribute__", b"__getattr__", b"__slots__",
                              b"setattr", b"__setattr__"})
MAX_CLASS_NODES = 50_000
MAX_FILE_NODES = 400_000
IMPORTS = frozenset({"import_statement", "import_from_statement", "aliased_import"})
# the pattern of domains/phases/facts.py's query whose captures kept_instances reads:
# (assignment left: (identifier) @built_variable right: (call function: (identifier) @built_class))


def stored_unread(module: ModuleStatements, data: bytes) -> list[tuple[str, str, int, int]]:
    """(class, attribute, first line, last line) of the stores of the file's classes that the file never reads."""
    stores: list[tuple[str, str, Node, Node]] = []  # (class, attribute, the statement, the class)
    for _, cls in module.classes:
        if not _plain_bases(cls):
            continue
        name = parsing.text(cls.child_by_field_name("name"))
        for method in parsing.function_definitions(cls.child_by_field_name("body")):
            body = method.child_by_field_name("body")
            for store in body.named_children if body is not None else []:
                attribute = _stored(store)
                if attribute is not None:
                    stores.append((name, attribute, store, cls))
    if not stores:
        return []
    counts = Counter(data.translate(NAME_BYTES).split())
    inside: dict[bytes, int] = defaultdict(int)
    for _, attribute, store, _ in stores:
        encoded = attribute.encode()
        inside[encoded] += store.text.translate(NAME_BYTES).split().count(encoded)
    found = []
    handed_on: dict[int, bool] = {}
    for cls_name, attribute, store, cls in stores:
        encoded = attribute.encode()
        if counts[encoded] != inside[encoded]:
            continue
        own = cls_name.encode()
        if counts[own] != cls.text.translate(NAME_BYTES).split().count(own):
            continue  # the module builds or hands the class on itself (a factory): its callers may read the attribute
        if cls.id not in handed_on:
            handed_on[cls.id] = _hands_self_on(cls)
        if not handed_on[cls.id]:
            found.append((cls_name, attribute, store.start_point.row + 1, store.end_point.row + 1))
    return found


def unread_attribute_stores(facts: list[ModuleFacts], packages: set[str]) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the stores no file of the project reads. `packages`:
    unloaded.package_folders(facts)."""
    candidates = [(f.path, store) for f in facts if f.unread_stores for store in f.unread_stores]
    if not candidates:
        return {}
    importers = importers_of(facts, packages)
    contained = {f.path: set(f.kept_instances) for f in facts if f.kept_instances}
    naming = writers({cls for _, (cls, _, _, _) in candidates} | {a for _, (_, a, _, _) in candidates}, facts)
    result: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for path, (cls, attribute, first, last) in candidates:
        if len(cls) < MIN_NAME or len(attribute) < MIN_NAME:
            continue  # a short name is not judged by words
        users = (naming.get(cls, set()) | importers(path)) - {path}
        if users & naming.get(attribute, set()):
            continue
        if any(cls not in contained.get(user, ()) for user in naming.get(cls, set()) - {path}):
            continue  # a file hands an instance on (an argument, a return value, a container): what gets it may read it
        result[path].append((first, last, f"line {first}: {cls}.{attribute} is stored and never read: no code of "
                                          f"its module reads it, and no file naming {cls} or importing its module "
                                          f"names {attribute}"))
    return dict(result)


def _plain_bases(cls: Node) -> bool:
    bases = cls.child_by_field_name("superclasses")
    return bases is None or all(parsing.text(base) == "object" for base in bases.named_children)




def _stored(statement: Node) -> str | None:
    """The attribute `self.<attr> = <value>` stores, where the value is a string or an effect-free call's value."""
    assignment = parsing.statement_assignment(statement)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    right = assignment.child_by_field_name("right") if assignment is not None else None
    if left is None or right is None or left.type != "attribute" or right.type not in VALUE_TYPES:
        return None
    owner, attribute = left.child_by_field_name("object"), left.child_by_field_name("attribute")
    if owner is None or owner.text != b"self" or attribute is None or not effect_free(right):
        return None
    return parsing.text(attribute)


def _hands_self_on(cls: Node) -> bool:
    """Does the class use `self` otherwise than as an attribute's object, or look its attributes up by name?"""
    if set(cls.text.translate(NAME_BYTES).split()) & WHOLE_SELF_WORDS:
        return True
    try:
        for node in parsing.walk(cls, limit=MAX_CLASS_NODES, strict=True):
            if node.type != "identifier" or node.text != b"self":
                continue
            parent = node.parent
            if parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == node:
                continue
            if parent is not None and parent.type == "parameters":
                continue
            return True
    except parsing.WalkLimit:
        return True
    return False


def kept_instances(module: ModuleStatements, data: bytes, variables: list[Node], classes: list[Node]) -> list[str]:
    """`variables`, `classes`: the captures of `v = Name(...)` statements (domains/phases/facts.py's query).
    The capitalised names (classes) the file names only in `v = Name(...)` statements whose variable it uses only
    as an attribute's object (`v.step = 0`, `v.train(...)`): an instance that never leaves the file, so only this
    file's attribute reads can read it. A name used any other way (an argument, a base class, a return value, a
    container, an annotation) is not listed."""
    built: dict[bytes, list[bytes]] = defaultdict(list)  # class → the variables bound to its instances
    for variable, function in zip(variables, classes, strict=False):  # one pair a statement, in source order
        if function.text[:1].isupper() and variable.parent.id == function.parent.parent.id:
            built[function.text].append(variable.text)
    if not built:
        return []
    counts = Counter(data.translate(NAME_BYTES).split())
    for statement, kind in zip(module.statements, module.kinds, strict=True):
        if kind in IMPORTS:  # `from pkg.executor import Executor` names it without using it
            for word in statement.text.translate(NAME_BYTES).split():
                counts[word] -= 1
    kept = []
    for name, variables in built.items():
        if counts[name] != len(variables):
            continue  # the class is named elsewhere in the file too
        if all(_only_attribute_object(module.root, v) for v in set(variables)):
            kept.append(name.decode("utf-8", "replace"))
    return kept


def _only_attribute_object(tree: Node, variable: bytes) -> bool:
    """Is every use of the variable an assignment's target or an attribute's object?"""
    name = variable.decode("utf-8", "replace")
    uses = parsing.identifiers_named(tree, name, MAX_FILE_NODES)
    if len(uses) != data_words(tree, variable):
        return False  # a use the tree does not show as an identifier (a string, a comment): not judged
    for node in uses:
        parent = node.parent
        if parent is None:
            return False
        if parent.type == "attribute" and parent.child_by_field_name("object") == node:
            continue
        if parent.type == "assignment" and parent.child_by_field_name("left") == node:
            continue
        if parent.type == "dotted_name" and parent.parent is not None and parent.parent.type in IMPORTS:
            continue  # a module's name in an import (`from voice.utils.executor import Executor`)
        return False
    return True


def data_words(tree: Node, word: bytes) -> int:
    return tree.text.translate(NAME_BYTES).split().count(word)
