"""The hostile suite, second round (issue 22): `port`, `port --apply`, `-o`, the git reads, the cache and the
terminal. Nothing the analyzed tree controls runs, is read outside the root or is written; a damaged repository is a
one-line refusal; the patch applies whatever characters a line holds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.port.core import FileRewrite, PortResult
from ascend_feasibility.analyzer.port.patch import unified_diff
from ascend_feasibility.analyzer.reading.gitinfo import read_revision
from ascend_feasibility.analyzer.reporting.render_text import printable
from dulwich import porcelain

from tests.hostile_helpers import MODULE, ROOT, assert_clean, cli, make_fifo

IDENTITY = b"Test <test@example.com>"
TRAIN = "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n\n\nif __name__ == \"__main__\":\n    main()\n"
FILES = {"pkg/__init__.py": "", "pkg/train.py": TRAIN}
PORT_TIMEOUT = 90  # a read that blocks (a FIFO) fails the test instead of hanging it


def checkout(tmp_path: Path, files: dict[str, str] | None = None, name: str = "project") -> Path:
    """A committed checkout made with dulwich (no `git` needed)."""
    tree = tmp_path / name
    tree.mkdir()
    porcelain.init(str(tree)).close()
    for path, text in (files or FILES).items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text, encoding="utf-8")
    repo = porcelain.open_repo(str(tree))
    try:
        porcelain.add(repo, paths=[str(tree / p) for p in (files or FILES)])
        porcelain.commit(repo, message=b"first", author=IDENTITY, committer=IDENTITY)
    finally:
        repo.close()
    return tree


def snapshot(tree: Path) -> dict[str, bytes]:
    return {str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*"))
            if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(tree).parts}


def port(*args: str, **env: str) -> subprocess.CompletedProcess:
    return cli("port", *args, timeout=PORT_TIMEOUT, **env)


def one_line_refusal(result: subprocess.CompletedProcess, *needles: str) -> str:
    stderr = result.stderr.decode("utf-8", errors="replace")
    assert result.returncode == 2, stderr[-2000:]
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr[-2000:]
    for needle in needles:
        assert needle in stderr, stderr
    return stderr


# --- 1: nothing of the repository runs ------------------------------------------------------------------------------


def plant_programs(tree: Path, sentinel: Path, config_file: Path) -> None:
    """Every way git could be made to start a program: a filter selected by .gitattributes (clean, smudge and the
    long-running process), a diff/textconv driver, fsmonitor, a pager, hooks, an include."""
    command = f"sh -c 'echo ran >> {sentinel}; cat'"
    with open(config_file, "a", encoding="utf-8") as config:
        config.write(
            f'[filter "evil"]\n\tclean = {command}\n\tsmudge = {command}\n\tprocess = {command}\n\trequired = true\n'
            f'[diff "evil"]\n\ttextconv = {command}\n\tcommand = {command}\n'
            f'[core]\n\tfsmonitor = {command}\n\tpager = {command}\n\thooksPath = hooks\n'
            f'[pager]\n\tstatus = {command}\n'
        )
    (tree / ".gitattributes").write_text("* filter=evil diff=evil\n")
    hooks = tree / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {sentinel}\n")
        (hooks / hook).chmod(0o755)


@pytest.mark.parametrize("where", ["repository", "user"])
@pytest.mark.parametrize("edited", [True, False])
def test_port_apply_never_runs_a_planted_filter_hook_or_fsmonitor(tmp_path, where, edited):
    tree = checkout(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    sentinel = tmp_path / "sentinel"
    plant_programs(tree, sentinel, tree / ".git" / "config" if where == "repository" else home / ".gitconfig")
    if edited:  # a tracked file that differs from the index: the dirty check must look at its content
        (tree / "pkg" / "train.py").write_text(TRAIN + "# edited\n", encoding="utf-8")
    result = port(str(tree), "--apply", HOME=str(home), XDG_CONFIG_HOME=str(home))
    assert not sentinel.exists(), sentinel.read_text()
    if edited:
        one_line_refusal(result, "uncommitted changes", "pkg/train.py")
    else:  # .gitattributes is untracked: the tree is clean, the port is written
        assert_clean(result)
        assert "_device.synchronize()" in (tree / "pkg" / "train.py").read_text()
    for command in (["analyze", str(tree)], ["analyze", str(tree), "--changed-since", "HEAD"]):
        assert_clean(cli(*command, "--jobs", "1", HOME=str(home), XDG_CONFIG_HOME=str(home)))
    assert not sentinel.exists()


def test_the_dirty_check_compares_bytes_staged_and_unstaged(tmp_path):
    from ascend_feasibility.analyzer.reading.gitinfo import uncommitted_changes

    tree = checkout(tmp_path, {**FILES, "b.py": "x = 1\n", "c.py": "y = 2\n"})
    assert uncommitted_changes(tree) == []
    (tree / "b.py").write_text("x = 2\n")  # unstaged
    (tree / "c.py").unlink()  # deleted
    (tree / "new.py").write_text("z = 3\n")  # untracked: not counted
    assert uncommitted_changes(tree) == ["b.py", "c.py"]
    assert uncommitted_changes(tmp_path) is None  # no .git
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    porcelain.init(str(fresh)).close()
    assert uncommitted_changes(fresh) == []  # `git init`, nothing added: no index yet, nothing tracked


# --- 2, 4, 5: port --apply goes through analyze's git checks --------------------------------------------------------


def _outside_fifo_repo(tmp_path: Path, tree: Path) -> Path:
    """The checkout's git folder moved outside the tree, its HEAD a FIFO: reading it would block."""
    elsewhere = tmp_path / "elsewhere"
    (tree / ".git").rename(elsewhere)
    (elsewhere / "HEAD").unlink()
    make_fifo(elsewhere / "HEAD")
    return elsewhere


