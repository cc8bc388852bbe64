"""Module-level functions and classes a Python file defines and never names again, and the words every file writes
(Python, shell, YAML, JSON, build files): the project pass (analyzer/context/unreferenced.py) keeps such a symbol
wherever any other file writes its name.

The words are read from the text, not the syntax tree, on purpose: a name in a string, a YAML `target:`, a Makefile or
a shell line keeps the symbol too. Reading more than code only ever keeps more, so the test errs towards `runs`. A
Python file's prose (comments, docstrings, the sentences it only logs, prints or raises: prose.py) is blanked first:
a name written there calls nothing."""

from __future__ import annotations

import bisect
import re
from collections import Counter

import ahocorasick_rs
from ascend_feasibility.analyzer.context.dead_stores import effect_free
from ascend_feasibility.analyzer.context.function_objects import TESTED_QUERY, dead_arms
from ascend_feasibility.analyzer.context.option_locals import literal_text
from ascend_feasibility.analyzer.context.written_names import (
    DEAD_ARM_USER,
    MAIN_BLOCK_USER,
    MIN_NAME,
    NAME_BYTES,
    plain_words,
    word_string_of_bytes,
)
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements
from ascend_feasibility.domains.base import CALLS_BY_NAME_QUERY, Unit, register_query
from ascend_feasibility.domains.phases.prose import without_prose
from tree_sitter import Node

DEFINITIONS = {"function_definition": "function", "class_definition": "class"}
TESTED_KEY = register_query("function_object_tests", TESTED_QUERY)  # function_objects.dead_arms' conditions
# byte tables (bytes.translate runs at memory speed; UTF-8 bytes of non-ASCII letters are kept, so names stay whole)
_SPACES = NAME_BYTES
_DOTTED = bytes(c if c >= 128 or chr(c).isalnum() or chr(c) in "_." else 32 for c in range(256))
# two dots in one run of _DOTTED's bytes: a text without any (a JSON of numbers) holds no dotted name of three parts
_TWO_DOTS = re.compile(rb"\.[A-Za-z0-9_\x80-\xff]*\.")


# what str.split() splits on beyond ASCII (U+00A0, U+2028 ...): a name's bytes may sit between them in a word
OTHER_SPACES = tuple(chr(c) for c in range(128, 0x10000) if chr(c).isspace())


def _tokens(text: str) -> list[str]:
    return text.encode("utf-8", "replace").translate(_SPACES).decode("utf-8", "replace").split()


def read_words(data: bytes) -> tuple[str, set[str]]:
    """(words, dotted names) of a text's UTF-8 bytes: every word once as a word string (written_names.py), and the
    dotted names `dotted_words` keeps. A run with dots splits into the same words, so one set difference (in C, like
    the splits) leaves the few runs that hold a dot."""
    plain = set(data.translate(_SPACES).split())
    # no name asked of the words is shorter or starts with a digit (written_names.writers): leaving those out halves
    # the string (numbers in configs); counted in bytes, a non-ASCII word may stay in and is never asked
    words = {word for word in plain if len(word) >= MIN_NAME and not word[:1].isdigit()}
    dotted = _dotted_names(set(data.translate(_DOTTED).split()) - plain) if _TWO_DOTS.search(data) else set()
    return word_string_of_bytes(words), dotted


def _dotted_names(tokens: set[bytes]) -> set[str]:
    found = set()
    for word in {t.decode("utf-8", "replace").strip(".") for t in tokens if t.count(b".") >= 2}:
        parts = word.split(".")
        if len(parts) >= 3 and parts[0] != "self" and all(p and not p[0].isdigit() for p in parts):
            found.add(word)
    return found


def dotted_words(text: str) -> set[str]:
    """The dotted names of three parts or more a text writes (`"_target_": "llava.model.encoders.BasicImageEncoder"` in
    a string, a YAML `target:`), but attribute chains on `self`: the modules a config or registry may load by name."""
    return read_words(text.encode("utf-8", "replace"))[1]


def unit_statements(unit: Unit) -> ModuleStatements:
    """The unit's module-level statements, read from its tree once and shared by the readers of its facts."""
    found = unit.cache.get("module_statements")
    if found is None:
        found = unit.cache["module_statements"] = ModuleStatements(unit.tree())
    return found


LOOKUP_CALLS = frozenset({"globals", "Fire", "getmembers"})  # globals()[name], fire.Fire(), inspect.getmembers(module)


