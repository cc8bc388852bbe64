"""Every output format, by name: what file it is written to and the function that writes it."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from rich.console import Console

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

from ascend_feasibility.analyzer.core.models import Report
from ascend_feasibility.analyzer.reporting.render_csv import write_findings_csv, write_phase_matrix_csv
from ascend_feasibility.analyzer.reporting.render_github import write_github
from ascend_feasibility.analyzer.reporting.render_html import render_html
from ascend_feasibility.analyzer.reporting.render_json import write_json
from ascend_feasibility.analyzer.reporting.render_markdown import render_markdown
from ascend_feasibility.analyzer.reporting.render_sarif import write_sarif
from ascend_feasibility.analyzer.reporting.render_text import render_text

FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html", "sarif", "csv", "github")
STREAM_ONLY = frozenset({"github"})  # workflow commands: printed for the CI runner, not written by --output-dir
LANGUAGE_CHOICES = {"en": ("en",), "zh": ("zh",), "both": ("en", "zh")}


@dataclass(frozen=True)
class Output:
    filename: str
    write: Callable[[Report, TextIO, tuple[str, ...]], None]


def _text_language(languages: tuple[str, ...]) -> str:
    return languages[0] if len(languages) == 1 else "en"  # the terminal summary is one language


def _text(report: Report, stream: TextIO, languages: tuple[str, ...]) -> None:
    render_text(report, Console(file=stream, no_color=True, width=120, highlight=False), _text_language(languages))


OUTPUTS: dict[str, list[Output]] = {
    "text": [Output("report.txt", _text)],
    "json": [Output("report.json", lambda r, s, langs: write_json(r, s))],
    "markdown": [Output("report.md", lambda r, s, langs: s.write(render_markdown(r, langs)))],
    "html": [Output("report.html", lambda r, s, langs: s.write(render_html(r, langs)))],
    "sarif": [Output("report.sarif", lambda r, s, langs: write_sarif(r, s))],
    "csv": [Output("findings.csv", lambda r, s, langs: write_findings_csv(r, s)),
            Output("phase-matrix.csv", lambda r, s, langs: write_phase_matrix_csv(r, s))],
    "github": [Output("annotations.txt", lambda r, s, langs: write_github(r, s))],
}


def write_format(report: Report, fmt: str, target: Path | None, languages: tuple[str, ...], stdout: TextIO) -> list[Path]:
    """One format to a file (CSV's phase matrix goes beside it as <stem>.phase-matrix.csv) or to standard output
    (CSV: the findings only). Returns the files written."""
    main, *extra = OUTPUTS[fmt]
    if target is None:
        if fmt == "text":
            render_text(report, _StdoutConsole(file=stdout, highlight=False), _text_language(languages))  # colours on a terminal
        else:
            main.write(report, stdout, languages)
        return []
    written = [_write_file(report, main, target, languages)]
    for output in extra:
        written.append(_write_file(report, output, target.with_name(f"{target.stem}.{output.filename}"), languages))
    return written


class _StdoutConsole(Console):
    """rich exits with status 1 on a closed pipe (1 means `--fail-on` met here): let the CLI end quietly with its own
    status instead."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def write_all(report: Report, directory: Path, languages: tuple[str, ...]) -> list[Path]:
    """Every format into `directory`, holding a lock on the folder so that runs writing the same folder at once
    each leave a whole, consistent set (the last one's)."""
    safe_folder(directory, _tree(report))
    with _folder_lock(directory):
        return [_write_file(report, output, directory / output.filename, languages)
                for fmt in FORMATS if fmt not in STREAM_ONLY for output in OUTPUTS[fmt]]


def output_files(directory: Path) -> list[Path]:
    """The files write_all writes into `directory` (for a run to leave them out of what it scans)."""
    return [directory / output.filename for fmt in FORMATS if fmt not in STREAM_ONLY for output in OUTPUTS[fmt]]


class UnsafeOutput(OSError):
    """An output path that would write through a symbolic link; the message says which."""


def safe_folder(directory: Path, tree: Path) -> None:
    """Create `directory` if needed. A folder named inside the analyzed `tree` that resolves outside it (a symbolic
    link shipped in the tree, `reports -> /home/you`) is refused: a report never lands outside through the project's
    own links. Links the user keeps outside the tree are theirs to use."""
    for _ in range(2):  # before creating it, and after (a link put there meanwhile)
        named = Path(os.path.abspath(directory))
        resolved = Path(os.path.realpath(directory))
        if named.is_relative_to(tree) and not resolved.is_relative_to(tree):
            raise UnsafeOutput(
                f"{directory} is inside the analyzed tree but leads outside it through a symbolic link; not written"
            )
        directory.mkdir(parents=True, exist_ok=True)


def write_output(report: Report, output: Output, path: Path, languages: tuple[str, ...] = ("en",)) -> Path:
    """One output written safely to `path` (see _write_file): for files other than the report formats."""
    return _write_file(report, output, path, languages)


def _write_file(report: Report, output: Output, path: Path, languages: tuple[str, ...]) -> Path:
    return write_safely(path, _tree(report), lambda stream: output.write(report, stream, languages))


def write_safely(path: Path, tree: Path, write: Callable[[TextIO], None]) -> Path:
    """Write to a new temporary file beside `path`, then rename it into place: a link at `path` is replaced, never
    followed, and a reader never sees a half-written report. A character device or FIFO the user names (`-o /dev/null`,
    `-o /dev/stdout`) outside the analyzed `tree` is written as it is: renaming over it would replace the device with a
    file. Inside the tree a path is always replaced, so a link the project ships never leads a report to a device."""
    if _is_stream(path) and not Path(os.path.abspath(path)).is_relative_to(tree):
        with open(path, "w", encoding="utf-8", newline="") as stream:
            write(stream)
        return path
    safe_folder(path.parent, tree)
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", newline="", dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            write(handle)
        os.chmod(handle.name, 0o666 & ~_umask())
        os.replace(handle.name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise
    return path


def _is_stream(path: Path) -> bool:
    try:
        mode = os.stat(path).st_mode  # follows a link: /dev/stdout is one
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _tree(report: Report) -> Path:
    return Path(os.path.realpath(report.project.root))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _folder_lock(directory: Path):
    if fcntl is None:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def render_to_string(report: Report, fmt: str, languages: tuple[str, ...] = ("en", "zh")) -> str:
    """The main output of a format as a string (for tests and embedding)."""
    buffer = io.StringIO()
    OUTPUTS[fmt][0].write(report, buffer, languages)
    return buffer.getvalue()
