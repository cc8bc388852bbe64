"""Reach that only the whole project shows: native sources that only another backend's builders compile.

DeepSpeed's CUDA op builders (op_builder/fused_adam.py, other-backend beside op_builder/npu/) name
'csrc/adam/multi_tensor_adam.cu'; when every file that names a source (or a folder holding it) is
other-backend code, so is the source: Ascend builds what the NPU builders name instead.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath

from analyzer.context.project import ProjectContext
from analyzer.findings import FindingFactory, Place
from analyzer.models import Finding
from domains.phases.facts import NATIVE_SUFFIXES, PhaseFacts


def propagate_reach(findings: list[Finding], facts: list[PhaseFacts], context: ProjectContext,
                    factory: FindingFactory) -> list[Finding]:
    referrers: dict[str, set[str]] = defaultdict(set)  # a named source or folder → the files that name it
    for f in facts:
        for ref in f.source_refs:
            referrers[ref.strip("/")].add(f.path)
    if not referrers:
        return findings
    decided: dict[str, Place | None] = {}
    result = []
    for finding in findings:
        if finding.reach != "runs" or not finding.path.endswith(NATIVE_SUFFIXES):
            result.append(finding)
            continue
        if finding.path not in decided:
            decided[finding.path] = _built_only_by_other_backends(finding.path, referrers, context)
        place = decided[finding.path]
        result.append(finding if place is None else factory.relocate(finding, place))
    return result


def _built_only_by_other_backends(path: str, referrers: dict[str, set[str]], context: ProjectContext) -> Place | None:
    builders = set().union(*(referrers.get(name, set()) for name in _names_of(path)))
    if not builders or any(context.of(b).reach != "other-backend" for b in builders):
        return None
    first = sorted(builders)[0]
    more = f" and {len(builders) - 1} more" if len(builders) > 1 else ""
    return Place(context.of(path).role, "other-backend", f"built only by other backends' builders: {first}{more}")


def _names_of(path: str) -> list[str]:
    """What a builder may call this file: its path or a folder holding it, from the root or relative to a folder
    (builders often name sources relative to their package: 'inference/v2/kernels/...'), two parts at least."""
    parts = PurePosixPath(path).parts
    names = []
    for end in range(2, len(parts) + 1):
        for start in range(0, end - 1):
            names.append("/".join(parts[start:end]))
    return names
