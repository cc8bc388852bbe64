"""The core reaches a domain only through domains.base.Domain and the registry: a room added to the registry runs its
scanners, keeps its per-file facts, and takes part in the project-level passes without any change to analyzer/."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.findings import Located
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Domain, FileView, Hit, ProjectRun, Scanner, Span, Unit
from ascend_feasibility.knowledge import load_knowledge

from ascend_feasibility import domains

ANALYZER = Path(__file__).resolve().parent.parent / "analyzer"


def _borrowed_rule() -> str:
    """A file-scoped rule of the knowledge base that nothing else about a site decides (the test room has none of
    its own in the knowledge base)."""
    kb = load_knowledge()
    return next(code for code, rule in sorted(kb.rules.items())
                if rule.scope != "project" and not rule.needs_in_file and not rule.same_fix_as and rule.domain == "device")


@dataclass
class FrobCount:
    path: str
    count: int


class FrobScanner(Scanner):
    domain = "device"
    kinds = frozenset({"python"})
    triggers = ("frobnicate",)

    def scan(self, unit: Unit) -> list[Hit]:
        hits = []
        stack = [unit.tree()]
        while stack:
            node = stack.pop()
            if node.type == "call" and parsing.text(node.child_by_field_name("function")) == "frobnicate":
                hits.append(Hit(rule=RULE, symbol="frobnicate", span=Span.of(node)))
            stack.extend(node.children)
        return hits


class FrobDomain(Domain):
    name = "frob"
    scanner_classes = (FrobScanner,)
    facts_type = FrobCount
    seen: list = []

    def collect(self, file: FileView) -> FrobCount | None:
        if file.kind != "python":
            return None
        return FrobCount(file.path, sum(len(FrobScanner(self.kb, self.target).scan(u)) for u in file.units))

    def add_findings(self, run: ProjectRun) -> None:
        total = sum(f.count for f in run.facts[self.name])
        at = Located(rule=RULE, symbol="frobnicate", path="pkg/__init__.py", line=1, column=1, end_column=1,
                     snippet=f"{total} frobnicate calls in the project")
        run.findings.append(run.factory.build_located(at, 0))

    def report(self, run: ProjectRun) -> None:
        FrobDomain.seen.append([(f.path, f.count) for f in run.facts[self.name]])


RULE = _borrowed_rule()


@pytest.fixture
def frob_registered(monkeypatch):
    classes = (*domains.DOMAIN_CLASSES, FrobDomain)
    monkeypatch.setattr(domains, "DOMAIN_CLASSES", classes)
    monkeypatch.setattr(domains, "FileFacts", domains.file_facts_type(classes))
    FrobDomain.seen = []
    yield


def test_a_registered_room_scans_keeps_facts_and_joins_the_project_passes(tmp_path, frob_registered):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "b.py").write_text("def f(x):\n    return frobnicate(frobnicate(x))\n")
    (tmp_path / "pkg" / "a.py").write_text("import os\n\n\nfrobnicate(1)\n")
    report = analyze(tmp_path, AnalyzeOptions(jobs=1, cache_dir=None))
    # per-file facts reach the room's pass in path order, files without any too
    assert FrobDomain.seen == [[("pkg/__init__.py", 0), ("pkg/a.py", 1), ("pkg/b.py", 2)]]
    sites = sorted((f.path, f.line) for f in report.findings if f.rule == RULE)
    # the scanner's three calls (two on one line: one finding per rule and line) and the project-level finding
    assert sites == [("pkg/__init__.py", 1), ("pkg/a.py", 4), ("pkg/b.py", 2)]


def test_without_the_room_nothing_of_it_runs(tmp_path):
    (tmp_path / "a.py").write_text("frobnicate(1)\n")
    report = analyze(tmp_path, AnalyzeOptions(jobs=1, cache_dir=None))
    assert not [f for f in report.findings if f.rule == RULE and f.symbol == "frobnicate"]


def test_the_core_imports_only_the_registry_and_the_domain_interface():
    allowed = {"ascend_feasibility.domains", "ascend_feasibility.domains.base"}
    offending = []
    for path in sorted(ANALYZER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ascend_feasibility.domains"):
                names = {f"{node.module}.{a.name}" for a in node.names}
                if node.module not in allowed or names & {"ascend_feasibility.domains." + m for m in _submodules()}:
                    offending.append(f"{path.relative_to(ANALYZER)}:{node.lineno} {node.module}")
            elif isinstance(node, ast.Import):
                offending += [f"{path.relative_to(ANALYZER)}:{node.lineno} {a.name}" for a in node.names
                              if a.name.startswith("ascend_feasibility.domains") and a.name not in allowed]
    assert offending == []


def _submodules() -> set[str]:
    folder = Path(domains.__file__).parent
    return {p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "base")} | {
        p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
