"""verify_npu.py, written beside the patch: standard library + torch. It is the exported probe script (the same
environment check as `probe env` and the same probes, generated from analyzer/probes, not copied) plus a check that
imports every patched module with torch_npu loaded (scripts that run work at import are parsed instead), runs the project's tests when it has a tests folder, and runs
the probes that match the report's rules. Exit 0 when every step passed; the last line is a one-line summary."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.core.models import Report
from ascend_feasibility.analyzer.port.core import PortResult
from ascend_feasibility.analyzer.probes.catalog import PROBES
from ascend_feasibility.analyzer.probes.export import script_text
from ascend_feasibility.analyzer.reading.generated import VERIFY_NAME  # noqa: F401 - the name port writes it under
from ascend_feasibility.knowledge import load_knowledge

_MAIN_GUARD = 'if __name__ == "__main__":\n    sys.exit(standalone_main())\n'

_VERIFY = '''

# ---- verify_npu ------------------------------------------------------------
# Written by ascend-feasibility port for this patch. Usage, from the project's root (or --root):
#     python verify_npu.py [--root DIR] [--skip-tests] [--skip-probes]

PATCHED_MODULES = {modules}
TEST_FOLDER = {tests}
MATCHING_PROBES = {probes}
BAD_VERDICTS = ("wrong", "error", "missing")

_IMPORT_SNIPPET = (
    "import importlib, importlib.util, sys\\n"
    "sys.path.insert(0, sys.argv[1])\\n"
    "if importlib.util.find_spec('torch_npu') is not None:\\n"
    "    import torch_npu  # noqa: F401\\n"
    "for name in sys.argv[2:]:\\n"
    "    importlib.import_module(name)\\n"
)


def runs_at_import(path):
    """Does importing this file run work (a script without a __main__ guard: nanoGPT's train.py trains when
    imported)? Such files are compiled, not imported. Only definitions, imports, assignments, a docstring,
    try/except around imports and the __main__ guard are taken as safe at the top level."""
    import ast

    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)

    def safe(node):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Pass)):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return True
        if isinstance(node, ast.Try):
            return all(safe(n) for n in node.body + node.orelse + node.finalbody) and all(
                safe(n) for handler in node.handlers for n in handler.body)
        if isinstance(node, ast.If):
            test = node.test
            if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"):
                return True
            return all(safe(n) for n in node.body + node.orelse)
        return False

    return not all(safe(node) for node in tree.body)


def verify_main(argv=None):
    import os
    import subprocess

    parser = argparse.ArgumentParser(description="Check a project ported by ascend-feasibility port on this host.")
    parser.add_argument("--root", default=None, help="the project's root (default: this script's folder, else .)")
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--skip-probes", action="store_true")
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    root = args.root or (here if any(os.path.exists(os.path.join(here, *m.split("."))) or
                                      os.path.exists(os.path.join(here, *m.split(".")) + ".py")
                                      for m in PATCHED_MODULES) else os.getcwd())
    steps = []
    environment = detect_environment()
    env_ok = bool(environment.get("torch")) and not environment.get("torch_error")
    steps.append(("environment", env_ok, "torch %s, torch_npu %s, CANN %s" % (
        environment.get("torch"), environment.get("torch_npu"), environment.get("cann"))))
    for problem in environment.get("problems", []):
        print("environment: %s" % json.dumps(problem, ensure_ascii=False), file=sys.stderr)
    if PATCHED_MODULES:
        importable, scripts, broken = [], [], []
        for name in PATCHED_MODULES:
            base = os.path.join(root, *name.split("."))
            path = base + ".py" if os.path.isfile(base + ".py") else os.path.join(base, "__init__.py")
            try:
                (scripts if runs_at_import(path) else importable).append(name)
            except (OSError, SyntaxError, ValueError) as exc:
                broken.append(name)
                print("%s: %s" % (name, exc), file=sys.stderr)
        ok = not broken
        if importable:
            done = subprocess.run([sys.executable, "-c", _IMPORT_SNIPPET, root, *importable],
                                  capture_output=True, text=True, cwd=root)
            if done.returncode:
                print(done.stderr[-4000:], file=sys.stderr)
            ok = ok and done.returncode == 0
        steps.append(("imports", ok, "%d patched modules imported, %d scripts compiled only (importing them runs them)"
                      % (len(importable), len(scripts) + len(broken))))
    if TEST_FOLDER and not args.skip_tests:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", TEST_FOLDER], cwd=root)
        steps.append(("tests", done.returncode == 0, "pytest %s exit %d" % (TEST_FOLDER, done.returncode)))
    if MATCHING_PROBES and not args.skip_probes and env_ok:
        document = run_probes("auto", list(MATCHING_PROBES), ("small",), None, None, environment)
        bad = [row for row in document.get("results", []) if row.get("verdict") in BAD_VERDICTS]
        for row in bad:
            print("probe %s %s: %s" % (row.get("probe"), row.get("candidate"), row.get("verdict")), file=sys.stderr)
        steps.append(("probes", not bad, "%d results, %d bad" % (len(document.get("results", [])), len(bad))))
    failed = [name for name, ok, _ in steps if not ok]
    for name, ok, detail in steps:
        print("%-12s %s  %s" % (name, "ok" if ok else "FAILED", detail))
    print("verify_npu: %s (%s)" % ("FAILED: " + ", ".join(failed) if failed else "passed",
                                   ", ".join(name for name, _, _ in steps)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(verify_main())
'''


def patched_modules(result: PortResult) -> list[str]:
    """Dotted names of the patched files that an import can reach from the root."""
    names = []
    for path in sorted({r.path for r in result.rewrites} | set(result.new_files)):
        pure = PurePosixPath(path)
        if pure.suffix != ".py" or not all(part.isidentifier() for part in (*pure.parts[:-1], pure.stem)):
            continue
        parts = pure.parts[:-1] + (() if pure.stem == "__init__" else (pure.stem,))
        if parts:
            names.append(".".join(parts))
    return names


def test_folder(root: Path) -> str | None:
    """The project's tests folder, when it has one (pytest runs it)."""
    return next((name for name in ("tests", "test") if (root / name).is_dir() and not (root / name).is_symlink()), None)


def verify_script(report: Report, result: PortResult, test_folder: str | None = None) -> str:
    rules = {f.rule for f in report.findings if not f.suppressed}
    probes = [probe.name for probe in PROBES if rules & set(probe.rules)]
    base = script_text(load_knowledge())
    if base.endswith(_MAIN_GUARD):
        base = base[: -len(_MAIN_GUARD)]
    return base + _VERIFY.format(
        modules=repr(patched_modules(result)), tests=repr(test_folder), probes=repr(probes)
    )
