"""Module-level functions that JIT-build an extension (`torch.utils.cpp_extension.load(...)`) and that the file calls
only in comments: the project unhooked them, so the extension they build is never built.

FunASR's rwkv_attention.py defines `load_encoder_wkv_kernel(context_size)`, whose body runs `wkv_kernel_encoder =
load(name=..., sources=[f"{module_dir}/cuda_encoder/wkv_op.cpp", ...])`; its one call is the comment line
`# load_encoder_wkv_kernel(context_size)` (round 25 B1 C1, B2 C1). A comment is never a call: the function is a
candidate when
- it is a module-level, undecorated function (a decorator may register it) whose body calls `load`/`load_inline`
  in a file that names `cpp_extension`;
- no identifier and no string of the file's code outside its own body names it (a call, a reference passed on, an
  `__all__` entry, a registry string);
- a comment of the file writes it as a call (`# name(...)`): the project took the call out.
The project pass (analyzer/context/unhooked_loaders.py) keeps those no other file names at all, and makes the
function and the native sources only such functions name `optional`. Each candidate carries the source refs every
naming string of which lies in candidates' bodies, and the module-level autograd Functions (`class
WKVLinearAttention(torch.autograd.Function)`) that read a kernel handle only the candidate sets: a module global bound
at the top level to None alone and rebound only in the candidate (`global wkv_kernel_encoder`), so it stays None:
(name, first line, last line, refs, ((Function, first line, last line), ...)).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit
from tree_sitter import Node

LOADERS = frozenset({"load", "load_inline"})


Loader = tuple[str, int, int, tuple[str, ...], tuple[tuple[str, int, int], ...]]


def unhooked_loaders(unit: Unit, ref_starts: dict[str, list[int]]) -> list[Loader]:
    """The file's extension-building functions it calls only in comments. `ref_starts`: each native source ref the
    file's strings name → the start bytes of the strings naming it."""
    text = unit.source.text
    if "cpp_extension" not in text or "#" not in text:
        return []
    root = unit.tree()
    candidates: list[tuple[str, Node]] = []
    for statement in root.named_children:
        if statement.type != "function_definition":
            continue
        name = statement.child_by_field_name("name")
        if name is not None and _calls_loader(statement):
            candidates.append((parsing.text(name), statement))
    if not candidates:
        return []
    names = {name for name, _ in candidates}
    live: set[str] = set()
    commented: set[str] = set()
    scan_names(root, names, {(node.start_byte, node.end_byte): name for name, node in candidates}, live, commented)
    kept = [(name, node) for name, node in candidates if name not in live and name in commented]
    if not kept:
        return []
    spans = [(node.start_byte, node.end_byte) for _, node in kept]
    result = []
    for name, node in kept:
        refs = tuple(sorted(ref for ref, starts in ref_starts.items()
                            if any(node.start_byte <= s < node.end_byte for s in starts)
                            and all(any(a <= s < b for a, b in spans) for s in starts)))
        users = _handle_users(root, node)
        result.append((name, node.start_point.row + 1, node.end_point.row + 1, refs, users))
    return result


def _handle_users(root: Node, loader: Node) -> tuple[tuple[str, int, int], ...]:
    """The module-level autograd Functions reading a global that only `loader` binds beyond a top-level `= None`."""
    handles = {parsing.text(name) for statement in _walk(loader.child_by_field_name("body"))
               if statement.type == "global_statement" for name in statement.named_children if name.type == "identifier"}
    if not handles:
        return ()
    for statement in root.named_children:  # bound at the top level to anything but None: a live handle
        if statement.type == "expression_statement" and statement.named_children \
                and statement.named_children[0].type == "assignment":
            assignment = statement.named_children[0]
            left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
            if left is not None and parsing.text(left) in handles and (right is None or right.type != "none"):
                handles.discard(parsing.text(left))
        elif statement.type in {"function_definition", "class_definition", "decorated_definition"} \
                and statement != loader:
            rebound = {parsing.text(name) for node in _walk(statement.child_by_field_name("body"))
                       if node.type == "global_statement" for name in node.named_children}
            handles -= rebound  # another definition binds it too
    if not handles:
        return ()
    users = []
    for statement in root.named_children:
        if statement.type != "class_definition":
            continue
        bases = statement.child_by_field_name("superclasses")
        if bases is None or not any(parsing.text(base).rsplit(".", 1)[-1] == "Function" for base in bases.named_children):
            continue
        if any(node.type == "identifier" and parsing.text(node) in handles for node in _walk(statement)):
            name = statement.child_by_field_name("name")
            users.append((parsing.text(name), statement.start_point.row + 1, statement.end_point.row + 1))
    return tuple(users)


def _walk(node: Node | None):
    stack = [node] if node is not None else []
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.named_children)


def _calls_loader(definition: Node) -> bool:
    stack = [definition.child_by_field_name("body")]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.type == "call":
            function = node.child_by_field_name("function")
            if function is not None and parsing.text(function).rsplit(".", 1)[-1] in LOADERS:
                return True
        stack.extend(node.named_children)
    return False


def scan_names(root: Node, names: set[str], owners: dict[tuple[int, int], str], live: set[str], commented: set[str]) -> None:
    """Fill `live` with the names an identifier or a string of the code writes outside the named function's own
    definition, and `commented` with those a comment writes as a call (`name(`)."""
    stack: list[tuple[Node, str | None]] = [(root, None)]
    while stack:
        node, inside = stack.pop()
        kind = node.type
        if kind == "comment":
            body = parsing.text(node)
            commented.update(name for name in names if f"{name}(" in body)
            continue
        if kind == "identifier":
            word = parsing.text(node)
            if word in names and word != inside:
                live.add(word)
            continue
        if kind == "string_content":
            body = parsing.text(node)
            live.update(name for name in names if name != inside and name in body)
            continue
        owner = owners.get((node.start_byte, node.end_byte), inside) if kind == "function_definition" else inside
        stack.extend((child, owner) for child in node.children)
