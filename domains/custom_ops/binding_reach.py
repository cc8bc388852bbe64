"""Kernels reached only through bindings no Python code calls, and builds of extensions nothing imports.

A CUDA kernel runs when Python calls an op of its extension whose bound C++ function launches it, directly or through
the host functions it calls. llm-awq's awq_inference_engine binds `gemv_forward_cuda` and `gemm_forward_cuda` beside
their `*_new` successors (awq/kernels/csrc/pybind.cpp); the project's Python calls only the new ones, so the old
kernels (quantization/gemv_cuda.cu, gemm_cuda_gen.cu) and their launchers never run. Judged per extension only where
everything that could reach them is in view:
- a setup.py/builder names the extension and its sources, one of which binds it (PYBIND11_MODULE under the
  extension's name or TORCH_EXTENSION_NAME), and the project's Python imports it by that name;
- an op is called when any Python file writes its name (a call `ext.op(`, an alias, a string), and no Python file
  that names the extension looks attributes up by name (`getattr`): then every op counts as called;
- every source the build lists is in view with its words (a C++ function can be called only by code linked into the
  same extension, and only where its name is written);
- in a source of such extensions (and of no other build), the roots are the functions bound to a called op or by any
  other binding, those another file with kernels or bindings calls or launches (read by syntax: llm-awq's new
  gemv_cuda.cu names the old kernel in a comment only), those any other native or Python file writes (besides the
  source, the binding files and the headers the source or a binding file includes, which declare them), those nothing in the file
  names (an unknown entry), and names too short to judge by words; whatever the roots name within the file runs. A
  function or kernel reached from a binding of an uncalled op and from no root is `optional`, the op in the reason.
  A header the source includes that defines an inline caller is the case this cannot see.
A standalone build (a setup.py's CUDAExtension) of an extension no Python file imports, whose sources another build
of the project compiles into an extension that is imported (llm-awq's csrc/attention/setup.py builds ft_attention
from sources awq_inference_engine compiles too), is `optional` as a whole builder file.
An orphan extension is `optional` with its own native files and builder: a Python module (PYBIND11_MODULE, not a
TORCH_LIBRARY whose ops torch.ops reaches without an import) that no import of the project loads and no file naming
it loads by a computed name, in a project whose Python imports another extension it builds (so it is the consumer of
its extensions, not a library shipping one to its users). TGI's server/exllamav2_kernels builds `exllamav2_kernels`
while its Python imports upstream `exllamav2.ext`; exllama_kernels and custom_kernels beside it are imported.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.unbuilt import TRANSLATION_UNITS
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers, writes_any, writes_word
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.domains.custom_ops.exported_ops import exported_only_ops
from ascend_feasibility.domains.custom_ops.records import BindingRecord, CustomOpFacts, ExtensionRecord, NativeUnitRecord
from ascend_feasibility.domains.phases.walked_folders import within_root

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts, ProjectRun

PYTHON_SUFFIXES = (".py", ".pyi", ".pyx", ".ipynb")
DYNAMIC_LOOKUPS = ("getattr", "__dict__", "__getattribute__")  # an op may be looked up by a name built at run time
DYNAMIC_IMPORTS = ("import_module", "__import__", "load_library", "load_dynamic", "spec_from_file_location")
EXTENSION_MACRO_NAME = "TORCH_EXTENSION_NAME"  # the name the build gives (CUDAExtension(name=...))


def unreached_by_bindings(facts: CustomOpFacts, run: ProjectRun) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the native functions and kernels only uncalled ops reach."""
    if not (facts.extensions and facts.bindings and facts.natives and facts.imports):
        return {}
    python = [m for m in run.modules if m.path.endswith(PYTHON_SUFFIXES)]
    texts = [*run.modules, *facts.native_words]  # every file whose words are known
    paths = {t.path for t in texts}
    sources = {id(e): resolved_sources(e, paths) for e in facts.extensions}
    judged: list[tuple[ExtensionRecord, list[BindingRecord]]] = []
    modules = _imported_modules(facts)
    for extension in facts.extensions:
        bindings = _bindings_of(extension, sources[id(extension)], facts.bindings)
        if (extension.cuda and extension.listed and bindings and len(sources[id(extension)]) == len(set(extension.sources))
                and _imported(extension, modules) and not _looked_up(extension, facts, python)):
            judged.append((extension, bindings))  # every source's words known: no caller out of view
    if not judged:
        return {}
    ops = {op for _, bindings in judged for b in bindings for op in b.ops}
    written = writers(ops, python)
    # an op written only in Python definitions nothing uses but package re-exports (exported_ops.py): uncalled too
    exported = exported_only_ops({op: written[op] for op in ops if op in written}, run.modules,
                                 lambda path: run.context.of(path).role == "test")
    uncalled: dict[str, list[str]] = defaultdict(list)  # bound C++ function → the uncalled ops binding it, as written
    live: set[str] = set()  # C++ functions some called op or some other binding binds
    judged_bindings = {id(b) for _, bindings in judged for b in bindings}
    extension_of = {id(b): e for e, bindings in judged for b in bindings}
    for binding in facts.bindings:
        for op, function in binding.ops.items():
            if id(binding) in judged_bindings and _judgeable(op) and (op not in written or op in exported):
                why = f"; op `{op}` is exported but never called: {exported[op]}" if op in written else ""
                uncalled[function].append(f"`{extension_of[id(binding)].name}.{op}` (bound at {binding.path}:{binding.line}{why})")
            else:
                live.add(function)
    dead_bound = {function for function in uncalled if function not in live}
    if not dead_bound:
        return {}
    built_by = defaultdict(list)
    for extension in facts.extensions:
        for path in sources[id(extension)]:
            built_by[path].append(extension)
    judged_ids = {id(e) for e, _ in judged}
    binding_files = {b.path for _, bindings in judged for b in bindings}
    natives = {record.path: record for record in facts.natives}
    # the headers the binding files include declare what they bind (a csrc/ops.h beside pybind.cpp)
    declarations = {h for b in binding_files if b in natives for h in _included(natives[b], paths)}
    result: dict[str, list[tuple[int, int, str]]] = {}
    for path, record in natives.items():
        if not built_by.get(path) or any(id(e) not in judged_ids for e in built_by[path]):
            continue
        defined = {name for name, _, _, _ in record.functions if name}
        if not defined & dead_bound:
            continue
        allowed = {path, *binding_files, *declarations}.union(_included(record, paths))
        # a file with kernels or bindings is read by its syntax (what its functions call or launch: a kernel named in
        # a comment calls nothing); any other by its words
        others = writers(defined, [t for t in texts if t.path not in allowed and t.path not in natives])
        for name in defined & set(exported):  # the op's own name, written where only unused wrappers call it
            others[name] = others.get(name, set()) - written[name]
        callers_elsewhere = {n for r in facts.natives if r.path != path for n in r.called}
        ranges = _unreached(record.functions, dead_bound, live, others, callers_elsewhere, uncalled)
        if ranges:
            result[path] = ranges
    return result


