"""A CUDA availability check that chooses between a CUDA-only library's path and a portable one.

`xformers_attn if torch.cuda.is_available() else torch_attn` (open_lm's default attention): on an Ascend host without
transfer_to_npu the check is False and the portable arm runs, which works; with transfer_to_npu, the route DEV104
calls the handling, the check is True and selects the xformers path, which has no NPU build, so every run breaks
there. A native port that turns the check into torch.npu.is_available() does the same. DEV104's "skipped there" does
not say this: the check gets its own rule (DEV156, medium, manual), which subsumes DEV104 on its line.

The true arm (an if statement's consequence, a conditional expression's value when true) selects a CUDA-only path
where it names or calls a function or class of the file whose body uses a package that exists only for NVIDIA GPUs
(conventions.toml `cuda_only_packages`), or an imported function named after such a package (`xformers_attn`). The
false arm (an `else`, the conditional's other value) must exist and select none: then the choice is the hazard."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.selected_definitions import module_definitions, named_definitions
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.device.rng_state import CHECKS, guarded_body
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, unit_references
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

PACKAGES = tuple(load_context_conventions().guards.cuda_only_packages)
MAX_NODES = 2_000  # the walk over one arm


def other_arm(body: Node) -> Node | None:
    """What runs when the check is False: the conditional expression's other value, or the if statement's `else`
    (None for an `elif` chain or no else: then the choice is not between two paths)."""
    parent = body.parent
    if parent is None:
        return None
    if parent.type == "conditional_expression":
        return parent.named_children[2]
    holder = parent if parent.type == "if_statement" else None
    if holder is None:
        return None
    alternatives = holder.children_by_field_name("alternative")
    if len(alternatives) != 1 or alternatives[0].type != "else_clause":
        return None
    return alternatives[0].child_by_field_name("body")


class _LibraryChoiceScan(PythonScan):
    def run(self) -> list[Hit]:
        if "is_available" not in self.unit.source.text:
            return self.hits
        found = unit_references(self.unit)
        checks = [r for r in found if r.name in CHECKS and r.call is not None]
        if not checks:
            return self.hits
        definitions = module_definitions(self.unit.tree())
        cuda_only = {r.node.start_byte for r in found if r.name.split(".")[0] in PACKAGES}
        for check in checks:
            body = guarded_body(check.call)
            other = other_arm(body) if body is not None else None
            if other is None:
                continue
            chosen = self._cuda_only_paths(body, definitions, cuda_only)
            if chosen and not self._cuda_only_paths(other, definitions, cuda_only):
                portable = [name for name, _ in named_definitions(other, definitions)] or [parsing.text(other)]
                symbol = f"{chosen[0]} if {check.name}() else {portable[0]}"
                self.hit("cuda-check-selects-cuda-only-library", symbol, check.node)
        return self.hits

    def _cuda_only_paths(self, arm: Node, definitions: dict[str, Node], cuda_only: set[int]) -> list[str]:
        """The names of the CUDA-only functions or classes `arm` selects."""
        chosen = [name for name, definition in named_definitions(arm, definitions)
                  if any(definition.start_byte <= start < definition.end_byte for start in cuda_only)]
        for node in parsing.walk(arm, limit=MAX_NODES):
            if node.type == "identifier" and parsing.text(node) not in definitions:
                name = qualified_name(node, self.imports)
                if name is not None and "." in name and _named_after_package(name.rsplit(".", 1)[1]):
                    chosen.append(parsing.text(node))
        return chosen


def _named_after_package(name: str) -> bool:
    """`xformers_attn`, `flash_attn_forward`: the package's name is a run of the name's `_`-separated words."""
    words = name.lower().split("_")
    for package in PACKAGES:
        run = package.split("_")
        if any(words[i:i + len(run)] == run for i in range(len(words) - len(run) + 1)):
            return True
    return False


class LibraryChoiceScanner(PythonDomainScanner):
    domain = "device"
    triggers = PACKAGES
    scan_class = _LibraryChoiceScan
