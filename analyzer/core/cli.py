"""Command line: `ascend-feasibility analyze PATH ...`. Exit 0 on success, 1 when --fail-on is met,
2 on usage or fatal errors (one line on stderr, never a traceback)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from pathlib import Path

from ascend_feasibility.analyzer import TOOL_NAME, __version__
from ascend_feasibility.analyzer.core.baseline import BaselineError, load_baseline, new_findings, stale_entries, write_baseline
from ascend_feasibility.analyzer.core.cache import default_cache_dir
from ascend_feasibility.analyzer.core.calibration import (
    CalibrationError,
    applies,
    calibration_section,
    load_calibration,
    rule_outcomes,
)
from ascend_feasibility.analyzer.core.changes import only_changed
from ascend_feasibility.analyzer.core.models import SEVERITIES, Finding, Report, severity_rank
from ascend_feasibility.analyzer.core.pipeline import AnalysisError, AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port.command_names import STYLES, ApplyError  # port's code loads when it runs
from ascend_feasibility.analyzer.probes.commands import ProbeError, add_probe_commands, run_probe_command
from ascend_feasibility.analyzer.reading.gitinfo import ChangedLines, GitUnavailable, changed_since
from ascend_feasibility.analyzer.reporting.outputs import (
    FORMATS,
    LANGUAGE_CHOICES,
    Output,
    UnsafeOutput,
    output_files,
    safe_folder,
    write_all,
    write_format,
    write_output,
)
from ascend_feasibility.analyzer.reporting.render_text import printable
from ascend_feasibility.analyzer.reporting.rule_docs import render_rule, rules_by_domain, write_docs
from ascend_feasibility.knowledge import KnowledgeError, load_knowledge
from rich.console import Console
from rich.markdown import Markdown
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

EXIT_OK, EXIT_FAIL_ON, EXIT_ERROR = 0, 1, 2
PROGRESS_DELAY_SECONDS = 1.0


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of argparse's usage dump
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=TOOL_NAME, description="What it takes to move a PyTorch/CUDA project onto Ascend NPUs.")
    parser.add_argument("--version", action="version", version=f"{TOOL_NAME} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("analyze", help="analyze a project folder without running any of it")
    run.add_argument("path", type=Path, help="the project folder (or one file of it)")
    run.add_argument("--format", choices=FORMATS, default="text")
    run.add_argument("-o", "--output", type=Path, help="write the report to this file instead of standard output")
    run.add_argument("--output-dir", type=Path, metavar="DIR", help="write every format into DIR")
    run.add_argument("--lang", choices=tuple(LANGUAGE_CHOICES), default="both",
                     help="language of the reports: Markdown and HTML take both (the default); text and zh or en")
    run.add_argument("--torch-npu", dest="torch_npu", metavar="VERSION", help="target torch_npu version (default: the newest release fitting the project's torch requirement, else 2.12.0)")
    run.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="gitignore-style pattern to skip")
    run.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: the number of cores)")
    run.add_argument("--fail-on", choices=SEVERITIES, metavar="SEVERITY", help="exit 1 if a finding is this severe or worse")
    run.add_argument("--baseline", type=Path, metavar="FILE",
                     help="a report.json of an earlier run (or a --write-baseline file): --fail-on counts only findings "
                     "that are not in it")
    run.add_argument("--write-baseline", dest="write_baseline", type=Path, metavar="FILE",
                     help="write this run's findings to FILE as a baseline for --baseline")
    run.add_argument("--changed-since", dest="changed_since", metavar="REF",
                     help="report only findings on lines changed since this git revision (the whole project is analysed)")
    run.add_argument("--cache-dir", dest="cache_dir", type=Path, metavar="DIR",
                     help=f"keep per-file results here for re-runs (default: {_shown(default_cache_dir())})")
    run.add_argument("--no-cache", dest="no_cache", action="store_true", help="neither read nor write the cache")
    run.add_argument("--calibration", type=Path, metavar="FILE", help="calibration.json from `probe run`: use its measurements")
    explain = commands.add_parser("explain", help="print a rule's documentation")
    explain.add_argument("code", help="rule code or name, e.g. DEV101 or torch-cuda-synchronize")
    explain.add_argument("--lang", choices=("en", "zh"), default="en")
    rules = commands.add_parser("rules", help="list the rules by domain")
    rules.add_argument("--write-docs", type=Path, metavar="DIR", help="(re)generate the rule documentation into DIR")
    add_port_command(commands)
    add_probe_commands(commands)
    return parser


def _shown(path: Path) -> str:
    home = str(Path.home())
    return "~" + str(path)[len(home):] if str(path).startswith(home + os.sep) else str(path)

def add_port_command(commands) -> None:
    port = commands.add_parser(
        "port", help="rewrite the mechanical sites into a patch (safe fixes by default), with a device module")
    port.add_argument("path", type=Path, help="the project folder")
    port.add_argument("-o", "--output", type=Path, metavar="PATCH",
                      help="write the unified diff here (default: standard output); verify_npu.py goes beside it")
    port.add_argument("--apply", action="store_true", help="write the changes in place (refuses a dirty git tree)")
    port.add_argument("--force", action="store_true", help="with --apply: write even into a dirty git tree")
    port.add_argument("--unsafe", action="store_true", help="also apply fixes that need review (fix = unsafe)")
    port.add_argument("--plan-comments", dest="plan_comments", action="store_true",
                      help="also put a comment with the plan above display-only sites (one per function and rule)")
    port.add_argument("--style", choices=STYLES, default="agnostic",
                      help="agnostic (default): a device module picks NPU, CUDA or CPU; npu: write torch.npu/\"npu\"")
    port.add_argument("--only", nargs="+", metavar="RULE", default=[], help="rewrite only these rules")
    port.add_argument("--transfer-to-npu", dest="transfer_to_npu", action="store_true",
                      help="also import torch_npu.contrib.transfer_to_npu at the entry points (with a comment on its side effects)")
    port.add_argument("--torch-npu", dest="torch_npu", metavar="VERSION", help="target torch_npu version")
    port.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="gitignore-style pattern to skip")


def main(argv: list[str] | None = None) -> int:
    _reopen_closed_streams()
    err = Console(stderr=True, highlight=False)
    try:
        return _main(argv, err)
    except BrokenPipeError:  # `| head` closed standard output: nothing more to say, and nothing to say it to
        _silence_stdout()
        return EXIT_OK


def _reopen_closed_streams() -> None:
    """Started with standard output or error closed (`>&-`), Python sets sys.stdout/sys.stderr to None: they become
    /dev/null instead, so the run ends as it would otherwise (its exit code, nothing written) instead of failing on
    the first write. The descriptor is taken too, so that no file opened later becomes descriptor 1 or 2."""
    for number, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            if fd != number:
                os.dup2(fd, number)
                os.close(fd)
            setattr(sys, name, open(number, "w", encoding="utf-8", errors="backslashreplace", closefd=False))
        except OSError:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))


def _silence_stdout() -> None:
    """Point standard output at /dev/null so that Python's final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _main(argv: list[str] | None, err: Console) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "explain":
            return _explain(args)
        if args.command == "rules":
            return _rules(args)
        if args.command == "probe":
            return run_probe_command(args)
        if args.command == "port":
            return _port(args)
        return _analyze(args, err)
    except UsageError as exc:
        return _fatal(str(exc))
    except BrokenPipeError:
        raise  # handled in main(): quietly
    except (AnalysisError, KnowledgeError, CalibrationError, BaselineError, ProbeError, ApplyError, OSError) as exc:
        return _fatal(str(exc))
    except KeyboardInterrupt:
        return _fatal("interrupted", 130)