def _unreached(functions: list[tuple[str, int, int, list[str]]], dead_bound: set[str], live: set[str],
               others: dict[str, set[str]], callers_elsewhere: set[str],
               uncalled: dict[str, list[str]]) -> list[tuple[int, int, str]]:
    """The functions of one file only dead bindings reach, with the ops that reach them."""
    calls: dict[str, set[str]] = defaultdict(set)
    top: set[str] = set()  # named by the file's top level (a launching macro, a table of pointers): may run from anywhere
    for name, _, _, mentions in functions:
        (calls[name] if name else top).update(mentions)
    defined = set(calls)
    named = {n for mentions in calls.values() for n in mentions if n in defined}
    roots = {name for name in defined
             if name in live or name in top or others.get(name) or name in callers_elsewhere or not _judgeable(name)
             or (name not in named and name not in dead_bound)}
    reached = closure(roots, calls, defined)
    through: dict[str, list[str]] = defaultdict(list)  # an unreached function → the uncalled ops reaching it
    for bound in sorted(dead_bound & defined - reached):
        for name in closure({bound}, calls, defined) - reached:
            through[name] += [op for op in uncalled[bound] if op not in through[name]]
    return [(first, last, f"line {first}: {name} runs only through {', '.join(through[name])}, which no Python code "
                          "of the project calls")
            for name, first, last, _ in functions if name and name in through]


def closure(start: set[str], calls: dict[str, set[str]], defined: set[str]) -> set[str]:
    """The names of `defined` that `start` reaches through `calls` (a name → the names it calls), `start` included."""
    seen, stack = set(start), list(start)
    while stack:
        for name in calls.get(stack.pop(), ()):
            if name in defined and name not in seen:
                seen.add(name)
                stack.append(name)
    return seen


def _judgeable(name: str) -> bool:
    """A name whose files the words can tell (written_names.writers never finds a shorter one)."""
    return len(name) >= MIN_NAME and not name[0].isdigit()


def resolved_sources(extension: ExtensionRecord, paths: set[str]) -> set[str]:
    """The project paths among `paths` of an extension's sources, named from the builder's folder or from the root."""
    here = PurePosixPath(extension.path).parent
    found = set()
    for source in extension.sources:
        for base in (here, PurePosixPath()):
            candidate = _normal(base / source)
            if candidate in paths:
                found.add(candidate)
                break
    for folder in walked_folders(extension):  # every translation unit below a folder the build walks
        found.update(p for p in paths if p.endswith(TRANSLATION_UNITS) and (folder == "." or p.startswith(folder + "/")))
    return found


