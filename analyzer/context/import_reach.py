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


def _verdict(other: ModuleFacts, modules: set[str], name: str,
             project: Mapping[str, list[ModuleFacts]] | None = None) -> tuple[bool, bool, bool]:
    """(some import reaches `module.name`, the file imports other names from the module itself, it imports `name` by
    name from a module outside the project or from a project module that defines its own: `project` maps the names
    the project's modules are loaded by to the facts of those modules).

    facts.py lists `from m import X` as `m` and `m.X`, `import m` as `m` and `from pkg import m` as `pkg` and `pkg.m`:
    a listed name another one extends is a `from` statement's source, which binds no name of its own (a file that
    also writes `import m` beside `from m import Y` is read as the latter: facts do not tell them apart)."""
    imported = {*other.imports, *other.nested_imports}
    sources = {name.rpartition(".")[0] for name in imported}

    def above(name: str) -> bool:  # the module itself or a package holding it
        return name in modules or any(module.startswith(name + ".") for module in modules)

    if any(above(module) for module in other.star_imports):
        return True, False, False  # `*` from it, or from a package above it (which may re-export it)
    touched = bound_elsewhere = False
    for dotted in imported:
        if dotted not in sources and above(dotted):
            return True, False, False  # `import pkg.m`, `from pkg import m`, `import pkg`: then `m.X`, `pkg.m.X`
        parent, _, leaf = dotted.rpartition(".")
        if parent in modules:
            if leaf == name:
                return True, False, False  # by name from it
            touched = True
        elif parent and above(parent):
            if leaf == name:
                return True, False, False  # re-exported by a package above it
        elif leaf == name and not any(_may_rebind(source, modules, name) for source in (project or {}).get(parent, ())):
            bound_elsewhere = True
    return False, touched, bound_elsewhere


def _may_rebind(source: ModuleFacts, modules: set[str], name: str) -> bool:
    """May a project module the file imports `name` from hand on this module's (it imports a `name` from somewhere,
    `*`, or this module)? A module outside the project has no facts: it cannot."""
    return bool(source.star_imports) or any(dotted.rpartition(".")[2] == name for dotted in source.imports) \
        or _verdict(source, modules, name)[0]


def _writes_module(other: ModuleFacts, modules: set[str]) -> bool:
    """Does the file write one of the module's names' last part (a dotted string may load it), or is it too short?"""
    leaves = {module.rsplit(".", 1)[-1] for module in modules}
    return any(len(leaf) < MIN_NAME or writes_word(other.words or "", leaf) for leaf in leaves)


def binds_elsewhere(other: ModuleFacts, modules: set[str], name: str,
                    project: Mapping[str, list[ModuleFacts]]) -> bool:
    """Does the file's `name` come from another library, or from none, though it may write the word (`modules`: the
    dotted names the defining file is loaded by; `project`: those of every module of the project)?"""
    reached, touched, bound_elsewhere = _verdict(other, modules, name, project)
    if reached:
        return False
    if touched or (bound_elsewhere and not _writes_module(other, modules)):
        return True
    return _defines_own(other, name) and not any(dotted.rpartition(".")[2] == name for dotted in other.imports) \
        and not other.star_imports and not _writes_module(other, modules)


def _defines_own(other: ModuleFacts, name: str) -> bool:
    """Does the file define a module-level `name` of its own (symbols.py lists it among the definitions its file names
    only inside definitions or nowhere; class_shapes lists its classes)?"""
    return any(symbol[0] == name for symbol in (*other.unnamed_symbols, *other.inner_named)) \
        or any(shape[0] == name for shape in other.class_shapes)


def reaches(other: ModuleFacts, modules: set[str], name: str) -> bool:
    """Can the file name the module's `name`: an import reaching it, or the module's name written (a dotted string)?"""
    reached, touched, _ = _verdict(other, modules, name)
    return reached or (not touched and _writes_module(other, modules))  # an import names the module itself
