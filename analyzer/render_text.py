"""The terminal summary. Reads only the report model."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from analyzer.models import DOMAINS, SEVERITIES, Report

SEVERITY_STYLE = {"blocker": "bold red", "high": "red", "medium": "yellow", "low": "cyan", "info": "dim"}
MIGRATION_LABEL = {"auto": "auto", "rewrite": "rewrite", "manual": "manual", "unsupported": "unsupported"}
MAX_LISTED = 300
MAX_BOTTLENECKS = 10
VERDICT_STYLE = {"feasible": "bold green", "needs adaptation": "bold yellow", "difficult": "bold red", "infeasible": "bold red"}


def render_text(report: Report, console: Console) -> None:
    project, target, summary = report.project, report.target, report.summary
    console.print(f"[bold]{escape(project.name)}[/bold]: {project.files_scanned} files, {project.lines_scanned} lines scanned")
    console.print(
        f"target torch_npu {escape(target.torch_npu)} → release {escape(target.release)} "
        f"(PyTorch {escape(target.torch)}, CANN {escape(target.cann)})"
    )
    if target.note:
        console.print(f"[yellow]note:[/yellow] {escape(target.note)}")
    console.print()
    console.print(_counts_table(report))
    console.print(
        "migration: "
        + ", ".join(f"{MIGRATION_LABEL[k]} {v}" for k, v in summary.by_migration.items())
        + (f"; suppressed {summary.suppressed}" if summary.suppressed else "")
    )
    active = [f for f in report.findings if not f.suppressed]
    if active:
        console.print()
        by_file = defaultdict(list)
        for finding in active[:MAX_LISTED]:
            by_file[finding.path].append(finding)
        for path, findings in by_file.items():
            console.print(f"[bold]{escape(path)}[/bold]")
            for f in findings:
                where = f"{f.line}:{f.column}" if f.cell is None else f"cell {f.cell}, {f.line}:{f.column}"
                style = SEVERITY_STYLE[f.severity]
                line = (
                    f"  {where:>10}  [{style}]{f.rule}[/{style}] {escape(f.name)} "
                    f"[dim]({f.severity}, {f.migration})[/dim] {escape(f.symbol)}"
                )
                if f.migration != "auto":  # automatic ones need no reading; the JSON has their texts
                    line += f"\n              {escape(f.message.en)}"
                console.print(line)
        if len(active) > MAX_LISTED:
            console.print(f"[dim]… {len(active) - MAX_LISTED} more findings: use --format json for all of them[/dim]")
    _plan(report, console)
    if report.calibration is not None:
        _calibration(report, console)
    if report.skipped:
        console.print()
        console.print(f"[bold]skipped or partly analysed ({len(report.skipped)})[/bold]")
        for entry in report.skipped:
            console.print(f"  {escape(entry.path)}: {escape(entry.reason)}")
    if report.unused_suppressions:
        console.print()
        console.print(f"[bold]unused suppressions ({len(report.unused_suppressions)})[/bold]")
        for entry in report.unused_suppressions:
            console.print(f"  {escape(entry.path)}:{entry.line}: {escape(entry.code)} ({entry.reason})")


def _counts_table(report: Report) -> Table:
    table = Table(title="findings by domain and severity", title_justify="left")
    table.add_column("domain")
    for severity in SEVERITIES:
        table.add_column(severity, justify="right", style=SEVERITY_STYLE[severity])
    table.add_column("total", justify="right")
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for f in report.findings:
        if not f.suppressed:
            counts[(f.domain, f.severity)] += 1
    for domain in DOMAINS:
        total = report.summary.by_domain.get(domain, 0)
        if total:
            table.add_row(domain, *(str(counts[(domain, s)] or "") for s in SEVERITIES), str(total))
    table.add_row("all", *(str(report.summary.by_severity[s]) for s in SEVERITIES), str(report.summary.total), style="bold")
    return table


def _plan(report: Report, console: Console) -> None:
    verdict, work, matrix, arch = report.verdict, report.effort, report.phase_matrix, report.architecture
    console.print()
    style = VERDICT_STYLE[verdict.verdict]
    console.print(f"verdict: [{style}]{escape(verdict.label.en)}[/{style}] "
                  f"(effort {work.total.low_days:g}–{work.total.high_days:g} person-days)")
    for driver in verdict.drivers:
        console.print(f"  {escape(driver.en)}")
    for entry in matrix.entries:
        console.print(f"entry {escape(entry.path)}: {', '.join(entry.phases)}")
    for phase, days in work.by_phase.items():
        items = len(matrix.minimal_sets.get(phase, []))
        console.print(f"phase {phase}: {items} items, {days.low_days:g}–{days.high_days:g} person-days")
    if report.bottlenecks:
        console.print(f"[bold]bottlenecks ({len(report.bottlenecks)})[/bold]")
        for item in report.bottlenecks[:MAX_BOTTLENECKS]:
            console.print(f"  {item.id} [{SEVERITY_STYLE[item.severity]}]{item.severity}[/] "
                          f"{item.estimate.low_days:g}–{item.estimate.high_days:g} d  {escape(item.title.en)}")
        if len(report.bottlenecks) > MAX_BOTTLENECKS:
            console.print(f"  [dim]… {len(report.bottlenecks) - MAX_BOTTLENECKS} more in the JSON[/dim]")
    models = ", ".join(f"{m.name} ({m.forward or m.path})" for m in arch.models[:4])
    console.print(f"architecture: {escape(arch.family)}" + (f"; models {escape(models)}" if models else "")
                  + (f"; attention {escape(', '.join(arch.attention))}" if arch.attention else ""))


def _calibration(report: Report, console: Console) -> None:
    section = report.calibration
    console.print()
    console.print(f"[bold]calibration[/bold] from {escape(section.source)}: {escape(section.device_type)} "
                  f"({escape(section.device_name)}), torch {escape(section.torch or '-')}, "
                  f"torch_npu {escape(section.torch_npu or '-')}, CANN {escape(section.cann or '-')}")
    for outcome in section.rules:
        console.print(f"  {outcome.rule} {outcome.outcome}: {escape(outcome.detail)}")
    counts: dict[str, int] = defaultdict(int)
    for row in section.rows:
        counts[row.verdict] += 1
    console.print("  probe results: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
