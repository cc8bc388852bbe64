"""Uses of torch APIs that the target torch (or the torchvision/torchaudio paired with it) no longer has (DEP050), or
runs on a library the environment must now provide (DEP053: torchaudio.load/save through TorchCodec from 2.9): moving to Ascend moves a project to the torch of
its torch_npu release, so code written for torch 1.x that imports `torch._six` or calls `torch.solve` stops there, on
CUDA as on the NPU. Which APIs, the release that removed each and its replacement are data
(knowledge/dependencies/removed_torch_apis.toml); a use is reported only where the target's torch is at or above that
release.

A module's site is its import (`import torch._six`, `from torch._six import inf`, `from torch import _six`), or a
chain through `torch` (`torch._six.string_classes`) in a file with no such import; a function's site is each use of
the name. Code that already copes is no site: an import a `try` guards with an ImportError handler (the replacement
as fallback), or code under a test of the torch version (`if TORCH_VERSION < (2, 0):`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import bilingual
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference, unit_references
from ascend_feasibility.knowledge import availability, load_knowledge, load_removed_torch_apis
from ascend_feasibility.knowledge.models import RemovedApiPin, RemovedTorchApi
from packaging.version import Version
from tree_sitter import Node

DETECTOR = "removed-torch-api"
BACKEND_DETECTOR = "api-on-new-backend"  # kind "backend": the call runs on a library the environment must add (DEP053)
# what an except clause must name to catch a failed import (a bare `except:` catches it too)
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
VERSION_WORD = "version"  # a test of the torch version: an identifier or attribute spelling it (`__version__`)
MAX_DEPTH = 40
RELEASE_PARTS = 3  # a release as `__version__` spells it: major.minor.patch

QUERY = r"""
(import_statement) @removed_import
(import_from_statement) @removed_import
"""


def api_package(name: str) -> str:
    """The package whose releases `removed_in` counts: the qualified name's first part (torch, torchvision)."""
    return name.split(".", 1)[0]


def target_version(package: str, torch_version: str) -> str | None:
    """The version of `package` at the target, as its `__version__` spells it (major.minor.patch): torch's own, or
    the companion release paired with that torch (the catalog's torch_pairs: torchvision 0.27 for torch 2.12, read
    as 0.27.0); None where the catalog pairs none."""
    if package == "torch":
        return torch_version
    record = load_knowledge().package(package)
    paired = record.torch_pairs.get(availability.torch_minor(torch_version)) if record is not None else None
    if not paired:
        return None
    parts = paired.split(".")
    return ".".join(parts + ["0"] * (RELEASE_PARTS - len(parts)))


def target_release(package: str, torch_version: str) -> Version | None:
    """The major.minor of `package` at the target (target_version's first two numbers)."""
    version = target_version(package, torch_version)
    return Version(availability.torch_minor(version)) if version else None


def _removed_at(package: str, removed_in: str, torch_version: str) -> bool:
    release = target_release(package, torch_version)
    return release is not None and Version(removed_in) <= release


def removed_apis(torch_version: str) -> dict[str, RemovedTorchApi]:
    """The table's rows removed at or before the target's release of their package (`torch_version`: the target's
    torch; a torchvision row against the torchvision paired with it), by name."""
    return {api.name: api for api in load_removed_torch_apis().api
            if _removed_at(api_package(api.name), api.removed_in, torch_version)}


def breaking_pins(package: str, torch_version: str) -> list[RemovedApiPin]:
    """The table's release ranges of `package` (a canonical distribution name) whose code imports an API removed at
    or before the target (`torch_version`: the target's torch): DEP052, for a declaration whose every release lies in
    one, or, where no release fixes it, one that admits the newest release."""
    return [pin for pin in load_removed_torch_apis().pin
            if pin.package == package and _removed_at(api_package(pin.api), pin.removed_in, torch_version)]


def pin_advice(pin: RemovedApiPin) -> str:
    """The finding's `{npu}`: what the release imports, which release removed it, the release to move to (or, where
    none fixes it, the way round)."""
    removed_by = f"{api_package(pin.api)} {pin.removed_in}"
    if pin.fixed_in is None and pin.workaround is not None:
        return bilingual(f"this version of {pin.package} imports {pin.api} ({pin.where}), which {removed_by} removed; "
                         f"no release up to {pin.latest} fixes it: {pin.workaround.en}",
                         f"该版本的 {pin.package} 导入了 {pin.api}（{pin.where}），而 {removed_by} 已将其移除；"
                         f"截至 {pin.latest} 没有修复它的版本：{pin.workaround.zh}")
    return bilingual(f"this version of {pin.package} imports {pin.api} ({pin.where}), which {removed_by} "
                     f"removed; upgrade {pin.package} to >= {pin.fixed_in}",
                     f"该版本的 {pin.package} 导入了 {pin.api}（{pin.where}），而 {removed_by} 已将其移除；"
                     f"请将 {pin.package} 升级到 >= {pin.fixed_in}")


SHORT_NAME = 5  # a shorter last part (`eig`) is inside common words (`weight`): its trigger spells how it is reached


