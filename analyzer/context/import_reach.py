"""Whether a Python file that writes a module-level name can reach one module's definition of it, read from its imports.

unreferenced.py asks which files write a function's or a class's name; a word is no use by itself. A Python file reaches
`m.X` only through an import: `X` by name from `m` (`from pkg.m import X`), `m` itself (`import pkg.m`, `from pkg import
m`, then `m.X`), `*` from it, or a package above it (`import pkg`, then `pkg.m.X`, or a re-export `from pkg import X`).
Round 26 A1 C1 (row 24): a vendored modeling_llama.py whose users import only `LlamaDecoderLayer` from it
(`from .modeling_llama import LlamaDecoderLayer`) and subclass transformers' own `LlamaModel`: their `LlamaModel` is
not the copy's. Two verdicts, both conservative (a file is a user unless its imports say otherwise):
- `binds_elsewhere`: the file imports names from the module, none of them `X` and not the module, `*` or a package
  above it; or it imports `X` by name from a module outside the project (`from transformers import LlamaModel`) or
  from a project module with its own `X` (one importing no `X`, no `*` and not this module: round 26 A2 row 63's
  `from f0_pearson_coefficients import extract_fpc` beside f0_corr.py's `extract_fpc`) and writes the module's name
  nowhere (no dotted string `"pkg.m.X"` a
  registry could load); or it defines its own module-level `X` (symbols.py's lists, class_shapes), imports no `X`
  and no `*`, and writes the module's name nowhere (round 26 B2 row 43: another file's own LlamaAdaptiveRMSNorm).
  Its `X` is another one, or none: no user.
- `reaches`: some import reaches `m.X` as above, or the file, importing no name from the module (whose import
  statement writes the module's name), writes the module's name (a string an importlib call or a registry loads), or
  a name too short to judge. Files that import nothing of the module and only write the word
  (a comment, another project's `test`) do not reach it: unreferenced.py asks this for a module's self-test demo only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writes_word

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


class ImportVerdicts:
    """The two verdicts for the many (file, defining module, name) questions of one project pass. `project` maps the
    names the project's modules are loaded by to the facts of those modules (None: no project module may rebind a
    name). Read once and kept: each set of module names' packages above (`above`), and each file's imported last
    parts and own module-level names, by its path (the facts asked about must not change while it is used)."""

    def __init__(self, project: Mapping[str, list[ModuleFacts]] | None = None) -> None:
        self._project = project or {}
        self._above: dict[frozenset[str], frozenset[str]] = {}
        self._own: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self._read: dict[str, _Imports] = {}

    def _packages(self, modules: frozenset[str]) -> frozenset[str]:
        """The names `above` holds for: the modules and every package holding one, that is every `n` some module
        starts with `n + "."`: the module cut before each of its dots."""
        found = self._above[modules] = modules | {module[:i] for module in modules
                                                  for i, char in enumerate(module) if char == "."}
        return found

    def _verdict(self, other: ModuleFacts, modules: frozenset[str], name: str,
                 with_project: bool) -> tuple[bool, bool, bool]:
        """(some import reaches `module.name`, the file imports other names from the module itself, it imports `name`
        by name from a module outside the project or from a project module that defines its own).

        facts.py lists `from m import X` as `m` and `m.X`, `import m` as `m` and `from pkg import m` as `pkg` and
        `pkg.m`: a listed name another one extends is a `from` statement's source, which binds no name of its own,
        unless an `import m` statement names it too (`plain_imports`: round 34 V1-2, mae's `import util.misc as misc`
        beside `from util.misc import NativeScalerWithGradNormCount`, then `misc.init_distributed_mode(args)`)."""
        imports = self._read.get(other.path) or self._imports(other)
        above = self._above.get(modules) or self._packages(modules)  # the module itself or a package holding it
        if not above.isdisjoint(other.star_imports):
            return True, False, False  # `*` from it, or from a package above it (which may re-export it)
        if not above.isdisjoint(imports.bound):
            return True, False, False  # `import pkg.m`, `from pkg import m`, `import pkg`: then `m.X`, `pkg.m.X`
        project = self._project if with_project else {}
        bound_elsewhere = False
        for parent in imports.sources_of.get(name, ()):
            if parent in modules or (parent and parent in above):
                return True, False, False  # by name from it, or re-exported by a package above it
            if not any(self._may_rebind(source, modules, name) for source in project.get(parent, ())):
                bound_elsewhere = True
        return False, not imports.parents.isdisjoint(modules), bound_elsewhere

    def _imports(self, other: ModuleFacts) -> _Imports:
        found = self._read[other.path] = _Imports(other)
        return found

    def _may_rebind(self, source: ModuleFacts, modules: frozenset[str], name: str) -> bool:
        """May a project module the file imports `name` from hand on this module's (it imports a `name` from
        somewhere, `*`, or this module)? A module outside the project has no facts: it cannot."""
        return bool(source.star_imports) or name in self._own_names(source)[0] \
            or self._verdict(source, modules, name, False)[0]

    def _own_names(self, other: ModuleFacts) -> tuple[frozenset[str], frozenset[str]]:
        """(the last parts of the names the file's `imports` list, the module-level names it defines of its own:
        symbols.py lists them among the definitions its file names only inside definitions or nowhere, class_shapes
        lists its classes)."""
        own = self._own.get(other.path)
        if own is None:
            own = self._own[other.path] = (
                frozenset(dotted.rpartition(".")[2] for dotted in other.imports),
                frozenset(symbol[0] for symbol in (*other.unnamed_symbols, *other.inner_named))
                | frozenset(shape[0] for shape in other.class_shapes))
        return own

    def binds_elsewhere(self, other: ModuleFacts, modules: frozenset[str], name: str) -> bool:
        """Does the file's `name` come from another library, or from none, though it may write the word (`modules`:
        the dotted names the defining file is loaded by, frozen: the packages above them are kept by it)?"""
        reached, touched, bound_elsewhere = self._verdict(other, modules, name, True)
        if reached:
            return False
        if touched or (bound_elsewhere and not _writes_module(other, modules)):
            return True
        imported, defined = self._own_names(other)
        return name in defined and name not in imported and not other.star_imports \
            and not _writes_module(other, modules)

    def names_through_import(self, other: ModuleFacts, modules: frozenset[str], name: str) -> bool:
        """Does the file import `name` by name from a project module that may hand on this module's (one importing it
        from here, `*`, or a package above): `from diffusion.model import Passed` where model.py imports Passed from
        blocks.py?"""
        imports = self._read.get(other.path) or self._imports(other)
        # a name the statement binds, not a module a `from` statement reads (`from det3d.core.utils.scatter import
        # scatter_mean` binds no `scatter`)
        return any(self._may_rebind(source, modules, name) for parent in imports.sources_of.get(name, ())
                   if f"{parent}.{name}" in imports.bound for source in self._project.get(parent, ()))

    def reaches(self, other: ModuleFacts, modules: frozenset[str], name: str) -> bool:
        """Can the file name the module's `name`: an import reaching it, or the module's name written (a dotted
        string)?"""
        reached, touched, _ = self._verdict(other, modules, name, False)
        return reached or (not touched and _writes_module(other, modules))  # an import names the module itself


class _Imports:
    """One file's imported names (`imports` and `nested_imports`) as _verdict reads them whatever the module and the
    name: `bound`, those no other one extends (a name an import statement binds: `import pkg.m`, `from pkg import
    m`) and those an `import` statement names (`import m` beside `from m import X`); `parents`, every name's part
    before its last dot ("" for none); `sources_of`, a last part → the parts before it of each name ending in it."""

    __slots__ = ("bound", "parents", "sources_of")

    def __init__(self, other: ModuleFacts) -> None:
        imported = {*other.imports, *other.nested_imports}
        self.sources_of: dict[str, list[str]] = {}
        for dotted in imported:
            parent, _, leaf = dotted.rpartition(".")
            self.sources_of.setdefault(leaf, []).append(parent)
        self.parents = frozenset(parent for parents in self.sources_of.values() for parent in parents)
        self.bound = frozenset(imported - self.parents) | frozenset(other.plain_imports)


def _writes_module(other: ModuleFacts, modules: set[str]) -> bool:
    """Does the file write one of the module's names' last part (a dotted string may load it), or is it too short?"""
    leaves = {module.rsplit(".", 1)[-1] for module in modules}
    return any(len(leaf) < MIN_NAME or writes_word(other.words or "", leaf) for leaf in leaves)
