"""Module-level functions and classes nothing in the project names: their findings are `optional`, with the reason.

Python reaches a function or a class only through its name: a call, a reference passed on, an import, an `__all__`
entry, a string a registry or a config looks it up by. One whose name no file of the project writes anywhere but in its
own definition (domains/phases/symbols.py reads the words of code, strings, shell, YAML, JSON and build files alike;
a Python file's comments, docstrings and logged, printed or raised sentences are prose, no use: domains/phases/prose.py),
or that only tests write (a test runs no product code), is reached by nothing the project runs: VILA's `AsyncHybridAttention` beside the `HybridAttention` its
monkey patch installs, `validity_check()` in an FP8 kernel module. Judged only where no user outside the project can
name it either:
- in an application's package (unloaded.application_packages: VILA's llava; unloaded.registry_applications: a
  program with a `__main__.py` that loads its plugins through a string table, lmms-eval's lmms_eval), in a package no build file could
  publish (no setup.py, setup.cfg or pyproject.toml in its folder or above) that the project's own scripts import
  (InternImage's segmentation/mmseg_custom, imported by segmentation/train.py), and in scripts outside any package;
- a private name (`_helper`) anywhere: a library's users do not call it;
- an entry of a module-level table of environment settings read on demand (`{"APP_DEVICE": lambda:
  os.getenv("APP_DEVICE", "cuda")}`, read as `envs.APP_DEVICE`) anywhere: a key nothing else names is read by nothing;
- a module-level constant holding an environment variable's name (`TRACE_FILE = "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"`)
  anywhere: a rule on the variable fires where it is written (`os.environ[...] =`, setdefault, putenv, an export) or
  where a constant holding the name flows to such a write; a constant nothing names reaches no write.
- a module-level name bound to a string or an effect-free call's value (`DEVICE = torch.device("cuda:0") if
  torch.cuda.is_available() else torch.device("cpu")`) that its module reads nowhere and no module importing it (a name
  from it, `*`, or the module) names: a finding in the value concerns nothing that runs. Another script's own `DEVICE`
  is another global: only files importing the module are asked. Judged where functions are (not a library's public
  name, which its users may import).
- in a folder of another project's code the package ships (conventions roles.vendored_dirs: third_party/, _vendor/):
  the package's users call its own API, not the copy's (FastVideo's fastvideo/third_party/longcat_video);
- in a copy of a catalogued library beside the project's own code: a top package (at the root or under src/) named
  as a library's module in knowledge/dependencies/packages.toml, in a project that publishes itself under another
  name (LLaVA-NeXT, `name = "llava"`, ships trl/): its users import the project, not the copy, so a function of the
  copy that nothing in the project names (the copy's own re-exports aside) is no one's API (vendored_library_folders).
A library's public function that the project itself never calls is its users' API and keeps `runs`. A package's
__init__.py that only imports a name from the defining module (and lists it in `__all__`) re-exports it: no use.
A symbol its own file names only inside other module-level definitions (`_get_global_gloo_group`, called only by
`all_reduce_dict`) is unreached when all of those are; so is one another file imports and names only inside its own
module-level definitions (symbols.imported_users: CodeFormer's arch_util.py subclassing ModulatedDeformConvPack in
`class DCNv2Pack(ModulatedDeformConvPack):`, a class nothing creates), and one named only in methods that every class
the project creates from their class overrides (overridden_methods.py). An alias (`modulated_deform_conv =
ModulatedDeformConvFunction.apply`) is a value like any other, read where its module or a package re-exporting it is
imported; definitions decorated only by a cache (`@lru_cache()`) are
read too. A self-test's demo in an application (a class built only under its own module's `if __name__ ==
"__main__":`, Glow) that other files import and name only inside their own module-level definitions, or never again,
is unreached when those are (round 29 A1 row 3, B2 row 27; openpose's Hand, imported only by its package's
__init__.py, A1 row 5); a library's module keeps it. A demo function whose name is too short for the word index
(`run`, passed as `pool.imap_unordered(run, ...)` by the block: round 32 A1 row 12, B1 row 21) is asked of the Python
files whose imports can reach it instead (`from m import run`, `import m`): none, and it is the block's too. Decorated
definitions (a decorator may register them) are never candidates, and neither is a module whose code may look its
names up at run time: `globals()`, `fire.Fire()`, `inspect.getmembers` (symbols.py). A registry's registration
(`@RUNNERS.register_module()`, symbols.registration_of) is the exception: the registry builds the class only from a
config's `type='Name'` or a string, so it is judged like an undecorated definition, in a published library's module
too (ViTPose's IterBasedRunnerAmp, which no config names: round 40 B1 rows 11, 16), and kept where any file writes
its name or a `name=` alias of the decorator; the reason names the registry.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.config_reach import dead_configs
from ascend_feasibility.analyzer.context.import_reach import ImportVerdicts
from ascend_feasibility.analyzer.context.overridden_methods import MethodReach
from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.unloaded import (
    application_packages,
    bundled_libraries,
    import_names,
    package_folders,
    registry_applications,
    top_folder,
    unpublished_packages,
)
from ascend_feasibility.analyzer.context.written_names import (
    DEAD_ARM_USER,
    MAIN_BLOCK_USER,
    MIN_NAME,
    PROSE_SUFFIXES,
    writers,
)
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts




def public_names_judged(facts: list[ModuleFacts], context: ProjectContext, distribution: str,
                        packages: set[str]) -> Callable[[str], bool]:
    """Whether a file's public names are the project's own to judge (nothing in the project naming one means nothing
    uses it): a file outside every package, or in an application's package, an unpublished one, a program loading
    its plugins through a string table, a vendored folder or a copied library. In a published library's module a
    public name is its users' API, reached whether the project names it or not."""
    applications = application_packages(facts, context, distribution, packages) | unpublished_packages(facts, packages, context)
    applications |= registry_applications(facts, packages)[0]  # a program loading its plugins through a string table
    applications |= bundled_libraries(facts, packages, context)  # a library's checkout an application carries
    vendored = frozenset(load_context_conventions().roles.vendored_dirs)
    copies = vendored_library_folders(packages, distribution)

    def judged(path: str) -> bool:
        return path_view(path).parent not in packages or top_folder(path, packages) in applications \
            or _vendored(path, vendored) or top_folder(path, packages) in copies
    return judged


