"""The folders a builder collects its native sources from by walking them, relative to the builder's folder.

Pointcept's libs/pointops/setup.py lists no source: `sources = [os.path.join(root, file) for root, dirs, files in
os.walk(src) for file in files if file.endswith(".cu") ...]` with `src = "src"`, so every .cpp/.cu under
libs/pointops/src is compiled though no string names one of them. A file building an extension (a CUDAExtension/
CppExtension or a `cpp_extension.load`) whose `sources` walk a folder (os.walk, os.listdir, os.scandir,
glob.glob/iglob, `Path(...).glob/rglob/iterdir`), in the expression or the values of the names it adds up, names that
folder; a walk elsewhere in the file (an environment report listing a toolkit's folder) names none. Its argument is read back as joined_paths reads a path: a string, a
name assigned one, an `os.path.join` of those. A glob pattern names the folder before its first wildcard. A walk
whose folder cannot be read (`os.walk(this_dir)`, built at run time) names the builder's own folder ("."): unknown is
not absent, so nothing under it may be called uncompiled.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.phases.joined_paths import assignment, is_join, path_value
from ascend_feasibility.domains.python_refs import argument

if TYPE_CHECKING:
    from ascend_feasibility.analyzer.reading.python_names import ImportTable
    from ascend_feasibility.domains.base import Unit
    from tree_sitter import Node

BUILDER_WORDS = ("CUDAExtension", "CppExtension", "cpp_extension")  # a file that may build an extension
WALKS = frozenset({"os.walk", "os.listdir", "os.scandir", "glob.glob", "glob.iglob"})
PATH_WALKS = frozenset({"glob", "rglob", "iterdir"})  # methods of a pathlib.Path built from the folder
PATH_CLASSES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"})
WILDCARDS = ("*", "?", "[")
UNKNOWN = "."  # the builder's own folder
MAX_NODES = 20000
MAX_DEPTH = 4  # names and joins followed back from a walk's argument
BUILDERS = frozenset({"torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension",
                      "torch.utils.cpp_extension.load"})
ADDED = frozenset({"binary_operator", "list", "tuple", "list_splat", "argument_list"})  # a name whose list is added in


def walked_folders(unit: Unit) -> list[str]:
    """The folders the sources of `unit`'s extension builds collect by walking them, relative to its folder ("." for
    the folder itself); [] where it builds none or its builds walk nothing."""
    if not any(word in unit.source.text for word in BUILDER_WORDS):
        return []
    imports = unit.imports()
    folders: set[str] = set()
    for node in parsing.walk(unit.tree(), limit=MAX_NODES):
        if node.type == "call" and _is_builder(node, imports):
            folders.update(collected_folders(argument(node, 1, "sources"), imports))
    return sorted(folders)


def collected_folders(sources: Node | None, imports: ImportTable, depth: int = MAX_DEPTH) -> list[str]:
    """The folders a builder's `sources=` argument collects by walking them: in the expression, or in the value last
    assigned to the name it passes (`sources = [... os.walk(src) ...]`), following the names that value adds up
    (`sources = main_file + source_cuda`); [] where it walks none."""
    value = assignment(parsing.text(sources), sources) if sources is not None and sources.type == "identifier" \
        else sources
    if value is None:
        return []
    folders = {_folder(_walked_path(argument, call, MAX_DEPTH)) for call, argument in _walks(value, imports)}
    if depth > 0:
        names = {parsing.text(n): n for n in parsing.walk(value, limit=MAX_NODES, enter_root=True)
                 if n.type == "identifier" and n.parent is not None and n.parent.type in ADDED}
        for node in names.values():
            folders.update(collected_folders(node, imports, depth - 1))
    return sorted(folders)


def _is_builder(call: Node, imports: ImportTable) -> bool:
    """A CUDAExtension/CppExtension/load() call, by name or through a name bound to one (`extension = CUDAExtension`)."""
    function = call.child_by_field_name("function")
    if function is None or function.type not in {"identifier", "attribute"}:
        return False
    if qualified_name(function, imports) in BUILDERS:
        return True
    bound = assignment(parsing.text(function), call) if function.type == "identifier" else None
    return bound is not None and bound.type in {"identifier", "attribute"} and qualified_name(bound, imports) in BUILDERS


def _walks(root: Node, imports: ImportTable) -> Iterator[tuple[Node, Node]]:
    """(call, folder argument) of each walk below `root`."""
    for node in parsing.walk(root, limit=MAX_NODES, enter_root=True):
        if node.type == "call":
            argument = _walked_argument(node, imports)
            if argument is not None:
                yield node, argument


def _walked_argument(call: Node, imports: ImportTable) -> Node | None:
    """The folder argument of a walk call, or None when `call` walks nothing (an argument-less `os.listdir()` lists
    the working folder: unknown too)."""
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    if function.type in {"attribute", "identifier"} and qualified_name(function, imports) in WALKS:
        first = arguments.named_children[0] if arguments.named_children else None
        return first if first is not None and first.type != "keyword_argument" else call
    if function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) in PATH_WALKS:
        made = function.child_by_field_name("object")
        callee = made.child_by_field_name("function") if made is not None and made.type == "call" else None
        if callee is not None and qualified_name(callee, imports) in PATH_CLASSES:
            inner = made.child_by_field_name("arguments")
            first = inner.named_children[0] if inner is not None and inner.named_children else None
            return first if first is not None else made
    return None


def _walked_path(node: Node, at: Node, depth: int) -> str | None:
    """The path a walk's argument holds, up to its first part that cannot be read: `os.path.join(root, variant(),
    "*.cu")` walks somewhere below `root`. An unread first part of a join is the builder's own folder (`this_dir`)."""
    if node.type == "identifier" and depth > 0:
        value = assignment(parsing.text(node), node)
        return _walked_path(value, value, depth - 1) if value is not None else None
    if node.type == "call" and is_join(node) and depth > 0:
        arguments = node.child_by_field_name("arguments")
        parts = []
        for index, argument in enumerate(arguments.named_children if arguments is not None else []):
            value = _walked_path(argument, at, depth - 1)
            if value is None:
                if index == 0:
                    continue
                break
            parts.append(value.strip("/"))
        return "/".join(p for p in parts if p not in ("", "."))
    return path_value(node, at)


def within_root(path: PurePosixPath) -> str | None:
    """`path` with its `..` steps taken ("." for the root), or None where they climb above the project's root."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts) or "."


def _folder(value: str | None) -> str:
    """The folder a walked path names: the part before its first wildcard segment; UNKNOWN when unread."""
    if not value:
        return UNKNOWN
    parts = []
    for part in value.split("/"):
        if any(w in part for w in WILDCARDS):
            break
        if part not in ("", "."):
            parts.append(part)
    return "/".join(parts) or UNKNOWN
