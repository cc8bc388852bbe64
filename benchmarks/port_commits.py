"""How much of a real CUDA→Ascend port `port --unsafe` does (issue 25): for each commit in
benchmarks/port_commits.toml, the CUDA-specific lines the porters changed (parent side of the diff, code lines that
name "cuda" or "nccl") against the lines `port --unsafe` rewrites on the parent.

    python -m benchmarks.port_commits --mirrors /work/.mirror [--set development|held-out] [--show] [--work DIR]
        [--changed-only]

Each repository is a bare git directory at <mirrors>/<owner>+<name>/repo (the `fetch` tool's layout). For a commit,
the parent's whole tree is extracted, analysed and ported there (the analyzer reads a project as its users have it:
which modules exist, who calls what; a tree of the changed files alone makes their imports of the rest look missing).
`--changed-only` extracts only the changed Python files with the package `__init__.py` files above them and the root's
build files (setup.py, pyproject.toml, setup.cfg, requirements*.txt), as the benchmark did before stop 29.
A porter's line counts as rewritten when the patch replaces it, or when a site on it is completed by a statement the
patch adds after it (the TF32 and CUDA_VISIBLE_DEVICES twins). "product" restricts both to product code (port leaves
tests, examples and docs by design). Prints one row per commit and the totals per set; --show adds the lines left.
"""

from __future__ import annotations

import argparse
import difflib
import io
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import tomllib
from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port
from ascend_feasibility.knowledge import load_context_conventions

LIST = Path(__file__).with_name("port_commits.toml")
BUILD_FILES = ("setup.py", "pyproject.toml", "setup.cfg", "requirements.txt")
CUDA_WORDS = ("cuda", "nccl")


@dataclass
class Measured:
    repo: str
    sha: str
    set: str
    porter: dict[str, set[int]] = field(default_factory=dict)  # path -> CUDA-specific lines the porters changed
    covered: dict[str, set[int]] = field(default_factory=dict)  # path -> lines the patch rewrites
    product: set[str] = field(default_factory=set)  # paths in product code
    texts: dict[str, list[str]] = field(default_factory=dict)
    why: dict[tuple[str, int], str] = field(default_factory=dict)  # (path, line) -> why the patch left a site there

    def counts(self, only_product: bool = False) -> tuple[int, int]:
        paths = [p for p in self.porter if not only_product or p in self.product]
        total = sum(len(self.porter[p]) for p in paths)
        hit = sum(len(self.porter[p] & self.covered.get(p, set())) for p in paths)
        return hit, total


def git(gitdir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], check=True, capture_output=True).stdout


