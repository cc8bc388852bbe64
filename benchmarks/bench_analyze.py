"""Measure analyze's speed and memory: files/s, MB/s and peak memory (this process and its workers), cold (an
empty cache, as a first run) and warm (the same tree again, every file's result from the cache).

    python benchmarks/bench_analyze.py PATH [--jobs N]
    python benchmarks/bench_analyze.py --synthesize 1000000 [--jobs N]   # a generated tree of ~1M lines
    python benchmarks/bench_analyze.py PATH --no-cache                    # one run without the cache
    python benchmarks/bench_analyze.py PATH --grep                        # beside the seeds' grep battery

The grep battery is what teams run today (shared/seeds: 000-architecture-analysis, 002-migration-analysis), extended
to every domain: one `grep -rnE` per pattern over the tree's code, build and config files, run in turn. The goals
(issue 27): cold at most 5x the battery, warm at most 0.75x, peak memory under 300 MB.

The goal set for the device domain: 1 million lines of Python in under 60 s with 2 cores, peak memory under
500 MB (each process counted). It is a measurement to read, not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze  # noqa: E402
from ascend_feasibility.analyzer.reporting.render_json import write_json  # noqa: E402

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects"
# Ordinary library code without device usage, as most of a large tree is.
PLAIN_MODULE = '''"""Utilities for {name}."""
import json
import math
from dataclasses import dataclass


@dataclass
class Record{index}:
    key: str
    value: float

    def score(self, other: "Record{index}") -> float:
        return math.sqrt((self.value - other.value) ** 2) / max(len(self.key), 1)


def load_records_{index}(path):
    with open(path, encoding="utf-8") as handle:
        return [Record{index}(**row) for row in json.load(handle)]


def summarise_{index}(records):
    total = sum(r.value for r in records)
    best = max(records, key=lambda r: r.value) if records else None
    return {{"count": len(records), "total": total, "best": best.key if best else None}}
'''


def synthesize(folder: Path, target_lines: int, device_share: int) -> None:
    """Copies of the sample projects' Python (one file in `device_share`) among plain modules."""
    samples = [p.read_text(encoding="utf-8") for p in sorted(SAMPLES.rglob("*.py"))]
    lines = index = 0
    while lines < target_lines:
        package = folder / f"pkg{index // 200:03d}"
        package.mkdir(exist_ok=True)
        if index % device_share == 0:
            text = samples[(index // device_share) % len(samples)]
        else:
            text = PLAIN_MODULE.format(name=f"module {index}", index=index) * 12
        (package / f"mod{index:05d}.py").write_text(text, encoding="utf-8")
        lines += text.count("\n")
        index += 1


def time_formats(report) -> dict[str, float]:
    from ascend_feasibility.analyzer.reporting.outputs import OUTPUTS

    seconds = {}
    for fmt in ("markdown", "html", "sarif", "csv"):
        start = time.perf_counter()
        with open(os.devnull, "w", encoding="utf-8") as sink:
            for output in OUTPUTS[fmt]:
                output.write(report, sink, ("en", "zh"))
        seconds[fmt] = time.perf_counter() - start
    return seconds


def timed_run(root: Path, jobs: int, cache: Path | None):
    """analyze + the JSON report, timed; the scan's own seconds and cache hits come from the pipeline's stats."""
    stats: dict = {}
    start = time.perf_counter()
    report = analyze(root, AnalyzeOptions(jobs=jobs, cache_dir=cache, stats=stats, own_outputs=(cache,) if cache else ()))
    with open(os.devnull, "w", encoding="utf-8") as sink:
        write_json(report, sink)
    return report, time.perf_counter() - start, stats


# The seeds' recipes (device placement, CUDA APIs, distributed), extended to the seven domains of seed 002.
GREP_BATTERY = (
    r"\.cuda\(\)", r"\.to\(['\"]cuda['\"]\)", r"device.*['\"]cuda['\"]", r"torch\.cuda\.", r"torch\.cuda\.amp",
    r"DistributedDataParallel", r"init_process_group", r"nccl", r"init_device_mesh|DeviceMesh",
    r"all_to_all|all_gather|broadcast|P2POp|batch_isend_irecv", r"flash_attn|flash_attn_interface", r"xformers",
    r"scaled_dot_product_attention", r"@triton\.jit|import triton", r"CUDAExtension|cpp_extension", r"autograd\.Function",
    r"__global__", r"torch\.compile", r"autocast", r"float64|complex128|\.double\(\)", r"bfloat16|float16",
    r"assert .*dtype", r"allow_tf32", r"CUDA_VISIBLE_DEVICES|CUDA_LAUNCH_BLOCKING|NCCL_",
    r"flash-attn|xformers|triton|nvidia-|cupy|apex|deepspeed|bitsandbytes",
)
GREP_INCLUDES = ("*.py", "*.ipynb", "*.cu", "*.cuh", "*.cpp", "*.h", "*.sh", "*.txt", "*.toml", "*.cfg", "*.yaml", "*.yml")


def time_grep_battery(root: Path) -> float:
    """Seconds for the grep battery over `root`, one grep after another (each reads the tree, as a script of them does)."""
    includes = [f"--include={glob}" for glob in GREP_INCLUDES]
    start = time.perf_counter()
    for pattern in GREP_BATTERY:
        subprocess.run(["grep", "-rnE", *includes, "--", pattern, str(root)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def peak_rss_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path)
    parser.add_argument("--synthesize", type=int, metavar="LINES")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument(
        "--device-share", type=int, default=5, metavar="N",
        help="with --synthesize: one file in N uses the device layer (1 = every file, the worst case)",
    )
    parser.add_argument("--no-cache", dest="no_cache", action="store_true",
                        help="one run without the cache instead of a cold and a warm run (with a throwaway cache)")
    parser.add_argument("--grep", action="store_true",
                        help="also time the grep battery over the same tree, and print each run against it")
    parser.add_argument("--formats", action="store_true",
                        help="also time each report format (Markdown, HTML, SARIF, CSV) after the analysis")
    args = parser.parse_args()
    if (args.path is None) == (args.synthesize is None):
        parser.error("give a PATH or --synthesize LINES")
    with tempfile.TemporaryDirectory() as scratch:
        root = args.path
        if args.synthesize:
            root = Path(scratch)
            synthesize(root, args.synthesize, args.device_share)
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        cache = None if args.no_cache else Path(scratch) / ".bench-cache"  # own output: never scanned
        battery = time_grep_battery(root) if args.grep else None  # first: the files are read from disk once either way
        report, elapsed, stats = timed_run(root, args.jobs, cache)
        warm = timed_run(root, args.jobs, cache) if cache is not None else None
        format_seconds = time_formats(report) if args.formats else {}
    own, workers = peak_rss_mb()
    project = report.project
    rows = [
        ("files scanned", f"{project.files_scanned}"),
        ("lines scanned", f"{project.lines_scanned}"),
        ("findings", f"{len(report.findings)}"),
        ("jobs", f"{args.jobs}"),
        ("seconds (analyze + JSON)" + (", cold" if warm else ""), f"{elapsed:.2f}"),
        ("seconds scanning files" + (", cold" if warm else ""), f"{stats['scan_seconds']:.2f}"),
        ("files/s", f"{project.files_scanned / elapsed:.0f}"),
        ("lines/s", f"{project.lines_scanned / elapsed:.0f}"),
        ("MB/s", f"{size / 1e6 / elapsed:.2f}"),
        *((("seconds (analyze + JSON), warm", f"{warm[1]:.2f}"),
           ("seconds scanning files, warm", f"{warm[2]['scan_seconds']:.2f}"),
           ("CPU seconds scanning files, warm", f"{warm[2]['scan_cpu_seconds']:.2f}"),
           ("files from the cache, warm", f"{warm[2]['cache_hits']} of {warm[2]['files']}")) if warm else ()),
        *((("seconds, grep battery", f"{battery:.2f}"),
           ("cold / grep battery", f"{elapsed / battery:.2f}x"),
           *((("warm / grep battery", f"{warm[1] / battery:.2f}x"),) if warm else ())) if battery else ()),
        ("peak RSS main (MB)", f"{own:.0f}"),
        ("peak RSS largest worker (MB)", f"{workers:.0f}"),
        *((f"seconds to render {fmt}", f"{seconds:.2f}") for fmt, seconds in format_seconds.items()),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value:>12}")


if __name__ == "__main__":
    main()
