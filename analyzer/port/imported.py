"""Functions and classes a file imports from another module of the project, and the findings the port leaves in them.

A guarded branch that selects such a function (open_lm's model.py: `from open_lm.attention import xformers_attn`,
then `xformers_attn if torch.cuda.is_available() else torch_attn`) would run that function on NPU once the test is
widened; when the function keeps a finding the port does not rewrite (an xformers call), the test is held, as for a
function of the same file (core.Guarded). An import is resolved to a file of the report: `from pkg.mod import f` to
pkg/mod.py or pkg/mod/__init__.py (from the root or below a source folder such as src/), `from .mod import f` from
the importing file's folder. A name the module re-exports from elsewhere is not followed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.core.models import Finding


class ImportedDefinitions:
    """`kept`: per file, the findings the port leaves as they are; `load(path)`: (data, tree) or a reason."""

    def __init__(self, root: Path, kept: dict[str, list[Finding]], load: Callable[[Path, str], object]) -> None:
        self.root, self.kept, self.load = root, kept, load
        self._ranges: dict[str, dict[str, tuple[int, int]] | None] = {}

    def kept_in(self, importer: str, module: str, name: str) -> Finding | None:
        """The first finding the port keeps in the module-level function or class `name` of `module` (as written
        after `from`, dots included) imported by the file `importer`; None when there is none or it cannot be told."""
        path = self._resolve(importer, module)
        if path is None:
            return None
        ranges = self._definitions(path)
        span = ranges.get(name) if ranges else None
        if span is None:
            return None
        return next((f for f in sorted(self.kept[path], key=lambda f: f.line) if span[0] <= f.line <= span[1]), None)

    def ported(self, importer: str, module: str, name: str) -> bool:
        """Is `name` a module-level function or class of the project file `module` resolves to, in which the port
        leaves no finding? False when it cannot be told (not a project file, no such definition)."""
        path = self._resolve(importer, module)
        span = (self._definitions(path) or {}).get(name) if path is not None else None
        return span is not None and not any(span[0] <= f.line <= span[1] for f in self.kept[path])

    def _resolve(self, importer: str, module: str) -> str | None:
        level = len(module) - len(module.lstrip("."))
        parts = [p for p in module[level:].split(".") if p]
        if level:
            base = PurePosixPath(importer).parent
            for _ in range(level - 1):
                base = base.parent
            stem = str(PurePosixPath(base, *parts)) if parts else str(base)
            candidates = [f"{stem}.py", f"{stem}/__init__.py"]
            return next((c.removeprefix("./") for c in candidates if c.removeprefix("./") in self.kept), None)
        if not parts:
            return None
        stem = "/".join(parts)
        for suffix in (f"{stem}.py", f"{stem}/__init__.py"):
            found = sorted(p for p in self.kept if p == suffix or p.endswith("/" + suffix))
            if len(found) == 1:  # two copies: which one Python imports depends on the path
                return found[0]
        return None

    def _definitions(self, path: str) -> dict[str, tuple[int, int]] | None:
        if path not in self._ranges:
            loaded = self.load(self.root, path)
            self._ranges[path] = None if isinstance(loaded, str) else _module_definitions(loaded[0], loaded[1])
        return self._ranges[path]


def _module_definitions(data: bytes, tree) -> dict[str, tuple[int, int]]:
    """name → (first line, last line) of the module-level functions and classes (decorators included)."""
    found = {}
    for child in tree.named_children:
        node = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if node is not None and node.type in {"function_definition", "class_definition"}:
            name = node.child_by_field_name("name")
            if name is not None:
                found[data[name.start_byte:name.end_byte].decode("utf-8", "replace")] = (
                    child.start_point.row + 1, child.end_point.row + 1)
    return found
