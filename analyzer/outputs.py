"""Every output format, by name: what file it is written to and the function that writes it."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from rich.console import Console

from analyzer.models import Report
from analyzer.render_csv import write_findings_csv, write_phase_matrix_csv
from analyzer.render_html import render_html
from analyzer.render_json import write_json
from analyzer.render_markdown import render_markdown
from analyzer.render_sarif import write_sarif
from analyzer.render_text import render_text

FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html", "sarif", "csv")
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
}


def write_format(report: Report, fmt: str, target: Path | None, languages: tuple[str, ...], stdout: TextIO) -> list[Path]:
    """One format to a file (CSV's phase matrix goes beside it as <stem>.phase-matrix.csv) or to standard output
    (CSV: the findings only). Returns the files written."""
    main, *extra = OUTPUTS[fmt]
    if target is None:
        if fmt == "text":
            render_text(report, Console(file=stdout, highlight=False), _text_language(languages))  # colours on a terminal
        else:
            main.write(report, stdout, languages)
        return []
    written = [_write_file(report, main, target, languages)]
    for output in extra:
        written.append(_write_file(report, output, target.with_name(f"{target.stem}.{output.filename}"), languages))
    return written


def write_all(report: Report, directory: Path, languages: tuple[str, ...]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    return [_write_file(report, output, directory / output.filename, languages)
            for fmt in FORMATS for output in OUTPUTS[fmt]]


def _write_file(report: Report, output: Output, path: Path, languages: tuple[str, ...]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        output.write(report, handle, languages)
    return path


def render_to_string(report: Report, fmt: str, languages: tuple[str, ...] = ("en", "zh")) -> str:
    """The main output of a format as a string (for tests and embedding)."""
    buffer = io.StringIO()
    OUTPUTS[fmt][0].write(report, buffer, languages)
    return buffer.getvalue()
