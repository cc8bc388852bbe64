"""The terminal summary, in English or Chinese (`--lang zh`). Reads only the report model; labels are UI strings."""

from __future__ import annotations

import functools
import unicodedata
from collections import defaultdict

from ascend_feasibility.analyzer.core.models import DOMAINS, SEVERITIES, Report
from ascend_feasibility.analyzer.reporting.localize import phrase, term, titled
from ascend_feasibility.analyzer.reporting.report_view import entry_files, step0_items, top_cost_drivers
from ascend_feasibility.analyzer.reporting.ui_strings import ui_text
from rich.console import Console
from rich.markup import escape as rich_escape
from rich.table import Table


def _hiding_characters() -> list[int]:
    """C0 and C1 control characters and DEL (Cc), the line and paragraph separators U+2028/U+2029 (Zl, Zp), and
    every format character (Cf: bidirectional overrides and isolates, zero-width spaces and joiners, the soft
    hyphen, the byte-order mark, interlinear annotations, tag characters): each can move, reorder or hide what a
    terminal shows. Planes 0, 1 and 14 hold every such character Unicode assigns."""
    return [code for code in (*range(0x20000), *range(0xE0000, 0xE1000))
            if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp")]


@functools.cache
def _escapes() -> dict[int, str]:  # built on first use: the scan takes a tenth of a second
    return {code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
            for code in _hiding_characters()}


def printable(text: str) -> str:
    """Project text as a terminal may show it: control, separator and format characters (escape sequences, OSC
    titles, bells, carriage returns, U+2028, bidi overrides, zero-width characters) become visible escapes instead
    of acting on the terminal."""
    return text.translate(_escapes())


def escape(text: str) -> str:
    """Project text for rich: control characters made visible, then markup escaped."""
    return rich_escape(printable(text))


SEVERITY_STYLE = {"blocker": "bold red", "high": "red", "medium": "yellow", "low": "cyan", "info": "dim"}
MAX_LISTED = 300
MAX_BOTTLENECKS = 10
VERDICT_STYLE = {"feasible": "bold green", "needs adaptation": "bold yellow", "difficult": "bold red", "infeasible": "bold red", "not-applicable": "bold"}


class _Words:
    """UI strings (text.* and the shared labels) in one language, and the language's side of bilingual texts."""

    def __init__(self, language: str) -> None:
        self.language = language

    def __call__(self, key: str, **values) -> str:
        return ui_text(self.language, key, **values)

    def text(self, bilingual) -> str:
        return getattr(bilingual, self.language)

    def title(self, bilingual) -> str:
        return titled(self.language, bilingual)

    def label(self, group: str, value: str) -> str:
        return value if self.language == "en" else ui_text(self.language, f"{group}.{value}")


def render_text(report: Report, console: Console, language: str = "en") -> None:
    t = _Words(language)
    project, target, summary = report.project, report.target, report.summary
    console.print(t("text.scanned", name=f"[bold]{escape(project.name)}[/bold]", files=project.files_scanned,
                    lines=project.lines_scanned))
    console.print(t("text.target", requested=escape(target.torch_npu), release=escape(target.release),
                    torch=escape(target.torch), cann=escape(target.cann)))
    if target.reason:
        console.print(f"  {escape(t.text(target.reason))}")
    if target.note:
        console.print(f"[yellow]{t('text.note')}[/yellow] {escape(target.note)}")
    for sub in target.subprojects:
        console.print(f"{escape(t('report.header_subproject_target', folder=sub.folder))}: "
                      f"{escape(t('report.subproject_target_line', release=sub.release, torch=sub.torch))}")
        console.print(f"  {escape(t.text(sub.reason))}")
    revision = project.project_revision
    if revision is not None:
        console.print(t("report.header_revision") + ": " + escape(t(
            "report.revision_line", commit=revision.commit, branch=f" ({revision.branch})" if revision.branch else "",
            dirty=t("report.revision_dirty") if revision.dirty else "")))
    if report.changed_since is not None:
        changed = report.changed_since
        console.print(f"[bold]{t('report.header_changed')}[/bold]: " + escape(t(
            "report.changed_line", ref=changed.ref, commit=changed.commit[:12], kept=changed.kept, left_out=changed.left_out)))
    console.print()
    console.print(_counts_table(report, t))
    console.print(
        t("text.migration")
        + ", ".join(f"{t.label('migration', k)} {v}" for k, v in summary.by_migration.items())
        + (t("text.suppressed", count=summary.suppressed) if summary.suppressed else "")
    )
    everything = [f for f in report.findings if not f.suppressed]
    active = [f for f in everything if f.counted and not (f.severity == "info" and f.migration == "auto")]
    auto = sum(f.counted and f.severity == "info" and f.migration == "auto" for f in everything)
    uncounted = sum(not f.counted for f in everything)
    if auto or uncounted:
        console.print(f"[dim]{t('text.folded', auto=auto, uncounted=uncounted)}[/dim]")
    if active:
        console.print()
        by_file = defaultdict(list)
        for finding in active[:MAX_LISTED]:
            by_file[finding.path].append(finding)
        for path, findings in by_file.items():
            console.print(f"[bold]{escape(path)}[/bold]")
            for f in findings:
                where = f"{f.line}:{f.column}" if f.cell is None else t("text.cell_at", cell=f.cell, line=f.line, column=f.column)
                style = SEVERITY_STYLE[f.severity]
                line = (
                    f"  {where:>10}  [{style}]{f.rule}[/{style}] {escape(f.name)} "
                    f"[dim]({t.label('severity', f.severity)}, {t.label('migration', f.migration)})[/dim] {escape(f.symbol)}"
                )
                if f.migration != "auto":  # automatic ones need no reading; the JSON has their texts
                    line += f"\n              {escape(t.text(f.message))}"
                console.print(line)
        if len(active) > MAX_LISTED:
            console.print(f"[dim]{t('text.more_findings', count=len(active) - MAX_LISTED)}[/dim]")
    _plan(report, console, t)
    if report.calibration is not None:
        _calibration(report, console, t)
    if report.skipped:
        console.print()
        console.print(f"[bold]{t('text.skipped', count=len(report.skipped))}[/bold]")
        for entry in report.skipped:
            console.print(f"  {escape(entry.path)}: {escape(entry.reason)}")
    if report.unused_suppressions:
        console.print()
        console.print(f"[bold]{t('text.unused', count=len(report.unused_suppressions))}[/bold]")
        for entry in report.unused_suppressions:
            console.print(f"  {escape(entry.path)}:{entry.line}: {escape(entry.code)} ({entry.reason})")


def _counts_table(report: Report, t: _Words) -> Table:
    table = Table(title=t("text.counts_title"), title_justify="left")
    table.add_column(t("text.domain"))
    for severity in SEVERITIES:
        table.add_column(t.label("severity", severity), justify="right", style=SEVERITY_STYLE[severity])
    table.add_column(t("text.total"), justify="right")
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for f in report.findings:
        if not f.suppressed:
            counts[(f.domain, f.severity)] += 1
    for domain in DOMAINS:
        total = report.summary.by_domain.get(domain, 0)
        if total:
            table.add_row(t.label("domain", domain), *(str(counts[(domain, s)] or "") for s in SEVERITIES), str(total))
    table.add_row(t("text.all"), *(str(report.summary.by_severity[s]) for s in SEVERITIES), str(report.summary.total),
                  style="bold")
    return table


def _plan(report: Report, console: Console, t: _Words) -> None:
    verdict, work, matrix, arch = report.verdict, report.effort, report.phase_matrix, report.architecture
    console.print()
    style = VERDICT_STYLE[verdict.verdict]
    console.print(t("text.verdict", verdict=f"[{style}]{escape(t.text(verdict.label))}[/{style}]",
                    low=f"{work.total.low_days:g}", high=f"{work.total.high_days:g}"))
    for driver in verdict.drivers:
        console.print(f"  {escape(t.text(driver))}")
    for folder, part in work.subprojects.items():
        console.print("  " + escape(t("summary.effort_subproject", folder=folder, low=f"{part.low_days:g}",
                                      high=f"{part.high_days:g}")))
    _step0_and_drivers(report, console, t)
    separator = t("report.list_separator")
    for entry in matrix.entries:
        phases = separator.join(t.label("phase", p) for p in entry.phases)
        console.print(t("text.entry", path=escape(entry.path), phases=phases))
    for phase, days in work.by_phase.items():
        items = len(matrix.minimal_sets.get(phase, []))
        console.print(t("text.phase", phase=t.label("phase", phase), items=items, low=f"{days.low_days:g}",
                        high=f"{days.high_days:g}"))
    if report.bottlenecks:
        console.print(f"[bold]{t('text.bottlenecks', count=len(report.bottlenecks))}[/bold]")
        for item in report.bottlenecks[:MAX_BOTTLENECKS]:
            console.print(f"  {item.id} [{SEVERITY_STYLE[item.severity]}]{t.label('severity', item.severity)}[/] "
                          f"{t('text.days', low=f'{item.estimate.low_days:g}', high=f'{item.estimate.high_days:g}')}  "
                          f"{escape(t.title(item.title))}")
        if len(report.bottlenecks) > MAX_BOTTLENECKS:
            console.print(f"  [dim]{t('text.more_bottlenecks', count=len(report.bottlenecks) - MAX_BOTTLENECKS)}[/dim]")
    models = ", ".join(f"{m.name} ({m.forward or m.path})" for m in arch.models[:4])
    console.print(t("text.architecture", family=escape(term(t.language, arch.family)))
                  + (t("text.models", models=escape(models)) if models else "")
                  + (t("text.attention", attention=escape(", ".join(arch.attention))) if arch.attention else ""))


def _step0_and_drivers(report: Report, console: Console, t: _Words) -> None:
    step0 = step0_items(report)
    if step0:
        console.print(f"[bold]{t('summary.step0')}[/bold]")
        for item in step0:
            what = t.text(item.replacement) if item.replacement else phrase(t.language, item.item)
            console.print(f"  {escape(what)} ({t('summary.hours_range', low=f'{item.hours.low:g}', high=f'{item.hours.high:g}')})")
        files = entry_files(step0)
        console.print(f"  {t('summary.step0_entries')}: " + (escape(", ".join(files)) if files else t("summary.step0_none")))
    drivers = top_cost_drivers(report)
    if drivers:
        console.print(f"[bold]{t('summary.top_drivers')}[/bold]")
        for number, item in enumerate(drivers, start=1):
            what = t.text(item.replacement) if item.kind == "adoption" and item.replacement else phrase(t.language, item.item)
            console.print(f"  {number}. " + escape(t("summary.driver_line", item=what, low=f"{item.hours.low:g}",
                                                       high=f"{item.hours.high:g}", share=f"{int(item.share * 100)}%")))


def _calibration(report: Report, console: Console, t: _Words) -> None:
    section = report.calibration
    console.print()
    console.print(t("text.calibration", source=escape(section.source), device=escape(section.device_type),
                    name=escape(section.device_name), torch=escape(section.torch or "-"),
                    torch_npu=escape(section.torch_npu or "-"), cann=escape(section.cann or "-")))
    for outcome in section.rules:
        console.print(f"  {outcome.rule} {t.label('outcome_word', outcome.outcome)}: {escape(phrase(t.language, outcome.detail))}")
    counts: dict[str, int] = defaultdict(int)
    for row in section.rows:
        counts[row.verdict] += 1
    console.print(t("text.probe_results") + ", ".join(f"{t.label('verdict', k)} {v}" for k, v in sorted(counts.items())))