def walked_folders(extension: ExtensionRecord) -> list[str]:
    """The project folders the build's walks collect sources from, none when one walk's folder is unread (a walk of
    the unknown builds an unknown set: its sources are not all in view) or climbs above the root."""
    if "." in extension.folders:
        return []
    here = PurePosixPath(extension.path).parent
    folders = [within_root(here / folder) for folder in extension.folders]
    return [] if None in folders else [folder for folder in folders if folder is not None]


def _normal(path: PurePosixPath) -> str:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _bindings_of(extension: ExtensionRecord, sources: set[str], bindings: list[BindingRecord]) -> list[BindingRecord]:
    last = extension.name.rsplit(".", 1)[-1]
    return [b for b in bindings if b.path in sources and b.macro == "PYBIND11_MODULE"
            and b.module in {EXTENSION_MACRO_NAME, last, extension.name}]


def _imported(extension: ExtensionRecord, modules: set[str]) -> bool:
    """Does one of `modules` (_imported_modules: each once) load the extension?"""
    return any(loads_extension(extension, module) for module in modules)


def _imported_modules(facts: CustomOpFacts) -> set[str]:
    return {site.module for site in facts.imports}


def loads_extension(extension: ExtensionRecord, module: str) -> bool:
    """Does an import of `module` load the extension (`import pkg._C`, `from pkg import _C`, `import _C`)?"""
    name, last = extension.name, extension.name.rsplit(".", 1)[-1]
    return module in {name, last} or module.startswith(name + ".") or module.endswith("." + last)


def _looked_up(extension: ExtensionRecord, facts: CustomOpFacts, python: list[ModuleFacts]) -> bool:
    """Does a Python file that imports or names the extension look attributes up by name?"""
    importers = {site.path for site in facts.imports if loads_extension(extension, site.module)}
    names = [name for name in extension.name.split(".") if _judgeable(name)]
    return any((m.path in importers or writes_any(m.words, names)) and writes_any(m.words, DYNAMIC_LOOKUPS)
               for m in python)


def _included(record: NativeUnitRecord, paths: set[str]) -> set[str]:
    """The project files a native file's includes name: from its folder, or by the include's trailing path."""
    here = PurePosixPath(record.path).parent
    found = set()
    for include in record.includes:
        beside = _normal(here / include)
        if beside in paths:
            found.add(beside)
            continue
        found.update(p for p in paths if p.endswith("/" + include.lstrip("./")))
    return found


def redundant_builds(facts: CustomOpFacts, run: ProjectRun) -> dict[str, tuple[str, str]]:
    """Builder files (role build) whose every extension no Python file imports and another, imported build of the
    project compiles from the same sources: builder path → ("optional", why)."""
    if len(facts.extensions) < 2 or not facts.imports:
        return {}
    paths = {t.path for t in (*run.modules, *facts.native_words)}
    sources = {id(e): resolved_sources(e, paths) for e in facts.extensions}
    modules = _imported_modules(facts)
    imported = [e for e in facts.extensions if e.name not in {"", "?"} and _imported(e, modules) and sources[id(e)]]
    python = [m for m in run.modules if m.path.endswith(PYTHON_SUFFIXES) and run.context.of(m.path).role != "build"]
    verdicts: dict[str, list[str | None]] = defaultdict(list)
    for extension in facts.extensions:
        own = sources[id(extension)]
        reason = None
        if (_judgeable(extension.name.rsplit(".", 1)[-1]) and extension.listed and own
                and run.context.of(extension.path).role == "build"
                and not _imported(extension, modules)
                and not any(writes_word(m.words, extension.name.rsplit(".", 1)[-1]) for m in python)):
            twin = next((e for e in imported if e is not extension and own <= sources[id(e)]), None)
            if twin is not None:
                reason = (f"builds {extension.name}, which no Python file of the project imports; its sources are "
                          f"compiled into {twin.name} ({twin.path}:{twin.line}), the extension the project imports")
        verdicts[extension.path].append(reason)
    return {path: ("optional", reasons[0]) for path, reasons in verdicts.items() if all(reasons)}


