"""The attention domain: flash-attn, xformers, SDPA, Hugging Face attention selection, hand-written attention."""

from __future__ import annotations

from ascend_feasibility.domains.attention.facts import AttentionFacts
from ascend_feasibility.domains.attention.python_scanner import AttentionPythonScanner
from ascend_feasibility.domains.attention.registries import own_registry_selections
from ascend_feasibility.domains.attention.routed_choices import routed_choices
from ascend_feasibility.domains.base import Domain, FileView, ProjectRun


class AttentionDomain(Domain):
    name = "attention"
    scanner_classes = (AttentionPythonScanner,)
    facts_type = AttentionFacts

    def collect(self, file: FileView) -> AttentionFacts | None:
        facts = AttentionFacts()
        for unit in file.units:
            if "attention" in unit.cache:
                facts.extend(unit.cache["attention"])
        return facts if facts.registry_keys or facts.selections else None

    def report(self, run: ProjectRun) -> None:
        merged = AttentionFacts()
        for facts in run.facts[self.name]:
            merged.extend(facts)
        if merged.registry_keys:
            run.findings = own_registry_selections(run.findings, merged, run.factory)
        run.findings = routed_choices(run.findings, run.published.get("declarations", []), run.factory)
