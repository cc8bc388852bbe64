"""Where a project's dependency manifests and install commands are read from (round 28 V1 V6 V7, V2 W2, B1 class 9,
B2 C10): a committed file .gitignore names, inline install code in README prose, `requirements/` folders, and the
pricing of torch re-pins across requirements files."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import manifests, parsing
from ascend_feasibility.analyzer.reading.discovery import (
    GITIGNORE_OVERRIDDEN,
    GITIGNORE_OVERRIDDEN_MODULE,
    classify_path,
    discover,
    is_manifest,
)
from ascend_feasibility.analyzer.reading.install_docs import holds_torch_setup, linked_install_docs, shell_view
from dulwich import porcelain
from dulwich.index import Index

from tests.helpers import write_tree as write

IDENTITY = b"Test <test@example.com>"


def _paths(root: Path) -> list[str]:
    return [f.path for f in discover(root, []).files]


def _commit_all(tree: Path) -> None:
    """Track every file of `tree` (the .gitignore written afterwards: a file committed before its pattern, or added
    with `git add -f`, stays tracked)."""
    repo = porcelain.init(str(tree))
    try:
        files = sorted(str(p) for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts)
        porcelain.add(repo, paths=files)
        porcelain.commit(repo, message=b"c", author=IDENTITY, committer=IDENTITY)
    finally:
        repo.close()


def test_a_file_git_tracks_is_read_whatever_gitignore_says(tmp_path):
    """B1 class 9: `*.txt` in .gitignore beside a committed requirements.txt. Git never ignores a tracked file: the
    index decides, and a folder the .gitignore names is walked for its tracked files; untracked files still follow it."""
    tree = tmp_path / "checkout"
    write(tree, {"requirements.txt": "torch~=2.1.0\n", "train.py": "import torch\n", "llava/model.py": "x = 1\n"})
    _commit_all(tree)
    assert len(Index(str(tree / ".git" / "index"))) == 3
    write(tree, {".gitignore": "*.txt\nllava/\n", "notes/requirements-dev.txt": "pytest\n", "llava/scratch.py": "y = 2\n"})
    found = discover(tree, [])
    assert [f.path for f in found.files] == ["llava/model.py", "requirements.txt", "train.py"]
    assert not any(s.reason == GITIGNORE_OVERRIDDEN for s in found.skipped)  # a checkout needs no note
    # an --exclude still wins over tracking
    assert [f.path for f in discover(tree, ["requirements.txt"]).files] == ["llava/model.py", "train.py"]


def test_a_snapshot_reads_its_manifests_though_gitignore_matches_them_and_says_so(tmp_path):
    """Without a .git the tree cannot tell a committed file from an ignored one: a manifest only a .gitignore pattern
    hides is read, with a note in the report; other files it names stay unread, and an --exclude still wins."""
    write(tmp_path, {".gitignore": "*.txt\n*.log\nsetup.py\nscratch.py\n", "requirements.txt": "torch~=2.1.0\n",
                     "setup.py": "from setuptools import setup\nsetup()\n", "scratch.py": "x = 1\n",
                     "notes.txt": "n\n", "train.py": "import torch\n"})
    found = discover(tmp_path, [])
    assert [f.path for f in found.files] == ["requirements.txt", "setup.py", "train.py"]
    assert sorted(s.path for s in found.skipped if s.reason == GITIGNORE_OVERRIDDEN) == ["requirements.txt", "setup.py"]
    assert _paths(tmp_path) == ["requirements.txt", "setup.py", "train.py"]
    assert [f.path for f in discover(tmp_path, ["requirements.txt"]).files] == ["setup.py", "train.py"]
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.torch_fit.declared == "~=2.1.0"  # the pin is the project's, not "torch not declared"
    assert not any(f.rule == "DEP013" for f in report.findings)  # DEP013: torch-not-declared


def test_manifests_and_requirements_folders_are_known_by_their_path():
    assert is_manifest("requirements.txt") and is_manifest("requirements/runtime.txt") and is_manifest("pyproject.toml")
    assert is_manifest("envs/environment_cuda.yml") and is_manifest("pkg/setup.cfg")
    assert not is_manifest("notes.txt") and not is_manifest("docs/requirements.md") and not is_manifest("config.yml")
    assert classify_path("requirements/runtime.txt") == "build"
    assert classify_path("requirements/mminstall.in") == "build"
    assert classify_path("docs/runtime.txt") is None and classify_path("requirements/notes.md") is None


def test_a_requirements_folders_files_are_requirements(tmp_path):
    """V2 W2: `requirements/runtime.txt` (main) and `requirements/tests.txt` (a development group) beside setup.py."""
    write(tmp_path, {"requirements/runtime.txt": "torch==2.1.0\nnumpy\n", "requirements/tests.txt": "flash-attn\n",
                     "pkg/__init__.py": "import torch\nimport numpy\n", "pkg/fast.py": "try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.torch_fit.declared == "==2.1.0" and report.target.release.startswith("2.1.0")
    rows = {row.package: row.sources for row in report.dependency_matrix}
    assert rows["torch"] == ["requirements/runtime.txt:1"] and rows["flash-attn"] == ["requirements/tests.txt:1"]
    [flash] = [f for f in report.findings if f.path == "requirements/tests.txt"]
    # tests.txt is an optional group, as requirements-tests.txt would be; the product imports flash_attn only under a
    # guard (an unguarded import would make the line required: domains/dependencies/raised_extras.py)
    assert flash.reach == "optional"


def test_inline_install_code_in_readme_prose_is_read():
    """V1 V6: "Install other pip packages via `pip3 install -r requirements.txt`." and a `mim install mmcv>=2.0.0`
    span are install commands on their line; a span that runs a script, or install code in a Python block, is not."""
    text = ("# Setup\nInstall other pip packages via `pip3 install -r requirements.txt`.\n"
            "Then `mim install mmcv>=2.0.0` and `pip install timm==0.6.11`; run `python train.py`.\n"
            "Run `python demo.py` to try it.\n```python\nx = '`pip install peft==0.1.0`'\n```\n")
    view = shell_view(text).splitlines()
    assert view[1] == "pip3 install -r requirements.txt"
    assert view[2] == "mim install 'mmcv>=2.0.0'; pip install timm==0.6.11"
    assert view[3] == "" and view[5] == ""
    declared, _ = manifests.parse_install_commands("README.md", parsing.parse("bash", "\n".join(view).encode()),
                                                   "doc-install")
    assert [(d.name, d.specifier, d.line) for d in declared] == [("mmcv", ">=2.0.0", 3), ("timm", "==0.6.11", 3)]


def test_a_requirement_with_a_comparison_in_an_install_block_is_not_a_redirection():
    """`mim install mmcv>=2.0.0` in a README's shell block: the reader means the requirement (unquoted, the shell would
    write to a file `=2.0.0`); `2>&1` and `> log.txt` stay redirections."""
    view = shell_view("```shell\nmim install mmcv>=2.0.0\npip install x==1.0 > log.txt 2>&1\n```\n").splitlines()
    assert view[1:3] == ["mim install 'mmcv>=2.0.0'", "pip install x==1.0 > log.txt 2>&1"]
    declared, _ = manifests.parse_install_commands("README.md", parsing.parse("bash", "\n".join(view).encode()),
                                                   "doc-install")
    assert [(d.name, d.specifier) for d in declared] == [("mmcv", ">=2.0.0"), ("x", "==1.0")]


def test_a_readme_prose_install_makes_its_requirements_file_the_projects_torch(tmp_path):
    """Beside `pip install -e .` of a pyproject admitting torch>=2.1, requirements.txt's torch==2.1.0 is the project's
    torch only where the README installs it, here in prose; without that line nothing reads the file."""
    tree = {"requirements.txt": "torch==2.1.0\n", "train.py": "import torch\n",
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["torch>=2.1"]\n'}
    write(tmp_path / "prose", {**tree, "README.md": "```bash\npip install -e .\n```\nThen `pip install -r requirements.txt`.\n"})
    write(tmp_path / "package", {**tree, "README.md": "```bash\npip install -e .\n```\nThen run `python train.py`.\n"})
    chosen = analyze(tmp_path / "prose", AnalyzeOptions(jobs=1)).target
    assert chosen.release.startswith("2.1.0") and "not from" not in chosen.reason.en
    assert "not from requirements.txt" in analyze(tmp_path / "package", AnalyzeOptions(jobs=1)).target.reason.en


def _rule(report, code):
    return sorted((f for f in report.findings if f.rule == code), key=lambda f: f.path)


def test_a_torch_repin_is_priced_once_and_an_optional_requirements_file_is_not_counted(tmp_path):
    """V1 V7: torch==2.0.1 (no torch_npu release) in requirements.txt and in requirements_fp8.txt (an opt-in
    environment): DEP012 high once at requirements.txt; the optional file's line is shown, optional. Two main files in
    two folders: the second is the same move, priced at 0.1-0.5 h."""
    write(tmp_path / "optional", {"requirements.txt": "torch==2.0.1\n", "requirements_fp8.txt": "torch==2.0.1\n",
                                  "app.py": "import torch\n"})
    main, fp8 = _rule(analyze(tmp_path / "optional", AnalyzeOptions(jobs=1)), "DEP012")
    assert (main.path, main.reach, main.severity, main.effort_hours.high) == ("requirements.txt", "runs", "high", 16.0)
    assert (fp8.path, fp8.reach) == ("requirements_fp8.txt", "optional") and not fp8.counted
    write(tmp_path / "two", {"requirements.txt": "torch==2.0.1\n", "serve/requirements.txt": "numpy\ntorch==2.0.1\n",
                             "app.py": "import torch\n", "serve/app.py": "import torch\n"})
    first, second = _rule(analyze(tmp_path / "two", AnalyzeOptions(jobs=1)), "DEP012")
    assert (first.path, first.effort_hours.low, first.effort_hours.high) == ("requirements.txt", 2.0, 16.0)
    assert (second.path, second.effort_hours.low, second.effort_hours.high) == ("serve/requirements.txt", 0.1, 0.5)
    assert (second.line, "the same torch move as requirements.txt:1" in second.message.en) == (2, True)
    write(tmp_path / "one", {"requirements.txt": "torch==2.0.1\n", "app.py": "import torch\n"})
    [alone] = _rule(analyze(tmp_path / "one", AnalyzeOptions(jobs=1)), "DEP012")
    assert (alone.reach, alone.effort_hours.high) == ("runs", 16.0)


def test_an_off_target_pin_in_a_file_no_installer_reads_is_info(tmp_path):
    """B2 C10: setup.py's torch<2.5 (which `pip install -e .` reads) chooses the target; requirements.txt pins
    torch==2.3.1 and nothing reads it: DEP016 at info, nothing to price. Where the README installs the file, the pin
    is the environment's: it chooses the target, and no DEP016 is left."""
    tree = {"setup.py": "from setuptools import setup\nsetup(name='o', install_requires=['torch<2.5'])\n",
            "requirements.txt": "torch==2.3.1\n", "o/__init__.py": "import torch\n"}
    write(tmp_path / "unread", {**tree, "README.md": "```bash\npip install -e .\n```\n"})
    [pin] = _rule(analyze(tmp_path / "unread", AnalyzeOptions(jobs=1)), "DEP016")
    assert (pin.severity, pin.effort_hours.high, pin.counted) == ("info", 0.0, False)
    assert "no install command or package manifest" in pin.message.en
    write(tmp_path / "read", {**tree, "README.md": "```bash\npip install -e .\npip install -r requirements.txt\n```\n"})
    report = analyze(tmp_path / "read", AnalyzeOptions(jobs=1))
    assert report.target.release.startswith("2.3.1") and not _rule(report, "DEP016")


