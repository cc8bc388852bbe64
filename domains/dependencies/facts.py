"""What one file tells about the project's dependencies: the distributions it declares and the top-level
modules its Python imports. Collected per file in the workers, judged once for the whole project."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.context.guards import import_is_caught
from ascend_feasibility.analyzer.context.import_fallbacks import retries_package, without_alternative
from ascend_feasibility.analyzer.reading import install_docs, manifests, parsing
from ascend_feasibility.analyzer.reading.discovery import is_requirements_file
from ascend_feasibility.analyzer.reading.manifests import Declaration, Problem
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.analyzer.reading.source import Unreadable, decode_text, read_contained
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.dependencies import installed, registered_models
from ascend_feasibility.domains.dependencies.mmcv_caps import MmcvCap, mmcv_caps
from ascend_feasibility.domains.dependencies.version_asserts import version_asserts
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

IMPORT_QUERY = r"""
(import_statement name: (dotted_name . (identifier) @module))
(import_statement name: (aliased_import name: (dotted_name . (identifier) @module)))
(import_from_statement module_name: (dotted_name . (identifier) @module))
"""
IMPORT_QUERY_KEY = query_set.register("imports", IMPORT_QUERY)
DOC_FLOOR = "doc-floor"  # a Python floor an install document states in prose ("* Python>=3.7"; python_line.py)
DOC_SOURCE = "doc-install"  # a declaration read from an install document's shell (analyzer/reading/install_docs.py)


@dataclass(frozen=True)
class ImportFact:
    module: str  # top-level name
    path: str
    line: int
    column: int  # 1-based, characters
    end_column: int
    cell: int | None
    snippet: str
    # inside a function, a class or an if, or caught by a try whose handler offers something in its place (a handler
    # that only reports or passes leaves the module using the names: import_fallbacks.without_alternative)
    optional: bool = False
    # in a try whose except catches its failure and does not load the package again: it cannot stop the program
    caught: bool = False
    holder: str = ""  # the module-level function, or module-level class by its __init__, holding it plainly
    unused: bool = False  # of a package to replace, binding names its file writes nowhere else (unused_import)
    fetch_fallback: bool = False  # in the arm of `if not os.path.exists(path):` (a missing file's download): fetched_only
    switch: str = ""  # S of the one `if S:` / `if cfg.x.S:` whose arm alone makes it optional (switch_of)


@dataclass
class DependencyFacts:
    declarations: list[Declaration] = field(default_factory=list)
    imports: list[ImportFact] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    used_through: list[str] = field(default_factory=list)  # the catalog's used_through names this file's code holds
    cuda_parts: list[str] = field(default_factory=list)  # the catalog's cuda_modules this file's imports name
    npu_aware_used: list[str] = field(default_factory=list)  # the catalog's npu_aware_for, cuda_part_in names it uses
    registrations: list[str] = field(default_factory=list)  # its Auto*.register calls (registered_models)
    remote_loads: list[str] = field(default_factory=list)  # its trust_remote_code model loads (registered_models)
    installs: list[str] = field(default_factory=list)  # requirements files its installs read, project installs (installed.py)
    pythons: list[Declaration] = field(default_factory=list)  # its `python=3.8.5` conda specs (python_line.py)
    # its module-level `assert timm.__version__ == "0.3.2"`, by module (version_asserts.py): no declaration
    version_asserts: list[Declaration] = field(default_factory=list)
    mmcv_ops: list[tuple[str, ImportFact]] = field(default_factory=list)  # `from mmcv.ops import X`: (X, its import)
    mmcv_caps: list[MmcvCap] = field(default_factory=list)  # its `mmcv_maximum_version = '1.8.0'` (mmcv_caps.py)


def collect(root: Path, relative: str, units: list[Unit]) -> DependencyFacts:
    facts = DependencyFacts()
    name = PurePosixPath(relative).name
    for unit in units:
        if unit.kind == "python":
            if name == "setup.py":  # its imports (setuptools, cpp_extension) are build tools, not dependencies
                _add(facts, manifests.parse_setup_py(relative, unit.tree()))
                facts.installs += installed.manifest_reads(relative, unit.tree())
            else:
                imports = _imports(unit)
                facts.imports += imports
                facts.version_asserts += version_asserts(unit, {i.module for i in imports})
                facts.cuda_parts += [m for m in _cuda_parts(unit) if m not in facts.cuda_parts]
                facts.mmcv_ops += _mmcv_op_imports(unit)
                facts.mmcv_caps += mmcv_caps(unit)
                facts.used_through += [n for n in _used_through(unit) if n not in facts.used_through]
                facts.npu_aware_used += [n for n in _npu_aware_used(unit) if n not in facts.npu_aware_used]
                facts.registrations += registered_models.registrations(unit, relative)
                facts.remote_loads += [f"{relative}:{load}" for load in registered_models.remote_loads(unit)]
        elif unit.kind in {"shell", "dockerfile"} and _installs(unit.source.text):
            declared, problems = manifests.parse_install_commands(relative, unit.tree(), npu_probes=_npu_probes())
            # a branch beside the script's NPU arm installs for another backend (CUDA, XPU): not what Ascend runs
            _add(facts, ([d if unit.cell is None else replace(d, cell=unit.cell) for d in declared if d.arm != "other"],
                         problems))
            facts.installs += installed.install_reads(relative, unit.tree())
        elif unit.kind == "install-doc" and _installs(unit.source.text):  # a document's pins: its versions only
            declared, problems = manifests.parse_install_commands(relative, unit.tree(), DOC_SOURCE)
            declared = [d for d in declared if d.specifier]
            if any(d.name == "python" for d in declared):  # the document may state the floor its example pins above
                declared += _stated_floors(root, relative)
            _add(facts, (declared, problems))
            facts.installs += installed.install_reads(relative, unit.tree())
        elif unit.kind == "build":
            text = unit.source.text
            if name == "pyproject.toml":
                _add(facts, manifests.parse_pyproject(relative, text))
                facts.installs += installed.manifest_reads(relative, pyproject=text)
            elif name == "setup.cfg":
                _add(facts, manifests.parse_setup_cfg(relative, text))
            elif is_requirements_file(relative):
                _add(facts, manifests.parse_requirements(root, relative, text))
        elif unit.kind == "yaml" and _is_conda_environment(name, unit.source.text):
            _add(facts, manifests.parse_conda_environment(relative, unit.source.text))
    return facts


def _stated_floors(root: Path, relative: str) -> list[Declaration]:
    """The Python floors the document states in its prose (install_docs.stated_python_floors), as declarations of
    source DOC_FLOOR: they judge the document's own `python=` pins (python_line.py) and pin nothing themselves."""
    try:
        text = decode_text(read_contained(root, relative)).text
    except Unreadable:
        return []
    return [Declaration("python", floor, relative, line, DOC_FLOOR, text=f"Python{floor}")
            for line, floor in install_docs.stated_python_floors(text)]


