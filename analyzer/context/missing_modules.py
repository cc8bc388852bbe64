"""Modules of the project's packages that cannot be imported: an unconditional top-level import names a module of the
project's own package that the project does not have. `optional`, with the missing module in the reason.

DiffSynth-Studio's diffsynth/models/sd_text_encoder.py opens with `from .attention import Attention`, and
diffsynth/models/ holds no attention.py, no attention/ and nothing else of that name: importing the module raises
ModuleNotFoundError before any line of it runs, whoever imports it (a library user too). A module is judged so when
- it is product code in a package folder, at `runs`;
- an import at its module level, outside any guard (not in `nested_imports`), names `P.x.y`, where `P` is the longest
  prefix that is a package folder of the project (an __init__.py, or a namespace one) holding the module, by the dotted name the module
  itself has (a relative import's; an absolute `xfuser.core` in a folder named xfuser is the installed one), and `x`
  is not the name of any file (of any
  suffix: a compiled extension's sources, a stub) or folder in `P`'s folder. Two parts at least after `P`: `from P
  import x` may read a name `P/__init__.py` binds, `from P.x import y` needs the module `P.x`;
- no build file in `P`'s folder or a folder above it compiles an extension (opt_in.extension_builds), which might
  build `P.x` (a CMakeLists.txt of a separate C++ runtime beside the package builds nothing into it), and for some
  missing module of the file no build or CI file or non-Python product file (a shell script) writes its `x`, which may
  generate it (setup.py writing pkg/version.py): every missing import of the file is asked about, so a shell script
  that happens to say `layers` does not excuse `from P.models.base_model import` (FunASR's sa_asr/e2e_sa_asr.py, seven
  imports of modules the tree lacks, round 25 A2 52). The files read are those the analysis reads: a compiled binary
  committed under `P` is not seen.
What only such modules import follows through propagation's import chain.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import import_names
from ascend_feasibility.analyzer.context.vendored import UNIMPORTABLE
from ascend_feasibility.analyzer.context.written_names import word_set, writers
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


def missing_module_importers(facts: list[ModuleFacts], context: ProjectContext, packages: set[str]) -> dict[str, str]:
    """path → why, for the product modules whose unconditional import of their own package's module cannot resolve."""
    python = [f for f in facts if f.module and f.path.endswith(".py")]
    candidates = [f for f in python if path_view(f.path).parent in packages and context.of(f.path).role in COUNTED_ROLES
                  and context.of(f.path).reach == "runs"]
    if not candidates:
        return {}
    package_names: dict[str, str] = {}  # dotted name of a package folder (namespace ones too) → the folder
    for f in python:
        view = path_view(f.path)
        if str(view.parent) in packages:
            package_names.setdefault(f.module if view.name == "__init__.py" else f.module.rsplit(".", 1)[0],
                                     str(view.parent))
    modules = {name for f in python for name in import_names(f.path, f.module, packages)}
    existing: set[str] | None = None
    missing_of: dict[str, dict[str, tuple[str, str]]] = {}  # path → name of a module it lacks → (package folder, why)
    for f in candidates:
        for name in sorted(set(f.imports) - set(f.nested_imports)):
            parts = name.split(".")
            end = next((end for end in range(len(parts) - 2, 0, -1) if ".".join(parts[:end]) in package_names), 0)
            # the package must be one holding the file, by the name the file has: `from xfuser.core import` in
            # diffsynth/utils/xfuser/ imports the installed xfuser, not the folder
            if not end or not f.module.startswith(".".join(parts[:end]) + ".") or ".".join(parts[:end + 1]) in modules:
                continue
            folder = package_names[".".join(parts[:end])]
            if existing is None:  # every file's path without its suffix, and every folder: read once, when first asked
                existing = {str(PurePosixPath(g.path).with_suffix("")) for g in facts}
                existing |= {str(parent) for g in facts for parent in PurePosixPath(g.path).parents}
                existing |= {str(PurePosixPath(g.path).parent / PurePosixPath(g.path).name.split(".", 1)[0]) for g in facts}
            missing = f"{folder}/{parts[end]}" if folder != "." else parts[end]
            if missing in existing:
                continue
            missing_of.setdefault(f.path, {}).setdefault(parts[end], (folder, (
                f"{UNIMPORTABLE}its top-level import of {'.'.join(parts[:end + 1])} names {missing}, which "
                "the project does not have")))
    if not missing_of:
        return {}
    # an extension a build file compiles may provide the module: a build file in the package's folder or above it
    builds = frozenset(load_context_conventions().opt_in.extension_builds)
    compiling = [str(path_view(f.path).parent) for f in facts
                 if context.of(f.path).role == "build" and builds & word_set(f.words)]
    # a module a build step writes (setup.py writing pkg/version.py, a Makefile running protoc): a build or CI
    # file, or product code that is not Python (a shell script), naming it may make it
    named = writers({name for names in missing_of.values() for name in names}, facts)
    makers = {path for paths in named.values() for path in paths
              if context.of(path).role in {"build", "ci"}
              or (context.of(path).role == "product" and not path.endswith((".py", ".ipynb")))}

    def made(name: str, folder: str) -> bool:
        return bool(named.get(name, set()) & makers) or any(_holds(build, folder) for build in compiling)

    result: dict[str, str] = {}
    for path, lacked in missing_of.items():
        why = next((why for name, (folder, why) in lacked.items() if not made(name, folder)), None)
        if why is not None:
            result[path] = why
    return result


def _holds(folder: str, inner: str) -> bool:
    """Is `inner` the folder `folder` or one below it (`.` holds every folder)?"""
    return folder == "." or inner == folder or inner.startswith(folder + "/")