def _looks_names_up(unit: Unit) -> bool:
    """Whether the file may find its own functions by name at run time."""
    if not any(name in unit.source.text for name in LOOKUP_CALLS):
        return False  # a call of one spells its name: most files need no query
    found = unit.captures(CALLS_BY_NAME_QUERY)
    return any(parsing.text(node) in LOOKUP_CALLS for node in found.get("called", []) + found.get("method", []))


def reexported_names(unit: Unit) -> list[str]:
    """The names a module imports at its top level (`from .dist_utils import all_reduce_dict`) and writes nowhere else
    but in `__all__`: a package's __init__.py re-exports them, another module imports them unused (PixArt.py's
    `LabelEmbedder`, which nothing builds); either way, no use. A name the file also calls, registers or assigns
    (`callbacks.register('speed', func=SpeedMonitor)`), or writes in a comment or a string, is used."""
    data = unit.source.data
    if b"import" not in data or b"from" not in data:  # no `from m import name` statement
        return []
    lists = b"__all__" in data  # else no statement assigns it
    imported: list[str] = []
    listed = []  # the import and __all__ statements, whose words are no use
    module = unit_statements(unit)
    for statement, kind, head in zip(module.statements, module.kinds, module.heads, strict=True):
        if kind == "import_from_statement":
            for name in statement.children_by_field_name("name"):
                alias = name.child_by_field_name("alias") if name.type == "aliased_import" else None
                imported.append(parsing.text(alias if alias is not None else name).split(".")[-1])
            listed.append(statement)
            continue
        if not lists or head is None or head.type != "assignment":
            continue
        left = head.child_by_field_name("left")
        if left is not None and parsing.text(left) == "__all__":
            listed.append(statement)
    if not imported:
        return []
    # a name whose bytes the file holds nowhere but in those statements: a substring search (C, no word split) only
    # errs towards a use (`Foo` inside `FooBar`); it stops at the first use, which most names have soon after the imports
    gaps, start = [], 0
    for statement in listed:
        gaps.append((start, statement.start_byte))
        start = statement.end_byte
    gaps.append((start, len(data)))
    gaps = [(a, b) for a, b in gaps if b > a]
    return sorted({name for name in imported if len(name) >= MIN_NAME and not any(
        data.find(encoded, a, b) >= 0 for encoded in (name.encode("utf-8", "replace"),) for a, b in reversed(gaps))})


# decorators that only cache a function's results or compile it (Triton's jit, autotune and heuristics; numba's jit):
# they register it nowhere, so its name is still the only way in (a kernel launched only by an unreached host function)
INERT_DECORATORS = frozenset({"lru_cache", "cache", "jit", "autotune", "heuristics"})
# a registry's registering method applied to a module-level constant (`@ARCH_REGISTRY.register()`, `@MODELS.register_module()`):
# the registry builds the class only from a name string (`ARCH_REGISTRY.get(opt['type'])`), which a config (`type:
# Name`) or code must write, so the definition is judged like an undecorated one: no file writing its name, no build
REGISTERING_METHODS = frozenset({"register", "register_module"})


def unnamed_symbols(unit: Unit) -> list[tuple[str, int, int, str]]:
    """Undecorated module-level functions and classes whose name the file writes nowhere but in its definition,
    module-level constants holding an environment variable's name that it writes nowhere else, and module-level names
    bound to a string or an effect-free call's value (`DEVICE = torch.device("cuda:0")`) that it reads nowhere: (name,
    first line, last line, "function", "class", "constant" or "value"). A decorator may register the symbol, so those are left out,
    and so is every symbol of a file that looks names up (`globals()`, `fire.Fire()`, `inspect.getmembers`)."""
    return module_symbols(unit)[0]


