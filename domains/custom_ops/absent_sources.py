"""Builds of native extensions whose sources the tree does not hold: a CUDAExtension that lists only files absent
from the project, in folders absent too (NAFNet's BasicSR setup.py names basicsr/models/ops/... though the project
dropped the ops folder and comments out their only import, round 34 B1 17), cannot compile, so nothing of the
project's default path builds it. The builder takes `optional` with the missing paths as the reason, where every CUDA
extension it builds is so. Not judged where a git submodule the tree does not hold may hold the sources
(run.unscanned, reading/submodules.py), or where the list is joined at run time (ExtensionRecord.listed)."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.binding_reach import resolved_sources
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ExtensionRecord


def sourceless_builds(facts: CustomOpFacts, run: ProjectRun) -> dict[str, tuple[str, str]]:
    """builder path → ("optional", why) for the builders whose every CUDA extension lists only absent sources."""
    paths = set(run.paths) | {t.path for t in (*run.modules, *facts.native_words)}
    if not facts.extensions:
        return {}
    unscanned = tuple(folder.rstrip("/") + "/" for folder in run.unscanned)
    folders = {str(parent) for p in paths for parent in PurePosixPath(p).parents}
    by_builder: dict[str, list[ExtensionRecord]] = {}
    for extension in facts.extensions:
        by_builder.setdefault(extension.path, []).append(extension)
    result = {}
    for builder, extensions in by_builder.items():
        cuda = [e for e in extensions if e.cuda]
        if not cuda or any(not _absent(e, paths, folders, unscanned) for e in cuda):
            continue
        first = cuda[0]
        shown = ", ".join(first.sources[:3]) + (f" and {len(first.sources) - 3} more" if len(first.sources) > 3 else "")
        result[builder] = ("optional", f"builds {first.name} ({builder}:{first.line}) from sources the tree does not "
                                       f"hold ({shown}, nor their folders): it cannot compile")
    return result


def _absent(extension: ExtensionRecord, paths: set[str], folders: set[str], unscanned: tuple[str, ...]) -> bool:
    """Does the extension list its whole source list as plain strings, none of which, nor its folder, is in the tree
    or in a submodule it does not hold (from the builder's folder or from the root)?"""
    if not (extension.listed and extension.sources) or resolved_sources(extension, paths):
        return False
    here = PurePosixPath(extension.path).parent
    candidates = [PurePosixPath(base, source) for source in extension.sources for base in (here, PurePosixPath())]
    return not any(str(c.parent) in folders - {"."} or str(c).startswith(unscanned) for c in candidates)