@pytest.mark.parametrize("attack", ["gitdir-file", "git-symlink", "commondir"])
def test_port_apply_never_reads_a_git_folder_outside_the_tree(tmp_path, attack):
    tree = checkout(tmp_path)
    if attack == "commondir":
        elsewhere = tmp_path / "elsewhere"
        shutil.copytree(tree / ".git", elsewhere)
        for name in ("HEAD", "config"):
            (elsewhere / name).unlink()
            make_fifo(elsewhere / name)
        (tree / ".git" / "commondir").write_text(str(elsewhere) + "\n")
    else:
        elsewhere = _outside_fifo_repo(tmp_path, tree)
        if attack == "gitdir-file":
            (tree / ".git").write_text(f"gitdir: {elsewhere}\n")
        else:
            (tree / ".git").symlink_to(elsewhere)
    before = snapshot(tree)
    one_line_refusal(port(str(tree), "--apply"), "outside the analyzed tree", "--force")
    assert snapshot(tree) == before


@pytest.mark.parametrize("name", ["index", "HEAD", "config", "refs/heads/master"])
def test_port_apply_on_a_fifo_in_the_git_folder_refuses_without_blocking(tmp_path, name):
    tree = checkout(tmp_path)
    (tree / ".git" / name).unlink()
    make_fifo(tree / ".git" / name)
    before = snapshot(tree)
    one_line_refusal(port(str(tree), "--apply"), "FIFO")
    assert snapshot(tree) == before


def _objects(git: Path) -> list[Path]:
    return sorted(p for p in (git / "objects").glob("??/*") if p.is_file())


