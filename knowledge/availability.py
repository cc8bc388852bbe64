"""Which torch_npu releases have the names the knowledge base proposes.

Two kinds of names appear in rule, catalog and kernel-class texts:

- ``torch.npu.X`` / ``torch_npu.npu.X`` (``X`` possibly dotted): a module attribute, submodule or member listed in
  names.toml by its first release line; otherwise against the release's profile in releases.toml:
  ``amp.X`` against ``npu.amp.__all__``, ``random.X`` against ``npu.random.__all__``, the re-exporting submodules
  (``memory``, ``streams``, ``graphs``, ``utils``) by the name they re-export into ``torch_npu.npu.__all__``, a plain
  ``X`` in ``torch_npu.npu.__all__``. A deeper chain (``torch_npu.npu.mstx.range_push``, ``torch.npu.matmul.allow_hf32``)
  is a member the profile cannot attest: it exists only where names.toml lists it.
- ``torch_npu.<operator>`` / ``npu_<operator>``: judged against the generated operator table (ops.toml): the release's
  op-plugin line must register it for the release's torch version.
- PyTorch's own fused optimizer kernels (``_fused_adamw_``, what ``torch.optim.AdamW(fused=True)`` calls) are not
  names a text proposes: scanners ask ``has_kernel`` about them, against ops.toml's ``[aten]`` table.
- a keyword argument of such an operator, written ``npu_rotary_mul(rotary_mode=…)``: the operator must have it on the
  release's line (ops.toml's signature, and param_since for parameters that older lines lack).
- an environment variable of the ``HCCL_*``, ``TORCH_HCCL_*``, ``P2P_HCCL_*``, ``TORCH_NPU_*``, ``PYTORCH_NPU_*`` or
  ``ASCEND_*`` form: one that names.toml lists (torch_npu reads it from some line on) by its first line; the others
  are read on every release or by CANN itself (HCCL_SOCKET_IFNAME by the HCCL library), which no torch_npu release gates.

The texts are knowledge-base data, not analysed source code, so plain patterns find the names in them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from packaging.version import Version

if TYPE_CHECKING:
    from ascend_feasibility.knowledge import KnowledgeBase
    from ascend_feasibility.knowledge.models import Release

NPU_NAME = re.compile(r"\btorch(?:_npu)?\.npu\.[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
OPERATOR = re.compile(r"\b(?:torch_npu\.)?(npu_[a-z0-9_]*[a-z0-9]|fast_gelu)\b(?!\.py)")
REEXPORTING = {"memory", "streams", "graphs", "utils"}
KEYWORD_NAME = re.compile(r"^(\w+)\((\w+)=…\)$")
ENV_NAME = re.compile(r"\b(?:(?:TORCH_|P2P_)?HCCL|TORCH_NPU|PYTORCH_NPU|ASCEND)_[A-Z0-9_]*[A-Z0-9]\b")


def line_of(branch: str) -> str:
    """``v2.6.0-7.2.0`` -> ``7.2.0``: the release line (and the op-plugin branch) a torch_npu branch belongs to."""
    return branch.split("-", 1)[1]


def line_key(line: str) -> tuple:
    """Sort key of a release line: 6.0.rc2 < 6.0.rc3 < 6.0.0 < 7.0.0 < 26.0.0."""
    return tuple(int(p) if p.isdigit() else -1 for p in line.replace("rc", "-1.").split("."))


def torch_minor(version: str) -> str:
    """``2.7.1`` -> ``2.7``; ``v2.10`` -> ``2.10``."""
    return ".".join(version.lstrip("v").split(".")[:2])


def proposed_names(text: str | None) -> list[str]:
    """The torch.npu names and torch_npu operators a knowledge text proposes, in order of appearance."""
    if not text:
        return []
    found: list[tuple[int, str]] = [(m.start(), m.group(0)) for m in NPU_NAME.finditer(text)]
    covered = [(m.start(), m.end()) for m in NPU_NAME.finditer(text)]
    found += [(m.start(), m.group(0)) for m in ENV_NAME.finditer(text)]
    for match in OPERATOR.finditer(text):
        if not any(start <= match.start() < end for start, end in covered):
            found.append((match.start(), match.group(1)))
            found += [(match.start() + 1, f"{match.group(1)}({keyword}=…)") for keyword in _keywords(text, match.end())]
    names: list[str] = []
    for _, name in sorted(found):
        if name not in names:
            names.append(name)
    return names


def _keywords(text: str, position: int) -> list[str]:
    """The keyword arguments of the call whose name ends at `position` (none when no call follows)."""
    if position >= len(text) or text[position] != "(":
        return []
    depth, keywords = 0, []
    for index in range(position, len(text)):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1 and char == "=" and text[index + 1 : index + 2] != "=" and text[index - 1] not in "=!<>":
            keyword = re.search(r"(\w+)\s*$", text[position:index])
            if keyword:
                keywords.append(keyword.group(1))
    return keywords


def is_npu_name(name: str) -> bool:
    return NPU_NAME.fullmatch(name) is not None


def is_env_name(name: str) -> bool:
    return ENV_NAME.fullmatch(name) is not None


def autocast_dtype_supported(kb: "KnowledgeBase", dtype: str, release: "Release") -> bool:
    """Does NPU autocast at `release` accept `dtype` (`torch.float32`), rather than disabling itself for it?"""
    listed = next((d for d in kb.operators.autocast_dtype if d.name == dtype), None)
    return listed is not None and line_key(line_of(release.branch)) >= line_key(listed.since_line)


def has(kb: "KnowledgeBase", name: str, release: "Release") -> bool:
    """Does torch_npu `release` have `name` (a torch.npu name, an operator or an environment variable it reads)?"""
    if is_npu_name(name):
        return _has_npu_name(kb, name, release)
    if is_env_name(name):
        listed = next((e for e in kb.operators.env_name if e.name == name), None)
        if listed is None:
            return True  # read by CANN's HCCL, not by torch_npu
        return bool(listed.since_line) and line_key(line_of(release.branch)) >= line_key(listed.since_line)
    keyword = KEYWORD_NAME.match(name)
    if keyword:
        operator, parameter = keyword.groups()
        since = kb.operators.param_since.get(operator, {}).get(parameter)
        return (
            has(kb, operator, release)
            and parameter in kb.operators.signature.get(operator, [])
            and (since is None or line_key(line_of(release.branch)) >= line_key(since))
        )
    ranges = kb.operators.op.get(name.removeprefix("torch_npu."), {}).get(line_of(release.branch))
    return ranges is not None and _in_ranges(torch_minor(release.torch), ranges)


def has_kernel(kb: "KnowledgeBase", kernel: str, release: "Release") -> bool:
    """Does torch_npu `release` register PyTorch's fused optimizer kernel `kernel` (``_fused_adamw_``) for the NPU?"""
    ranges = kb.operators.aten.get(kernel, {}).get(line_of(release.branch))
    return ranges is not None and _in_ranges(torch_minor(release.torch), ranges)


