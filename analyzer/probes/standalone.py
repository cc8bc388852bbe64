"""The command line of the exported probe script: run, env, list."""

from __future__ import annotations

import argparse
import json
import sys

from ascend_feasibility.analyzer.probes.catalog import SIZES, listing
from ascend_feasibility.analyzer.probes.environment import detect_environment
from ascend_feasibility.analyzer.probes.runner import DEVICE_CHOICES, run_probes


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", choices=DEVICE_CHOICES, default="auto")
    parser.add_argument("--probe", action="append", dest="probes", metavar="NAME", help="run only this probe (repeatable)")
    parser.add_argument("--shapes", choices=SIZES + ("all",), default="small", help="input sizes (default: small)")
    parser.add_argument("--repeats", type=int, metavar="N", help="timed repetitions (default: by size)")
    parser.add_argument("-o", "--output", default="calibration.json", help="where to write the calibration JSON")


def sizes_of(choice: str) -> tuple[str, ...]:
    return SIZES if choice == "all" else (choice,)


def standalone_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Ascend feasibility probes: measure candidate replacements.")
    commands = parser.add_subparsers(dest="command")
    add_run_arguments(commands.add_parser("run", help="run the probes and write calibration JSON"))
    commands.add_parser("env", help="print the environment check")
    commands.add_parser("list", help="list the probes")
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run", *(argv if argv is not None else sys.argv[1:])])
    if args.command == "list":
        print("\n".join(listing()))
        return 0
    environment = detect_environment()
    if args.command == "env":
        print(json.dumps(environment, indent=2))
        return 0 if environment.get("torch") else 2
    if not environment.get("torch"):
        print(json.dumps(environment["problems"], indent=2), file=sys.stderr)
        return 2

    def show(done: int, total: int, label: str) -> None:
        print(f"[{done}/{total}] {label}", file=sys.stderr, flush=True)

    document = run_probes(args.device, args.probes, sizes_of(args.shapes), args.repeats, show, environment)
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
