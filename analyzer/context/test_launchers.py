"""Shell scripts that launch only tests: test tooling, not the product (round 24 B1 C6).

A maintainers' CI launcher sits wherever they put it (lmms-eval's cicd/run_evalcicd.sh), so its folder's name says
little; what it runs says what it is. A shell script each of whose Python launch commands runs a testing module
(`python -m pytest`, `python -m unittest`: conventions roles.testing_modules) or a file of the project whose role is
`test` (`python $REPO_DIR/test/eval/run_cicd.py`, found by its path below the variables) is a test launcher: its
findings are the tests' (role `test`, uncounted). One launch of anything else (a training script, a module of the
product, a script the tree lacks) keeps it the product's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

SHELL_SUFFIXES = (".sh", ".bash", ".zsh")


def test_launchers(facts: list[ModuleFacts], context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """path → [(1, last, why)] for the product shell scripts whose every launch command runs a test."""
    shells = [f for f in facts if f.launches and f.path.endswith(SHELL_SUFFIXES)
              and context.of(f.path).role in COUNTED_ROLES]
    if not shells:
        return {}
    testing = tuple(load_context_conventions().roles.testing_modules)
    paths = sorted(f.path for f in facts)
    result: dict[str, list[tuple[int, int, str]]] = {}
    for f in shells:
        runs = [_test_run(module, script, f.path, paths, testing, context) for module, script in f.launches]
        if all(runs):
            result[f.path] = [(1, 10**9, f"a test launcher: every command it runs is a test ({', '.join(sorted(set(runs)))})")]
    return result


def _test_run(module: str, script: str, launcher: str, paths: list[str], testing: tuple[str, ...],
              context: ProjectContext) -> str | None:
    """What one launch runs, when it is a test: the testing module, or the test file of the project; None otherwise."""
    if module:
        return module if any(module == t or module.startswith(t + ".") for t in testing) else None
    parts = [p for p in script.split("/") if p and p != "." and not p.startswith(("$", "~"))]
    if not parts or ".." in parts:
        return None
    wanted = "/".join(parts)
    beside = f"{path_view(launcher).parent}/{wanted}" if path_view(launcher).parent != "." else wanted
    found = next((p for p in paths if p == beside), None) or next(
        (p for p in paths if p == wanted or p.endswith("/" + wanted)), None)
    return found if found is not None and context.of(found).role == "test" else None