def test_a_package_without_aarch64_wheels_says_so_on_its_row(tmp_path):
    """V1 V9: decord has no accelerator code, but PyPI ships no aarch64 wheel (dmlc/decord#297): its row says how to
    install it on an aarch64 Ascend host. opencv-python, with aarch64 wheels, keeps a bare not_involved row."""
    write(tmp_path, {"requirements.txt": "decord==0.6.0\nopencv-python\n", "data.py": "import decord\nimport cv2\n"})
    rows = {row.package: row for row in analyze(tmp_path, AnalyzeOptions(jobs=1)).dependency_matrix}
    assert rows["decord"].classification == "not_involved" and "aarch64" in rows["decord"].notes.en
    assert rows["opencv-python"].classification == "not_involved" and rows["opencv-python"].notes is None
    assert not any(f.path == "requirements.txt" and "decord" in f.symbol
                   for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings)  # a note, no finding


def test_linked_install_docs_are_the_readmes_relative_install_links_inside_the_root():
    readme = ("Please refer to [Installation Guide](docs/prepare_env/install_guide.md), or [here](./INSTALL.md#conda) "
              "and [again](<docs/a/../setup/install.md> \"title\").\n"
              "Not: [web](https://x.org/install.md), [up](../install.md), [abs](/install.md), [usage](docs/usage.md), "
              "[notes](docs/discussions/README.md), docs/plain/install.md named in prose.\n")
    assert linked_install_docs(readme) == {"docs/prepare_env/install_guide.md", "INSTALL.md", "docs/setup/install.md"}


