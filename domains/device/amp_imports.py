"""The import line of CUDA AMP names: `from torch.cuda.amp import autocast, GradScaler` (and `import
torch.cuda.amp as amp`). Their uses are torch.cuda findings (DEV140-142); a port changes this line too.

The symbol is the first name the line imports that the file uses (`torch.cuda.amp.autocast`), so that the line is
automatic exactly where transfer_to_npu redirects that name; a module import has the module as its symbol.

The line may name the internal module a public name is defined in (`from torch.cuda.amp.grad_scaler import
GradScaler`, knowledge: torch_cuda_api.toml `defined_in`): the same object, redirected where the public name is.

A line none of whose names the file uses is no port item: the import itself works on a CPU or NPU torch (a deprecated
alias), and a port that never names the binding changes nothing by editing it (MiniGPT-4 imports `autocast` and
autocasts through `self.maybe_autocast()`). A name is used when the file writes it again outside the import lines,
the type annotations and the names of its own `def`s and `class`es (FunASR's fallback `def autocast` under the
version test's else arm binds the name; it uses nothing) (`grad_scaler: Optional[GradScaler] = None` builds nothing: the object is made, and reported,
where it is called), lists it in `__all__`, or is a package `__init__.py` (whose imports are its public names)."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.unpassed_defaults import exported_names
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit, Unit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from tree_sitter import Node

QUERY = r"""
(import_from_statement module_name: (dotted_name) @amp_module)
(import_statement name: (aliased_import name: (dotted_name) @amp_module))
"""

CUDA_AMP = "torch.cuda.amp"
AMP_DECORATORS = frozenset({"custom_fwd", "custom_bwd"})  # torch.amp has both since torch 2.4, device_type required
# A decorator without cast_inputs casts nothing: custom_fwd records the forward's autocast state and custom_bwd runs
# the backward under it (torch/amp/autocast_mode.py); torch_npu's are torch.amp's with device_type="npu"
# (Ascend/pytorch v2.12.0-26.1.0 torch_npu/npu/amp/autocast_mode.py), which transfer_to_npu puts in torch.cuda.amp.
BARE_DECORATOR = "bare"
CAST_INPUTS = "cast_inputs"
IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
NOT_USES = IMPORTS | {"type"}  # tree-sitter's `type`: a parameter's, a return's or an assignment's annotation
DEFINITIONS = frozenset({"function_definition", "class_definition"})


class _AmpImportScan(PythonScan):
    QUERY = QUERY
    QUERY_ALONE = True  # its trigger is rare, and it captures every import

    def run(self) -> list[Hit]:
        used: set[str] | bool | None = None  # read once, in the few files that import CUDA AMP
        modules = {CUDA_AMP} | self.index.kb.cuda_internal_modules()
        for module in self.captures().get("amp_module", []):
            name = "".join(parsing.text(module).split())
            if name not in modules:
                continue
            statement = module.parent
            if statement.type == "import_from_statement":
                bound = [(parsing.text(n.child_by_field_name("name") if n.type == "aliased_import" else n),
                          _bound_name(n)) for n in statement.children_by_field_name("name")]
            else:
                local = _bound_name(statement)
                statement = statement.parent
                uses = _alias_uses(self.unit.tree(), local)
                uncovered = [use for use in uses if not self.index.kb.cuda_redirected(f"{name}.{use}", self.target.profile)]
                if uses and uncovered:  # the rewrite, naming the uses transfer_to_npu leaves on CUDA
                    self.hit("torch-cuda-amp-import", f"{name}.{uncovered[0]}", statement,
                             npu=", ".join(f"{local}.{use}" for use in uncovered), facets=("module",))
                    continue
                bound = [(uses[0] if uses else "", local)]  # every use redirected: the line is as automatic as they
            listed = bound if statement.type == "import_from_statement" else [("", local)]
            if used is None:
                used = self._used_names()
            if bound and used is not True:
                bound = [(imported, local) for imported, local in bound if local in used]
                if not bound:
                    continue  # the file never names what the line binds
            imported = [n for n, _ in listed]
            if bound and bound[0][0]:
                name = f"{name}.{bound[0][0]}"
            if imported and set(imported) <= AMP_DECORATORS:  # the replacement names what the line imports
                names = ", ".join(n if n == local else f"{n} as {local}" for n, local in listed)
                facets = ("decorators", BARE_DECORATOR) if not passes_cast_inputs(self.unit.tree()) else ("decorators",)
                self.hit("torch-cuda-amp-import", name, statement, npu=f"from torch.amp import {names}",
                         facets=facets)
            else:
                self.hit("torch-cuda-amp-import", name, statement)
        return self.hits

    def _used_names(self) -> set[str] | bool:
        """The names the file writes outside its import lines and annotations and lists in `__all__`; True for a package's
        `__init__.py`, whose every import is public, and for a notebook cell, whose names later cells use."""
        if self.unit.cell is not None or PurePosixPath(self.unit.path).name == "__init__.py":
            return True
        root = self.unit.tree()
        names = {parsing.text(node) for node in parsing.walk(root, prune=NOT_USES, named=False)
                 if node.type == "identifier" and not _defined_name(node)}
        if "__all__" in names:
            names |= exported_names(root)
        return names


def bare_decorator(call: Node | None, reference: Node, root: Node) -> bool:
    """`@custom_fwd`, `@custom_fwd()` or `@custom_bwd`: the decorator passes no cast_inputs. A reference that is
    neither called nor a decorator (`custom_fwd = torch.cuda.amp.custom_fwd`) is bare where the file passes no
    cast_inputs anywhere."""
    if call is not None:
        arguments = call.child_by_field_name("arguments")
        return not any(_names_cast_inputs(a) for a in (arguments.named_children if arguments is not None else ()))
    if reference.parent is not None and reference.parent.type == "decorator":
        return True
    return not passes_cast_inputs(root)


def passes_cast_inputs(root: Node) -> bool:
    """Does the file pass `cast_inputs=` anywhere (a decorator that casts the forward's inputs)?"""
    return any(_names_cast_inputs(node) for node in parsing.walk(root))


def _names_cast_inputs(node: Node) -> bool:
    return node.type == "keyword_argument" and parsing.text(node.child_by_field_name("name")) == CAST_INPUTS


def _defined_name(node: Node) -> bool:
    """The name of a `def` or `class` (the fallback `def autocast(enabled=True)` beside a version-gated import): it
    binds the name, it uses nothing the import binds."""
    parent = node.parent
    return parent is not None and parent.type in DEFINITIONS and parent.child_by_field_name("name") == node


_ALIAS_USES = "(attribute object: (identifier) @object attribute: (identifier) @name)"


def _alias_uses(root: Node, local: str) -> list[str]:
    """The names the file reads through a module alias (`amp.GradScaler`, `amp.autocast` for `amp`), in order, once."""
    found = parsing.captures(parsing.query("python", _ALIAS_USES), root)
    return list(dict.fromkeys(parsing.text(n.parent.child_by_field_name("attribute")) for n in found.get("object", [])
                              if parsing.text(n) == local and n.parent.child_by_field_name("object") == n))


def _bound_name(node: Node) -> str:
    """The local name an imported name (`autocast`, `autocast as ac`) or module (`torch.cuda.amp as amp`) binds."""
    alias = node.child_by_field_name("alias") if node.type == "aliased_import" else None
    if alias is not None:
        return parsing.text(alias)
    return parsing.text(node).split(".")[0] if node.type == "dotted_name" else ""


class CudaAmpImportScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("torch.cuda.amp",)
    scan_class = _AmpImportScan

    def scan(self, unit: Unit) -> list[Hit]:
        scan = self.scan_class(self.index, unit)
        scan.target = self.target  # the release whose transfer_to_npu decides a module alias's uses
        return scan.run()
