"""A torch-family version read by slicing its string (DEP054): `float(torchvision.__version__[:3]) < 0.5` reads
torchvision 0.27.0 as 0.2, so on the torchvision the move to torch_npu brings (the one paired with the target's
torch) the test says "older than 0.5" and the code takes its branch for an ancient release, which imports names
removed long ago (Deformable-DETR util/misc.py, and the DETR forks that share it).

A site is a comparison one of whose sides is such a reading of `<package>.__version__` (torch, or a package the
catalog pairs with each torch: torchvision, torchaudio), possibly through `float(...)`/`int(...)`/`str(...)`, and
whose other side is a number or string literal: a prefix slice (`[:3]`, `[0:4]`) or one character (`[0]`, `[2]`,
read as the major or minor digit of an `M.m.p` string). It is reported only where it misreads the target: the
comparison, evaluated as Python does on the sliced text of the target's version, differs from the same comparison of
the version's release numbers (as many as the literal has) with the literal's, or the conversion raises. A reading
that splits on dots (`__version__.split('.')[1]`) or `packaging.version` is no site."""

from __future__ import annotations

import operator
from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import bilingual
from ascend_feasibility.domains.dependencies.removed_torch_apis import target_version
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference
from ascend_feasibility.knowledge import load_knowledge
from packaging.version import InvalidVersion, Version
from tree_sitter import Node

DETECTOR = "version-slice-misread"
VERSION_ATTRIBUTE = "__version__"
CONVERSIONS: dict[str, Callable[[str], object]] = {"float": float, "int": int, "str": str}
COMPARISONS: dict[str, Callable[[object, object], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}
MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
COMPONENT_WIDTH = 2  # `[2]` of an `M.m.p` string is the minor digit: a character index every two is a component


def versioned_packages() -> frozenset[str]:
    """torch, and the packages the catalog pairs a release line with each torch (torchvision, torchaudio)."""
    return frozenset({"torch"} | {record.name for record in load_knowledge().packages.values() if record.torch_pairs})


def _conversion_around(node: Node) -> Node | None:
    """The `float(node)`/`int(node)`/`str(node)` call whose one argument is `node`, if any."""
    arguments = node.parent
    if arguments is None or arguments.type != "argument_list" or arguments.named_child_count != 1:
        return None
    call = arguments.parent
    function = call.child_by_field_name("function") if call is not None else None
    if function is None or function.type != "identifier" or parsing.text(function) not in CONVERSIONS:
        return None
    return call


def sliced_reading(reference: Node) -> tuple[Node, Node] | None:
    """(the subscript, the outermost node of the reading) for `X.__version__[...]` (or `str(X.__version__)[...]`),
    optionally inside one conversion call (`float(...)`); None for any other use of the attribute."""
    value = _conversion_around(reference) or reference
    subscript = value.parent
    if subscript is None or subscript.type != "subscript" or subscript.child_by_field_name("value") != value:
        return None
    return subscript, _conversion_around(subscript) or subscript


def _index(subscript: Node) -> slice | int | None:
    """The subscript's literal index: `[:3]`/`[0:3]` -> slice(0, 3), `[0]` -> 0; None for anything else."""
    pieces = subscript.children_by_field_name("subscript")
    if len(pieces) != 1:
        return None
    piece = pieces[0]
    if piece.type == "integer":
        return int(parsing.text(piece))
    if piece.type != "slice":
        return None
    bounds = [child for child in piece.children if child.type != "comment"]
    texts = [parsing.text(child) for child in bounds]
    if len(texts) == 2 and texts[0] == ":" and bounds[1].type == "integer":
        return slice(0, int(texts[1]))
    if len(texts) == 3 and texts[1] == ":" and texts[0] == "0" and bounds[2].type == "integer":
        return slice(0, int(texts[2]))
    return None


def _literal(node: Node) -> tuple[object, str] | None:
    """A number or string literal's Python value and the version it spells."""
    if node.type in {"integer", "float"}:
        text = parsing.text(node)
        return (int(text) if node.type == "integer" else float(text)), text
    if node.type == "string" and not any(child.type == "interpolation" for child in node.named_children):
        content = "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")
        return content, content
    return None