def _installs(text: str) -> bool:
    """The text may hold an install command or a conda create (parse_install_commands reads both)."""
    return "install" in text or "create" in text


def _add(facts: DependencyFacts, parsed) -> None:
    declarations, problems = parsed
    facts.declarations += [d for d in declarations if d.name != "python"]
    facts.pythons += [d for d in declarations if d.name == "python"]
    facts.problems += problems


def _is_conda_environment(name: str, text: str) -> bool:
    return name.lower().startswith(("environment", "env", "conda")) and "dependencies:" in text


def _nested(statement) -> bool:
    """Inside a function, a class or an if. A try block alone is no such place: the import is optional there only
    where its except catches the failure and does more than raise (import_is_caught); `except ImportError: raise
    SystemExit("install flash-attn")` makes the package required."""
    current = statement.parent
    while current is not None:
        if current.type in {"function_definition", "class_definition", "if_statement"}:
            return True
        current = current.parent
    return False


def _holder(statement) -> str:
    """The name whose call runs the import: a module-level function whose body holds it directly, or a module-level
    class whose `__init__` does (no if, try or with in between); "" elsewhere."""
    block = statement.parent
    function = block.parent if block is not None and block.type == "block" else None
    if function is None or function.type != "function_definition":
        return ""
    name = parsing.text(function.child_by_field_name("name"))
    owner = function.parent
    if owner is not None and owner.type == "module":
        return name
    cls = owner.parent if owner is not None and owner.type == "block" else None
    if name == "__init__" and cls is not None and cls.type == "class_definition" and cls.parent is not None \
            and cls.parent.type == "module":
        return parsing.text(cls.child_by_field_name("name"))
    return ""