def _fatal(message: str, code: int = EXIT_ERROR) -> int:
    print(f"{TOOL_NAME}: error: {printable(' '.join(message.split()))}", file=sys.stderr)
    return code


def _analyze(args: argparse.Namespace, err: Console) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if not args.path.exists():
        raise UsageError(f"{args.path} does not exist")
    if not (args.path.is_dir() or args.path.is_file()):
        raise UsageError(f"{args.path} is not a folder or a regular file")
    if args.output_dir is not None and args.output_dir.exists() and not args.output_dir.is_dir():
        raise UsageError(f"--output-dir {args.output_dir} exists and is not a folder")
    own_outputs = tuple(
        path for path in (args.output_dir, args.output, args.baseline, args.write_baseline) if path is not None
    )
    if args.output_dir is not None:  # also the files themselves: `--output-dir .` writes into the analyzed root
        own_outputs += tuple(output_files(args.output_dir))
    if args.output is not None and args.format == "csv":
        own_outputs += (args.output.with_name(f"{args.output.stem}.phase-matrix.csv"),)
    cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
    if args.cache_dir is not None and not args.no_cache:  # a folder named in the tree must not lead out of it
        tree = args.path.resolve()
        try:
            safe_folder(args.cache_dir, tree if tree.is_dir() else tree.parent)
        except UnsafeOutput:
            raise
        except OSError:
            pass  # a folder that cannot be made: the run goes on and stores nothing
    if cache_dir is not None:
        own_outputs += (cache_dir,)  # a cache folder inside the analyzed tree is never scanned
    options = AnalyzeOptions(torch_npu=args.torch_npu, excludes=args.exclude, jobs=args.jobs, own_outputs=own_outputs,
                             cache_dir=cache_dir)
    known = load_baseline(args.baseline) if args.baseline is not None else {}
    if args.calibration is not None:
        measured = load_calibration(args.calibration)
        outcomes = rule_outcomes(measured)
        options.calibration = outcomes if applies(measured) else []  # a CPU or GPU measurement is information only
        options.calibration_section = calibration_section(measured, args.calibration.name, outcomes)
    changes = _changes(args)
    try:
        with _DelayedProgress(err) as progress:
            report = analyze(args.path, options, progress=progress.update)
        if args.write_baseline is not None:  # the whole project's findings, whatever --changed-since leaves out
            write_output(report, Output(args.write_baseline.name, lambda r, s, langs: write_baseline(r, s)),
                         args.write_baseline)
            print(f"wrote a baseline of {sum(not f.suppressed for f in report.findings)} findings to "
                  f"{args.write_baseline}", file=sys.stderr)
        if known:
            _print_stale(stale_entries(known, report.findings))
        if changes is not None:
            report = only_changed(report, changes)
    finally:
        if changes is not None:
            changes.close()
    _write(report, args)
    if args.fail_on is not None:
        failing = _failing(report, args.fail_on)
        if known:
            before = len(failing)
            failing = new_findings(failing, known)
            if before > len(failing):
                print(f"{TOOL_NAME}: --baseline: {before - len(failing)} finding(s) already in the baseline not counted",
                      file=sys.stderr)
        if failing:
            _print_failing(failing, args.fail_on)
            return EXIT_FAIL_ON
    return EXIT_OK


