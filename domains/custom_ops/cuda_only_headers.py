"""CUDA runtime names in host code that the build an Ascend host makes never compiles against the CUDA runtime.

- A header only CUDA compilation includes (pytorch3d's pulsar/gpu/commands.h, included only under `#ifdef __CUDACC__`
  by include/commands.h, whose `#else` includes host/commands.h): its runtime calls belong to the nvcc-compiled
  units, so they are `cuda-only-guarded` like code inside `#ifdef WITH_CUDA`. A header counts so when every file that
  includes it does so in a .cu file or inside a CUDA-only arm (analyzer/context/preprocessor.py), or is itself such
  a header; and no other native file of a torch extension whose includes were not read writes the header's name.
- A CUDA runtime name the project declares itself outside any CUDA-only arm (`typedef void* cudaStream_t;` in the
  `#else` of `#ifdef WITH_CUDA`, pulsar/global.h): without CUDA it is the project's own name, so its uses compile
  on Ascend; they are no finding."""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writes_word
from ascend_feasibility.analyzer.core.findings import Place
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, HostRuntimeRecord

HOST_RUNTIME_DETECTOR = "cuda-runtime-host-call"


def relocate_host_runtime(findings: list[Finding], facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    codes = {r.code for r in run.kb.rules.values() if r.match.detector == HOST_RUNTIME_DETECTOR}
    if not facts.host_runtime or not any(f.rule in codes for f in findings):
        return findings
    declared = {name for record in facts.host_runtime for name in record.declared}
    headers = nvcc_only_headers(facts, run.paths)
    arms = _learned_arms(facts)
    result = []
    for finding in findings:
        if finding.rule in codes and finding.symbol.removesuffix("()") in declared:
            continue  # the project's own name in the build without CUDA (a typedef, or a #define of a call)
        if finding.rule in codes and finding.reach == "runs":
            why = headers.get(finding.path) or next((reason for first, last, reason in arms.get(finding.path, ())
                                                     if first <= finding.line <= last), None)
            if why is not None:
                finding = run.factory.relocate(finding, Place(finding.role, "cuda-only-guarded", why))
        result.append(finding)
    return result


def _learned_arms(facts: CustomOpFacts) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the arms a macro selects that the project's build defines only in its
    CUDA arm (setup.py's `define_macros += [("MMCV_WITH_CUDA", None)]` beside `extension = CUDAExtension`)."""
    learned: dict[str, str] = {}
    for macro, where in facts.cuda_macros:
        learned.setdefault(macro, where)
    arms: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for record in facts.host_runtime:
        for macro, first, last, line in record.arms:
            if macro in learned:
                arms[record.path].append((first, last, f"line {line}: an arm of {macro}, which {learned[macro]} defines only "
                                                        "in the CUDA build"))
    return arms


def nvcc_only_headers(facts: CustomOpFacts, paths: tuple[str, ...]) -> dict[str, str]:
    """Header path → why only CUDA compilation includes it."""
    native = [p for p in paths if p.endswith(NATIVE_SUFFIXES)]
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in native:
        by_name[PurePosixPath(path).name].append(path)
    includers: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for record in facts.host_runtime:
        for header, line, cuda_only in record.includes:
            for target in _resolved(record, header, by_name):
                includers[target].append((record.path, line, cuda_only))
    read = {record.path for record in facts.host_runtime}
    unread = [w for w in facts.native_words if w.path not in read and not w.path.endswith(".cu")]
    found: dict[str, str] = {}
    changed = True
    while changed:  # a header included only by such headers is one too
        changed = False
        for header, sites in includers.items():
            if header in found or header.endswith(".cu"):
                continue
            if all(cuda_only or source in found or source.endswith(".cu") for source, _, cuda_only in sites) \
                    and not _maybe_included_unread(header, unread):
                source, line, _ = sites[0]
                found[header] = f"{source}:{line} includes it only where CUDA compiles it (nvcc, or a CUDA-only #if arm)"
                changed = True
    return found


def _resolved(record: HostRuntimeRecord, header: str, by_name: dict[str, list[str]]) -> list[str]:
    """The project files an include names: beside the includer, else by the include's trailing path."""
    beside = PurePosixPath(record.path).parent / header
    parts: list[str] = []
    for part in beside.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    candidates = by_name.get(PurePosixPath(header).name, [])
    normal = "/".join(parts)
    if normal in candidates:
        return [normal]
    tail = "/" + header.lstrip("./")
    return [p for p in candidates if p.endswith(tail)]


def _maybe_included_unread(header: str, unread) -> bool:
    """Could a native file whose includes were not read (it never writes `cuda` or `CUDA`) include the header? Only if
    it writes the header's name, and its folder's name unless it sits in that folder (`#include "../gpu/commands.h"`)."""
    path = PurePosixPath(header)
    folder = path.parent
    if len(path.stem) < MIN_NAME:
        return bool(unread)
    named = len(folder.name) >= MIN_NAME  # shorter words are not kept (`gpu`): the header's name alone decides
    return any(writes_word(w.words, path.stem) and (not named or PurePosixPath(w.path).parent == folder
                                                     or writes_word(w.words, folder.name)) for w in unread)
