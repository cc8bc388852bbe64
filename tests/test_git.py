"""Git plumbing (dulwich, no `git` process): the report's revision, --changed-since, and hostile `.git` folders."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.cli import main
from ascend_feasibility.analyzer.reading.gitinfo import GitUnavailable, _added_lines, changed_since, read_revision
from dulwich import porcelain

from tests.hostile_helpers import make_fifo, reasons, run

IDENTITY = b"Test <test@example.com>"
BEFORE = "import torch\n\nx = torch.randn(3).cuda()\ntorch.cuda.synchronize()\n"


def commit(tree: Path, message: str = "change") -> str:
    repo = porcelain.open_repo(str(tree))
    try:
        porcelain.add(repo, paths=[str(tree / p) for p in _tracked(tree)])
        return porcelain.commit(repo, message=message.encode(), author=IDENTITY, committer=IDENTITY).decode()
    finally:
        repo.close()


def _tracked(tree: Path) -> list[str]:
    return sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts)


def checkout(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    tree = tmp_path / "project"
    tree.mkdir()
    porcelain.init(str(tree)).close()
    for name, text in (files or {"train.py": BEFORE}).items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    commit(tree, "first")
    return tree


@pytest.fixture(autouse=True)
def _time_limit():
    """A hostile .git must not hang the reader: fail instead of waiting forever."""
    def expired(signum, frame):
        raise TimeoutError("git reading hung")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_revision_commit_branch_and_dirty_state(tmp_path):
    tree = checkout(tmp_path)
    revision, problem = read_revision(tree)
    assert problem is None and revision.branch == "master" and not revision.dirty and len(revision.commit) == 40
    (tree / "notes.py").write_text("print(1)\n")  # untracked: not dirty, as for `git describe --dirty`
    assert not read_revision(tree)[0].dirty
    (tree / "train.py").write_text(BEFORE + "y = 1\n")
    assert read_revision(tree)[0].dirty
    (tree / "train.py").write_text(BEFORE)  # same content back, new mtime: hashed, not dirty
    assert not read_revision(tree)[0].dirty
    (tree / "train.py").unlink()
    assert read_revision(tree)[0].dirty


def test_staged_change_is_dirty(tmp_path):
    tree = checkout(tmp_path)
    (tree / "other.py").write_text("x = 1\n")
    repo = porcelain.open_repo(str(tree))
    porcelain.add(repo, paths=[str(tree / "other.py")])
    repo.close()
    assert read_revision(tree)[0].dirty


def test_revision_in_every_report_header(tmp_path, capsys):
    tree = checkout(tmp_path)
    first = read_revision(tree)[0].commit
    report = run(tree)
    assert report.project.project_revision.commit == first and ".git" not in reasons(report)
    from ascend_feasibility.analyzer.reporting.outputs import render_to_string

    assert f"commit {first} (master)" in render_to_string(report, "markdown", ("en",))
    assert f"commit {first} (master)" in render_to_string(report, "html", ("en",))
    assert main(["analyze", str(tree)]) == 0
    assert f"Revision: commit {first} (master)" in capsys.readouterr().out


def test_no_git_no_revision_no_reason(tmp_path):
    (tmp_path / "a.py").write_text("import torch\n")
    assert read_revision(tmp_path) == (None, None)
    report = run(tmp_path)
    assert report.project.project_revision is None and ".git" not in reasons(report)


def test_git_above_the_analyzed_folder_is_not_read(tmp_path):
    tree = checkout(tmp_path, {"sub/train.py": BEFORE})
    assert read_revision(tree / "sub") == (None, None)


def _outside_fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "outside"
    make_fifo(fifo)  # reading it would hang the test: proof that nothing outside is opened
    return fifo


@pytest.mark.parametrize("attack", [
    "gitdir-file-outside", "git-symlink-outside", "head-symlink-outside", "fifo-in-git", "alternates",
    "garbage-head", "garbage-objects", "empty-git", "no-commit-yet", "commondir-outside",
])
def test_hostile_git_gives_no_revision_and_a_reason(tmp_path, attack):
    tree = checkout(tmp_path)
    git = tree / ".git"
    if attack == "gitdir-file-outside":
        elsewhere = tmp_path / "elsewhere"
        git.rename(elsewhere)
        git.write_text(f"gitdir: {elsewhere}\n")
    elif attack == "git-symlink-outside":
        elsewhere = tmp_path / "elsewhere"
        git.rename(elsewhere)
        git.symlink_to(elsewhere)
    elif attack == "head-symlink-outside":
        (git / "HEAD").unlink()
        (git / "HEAD").symlink_to(_outside_fifo(tmp_path))
    elif attack == "fifo-in-git":
        (git / "refs" / "heads" / "master").unlink()
        make_fifo(git / "refs" / "heads" / "master")
    elif attack == "alternates":
        (git / "objects" / "info").mkdir(exist_ok=True)
        (git / "objects" / "info" / "alternates").write_text(str(tmp_path / "store") + "\n")
    elif attack == "garbage-head":
        (git / "HEAD").write_bytes(b"\xff\xfe" * 1000)
    elif attack == "garbage-objects":
        for path in (git / "objects").rglob("*"):
            if path.is_file():
                path.chmod(0o644)
                path.write_bytes(b"x\x9c garbage")
    elif attack == "empty-git":
        for path in sorted(git.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
    elif attack == "no-commit-yet":
        (git / "refs" / "heads" / "master").unlink()
    elif attack == "commondir-outside":
        (git / "commondir").write_text(str(tmp_path) + "\n")
    revision, problem = read_revision(tree)
    assert revision is None and problem
    report = run(tree)
    assert report.project.project_revision is None
    assert any(e.reason.startswith("git revision not read: ") for e in report.skipped if e.path == ".git")
    assert report.findings  # the analysis itself goes on


def test_index_naming_a_path_outside_is_refused(tmp_path):
    from dulwich.index import Index

    tree = checkout(tmp_path)
    index = Index(str(tree / ".git" / "index"))
    entry = next(iter(index.iteritems()))[1]
    index[b"../outside.py"] = entry
    index.write()
    (tmp_path / "outside.py").write_text("x")
    revision, problem = read_revision(tree)
    assert revision is None and "outside the tree" in problem


def test_added_lines():
    assert _added_lines(b"a\nb\nc\n", b"a\nB\nc\nd\n") == {2, 4}
    assert _added_lines(b"a\nb\n", b"a\n") == frozenset()  # a deletion adds no line
    assert _added_lines(b"", b"x\n") == {1}


def _changed_tree(tmp_path: Path) -> Path:
    tree = checkout(tmp_path, {"train.py": BEFORE, "old.py": "import torch\ntorch.cuda.empty_cache()\n",
                               "nb.ipynb": _notebook("import torch\ntorch.cuda.synchronize()")})
    with (tree / "train.py").open("a") as handle:
        handle.write("torch.cuda.manual_seed(1)\n")  # line 5: new
    (tree / "new.py").write_text("import torch\ntorch.cuda.ipc_collect()\n")  # untracked: all new
    return tree


def _notebook(source: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}]})


def test_changed_lines_of_files(tmp_path):
    tree = _changed_tree(tmp_path)
    changes = changed_since(tree, "HEAD")
    try:
        assert changes.lines("train.py") == {5}
        assert changes.lines("old.py") == frozenset()
        assert changes.lines("new.py") is None  # not in HEAD: every line
        assert changes.covers("train.py", 4, 5) and not changes.covers("train.py", 1, 4)
    finally:
        changes.close()


def test_changed_since_reports_only_changed_lines_in_every_format(tmp_path, capsys):
    tree = _changed_tree(tmp_path)
    assert main(["analyze", str(tree), "--format", "json", "--changed-since", "HEAD"]) == 0
    report = json.loads(capsys.readouterr().out)
    places = sorted((f["path"], f["line"]) for f in report["findings"])
    assert places == [("new.py", 2), ("train.py", 5)]
    assert report["changed_since"]["kept"] == 2 and report["changed_since"]["left_out"] >= 3
    assert report["summary"]["total"] == 2
    assert report["project"]["project_revision"]["dirty"] is True
    assert main(["analyze", str(tree), "--format", "sarif", "--changed-since", "HEAD"]) == 0
    assert len(json.loads(capsys.readouterr().out)["runs"][0]["results"]) == 2
    assert main(["analyze", str(tree), "--format", "github", "--changed-since", "HEAD"]) == 0
    annotations = capsys.readouterr().out
    assert "file=old.py" not in annotations and "file=train.py,line=3" not in annotations
    assert main(["analyze", str(tree), "--changed-since", "HEAD"]) == 0
    assert "the 2 findings on lines changed since then are listed" in " ".join(capsys.readouterr().out.split())
    for fmt in ("markdown", "html"):
        assert main(["analyze", str(tree), "--format", fmt, "--lang", "en", "--changed-since", "HEAD"]) == 0
        assert "the 2 findings on lines changed since then are listed, " in capsys.readouterr().out


def test_changed_since_gates_only_changed_lines(tmp_path, capsys):
    tree = checkout(tmp_path)
    assert main(["analyze", str(tree), "--changed-since", "HEAD", "--fail-on", "info", "--format", "json"]) == 0
    (tree / "train.py").write_text(BEFORE + "torch.cuda.synchronize()\n")
    capsys.readouterr()
    assert main(["analyze", str(tree), "--changed-since", "HEAD", "--fail-on", "info", "--format", "json"]) == 1
    listed = [line.strip() for line in capsys.readouterr().err.splitlines() if line.startswith("  ")]
    assert listed == ["train.py:5: DEV101 torch-cuda-synchronize (info)"]


def test_changed_since_ancestors_and_notebooks(tmp_path, capsys):
    tree = _changed_tree(tmp_path)
    commit(tree, "second")
    (tree / "nb.ipynb").write_text(_notebook("import torch\ntorch.cuda.synchronize()\nx = 1"))
    assert main(["analyze", str(tree), "--format", "json", "--changed-since", "HEAD~1"]) == 0
    paths = {f["path"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert paths == {"new.py", "train.py", "nb.ipynb"}  # a changed notebook keeps its findings
    assert main(["analyze", str(tree), "--format", "json", "--changed-since", "HEAD"]) == 0
    assert {f["path"] for f in json.loads(capsys.readouterr().out)["findings"]} == {"nb.ipynb"}


@pytest.mark.parametrize("ref", ["no-such-branch", "HEAD~7", "", "0" * 40])
def test_unknown_ref_is_a_one_line_error(tmp_path, capsys, ref):
    tree = checkout(tmp_path)
    assert main(["analyze", str(tree), "--changed-since", ref]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ascend-feasibility: error: --changed-since: unknown revision") and len(err.splitlines()) == 1


def test_changed_since_outside_a_checkout_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "a.py").write_text("import torch\n")
    assert main(["analyze", str(tmp_path), "--changed-since", "HEAD"]) == 2
    err = capsys.readouterr().err
    assert "is not a git checkout" in err and len(err.splitlines()) == 1


def test_changed_since_with_hostile_git_is_a_one_line_error(tmp_path, capsys):
    tree = checkout(tmp_path)
    (tree / ".git" / "HEAD").unlink()
    os.symlink("/etc/hostname", tree / ".git" / "HEAD")
    assert main(["analyze", str(tree), "--changed-since", "HEAD"]) == 2
    assert "outside the analyzed tree" in capsys.readouterr().err


def test_resolve_errors_are_git_unavailable(tmp_path):
    tree = checkout(tmp_path)
    with pytest.raises(GitUnavailable):
        changed_since(tree, "master^5")
    changes = changed_since(tree, "master")
    assert changes.commit == read_revision(tree)[0].commit
    changes.close()


def test_a_socket_in_the_git_folder_is_passed_over(tmp_path):
    import socket

    tree = checkout(tmp_path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(tree / ".git" / "fsmonitor--daemon.ipc"))  # what git's file-system monitor leaves there
    except OSError as exc:
        pytest.skip(f"no UNIX socket here: {exc}")
    try:
        revision, problem = read_revision(tree)
        assert problem is None and revision is not None
    finally:
        server.close()


def test_a_clone_made_by_git_with_packs_and_remote_branches(tmp_path, capsys):
    """What CI has: a `git clone` (packed objects and refs), a feature branch, the base as origin/<branch>."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("no git command here (the analyzer itself does not need one)")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

    def git(*args, cwd):
        subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, check=True, capture_output=True)

    origin = tmp_path / "origin"
    origin.mkdir()
    (origin / "train.py").write_text(BEFORE)
    git("init", "-q", cwd=origin)
    git("add", "-A", cwd=origin)
    git("commit", "-qm", "first", cwd=origin)
    git("clone", "-q", str(origin), "clone", cwd=tmp_path)
    clone = tmp_path / "clone"
    git("checkout", "-qb", "feature", cwd=clone)
    (clone / "train.py").write_text(BEFORE + "torch.cuda.empty_cache()\n")
    git("commit", "-qam", "feature", cwd=clone)
    git("gc", "-q", cwd=clone)
    assert main(["analyze", str(clone), "--format", "json", "--changed-since", "origin/main"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["line"]) for f in report["findings"]] == [("train.py", 5)]
    assert report["project"]["project_revision"]["branch"] == "feature"
    assert report["project"]["project_revision"]["dirty"] is False