def unreferenced_symbols(facts: list[ModuleFacts], context: ProjectContext, distribution: str = "",
                         packages: set[str] | None = None,
                         self_tests: dict[str, str] | None = None,
                         uncalled: set[tuple[str, str]] | None = None,
                         silent_methods: set[tuple[str, str, str]] | None = None) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the module-level symbols nothing in the project names. `packages`:
    unloaded.package_folders(facts) when the caller has it already. `self_tests`: path → the product file importing
    it, for the modules whose `if __name__ == "__main__":` block is a library's self-test (propagation.self_test_blocks):
    a function only that block names (nerfstudio's `generate_image`, run by `tyro.cli(generate_image)` there, named by
    no other file) is its demo, public or not, and unreached like the block. `uncalled`: (path, name) of the script
    functions nothing calls (uncalled_functions.uncalled_script_functions: a comment at most names them); a symbol
    only they name is unreached like them. `silent_methods`: (path, class, method) of the private methods nothing
    calls (uncalled_methods.py); a symbol a class names only in those is not reached through that class."""
    self_tests = self_tests or {}
    uncalled = uncalled or set()
    packages = package_folders(facts, context.source_roots) if packages is None else packages
    whole = public_names_judged(facts, context, distribution, packages)
    judged_paths: set[str] = set()  # the files whose public names the project's own judge (public_names_judged)
    candidates: list[tuple[str, tuple[str, int, int, str], tuple[str, ...]]] = []
    # built only from a config's `type='Name'` or a string: judged in a published library's module too
    registered = {(f.path, name): (registry, tuple(aliases)) for f in facts
                  for name, registry, aliases in f.registered_symbols}
    for f in facts:
        own = context.of(f.path)
        if not (f.unnamed_symbols or f.inner_named) or own.role not in COUNTED_ROLES or own.reach != "runs":
            continue
        judged_whole = whole(f.path)
        if judged_whole:
            judged_paths.add(f.path)
        candidates += [(f.path, s[:4], ()) for s in f.unnamed_symbols
                       if judged_whole or _private(s) or (f.path, s[0]) in registered]
        candidates += [(f.path, s[:4], tuple(s[4])) for s in f.inner_named
                       if judged_whole or _private(s) or (f.path, s[0]) in registered
                       or (f.path in self_tests and list(s[4]) == [MAIN_BLOCK_USER])]
    if not candidates:
        return {}
    aliases = {alias for path, symbol, _ in candidates for alias in registered.get((path, symbol[0]), ("", ()))[1]}
    written = writers({symbol[0] for _, symbol, _ in candidates} | aliases, facts)
    reexports = reexporters_of(facts)
    dead = dead_configs(facts, context, packages)
    inside = {(f.path, name): users for f in facts for name, users in f.imported_users}  # symbols.imported_users
    edited = _edited_writers(facts)
    switched: dict[tuple[str, str], str] = {}  # symbols named only in arms a literal rules out: the arm and why
    unreached: dict[tuple[str, str], str] = {(path, MAIN_BLOCK_USER): importer for path, importer in self_tests.items()}
    unreached.update({seed: "nothing calls it" for seed in uncalled})
    # an arm a function object's test never lets run (symbols.py's DEAD_ARM_USER users): the reason is in the name
    unreached.update({(path, user): user[len(DEAD_ARM_USER):] for path, _, users in candidates for user in users
                      if user.startswith(DEAD_ARM_USER)})
    pending = []
    importers = None
    by_path = {f.path: f for f in facts}
    load_names = loaded_by(facts, packages)
    project: dict[str, list[ModuleFacts]] = defaultdict(list)  # every name a project module is loaded by → them
    for f in facts:
        for loaded in load_names(f.path):
            project[loaded].append(f)
    verdicts = ImportVerdicts(project)  # import_reach's verdicts, each file's imports read once per defining module
    for path, symbol, users in candidates:
        name = symbol[0]
        registry, built_by = registered.get((path, name), ("", ()))
        if any(len(alias) < MIN_NAME or written.get(alias, set()) - {path} for alias in built_by):
            continue  # a config may build it by its other name (`register_module(name='Alias')`); the word index
            # holds no name shorter than MIN_NAME
        others = written.get(name, set()) - {path}
        demo = users == (MAIN_BLOCK_USER,)  # a self-test's demo: only a file that can load it names it
        if demo and len(name) < MIN_NAME and symbol[3] in ("function", "class"):
            # a short name (`run`, passed as `pool.imap_unordered(run, ...)`) no file's words are searched for: the
            # Python files whose imports can reach it (`from m import run`, `import m`) may name it
            modules = frozenset(load_names(path))
            others = {f.path for f in facts if f.path != path and f.path.endswith(".py")
                      and verdicts.reaches(f, modules, name)}
        elif symbol[3] in ("function", "class") and others and not registry:
            # a Python file reaches it only through an import; a registered class is built from a string any file
            # may write (a Python config importing project modules: CenterPoint's `type="PillarFeatureNet"`)
            modules = frozenset(load_names(path))  # frozen once: ImportVerdicts keys its packages by it
            if importers is None:
                importers = importers_of(facts, packages)
            # where no file loading the module looks names up in it at run time (`getattr(models, args.arch)`), a
            # project module naming the word but importing nothing that reaches it writes another `name`
            strict = not _looked_up(path, name, importers, reexports, by_path)
            others = {other for other in others
                      if _may_name(by_path[other], modules, name, demo, verdicts, strict and _is_code(by_path[other], project))}
        # a test writing the name runs no product code: tests alone keep nothing reached (propagation's
        # test_only_functions still gives a function only tests import a test's place)
        tested = sorted(other for other in others if context.of(other).role == "test")
        others -= set(tested)
        # a config nothing the project runs loads builds nothing it names (config_reach.py)
        unloaded_configs = sorted(others & dead)
        others -= set(unloaded_configs)
        if symbol[3] == "value" and others:  # a module's global is read only where the module is imported
            if importers is None:
                importers = importers_of(facts, packages)
            # or where a package re-exporting it is (`from lib.ops.dcn import modulated_deform_conv`)
            others &= importers(path).union(*(importers(init) for init in reexports(path, name)))
        arms = {other: edited[(other, name)] for other in others if (other, name) in edited}
        # another file importing it and naming it only inside its own module-level definitions (`class
        # DCNv2Pack(ModulatedDeformConvPack):`): those definitions are its users, reached or not as they are
        importing = {other: held for other in others - set(arms)
                     if (held := _imported_use(inside, other, name, load_names(path))) is not None}
        # a self-test's demo (`Glow`, built only under its module's `if __name__ == "__main__":`) that other files
        # of an application import and name only inside their own module-level definitions, or never again (`from
        # .flow_base import Glow, WN`, using WN: an import is no use), is reached only if those definitions are (the
        # pending pass below), an application's __init__.py only importing it included (a file using it through the
        # package writes its name, and counts); in a library's module it keeps `runs`
        silent = set(importing) if path in judged_paths else set()
        if others - reexports(path, name) - set(arms) - set(importing) or (users == (MAIN_BLOCK_USER,) and others - silent):
            continue  # named elsewhere; or a library module's demo function some file names, a re-export included
        if arms:  # named only in arms a literal constant rules out
            where, (line, why) = sorted(arms.items())[0]
            unreached[(path, name)] = (f"line {symbol[1]}: {symbol[3]} {name} is named only in {where}'s arm at line "
                                       f"{line}, and {why}")
            switched[(path, name)] = f"{where}:{line}, {why}"
            continue
        # imported by name and named nowhere else by those files: an import is no call (`from model_util import
        # torch_gc` in two apps that never call it); a package __init__.py's re-export alone gets the re-export reason below
        only_imported = not users and importing and not any(importing.values())
        plain = sorted(other for other in importing if not other.endswith("__init__.py")) if only_imported else []
        if plain:
            unreached[(path, name)] = (f"line {symbol[1]}: {symbol[3]} {name} is only imported (by "
                                       f"{', '.join(plain)}) and never named again there: an import is no "
                                       "call, nothing reaches it")
            continue
        if (users or importing) and not only_imported:
            pending.append((path, symbol, tuple((path, user) for user in users)
                            + tuple((other, user) for other, held in sorted(importing.items()) for user in held)))
        elif symbol[3] == "value":
            unreached[(path, name)] = (f"line {symbol[1]}: {name} is bound to a value that nothing reads: its module "
                                       "names it nowhere else, and no module importing it names it")
        else:
            only = " (only re-exported by " + sorted(others)[0] + ")" if others else ""
            if tested:
                only += f" (named only by tests: {tested[0]}{f' and {len(tested) - 1} more' if len(tested) > 1 else ''})"
            if unloaded_configs:
                only += (f" (named only by configs nothing the project runs loads: {unloaded_configs[0]}"
                         f"{f' and {len(unloaded_configs) - 1} more' if len(unloaded_configs) > 1 else ''})")
            unreached[(path, name)] = (f"line {symbol[1]}: {symbol[3]} {name} is named nowhere else in the project (no "
                                       f"call, reference, export or config entry){only}: nothing reaches it"
                                       + (f" (registered in {registry}, which builds it only from a config's "
                                          "`type=` or a string that names it)" if registry else ""))
    kinds = {(path, symbol[0]): symbol[3] for path, symbol, _ in candidates}
    methods = MethodReach(facts, set(kinds), written, reexports, unreached, silent_methods or set())
    grew = True
    while grew:  # a symbol only unreached symbols (of its file, or of files importing it) name is unreached too
        grew = False
        for path, (name, start, _, kind), held in pending:
            if (path, name) in unreached:
                continue
            # or only methods that every class the project creates from their class replaces (overridden_methods.py),
            # or private methods no file names (uncalled_methods.py)
            replaced = {user: (methods.overridden(user, name), "overridden") for user in held if user not in unreached}
            replaced.update({user: (methods.uncalled(user, name), "uncalled") for user, (found, _) in replaced.items()
                             if not found})
            if not all(found for found, _ in replaced.values()):
                continue
            if replaced:
                parts = []
                for how, why in (("overridden", "every class the project creates from them overrides without calling "
                                                "it"), ("uncalled", "nothing calls (private methods no file names)")):
                    used = [f"{user}.{method}" + ("" if where == path else f" ({where})")
                            for (where, user), (found, kind_of) in replaced.items() if kind_of == how for method in found]
                    if used:
                        parts.append(f"{', '.join(used)}, which {why}")
                rest = [user if where == path else f"{user} ({where})" for where, user in held if (where, user) not in replaced]
                unreached[(path, name)] = (f"line {start}: {kind} {name} is used only in {', and in '.join(parts)}"
                                           + (f", and in {', '.join(rest)}, which nothing in the project reaches"
                                              if rest else ""))
                grew = True
                continue
            dead = [user[len(DEAD_ARM_USER):] for _, user in held if user.startswith(DEAD_ARM_USER)]
            users = [user if where == path else f"{user} ({where})" for where, user in held
                     if not user.startswith(DEAD_ARM_USER)]
            if dead:  # named only in arms that never run (and in unreached definitions)
                unreached[(path, name)] = (f"line {start}: {kind} {name} is named only in an arm that never runs "
                                           f"({dead[0]})" + (f", and in {', '.join(users)}, which nothing in the "
                                                             "project reaches" if users else ""))
                grew = True
                continue
            if (path, MAIN_BLOCK_USER) in held:
                beside = [u for u in users if u != MAIN_BLOCK_USER]
                unreached[(path, name)] = (f"line {start}: {kind} {name} is named only in "
                                           + (", ".join(beside) + " and " if beside else "")
                                           + f"the self-test block ({unreached[(path, MAIN_BLOCK_USER)]}): a demo, not "
                                           "product code")
                grew = True
                continue
            arm = next((switched[user] for user in held if user in switched), None)
            if held and all(user in uncalled for user in held):  # called only by script functions nothing calls
                callers = sorted({user for _, user in held})
                verb = "call" if kind == "function" else "use"
                unreached[(path, name)] = (f"line {start}: {kind} {name}: only {', '.join(users)} "
                                           f"{verb + 's' if len(held) == 1 else verb} it, and nothing calls "
                                           f"{' or '.join(callers)} (a comment at most names "
                                           f"{'it' if len(callers) == 1 else 'them'})")
            elif any(where != path for where, _ in held) and all(kinds.get(user) == "class" for user in held):
                # subclassed or used by other files' classes only, none of which anything builds
                unreached[(path, name)] = (f"line {start}: {kind} {name} is used only by classes nothing in the "
                                           f"project creates ({', '.join(users)}): nothing reaches it"
                                           + (f" (named only in the arm at {arm})" if arm else ""))
            else:
                unreached[(path, name)] = (f"line {start}: {kind} {name} is named only in {', '.join(users)}, which "
                                           "nothing in the project reaches"
                                           + (f" (named only in the arm at {arm})" if arm else ""))
            if arm:
                switched[(path, name)] = arm
            grew = True
        if not grew:  # symbols naming only each other (and unreached ones): a cycle nothing outside enters
            grew = _close_cycles(pending, unreached)
    result: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for path, (name, start, end, _), _ in candidates:
        if (path, name) in unreached:
            result[path].append((start, end, unreached[(path, name)]))
    return dict(result)


def _close_cycles(pending: list[tuple[str, tuple, tuple[tuple[str, str], ...]]],
                  unreached: dict[tuple[str, str], str]) -> bool:
    """Mark unreached the pending symbols that only each other and unreached symbols name (`all_gather` calling
    `all_gather_cpu`, whose `dist.all_gather(...)` writes the first's name back; mutual recursion): the largest such
    set, found by dropping every symbol some other user names, until none drops. True when it marked any."""
    left = {(path, symbol[0]): (symbol, held) for path, symbol, held in pending if (path, symbol[0]) not in unreached}
    dropped = True
    while dropped:
        dropped = False
        for key, (_, held) in list(left.items()):
            if any(user not in unreached and user not in left for user in held):
                del left[key]
                dropped = True
    for (path, name), ((_, start, _, kind), held) in left.items():
        users = sorted({user if where == path else f"{user} ({where})" for where, user in held})
        unreached[(path, name)] = (f"line {start}: {kind} {name} is named only in {', '.join(users)}, which only "
                                   "each other or nothing in the project reaches: a cycle no code path enters")
    return bool(left)


def _imported_use(inside: dict[tuple[str, str], list[str]], other: str, name: str,
                  modules: set[str]) -> list[str] | None:
    """The definitions `other` names the module's `name` in (symbols.imported_users), or None where it may name it
    elsewhere: first an aliased import from one of the names the module is loaded by (`from .stylegan3 import
    SynthesisLayer as AFSynthesisLayer`, listed as `stylegan3.SynthesisLayer`), then the bare name."""
    for module in modules:
        held = inside.get((other, f"{module}.{name}"))
        if held is not None:
            return held
    return inside.get((other, name))


def _may_name(other: ModuleFacts, modules: frozenset[str], name: str, demo: bool, verdicts: ImportVerdicts,
              strict: bool = False) -> bool:
    """May `other`, a file writing `name`, name the module-level `name` of the file loaded by `modules`? A config or a
    shell file may (a callable's dotted path, `python -c`); a Python file unless its imports bind the name elsewhere
    (import_reach.ImportVerdicts.binds_elsewhere). For a self-test's demo (a function only its module's `if __name__ == "__main__":`
    block names) the word is common (`test`): only a Python file that can load it names it, and prose does not.
    `strict` (a project module importing other project modules, where nothing looks the module's names up at run
    time): only a file whose imports reach the module, or that writes its name, names it; the word alone is another
    object's (`torch.scatter`, a method `def scatter(self, ...)`: round 41 A1 row 1, A2 row 91)."""
    if not other.path.endswith(".py"):
        return not (demo and other.path.endswith(PROSE_SUFFIXES))
    if not modules:
        return True
    if strict and not demo:
        return verdicts.reaches(other, modules, name) or verdicts.names_through_import(other, modules, name)
    return verdicts.reaches(other, modules, name) if demo else not verdicts.binds_elsewhere(other, modules, name)


def _is_code(other: ModuleFacts, project: dict[str, list[ModuleFacts]]) -> bool:
    """Is the Python file code: does it import a project module (or a name from one) or define a function or a class?
    A file doing neither (a Python config, a data table) may hold the name as a string some loader reads: it stays a
    possible user."""
    return bool(other.exported_functions or other.class_shapes) \
        or any(symbol[3] in ("function", "class") for symbol in (*other.unnamed_symbols, *other.inner_named)) \
        or any(name in project or name.rpartition(".")[0] in project for name in (*other.imports, *other.nested_imports))


def _looked_up(path: str, name: str, importers: Callable[[str], set[str]], reexports,
               by_path: dict[str, ModuleFacts]) -> bool:
    """Does a file importing the module (or a package __init__.py re-exporting `name`) look names up at run time:
    getattr with a computed name, import_module or __import__?"""
    loaders = importers(path).union(*(importers(init) for init in reexports(path, name)))
    return any(by_path[other].dynamic_lookups or by_path[other].loads_by_name for other in loaders if other in by_path)


def loaded_by(facts: list[ModuleFacts], packages: set[str]) -> Callable[[str], set[str]]:
    """path → the dotted names Python may load it by (as importers_of reads them: its package name, any tail)."""
    modules = {f.path: f.module for f in facts if f.module}

    def names(path: str) -> set[str]:
        module = modules.get(path)
        if not module:
            return set()
        parts = module.split(".")
        return import_names(path, module, packages) | {".".join(parts[i:]) for i in range(len(parts))}
    return names


def _vendored(path: str, vendored: frozenset[str]) -> bool:
    """Is the file inside a folder of another project's code that its package ships (third_party/, _vendor/)?"""
    return any(part.lower() in vendored for part in path.split("/")[:-1])


def vendored_library_folders(packages: set[str], distribution: str) -> set[str]:
    """Top package folders (at the root or under src/) named as a catalogued library's module, where the project
    publishes itself under a name that is neither the folder's nor that library's: a copy of the library (LLaVA-NeXT's
    trl/). Without a published name nothing says whose the folder is (DeepSpeed's deepspeed/), and a project
    publishing the library's name is the library itself (Megatron-LM's megatron/ as `megatron-core`)."""
    if not distribution:
        return set()
    from ascend_feasibility.knowledge import load_knowledge
    from packaging.utils import canonicalize_name

    libraries = load_knowledge().module_to_distribution
    mine = canonicalize_name(distribution)
    found = set()
    for folder in packages:
        view = path_view(folder)
        if view.parent not in {".", "src"} or view.name not in libraries:
            continue
        if mine not in {canonicalize_name(view.name), canonicalize_name(libraries[view.name])}:
            found.add(folder)
    return found


def _private(symbol: tuple) -> bool:
    """A symbol no user outside the project calls: a private name, a constant holding an environment variable's
    name, which sets nothing until code writes the variable (a user's own write is no site of this project), or an
    entry of a table of environment settings (symbols._environment_entries): its default reaches only code that reads
    the key, and a user setting the variable changes nothing the project reads."""
    return symbol[0].startswith("_") or symbol[3] in {"constant", "entry"}


def _edited_writers(facts: list[ModuleFacts]) -> dict[tuple[str, str], tuple[int, str]]:
    """(path, name) → (the arm's line, why) for names a file writes only in arms a literal constant rules out; an `if`
    in a function counts only where no other file names its constant (`model.gemm_impl = "fp8"` would turn it on)."""
    found = {(f.path, name): (line, constant, why) for f in facts for name, line, constant, why in f.edited_names}
    if not found:
        return {}
    constants = {constant for _, constant, _ in found.values() if constant}
    named = writers(constants, facts) if constants else {}
    return {(path, name): (line, why) for (path, name), (line, constant, why) in found.items()
            if not constant or not named.get(constant, set()) - {path}}


def importers_of(facts: list[ModuleFacts], packages: set[str]):
    """path → the files that import its module (by any dotted name Python may load it by, or any tail of its path's
    name, which a script putting a folder on sys.path would use), a name in it or `*` from it."""
    by_name: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        for name in f.imports:
            by_name[name].add(f.path)
            if "." in name:
                by_name[name.rsplit(".", 1)[0]].add(f.path)  # `from mod import x` and `mod.x` both load mod
    load_names = loaded_by(facts, packages)

    def importers(path: str) -> set[str]:
        return set().union(*(by_name.get(name, set()) for name in load_names(path))) - {path}
    return importers


def reexporters_of(facts: list[ModuleFacts]):
    """(path, name) → the package __init__.py files that import `name` from that file's module, directly or from an
    __init__.py that does, and write it nowhere else but in `__all__` (`from .dist_utils import all_reduce_dict`;
    symbols.reexported_names): a re-export, no use."""
    modules = {f.path: f.module for f in facts if f.module}
    importers: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        if f.reexports:
            kept = set(f.reexports)
            for name in f.imports:
                if name.rsplit(".", 1)[-1] in kept:
                    importers[name].add(f.path)

    def reexporters(path: str, name: str) -> set[str]:
        module = modules.get(path)
        if not module:
            return set()
        names, found = {f"{module}.{name}"}, set()
        while True:
            more = {p for n in names for p in importers.get(n, ()) if p in modules} - found
            if not more:
                return found
            found |= more
            names |= {f"{modules[p]}.{name}" for p in more}
    return reexporters
