"""A script's module-level functions nothing calls: only comments name them (`# test()`) or nothing does. `optional`.

The file names its candidates (domains/phases/uncalled_functions.py: functions of a script its own code never names
outside them, comments aside). Another file may still call one: it stays reached when
- another Python file imports it by name (`from export_torch_script import test`: imports hold `module.test`), or
  imports its module and writes the name (`export_torch_script.test()`, a string a getattr reads);
- a file other than Python and prose writes the name (a console entry `tool = "pkg.cli:test"`, a shell line
  `python -c "from m import test; test()"`, a config naming a callable);
- the file is no product code (a test, an example: what runs it is not the product).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.unloaded import package_folders, published_packages, top_folder
from ascend_feasibility.analyzer.context.unreferenced import public_names_judged
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

PROSE = (".py", ".md", ".rst", ".txt")  # files whose words call nothing by themselves
WHY = "`{name}()` is defined in a script whose code never calls it (a comment at most names it): no code path runs it"


def uncalled_ranges(found: dict[tuple[str, str], tuple[int, int]]) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of uncalled_script_functions' answer."""
    result: dict[str, list[tuple[int, int, str]]] = {}
    for (path, name), (first, last) in found.items():
        result.setdefault(path, []).append((first, last, WHY.format(name=name)))
    return result


def uncalled_script_functions(facts: list[ModuleFacts], context: ProjectContext, distribution: str = "",
                              packages: set[str] | None = None) -> dict[tuple[str, str], tuple[int, int]]:
    """(path, name) → (first line, last line) of the uncalled script functions. A public function of a published
    library's module (a build file above its package, the package no application's) is its users' API (unsloth's
    `create_stopping_criteria`): only private ones are judged there. unreferenced.py reads them as unreached callers:
    what only they call is unreached too."""
    packages = package_folders(facts, context.source_roots) if packages is None else packages
    whole = public_names_judged(facts, context, distribution, packages)
    published = published_packages(facts, packages)
    candidates = [(f, name, first, last) for f in facts for name, first, last in f.uncalled_functions
                  if len(name) >= MIN_NAME and context.of(f.path).role in COUNTED_ROLES
                  and (name.startswith("_") or whole(f.path) or top_folder(f.path, packages) not in published)]
    if not candidates:
        return {}
    written = writers({name for _, name, _, _ in candidates}, facts)
    python = [f for f in facts if f.path.endswith(".py")]
    importers = _Importers(python)
    result: dict[tuple[str, str], tuple[int, int]] = {}
    for own, name, first, last in candidates:
        writing = written.get(name, set()) - {own.path}
        if any(not path.endswith(PROSE) for path in writing):
            continue
        if own.module and importers.import_it(own, name, writing):
            continue
        result[(own.path, name)] = (first, last)
    return result


class _Importers:
    """The Python files by what they import, for `_imports_it` asked of every file at once: by the last two parts of
    each imported name (`pkg.train.helper` → ("train", "helper")) and by its last part. A project of thousands of
    files asked it per candidate and file (254,000 calls for synth1m's 60 candidates)."""

    def __init__(self, python: list[ModuleFacts]) -> None:
        self._python = python
        self._by_pair: dict[tuple[str, str], list[ModuleFacts]] | None = None  # built at the first question
        self._by_leaf: dict[str, list[ModuleFacts]] = {}

    def _index(self) -> dict[tuple[str, str], list[ModuleFacts]]:
        if self._by_pair is not None:
            return self._by_pair
        self._by_pair = {}
        for other in self._python:
            for imported in other.imports:
                parts = imported.removesuffix(".*").split(".")
                if len(parts) >= 2:
                    self._by_pair.setdefault((parts[-2], parts[-1]), []).append(other)
                self._by_leaf.setdefault(parts[-1], []).append(other)
        return self._by_pair

    def import_it(self, own: ModuleFacts, name: str, writing: set[str]) -> bool:
        """Does a Python file other than `own` import `name` from own's module by name, or import that module and
        write the name (`writing`: the paths writing it)? `_imports_it` over every file: `imported` is `leaf.name` or
        ends with `.leaf.name` where its last two parts are (leaf, name), and is `leaf` or ends with `.leaf` where its
        last part is leaf (neither holds a dot)."""
        leaf = own.module.rsplit(".", 1)[-1]
        if "." in name:  # no function's name; read as _imports_it does
            return any(_imports_it(other, own.module, name, writing) for other in self._python if other is not own)
        return any(other is not own for other in self._index().get((leaf, name), ())) or any(
            other is not own and other.path in writing for other in self._by_leaf.get(leaf, ()))


def _imports_it(other: ModuleFacts, module: str, name: str, writing: set[str]) -> bool:
    """Does `other` import the function by name, or import its module and write the name?"""
    leaf = module.rsplit(".", 1)[-1]
    for imported in other.imports:
        imported = imported.removesuffix(".*")
        if imported == f"{leaf}.{name}" or imported.endswith(f".{leaf}.{name}"):
            return True
        if other.path in writing and (imported == leaf or imported.endswith("." + leaf)):
            return True
    return False