def test_a_linked_document_that_sets_up_torch_is_an_install_guide_whatever_its_name():
    # round 34 (Swin-Transformer README.md:10 "See [get_started.md](get_started.md)"; get_started.md:26, :35)
    readme = "See [get_started.md](get_started.md), [usage](docs/usage.md), [notes](docs/README.md), [up](../x.md).\n"
    texts = {"get_started.md": "```bash\nconda create -n swin python=3.7 -y\n```\n",
             "docs/usage.md": "```bash\npip install timm==0.4.12\npython main.py\n```\n",
             "docs/README.md": "```bash\npip install torch==1.8.0\n```\n"}
    assert linked_install_docs(readme, texts.get) == {"get_started.md"}
    assert linked_install_docs(readme) == frozenset()  # nothing read: only names decide
    assert holds_torch_setup("```\nconda install pytorch==1.8.0 torchvision==0.9.0 cudatoolkit=10.2 -c pytorch\n```\n")
    assert holds_torch_setup("Run `pip install torch>=2.0` first.\n")
    assert not holds_torch_setup("```bash\npip install torchvision\nconda create -n env\n```\n")
    assert not holds_torch_setup("```python\npip install torch\n```\n")  # not a shell block


def test_a_get_started_guide_the_readme_links_gives_its_pins(tmp_path):
    guide = ("# Getting started\n\n```bash\nconda create -n swin python=3.7 -y\nconda activate swin\n"
             "conda install pytorch==1.8.0 torchvision==0.9.0 cudatoolkit=10.2 -c pytorch\n```\n")
    write(tmp_path, {"README.md": "# Swin\n\nSee [get_started.md](get_started.md) for a quick start.\n",
                          "get_started.md": guide, "other.md": guide,
                          "main.py": "import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n"})
    findings = analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
    assert {(f.rule, f.line) for f in findings if f.path == "get_started.md"} >= {("DEP017", 4), ("DEP013", 6)}
    assert next(f for f in findings if f.rule == "DEP013" and f.path == "get_started.md").severity == "high"
    assert not any(f.path == "other.md" for f in findings)  # not linked: not read