def module_symbols(unit: Unit) -> tuple[list[tuple[str, int, int, str]], list[tuple[str, int, int, str, list[str]]]]:
    """unnamed_symbols, and the module-level symbols the file names only inside other module-level definitions, with
    those definitions' names (`_get_global_gloo_group`, cached by `@functools.lru_cache()`, called only in
    `all_reduce_dict`): the project pass leaves them unreached when every one of those is."""
    found = []
    module = unit_statements(unit)
    entries = _environment_entries(module)
    for statement, kind, definition, head in zip(module.statements, module.kinds, module.definitions, module.heads,
                                                 strict=True):
        if kind == "expression_statement":
            assignment = head if head is not None and head.type == "assignment" else None
            constant = _name_constant(statement, assignment)
            if constant is not None:
                found.append((constant, statement.start_point.row + 1, statement.end_point.row + 1, "constant", statement, True))
                continue
            value = _effect_free_value(assignment)
            if value is not None:
                found.append((value, statement.start_point.row + 1, statement.end_point.row + 1, "value", statement, True))
                continue
        if kind == "if_statement" and _main_guard(statement):  # its names are users too (MAIN_BLOCK_USER)
            found.append((MAIN_BLOCK_USER, statement.start_point.row + 1, statement.end_point.row + 1, "main", statement, False))
            continue
        if entries and statement.id in entries:
            found += [(name, node.start_point.row + 1, node.end_point.row + 1, "entry", node, True)
                      for name, node in entries[statement.id]]
            continue
        name = definition.child_by_field_name("name") if definition is not None else None
        if name is None or name.type != "identifier" or (statement is not definition and not _inert(statement)):
            continue
        text = parsing.text(name)
        if text and not text.startswith("__"):  # a short name (`run`) is kept only if the main block alone names it
            found.append((text, statement.start_point.row + 1, statement.end_point.row + 1, DEFINITIONS[definition.type],
                          statement, statement is definition or _registered(statement)))
    if not found or _looks_names_up(unit):
        return [], []
    if all(kind == "main" for _, _, _, kind, _, _ in found):
        return [], []
    named, users = _named_elsewhere(unit, found)
    unnamed = [(name, start, end, kind) for name, start, end, kind, _, plain in found if name not in named and plain
               and name not in users and kind != "main" and len(name) >= MIN_NAME]
    # a name shorter than MIN_NAME no other file's words can be searched for: listed only where the file's own
    # `if __name__ == "__main__":` block alone names it (`pool.imap_unordered(run, ...)`), for the project pass to
    # ask the files importing the module (unreferenced.py)
    inner = [(name, start, end, kind, sorted(users[name])) for name, start, end, kind, _, _ in found
             if name not in named and name in users and kind != "main"
             and (len(name) >= MIN_NAME or users[name] == {MAIN_BLOCK_USER})]
    return unnamed, inner


def imported_users(unit: Unit) -> list[tuple[str, list[str]]]:
    """The names the file imports from another module (`from basicsr.ops.dcn import ModulatedDeformConvPack`) and
    writes nowhere else but inside its own module-level definitions (`class DCNv2Pack(ModulatedDeformConvPack):`, a
    call in its `forward`) and in `__all__`, with those definitions' names (written_names.MAIN_BLOCK_USER for the
    `if __name__ == "__main__":` block): the project pass (analyzer/context/unreferenced.py) counts such a file's use
    of the name as those definitions' use, so a class only subclassed by classes nothing builds is unreached too.
    A name the file imports and writes nowhere else at all comes with no definitions (`from model_util import
    torch_gc`, never called: round 28 A1 row 27, A2 row 76): an import is no call, so that file is no user.
    A definition that is decorated (it may be registered under any name; a registry's `@X_REGISTRY.register()`, which
    builds by the class's own name, aside) or a name written anywhere else (a call at module level, a
    string outside the definitions) makes the name used; a comment is no use of a name the file imports (a
    construction commented out), and a file that looks names up gives none.
    An aliased import (`from ..stylegan3 import SynthesisLayer as AFSynthesisLayer`) is also listed under its source
    and imported name (`stylegan3.SynthesisLayer`, leading dots dropped), with the alias's users: the file writes that
    module's name only in the import (round 29 B1 row 13), even where another import binds the bare name
    (`from .stylegan2 import SynthesisLayer`, whose uses are that module's); not where the file defines the name, or
    writes it with no other import binding it."""
    data = unit.source.data
    if b"import" not in data or b"from" not in data:
        return []
    module = unit_statements(unit)
    imported: set[str] = set()
    aliases: dict[str, set[str]] = {}  # `from m import SynthesisLayer as AFSynthesisLayer`: the imported name → its aliases
    neutral: list[Node] = []  # the import statements and `__all__`: their words are no use
    for statement, kind, head in zip(module.statements, module.kinds, module.heads, strict=True):
        for node in import_froms(statement, kind):
            neutral.append(node)
            for name in node.children_by_field_name("name"):
                alias = name.child_by_field_name("alias") if name.type == "aliased_import" else None
                text = parsing.text(alias if alias is not None else name).split(".")[-1]
                if len(text) >= MIN_NAME and not text.startswith("__"):
                    imported.add(text)
                    original = name.child_by_field_name("name") if alias is not None else None
                    source = node.child_by_field_name("module_name")
                    source_text = parsing.text(source).lstrip(".") if source is not None else ""
                    if original is not None and source_text:
                        aliases.setdefault((source_text, parsing.text(original).split(".")[-1]), set()).add(text)
        if head is not None and head.type == "assignment" and kind == "expression_statement":
            left = head.child_by_field_name("left")
            if left is not None and parsing.text(left) == "__all__":
                neutral.append(statement)
    if not imported or _looks_names_up(unit):
        return []
    found = _user_definitions(module)
    text = unit.source.text
    if unit.tree().has_error or (not text.isascii() and any(space in text for space in OTHER_SPACES)):
        return []
    zones = sorted([(node.start_byte, node.end_byte, None) for node in neutral]
                   + [(statement.start_byte, statement.end_byte, name) for name, statement in found])
    # an aliased name is the defining module's name only in its import: the file uses it only where it writes an alias
    defined = {name for name, _ in found}
    originals = {original for _, original in aliases} - defined
    named, users = _words_by_zone(without_prose(unit), sorted(imported | originals), zones)
    found_users = [(name, sorted(users.get(name, ()))) for name in imported if name not in named]
    for (source, original), local in sorted(aliases.items()):
        if original in defined or local & named or (original not in imported and (original in named or original in users)):
            continue  # its own definition of the name, an alias used outside definitions, or the name written
            # elsewhere when no other import binds it
        found_users.append((f"{source}.{original}", sorted(set().union(*(users.get(name, set()) for name in local)))))
    return sorted(found_users)


