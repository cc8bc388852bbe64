"""Device classes, one subclass per device type, with none for the NPU (DEV222).

A project built for several accelerators often picks its device by class: composer's Device base with DeviceCPU,
DeviceGPU, DeviceHPU, DeviceMPS, DeviceNeuron and DeviceTPU, each in its own file, each holding that device's
calls and distributed backend (DeviceGPU: torch.cuda and "nccl"). The port is one more sibling, modelled on the
other accelerator's class, not a rewrite of the CUDA one's sites. Per file the facts keep the classes whose name
carries one platform word (knowledge/device/accelerators.toml) beside a stem, with their first base; the project
pass groups them by base and stem and reports a group of enough siblings (CUDA and another accelerator among them)
with no NPU sibling once, at the CUDA sibling's class, the class the NPU one stands beside."""

from __future__ import annotations

import re
from collections import defaultdict

from ascend_feasibility.analyzer.core.findings import Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains import triggers
from ascend_feasibility.domains.base import DEFINITIONS_QUERY, ProjectRun, Unit
from ascend_feasibility.domains.device.enumerations import CUDA, NPU, _Platforms
from ascend_feasibility.knowledge import load_accelerator_names

DETECTOR = "device-subclasses-without-npu"
KIND = "device-subclasses"
# A class name's words: runs of capitals before a capitalised word (CUDA|Accelerator), capitalised or lower words,
# and the rest of a run of capitals (Device|GPU); underscores and digits separate.
CAMEL_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# The spellings a device word takes in a class name (DeviceGPU, CudaAccelerator, HPU_Accelerator): a file that
# spells none of them defines no device class, and pays no walk.
_NAMES = load_accelerator_names()
MARKS = tuple(sorted({form for w in [*_NAMES.cuda_words, *_NAMES.npu_words, *(w for p in _NAMES.platform for w in p.words)]
                      for form in (w.upper(), w.capitalize())}))


triggers.register(MARKS)


def wanted(unit: Unit) -> bool:
    """Does the unit spell a device word the way a class name does (read in the one pass of every trigger word)?"""
    text = unit.source.text
    return "class " in text and not triggers.present(text, unit.cache).isdisjoint(MARKS)


def name_words(name: str) -> list[tuple[int, int, str]]:
    """(start, end, lower-case word) of each word of a class name."""
    return [(m.start(), m.end(), m.group().lower()) for m in CAMEL_WORD.finditer(name)]


def read(unit: Unit) -> list[tuple[str, str, int, int, int, str]]:
    """(class, its first base's last name, line, column, end column, the line) of each class of the unit that names a
    platform in one word of its name beside other words (DeviceGPU, CUDAAccelerator)."""
    platforms = _Platforms(_NAMES)
    found = []
    for cls in unit.captures(DEFINITIONS_QUERY).get("class", []):
        name = cls.child_by_field_name("name")
        bases = cls.child_by_field_name("superclasses")
        base = next((b for b in bases.named_children if b.type in {"identifier", "attribute"}), None) if bases else None
        if name is None or base is None:
            continue
        text = parsing.text(name)
        words = [w for _, _, w in name_words(text)]
        if len(words) < 2 or sum(w in platforms.by_word for w in words) != 1:
            continue
        row = name.start_point.row
        line = unit.source.line_text(row)
        found.append((text, parsing.text(base).rsplit(".", 1)[-1], row + 1,
                      unit.source.char_column(row, cls.start_point.column), len(line) + 1, line.strip()[:200]))
    return found


def findings(classes: dict[str, list[tuple[str, str, int, int, int, str]]], run: ProjectRun) -> list[Finding]:
    """One finding per group of sibling device classes that has no NPU sibling (product files only)."""
    names = load_accelerator_names()
    kind = names.kind(KIND)
    platforms = _Platforms(names)
    groups: dict[tuple[str, str], list[tuple[str, str, tuple]]] = defaultdict(list)  # (base, stem) → (platform, path, class)
    for path, found in classes.items():
        if run.context.of(path).role != "product":
            continue
        for entry in found:
            words = name_words(entry[0])
            platform = next(platforms.by_word[w] for _, _, w in words if w in platforms.by_word)
            stem = "".join(w for _, _, w in words if w not in platforms.by_word)
            groups[(entry[1], stem)].append((platform, path, entry))
    code = next(r.code for r in run.kb.rules.values() if r.match.detector == DETECTOR)
    result = []
    for (base, _), members in sorted(groups.items()):
        named = {platform for platform, _, _ in members}
        others = named & platforms.accelerators
        if NPU in named or CUDA not in named or len(members) < kind.min_items or len(others) < kind.min_other:
            continue
        members.sort(key=lambda m: m[2][0])
        _, path, (cuda_class, _, line, column, end_column, snippet) = next(m for m in members if m[0] == CUDA)
        model = min((m for m in members if m[0] in others),
                    key=lambda m: (kind.prefer.index(m[0]) if m[0] in kind.prefer else len(kind.prefer), m[2][0]))[2][0]
        npu = f"class {_respelled(cuda_class, platforms, kind.npu_word)}({base}) modelled on {model}"
        symbol = f"{base}: " + ", ".join(m[2][0] for m in members)
        place = run.context.of(path)
        located = Located(code, symbol if len(symbol) <= 160 else symbol[:157] + "...", path, line, column, end_column,
                          snippet, npu=npu, matched=cuda_class, role=place.role, reach=place.reach,
                          reach_reason=place.reason)
        result.append(run.factory.build_located(located, 0))
    return result


def _respelled(name: str, platforms: _Platforms, npu_word: str) -> str:
    """The CUDA class's name with its device word the NPU's, in the same case (DeviceGPU → DeviceNPU)."""
    for start, end, word in name_words(name):
        if word in platforms.by_word:
            spelled = name[start:end]
            npu = npu_word.upper() if spelled.isupper() else npu_word.capitalize() if spelled[0].isupper() else npu_word
            return name[:start] + npu + name[end:]
    return name
