"""A project's own attention registry: nanotron's `ALL_ATTENTION_FUNCTIONS = {"flash_attention_2":
flash_attention_forward, "sdpa": sdpa_attention_forward, ...}` is keyed by the names transformers uses, but a
"flash_attention_2" that selects one of its entries (the default in models_config.py, a config field of the project's
own class) never reaches transformers: nothing routes it to npu_fusion_attention. The flash-attn call the entry makes
is reported at that call; the selection only needs an NPU entry registered, or the registry's "sdpa"."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.findings import FindingFactory, Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.domains.attention.facts import AttentionFacts

TRANSFORMERS_CHOICE = "ATT030"


def own_registry_selections(findings: list[Finding], facts: AttentionFacts, factory: FindingFactory) -> list[Finding]:
    """`findings` with each transformers-choice finding that names a key of the project's own registry, at a site that
    does not pass it to transformers, told it selects that registry's entry instead."""
    keys = set(facts.registry_keys)
    sites = {(s.path, s.line) for s in facts.selections if s.name in keys}
    if not sites:
        return findings
    code = next(r.code for r in factory.kb.rules.values() if r.match.detector == "attention-registry-key")
    result = []
    for finding in findings:
        if finding.rule == TRANSFORMERS_CHOICE and (finding.path, finding.line) in sites and finding.symbol in keys:
            located = Located(code, finding.symbol, finding.path, finding.line, finding.column, finding.end_column,
                              finding.snippet, finding.cell, end_line=finding.end_line, role=finding.role,
                              reach=finding.reach, reach_reason=finding.reach_reason)
            finding = factory.build_located(located, 0).model_copy(update={"suppressed": finding.suppressed})
        result.append(finding)
    return result