def _words_by_zone(data: bytes, names: list[str], zones: list[tuple[int, int, str | None]]) -> tuple[set[str], dict[str, set[str]]]:
    """One pass of an automaton of `names` over the text's words (the bytes split where the text does: it holds no
    space but ASCII ones). `zones` are (start byte, end byte, owner) of module-level statements in source order, so a
    match lies in at most one, found by bisection. A match outside every zone names the word (`named`); inside a zone
    another name owns, that owner uses it (`users`); inside a neutral zone (owner None) or its own definition (a
    recursive call, `super(Name, self)`) it counts for nothing."""
    starts = [start for start, _, _ in zones]
    automaton = ahocorasick_rs.BytesAhoCorasick([f" {name} ".encode("utf-8", "replace") for name in names])
    haystack = b" " + data.translate(_SPACES) + b" "  # a match at `start` names data[start:]
    named: set[str] = set()
    users: dict[str, set[str]] = {}
    for index, start, end in automaton.find_matches_as_indexes(haystack, overlapping=True):
        name = names[index]
        if name in named:
            continue
        holder = bisect.bisect_right(starts, start) - 1
        if holder < 0 or end - 2 > zones[holder][1]:
            named.add(name)
        elif zones[holder][2] is not None and zones[holder][2] != name:
            users.setdefault(name, set()).add(zones[holder][2])
    return named, users


def import_froms(statement: Node, kind: str) -> list[Node]:
    """`from m import a` at module level, directly or in a module-level `try:` (its body and handlers)."""
    if kind == "import_from_statement":
        return [statement]
    if kind != "try_statement":
        return []
    blocks = [child for child in statement.named_children if child.type == "block"]
    blocks += [block for clause in statement.named_children if clause.type == "except_clause"
               for block in clause.named_children if block.type == "block"]
    return [inner for block in blocks for inner in block.named_children if inner.type == "import_from_statement"]


def _user_definitions(module: ModuleStatements) -> list[tuple[str, Node]]:
    """(name, statement) of the undecorated (or inertly decorated) module-level functions and classes and of the
    `__main__` block: the definitions unreferenced.py may find unreached, as module_symbols lists them."""
    found = []
    for statement, kind, definition in zip(module.statements, module.kinds, module.definitions, strict=True):
        if kind == "if_statement" and _main_guard(statement):
            found.append((MAIN_BLOCK_USER, statement))
            continue
        name = definition.child_by_field_name("name") if definition is not None else None
        if name is None or name.type != "identifier" or (statement is not definition and not _inert(statement)):
            continue
        found.append((parsing.text(name), statement))
    return found


def _main_guard(statement: Node) -> bool:
    """`if __name__ == "__main__":` (either side)."""
    condition = statement.child_by_field_name("condition")
    if condition is None or condition.type != "comparison_operator" or len(condition.named_children) != 2:
        return False
    sides = {c.type: c for c in condition.named_children}
    return "identifier" in sides and "string" in sides and parsing.text(sides["identifier"]) == "__name__" \
        and parsing.text(sides["string"]).strip("'\"") == "__main__" and not statement.children_by_field_name("alternative")