def kernel_releases(kb: "KnowledgeBase", kernel: str) -> list["Release"]:
    return [release for release in kb.releases if has_kernel(kb, kernel, release)]


def missing_at(kb: "KnowledgeBase", names: list[str], release: "Release") -> list[str]:
    """The names `release` lacks; an operator keyword only when the release has the operator itself."""
    missing = [name for name in names if not has(kb, name, release)]
    return [name for name in missing if operator_of(name) not in missing]


def operator_of(name: str) -> str | None:
    """``npu_rotary_mul(rotary_mode=…)`` -> ``npu_rotary_mul``; None for a name that is no operator keyword."""
    keyword = KEYWORD_NAME.match(name)
    return keyword.group(1) if keyword else None


def releases_with(kb: "KnowledgeBase", name: str) -> list["Release"]:
    return [release for release in kb.releases if has(kb, name, release)]


def first_release(kb: "KnowledgeBase", name: str, torch: str) -> "Release | None":
    """The oldest release for the same torch version that has `name`; else the oldest for a newer torch."""
    candidates = releases_with(kb, name)
    same = [r for r in candidates if r.torch == torch]
    if same:
        return min(same, key=lambda r: Version(r.torch_npu))
    newer = [r for r in candidates if Version(r.torch) > Version(torch)] or candidates
    return min(newer, key=lambda r: (Version(r.torch), Version(r.torch_npu))) if newer else None


def first_line(kb: "KnowledgeBase", name: str) -> str | None:
    """The release line from which every release of the table has `name` and none before has it, if there is one."""
    having = {id(r) for r in releases_with(kb, name)}
    lines = sorted({line_of(r.branch) for r in kb.releases}, key=line_key)
    for index, line in enumerate(lines):
        later = [r for r in kb.releases if line_key(line_of(r.branch)) >= line_key(line)]
        earlier = [r for r in kb.releases if line_key(line_of(r.branch)) < line_key(line)]
        if all(id(r) in having for r in later) and not any(id(r) in having for r in earlier):
            return line if index else None
    return None


def _has_npu_name(kb: "KnowledgeBase", name: str, release: "Release") -> bool:
    """A listed name by its first line; else what the profile attests: ``amp.X``/``random.X`` by their ``__all__``,
    ``memory.X`` and the other re-exporting submodules by ``npu.__all__``, a plain ``X`` by ``npu.__all__``. A
    deeper chain (``mstx.range_push``: a member of a class or module) the profile cannot attest is present only
    where names.toml lists it, and every listed prefix must be present too."""
    name = name.replace("torch_npu.npu.", "torch.npu.", 1)
    line = line_key(line_of(release.branch))
    listed = {m.name: m for m in kb.operators.module_name}
    parts = name.split(".")[2:]
    for depth in range(1, len(parts)):
        prefix = "torch.npu." + ".".join(parts[:depth])
        if prefix in listed and line < line_key(listed[prefix].since_line):
            return False
    if name in listed:
        return line >= line_key(listed[name].since_line)
    profile = kb.profiles[release.profile]
    head = parts[0]
    if head == "amp":
        return len(parts) == 1 or (len(parts) == 2 and parts[1] in profile.amp_all)
    if head == "random":
        return len(parts) == 1 or (len(parts) == 2 and parts[1] in profile.random_all)
    if head in REEXPORTING:
        return len(parts) == 2 and parts[1] in profile.npu_all
    return len(parts) == 1 and head in profile.npu_all


def _in_ranges(version: str, ranges: str) -> bool:
    wanted = Version(version)
    for part in ranges.split(","):
        low, _, high = part.partition("-")
        if Version(low) <= wanted <= Version(high or low):
            return True
    return False
