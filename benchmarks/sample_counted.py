"""Draw a seeded random sample of counted findings for a hand audit (issue 11, docs/audits/).

Counted = not suppressed, reach `runs`, role product or build, and not an info finding of 0 hours (whose advice asks no
change: listed, not counted; analyzer/core/models.Finding.counted): what drives severity ranking, effort and the verdict.

    python -m ascend_feasibility analyze /work/repos/whisper --format json -o reports/whisper.json   # one JSON per repository
    python benchmarks/sample_counted.py reports --seed 2026 --size 100 --above-info 50

Prints sample A (--size findings of any severity), then sample B (--above-info findings above info, drawn after A
from the same generator), one tab-separated row per finding (sample, n, repository, path:line, rule, severity,
snippet), and, on standard error,
the counted findings per repository and per rule. The repositories are read in the order given by --repos so that
the same reports and seed always give the same sample.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

REPOS = ("whisper", "x-transformers", "DeepSpeed", "diffusers")
COUNTED_ROLES = ("product", "build")


def counted(report: dict) -> list[dict]:
    return [f for f in report["findings"]
            if not f["suppressed"] and f["reach"] == "runs" and f["role"] in COUNTED_ROLES
            and (f["effort_hours"]["high"] > 0 or f["severity"] != "info")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path, help="folder with one <repository>.json report each")
    parser.add_argument("--repos", nargs="+", default=list(REPOS))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--above-info", type=int, default=50, help="size of sample B, drawn from findings above info")
    args = parser.parse_args(argv)
    pool: list[tuple[str, dict]] = []
    for repo in args.repos:
        findings = counted(json.loads((args.reports / f"{repo}.json").read_text(encoding="utf-8")))
        above = sum(1 for f in findings if f["severity"] != "info")
        print(f"{repo}: {len(findings)} counted, {above} above info", file=sys.stderr)
        pool += [(repo, f) for f in findings]
    by_rule = Counter(f["rule"] for _, f in pool)
    print("by rule: " + ", ".join(f"{rule} {n}" for rule, n in by_rule.most_common()), file=sys.stderr)
    rng = random.Random(args.seed)
    sample_a = rng.sample(pool, min(args.size, len(pool)))
    above_pool = [item for item in pool if item[1]["severity"] != "info"]
    sample_b = rng.sample(above_pool, min(args.above_info, len(above_pool)))
    for label, sample in (("A", sample_a), ("B", sample_b)):
        for n, (repo, f) in enumerate(sample, 1):
            snippet = " ".join(f["snippet"].split())[:110]
            print(f"{label}\t{n}\t{repo}\t{f['path']}:{f['line']}\t{f['rule']}\t{f['severity']}\t{snippet}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