def _print_stale(stale: list) -> None:
    """Baseline entries no finding matches any more: the baseline can be written again without them."""
    if not stale:
        return
    print(f"{TOOL_NAME}: --baseline: {len(stale)} baseline entr{'ies' if len(stale) != 1 else 'y'} no longer found "
          "(fixed, or the code changed; --write-baseline records the current findings)", file=sys.stderr)
    for entry in stale[:MAX_FAILING_LISTED]:
        print(printable(f"  {entry.path}:{entry.line}: {entry.rule}"), file=sys.stderr)
    if len(stale) > MAX_FAILING_LISTED:
        print(f"  ... and {len(stale) - MAX_FAILING_LISTED} more", file=sys.stderr)


def _changes(args: argparse.Namespace) -> ChangedLines | None:
    """--changed-since: the revision is resolved before the analysis, so that a wrong one fails at once."""
    if args.changed_since is None:
        return None
    root = args.path.resolve()
    try:
        return changed_since(root if root.is_dir() else root.parent, args.changed_since)
    except GitUnavailable as exc:
        raise UsageError(f"--changed-since: {exc}") from None

def _port(args: argparse.Namespace) -> int:
    if not args.path.is_dir():
        raise UsageError(f"{args.path} is not a folder")
    if args.apply and args.output is not None:
        raise UsageError("--apply writes in place; -o is for the patch file")
    if args.force and not args.apply:
        raise UsageError("--force only goes with --apply")
    kb = load_knowledge()
    unknown = sorted(code for code in (c.upper() for c in args.only) if code not in kb.rules)
    if unknown:
        raise UsageError(f"--only: unknown rules {', '.join(unknown)}")
    from ascend_feasibility.analyzer.port import PortOptions, apply, port, summarize, unified_diff
    from ascend_feasibility.analyzer.port.patch import write_patch
    from ascend_feasibility.analyzer.port.summary import summary_lines
    from ascend_feasibility.analyzer.port.verify import VERIFY_NAME, test_folder, verify_script

    own_outputs = (args.output,) if args.output is not None else ()
    report = analyze(args.path, AnalyzeOptions(torch_npu=args.torch_npu, excludes=args.exclude, own_outputs=own_outputs))
    options = PortOptions(style=args.style, unsafe=args.unsafe, only=frozenset(c.upper() for c in args.only),
                          transfer_to_npu=args.transfer_to_npu, plan_comments=args.plan_comments)
    result = port(args.path, report, options)
    script = verify_script(report, result, test_folder(args.path), args.path)
    if args.apply:
        written = apply(args.path, result, force=args.force, extra={VERIFY_NAME: script})
        print(f"wrote {len(written)} files in {args.path}", file=sys.stderr)
    else:
        patch = unified_diff(result)
        if args.output is not None:
            write_patch(args.path, args.output, patch, script, VERIFY_NAME)
        else:
            sys.stdout.write(patch)
            sys.stdout.flush()
    for line in summary_lines(summarize(report, result), result, report):
        print(printable(line), file=sys.stderr)
    return EXIT_OK


