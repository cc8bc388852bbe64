"""transformers' own NPU route for attn_implementation="flash_attention_2": from 4.51.0 (packages.toml npu_routes) a
model loaded on an Ascend host without flash-attn runs npu_fusion_attention through integrations/npu_flash_attention.py.
Where the transformers requirement that governs the file (its own `!pip install` cell, else the manifests, else the
install documents: domains/dependencies/governing.py) installs such a release, the choice runs as written: the
finding becomes info with the integration's caveats."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.findings import FindingFactory, Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.attention.registries import TRANSFORMERS_CHOICE
from ascend_feasibility.domains.dependencies.governing import governing, routes

PACKAGE = "transformers"
ROUTED = "transformers-routes"  # the facet of ATT030's info variant


def routed_choices(findings: list[Finding], declarations: list[Declaration], factory: FindingFactory) -> list[Finding]:
    """`findings` with each transformers-choice finding whose governing transformers routes the choice rebuilt as the
    routed variant."""
    record = factory.kb.package(PACKAGE)
    if record is None or not record.npu_routes or not any(f.rule == TRANSFORMERS_CHOICE for f in findings):
        return findings
    result = []
    for finding in findings:
        name = finding.symbol.split("=", 1)[0].strip().strip("\"'")
        route = next((r for r in record.npu_routes if name in r.names), None)
        if finding.rule == TRANSFORMERS_CHOICE and route is not None \
                and routes(governing(declarations, PACKAGE, finding.path), route):
            located = Located(finding.rule, finding.symbol, finding.path, finding.line, finding.column,
                              finding.end_column, finding.snippet, finding.cell, finding.replacement.code, facets=(ROUTED,),
                              end_line=finding.end_line, role=finding.role, reach=finding.reach,
                              reach_reason=finding.reach_reason)
            finding = factory.build_located(located, 0).model_copy(update={"suppressed": finding.suppressed})
        result.append(finding)
    return result