def _environment_entries(module: ModuleStatements) -> dict[int, list[tuple[str, Node]]]:
    """A module-level table of environment settings read on demand (vLLM-style envs.py: `environment_variables =
    {"APP_DEVICE": lambda: os.getenv("APP_DEVICE", "cuda"), ...}`, whose module `__getattr__` looks a key up when
    code reads `envs.APP_DEVICE`): module statement id → (key, the entry) for each entry whose value reads the variable
    its key names, and for the key's declarations under `if TYPE_CHECKING:` (`APP_DEVICE: str = "cuda"`, for type
    checkers only). An entry whose key nothing else names is read by nothing: its default reaches no code."""
    tables: dict[int, list[tuple[str, Node]]] = {}
    keys: set[str] = set()
    for statement, assignment in module.assignments:
        right = assignment.child_by_field_name("right")
        if right is None or right.type != "dictionary":
            continue
        for pair in right.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            value = pair.child_by_field_name("value") if key is not None else None
            name = _plain_string(key) if key is not None else None
            if name is None or value is None or not _VARIABLE_NAME.fullmatch(name) or not _reads_variable(value, name):
                continue
            tables.setdefault(statement.id, []).append((name, pair))
            keys.add(name)
    if not tables:
        return {}
    for statement, kind in zip(module.statements, module.kinds, strict=True):
        condition = statement.child_by_field_name("condition") if kind == "if_statement" else None
        body = statement.child_by_field_name("consequence") if condition is not None else None
        if body is None or parsing.text(condition).rsplit(".", 1)[-1] != "TYPE_CHECKING":
            continue
        for inner in body.named_children:
            assignment = parsing.statement_assignment(inner) if inner.type == "expression_statement" else None
            left = assignment.child_by_field_name("left") if assignment is not None else None
            if left is not None and left.type == "identifier" and parsing.text(left) in keys \
                    and assignment.child_by_field_name("type") is not None:
                tables.setdefault(statement.id, []).append((parsing.text(left), inner))
    return tables


def _plain_string(node: Node) -> str | None:
    if node.type != "string" or any(part.type not in {"string_start", "string_content", "string_end"}
                                     for part in node.children):
        return None
    content = next((part for part in node.children if part.type == "string_content"), None)
    return parsing.text(content) if content is not None else None


ENVIRONMENT_READS = frozenset({"getenv", "get"})  # os.getenv(NAME, default), os.environ.get(NAME, default)


def _reads_variable(value: Node, name: str) -> bool:
    """Does the entry's value read the environment variable `name` (`os.getenv("NAME", ...)`, `os.environ.get`,
    `os.environ["NAME"]`), and nothing but that name?"""
    reads = False
    for node in parsing.walk(value, limit=2_000):
        if node.type == "call":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            method = function
            if function is not None and function.type == "attribute":
                method = function.child_by_field_name("attribute")
            if method is None or parsing.text(method) not in ENVIRONMENT_READS or arguments is None \
                    or "environ" not in parsing.text(function) and "getenv" not in parsing.text(function):
                continue
            first = next((a for a in arguments.named_children if a.type != "comment"), None)
            if first is None or _plain_string(first) != name:
                return False  # it reads another variable too: the entry is more than its key
            reads = True
        elif node.type == "subscript" and "environ" in parsing.text(node.child_by_field_name("value") or node):
            index = node.child_by_field_name("subscript")
            if index is None or _plain_string(index) != name:
                return False
            reads = True
    return reads


# an environment variable's name as a string: upper-case words joined by `_` (TORCH_NCCL_DUMP_ON_TIMEOUT)
_VARIABLE_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _name_constant(statement: Node, assignment: Node | None) -> str | None:
    """The module-level name a statement (its assignment, if it is one) binds to a plain string that spells an
    environment variable's name (`TRACE_FILE = "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"`), else None: a rule on the variable
    fires where the constant flows to a write, so a constant nothing names is no site."""
    if assignment is None or b"_" not in statement.text:
        return None
    left = assignment.child_by_field_name("left")
    right = assignment.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier" or right.type != "string" \
            or any(part.type != "string_start" and part.type != "string_content" and part.type != "string_end"
                   for part in right.children):
        return None
    content = next((part for part in right.children if part.type == "string_content"), None)
    name = parsing.text(left)
    if content is None or len(name) < MIN_NAME or name.startswith("__") or not _VARIABLE_NAME.fullmatch(parsing.text(content)):
        return None
    return name


VALUE_TYPES = frozenset({"call", "conditional_expression", "string"})
NAME_TYPES = frozenset({"identifier", "attribute"})  # an alias: `deform_conv = DeformConvFunction.apply`


