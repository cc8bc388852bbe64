"""Whether a run-time build (`torch.utils.cpp_extension.load(...)`) compiles host C++ only: every source it names,
in its `sources=` list or in the same-module function or method that list comes from (YOLOX's
`load(name=..., sources=self.sources())`, `def sources(self): return glob.glob(os.path.join(..., "*.cpp"))`), is a
C/C++ file, none a CUDA one, and the call does not ask for CUDA (`with_cuda=True`). Such an extension builds with the
host compiler on an Ascend host as it does elsewhere: it is no NPU blocker."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

HOST_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".c++")
CUDA_SUFFIXES = (".cu", ".cuh")


def builds_host_only(call: Node, sources: Node | None, listed: list[str]) -> bool:
    """True where the sources are known and all host C/C++; False where any is CUDA or none is known."""
    with_cuda = parsing.keywords(call).get("with_cuda")
    if with_cuda is not None and parsing.text(with_cuda) != "False":
        return False
    names = listed or _named_sources(sources)
    return bool(names) and all(name.endswith(HOST_SUFFIXES) for name in names)


def _named_sources(sources: Node | None) -> list[str]:
    """The source-file strings of the function or method a `sources=` call returns from (`self.sources()`,
    `get_sources()`), every same-named definition of the module counted (a base class's and its subclasses')."""
    if sources is None or sources.type != "call":
        return []
    function = sources.child_by_field_name("function")
    if function is None or function.type not in {"identifier", "attribute"}:
        return []
    if function.type == "attribute":
        owner = function.child_by_field_name("object")
        if owner is None or parsing.text(owner) not in {"self", "cls"}:
            return []
        function = function.child_by_field_name("attribute")
    name = parsing.text(function)
    names: list[str] = []
    for node in parsing.walk(parsing.root_of(sources)):
        if node.type == "function_definition" and parsing.text(node.child_by_field_name("name")) == name:
            names.extend(_file_strings(node))
    return names


def _file_strings(definition: Node) -> list[str]:
    """The strings in a definition that name a C/C++ or CUDA source file or pattern (`"*.cpp"`, `"nms_kernel.cu"`)."""
    found = []
    for node in parsing.walk(definition):
        if node.type == "string" and not any(c.type == "interpolation" for c in node.named_children):
            value = "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")
            if value.endswith(HOST_SUFFIXES + CUDA_SUFFIXES):
                found.append(value)
    return found
