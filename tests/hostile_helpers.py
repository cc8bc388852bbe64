"""Running the analyzer on hostile trees: in-process (fast) and as a command in a child process (for what can hang,
with a time limit, and for what only a real process shows: exit codes, tracebacks, the terminal stream)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

ROOT = Path(__file__).resolve().parent.parent
CLI_TIMEOUT = 120
# `python -P` (3.11+) leaves the working folder off sys.path; the child finds this checkout through PYTHONPATH.
SAFE_PATH = ["-P"] if sys.version_info >= (3, 11) else []
MODULE = [sys.executable, *SAFE_PATH, "-m", "ascend_feasibility"]


def run(tree: Path, **options):
    return analyze(tree, AnalyzeOptions(jobs=1, **options))


def reasons(report) -> dict[str, str]:
    return {entry.path: entry.reason for entry in report.skipped}


def cli(*args: str, cwd: Path | None = None, timeout: float = CLI_TIMEOUT, **env_vars: str) -> subprocess.CompletedProcess:
    """`python -P -m ascend_feasibility ARGS` (the working folder is not put on sys.path); fails the test on a hang."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **env_vars}
    return subprocess.run(
        [*MODULE, *args], cwd=cwd or ROOT, env=env, capture_output=True, timeout=timeout
    )


def assert_clean(result: subprocess.CompletedProcess, codes=(0,)) -> None:
    """Exit code among `codes`, and no traceback on stderr."""
    stderr = result.stderr.decode("utf-8", errors="replace")
    assert result.returncode in codes, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]


def make_fifo(path: Path) -> None:
    import pytest

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    try:
        os.mkfifo(path)
    except OSError as exc:
        pytest.skip(f"the OS refuses a FIFO here: {exc}")


def build_chain(top: Path, name: str, depth: int, leaf: str, content: str) -> None:
    """`depth` nested folders called `name` below `top` with a file `leaf` at the bottom, built through folder
    descriptors (the full path may be longer than PATH_MAX)."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        created = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(created, content.encode())
        os.close(created)
    finally:
        os.close(fd)


def remove_chain(top: Path, name: str) -> None:
    """Remove what build_chain made without recursion (shutil.rmtree, and pytest's clean-up, recurse per level):
    the child is hoisted up one level at a time, so no path grows long and no descriptor stays open."""
    hoisted = f"{name}.hoisted"
    while True:
        fd = os.open(top, os.O_RDONLY)
        try:
            try:
                inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            except FileNotFoundError:
                return
            try:
                entries = os.listdir(inner)
                for entry in entries:
                    if entry == name:
                        os.rename(entry, hoisted, src_dir_fd=inner, dst_dir_fd=fd)
                    else:
                        os.unlink(entry, dir_fd=inner)
            finally:
                os.close(inner)
            os.rmdir(name, dir_fd=fd)
            if name in entries:
                os.rename(hoisted, name, src_dir_fd=fd, dst_dir_fd=fd)
        finally:
            os.close(fd)
