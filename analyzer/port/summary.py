"""What `port` did, per rule: sites rewritten safe / unsafe / left for a human, as a share of all sites (the
figure HIPIFY and SYCLomatic print)."""

from __future__ import annotations

from dataclasses import dataclass

from ascend_feasibility.analyzer.core.models import DaysRange, Report
from ascend_feasibility.analyzer.port.core import PortResult
from ascend_feasibility.domains import effort_left
from ascend_feasibility.knowledge import load_knowledge


@dataclass(frozen=True)
class RuleTally:
    rule: str
    name: str
    fix: str
    sites: int
    safe: int
    unsafe: int

    @property
    def left(self) -> int:
        return self.sites - self.safe - self.unsafe


def rewritten_fingerprints(result: PortResult) -> set[str]:
    patched = {r.path for r in result.rewrites}
    return {o.finding.fingerprint for o in result.outcomes
            if o.rewritten and o.finding.path in patched}


def summarize(report: Report, result: PortResult) -> list[RuleTally]:
    kb = load_knowledge()
    done = rewritten_fingerprints(result)
    counts: dict[str, list[int]] = {}
    for finding in report.findings:
        if finding.suppressed or finding.rule not in kb.rules:
            continue
        row = counts.setdefault(finding.rule, [0, 0])
        row[0] += 1
        row[1] += finding.fingerprint in done
    tallies = []
    for code, (sites, rewritten) in sorted(counts.items()):
        rule = kb.rules[code]
        tallies.append(RuleTally(code, rule.name, rule.fix, sites,
                                 rewritten if rule.fix == "safe" else 0, rewritten if rule.fix == "unsafe" else 0))
    return tallies


def remaining_effort(report: Report, result: PortResult) -> DaysRange | None:
    """The report's required effort recomputed (the same estimate) over the findings the patch did not resolve."""
    done = rewritten_fingerprints(result)
    return effort_left(report, [f for f in report.findings if f.fingerprint not in done])


def summary_lines(tallies: list[RuleTally], result: PortResult, report: Report | None = None) -> list[str]:
    total = sum(t.sites for t in tallies)
    safe = sum(t.safe for t in tallies)
    unsafe = sum(t.unsafe for t in tallies)
    share = (safe + unsafe) / total if total else 0.0
    attempted = sum(1 for o in result.outcomes if o.reason is None or not o.reason.startswith("display-only"))
    modules = result.device_modules or ([result.device_module] if result.device_module else [])
    lines = [f"port: {safe + unsafe} of {total} sites rewritten ({share:.0%}): {safe} safe, {unsafe} unsafe, "
             f"{total - safe - unsafe} left for a human ({attempted} had a fix and ran in product code); "
             f"{len(result.rewrites)} files changed"
             + (f", device module{'s' if len(modules) > 1 else ''} {', '.join(modules)}" if modules else "")]
    after = remaining_effort(report, result) if report is not None and report.effort is not None else None
    if after is not None:
        before = report.effort.total
        removed = 1 - (after.low_days + after.high_days) / (before.low_days + before.high_days) \
            if before.low_days + before.high_days else 0.0
        lines.append(f"  required effort: {before.low_days:g}-{before.high_days:g} person-days before, "
                     f"{after.low_days:g}-{after.high_days:g} left after the patch (the patch removes {removed:.0%} "
                     f"of the estimate)")
    for tally in tallies:
        if tally.safe or tally.unsafe or tally.fix != "display-only":
            lines.append(f"  {tally.rule} {tally.name:<32} {tally.fix:<12} sites {tally.sites:>4}  safe {tally.safe:>4}  "
                         f"unsafe {tally.unsafe:>4}  left {tally.left:>4}")
    for path, reason in result.unpatched:
        lines.append(f"  not patched: {path}: {reason}")
    skipped: dict[str, list] = {}
    for finding, why in result.skipped_sites:
        if not finding.suppressed:
            skipped.setdefault(why, []).append(finding.rule)
    if skipped:
        lines.append("  sites not attempted, by reason: " + "; ".join(
            f"{len(rules)} {why} ({', '.join(sorted(set(rules))[:6])}{', ...' if len(set(rules)) > 6 else ''})"
            for why, rules in sorted(skipped.items(), key=lambda item: (-len(item[1]), item[0]))))
    held = [o for o in result.outcomes if o.reason is not None]
    if held:
        lines.append(f"  sites left for a human, by reason ({len(held)}):")
    for reason, rules, count in left_by_reason(held):
        lines.append(f"    {count:>4}  {reason} ({', '.join(rules)})")
    for outcome in held[:MAX_HELD_LISTED]:
        f = outcome.finding
        lines.append(f"  left: {f.path}:{f.line} {f.rule}: {outcome.reason}")
    if len(held) > MAX_HELD_LISTED:
        lines.append(f"  ... and {len(held) - MAX_HELD_LISTED} more sites left")
    if result.left_on_edited:
        lines.append(f"  still found on statements the patch edited (the patched files read again; lines of the "
                     f"original files, as above, {len(result.left_on_edited)}):")
    for path, line, rule, symbol in result.left_on_edited[:MAX_HELD_LISTED]:
        lines.append(f"  left on an edited line: {path}:{line} {rule} {symbol}")
    if len(result.left_on_edited) > MAX_HELD_LISTED:
        lines.append(f"  ... and {len(result.left_on_edited) - MAX_HELD_LISTED} more")
    return lines


MAX_HELD_LISTED = 50


def left_by_reason(held) -> list[tuple[str, list[str], int]]:
    """(reason, its rules, how many sites) for the sites left, most frequent first; a reason's line number and the
    name it quotes are dropped so that one cause is one row."""
    groups: dict[str, tuple[set[str], list[int]]] = {}
    for outcome in held:
        key = _reason_class(outcome.reason)
        rules, count = groups.setdefault(key, (set(), [0]))
        rules.add(outcome.finding.rule)
        count[0] += 1
    return sorted(((key, sorted(rules), count[0]) for key, (rules, count) in groups.items()), key=lambda r: (-r[2], r[0]))


def _reason_class(reason: str) -> str:
    if reason.startswith("the branch it decides keeps"):
        return "the branch it decides keeps a site the patch does not rewrite"
    if reason.startswith("the branch it decides calls"):
        return "the branch it decides calls a function that may be CUDA-only"
    if reason.startswith("the branch it decides runs torch.ops.aten."):
        return "the branch it decides runs an ATen operator with no NPU kernel"
    if reason.startswith("runs only where the CUDA check at line "):
        return "runs only where a CUDA check the patch leaves holds: port the check and its branch together"
    if reason.startswith("the test of ") and "a default changed to the NPU would reach it unported" in reason:
        return "a device test of the same value stays: a default changed to the NPU would reach it unported"
    if reason.startswith("the device module offers no "):
        return "the device module offers no equivalent"
    return reason.split(": ", 1)[0] if reason.startswith("file left unpatched") else reason
