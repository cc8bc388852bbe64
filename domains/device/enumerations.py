"""Enumerations of accelerators that leave the NPU out (DEV221).

Code built for several accelerators often lists them in one place: a module of `is_*_available()` helpers (one per
device extension), a list of device or machine types offered to a user (`accelerate config`'s "multi-XPU",
"multi-GPU", "TPU"), module-level constants naming distributed backends (`NCCL_BACKEND = "nccl"`, `CCL_BACKEND =
"ccl"`). A port adds the NPU there: `is_torch_npu_available`, a "multi-NPU" choice, `HCCL_BACKEND = "hccl"`. The
platforms and their words, and what each shape needs, are knowledge/device/accelerators.toml; an enumeration is
reported once, at its first line, when it names enough other accelerators (CUDA too where the shape asks) and nothing
of the NPU's. Test files are left: a test's device list follows the product's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.device import literals
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from ascend_feasibility.knowledge import load_accelerator_names, load_context_conventions
from ascend_feasibility.knowledge.models import AcceleratorNames, EnumerationKind
from tree_sitter import Node

QUERY = r"""
[(list) (tuple) (set) (dictionary)] @collection
(module (function_definition name: (identifier) @helper))
(module (decorated_definition definition: (function_definition name: (identifier) @helper)))
(module (expression_statement (assignment left: (identifier) @constant right: (string))))
"""

DETECTOR = "accelerator-enumeration-without-npu"
WORD = re.compile(r"[0-9A-Za-z]+")
MAX_ITEM_WORDS = 4  # a choice names a device in a few words ("multi-XPU"); a sentence is no choice
CUDA, NPU = "cuda", "npu"


@dataclass(frozen=True)
class Item:
    node: Node  # where the item is spelled (the string, the name, the helper's name, the constant's value)
    platform: str | None  # cuda, npu, a platform of accelerators.toml, or None when it names none


def _words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


class _Platforms:
    """Word → platform lookups over accelerators.toml."""

    def __init__(self, names: AcceleratorNames) -> None:
        self.names = names
        self.by_word = {w: p.name for p in names.platform for w in p.words}
        self.by_word.update({w: CUDA for w in names.cuda_words} | {w: NPU for w in names.npu_words})
        self.by_collective = {c: p.name for p in names.platform for c in p.collectives}
        self.by_collective.update({c: CUDA for c in names.cuda_collectives} | {"hccl": NPU})
        self.accelerators = {p.name for p in names.platform if p.accelerator}

    def of_words(self, words: list[str]) -> str | None:
        """The one platform the words name (NPU before the rest: "npu or xpu" serves the NPU); None for none or two."""
        found = {self.by_word[w] for w in words if w in self.by_word}
        if NPU in found:
            return NPU
        return found.pop() if len(found) == 1 else None

    def npu_word_for(self, text: str, npu_word: str) -> str | None:
        """`text` with its word of another accelerator replaced by the NPU's, in the same case ("multi-XPU" →
        "multi-NPU", DistributedType.MULTI_XPU → DistributedType.MULTI_NPU)."""
        for match in WORD.finditer(text):
            word = match.group()
            if self.by_word.get(word.lower()) in self.accelerators:
                spelled = npu_word.upper() if word.isupper() else npu_word.capitalize() if word[0].isupper() else npu_word
                return text[: match.start()] + spelled + text[match.end():]
        return None


class _EnumerationScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list[Hit]:
        if file_role(self.unit.path, load_context_conventions().roles) == "test":
            return self.hits
        names = load_accelerator_names()
        platforms = _Platforms(names)
        found = self.captures()
        for collection in found.get("collection", []):
            if collection.named_child_count < names.kind("choices").min_items or _device_type_collection(collection):
                continue  # plain device-type strings: DEV009's device-list reports it, with the "npu" item to add
            if _default_serves_cuda_alike(collection, platforms) or _looked_up_with_itself(collection):
                continue
            self._report(names.kind("choices"), platforms, _choice_items(collection, platforms), collection)
        helpers = [Item(n, platforms.of_words(_words(parsing.text(n)))) for n in found.get("helper", [])
                   if re.fullmatch(r"is_\w+_available", parsing.text(n))]
        self._report(names.kind("availability-helpers"), platforms, helpers, None)
        constants = [_constant_item(n, platforms) for n in found.get("constant", [])]
        self._report(names.kind("backend-constants"), platforms, [c for c in constants if c is not None], None)
        return self.hits

    def _report(self, kind: EnumerationKind, platforms: _Platforms, items: list[Item], at: Node | None) -> None:
        named = {item.platform for item in items}
        others = sorted(named & platforms.accelerators)
        if (NPU in named or len(items) < kind.min_items or len(others) < kind.min_other
                or (kind.requires_cuda and CUDA not in named)):
            return
        first_other = next(item for item in items if item.platform in platforms.accelerators)
        if kind.add is not None:
            npu = kind.add
        else:
            npu = platforms.npu_word_for(parsing.text(first_other.node), kind.npu_word)
            if npu is not None and at is not None and at.type == "dictionary":
                npu += ": ..."  # a table's row: its value is the NPU's counterpart of the others'
        spelled = [parsing.text(item.node) for item in items if item.platform is not None]
        symbol = " ".join(parsing.text(at).split()) if at is not None else ", ".join(spelled)
        self.hit(DETECTOR, symbol if len(symbol) <= 100 else symbol[:97] + "...", at if at is not None else items[0].node,
                 npu)


def _choice_items(collection: Node, platforms: _Platforms) -> list[Item]:
    """The elements of a list, tuple or set, or a dict's keys, each a plain string or a name; [] when one is not."""
    elements = collection.named_children
    if collection.type == "dictionary":
        elements = [pair.child_by_field_name("key") for pair in elements if pair.type == "pair"]
    items = []
    for element in elements:
        if element is not None and element.type == "comment":
            continue
        if element is None or element.type not in {"string", "identifier", "attribute"}:
            return []
        if element.type == "string" and any(c.type == "interpolation" for c in element.named_children):
            return []
        text = string_value(element) if element.type == "string" else parsing.text(element)
        words = _words(text)
        items.append(Item(element, platforms.of_words(words) if len(words) <= MAX_ITEM_WORDS else None))
    return items


