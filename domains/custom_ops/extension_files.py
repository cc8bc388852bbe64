"""Which of the project's extensions compile a native file, where the build says so in full: a listed source of an
extension whose build lists all its sources (all in the project), or a header every other native file writing its stem
(including it, or naming it at all) is such a source of. Elsewhere (a builder joining sources at run time, a CMake
build, a header some other file may include) the answer is unknown: no entry."""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import writes_word
from ascend_feasibility.domains.custom_ops.binding_reach import resolved_sources

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ProjectRun
    from ascend_feasibility.domains.custom_ops.records import CustomOpFacts

MIN_STEM = 6  # a file stem shorter than this (ops.h, k.cu) is too common a word to find the files including it by


def compiling_extensions(paths: set[str], facts: CustomOpFacts, run: ProjectRun) -> dict[str, set[str]]:
    """path (of `paths`) → the names of the extensions that compile it, where every one of them is known."""
    texts = {t.path for t in (*run.modules, *facts.native_words)}
    built_by: dict[str, set[str]] = defaultdict(set)
    for extension in facts.extensions:
        sources = resolved_sources(extension, texts)
        if extension.listed and sources and len(sources) == len(set(extension.sources)):
            for source in sources:
                built_by[source].add(extension.name)
    result: dict[str, set[str]] = {}
    for path in paths:
        if path in built_by:
            result[path] = built_by[path]
            continue
        stem = PurePosixPath(path).stem
        if len(stem) < MIN_STEM:
            continue
        includers = {w.path for w in facts.native_words if w.path != path and writes_word(w.words, stem)}
        if includers and all(p in built_by for p in includers):
            result[path] = {name for p in includers for name in built_by[p]}
    return result