def damage(tree: Path, how: str) -> None:
    git = tree / ".git"
    if how in ("garbage-pack", "truncated-pack", "garbage-pack-index"):
        porcelain.repack(str(tree))
        for loose in _objects(git):
            loose.unlink()
        pack = next((git / "objects" / "pack").glob("*.pack"))
        target = pack.with_suffix(".idx") if how == "garbage-pack-index" else pack
        target.chmod(0o644)
        data = target.read_bytes()
        if how == "truncated-pack":
            target.write_bytes(data[: len(data) // 2])
        else:
            target.write_bytes(data[:12] + bytes(b ^ 0x5A for b in data[12:]))
    elif how == "bad-loose-object":
        head = (git / "refs" / "heads" / "master").read_text().strip()
        path = git / "objects" / head[:2] / head[2:]
        path.chmod(0o644)
        path.write_bytes(zlib.compress(b"commit 999\0not a commit at all"))
    elif how == "corrupt-index":
        data = (git / "index").read_bytes()
        (git / "index").write_bytes(data[:20] + b"\xff" * 40 + data[60:])
    elif how == "head-not-a-commit":
        repo = porcelain.open_repo(str(tree))
        try:
            tree_id = repo[repo.head()].tree
        finally:
            repo.close()
        (git / "refs" / "heads" / "master").write_text(tree_id.decode() + "\n")
    elif how == "symref-loop":
        (git / "refs" / "heads" / "master").write_text("ref: refs/heads/other\n")
        (git / "refs" / "heads" / "other").write_text("ref: refs/heads/master\n")


DAMAGE = ["garbage-pack", "truncated-pack", "garbage-pack-index", "bad-loose-object", "corrupt-index",
          "head-not-a-commit", "symref-loop"]


@pytest.mark.parametrize("how", DAMAGE)
def test_port_apply_on_a_damaged_repository_is_a_one_line_refusal(tmp_path, how):
    tree = checkout(tmp_path)
    damage(tree, how)
    before = snapshot(tree)
    one_line_refusal(port(str(tree), "--apply"), "cannot tell whether the git tree has uncommitted changes")
    assert snapshot(tree) == before
    revision, problem = read_revision(tree)  # analyze: no revision, a reason
    assert revision is None and problem


# --- 3: config includes are never followed, reasons never quote a file ----------------------------------------------


def test_config_includes_are_never_followed_and_never_quoted(tmp_path):
    tree = checkout(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("[core\nTOP-SECRET-LINE = hunter2 ]]] \\\n")
    fifo = tmp_path / "fifo-include"
    make_fifo(fifo)  # opening it would block: proof that it is never opened
    with open(tree / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(f"[include]\n\tpath = {secret}\n[includeIf \"gitdir:/\"]\n\tpath = {fifo}\n"
                     f"[includeIf \"onbranch:master\"]\n\tpath = {fifo}\n")
    result = cli("analyze", str(tree), "--format", "json", "--jobs", "1", timeout=PORT_TIMEOUT)
    assert_clean(result)
    assert b"TOP-SECRET" not in result.stdout + result.stderr and b"hunter2" not in result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["project"]["project_revision"]["branch"] == "master"
    assert_clean(port(str(tree), "--apply"))


def test_a_reason_never_quotes_a_file_of_the_repository(tmp_path):
    tree = checkout(tmp_path)
    (tree / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\nTOP-SECRET-LINE hunter2 = [[[\n")
    revision, problem = read_revision(tree)
    assert revision is None and "config" in problem and "SECRET" not in problem and "hunter2" not in problem
    (tree / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    (tree / ".git" / "HEAD").write_text("ref: refs/heads/TOP-SECRET\0hunter2\n")
    revision, problem = read_revision(tree)
    assert revision is None and "SECRET" not in (problem or "") and "hunter2" not in (problem or "")


@pytest.mark.parametrize("extension", ["objectformat = sha256", "refstorage = reftable", "partialclone = origin"])
def test_a_repository_format_this_reader_does_not_know_is_refused(tmp_path, extension):
    tree = checkout(tmp_path)
    with open(tree / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(f"[core]\n\trepositoryformatversion = 1\n[extensions]\n\t{extension}\n")
    revision, problem = read_revision(tree)
    assert revision is None and "extension" in problem


# --- 6: the patch applies whatever a line holds -----------------------------------------------------------------------

# every character str.splitlines() breaks a line at, besides \n and \r
LINE_BREAKING = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def _git_apply_check(tree: Path, patch: str) -> subprocess.CompletedProcess:
    """`git apply --check` in the test's own copy (the analyzer never runs git)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tree.parent / "x.patch").write_text(patch, encoding="utf-8", newline="")
    return subprocess.run(["git", "apply", "--check", str(tree.parent / "x.patch")], cwd=tree, capture_output=True,
                          text=True, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tree.parent)})


@pytest.mark.parametrize("character", LINE_BREAKING + ["\r"], ids=lambda c: f"U+{ord(c):04X}")
def test_the_patch_applies_with_any_line_breaking_character_in_a_line(tmp_path, character):
    old = f"import torch\n# before{character}after\nx = 1\ntorch.cuda.synchronize()\ny = 2{character}\n"
    if character == "\r":
        old = old.replace("\n", "\r\n")  # CRLF kept: \r stays part of each line
    new = old.replace("torch.cuda.synchronize()", "torch.npu.synchronize()")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "train.py").write_bytes(old.encode("utf-8"))
    subprocess.run(["git", "init", "-q"], cwd=tree, check=False, capture_output=True)
    result = PortResult(rewrites=[FileRewrite("train.py", old, new)], new_files={"m.py": f"a = 1{character}\nb = 2\n"})
    patch = unified_diff(result)
    done = _git_apply_check(tree, patch)
    assert done.returncode == 0, done.stderr + repr(patch)
    subprocess.run(["git", "apply", str(tree.parent / "x.patch")], cwd=tree, check=True, capture_output=True)
    assert (tree / "train.py").read_bytes() == new.encode("utf-8")
    assert (tree / "m.py").read_bytes() == f"a = 1{character}\nb = 2\n".encode("utf-8")


def test_port_o_patch_of_a_file_with_a_form_feed_applies(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "train.py").write_text("import torch\n\f\n# a\x0bb \u2028 c \x85\ntorch.cuda.synchronize()\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tree, check=False, capture_output=True)
    result = port(str(tree), "-o", str(tmp_path / "out" / "x.patch"))
    assert_clean(result)
    patch = (tmp_path / "out" / "x.patch").read_bytes().decode("utf-8")
    assert "train.py" in patch
    done = _git_apply_check(tree, patch)
    assert done.returncode == 0, done.stderr


# --- 7, 8: port -o writes nothing outside and overwrites nothing of the project ---------------------------------------


def test_port_o_through_a_shipped_link_writes_nothing_outside(tmp_path):
    tree = tmp_path / "tree"
    outside = tmp_path / "outside"
    outside.mkdir()
    (tree / "pkg").mkdir(parents=True)
    for path, text in FILES.items():
        (tree / path).write_text(text)
    (tree / "out").symlink_to(outside)
    one_line_refusal(port(str(tree), "-o", str(tree / "out" / "x.patch")), "leads outside it through a symbolic link")
    assert list(outside.iterdir()) == []


def test_port_o_never_overwrites_a_file_of_the_project(tmp_path):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    for path, text in FILES.items():
        (tree / path).write_text(text)
    (tree / "verify_npu.py").write_text("print('the project own verify script')\n")
    (tree / "notes.txt").write_text("precious\n")
    before = snapshot(tree)
    one_line_refusal(port(str(tree), "-o", str(tree / "x.patch")), "verify_npu.py", "not overwriting")
    assert snapshot(tree) == before  # not even the patch: refused before anything is written
    one_line_refusal(port(str(tree), "-o", str(tree / "notes.txt")), "not overwriting")
    assert snapshot(tree) == before
    (tree / "verify_npu.py").unlink()
    for _ in range(2):  # an earlier patch and port's own verify script are replaced: the run can be repeated
        assert_clean(port(str(tree), "-o", str(tree / "port.patch")))
        assert (tree / "port.patch").read_text().startswith("diff --git a/")
    assert (tree / "notes.txt").read_text() == "precious\n"


# --- 9: port recognises what it wrote ---------------------------------------------------------------------------------


def test_a_second_unsafe_port_leaves_its_own_files_alone_and_analyze_does_not_annotate_them(tmp_path):
    tree = checkout(tmp_path)
    assert_clean(port(str(tree), "--apply", "--unsafe"))
    module = tree / "pkg" / "_device.py"
    first = module.read_bytes()
    porcelain.add(str(tree), paths=[str(p) for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts])
    porcelain.commit(str(tree), message=b"ported", author=IDENTITY, committer=IDENTITY)
    assert_clean(port(str(tree), "--apply", "--unsafe"))
    assert module.read_bytes() == first
    github = cli("analyze", str(tree), "--format", "github", "--jobs", "1")
    assert_clean(github)
    assert b"_device.py" not in github.stdout and b"verify_npu.py" not in github.stdout
    report = json.loads(cli("analyze", str(tree), "--format", "json", "--jobs", "1").stdout)
    generated = {entry["path"] for entry in report["skipped"] if "written by ascend-feasibility port" in entry["reason"]}
    assert generated == {"pkg/_device.py", "verify_npu.py"}


def test_a_project_module_that_only_quotes_the_mark_is_analysed(tmp_path):
    (tmp_path / "notes.py").write_text("import torch\n# Written by ascend-feasibility port\ntorch.cuda.synchronize()\n")
    report = json.loads(cli("analyze", str(tmp_path), "--format", "json", "--jobs", "1").stdout)
    assert any(f["path"] == "notes.py" for f in report["findings"])


# --- 10: the terminal shows every character that could move or hide text -----------------------------------------


HIDING = ["\u2028", "\u2029", "\u200b", "\u200e", "\u202e", "\u2066", "\u061c", "\ufeff", "\u00ad", "\U000e0041", "\x85"]


def test_the_text_summary_escapes_separators_and_format_characters(tmp_path):
    for number, character in enumerate(HIDING):  # one run for all: each in a name, a comment and a string
        assert character not in printable(f"a{character}b"), f"U+{ord(character):04X}"
        (tmp_path / f"x{number}{character}y.py").write_text(f"import torch\ntorch.cuda.synchronize()  # {character}\n"
                                                           f"torch.device('cuda{character}')\n")
    result = cli("analyze", str(tmp_path), "--jobs", "1", "--fail-on", "info")
    assert_clean(result, codes=(1,))
    for character in HIDING:
        for stream in (result.stdout, result.stderr):
            assert character.encode("utf-8") not in stream, f"U+{ord(character):04X}"


# --- 11: a closed standard output ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("closed", "extra", "code"), [
    (1, [], 0), (1, ["--fail-on", "low"], 1), (2, [], 0), (1, ["--format", "json"], 0),
])
def test_a_closed_standard_stream_ends_quietly_with_the_documented_code(tmp_path, closed, extra, code):
    (tmp_path / "m.py").write_text("import torch\ntorch.cuda.synchronize()\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [*MODULE, "analyze", str(tmp_path), "--jobs", "1", *extra]
    other = subprocess.PIPE
    done = subprocess.run(command, env=env, capture_output=False, timeout=120,
                          stdout=other if closed == 2 else None, stderr=other if closed == 1 else None,
                          preexec_fn=lambda: os.close(closed))
    captured = (done.stdout if closed == 2 else done.stderr) or b""
    assert done.returncode == code and b"Traceback" not in captured and b"Error" not in captured, captured


# --- 12: a cache entry is served only as written ------------------------------------------------------------------


def test_a_cache_entry_edited_by_hand_is_a_miss(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text("import torch\ntorch.cuda.synchronize()\n")
    cache = tmp_path / "cache"
    first = cli("analyze", str(tree), "--format", "json", "--jobs", "1", "--cache-dir", str(cache))
    assert_clean(first)
    # the cache's entries, not its stat index (cache/stat/, written when the file is older than the racy window)
    entries = [p for p in cache.rglob("*.json") if p.is_file() and p.parent.name != "stat"]
    assert entries
    for entry in entries:  # still valid JSON of a valid result, only not what the analyzer wrote
        data = entry.read_bytes()
        assert b'"symbol":"torch.cuda.synchronize"' in data
        entry.write_bytes(data.replace(b'"symbol":"torch.cuda.synchronize"', b'"symbol":"EDITED"'))
    again = cli("analyze", str(tree), "--format", "json", "--jobs", "1", "--cache-dir", str(cache))
    assert_clean(again)
    assert b"EDITED" not in again.stdout
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]
    for entry in entries:  # cut short: a miss too, never a crash
        entry.write_bytes(entry.read_bytes()[:40])
    assert_clean(cli("analyze", str(tree), "--format", "json", "--jobs", "1", "--cache-dir", str(cache)))
