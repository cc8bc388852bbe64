"""The port result as a unified diff that `git apply` accepts, or written in place (`--apply`)."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

from ascend_feasibility.analyzer.port.core import PortResult

NO_NEWLINE = "\\ No newline at end of file\n"


class ApplyError(Exception):
    """--apply refused or failed before anything was written."""


def _lines(content: str) -> list[str]:
    return content.splitlines(keepends=True)


def _hunks(old: str, new: str, old_name: str, new_name: str) -> str:
    out = []
    for line in difflib.unified_diff(_lines(old), _lines(new), old_name, new_name, n=3):
        if line.startswith(("---", "+++")):
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
    """Tracked files with changes (staged or not) when root is a git work tree's top; None when it is not one."""
    if not (root / ".git").exists():
        return None
    from dulwich import porcelain
    from dulwich.errors import NotGitRepository

    try:
        status = porcelain.status(str(root), untracked_files="no")
    except (NotGitRepository, OSError, KeyError, ValueError) as exc:
        raise ApplyError(f"cannot read the git status of {root}: {exc}") from None
    changed = set()
    for group in status.staged.values():
        changed.update(p.decode("utf-8", "replace") if isinstance(p, bytes) else str(p) for p in group)
    changed.update(p.decode("utf-8", "replace") if isinstance(p, bytes) else str(p) for p in status.unstaged)
    return sorted(changed)


def apply(root: Path, result: PortResult, force: bool = False, extra: dict[str, str] | None = None) -> list[str]:
    """Write the rewritten files in place. Refuses a dirty git tree without force. Every file is written to a
    temporary file first; only when all of them are written are they renamed into place."""
    changed = dirty(root)
    if changed and not force:
        listed = ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")
        raise ApplyError(f"the git tree has uncommitted changes ({listed}); commit them or pass --force")
    contents = {r.path: r.new for r in result.rewrites if r.new is not None}
    for path, content in {**result.new_files, **(extra or {})}.items():
        if (root / path).exists() and not _written_by_port(root / path):
            raise ApplyError(f"{path} already exists; not overwriting it")
        contents[path] = content
    staged: list[tuple[str, Path]] = []
    try:
        for path, content in sorted(contents.items()):
            target = root / path
            if target.is_symlink() or not target.parent.is_dir():
                raise ApplyError(f"{path}: not a regular file in the tree")
            handle, temporary = tempfile.mkstemp(prefix=".ascend-port-", dir=target.parent)
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
                stream.write(content)
            if target.exists():
                os.chmod(temporary, target.stat().st_mode & 0o7777)
            else:
                os.chmod(temporary, 0o644)
            staged.append((temporary, target))
    except (OSError, ApplyError) as exc:
        for temporary, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        raise ApplyError(str(exc)) from None
    for temporary, target in staged:
        os.replace(temporary, target)
    return sorted(contents)


def _written_by_port(path: Path) -> bool:
    """A regular file an earlier run of port wrote (its own verify_npu.py or device module)."""
    from ascend_feasibility.analyzer.port.core import MODULE_MARK

    try:
        return path.is_file() and not path.is_symlink() and MODULE_MARK in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def write_text_atomic(path: Path, content: str) -> None:
    """A temporary file beside path, renamed over it: never half-written, a link at path is replaced."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(content)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
