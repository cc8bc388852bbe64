"""Private methods nothing calls: no file of the project names them. `optional`. So are user-only methods (a library's
switch its framework never calls, knowledge opt_in.user_only_methods: a copied diffusers pipeline's
enable_model_cpu_offload) of a class whose file's public names are the project's to judge, when no other file names
them (round 28 A2 rows 55, 94); a published library's public module keeps them (its users call them).

The file names its candidates (domains/phases/uncalled_methods.py: private methods of its classes whose name its text
holds only in their `def`). Another file may still call one: it stays reached when
- any other file writes the name (`trainer._extract_codes_dac(x)`, a getattr string, a config entry, a comment), or
  a part of it a lookup may build the name from: the name without its leading underscores (`getattr(self, "_" +
  step)` with `step = "extract_codes_dac"` elsewhere), or a prefix ending in `_` (`f"_extract_{kind}"`);
- its class derives from a class outside the project, at any depth: a framework may call the method as a hook
  (`PreTrainedModel._init_weights`, `Module._load_from_state_dict`); a base is the project's only where its file
  defines it or imports it by name from a project module that defines it;
- a file defining the class, one of its bases or a class derived from it (by name) calls getattr with a name it
  builds (`getattr(self, "_" + self.kind)()`): that lookup may call it;
- the file is no product code (a test, an example), or no plain Python file (a notebook's cells name each other).
Round 26 A2 rows 67, 98 and B2 row 32 (Amphion trainers' `_extract_codes_dac`, `_extract_semantic_feature`,
`_build_semantic_model`, under project base classes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.unreferenced import loaded_by, public_names_judged
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

WHY = ("line {line}: method {holder}.{name} is named nowhere else in the project (no `.{name}` call, getattr string or "
       "config entry), and {holder} derives from no class outside the project that could call it: nothing calls it")
WHY_USER_ONLY = ("line {line}: method {holder}.{name} is a switch a library offers its users and never calls itself, "
                 "and no project file calls it (no `.{name}` call, getattr string or config entry): nothing runs it")


def method_ranges(found: dict[tuple[str, str, str], tuple[int, int]]) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of uncalled_methods' answer."""
    result: dict[str, list[tuple[int, int, str]]] = {}
    for (path, holder, name), (first, last) in found.items():
        why = WHY if name.startswith("_") else WHY_USER_ONLY
        result.setdefault(path, []).append((first, last, why.format(line=first, holder=holder, name=name)))
    return result


def uncalled_methods(facts: list[ModuleFacts], context: ProjectContext, packages: set[str],
                     distribution: str = "") -> dict[tuple[str, str, str], tuple[int, int]]:
    """(path, class, method) → (first line, last line) of the private methods nothing in the project calls, and of
    the user-only methods (a library's switch its framework never calls: a copied diffusers pipeline's
    enable_model_cpu_offload) no other project file names, where the file's public names are the project's to judge
    (unreferenced.public_names_judged: not a published library's module, whose users call them); a class deriving
    from a class outside the project keeps no such method reached, since its framework never calls it.
    unreferenced.py reads them as callers nothing runs: a symbol a class names only in them is not reached there."""
    candidates = [(f, holder, name, first, last) for f in facts if f.path.endswith(".py")
                  for holder, name, first, last in f.uncalled_methods
                  if context.of(f.path).role in COUNTED_ROLES and context.of(f.path).reach == "runs"]
    if any(not name.startswith("_") for _, _, name, _, _ in candidates):
        whole = public_names_judged(facts, context, distribution, packages)
        candidates = [c for c in candidates if c[2].startswith("_") or whole(c[0].path)]
    if not candidates:
        return {}
    # a file listing the same user-only method names it only in its own definition (a second copied pipeline)
    defining = {(f.path, name) for f in facts for _, name, _, _ in f.uncalled_methods if not name.startswith("_")}
    asked = {name: _parts(name) if name.startswith("_") else set() for _, _, name, _, _ in candidates}
    written = writers({part for parts in asked.values() for part in parts} | set(asked), facts)
    own_project = _project_classes(facts, packages)
    building = {f.path for f in facts if f.builds_attribute_names}
    subclassed: dict[str, set[str]] = {}  # a class name → the files defining a class with that base
    if building:
        for f in facts:
            for _, bases, _ in f.class_shapes:
                for base in bases:
                    subclassed.setdefault(base, set()).add(f.path)
    result: dict[tuple[str, str, str], tuple[int, int]] = {}
    for own, holder, name, first, last in candidates:
        if any(path != own.path and (path, word) not in defining
               for word in (name, *asked[name]) for path in written.get(word, ())):
            continue
        ancestry = own_project(own.path, holder)
        if ancestry is None and not name.startswith("_"):
            ancestry = {own.path}  # its framework never calls a user-only method: only the project's getattr may
        if ancestry is None or ancestry & building or subclassed.get(holder, set()) & building:
            continue
        result[(own.path, holder, name)] = (first, last)
    return result


def _parts(name: str) -> set[str]:
    """The words a lookup may build `name` from: it without leading underscores, its prefixes ending in `_`."""
    bare = name.lstrip("_")
    prefixes = {name[:index + 1] for index, char in enumerate(name) if char == "_" and index + 1 < len(name)}
    return {part for part in {bare, *prefixes} if len(part) >= MIN_NAME}


def _project_classes(facts: list[ModuleFacts], packages: set[str]):
    """(path, class) → the files of the class and of its bases, at any depth, when it derives only from the project's
    own classes (or from none); None when one of them is not the project's."""
    shapes = {(f.path, name): bases for f in facts for name, bases, _ in f.class_shapes}
    load_names = loaded_by(facts, packages)
    defining: dict[str, list[str]] = {}  # a dotted name a project module's class is imported by → its file
    for f in facts:
        for name, _, _ in f.class_shapes:
            for module in load_names(f.path):
                defining.setdefault(f"{module}.{name}", []).append(f.path)
    imports = {f.path: set(f.imports) for f in facts}
    known: dict[tuple[str, str], set[str] | None] = {}

    def own(path: str, holder: str) -> set[str] | None:
        key = (path, holder)
        if key in known:
            return known[key]
        known[key] = {path}  # a cycle reaches nothing new
        bases = shapes.get(key)
        found: set[str] | None = None if bases is None else {path}
        for base in bases or ():
            files = set() if base == "object" else _base_files(path, base)
            found = None if files is None or found is None else found | files
        known[key] = found
        return found

    def _base_files(path: str, base: str) -> set[str] | None:
        if (path, base) in shapes:
            return own(path, base)
        sources = [p for dotted in imports.get(path, ()) if dotted.rpartition(".")[2] == base
                   for p in defining.get(dotted, ())]
        found: set[str] | None = set() if sources else None
        for source in sources:
            files = own(source, base)
            found = None if files is None or found is None else found | files
        return found
    return own