@functools.cache
def _npu_probes() -> tuple[str, ...]:
    return tuple(load_context_conventions().backends.npu_probes)


@functools.cache
def _import_errors() -> frozenset[str]:
    return frozenset(load_context_conventions().guards.import_errors)


WORDS_QUERY = "(identifier) @word (string_content) @word"


@functools.cache
def _through_names() -> frozenset[str]:
    from ascend_feasibility.knowledge import load_knowledge

    return frozenset(name for record in load_knowledge().packages.values() for name in record.used_through)


def _used_through(unit: Unit) -> list[str]:
    """`BitsAndBytesConfig(load_in_8bit=True)`, `attn_implementation="flash_attention_2"`: names through which a library
    loads a package for the project (read from the syntax tree, only in files whose text holds one)."""
    text = unit.source.text
    candidates = {name for name in _through_names() if name in text}
    if not candidates:
        return []
    # a word that is a candidate spells it: only the words over the candidates' occurrences are read
    spelled = frozenset(name.encode("utf-8") for name in candidates)
    words = parsing.captures_around(parsing.query("python", WORDS_QUERY), unit.tree(), spelled).get("word", [])
    found = set()
    # a name the file defines (a copied diffusers ModelMixin's `def enable_xformers_memory_efficient_attention`) is the
    # project's own method there, its uses in the file calls of it: no library loads the package for the project
    defined = {name for word in words if (name := parsing.text(word).strip()) in candidates and _defines(word)}
    for word in words:
        name = parsing.text(word).strip()
        if name in candidates and name not in defined:
            callee = _argument_of(word, unit)
            found.add(f"{name}{PASSED_TO}{callee}" if callee else name)
    return sorted(found)


def _defines(word: Node) -> bool:
    definition = word.parent
    return definition is not None and definition.type == "function_definition" \
        and definition.child_by_field_name("name") is not None and definition.child_by_field_name("name").id == word.id


PASSED_TO = "@"  # `load_in_8bit@optimum`: the name is an argument of a call into the module before the dot
_CALL_STOPS = frozenset({"block", "module", "function_definition", "class_definition", "lambda", "decorated_definition"})


def _argument_of(word: Node, unit: Unit) -> str | None:
    """The top-level module of the call the word is an argument of (`OVModelForCausalLM.from_pretrained(...,
    load_in_8bit=True)` with `from optimum.intel import OVModelForCausalLM`: `optimum`), where the file's imports
    resolve that callee; None where the word is no argument, or the callee is the file's own or unresolved."""
    node = word.parent
    while node is not None and node.type not in _CALL_STOPS:
        if node.type == "argument_list" and node.parent is not None and node.parent.type == "call":
            function = node.parent.child_by_field_name("function")
            if function is None or function.type not in {"identifier", "attribute"}:
                return None
            callee = qualified_name(function, unit.imports())
            root = callee.split(".")[0] if callee else ""
            return root or None  # a relative import (`.model`) is the project's own
        node = node.parent
    return None


@functools.cache
def _npu_aware_names() -> tuple[frozenset[str], frozenset[bytes], frozenset[bytes]]:
    """The catalog's npu_aware_for and cuda_part_in names, and the bytes a file must hold to use one: a package and a
    last name."""
    from ascend_feasibility.knowledge import load_knowledge

    names = frozenset(n for record in load_knowledge().packages.values()
                      for n in (*record.npu_aware_for, *record.cuda_part_in))
    return (names, frozenset(n.split(".")[0].encode() for n in names),
            frozenset(n.rpartition(".")[2].encode() for n in names))


def _npu_aware_used(unit: Unit) -> list[str]:
    """The npu_aware_for and cuda_part_in names the unit's code uses through its imports: `from transformers import Trainer`,
    `transformers.set_seed(0)`, `from transformers.trainer_utils import set_seed` (only in files whose bytes hold
    a package and a last name of one)."""
    names, packages, lasts = _npu_aware_names()
    data = unit.source.data
    if not any(package in data for package in packages) or not any(last in data for last in lasts):
        return []
    from ascend_feasibility.domains.python_refs import unit_references  # it builds on domains.base, as this does

    used = set(unit.imports().bindings.values()) | {r.name for r in unit_references(unit)}
    return sorted(n for n in names if any(u == n or u.startswith(n + ".") for u in used))


