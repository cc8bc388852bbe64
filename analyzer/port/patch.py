"""The port result as a unified diff that `git apply` accepts, or written in place (`--apply`)."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

from ascend_feasibility.analyzer.port.command_names import ApplyError
from ascend_feasibility.analyzer.port.core import PortResult
from ascend_feasibility.analyzer.reading.generated import written_by_port
from ascend_feasibility.analyzer.reading.gitinfo import GitUnavailable, uncommitted_changes
from ascend_feasibility.analyzer.reading.source import MAX_FILE_BYTES, Unreadable, read_bytes
from ascend_feasibility.analyzer.reporting.outputs import safe_folder, write_safely

NO_NEWLINE = "\\ No newline at end of file\n"


def _lines(content: str) -> list[str]:
    """Lines as git sees them: ended by \\n only (a \\r before it stays in the line). str.splitlines() would also
    break at form feeds, vertical tabs, U+0085, U+2028 and others, and the patch would not apply."""
    lines = content.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _hunks(old: str, new: str, old_name: str, new_name: str) -> str:
    out = []
    for number, line in enumerate(difflib.unified_diff(_lines(old), _lines(new), old_name, new_name, n=3)):
        if number < 2:  # the ---/+++ header (a removed "--x" or added "++x" line starts the same way)
            out.append(line.rstrip("\n") + "\n")
        elif not line.endswith("\n"):
            out.append(line + "\n" + NO_NEWLINE)
        else:
            out.append(line)
    return "".join(out)


def unified_diff(result: PortResult) -> str:
    """Every changed and new file, in path order; the same result always gives the same bytes."""
    parts: list[tuple[str, str]] = []
    for rewrite in result.rewrites:
        body = _hunks(rewrite.old, rewrite.new or rewrite.old, f"a/{rewrite.path}", f"b/{rewrite.path}")
        if body:
            parts.append((rewrite.path, f"diff --git a/{rewrite.path} b/{rewrite.path}\n{body}"))
    for path, content in result.new_files.items():
        body = _hunks("", content, "/dev/null", f"b/{path}")
        parts.append((path, f"diff --git a/{path} b/{path}\nnew file mode 100644\n{body}"))
    return "".join(text for _, text in sorted(parts))


def dirty(root: Path) -> list[str] | None:
    """Tracked files with changes (staged or not) when root holds a `.git`; None when it does not. Read through the
    same safe-repository check as analyze (gitinfo.open_repository): index entries and blob ids compared with the
    files' bytes, no filter, hook, attribute driver, fsmonitor or other program; a `.git` that leads outside the
    tree, holds a FIFO or is damaged is refused with a one-line reason."""
    try:
        return uncommitted_changes(root)
    except GitUnavailable as exc:
        raise ApplyError(f"cannot tell whether the git tree has uncommitted changes ({exc}); "
                         "pass --force to write anyway") from None


def apply(root: Path, result: PortResult, force: bool = False, extra: dict[str, str] | None = None) -> list[str]:
    """Write the rewritten files in place. Refuses a dirty git tree without force. Every file is written to a
    temporary file first; only when all of them are written are they renamed into place."""
    changed = None if force else dirty(root)  # --force reads no git data at all
    if changed:
        listed = ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")
        raise ApplyError(f"the git tree has uncommitted changes ({listed}); commit them or pass --force")
    contents = {r.path: r.new for r in result.rewrites if r.new is not None}
    for path, content in {**result.new_files, **(extra or {})}.items():
        if os.path.lexists(root / path) and not _written_by_port(root / path):
            raise ApplyError(f"{path} already exists; not overwriting it")
        contents[path] = content
    staged: list[tuple[str, Path]] = []
    tree = Path(os.path.realpath(root))
    try:
        for path, content in sorted(contents.items()):
            target = root / path
            if target.is_symlink() or not target.parent.is_dir() or \
                    not Path(os.path.realpath(target.parent)).is_relative_to(tree):
                raise ApplyError(f"{path}: not a regular file in the tree")
            handle, temporary = tempfile.mkstemp(prefix=".ascend-port-", dir=target.parent)
            staged.append((temporary, target))  # before writing: a failed write removes it too
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
                stream.write(content)
            if target.exists():
                os.chmod(temporary, target.stat().st_mode & 0o7777)
            else:
                os.chmod(temporary, 0o644)
    except (OSError, ApplyError) as exc:
        for temporary, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        raise ApplyError(str(exc)) from None
    for temporary, target in staged:
        os.replace(temporary, target)
    return sorted(contents)


def _written_by_port(path: Path) -> bool:
    """A regular file (not a link) an earlier run of port wrote: its own verify_npu.py or device module."""
    try:
        return written_by_port(path.name, read_bytes(path, limit=MAX_FILE_BYTES))
    except Unreadable:
        return False


def _previous_patch(path: Path) -> bool:
    """A regular file that holds a patch (an earlier `port -o` to the same name): the only kind of existing file
    in the analyzed tree that -o replaces."""
    try:
        data = read_bytes(path, limit=MAX_FILE_BYTES)
    except Unreadable:
        return False
    return data.startswith(b"diff --git a/") or (not data and path.suffix in (".patch", ".diff"))


def write_patch(tree: Path, output: Path, patch: str, script: str, script_name: str) -> Path:
    """`port -o`: the patch at `output` and the verify script beside it, with the rules of analyze's outputs (a
    folder named inside the tree that leads outside through a link is refused; files are written to a temporary file
    and renamed into place). Nothing the project has is overwritten: inside the tree, an existing file at `output`
    must be an earlier patch, and an existing verify script anywhere must be one port wrote. Refused before
    anything is written; returns the verify script's path."""
    tree = Path(os.path.realpath(tree))
    named = Path(os.path.abspath(output))
    safe_folder(named.parent, tree)
    script_path = named.parent / script_name
    if named == script_path:
        raise ApplyError(f"-o {output}: that is the name of the verify script written beside the patch")
    located = Path(os.path.realpath(named.parent)) / named.name  # the folder as it is reached, the name as given
    if located.is_relative_to(tree) and os.path.lexists(located) and not _previous_patch(located):
        raise ApplyError(f"{output} is a file of the analyzed project; not overwriting it (name a new file)")
    if os.path.lexists(script_path) and not _written_by_port(script_path):
        raise ApplyError(f"{script_path} exists and was not written by port; not overwriting it "
                         "(write the patch into another folder)")
    write_safely(named, tree, lambda stream: stream.write(patch))
    write_safely(script_path, tree, lambda stream: stream.write(script))
    return script_path
