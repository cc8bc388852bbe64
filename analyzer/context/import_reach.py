"""Whether a Python file that writes a module-level name can reach one module's definition of it, read from its imports.

unreferenced.py asks which files write a function's or a class's name; a word is no use by itself. A Python file reaches
`m.X` only through an import: `X` by name from `m` (`from pkg.m import X`), `m` itself (`import pkg.m`, `from pkg import
m`, then `m.X`), `*` from it, or a package above it (`import pkg`, then `pkg.m.X`, or a re-export `from pkg import X`).
Round 26 A1 C1 (row 24): a vendored modeling_llama.py whose users import only `LlamaDecoderLayer` from it
(`from .modeling_llama import LlamaDecoderLayer`) and subclass transformers' own `LlamaModel`: their `LlamaModel` is
not the copy's. Two verdicts, both conservative (a file is a user unless its imports say otherwise):
- `binds_elsewhere`: the file imports names from the module, none of them `X` and not the module, `*` or a package
  above it; or it imports `X` by name from a module outside the project (`from transformers import LlamaModel`; a
  project module may re-bind the copy's) and writes the module's name nowhere (no dotted string `"pkg.m.X"` a
  registry could load). Its `X` is another one, or none: no user.
- `reaches`: some import reaches `m.X` as above, or the file, importing no name from the module (whose import
  statement writes the module's name), writes the module's name (a string an importlib call or a registry loads), or
  a name too short to judge. Files that import nothing of the module and only write the word
  (a comment, another project's `test`) do not reach it: unreferenced.py asks this for a module's self-test demo only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writes_word

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


def _verdict(other: ModuleFacts, modules: set[str], name: str,
             project: frozenset[str] = frozenset()) -> tuple[bool, bool, bool]:
    """(some import reaches `module.name`, the file imports other names from the module itself, it imports `name` by
    name from a module outside the project: `project` holds the names the project's modules are loaded by, any of
    which may re-bind the name it imported from this one).

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
        elif leaf == name and parent not in project:
            bound_elsewhere = True
    return False, touched, bound_elsewhere


def _writes_module(other: ModuleFacts, modules: set[str]) -> bool:
    """Does the file write one of the module's names' last part (a dotted string may load it), or is it too short?"""
    leaves = {module.rsplit(".", 1)[-1] for module in modules}
    return any(len(leaf) < MIN_NAME or writes_word(other.words or "", leaf) for leaf in leaves)


def binds_elsewhere(other: ModuleFacts, modules: set[str], name: str, project: frozenset[str]) -> bool:
    """Does the file's `name` come from another library, or from none, though it may write the word (`modules`: the
    dotted names the defining file is loaded by; `project`: those of every module of the project)?"""
    reached, touched, bound_elsewhere = _verdict(other, modules, name, project)
    return not reached and (touched or (bound_elsewhere and not _writes_module(other, modules)))


def reaches(other: ModuleFacts, modules: set[str], name: str) -> bool:
    """Can the file name the module's `name`: an import reaching it, or the module's name written (a dotted string)?"""
    reached, touched, _ = _verdict(other, modules, name)
    return reached or (not touched and _writes_module(other, modules))  # an import names the module itself