@functools.cache
def _catalog_cuda_modules() -> tuple[frozenset[str], frozenset[bytes]]:
    """The catalog's cuda_modules, and the top-level names a file's text must hold to import one."""
    from ascend_feasibility.knowledge import load_knowledge

    modules = frozenset(m for record in load_knowledge().packages.values() for m in record.cuda_modules)
    return modules, frozenset(m.split(".")[0].encode() for m in modules)


def _cuda_parts(unit: Unit) -> list[str]:
    """The catalog's cuda_modules the file imports: `import mmcv.ops`, `from mmcv.ops import X`,
    `from mmcv import ops` (only in files whose text names a package that has one)."""
    modules, tops = _catalog_cuda_modules()
    if not any(top in unit.source.data for top in tops) or "import" not in unit.source.text:
        return []
    found = []
    for node in query_set.unit_captures(unit, IMPORT_QUERY_KEY).get("module", []):
        dotted = parsing.text(node.parent)
        names = [dotted]
        statement = node.parent.parent
        if statement is not None and statement.type == "import_from_statement" \
                and statement.child_by_field_name("module_name") == node.parent:
            names += [f"{dotted}.{parsing.text(n.child_by_field_name('name') or n).split(' ')[0]}"
                      for n in statement.children_by_field_name("name")]
        found += [m for m in modules for name in names if name == m or name.startswith(m + ".")]
    return sorted(set(found))


def _imports(unit: Unit) -> list[ImportFact]:
    if "import" not in unit.source.text:
        return []
    found = query_set.unit_captures(unit, IMPORT_QUERY_KEY)
    seen = set()
    result = []
    for node in found.get("module", []):
        module = parsing.text(node)
        if module in seen:
            continue
        seen.add(module)
        result.append(_import_fact(unit, node, module))
    return result


def _statement(node: Node) -> Node:
    while node.parent is not None and node.type not in {"import_statement", "import_from_statement"}:
        node = node.parent
    return node


def _import_fact(unit: Unit, node: Node, module: str) -> ImportFact:
    """The import statement holding `node` (its module's first name), with how it runs."""
    row = node.start_point.row
    statement = _statement(node)
    caught = import_is_caught(statement, _import_errors()) and not retries_package(statement)
    return ImportFact(
        module=module,
        path=unit.path,
        line=row + 1,
        column=unit.source.char_column(row, statement.start_point.column),
        end_column=unit.source.char_column(statement.end_point.row, statement.end_point.column)
        if statement.end_point.row == row else len(unit.source.line_text(row)) + 1,
        cell=unit.cell,
        snippet=unit.source.line_text(row).strip()[:200],
        optional=_nested(statement) or (caught and not without_alternative(statement)),
        caught=caught,
        holder=_holder(statement),
        unused=module in _replaced_modules() and unused_import(unit, statement),
        fetch_fallback=fetched_only(statement),
        switch=switch_of(statement),
    )


def _mmcv_op_imports(unit: Unit) -> list[tuple[str, ImportFact]]:
    """(name, its import) for each name a `from mmcv.ops import nms_rotated, RoIAlign` (or `from mmcv.ops.nms
    import ...`) statement brings: what mmcv_ops.py judges against mmcv's Ascend column."""
    if b"mmcv" not in unit.source.data or "import" not in unit.source.text:
        return []
    found = []
    for node in query_set.unit_captures(unit, IMPORT_QUERY_KEY).get("module", []):
        statement = _statement(node)
        module = statement.child_by_field_name("module_name") if statement.type == "import_from_statement" else None
        dotted = parsing.text(module) if module is not None else ""
        if module is None or node.parent != module or not (dotted == "mmcv.ops" or dotted.startswith("mmcv.ops.")):
            continue
        fact = _import_fact(unit, node, "mmcv")
        for name in statement.children_by_field_name("name"):
            bound = name.child_by_field_name("name") if name.type == "aliased_import" else name
            row = name.start_point.row  # each name its own site: one statement imports several operators
            found.append((parsing.text(bound), replace(
                fact, line=row + 1, column=unit.source.char_column(row, name.start_point.column),
                end_column=unit.source.char_column(name.end_point.row, name.end_point.column),
                snippet=unit.source.line_text(row).strip()[:200])))
    return found


