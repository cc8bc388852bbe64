"""A backend literal bound by a config module's top-level setting that no code of the project reads: the framework
loads the config, yet nothing hands that setting to a process group, so editing it changes nothing that runs.

CenterPoint's configs set `dist_params = dict(backend="nccl", init_method="env://")`, a key mmcv 1.x's tools/train.py
passes on as `init_dist(args.launcher, **cfg.dist_params)`; CenterPoint's own tools/train.py never reads it and calls
`init_process_group(backend="nccl")` itself (round 41 A1 class 1, rows 18, 28, 37, 44). mmcv's runners read no
backend from the config: the project's launcher does (mmaction2, mmrotate, mmtracking, ViTPose, SegFormer: their
tools/train.py spells `cfg.dist_params`). mmengine's Runner reads one key itself, `env_cfg` (Runner.setup_env calls
`init_dist(self.launcher, **env_cfg.get('dist_cfg', {}))`), whatever the project's code spells.

Per file (`settings`, config modules and modules that only import and assign): (first line, last line, name) of each
top-level `name = dict(...)` or `name = {...}` binding. Per project (`unread`): a setting whose name no Python file
other than such a module writes as a word (an attribute `cfg.name`, a subscript `cfg["name"]`, `cfg.get("name")`, a comment) is unread. A word is a
coarse reader: a comment naming the key keeps the finding, never the other way round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers
from ascend_feasibility.analyzer.reading import parsing

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements

# settings a framework's runner reads from the config itself, whatever the project's code spells: mmengine's Runner
# (mmengine/runner/runner.py setup_env) reads `env_cfg`
FRAMEWORK_READ = frozenset({"env_cfg"})
READER_SUFFIXES = (".py", ".ipynb")  # code that may read a loaded config; a config module only sets keys
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
_BINDINGS = frozenset({"assignment", "augmented_assignment", "string"})  # a docstring is a string statement
UNREAD = "no code of the project reads the setting"  # the end of `unread`'s reasons


def settings(module: ModuleStatements, config_module: bool) -> list[tuple[int, int, str]]:
    """(first, last line, name) of the top-level `name = dict(...)` / `name = {...}` bindings of a config module, or
    of a module whose top level only imports and assigns (CenterPoint's configs compute `class_names =
    list(itertools.chain(...))` and call their own helpers, so they are no config module of config_modules.py)."""
    if not config_module and not only_bindings(module):
        return []
    found = []
    for head in module.heads:
        if head is None or head.type != "assignment":
            continue
        left, right = head.child_by_field_name("left"), head.child_by_field_name("right")
        if left is None or left.type != "identifier" or right is None or not _mapping(right):
            continue
        name = parsing.text(left)
        if len(name) >= MIN_NAME and name not in FRAMEWORK_READ:
            found.append((head.start_point.row + 1, head.end_point.row + 1, name))
    return found


def only_bindings(module: ModuleStatements) -> bool:
    """Does the module's top level hold only imports, comments, docstrings and assignments, one at least?"""
    assigned = False
    for kind, head in zip(module.kinds, module.heads, strict=True):
        if kind in _IMPORTS or kind == "comment":
            continue
        if kind != "expression_statement" or head is None or head.type not in _BINDINGS:
            return False
        assigned |= head.type != "string"
    return assigned


def unread(facts) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first, last line, why) of its config settings no non-config code of the project reads."""
    asked = {name for f in facts for _, _, name in f.config_settings}
    if not asked:
        return {}
    written = writers(asked, facts)
    # a notebook's cell of settings makes no settings module of the notebook: its other cells may read them
    readers = {f.path for f in facts if f.path.endswith(READER_SUFFIXES) and not f.config_module
               and (not f.config_settings or f.path.endswith(".ipynb"))}
    found: dict[str, list[tuple[int, int, str]]] = {}
    for f in facts:
        for first, last, name in f.config_settings:
            if not written.get(name, set()) & readers:
                found.setdefault(f.path, []).append(
                    (first, last, f"`{name}` is set in config modules only: {UNREAD}"))
    return found


def unread_reason(spans: list[tuple[int, int, str]], line: int) -> str | None:
    return next((why for first, last, why in spans if first <= line <= last), None)


def _mapping(node) -> bool:
    if node.type == "dictionary":
        return True
    function = node.child_by_field_name("function") if node.type == "call" else None
    return function is not None and parsing.text(function) == "dict"
