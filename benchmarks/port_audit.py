"""Draw a seeded random sample of the hunks `port --unsafe` writes, for a hand audit (issue 25, docs/audits/).

    python -m benchmarks.port_audit /tmp/repos/a /tmp/repos/b ... --seed 2511 --size 40

Each folder is a project's working copy. Every hunk of the patch on an existing file is a candidate (the new device
module is one file the patch adds, not a rewrite of the project's code); the sample is drawn from all of them
together, in the order the folders are given, so that the same copies and seed give the same sample. Prints each
hunk with its number, project and file; on standard error, the hunks per project.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port, unified_diff


def hunks(root: Path) -> list[tuple[str, str]]:
    """(file, hunk text) for each hunk of `port --unsafe` on root, files the patch creates left out."""
    result = port(root, analyze(root, AnalyzeOptions(jobs=1)), PortOptions(unsafe=True))
    found: list[tuple[str, str]] = []
    path, current, new_file = "", [], False
    for line in unified_diff(result).splitlines():
        if line.startswith("diff --git"):
            if current and not new_file:
                found.append((path, "\n".join(current)))
            path, new_file, current = line.split(" b/", 1)[-1], False, []
            continue
        if line.startswith("new file"):
            new_file = True
        if line.startswith("@@"):
            if current and not new_file:
                found.append((path, "\n".join(current)))
            current = [line]
        elif current:
            current.append(line)
    if current and not new_file:
        found.append((path, "\n".join(current)))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="+", type=Path)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--size", type=int, default=40)
    args = parser.parse_args(argv)
    pool = []
    for root in args.projects:
        found = hunks(root)
        print(f"{root.name}: {len(found)} hunks", file=sys.stderr)
        pool += [(root.name, path, hunk) for path, hunk in found]
    sample = random.Random(args.seed).sample(pool, min(args.size, len(pool)))
    for number, (project, path, hunk) in enumerate(sample, 1):
        print(f"==== {number} {project} {path}\n{hunk}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