def _effect_free_value(assignment: Node | None) -> str | None:
    """The module-level name an assignment statement binds to a value built by calls with no effect besides their
    value (`DEVICE = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")`, dead_stores.
    EFFECT_FREE_CALLS) or to a string, else None: a finding in such a value concerns only what reads the name."""
    if assignment is None:
        return None
    left = assignment.child_by_field_name("left")
    right = assignment.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier" or assignment.child_by_field_name("type") is not None:
        return None
    if right.type in NAME_TYPES:  # an alias of a name (`deform_conv = DeformConvFunction.apply`): reads, runs nothing
        return parsing.text(left) if _plain_name(right) and len(parsing.text(left)) >= MIN_NAME \
            and not parsing.text(left).startswith("__") else None
    if right.type not in VALUE_TYPES:
        return None
    name = parsing.text(left)
    if len(name) < MIN_NAME or name.startswith("__") or not effect_free(right):
        return None
    return name


def _plain_name(node: Node) -> bool:
    """A name or a chain of attributes on one (`DeformConvFunction.apply`): no call, subscript or operator."""
    while node.type == "attribute":
        node = node.child_by_field_name("object")
        if node is None:
            return False
    return node.type == "identifier"


def _inert(decorated: Node, inert: frozenset[str] = INERT_DECORATORS, registrations: bool = True) -> bool:
    """Are all the decorators of a decorated definition ones that register nothing (`@functools.lru_cache()`), or
    (`registrations`) registrations in a registry that builds by a name string only (_registration)?"""
    for decorator in decorated.children:
        if decorator.type != "decorator" or (registrations and _registration(decorator)):
            continue
        expression = decorator.named_children[0] if decorator.named_children else None
        if expression is not None and expression.type == "call":
            expression = expression.child_by_field_name("function")
        if expression is not None and expression.type == "attribute":
            expression = expression.child_by_field_name("attribute")
        if expression is None or expression.type != "identifier" or parsing.text(expression) not in inert:
            return False
    return True


def _registered(decorated: Node) -> bool:
    """Is a decorated definition registered in a registry (_registration), its other decorators inert? Such a class
    is built by its name string only, so it is judged like an undecorated definition, unnamed where nothing names it."""
    decorators = [child for child in decorated.children if child.type == "decorator"]
    return any(_registration(decorator) for decorator in decorators) and _inert(decorated)


def _registration(decorator: Node) -> bool:
    """`@ARCH_REGISTRY.register()` / `@MODELS.register_module()`: a registration (registration_of)."""
    return registration_of(decorator) is not None


def registration_of(decorator: Node) -> tuple[str, tuple[str, ...]] | None:
    """(registry, the names it is built by beside its own) of `@ARCH_REGISTRY.register()`, `@MODELS.register_module()`
    or `@MODELS.register_module` (mmcv 1.x's old form): a registering method (REGISTERING_METHODS) on a module-level
    constant's name (upper case: a registry object, not an application's `app.register`), called with keyword
    arguments only (`force=True`; a positional one may be the name it is built by), where a `name=` keyword is a
    string or a list of strings (`name='Alias'`: the other name a config writes); None for any other decorator."""
    expression = decorator.named_children[0] if decorator.named_children else None
    if expression is None:
        return None
    aliases: list[str] = []
    function = expression
    if expression.type == "call":
        function = expression.child_by_field_name("function")
        arguments = expression.child_by_field_name("arguments")
        for child in arguments.named_children if arguments is not None else ():
            if child.type != "keyword_argument":
                return None
            key, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if key is None or parsing.text(key) != "name":
                continue
            values = value.named_children if value is not None and value.type in {"list", "tuple"} else [value]
            for item in values:
                literal = literal_text(item) if item is not None and item.type == "string" else None
                if not literal:
                    return None  # a name computed at run time: any string may build it
                aliases.append(literal)
    if function is None or function.type != "attribute":
        return None
    owner, method = function.child_by_field_name("object"), function.child_by_field_name("attribute")
    if owner is None or owner.type != "identifier" or not parsing.text(owner).isupper() \
            or method is None or parsing.text(method) not in REGISTERING_METHODS:
        return None
    return parsing.text(owner), tuple(aliases)


def registered_symbols(unit: Unit) -> list[tuple[str, str, list[str]]]:
    """(name, registry, the other names it is registered by) of the module-level functions and classes registered in
    a registry (registration_of) with no other decorator that may register them: built only from a config's
    `type='Name'` or a string, so the project pass judges them even in a published library's module (ViTPose's
    `@RUNNERS.register_module() class IterBasedRunnerAmp`, which no config names: round 40 B1 rows 11, 16)."""
    if b"regist" not in unit.source.data:
        return []
    found = []
    module = unit_statements(unit)
    for statement, definition in zip(module.statements, module.definitions, strict=True):
        if definition is None or statement is definition or not _registered(statement):
            continue
        name = definition.child_by_field_name("name")
        if name is None or name.type != "identifier":
            continue
        registrations = [r for child in statement.children if child.type == "decorator"
                         and (r := registration_of(child)) is not None]
        found.append((parsing.text(name), registrations[0][0], sorted({a for _, aliases in registrations for a in aliases})))
    return found


