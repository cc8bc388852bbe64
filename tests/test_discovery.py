from pathlib import Path

from ascend_feasibility.analyzer.reading.discovery import classify, discover


def paths(root, excludes=()):
    return [f.path for f in discover(root, list(excludes)).files]


def make(root: Path, *names):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


def test_classifies_the_kinds_of_file():
    assert classify("train.py") == "python"
    assert classify("demo.ipynb") == "notebook"
    assert classify("kernel.cu") == "cuda"
    assert classify("ops.cpp") == "cpp"
    assert classify("run.sh") == "shell"
    assert classify("job.slurm") == "shell"
    assert classify("config.yaml") == "yaml"
    assert classify("Dockerfile") == "dockerfile"
    assert classify("Dockerfile.cuda") == "dockerfile"
    assert classify("requirements-dev.txt") == "build"
    assert classify("CMakeLists.txt") == "build"
    assert classify("notes.txt") is None


def test_gitignore_nested_gitignore_and_excludes(tmp_path):
    make(tmp_path, "a.py", "gen/b.py", "sub/c.py", "sub/tmp/d.py", "sub/e.py", "third_party/f.py")
    (tmp_path / ".gitignore").write_text("gen/\n")
    (tmp_path / "sub" / ".gitignore").write_text("tmp/\ne.py\n")
    assert paths(tmp_path, ["third_party/"]) == ["a.py", "sub/c.py"]


def test_default_skips_virtualenvs_and_build_folders(tmp_path):
    make(tmp_path, "a.py", "myenv/lib/x.py", "build/lib/y.py", "dist/z.py", "node_modules/m.py", "lib/site-packages/s.py")
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    assert paths(tmp_path) == ["a.py"]


def test_project_config_excludes(tmp_path):
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    make(tmp_path, "a.py", "legacy/b.py")
    (tmp_path / "a.py").write_text("x.cuda()\n")
    (tmp_path / "legacy" / "b.py").write_text("x.cuda()\n")
    (tmp_path / "pyproject.toml").write_text('[tool.ascend-feasibility]\nexclude = ["legacy/"]\n')
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert [f.path for f in report.findings] == ["a.py"]


def test_build_and_dist_folders_are_skipped_only_when_they_are_build_outputs(tmp_path):
    make(tmp_path, "mmengine/__init__.py", "mmengine/dist/__init__.py", "mmengine/dist/utils.py",  # a source package
         "build/lib.linux-x86_64/pkg/ops.py", "build/__init__.py",  # setuptools' output, package marker or not
         "dist/pkg-1.0.tar.gz", "dist/notes.py", "docs/build/conf.py", "node_modules/x/index.py", ".git/hooks/pre.py")
    found = discover(tmp_path, [])
    read = [f.path for f in found.files]
    assert "mmengine/dist/utils.py" in read and "mmengine/dist/__init__.py" in read
    assert not any(p.startswith(("build/", "dist/", "docs/build/", "node_modules/", ".git/")) for p in read)
    reasons = {s.path: s.reason for s in found.skipped}
    assert "built artefacts" in reasons["build/"] and "built artefacts" in reasons["dist/"]
    assert "not a Python package" in reasons["docs/build/"]
    assert "virtual environment" in reasons["node_modules/"] and "version-control" in reasons[".git/"]
    assert "mmengine/dist/" not in reasons
