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
