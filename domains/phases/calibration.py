"""How measured probe results change the findings the effort model and the verdict read.

The probe runner (a later capability) measures a candidate replacement for a knowledge-base rule and reports one
outcome per rule. This module is the interface it feeds: a replacement measured good narrows and lowers its
items, a slower one widens them (tuning work, a performance risk), and one measured missing or wrong turns its
items into blockers with manual migration, since the planned replacement cannot be used."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.models import EffortHours, Finding, RuleCalibration


def calibrate(findings: list[Finding], measured: list[RuleCalibration], factors: dict) -> list[Finding]:
    """The findings, updated in place with the measured outcome of their rule; rules not measured are left as
    they are."""
    by_rule = {m.rule: m for m in measured}
    if by_rule:
        for index, finding in enumerate(findings):
            if finding.rule in by_rule:
                findings[index] = _apply(finding, by_rule[finding.rule], factors)
    return findings


def _apply(finding: Finding, measured: RuleCalibration, factors: dict) -> Finding:
    low, high = finding.effort_hours.low, finding.effort_hours.high
    if measured.outcome == "good":
        return finding.model_copy(update={
            "confidence": "high",
            "effort_hours": EffortHours(low=round(low * factors["good_low"], 2), high=round(low + (high - low) * factors["good_span"], 2)),
        })
    if measured.outcome == "slower":
        return finding.model_copy(update={"effort_hours": EffortHours(low=low, high=round(high * factors["slower_high"], 2))})
    return finding.model_copy(update={
        "severity": "blocker",
        "migration": "manual",
        "confidence": "low",
        "effort_hours": EffortHours(low=max(low, factors["broken_min_low"]), high=max(high, factors["broken_min_high"])),
    })