def _device_type_collection(collection: Node) -> bool:
    """A list of device-type strings (`["cpu", "mps", "cuda", "xpu"]`) or a table keyed by them: the device-list
    rule's, whose finding already asks for the "npu" item."""
    first = collection.named_children[0] if collection.named_children else None
    if collection.type == "dictionary":
        first = first.child_by_field_name("key") if first is not None and first.type == "pair" else None
        return first is not None and first.type == "string" and literals.device_table(first) is not None
    return first is not None and first.type == "string" and literals.device_collection(first) is not None


def _default_serves_cuda_alike(table: Node, platforms: _Platforms) -> bool:
    """A table whose "default" row is what its CUDA row is, or its device-generic form (`"cuda": True` beside
    `"default": True`; `"cuda": torch.cuda.manual_seed` beside `"default": torch.manual_seed`): a device it does
    not list, the NPU included, gets what CUDA gets."""
    if table.type != "dictionary":
        return False
    values: dict[str, str] = {}
    for pair in table.named_children:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if pair.type == "pair" and key is not None and value is not None and key.type == "string":
            name = string_value(key).lower()
            role = "default" if name == "default" else platforms.of_words(_words(name))
            values.setdefault(role, " ".join(parsing.text(value).split()))
    cuda, default = values.get(CUDA), values.get("default")
    return cuda is not None and default is not None and default in {cuda, cuda.replace("torch.cuda.", "torch.")}


def _looked_up_with_itself(table: Node) -> bool:
    """`{"cuda": "cuda", "hip": "cuda", "xpu": "xpu"}.get(backend, backend)`: a key it does not list maps to
    itself, so the NPU's own name comes back."""
    attribute = table.parent
    call = attribute.parent if attribute is not None and attribute.type == "attribute" else None
    if call is None or call.type != "call" or parsing.text(attribute.child_by_field_name("attribute")) != "get":
        return False
    arguments = call.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    return len(values) == 2 and parsing.text(values[0]) == parsing.text(values[1])


def _constant_item(value: Node, platforms: _Platforms) -> Item | None:
    """A module-level `NAME = "<backend>"` whose value is a distributed backend's name."""
    assignment = value.parent
    string = assignment.child_by_field_name("right") if assignment is not None else None
    if string is None or string.type != "string":
        return None
    platform = platforms.by_collective.get(string_value(string).lower())
    if platform is None:
        return None
    return Item(assignment, platform)


def string_value(node: Node) -> str:
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def _triggers() -> tuple[str, ...]:
    """An accelerator's word as it starts a name or a value (`"xpu`, `'ccl`, `_xla`, `.mps`, `-hpu`) or in capitals
    (MULTI_XPU, "TPU"): a bare lower-case word would let in every file that says `output`, `dumps` or `ship`."""
    words = {w for p in load_accelerator_names().platform if p.accelerator for w in p.words + p.collectives}
    return tuple(sorted({f"{lead}{w}" for w in words for lead in "\"'_.-"} | {w.upper() for w in words}))


class AcceleratorEnumerationScanner(PythonDomainScanner):
    domain = "device"
    triggers = _triggers()
    scan_class = _EnumerationScan