def _trigger_words() -> tuple[str, ...]:
    words = set()
    for api in load_removed_torch_apis().api:
        last = api.name.rsplit(".", 1)[-1]
        package = api_package(api.name)
        if len(last) >= SHORT_NAME:
            words.add(last)
        elif package != "torch":  # `torchaudio.load`: `.load` is in nearly every file (torch.load, json.load); a
            # file using it names its package (`import torchaudio`, `from torchaudio import load`)
            words.add(package)
        else:
            words.update({f".{last}", f"import {last}", f", {last}"})
    return tuple(sorted(words))


def imported_modules(statement: Node) -> list[str]:
    """The qualified modules an import statement loads: `import a.b as c` -> a.b; `from a import b` -> a and a.b
    (b may be a module); `from a.b import c` -> a.b and a.b.c."""
    if statement.type == "import_statement":
        names = [child.child_by_field_name("name") if child.type == "aliased_import" else child
                 for child in statement.named_children]
        return [parsing.text(name) for name in names if name is not None and name.type == "dotted_name"]
    module = statement.child_by_field_name("module_name")
    if module is None or module.type != "dotted_name":  # a relative import names the project's own module
        return []
    base = parsing.text(module)
    result = [base]
    for child in statement.children_by_field_name("name"):
        name = child.child_by_field_name("name") if child.type == "aliased_import" else child
        if name is not None:
            result.append(f"{base}.{parsing.text(name)}")
    return result


def copes(node: Node) -> bool:
    """Is `node` in code that already copes with the removal: the body of a try whose handler catches the import's
    failure, or a branch of an if whose condition tests a version?"""
    child, current, depth = node, node.parent, 0
    while current is not None and depth < MAX_DEPTH:
        if current.type == "try_statement" and child.type == "block" and _catches_import_error(current):
            return True
        if current.type in {"if_statement", "elif_clause", "else_clause"} and _tests_version(current):
            return True
        if current.type == "module":
            return False
        child, current, depth = current, current.parent, depth + 1
    return False


def _catches_import_error(statement: Node) -> bool:
    for clause in statement.named_children:
        if clause.type != "except_clause":
            continue
        caught = [part for part in clause.named_children if part.type != "block"]
        if not caught:
            return True  # a bare except
        words = {parsing.text(n).rsplit(".", 1)[-1] for part in caught for n in _names(part)}
        if words & IMPORT_ERRORS:
            return True
    return False


def _tests_version(branch: Node) -> bool:
    statement = branch.parent if branch.type in {"elif_clause", "else_clause"} else branch
    clauses = [statement] + [c for c in statement.named_children if c.type == "elif_clause"]
    for clause in clauses:
        condition = clause.child_by_field_name("condition")
        if condition is not None and any(VERSION_WORD in parsing.text(n).lower() for n in _names(condition)):
            return True
    return False


def _names(node: Node) -> list[Node]:
    """The identifiers under `node` (a bounded walk)."""
    found, stack = [], [node]
    while stack and len(found) < 64:
        current = stack.pop()
        if current.type == "identifier":
            found.append(current)
        stack.extend(current.named_children)
    return found


class _RemovedApiScan(PythonScan):
    QUERY = QUERY
    apis: dict[str, RemovedTorchApi] = {}

    def run(self):
        if not self.apis:
            return self.hits
        imported: set[str] = set()
        for statement in self.captures().get("removed_import", []):
            for module in imported_modules(statement):
                api = self.apis.get(module)
                if api is not None and api.kind == "module" and module not in imported and not copes(statement):
                    imported.add(module)
                    self.report(api, statement)
        for reference in unit_references(self.unit):
            api = self._api_of(reference)
            if api is not None and (api.kind != "module" or api.name not in imported) and not copes(reference.node):
                if api.kind == "module":
                    imported.add(api.name)  # one site per file for a module: its import, or its first chain
                self.report(api, reference.node)
        return self.hits

    def _api_of(self, reference: Reference) -> RemovedTorchApi | None:
        api = self.apis.get(reference.name)
        if api is not None and api.kind != "module":
            return api
        for name, row in self.apis.items():
            if row.kind == "module" and reference.name.startswith(name + "."):
                return row
        return None

    def report(self, api: RemovedTorchApi, node: Node) -> None:
        removed_by = f"{api_package(api.name)} {api.removed_in}"
        if api.kind == "backend":
            self.hit(BACKEND_DETECTOR, api.name, node, npu=bilingual(
                f"from {removed_by} on it runs through TorchCodec; {api.replacement.en}",
                f"自 {removed_by} 起它经由 TorchCodec 运行；{api.replacement.zh}"))
            return
        self.hit(DETECTOR, api.name, node, npu=bilingual(f"{removed_by} removed it; use {api.replacement.en}",
                                                         f"{removed_by} 已移除它；改用 {api.replacement.zh}"))


class RemovedTorchApiScanner(PythonDomainScanner):
    domain = "dependencies"
    triggers = _trigger_words()
    scan_class = _RemovedApiScan

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.apis = removed_apis(target.release.torch)

    def scan(self, unit):
        scan = _RemovedApiScan(self.index, unit)
        scan.apis = self.apis
        return scan.run()