def _release(text: str) -> tuple[int, ...] | None:
    try:
        return Version(text).release
    except InvalidVersion:
        return None


def misreading(index: slice | int, conversion: str | None, sign: str, literal: tuple[object, str],
               version: str) -> tuple[str, bool | None] | None:
    """(what the reading yields on `version`, the comparison `<reading> <sign> <literal>` there) where that differs
    from the same comparison of the version's release numbers, the verdict None where the conversion or comparison
    raises; None where both agree or the literal spells no version."""
    value, spelled = literal
    wanted = _release(spelled)
    actual = _release(version)
    if wanted is None or actual is None:
        return None
    text = version[index]
    if isinstance(index, int):
        if index % COMPONENT_WIDTH:
            return None  # a dot's position: no component
        meant = actual[index // COMPONENT_WIDTH: index // COMPONENT_WIDTH + len(wanted)]
    else:
        meant = actual[:len(wanted)]
    meant = meant + (0,) * (len(wanted) - len(meant))
    try:
        read = CONVERSIONS[conversion](text) if conversion else text
        verdict = COMPARISONS[sign](read, value)
    except (TypeError, ValueError):
        return repr(text), None
    return (repr(read), verdict) if verdict != COMPARISONS[sign](meant, wanted) else None


class _VersionSliceScan(PythonScan):
    versions: dict[str, str] = {}

    def on_reference(self, reference: Reference) -> None:
        package, _, attribute = reference.name.rpartition(".")
        if attribute != VERSION_ATTRIBUTE or package not in self.versions:
            return
        reading = sliced_reading(reference.node)
        if reading is None:
            return
        subscript, outer = reading
        index = _index(subscript)
        comparison = outer.parent
        if index is None or comparison is None or comparison.type != "comparison_operator":
            return
        sides = comparison.named_children
        signs = [parsing.text(child) for child in comparison.children if not child.is_named]
        if len(sides) != 2 or len(signs) != 1 or signs[0] not in COMPARISONS:
            return
        ours = 0 if sides[0] == outer else 1
        literal = _literal(sides[1 - ours])
        if literal is None:
            return
        sign = signs[0] if ours == 0 else MIRRORED[signs[0]]
        conversion = parsing.text(outer.child_by_field_name("function")) if outer.type == "call" else None
        version = self.versions[package]
        found = misreading(index, conversion, sign, literal, version)
        if found is None:
            return
        read, verdict = found
        reading, test = parsing.text(outer), parsing.text(comparison)
        fix_en = f"use `Version({package}.__version__) {sign} Version(\"{literal[1]}\")` " \
                 f"(`from packaging.version import Version`)"
        fix_zh = f"改用 `Version({package}.__version__) {sign} Version(\"{literal[1]}\")`" \
                 f"（`from packaging.version import Version`）"
        if verdict is None:
            npu = bilingual(f"on {package} {version} `{reading}` raises (it reads {read}); {fix_en}",
                            f"在 {package} {version} 上 `{reading}` 会抛出异常（读到 {read}）；{fix_zh}")
        else:
            npu = bilingual(f"on {package} {version} `{reading}` reads {read}, so `{test}` is {verdict} there, the "
                            f"opposite of comparing the versions; {fix_en}",
                            f"在 {package} {version} 上 `{reading}` 读到 {read}，`{test}` 的结果为 {verdict}，与按版本比较"
                            f"的结果相反；{fix_zh}")
        self.hit(DETECTOR, reference.name, comparison, npu=npu)


class VersionSliceScanner(PythonDomainScanner):
    domain = "dependencies"
    triggers = (VERSION_ATTRIBUTE,)
    scan_class = _VersionSliceScan

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        versions = {package: target_version(package, target.release.torch) for package in versioned_packages()}
        self.versions = {package: version for package, version in versions.items() if version is not None}

    def scan(self, unit):
        scan = _VersionSliceScan(self.index, unit)
        scan.versions = self.versions
        return scan.run()