def _named_elsewhere(unit: Unit, found: list[tuple]) -> tuple[set[str], dict[str, set[str]]]:
    """The names among `found` the file writes outside every module-level definition of `found`, and, for the others
    it writes inside another one of them, those definitions' names: its own body may name one
    (`super(AsyncHybridAttention, self).__init__()`, a recursive call), and that reaches nothing."""
    text = unit.source.text
    if unit.tree().has_error or (not text.isascii() and any(space in text for space in OTHER_SPACES)):
        return _named_elsewhere_by_count(unit, found), {}
    zones = [(statement.start_byte, statement.end_byte, name) for name, _, _, _, statement, _ in found]
    zones = sorted(zones + [(statement.start_byte, statement.end_byte, None) for statement in _export_lists(unit)])
    zones = _split(zones, _dead_arms(unit))
    named, users = _words_by_zone(without_prose(unit), sorted({name for name, _, _, _, _, _ in found}), zones)
    return named, {name: holders for name, holders in users.items() if name not in named}


def _dead_arms(unit: Unit) -> list[tuple[int, int, str]]:
    """(start byte, end byte, DEAD_ARM_USER + why) of the arms a function object's test never lets run
    (function_objects.dead_arms)."""
    from ascend_feasibility.knowledge import load_context_conventions
    guards = load_context_conventions().guards
    return [(arm.start_byte, arm.end_byte, DEAD_ARM_USER + why) for arm, why in
            dead_arms(unit.tree(), frozenset(guards.gate_prefixes), frozenset(guards.gate_suffixes),
                      unit.captures(TESTED_KEY).get("condition", []))]


def _split(zones: list[tuple[int, int, str | None]], dead: list[tuple[int, int, str]]) -> list[tuple[int, int, str | None]]:
    """The zones with each dead arm cut out of the definition holding it, as a zone of its own (owner: the dead arm's
    DEAD_ARM_USER record): a name written there is used by that arm, not by the definition. Zones stay in order."""
    if not dead:
        return zones
    result = []
    arms = iter(dead)
    arm = next(arms, None)
    for start, end, owner in zones:
        while arm is not None and arm[0] < start:
            arm = next(arms, None)  # outside every definition: its words name nothing more than any other's
        while arm is not None and arm[1] <= end:
            result.append((start, arm[0] - 1, owner))
            result.append(arm)
            start = arm[1]
            arm = next(arms, None)
        result.append((start, end, owner))
    return result


def _export_lists(unit: Unit) -> list[Node]:
    """The module-level `__all__ = [...]` statements: a module listing its own definition there exports it, which
    is no use (lama's data_parallel.py listing `UserScatteredDataParallel`, which nothing builds); a file importing
    it still names it (unreferenced.py reads the package __init__.py only re-exporting it as no use either)."""
    if b"__all__" not in unit.source.data:
        return []
    module = unit_statements(unit)
    found = []
    for statement, kind, head in zip(module.statements, module.kinds, module.heads, strict=True):
        if kind == "expression_statement" and head is not None and head.type == "assignment":
            left = head.child_by_field_name("left")
            if left is not None and parsing.text(left) == "__all__":
                found.append(statement)
    return found


def _named_elsewhere_by_count(unit: Unit, found: list[tuple]) -> set[str]:
    """The same by counting tokens (a text with non-ASCII spaces; a tree with errors may end a definition in a word):
    a name written inside another definition counts as named."""
    counts = Counter(_tokens(unit.source.text))
    inside: Counter[str] = Counter()
    for name, _, _, _, statement, _ in found:
        inside[name] += _tokens(parsing.text(statement)).count(name)
    return {name for name, _, _, _, _, _ in found if counts[name] > inside[name]}


