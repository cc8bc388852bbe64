"""A model package copied whole from another project (one knowledge/context/conventions.toml [roles.vendored_packages]
lists) keeps its upstream's own evaluation, serving and training scripts; a host that imports the package as a library
runs none of them (analyzer/context/bundled_projects.py unrun_package_scripts; round 30 A1/A2/B1/B2, port hunks 3 and
12). Such a script is no entry, its findings are `optional`, and the port leaves it. It stays an entry when the README
or a launcher of the host runs it, when it imports the host's own code, or when the package is the project's own (its
manifest publishes it, a console entry or the README's commands lie in it)."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.context.bundled_projects import unrun_package_scripts
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.domains.phases.facts import PhaseFacts
from ascend_feasibility.knowledge import load_context_conventions

from tests.helpers import write_tree as write

PKG = "llava"  # a name of the knowledge list: the test asserts it is there
BUILDER = """import torch


def load_model(path, device="cuda"):
    model = torch.nn.Linear(4, 4)
    return model.to(device)
"""
AGENT = """from llava.model.builder import load_model


class Agent:
    def __init__(self, device):
        self.model = load_model("ckpt", device=device)
"""
EVAL = """import argparse

import torch
from llava.model.builder import load_model


def evaluate(args):
    model = load_model(args.model)
    with torch.no_grad():
        x = torch.randn(2, 4).cuda()
        return model(x)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model")
    evaluate(parser.parse_args())
"""
HOST = """import torch
from llava.agent import Agent


def main():
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    agent = Agent(device)
    with torch.no_grad():
        return agent.model(torch.randn(1, 4, device=device))


if __name__ == "__main__":
    main()
"""


def host(**extra: str) -> dict[str, str]:
    return {"demo.py": HOST, f"{PKG}/__init__.py": "", f"{PKG}/agent.py": AGENT, f"{PKG}/model/__init__.py": "",
            f"{PKG}/model/builder.py": BUILDER, f"{PKG}/eval/run_eval.py": EVAL} | extra


def run(root: Path):
    return analyze(root, AnalyzeOptions(jobs=1))


def reaches(report, path: str) -> set[str]:
    return {f.reach for f in report.findings if f.path == path}


def test_the_package_name_is_in_the_knowledge_list():
    assert PKG in load_context_conventions().roles.vendored_packages


def test_a_copied_packages_own_eval_script_is_no_entry_of_a_host_using_it_as_a_library(tmp_path):
    report = run(write(tmp_path, host()))
    entries = {e.path for e in report.phase_matrix.entries}
    assert f"{PKG}/eval/run_eval.py" not in entries
    assert "demo.py" in entries
    assert reaches(report, f"{PKG}/eval/run_eval.py") == {"optional"}
    why = next(f.reach_reason for f in report.findings if f.path == f"{PKG}/eval/run_eval.py")
    assert why.startswith(f"a script of the package {PKG}/ the project uses as a library and never runs")
    assert reaches(report, f"{PKG}/model/builder.py") == {"runs"}  # what the host imports runs


def test_the_same_script_the_readme_runs_stays_an_entry(tmp_path):
    readme = f"# Demo\n\n```bash\npython {PKG}/eval/run_eval.py --model ckpt\n```\n"
    report = run(write(tmp_path, host(**{"README.md": readme})))
    assert f"{PKG}/eval/run_eval.py" in {e.path for e in report.phase_matrix.entries}
    assert reaches(report, f"{PKG}/eval/run_eval.py") == {"runs"}


def test_a_package_the_project_publishes_keeps_its_scripts(tmp_path):
    manifest = f'[project]\nname = "{PKG}"\nversion = "1.0"\ndependencies = ["torch"]\n'
    report = run(write(tmp_path, host(**{"pyproject.toml": manifest})))
    assert f"{PKG}/eval/run_eval.py" in {e.path for e in report.phase_matrix.entries}
    assert reaches(report, f"{PKG}/eval/run_eval.py") == {"runs"}


def facts(path: str, imports: list[str] | None = None, main: bool = False, launched: list[str] | None = None) -> PhaseFacts:
    module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".") if path.endswith(".py") else ""
    return PhaseFacts(path=path, module=module, imports=imports or [], main_guard=main, launched_scripts=launched or [])


TREE = [facts("demo.py", [f"{PKG}.agent"], main=True), facts(f"{PKG}/__init__.py"),
        facts(f"{PKG}/agent.py", [f"{PKG}.model.builder"], main=True), facts(f"{PKG}/model/__init__.py"),
        facts(f"{PKG}/model/builder.py"), facts(f"{PKG}/eval/run_eval.py", [f"{PKG}.model.builder"], main=True)]
PACKAGES = {PKG, f"{PKG}/model"}


def test_only_the_unreached_scripts_of_a_listed_package_the_host_imports_are_found():
    assert set(unrun_package_scripts(TREE, PACKAGES)) == {f"{PKG}/eval/run_eval.py"}  # agent.py: the host imports it
    # a package of another name is the project's own: today's rule
    renamed = [facts(f.path.replace(PKG, "mypkg", 1), [n.replace(PKG, "mypkg", 1) for n in f.imports], f.main_guard)
               for f in TREE]
    assert unrun_package_scripts(renamed, {"mypkg", "mypkg/model"}) == {}
    # nothing of the host imports it: no host using it as a library
    assert unrun_package_scripts(TREE[1:], PACKAGES) == {}


def test_a_script_the_host_launches_names_as_a_console_entry_or_that_imports_the_host_stays():
    launcher = facts("eval.sh", launched=[f"{PKG}/eval/run_eval.py"])
    assert unrun_package_scripts([*TREE, launcher], PACKAGES) == {}
    assert unrun_package_scripts(TREE, PACKAGES, console_modules=[f"{PKG}.eval.run_eval"]) == {}
    adapted = [*TREE[:-1], facts(f"{PKG}/eval/run_eval.py", [f"{PKG}.model.builder", "demo"], main=True)]
    assert unrun_package_scripts(adapted, PACKAGES) == {}
    # the README runs a file of the package: the project's own
    assert unrun_package_scripts(TREE, PACKAGES, documented=[f"{PKG}/agent.py"]) == {}
    assert unrun_package_scripts(TREE, PACKAGES, distribution=PKG.upper()) == {}
