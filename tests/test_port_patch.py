"""analyzer/port/patch.py without an analysis: the diff's bytes, `apply`'s refusals and its writes, and `port -o`'s
rules for what it may replace, as the module's docstrings state them."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest
from ascend_feasibility.analyzer.port.core import PortResult
from ascend_feasibility.analyzer.port.files import FileRewrite
from ascend_feasibility.analyzer.port.patch import (
    NO_NEWLINE,
    ApplyError,
    _lines,
    _previous_patch,
    _written_by_port,
    apply,
    unified_diff,
    write_patch,
)
from ascend_feasibility.analyzer.reading.generated import PORT_MARK

MARKED = f'"""{PORT_MARK}."""\n'


def test_lines_break_at_newlines_only():
    assert _lines("a\r\nb\x0cc\u2028d\n") == ["a\r\n", "b\x0cc\u2028d\n"]
    assert _lines("a\nb") == ["a\n", "b"]
    assert _lines("") == []
    assert _lines("\n") == ["\n"]


def test_the_diff_of_a_changed_and_a_new_file_in_path_order():
    result = PortResult(rewrites=[FileRewrite("b.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n")],
                        new_files={"a_device.py": "Z = 1\n"})
    assert unified_diff(result) == (
        "diff --git a/a_device.py b/a_device.py\nnew file mode 100644\n--- /dev/null\n+++ b/a_device.py\n"
        "@@ -0,0 +1 @@\n+Z = 1\n"
        "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n")


def test_an_unchanged_or_unpatched_file_gives_no_hunk():
    result = PortResult(rewrites=[FileRewrite("a.py", "x = 1\n", None), FileRewrite("b.py", "x\n", "x\n")])
    assert unified_diff(result) == ""


def test_a_last_line_without_newline_is_marked_as_git_marks_it():
    result = PortResult(rewrites=[FileRewrite("a.py", "x = 1", "x = 2")])
    assert unified_diff(result) == ("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n"
                                    + NO_NEWLINE + "+x = 2\n" + NO_NEWLINE)
    assert NO_NEWLINE == "\\ No newline at end of file\n"


def test_a_last_line_that_starts_like_a_header_is_still_marked(tmp_path):
    """A removed `--y` is the diff line `---y`, an added `++z` the line `+++z`: neither is the file header, and a
    last line without newline needs its marker or `git apply` refuses the patch."""
    result = PortResult(rewrites=[FileRewrite("a.py", "x = 1\n--y", "x = 2\n++z")])
    diff = unified_diff(result)
    assert diff.endswith("-x = 1\n---y\n" + NO_NEWLINE + "+x = 2\n+++z\n" + NO_NEWLINE)
    (tmp_path / "a.py").write_text("x = 1\n--y", encoding="utf-8")
    (tmp_path / "p.patch").write_text(diff, encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "apply", "p.patch")
    assert (tmp_path / "a.py").read_text() == "x = 2\n++z"


def test_header_lines_keep_every_character_of_the_path():
    diff = unified_diff(PortResult(new_files={"bin/runX": "Z\n"}))
    assert diff.startswith("diff --git a/bin/runX b/bin/runX\nnew file mode 100644\n--- /dev/null\n+++ b/bin/runX\n")


def test_three_lines_of_context():
    old = "".join(f"{i}\n" for i in range(10))
    new = old.replace("5\n", "five\n")
    diff = unified_diff(PortResult(rewrites=[FileRewrite("a.py", old, new)]))
    assert "@@ -3,7 +3,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n" in diff


def _git(root, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True)


def test_the_diff_applies_with_git(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2", encoding="utf-8")
    result = PortResult(rewrites=[FileRewrite("a.py", "x = 1\ny = 2", "x = 1\ny = 3\n")],
                        new_files={"pkg_device.py": "Z = 1"})
    (tmp_path / "p.patch").write_text(unified_diff(result), encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "apply", "p.patch")
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3\n"
    assert (tmp_path / "pkg_device.py").read_text() == "Z = 1"


def _result(**new_files):
    return PortResult(rewrites=[FileRewrite("a.py", "x = 1\n", "x = 2\n"), FileRewrite("b.py", "y\n", None)],
                      new_files=new_files)


def test_apply_writes_changed_and_new_files_keeping_modes(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    os.chmod(tmp_path / "a.py", 0o751)
    (tmp_path / "b.py").write_text("y\n")
    written = apply(tmp_path, _result(**{"p_device.py": "Z\n"}), extra={"verify_npu.py": "V\n"})
    assert written == ["a.py", "p_device.py", "verify_npu.py"]
    assert (tmp_path / "a.py").read_text() == "x = 2\n" and (tmp_path / "b.py").read_text() == "y\n"
    assert stat.S_IMODE((tmp_path / "a.py").stat().st_mode) == 0o751
    assert stat.S_IMODE((tmp_path / "p_device.py").stat().st_mode) == 0o644
    assert (tmp_path / "verify_npu.py").read_text() == "V\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ascend-port-")]


def test_apply_keeps_line_endings_as_given(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    apply(tmp_path, PortResult(rewrites=[FileRewrite("a.py", "x = 1\n", "x = 2\r\n")]))
    assert (tmp_path / "a.py").read_bytes() == b"x = 2\r\n"


def test_apply_replaces_only_files_port_wrote(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "p_device.py").write_text(MARKED)
    apply(tmp_path, _result(**{"p_device.py": "new\n"}))
    assert (tmp_path / "p_device.py").read_text() == "new\n"
    (tmp_path / "q_device.py").write_text("the project's own\n")
    with pytest.raises(ApplyError, match=r"^q_device.py already exists; not overwriting it$"):
        apply(tmp_path, _result(**{"q_device.py": "new\n"}))
    assert (tmp_path / "q_device.py").read_text() == "the project's own\n"
    (tmp_path / "verify_npu.py").symlink_to(tmp_path / "p_device.py")
    with pytest.raises(ApplyError, match="already exists"):
        apply(tmp_path, _result(), extra={"verify_npu.py": "V\n"})


def test_apply_refuses_a_link_or_a_missing_folder_and_writes_nothing(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "elsewhere.py").write_text("e\n")
    (tmp_path / "l.py").symlink_to(tmp_path / "elsewhere.py")
    result = PortResult(rewrites=[FileRewrite("a.py", "x = 1\n", "x = 2\n"), FileRewrite("l.py", "e\n", "f\n")])
    with pytest.raises(ApplyError, match=r"^l.py: not a regular file in the tree$"):
        apply(tmp_path, result)
    assert (tmp_path / "a.py").read_text() == "x = 1\n" and (tmp_path / "elsewhere.py").read_text() == "e\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ascend-port-")]
    with pytest.raises(ApplyError, match=r"^sub/b.py: not a regular file in the tree$"):
        apply(tmp_path, PortResult(rewrites=[FileRewrite("a.py", "x = 1\n", "x = 2\n"),
                                             FileRewrite("sub/b.py", "y\n", "z\n")]))
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


def test_apply_refuses_a_folder_that_leads_outside(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "b.py").write_text("y\n")
    (tree / "sub").symlink_to(outside)
    with pytest.raises(ApplyError, match="not a regular file in the tree"):
        apply(tree, PortResult(rewrites=[FileRewrite("sub/b.py", "y\n", "z\n")]), force=True)
    assert (outside / "b.py").read_text() == "y\n"


def test_apply_on_a_dirty_tree_lists_five_files_and_force_skips_the_check(tmp_path):
    for i in range(7):
        (tmp_path / f"f{i}.py").write_text("1\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "c")
    for i in range(7):
        (tmp_path / f"f{i}.py").write_text("2\n")
    with pytest.raises(ApplyError) as caught:
        apply(tmp_path, _result())
    assert str(caught.value) == ("the git tree has uncommitted changes (f0.py, f1.py, f2.py, f3.py, f4.py ...); "
                                 "commit them or pass --force")
    (tmp_path / "f6.py").write_text("1\n")
    with pytest.raises(ApplyError, match=r"\(f0.py, f1.py, f2.py, f3.py, f4.py \.\.\.\)"):
        apply(tmp_path, _result())  # six: five listed
    (tmp_path / "f5.py").write_text("1\n")
    with pytest.raises(ApplyError) as caught:
        apply(tmp_path, _result())
    assert str(caught.value) == ("the git tree has uncommitted changes (f0.py, f1.py, f2.py, f3.py, f4.py); "
                                 "commit them or pass --force")
    assert apply(tmp_path, _result(), force=True) == ["a.py"]


def test_apply_without_git_writes(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    assert apply(tmp_path, _result()) == ["a.py"]


def test_written_by_port_and_previous_patch(tmp_path):
    (tmp_path / "p_device.py").write_text(MARKED)
    (tmp_path / "own_device.py").write_text("x\n")
    assert _written_by_port(tmp_path / "p_device.py")
    assert not _written_by_port(tmp_path / "own_device.py")
    assert not _written_by_port(tmp_path / "missing_device.py")
    (tmp_path / "old.txt").write_text("diff --git a/x b/x\n")
    (tmp_path / "empty.patch").write_text("")
    (tmp_path / "empty.diff").write_text("")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "notes.patch").write_text("notes\n")
    (tmp_path / "late.txt").write_text(" diff --git a/x b/x\n")
    assert _previous_patch(tmp_path / "old.txt")
    assert _previous_patch(tmp_path / "empty.patch") and _previous_patch(tmp_path / "empty.diff")
    assert not _previous_patch(tmp_path / "empty.txt")
    assert not _previous_patch(tmp_path / "notes.patch")
    assert not _previous_patch(tmp_path / "late.txt")
    assert not _previous_patch(tmp_path / "missing.patch")


def test_write_patch_writes_both_and_returns_the_script(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    patch = "diff --git a/x b/x\n"
    script = write_patch(tree, tree / "out" / "port.patch", patch, f"# {PORT_MARK}\n", "verify_npu.py")
    assert script == tree / "out" / "verify_npu.py"
    assert (tree / "out" / "port.patch").read_text() == patch and script.read_text() == f"# {PORT_MARK}\n"
    assert write_patch(tree, tree / "out" / "port.patch", "P2", "S2", "verify_npu.py") == script  # an earlier patch
    assert (tree / "out" / "port.patch").read_text() == "P2" and script.read_text() == "S2"


def test_write_patch_refusals(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "train.py").write_text("x\n")
    with pytest.raises(ApplyError, match="is a file of the analyzed project; not overwriting it"):
        write_patch(tree, tree / "train.py", "P", "S", "verify_npu.py")
    assert (tree / "train.py").read_text() == "x\n"
    with pytest.raises(ApplyError, match="that is the name of the verify script written beside the patch"):
        write_patch(tree, tree / "verify_npu.py", "P", "S", "verify_npu.py")
    (tree / "verify_npu.py").write_text("the project's\n")
    with pytest.raises(ApplyError, match=r"verify_npu.py exists and was not written by port; not overwriting it "
                       r"\(write the patch into another folder\)$"):
        write_patch(tree, tree / "new.patch", "P", "S", "verify_npu.py")
    assert not (tree / "new.patch").exists()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "train.py").write_text("theirs\n")
    write_patch(tree, outside / "train.py", "P", "S", "verify_npu.py")  # outside the tree: the user's to name
    assert (outside / "train.py").read_text() == "P"
    (tree / "verify_npu.py").write_text(f"# {PORT_MARK}\n")
    write_patch(tree, tree / "new.patch", "P", "S", "verify_npu.py")
    assert (tree / "verify_npu.py").read_text() == "S"


def test_a_git_folder_that_cannot_be_read_safely_is_a_one_line_refusal_unless_forced(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / ".git").write_text("gitdir: /nowhere\n")
    with pytest.raises(ApplyError) as caught:
        apply(tmp_path, _result())
    assert str(caught.value) == ("cannot tell whether the git tree has uncommitted changes (the .git file points "
                                 "outside the analyzed tree (not read)); pass --force to write anyway")
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    assert apply(tmp_path, _result(), force=True) == ["a.py"]


def test_a_write_that_fails_removes_the_temporary_files_already_written(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y\n")
    real = os.fdopen
    calls = []

    def failing(handle, *args, **kwargs):
        calls.append(handle)
        if len(calls) == 2:
            os.close(handle)
            raise OSError("disk full")
        return real(handle, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", failing)
    result = PortResult(rewrites=[FileRewrite("a.py", "x = 1\n", "x = 2\n"), FileRewrite("b.py", "y\n", "z\n")])
    with pytest.raises(ApplyError, match=r"^disk full$"):
        apply(tmp_path, result, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "b.py"]
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
