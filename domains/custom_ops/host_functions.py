"""Functions of a native file that are host code: no kernel, no CUDA API, nothing that may launch one.

Pointcept's pointgroup_ops binds `ballquery_batch_p`, which takes the CUDA stream and calls `ballquery_batch_p_cuda`
(a launcher in bfs_cluster_kernel.cu), beside `bfs_cluster`, a BFS over `.data<int>()` pointers of `.cpu()` tensors
(bfs_cluster.cpp:118-137; round 39 B2 row 40). On Ascend the first needs an NPU route; the second only a build
without CUDA headers. A function is host code when neither its body nor a function of the file it names (the file's
function mentions, native.py) writes a word holding `cuda`, names a kernel or a launcher of the file, or names a
function the file declares and does not define (a launcher linked from a .cu file). Read from the words, so a comment
saying "cuda" keeps a function off the list. A file that includes a header of its own (`#include "ops.h"`) may call
what that header declares: it gives none."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.written_names import NAME_BYTES
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

LIBRARY_HEADERS = ("torch/", "ATen/", "c10/", "pybind11/")  # quoted includes of torch's own headers declare no launcher


def host_functions(root: Node, data: bytes, mentions: list[tuple[str, int, int, list[str]]], kernels: set[str],
                   launchers: set[str]) -> set[str]:
    """The names of the file's functions that are host code (see the module's text)."""
    declared: set[str] = set()
    for node in root.named_children:
        if node.type == "preproc_include":
            path = node.child_by_field_name("path")
            if path is not None and path.type == "string_literal" \
                    and not parsing.text(path).strip('"').startswith(LIBRARY_HEADERS):
                return set()
        elif node.type == "declaration":
            declarator = node.child_by_field_name("declarator")
            while declarator is not None and declarator.type in {"pointer_declarator", "reference_declarator"}:
                declarator = declarator.child_by_field_name("declarator")
            if declarator is not None and declarator.type == "function_declarator":
                name = declarator.child_by_field_name("declarator")
                if name is not None:
                    declared.add(parsing.text(name).split("::")[-1])
    defined = {name for name, _, _, _ in mentions if name}
    device_names = kernels | launchers | (declared - defined)
    lines = data.split(b"\n")
    direct: dict[str, bool] = {}
    for name, first, last, _ in mentions:
        if not name:
            continue
        words = {word.decode("utf-8", "replace") for word in b"\n".join(lines[first - 1:last]).translate(NAME_BYTES).split()}
        device = name in device_names or any("cuda" in word.lower() for word in words) or bool(words & (device_names - {name}))
        direct[name] = direct.get(name, False) or device
    named = {name: set(called) for name, _, _, called in mentions if name}
    host: set[str] = set()
    for name in direct:
        seen, stack = {name}, [name]
        while stack:
            current = stack.pop()
            if direct.get(current, True):
                break
            for other in named.get(current, ()):
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        else:
            host.add(name)
    return host
