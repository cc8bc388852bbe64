"""Import lines of packages whose import itself fails on an Ascend host (their modules load CUDA extensions that
have no Ascend build): the first unguarded import of such a package in each file is reported, because that file
cannot be imported there, before any call. Guarded and lazy imports (in a try block, a function, a class or an if)
are left alone: they already have a way around the failure."""

from __future__ import annotations

from ascend_feasibility.domains.dependencies.facts import ImportFact
from ascend_feasibility.knowledge import KnowledgeBase


def failing_imports(imported: dict[str, list[ImportFact]], kb: KnowledgeBase) -> list[tuple[str, ImportFact]]:
    """(package, import) of each import of a package whose import fails on Ascend, in order, but those whose failure
    a `try` catches; the caller reports the lazy or guarded ones (inside a function, a class or an opt-in branch) as
    optional code, not as required."""
    result = []
    for name, facts in imported.items():
        record = kb.package(name)
        if record is not None and record.import_fails:
            result += [(name, fact) for fact in facts if not fact.caught]
    return result