def orphan_extensions(facts: CustomOpFacts, run: ProjectRun) -> dict[str, tuple[str, str]]:
    """The native files and builders of CUDA extensions nothing in the project loads: path → ("optional", why)."""
    if len(facts.extensions) < 2 or not facts.imports:
        return {}
    python = [m for m in run.modules if m.path.endswith(PYTHON_SUFFIXES) and run.context.of(m.path).role != "build"]
    # each module once: a tree imports json a thousand times
    modules = _imported_modules(facts) | {module for m in python for module in m.imports}
    imported = {e.name for e in facts.extensions if e.cuda and e.name not in {"", "?"} and _imported(e, modules)}
    if not imported:
        return {}
    paths = {t.path for t in (*run.modules, *facts.native_words)}
    sources = {id(e): resolved_sources(e, paths) for e in facts.extensions}
    by_builder: dict[str, list[str | None]] = defaultdict(list)
    result: dict[str, tuple[str, str]] = {}
    for extension in facts.extensions:
        own, last = sources[id(extension)], extension.name.rsplit(".", 1)[-1]
        reason = None
        shared = {p for e in facts.extensions if e is not extension for p in sources[id(e)]}
        whole = extension.listed and len(own) == len(set(extension.sources)) or _walked_whole(extension)
        if (extension.cuda and whole and _judgeable(last) and own - shared and extension.name not in imported
                and _bindings_of(extension, own, facts.bindings)
                and not any(b.path in own and b.macro != "PYBIND11_MODULE" for b in facts.bindings)
                and not any(writes_word(m.words, last) and writes_any(m.words, DYNAMIC_IMPORTS) for m in python)):
            shown = ", ".join(sorted(imported)[:3])
            reason = (f"builds {extension.name} ({extension.path}:{extension.line}), which no Python file of the project "
                      f"imports or loads by name, while it imports the other extensions it builds ({shown}): nothing "
                      "loads its kernels")
            for path in own_native_files(extension, own, facts, sources, paths):
                result.setdefault(path, ("optional", reason))
        by_builder[extension.path].append(reason)
    for builder, reasons in by_builder.items():
        if all(reasons) and run.context.of(builder).role == "build":
            result.setdefault(builder, ("optional", reasons[0]))
    return result


def _walked_whole(extension: ExtensionRecord) -> bool:
    """Are all an extension's sources collected by walks of folders in view, none listed besides?"""
    return not extension.sources and bool(extension.folders) and bool(walked_folders(extension))


def own_native_files(extension: ExtensionRecord, own: set[str], facts: CustomOpFacts, sources: dict[int, set[str]],
                     paths: set[str]) -> set[str]:
    """An extension's sources no other extension compiles and the native files beside them (headers, host code) in
    folders holding no other extension's sources."""
    shared = {p for e in facts.extensions if e is not extension for p in sources[id(e)]}
    others = {str(PurePosixPath(p).parent) for p in shared}
    folders = {str(PurePosixPath(p).parent) for p in own} - others
    return (own - shared) | {p for p in paths if p.endswith(NATIVE_SUFFIXES) and str(PurePosixPath(p).parent) in folders}


def unreached_builds(facts: CustomOpFacts, run: ProjectRun) -> dict[str, tuple[str, str]]:
    """The native files of extensions only Python modules that nothing running loads build (a module-level
    `cpp_extension.load(...)` in a module whose importers no entry's import chain reaches): path → ("optional", why).
    The build runs when the module is imported, so its sources follow the module's reach: those it lists, or, where
    it joins their names at run time (`path.join(_src_path, f) for f in [...]`), the native files in its own folder
    and below, when no other build of the project sits or reads there. A builder some product code runs keeps them."""
    paths = {t.path for t in (*run.modules, *facts.native_words)}
    natives = sorted(p for p in paths if p.endswith(NATIVE_SUFFIXES))
    sources = {id(e): resolved_sources(e, paths) for e in facts.extensions}
    result: dict[str, tuple[str, str]] = {}
    for extension in facts.extensions:
        place = run.guarded.get(extension.path)
        if (place is None or place[0] != "optional" or not extension.path.endswith(".py")
                or PurePosixPath(extension.path).name in {"setup.py", "__init__.py"}
                or run.context.of(extension.path).role not in {"product", "build"}):
            continue
        folder = str(PurePosixPath(extension.path).parent)
        if folder == ".":
            continue
        others = [e for e in facts.extensions if e.path != extension.path]
        if sources[id(extension)]:
            own = own_native_files(extension, sources[id(extension)], facts, sources, paths)
        elif not extension.sources and not any(e.path.startswith(folder + "/") for e in others):
            claimed = {p for e in others for p in sources[id(e)]}
            own = {p for p in natives if p.startswith(folder + "/")} - claimed
        else:
            continue
        why = (f"built only when {extension.path} is imported (its build of {extension.name or 'an extension'} at "
               f"line {extension.line}), and that module is optional: {place[1]}")
        for path in sorted(own):
            if run.context.of(path).reach == "runs":
                result.setdefault(path, ("optional", why))
    return result