def cuda_specific(line: str) -> bool:
    """A code line (not a comment) that names CUDA or NCCL."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#") and any(word in stripped.lower() for word in CUDA_WORDS)


def porter_lines(gitdir: Path, parent: str, sha: str) -> dict[str, set[int]]:
    """Per changed Python file that existed in the parent: the parent's CUDA-specific lines the commit removed or
    replaced."""
    names = git(gitdir, "diff", "--name-status", "--no-renames", parent, sha).decode().splitlines()
    paths = [line.split("\t", 1)[1] for line in names if line.startswith(("M", "D")) and line.endswith(".py")]
    found: dict[str, set[int]] = {}
    for path in paths:
        diff = git(gitdir, "diff", "-U0", "--no-renames", parent, sha, "--", path).decode("utf-8", "replace")
        line = 0
        for row in diff.splitlines():
            if row.startswith("@@"):
                line = int(row.split()[1][1:].split(",")[0])
            elif row.startswith("-") and not row.startswith("---"):
                if cuda_specific(row[1:]):
                    found.setdefault(path, set()).add(line)
                line += 1
    return found


def extract(gitdir: Path, parent: str, paths: list[str] | None, into: Path) -> None:
    """The parent's tree, or with `paths` only those files, their packages' `__init__.py` files and the build files."""
    if paths is None:
        _extract_tree(gitdir, parent, into)
        return
    listing = set(git(gitdir, "ls-tree", "-r", "--name-only", parent).decode().splitlines())
    wanted = set(paths) | {name for name in BUILD_FILES if name in listing}
    for path in paths:
        parts = PurePosixPath(path).parts[:-1]
        for depth in range(1, len(parts) + 1):
            init = "/".join(parts[:depth]) + "/__init__.py"
            if init in listing:
                wanted.add(init)
    archive = git(gitdir, "archive", "--format=tar", parent, "--", *sorted(wanted))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def _extract_tree(gitdir: Path, commit: str, into: Path) -> None:
    """Every regular file of the commit whose blob the mirror holds (a snapshot may leave its largest files out, so
    `git archive` of the whole tree can fail); links and submodules are left out."""
    entries = []
    for row in git(gitdir, "ls-tree", "-r", "-z", commit).split(b"\0"):
        if not row:
            continue
        meta, _, path = row.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in {b"100644", b"100755"}:
            entries.append((sha.decode(), path.decode("utf-8", "surrogateescape")))
    request = "".join(f"{sha}\n" for sha, _ in entries).encode()
    out = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "--batch"], input=request, check=True,
                         capture_output=True).stdout
    root = into.resolve()
    offset = 0
    for _, path in entries:
        end = out.index(b"\n", offset)
        header = out[offset:end].split()
        offset = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        data, offset = out[offset:offset + size], offset + size + 1
        target = (root / path).resolve()
        if root not in target.parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def patch_lines(result) -> dict[str, set[int]]:
    """Per patched file, the original lines (1-based) the patch replaces or completes."""
    covered: dict[str, set[int]] = {}
    for rewrite in result.rewrites:
        if rewrite.new is None:
            continue
        old, new = rewrite.old.splitlines(), rewrite.new.splitlines()
        lines = covered.setdefault(rewrite.path, set())
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag in {"replace", "delete"}:
                lines.update(range(i1 + 1, i2 + 1))
    patched = {r.path for r in result.rewrites}
    for outcome in result.outcomes:
        # (an older port has no `rewritten`: this script also measures the release before issue 25)
        rewritten = getattr(outcome, "rewritten", outcome.reason is None and bool(outcome.changes))
        if rewritten and outcome.finding.path in patched:
            covered.setdefault(outcome.finding.path, set()).update(
                range(outcome.finding.line, outcome.finding.end_line + 1))
    return covered


def measure(mirrors: Path, repo: str, sha: str, which: str, work: Path, changed_only: bool = False) -> Measured:
    gitdir = mirrors / repo.replace("/", "+") / "repo"
    full = git(gitdir, "rev-parse", sha).decode().strip()
    parent = git(gitdir, "rev-parse", f"{full}^").decode().strip()
    measured = Measured(repo, full[:10], which, porter_lines(gitdir, parent, full))
    if not measured.porter:
        return measured
    root = work / f"{repo.replace('/', '+')}-{full[:10]}"
    root.mkdir(parents=True, exist_ok=True)
    extract(gitdir, parent, sorted(measured.porter) if changed_only else None, root)
    report = analyze(root, AnalyzeOptions(jobs=1))
    result = port(root, report, PortOptions(unsafe=True))
    measured.covered = patch_lines(result)
    for outcome in result.outcomes:
        if outcome.reason is not None:
            measured.why.setdefault((outcome.finding.path, outcome.finding.line), f"{outcome.finding.rule}: {outcome.reason}")
    for finding, why in result.skipped_sites:
        measured.why.setdefault((finding.path, finding.line), f"{finding.rule}: {why}")
    conventions = load_context_conventions().roles
    measured.product = {p for p in measured.porter if file_role(p, conventions) == "product"}
    measured.texts = {p: (root / p).read_text(encoding="utf-8", errors="replace").splitlines() for p in measured.porter}
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--list", type=Path, default=LIST)
    parser.add_argument("--set", choices=("development", "held-out"), default=None)
    parser.add_argument("--show", action="store_true", help="print the porters' lines the patch leaves")
    parser.add_argument("--work", type=Path, default=None, help="where the parents are extracted (default: a temp dir)")
    parser.add_argument("--changed-only", action="store_true",
                        help="extract only the changed files, their packages' __init__.py and the build files")
    args = parser.parse_args(argv)
    commits = tomllib.loads(args.list.read_text(encoding="utf-8"))["commit"]
    work = args.work or Path(tempfile.mkdtemp(prefix="port-commits-"))
    totals: dict[str, list[int]] = {}
    shares: dict[str, list[float]] = {}  # per commit: a large commit (verl's) does not outweigh the rest
    print(f"{'set':<12} {'commit':<44} {'all lines':>12} {'product':>12}")
    for entry in commits:
        if args.set and entry["set"] != args.set:
            continue
        m = measure(args.mirrors, entry["repo"], entry["sha"], entry["set"], work, args.changed_only)
        hit, total = m.counts()
        phit, ptotal = m.counts(only_product=True)
        row = totals.setdefault(m.set, [0, 0, 0, 0])
        row[0] += hit
        row[1] += total
        row[2] += phit
        row[3] += ptotal
        if total:
            shares.setdefault(m.set, []).append(hit / total)
        print(f"{m.set:<12} {m.repo + ' ' + m.sha:<44} {hit:>5}/{total:<6} {phit:>5}/{ptotal:<6}")
        if args.show:
            for path in sorted(m.porter):
                for line in sorted(m.porter[path] - m.covered.get(path, set())):
                    print(f"    left {path}:{line}: {m.texts[path][line - 1].strip()[:110]}")
                    print(f"        {m.why.get((path, line), 'no finding on this line')[:150]}")
    for name, (hit, total, phit, ptotal) in totals.items():
        print(f"{name:<12} {'total':<44} {hit:>5}/{total:<6} {phit:>5}/{ptotal:<6} "
              f"= {hit / total if total else 0:.0%} of all, {phit / ptotal if ptotal else 0:.0%} of product; "
              f"mean per commit {sum(shares[name]) / len(shares[name]) if shares.get(name) else 0:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