def _write(report: Report, args: argparse.Namespace) -> None:
    languages = LANGUAGE_CHOICES[args.lang]
    if args.output_dir is not None:
        written = write_all(report, args.output_dir, languages)
        print(f"wrote {len(written)} files to {args.output_dir}", file=sys.stderr)
    if args.output is not None or args.output_dir is None:
        write_format(report, args.format, args.output, languages, sys.stdout)


def _explain(args: argparse.Namespace) -> int:
    kb = load_knowledge()
    wanted = args.code.strip()
    rule = kb.rules.get(wanted.upper()) or next((r for r in kb.rules.values() if r.name == wanted.lower()), None)
    if rule is None:
        names = [*kb.rules, *(r.name for r in kb.rules.values())]
        near = difflib.get_close_matches(wanted.upper(), list(kb.rules), n=3, cutoff=0.6) or \
            difflib.get_close_matches(wanted.lower(), names, n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise UsageError(f"unknown rule {args.code}{hint}; `{TOOL_NAME} rules` lists them by code and name")
    text = render_rule(rule, args.lang, kb)
    if sys.stdout.isatty():  # on a terminal: rendered as text (headings, bold, code blocks), without Markdown escapes
        Console(file=sys.stdout, highlight=False).print(Markdown(text, code_theme="ansi_dark"))
    else:  # piped or redirected: the Markdown itself
        sys.stdout.write(text)
    sys.stdout.flush()
    return EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    if args.write_docs is not None:
        written = write_docs(args.write_docs)
        print(f"wrote {len(written)} files to {args.write_docs}")
        return EXIT_OK
    for domain, rules in rules_by_domain().items():
        print(domain)
        for rule in rules:
            print(f"  {rule.code}  {rule.name:<44} {rule.severity:<8} {rule.migration:<12} {rule.fix}")
    return EXIT_OK


MAX_FAILING_LISTED = 20


def _failing(report: Report, threshold: str) -> list[Finding]:
    limit = severity_rank(threshold)
    return [f for f in report.findings if not f.suppressed and severity_rank(f.severity) <= limit]


def _print_failing(failing: list[Finding], threshold: str) -> None:
    """On stderr, which findings met --fail-on, so that a failed CI step says why."""
    print(f"{TOOL_NAME}: --fail-on {threshold}: {len(failing)} finding{'s' if len(failing) != 1 else ''} at "
          f"{threshold} or worse", file=sys.stderr)
    for finding in failing[:MAX_FAILING_LISTED]:
        where = f"{finding.path}:{finding.line}" + (f" (cell {finding.cell})" if finding.cell is not None else "")
        print(printable(f"  {where}: {finding.rule} {finding.name} ({finding.severity})"), file=sys.stderr)
    if len(failing) > MAX_FAILING_LISTED:
        print(f"  ... and {len(failing) - MAX_FAILING_LISTED} more (the report lists them all)", file=sys.stderr)
    sys.stderr.flush()


class _DelayedProgress:
    """A progress bar on stderr that appears only when a run takes more than a moment."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.started = time.monotonic()
        self.bar: Progress | None = None
        self.task = None

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            if not self.console.is_terminal or time.monotonic() - self.started < PROGRESS_DELAY_SECONDS:
                return
            self.bar = Progress(
                TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=self.console, transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("files", total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __enter__(self) -> "_DelayedProgress":
        return self

    def __exit__(self, *exc_info) -> None:
        if self.bar is not None:
            self.bar.stop()