EXISTENCE_TESTS = frozenset({"exists", "isfile", "isdir", "is_file", "is_dir"})


def switch_of(statement) -> str:
    """S where the import sits in the arm of one `if S:` or `if cfg.solver.S:` (a flag, or a config attribute read by
    name), inside a function or at the module level, with nothing else around it but try blocks whose except only
    raises (V-Express train.py: `if cfg.solver.use_8bit_adam: try: import bitsandbytes` / `except ImportError: raise
    ImportError(...)`): the import runs wherever the project turns S on (switched_on.turned_on). "" elsewhere."""
    if import_is_caught(statement, _import_errors()):
        return ""
    switch, current = "", statement
    while current.parent is not None and current.parent.type not in {"function_definition", "module"}:
        parent = current.parent
        if parent.type == "if_statement":
            condition = parent.child_by_field_name("condition")
            if switch or current != parent.child_by_field_name("consequence") or condition is None \
                    or condition.type not in {"identifier", "attribute"}:
                return ""
            switch = parsing.text(condition).rsplit(".", 1)[-1]
        elif parent.type not in {"block", "try_statement"}:
            return ""
        current = parent
    return switch


def fetched_only(statement) -> bool:
    """Is the import in the arm of `if not os.path.exists(path):` (`not Path(p).is_file()`, ...): loaded only where a
    file is missing, the download fallback of a checkpoint the user can place by hand (round 29 B1 class 6 row 8:
    basicsr's load_file_from_url under `if not os.path.exists(body_modelpath):`)? With the file in place the import
    never runs."""
    node = statement.parent
    while node is not None and node.type not in {"if_statement", "function_definition", "class_definition", "module"}:
        node = node.parent
    if node is None or node.type != "if_statement":
        return False
    block = node.child_by_field_name("consequence")
    if block is None or not (block.start_byte <= statement.start_byte and statement.end_byte <= block.end_byte):
        return False
    condition = node.child_by_field_name("condition")
    argument = condition.child_by_field_name("argument") if condition is not None and condition.type == "not_operator" else None
    function = argument.child_by_field_name("function") if argument is not None and argument.type == "call" else None
    return function is not None and function.type == "attribute" \
        and parsing.text(function.child_by_field_name("attribute")) in EXISTENCE_TESTS


@functools.cache
def _replaced_modules() -> frozenset[str]:
    """The top-level modules of the catalog's packages that need replacement or are unsupported, in any release range:
    the only imports whose use is read."""
    from ascend_feasibility.knowledge import load_knowledge

    classes = {"needs_replacement", "unsupported"}
    return frozenset(m.split(".")[0] for record in load_knowledge().packages.values() for m in record.modules
                     if record.classification in classes or any(v.classification in classes for v in record.versions))


def unused_import(unit: Unit, statement) -> bool:
    """Does the file write none of the names the import statement binds anywhere else (`import bitsandbytes as bnb`
    and no `bnb` after it: HunyuanDiT hydit/train_deepspeed.py:37)? A substring search over the file's bytes outside
    the statement, so a name inside a longer word, a comment, a string or `__all__` counts as a use. A package's
    `__init__.py` re-exports what it imports, a notebook cell's later cells may use it, and `import *` binds names
    unseen: all used."""
    if unit.cell is not None or PurePosixPath(unit.path).name == "__init__.py":
        return False
    if statement.type == "import_statement":
        bound = [parsing.import_bound_name(statement, n) for n in statement.children_by_field_name("name")]
    elif statement.type == "import_from_statement" and not any(c.type == "wildcard_import" for c in statement.children):
        bound = [parsing.import_bound_name(statement, n) for n in statement.children_by_field_name("name")]
    else:
        return False
    data = unit.source.data
    return bool(bound) and all(name and data.find(name.encode("utf-8"), 0, statement.start_byte) < 0
                               and data.find(name.encode("utf-8"), statement.end_byte) < 0 for name in bound)