def copy_units(unit: Unit) -> list[tuple[str, int, int, str, bool, str]]:
    """The units of a module of a vendored copy (analyzer/context/copy_reach.py): (name, first line, last line, kind,
    pinned, the words it writes) for each module-level function and class ("function", "class"; pinned when a
    decorator that may register it is applied), the `if __name__ == "__main__":` block ("main") and the rest of the
    module-level code ("module", named copy_reach.MODULE_UNIT), leaving out the import statements and `__all__`, whose
    words reach nothing. A module that may look its names up (`globals()`, `inspect.getmembers`, `getattr` with a
    name that is not a literal) gives none: all of it is kept."""
    if _looks_names_up(unit) or _dynamic_getattr(unit):
        return []
    data = unit.source.data
    module = unit_statements(unit)
    units: list[tuple[str, int, int, str, bool, str]] = []
    rest = bytearray(data)  # the module-level code: definitions, imports and `__all__` blanked out
    for statement, kind, definition, head in zip(module.statements, module.kinds, module.definitions, module.heads,
                                                 strict=True):
        start, end = statement.start_byte, statement.end_byte
        words = word_string_of_bytes(plain_words(data[start:end]))
        name = definition.child_by_field_name("name") if definition is not None else None
        if kind == "if_statement" and _main_guard(statement):
            units.append((MAIN_BLOCK_USER, statement.start_point.row + 1, statement.end_point.row + 1, "main", False,
                          words))
        elif name is not None and name.type == "identifier":
            units.append((parsing.text(name), statement.start_point.row + 1, statement.end_point.row + 1,
                          DEFINITIONS[definition.type],
                          statement is not definition and not _inert(statement, registrations=False), words))
        elif kind in {"if_statement", "try_statement"}:
            # definitions, imports and `__all__` under a module-level `if`/`try` (mmcv's `if TORCH_VERSION ...:
            # class Fp16OptimizerHook`, `try: import torch ... else: from .env import collect_env`) are read like
            # the module's own; the tests and handlers stay module-level code
            for inner in _conditional_members(statement):
                inner_start, inner_end = inner.start_byte, inner.end_byte
                if inner.type in DEFINITIONS or inner.type == "decorated_definition":
                    own = inner.child_by_field_name("definition") if inner.type == "decorated_definition" else inner
                    own_name = own.child_by_field_name("name") if own is not None else None
                    if own_name is None or own_name.type != "identifier":
                        continue
                    units.append((parsing.text(own_name), inner.start_point.row + 1, inner.end_point.row + 1,
                                  DEFINITIONS[own.type], inner is not own and not _inert(inner, registrations=False),
                                  word_string_of_bytes(plain_words(data[inner_start:inner_end]))))
                rest[inner_start:inner_end] = b" " * (inner_end - inner_start)
            continue
        elif not (kind in IMPORTS or _all_assignment(statement)):
            continue
        rest[start:end] = b" " * (end - start)
    units.append(("", 0, 0, "module", False, word_string_of_bytes(plain_words(bytes(rest)))))
    return units


IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
CLAUSES = frozenset({"elif_clause", "else_clause", "except_clause", "finally_clause", "block"})


def _all_assignment(statement: Node) -> bool:
    """`__all__ = [...]` or `__all__ += [...]`."""
    head = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children \
        else None
    return head is not None and head.type in {"assignment", "augmented_assignment"} \
        and (left := head.child_by_field_name("left")) is not None and parsing.text(left) == "__all__"


def _conditional_members(statement: Node) -> list[Node]:
    """The definitions, imports and `__all__` assignments in the blocks of a module-level `if` or `try` statement,
    nested ones included."""
    found = []
    for child in statement.children:
        if child.type in CLAUSES:
            found += _conditional_members(child)
        elif statement.type == "block":
            if child.type in DEFINITIONS or child.type in IMPORTS or child.type == "decorated_definition" \
                    or _all_assignment(child):
                found.append(child)
            elif child.type in {"if_statement", "try_statement"}:
                found += _conditional_members(child)
    return found


def _dynamic_getattr(unit: Unit) -> bool:
    """Does the file call getattr with a name that is not a string literal (`getattr(comm, name)`)?"""
    return bool(dynamic_lookups(unit))


def _dotted(node) -> bool:
    """Is the expression a plain name or a chain of attributes of one (`comm`, `torch.optim`, `self.module`)?"""
    while node.type == "attribute":
        node = node.child_by_field_name("object")
    return node.type == "identifier"


def dynamic_lookups(unit: Unit) -> list[str]:
    """The objects the file calls getattr on with a name that is not a string literal (`getattr(comm, name)`: "comm";
    `getattr(torch.optim, name)`: "torch.optim"; "" for an object that is neither): a copy module they name may have any of its functions looked up
    (analyzer/context/copy_reach.py)."""
    if b"getattr" not in unit.source.data:
        return []
    found = set()
    for node in unit.captures(CALLS_BY_NAME_QUERY).get("called", []):
        if parsing.text(node) != "getattr" or node.parent is None:
            continue
        arguments = node.parent.child_by_field_name("arguments")
        named = arguments.named_children if arguments is not None else []
        if len(named) < 2 or named[1].type != "string":
            target = named[0] if named else None
            found.add(parsing.text(target) if target is not None and _dotted(target) else "")
    return sorted(found)
