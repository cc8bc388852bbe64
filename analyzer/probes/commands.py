"""`ascend-feasibility probe list|run|env|export`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ascend_feasibility.analyzer.core.calibration import Calibration
from ascend_feasibility.analyzer.probes import catalog, environment, runner, standalone
from ascend_feasibility.analyzer.probes.export import compatibility_table, export_script
from ascend_feasibility.knowledge import load_knowledge
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table


class ProbeError(Exception):
    """The probes cannot run here (no torch, no such device, unknown probe)."""


def add_probe_commands(commands) -> None:
    probe = commands.add_parser("probe", help="measure candidate replacements on this machine's device")
    actions = probe.add_subparsers(dest="probe_command", required=True, parser_class=type(probe))
    actions.add_parser("list", help="list the probes and the rules they calibrate")
    standalone.add_run_arguments(actions.add_parser("run", help="run the probes and write calibration JSON"))
    env = actions.add_parser("env", help="check torch, torch_npu, CANN, driver and devices")
    env.add_argument("--json", action="store_true", help="print the check as JSON")
    export = actions.add_parser("export", help="write a standalone probe script that needs only torch")
    export.add_argument("directory", type=Path)
    operators = actions.add_parser("operators", help="run ATen operators once on the NPU: kernel, CPU fallback or error")
    operators.add_argument("names", nargs="*", metavar="OPERATOR", help="aten::NAME.overload or NAME.overload")
    operators.add_argument("--report", type=Path, help="also the fallbacks of this JSON report's operator coverage")
    operators.add_argument("--device", choices=("auto", "npu", "cpu"), default="auto")
    operators.add_argument("-o", "--output", type=Path, default=Path("operators.json"))


def run_probe_command(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    if args.probe_command == "list":
        print("\n".join(catalog.listing()))
        return 0
    if args.probe_command == "operators":
        return _operators(args, console)
    kb = load_knowledge()
    if args.probe_command == "export":
        path = export_script(args.directory, kb)
        console.print(f"wrote {path}: run it with `python {path.name} run -o calibration.json` (needs only torch)")
        return 0
    found = environment.detect_environment(table=compatibility_table(kb))
    if args.probe_command == "env":
        return _env(found, args.json, console)
    return _run(args, found, Console(stderr=True, highlight=False))


def _env(found: dict, as_json: bool, console: Console) -> int:
    if as_json:
        print(json.dumps(found, indent=2))
    else:
        rows = Table(show_header=False, box=None)
        for label, key in (("python", "python"), ("platform", "platform"), ("torch", "torch"), ("torch_npu", "torch_npu"),
                           ("CUDA (torch build)", "cuda"), ("CANN", "cann"), ("driver", "driver")):
            rows.add_row(label, str(found.get(key) or "-"))
        devices = ", ".join(f"{kind} ×{count} ({found['device_names'].get(kind, '?')})"
                            for kind, count in found["devices"].items()) or "none (CPU only)"
        rows.add_row("devices", devices)
        rows.add_row("compatibility", f"{found['compatibility']['status']}: {found['compatibility']['message']}")
        console.print(rows)
        for problem in found["problems"]:
            console.print(f"[red]problem[/red] ({problem['where']}): {problem['error']}")
            console.print(f"  [yellow]advice:[/yellow] {problem['advice']}")
    return 0 if found.get("torch") else 2


def _run(args: argparse.Namespace, found: dict, err: Console) -> int:
    if not found.get("torch"):
        advice = "; ".join(p["advice"] for p in found["problems"]) or "torch is not importable"
        raise ProbeError(f"the probes need torch: {advice}")
    if args.shapes in ("large", "all") and args.device in ("auto", "cpu") and not found["devices"]:
        err.print("[yellow]note:[/yellow] large shapes on the CPU take long and need tens of GB of memory")
    with Progress(TextColumn("probing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, transient=True) as bar:
        task = bar.add_task("", total=None)

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=label)

        try:
            document = runner.run_probes(args.device, args.probes, standalone.sizes_of(args.shapes), args.repeats, update, found)
        except (ValueError, RuntimeError) as exc:
            raise ProbeError(str(exc)) from exc
    try:
        Calibration.model_validate(document)  # what we write must be importable
    except ValidationError as exc:
        raise ProbeError(f"the probe results do not fit the calibration schema (please report): {exc.errors()[0]}") from exc
    output = Path(args.output)
    output.write_text(json.dumps(document, indent=2), encoding="utf-8")
    verdicts: dict[str, int] = {}
    for result in document["results"]:
        verdicts[result["verdict"]] = verdicts.get(result["verdict"], 0) + 1
    err.print(f"wrote {output}: {len(document['results'])} results on {document['environment']['device_type']} "
              f"({', '.join(f'{k} {v}' for k, v in sorted(verdicts.items()))})")
    return 0


def _operators(args: argparse.Namespace, console: Console) -> int:
    from ascend_feasibility.analyzer.probes.operators import run_operator_probe
    from ascend_feasibility.knowledge.aten_coverage import load_coverage

    names = [n.removeprefix("aten::") for n in args.names]
    if args.report is not None:
        try:
            coverage = json.loads(args.report.read_text(encoding="utf-8")).get("operator_coverage") or {}
        except (OSError, ValueError) as exc:
            raise ProbeError(f"--report {args.report}: {exc}") from exc
        names += [f["operator"].removeprefix("aten::") for f in coverage.get("fallbacks", [])]
    if not names:  # every operator a Python name reaches that some release runs on the CPU
        table = load_coverage()
        reachable = {o for group in (*table.functions.values(), *table.methods.values()) for o in group}
        names = sorted(o for o in reachable if table.maybe_missing(o))
    names = list(dict.fromkeys(names))
    try:
        document = run_operator_probe(names, args.device)
    except ImportError as exc:
        raise ProbeError(f"the operator probe needs torch: {exc}") from exc
    args.output.write_text(json.dumps(document, indent=2), encoding="utf-8")
    counts: dict[str, int] = {}
    for row in document["results"]:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    console.print(f"wrote {args.output}: {len(names)} operators on {document['device']} "
                  f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    return 0
