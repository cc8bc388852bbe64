"""verify_npu.py, written beside the patch: standard library + torch. It is the exported probe script (the same
environment check as `probe env` and the same probes, generated from analyzer/probes, not copied) plus a check that
imports every patched module with torch_npu loaded (scripts that run work at import are parsed instead), runs the
project's tests when it has a tests folder (with --phases only those importing an entry of these phases), and runs the
probes that match the report's rules. Without an NPU it claims nothing: NOT VERIFIED on an NPU and exit 2, or with
--allow-cpu a dry run that says so. The last line is a one-line summary."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ascend_feasibility.analyzer.core.models import Report
from ascend_feasibility.analyzer.port.core import PortResult
from ascend_feasibility.analyzer.port.worlds import TOP, Worlds
from ascend_feasibility.analyzer.probes.catalog import PROBES
from ascend_feasibility.analyzer.probes.export import script_text
from ascend_feasibility.analyzer.reading.generated import PORT_MARK, VERIFY_NAME  # noqa: F401 - the name port writes it under
from ascend_feasibility.analyzer.reading.parsing import parse, text, walk
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_contained
from ascend_feasibility.knowledge import load_knowledge

_MAIN_GUARD = 'if __name__ == "__main__":\n    sys.exit(standalone_main())\n'

_HEADER = """#!/usr/bin/env python3
# verify_npu.py: """ + PORT_MARK + """ for this patch (port recognises its own file by this line); needs Python
# 3.10+ and torch (plus torch_npu and CANN on the Ascend host it is meant for). Usage, from the project's root (or --root):
#
#     python verify_npu.py [--root DIR] [--skip-tests] [--skip-probes] [--phases PHASE ...] [--allow-cpu]
#
# Steps: the environment, an import of every patched module with torch_npu loaded, the project's tests (with
# --phases only those of these phases: {phases}), the probes matching the report's rules. Without an NPU (no
# torch_npu, or torch.npu.is_available() false) it stops with NOT VERIFIED on an NPU and exit 2; --allow-cpu runs
# the same steps as a dry run on this host, says so, and still reports NOT VERIFIED on an NPU.
"""

_VERIFY = '''

# ---- verify_npu ------------------------------------------------------------
PATCHED_MODULES = {modules}
TEST_FOLDER = {tests}
PHASE_TESTS = {phase_tests}
MATCHING_PROBES = {probes}
BAD_VERDICTS = ("wrong", "error", "missing")
NOT_VERIFIED = "NOT VERIFIED on an NPU"
_NPU_CHECK = (
    "import sys, importlib.util\\n"
    "if importlib.util.find_spec('torch_npu') is None:\\n"
    "    sys.exit(3)\\n"
    "import torch, torch_npu  # noqa: F401\\n"
    "sys.exit(0 if torch.npu.is_available() else 4)\\n"
)

_IMPORT_SNIPPET = (
    "import importlib, importlib.util, sys\\n"
    "sys.path.insert(0, sys.argv[1])\\n"
    "if importlib.util.find_spec('torch_npu') is not None:\\n"
    "    import torch_npu  # noqa: F401\\n"
    "for name in sys.argv[2:]:\\n"
    "    importlib.import_module(name)\\n"
)


def module_base(root, entry):
    """The path, without .py, of a PATCHED_MODULES entry: `folder:dotted.name` is imported with folder (its import
    root, which the project's launcher puts on sys.path) first on sys.path; a bare `dotted.name`, from the root."""
    import os

    folder, _, name = entry.rpartition(":")
    return os.path.join(root, *[part for part in folder.split("/") if part], *[part for part in name.split(".") if part])


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
    parser.add_argument("--phases", nargs="+", choices=sorted(PHASE_TESTS) or None, metavar="PHASE",
                        help="run only the tests of these phases: %s" % ", ".join(sorted(PHASE_TESTS)))
    parser.add_argument("--allow-cpu", action="store_true",
                        help="without an NPU, run the same steps as a dry run on this host (still NOT VERIFIED)")
    args = parser.parse_args(argv)
    found = subprocess.run([sys.executable, "-c", _NPU_CHECK], capture_output=True, text=True)
    npu = found.returncode == 0
    if not npu:
        why = {{3: "torch_npu is not installed", 4: "torch.npu.is_available() is false"}}.get(
            found.returncode, "torch_npu failed to load: %s" % found.stderr.strip()[-300:])
        if not args.allow_cpu:
            print("verify_npu: %s: %s (--allow-cpu runs the steps as a dry run on this host)" % (NOT_VERIFIED, why))
            return 2
        print("verify_npu: dry run on this host (%s): the steps run without an NPU" % why)
    here = os.path.dirname(os.path.abspath(__file__))
    root = args.root or (here if any(os.path.exists(module_base(here, m)) or os.path.exists(module_base(here, m) + ".py")
                                      for m in PATCHED_MODULES) else os.getcwd())
    steps = []
    environment = detect_environment()
    env_ok = bool(environment.get("torch")) and not environment.get("torch_error")
    steps.append(("environment", env_ok, "torch %s, torch_npu %s, CANN %s" % (
        environment.get("torch"), environment.get("torch_npu"), environment.get("cann"))))
    for problem in environment.get("problems", []):
        print("environment: %s" % json.dumps(problem, ensure_ascii=False), file=sys.stderr)
    if PATCHED_MODULES:
        importable, scripts, broken = {{}}, [], []  # importable: the folder a module is imported from -> its names
        for entry in PATCHED_MODULES:
            base = module_base(root, entry)
            path = base + ".py" if os.path.isfile(base + ".py") else os.path.join(base, "__init__.py")
            try:
                if runs_at_import(path):
                    scripts.append(entry)
                else:
                    importable.setdefault(module_base(root, entry.rpartition(":")[0] + ":"), []).append(
                        entry.rpartition(":")[2])
            except (OSError, SyntaxError, ValueError) as exc:
                broken.append(entry)
                print("%s: %s" % (entry, exc), file=sys.stderr)
        ok = not broken
        for folder, names in sorted(importable.items()):  # each import root on its own, as its launcher puts it on sys.path
            done = subprocess.run([sys.executable, "-c", _IMPORT_SNIPPET, folder, *names],
                                  capture_output=True, text=True, cwd=folder)
            if done.returncode:
                print(done.stderr[-4000:], file=sys.stderr)
            ok = ok and done.returncode == 0
        steps.append(("imports", ok, "%d patched modules imported, %d scripts compiled only (importing them runs them)"
                      % (sum(len(names) for names in importable.values()), len(scripts) + len(broken))))
    tests = [TEST_FOLDER] if TEST_FOLDER else []
    if args.phases:
        tests = sorted(set(path for phase in args.phases for path in PHASE_TESTS.get(phase, [])))
    if tests and not args.skip_tests:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", *tests], cwd=root)
        steps.append(("tests", done.returncode == 0, "pytest %s exit %d" % (" ".join(tests), done.returncode)))
    elif args.phases and not args.skip_tests:
        steps.append(("tests", False, "no tests of the phases %s" % ", ".join(args.phases)))
    if MATCHING_PROBES and not args.skip_probes and env_ok:
        document = run_probes("auto", list(MATCHING_PROBES), ("small",), None, None, environment)
        bad = [row for row in document.get("results", []) if row.get("verdict") in BAD_VERDICTS]
        for row in bad:
            print("probe %s %s: %s" % (row.get("probe"), row.get("candidate"), row.get("verdict")), file=sys.stderr)
        steps.append(("probes", not bad, "%d results, %d bad" % (len(document.get("results", [])), len(bad))))
    failed = [name for name, ok, _ in steps if not ok]
    for name, ok, detail in steps:
        print("%-12s %s  %s" % (name, "ok" if ok else "FAILED", detail))
    verdict = "FAILED: " + ", ".join(failed) if failed else "passed"
    names = ", ".join(name for name, _, _ in steps)
    if not npu:
        print("verify_npu: dry run %s (%s) on a host without an NPU: %s" % (verdict, names, NOT_VERIFIED))
        return 1 if failed else 0
    print("verify_npu: %s (%s) on the NPU" % (verdict, names))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(verify_main())
'''


def patched_modules(result: PortResult, root: Path | None = None) -> list[str]:
    """Dotted names of the patched files, each under the name its import world gives it (worlds.py: the folder on
    sys.path when the project runs or imports it), as `world:dotted.name` outside the root: studio/backend's
    core/x.py is `studio/backend:core.x`, the name its launcher imports, where a relative import climbing past
    core/ fails. Without the root, names from the root."""
    worlds = Worlds(root) if root is not None else None
    names = []
    for path in sorted({r.path for r in result.rewrites} | set(result.new_files)):
        pure = PurePosixPath(path)
        world = worlds.world_of(path) if worlds is not None else TOP
        inner = pure.relative_to(world) if world != TOP else pure
        if pure.suffix != ".py" or not all(part.isidentifier() for part in (*inner.parts[:-1], inner.stem)):
            continue
        parts = inner.parts[:-1] + (() if inner.stem == "__init__" else (inner.stem,))
        if parts:
            names.append(".".join(parts) if world == TOP else f"{world}:{'.'.join(parts)}")
    return names


def test_folder(root: Path) -> str | None:
    """The project's tests folder, when it has one (pytest runs it)."""
    return next((name for name in ("tests", "test") if (root / name).is_dir() and not (root / name).is_symlink()), None)


def phase_tests(root: Path, report: Report, test_folder: str | None) -> dict[str, list[str]]:
    """Per phase of the report, the test files that import one of that phase's entry modules (tests/test_train.py
    importing train.py, a training entry)."""
    if test_folder is None or report.phase_matrix is None:
        return {}
    modules: dict[str, set[str]] = {}
    for entry in report.phase_matrix.entries:
        pure = PurePosixPath(entry.path)
        parts = pure.parts[:-1] + (() if pure.stem == "__init__" else (pure.stem,))
        if pure.suffix == ".py" and parts:
            modules.setdefault(".".join(parts), set()).update(entry.phases)
    found: dict[str, set[str]] = {}
    for path in sorted((root / test_folder).rglob("*.py"))[:MAX_TEST_FILES]:
        if path.is_symlink() or not path.is_file():
            continue
        relative = path.relative_to(root).as_posix()
        try:
            data = read_contained(root, relative, MAX_FILE_BYTES)
        except Unreadable:
            continue
        for name in imported_modules(parse("python", data)):
            for phase in modules.get(name, ()):
                found.setdefault(phase, set()).add(relative)
    return {phase: sorted(paths) for phase, paths in sorted(found.items())}


MAX_TEST_FILES = 2000


def imported_modules(tree) -> set[str]:
    """The dotted module names a file's import statements name (`import a.b`, `from a.b import c`: a.b and a.b.c)."""
    names: set[str] = set()
    for node in walk(tree, prune=_IMPORTS, named=False):
        if node.type == "import_statement":
            for name in node.children_by_field_name("name"):
                target = name.child_by_field_name("name") if name.type == "aliased_import" else name
                names.add(text(target))
        elif node.type == "import_from_statement":
            module = node.child_by_field_name("module_name")
            if module is not None and module.type == "dotted_name":
                names.add(text(module))
                for name in node.children_by_field_name("name"):
                    target = name.child_by_field_name("name") if name.type == "aliased_import" else name
                    names.add(f"{text(module)}.{text(target)}")
    return names


_IMPORTS = frozenset({"import_statement", "import_from_statement"})


def verify_script(report: Report, result: PortResult, test_folder: str | None = None,
                  root: Path | None = None) -> str:
    rules = {f.rule for f in report.findings if not f.suppressed}
    probes = [probe.name for probe in PROBES if rules & set(probe.rules)]
    base = script_text(load_knowledge())
    base = base[base.index("from __future__"):]  # the probe script's own usage header does not apply here
    if base.endswith(_MAIN_GUARD):
        base = base[: -len(_MAIN_GUARD)]
    tests = phase_tests(root, report, test_folder) if root is not None else {}
    return _HEADER.format(phases=", ".join(tests) or "none found") + base + _VERIFY.format(
        modules=repr(patched_modules(result, root)), tests=repr(test_folder), probes=repr(probes), phase_tests=repr(tests)
    )
