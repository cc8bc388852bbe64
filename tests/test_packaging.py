"""The wheel installs one top-level package, `ascend_feasibility`, with the repository's folders mapped under it."""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
MAPPED = ("analyzer", "domains", "knowledge", "report_templates")


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_folder_is_installed_under_the_one_name():
    on_disk = {"ascend_feasibility"} | {
        "ascend_feasibility." + ".".join(init.parent.relative_to(ROOT).parts)
        for folder in MAPPED
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert set(_setuptools()["packages"]) == on_disk


def test_the_only_top_level_names_are_the_projects_own():
    settings = _setuptools()
    assert {name.split(".")[0] for name in settings["packages"]} == {"ascend_feasibility"}
    assert settings["package-dir"] == {"ascend_feasibility": "ascend_feasibility", **{f"ascend_feasibility.{f}": f for f in MAPPED}}


def test_code_imports_the_folders_through_the_package():
    stray = []
    for folder in (*MAPPED, "ascend_feasibility", "tests", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            if "data" in path.relative_to(ROOT).parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                words = line.split()
                if len(words) >= 2 and words[0] in ("from", "import") and words[1].split(".")[0] in MAPPED:
                    stray.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not stray, "import these through ascend_feasibility.<folder>:\n" + "\n".join(stray)


def test_the_wheel_sits_beside_other_analyzer_and_knowledge_packages(tmp_path):
    """PyPI's `analyzer` and `knowledge` distributions install top-level packages of those names; with the wheel
    unpacked beside stand-ins for both, each import finds its own package and the tool still runs."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"), str(ROOT)],
        capture_output=True, text=True,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        top_level = {name.split("/")[0] for name in archive.namelist()}
        assert {name for name in top_level if not name.endswith(".dist-info")} == {"ascend_feasibility"}
        archive.extractall(site)
    for other in ("analyzer", "knowledge"):
        (site / other).mkdir()
        (site / other / "__init__.py").write_text(f"WHO = 'pypi-{other}'\n")
    script = (
        "import analyzer, knowledge, json, subprocess, sys\n"
        "from ascend_feasibility.analyzer.core.cli import main\n"
        "import ascend_feasibility.knowledge as kb\n"
        "assert (analyzer.WHO, knowledge.WHO) == ('pypi-analyzer', 'pypi-knowledge')\n"
        "assert kb.__file__.startswith(sys.argv[1])\n"
        "raise SystemExit(main(['analyze', sys.argv[2], '--format', 'json', '-o', sys.argv[3]]))\n"
    )
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", script, str(site), str(ROOT / "sample_projects" / "llm_infer"), str(out)],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["findings"]
