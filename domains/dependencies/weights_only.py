"""`torch.load(...)` without `weights_only=` (DEP051): torch 2.6 flipped its default to True, so a checkpoint that
pickles anything but tensors, containers and primitives (an argparse Namespace, a numpy scalar, a config object)
raises UnpicklingError on the torch the move to Ascend brings, on CUDA as on the NPU. Reported where the target's
torch is 2.6 or later; one project-level finding lists the sites (checking the project's checkpoints is one piece of
work).

No site: a call that passes `weights_only` (either value), a `pickle_module` (torch then keeps weights_only off) or
`**kwargs` that may carry it; and a load the code proves to be a plain state dict, which loads under weights_only=True:
the call is the argument of a `load_state_dict(...)` call, or the name it is assigned to is read only as such an
argument.

A site where the code reads an object out of what it loaded (an attribute that is no mapping or tensor method:
`ckpt.args`, `ckpt["args"].lr`, `config = ckpt["config"]; config.hidden`, or the loaded object called as a module)
shows a pickled object that weights_only=True refuses: it counts. Elsewhere the checkpoint may hold only tensors and
plain containers, which load as they are: the site is reported for a check (facet `unproven`), not counted.

A project whose torch requirement admits only 2.6 or later (every line that governs the file and names a version:
`torch>=2.6`, `torch==2.7.1`) already runs with the new default and chose its loads under it: no finding there
(`on_old_torch`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.governing import admit_only_from, governing
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference, unit_references
from ascend_feasibility.knowledge import availability
from packaging.version import Version
from tree_sitter import Node

DETECTOR = "torch-load-weights-only-default"
LOAD = "torch.load"
FLIPPED_IN = Version("2.6")
TORCH = "torch"
GIT = "git+"  # pytorch/pytorch#137602: torch.load defaults to weights_only=True from 2.6
SETTING_KEYWORDS = frozenset({"weights_only", "pickle_module"})
STATE_DICT_LOADER = "load_state_dict"
MAX_READS = 200
UNPROVEN = "unproven"
# attributes a dict of tensors and primitives has too: reading them shows no pickled object
PLAIN_ATTRIBUTES = frozenset({
    "keys", "items", "values", "get", "pop", "update", "copy", "setdefault", "clear",
    "to", "cpu", "cuda", "float", "half", "double", "bfloat16", "long", "int", "bool", "item", "numpy", "tolist",
    "size", "shape", "dtype", "device", "numel", "dim", "ndim", "detach", "clone", "contiguous", "view", "reshape",
    "squeeze", "unsqueeze", "type", "t", "T", "sum", "mean", "max", "min", "norm", "is_cuda", "requires_grad_",
})


def on_old_torch(findings: list[Finding], declarations: list[Declaration], rule: str) -> list[Finding]:
    """`findings` less the `rule` (DEP051) findings of files whose governing torch requirement admits only releases
    from the flip on: the project already lives with weights_only=True, the port changes nothing there."""
    return [f for f in findings if f.rule != rule or not _on_new_torch(governing(declarations, TORCH, f.path))]


def _on_new_torch(lines: list[Declaration]) -> bool:
    """Do the torch lines that name a version (a specifier or a git URL) all admit only releases from the flip on? A
    bare `torch` beside them (Megatron-LM's build requirement and install scripts beside its `torch>=2.6.0`) installs
    the newest release, which is past the flip too; with no line naming a version the project's torch is unknown."""
    versioned = [line for line in lines if line.specifier or GIT in line.text]
    return admit_only_from(versioned, str(FLIPPED_IN))


def needs_weights_only(call: Node) -> bool:
    """Does this `torch.load(...)` call leave weights_only to the default, on an object not proven a state dict?"""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return False
    for argument in arguments.named_children:
        if argument.type == "dictionary_splat":
            return False
        if argument.type == "keyword_argument" and parsing.text(argument.child_by_field_name("name")) in SETTING_KEYWORDS:
            return False
    return not loads_a_state_dict(call)


def loads_a_state_dict(call: Node) -> bool:
    if _state_dict_argument(call):
        return True
    reads = _reads_of_binding(call)
    return bool(reads) and all(_state_dict_argument(node) for node in reads)


def reads_an_object(call: Node) -> bool:
    """Does the code read a pickled object out of what this call loads (see the module's docstring)?"""
    reads = _reads_of_binding(call)
    holders = [call] if reads is None else reads + [
        name for read in reads for name in _reads_of_binding(_item_of(read)) or []]
    return any(_object_use(node) for node in holders)


def _object_use(node: Node) -> bool:
    """`node.attr` with attr no plain attribute, `node[...].attr` alike, or `node(...)`."""
    parent = node.parent
    if parent is not None and parent.type == "subscript" and parent.child_by_field_name("value") == node:
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "attribute" and parent.child_by_field_name("object") == node:
        return parsing.text(parent.child_by_field_name("attribute")) not in PLAIN_ATTRIBUTES
    return parent.type == "call" and parent.child_by_field_name("function") == node


def _item_of(read: Node) -> Node | None:
    """`ckpt["config"]` for the read `ckpt` in it, else None."""
    item = read.parent
    return item if item is not None and item.type == "subscript" and item.child_by_field_name("value") == read else None


def _reads_of_binding(value: Node | None) -> list[Node] | None:
    """The reads of the plain name `value` is assigned to (`ckpt = torch.load(...)`, `config = ckpt["config"]`) in
    its function or module; None where `value` is not the right side of an assignment to a plain name."""
    assignment = parsing.assignment_of(value) if value is not None else None
    bound = parsing.named_binding(assignment) if assignment is not None else None
    if bound is None or bound[1] is None:
        return None
    name, scope = bound
    target = assignment.child_by_field_name("left")
    return [node for node in _identifiers(scope, name) if node.id != target.id]


def _state_dict_argument(node: Node) -> bool:
    """Is `node` a positional argument of a `….load_state_dict(...)` call?"""
    arguments = node.parent
    if arguments is None or arguments.type != "argument_list":
        return False
    call = arguments.parent
    function = call.child_by_field_name("function") if call is not None else None
    if function is None:
        return False
    attribute = function.child_by_field_name("attribute") if function.type == "attribute" else function
    return attribute is not None and parsing.text(attribute) == STATE_DICT_LOADER


def _identifiers(scope: Node, name: str) -> list[Node]:
    found, stack = [], [scope]
    while stack and len(found) < MAX_READS:
        current = stack.pop()
        if current.type == "identifier" and parsing.text(current) == name:
            found.append(current)
        stack.extend(current.named_children)
    return found


class _WeightsOnlyScan(PythonScan):
    def on_reference(self, reference: Reference) -> None:
        pass

    def run(self):
        for reference in unit_references(self.unit):
            if reference.name == LOAD and reference.call is not None \
                    and reference.call.child_by_field_name("function") == reference.node \
                    and needs_weights_only(reference.call):
                facets = () if reads_an_object(reference.call) else (UNPROVEN,)
                self.hit(DETECTOR, LOAD, reference.call, facets=facets)
        return self.hits


class WeightsOnlyScanner(PythonDomainScanner):
    domain = "dependencies"
    triggers = ("load",)
    scan_class = _WeightsOnlyScan

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.active = Version(availability.torch_minor(target.release.torch)) >= FLIPPED_IN

    def scan(self, unit):
        return _WeightsOnlyScan(self.index, unit).run() if self.active and _may_load(unit) else []


def _may_load(unit) -> bool:
    """Can the unit hold a `torch.load` reference? Its chain's root resolves to `torch` or `torch.load`, through the
    implicit root `torch` or an import of torch, each spelling the word in the unit, or in an earlier cell of a
    notebook whose cells share their imports. A unit without it holds none, and its references (built here first in
    most units of a large tree) are left to the scans that need them."""
    return unit.shared_imports is not None or TORCH in unit.source.text