def test_a_snapshot_reads_a_package_module_a_broad_gitignore_pattern_matches_and_says_so(tmp_path):
    """Round 41 CenterPoint: `**build**` in .gitignore matches the committed det3d/builder.py; without a .git a .py
    beside a package's `__init__.py` is read, with a note. A .py outside a package, a .py in an ignored folder, and a
    package whose `__init__.py` itself is ignored stay unread; a checkout keeps the index's word."""
    write(tmp_path, {".gitignore": "**build**\nscratch*\n", "det3d/__init__.py": "", "det3d/builder.py": "x = 1\n",
                     "det3d/models.py": "y = 2\n", "build/lib/det3d/builder.py": "x = 1\n", "build_all.py": "z = 3\n",
                     "scratch/__init__.py": "", "scratch/tmp.py": "w = 4\n"})
    found = discover(tmp_path, [])
    assert [f.path for f in found.files] == ["det3d/__init__.py", "det3d/builder.py", "det3d/models.py"]
    assert [s.path for s in found.skipped if s.reason == GITIGNORE_OVERRIDDEN_MODULE] == ["det3d/builder.py"]
    checkout = tmp_path / "checkout"
    write(checkout, {"det3d/__init__.py": "", "det3d/models.py": "y = 2\n"})
    _commit_all(checkout)
    write(checkout, {".gitignore": "**build**\n", "det3d/builder.py": "x = 1\n"})  # untracked: git ignores it
    assert [f.path for f in discover(checkout, []).files] == ["det3d/__init__.py", "det3d/models.py"]
