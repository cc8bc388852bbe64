"""Mutation testing (mutmut 3) of the Python files a branch changed, each against only the tests that exercise it.

    pip install mutmut            # not a dependency of the tool; 3.x
    python tests/tools/mutate_changed.py BASE                 # files under analyzer/, domains/, knowledge/ changed since BASE
    python tests/tools/mutate_changed.py --files analyzer/reporting/markup.py [--tests tests/test_x.py ...]
    python tests/tools/mutate_changed.py ... --list           # print each file's tests and stop

Nothing is mutated in place. The tree is copied to `mutants/stage/` (git-ignored) with the package laid out as it is
installed (`ascend_feasibility/analyzer/...`), so that mutmut's module names match the tests' imports
(`ascend_feasibility.analyzer....`); mutmut then writes its mutated copies under `mutants/stage/mutants/`. One file at a
time; its tests are the test files that import it, or, where none does, the ones that import a module importing it
(nearest first), unless `--tests` names them. Afterwards `cd mutants/stage && python -m mutmut results` lists the
survivors of the last file and `python -m mutmut show NAME` shows one.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / "mutants" / "stage"  # --stage NAME: mutants/NAME, for two runs side by side
PACKAGES = ("analyzer", "domains", "knowledge", "report_templates")
MUTATED_ROOTS = ("analyzer", "domains", "knowledge")
PACKAGE = "ascend_feasibility"


def changed_files(base: str) -> list[str]:
    out = subprocess.run(["git", "diff", "--name-only", "--diff-filter=AMR", base, "--", *MUTATED_ROOTS],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return [name for name in out.splitlines() if name.endswith(".py") and (ROOT / name).is_file()]


def module_name(path: str) -> str:
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def imported_modules(path: Path) -> set[str]:
    """Dotted names a file imports: `from a.b import c` gives a.b and a.b.c (c may be a module)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def tests_for(path: str) -> list[str]:
    """The test files importing the module or named after it or its folder (test_versions.py, test_context.py);
    else those importing an importer of it, nearest first. mutmut then runs, per mutant, only those that reach it."""
    sources = {module_name(str(p.relative_to(ROOT))): p for root in MUTATED_ROOTS for p in (ROOT / root).rglob("*.py")}
    source_imports = {name: imported_modules(p) for name, p in sources.items()}
    test_imports = {str(p.relative_to(ROOT)): imported_modules(p) for p in sorted((ROOT / "tests").glob("test_*.py"))}
    stems = {Path(path).stem, Path(path).parent.name}
    named = {test for test in test_imports if any(Path(test).stem.startswith(f"test_{stem}") for stem in stems)}
    wanted, seen = {module_name(path)}, set()
    for _ in range(4):
        found = sorted(named | {test for test, names in test_imports.items() if names & wanted})
        if found:
            return found
        seen |= wanted
        wanted = {name for name, names in source_imports.items() if names & wanted} - seen
        if not wanted:
            break
    return []


def stage() -> None:
    """A copy of the checkout with the packages under ascend_feasibility/, as the wheel installs them."""
    if STAGE.exists():
        shutil.rmtree(STAGE)
    ignore = shutil.ignore_patterns(".git", "mutants", "__pycache__", ".pytest_cache", "*.egg-info", ".venv")
    shutil.copytree(ROOT, STAGE, ignore=ignore)
    for name in PACKAGES:
        shutil.move(STAGE / name, STAGE / PACKAGE / name)


def toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"  # a JSON string is a TOML basic string


def write_config(path: str, tests: list[str], deselect: list[str]) -> None:
    text = (STAGE / "pyproject.toml").read_text(encoding="utf-8")  # the repository's has no [tool.mutmut] of its own
    config = "\n".join([
        "[tool.mutmut]",
        f'source_paths = ["{PACKAGE}"]',
        f'only_mutate = ["{PACKAGE}/{path}"]',
        f"pytest_add_cli_args_test_selection = {toml_list(tests)}",
        f"pytest_add_cli_args = {toml_list(['-p', 'no:cacheprovider', '-q', *(f'--deselect={d}' for d in deselect)])}",
        'also_copy = ["sample_projects", "schemas", "docs", "benchmarks", "README.md"]',
        "use_git_change_detection = false",
        "",
    ])
    (STAGE / "pyproject.toml").write_text(text + "\n" + config, encoding="utf-8")


def run(path: str, tests: list[str], children: int, deselect: list[str]) -> int:
    write_config(path, tests, deselect)
    shutil.rmtree(STAGE / "mutants", ignore_errors=True)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    code = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(children)], cwd=STAGE,
                          env=env).returncode
    subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=STAGE, env=env)
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", nargs="?", help="git revision to diff against (the files a branch changed)")
    parser.add_argument("--files", nargs="+", default=[], help="source files to mutate instead of a diff")
    parser.add_argument("--tests", nargs="+", default=[], help="test files to run instead of the discovered ones")
    parser.add_argument("--max-children", type=int, default=2, help="parallel mutant runs (default 2)")
    parser.add_argument("--list", action="store_true", help="print each file's tests and stop")
    parser.add_argument("--deselect", action="append", default=[], metavar="NODEID",
                        help="a test to leave out: one that starts the tool in a subprocess from another folder cannot "
                             "import mutmut's trampolines (mutmut reads its settings from the working folder)")
    parser.add_argument("--stage", default="stage", help="folder under mutants/ to stage in (default: stage)")
    args = parser.parse_args(argv)
    global STAGE
    STAGE = ROOT / "mutants" / Path(args.stage).name
    if not args.base and not args.files:
        parser.error("give BASE or --files")
    files = args.files or changed_files(args.base)
    if not files:
        print(f"no Python file under {', '.join(MUTATED_ROOTS)} changed since {args.base}")
        return 0
    plan = [(path, args.tests or tests_for(path)) for path in files]
    for path, tests in plan:
        print(f"{path}: {' '.join(tests) or 'no tests found'}")
    if args.list:
        return 0
    stage()
    worst = 0
    for path, tests in plan:
        if tests:
            print(f"\n== mutating {path}", flush=True)
            worst = max(worst, run(path, tests, args.max_children, args.deselect))
    return worst


if __name__ == "__main__":
    raise SystemExit(main())
