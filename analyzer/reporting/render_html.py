"""The HTML report: one self-contained file (inline CSS, script and SVG; no network fetch), both languages
with a switch, or one language."""

from __future__ import annotations

import functools
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.core.models import MIGRATIONS, REACHES, ROLES, SEVERITIES, Finding, Report, severity_rank
from ascend_feasibility.analyzer.reporting.render_markdown import LEVELS
from ascend_feasibility.analyzer.reporting.report_view import build_view, location
from ascend_feasibility.analyzer.reporting.templating import html_environment, html_helpers
from ascend_feasibility.analyzer.reporting.ui_strings import LANGUAGES
from ascend_feasibility.report_templates import TEMPLATES_DIR
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

ROW_LIMIT = 2000
HIGHLIGHT_CLASS = "hl"
_SNIPPET_FORMATTER = HtmlFormatter(nowrap=True)
_LEXER_BY_NAME = {"Dockerfile": "docker", "CMakeLists.txt": "cmake"}
_LEXER_BY_SUFFIX = {".ipynb": "python", ".cuh": "cuda", ".cu": "cuda", ".txt": "text", ".in": "text"}


def render_html(report: Report, languages: tuple[str, ...] = LANGUAGES) -> str:
    view = build_view(report, languages, ROW_LIMIT)
    template = html_environment().get_template("report.html.j2")
    return template.render(
        view=view,
        severities=SEVERITIES,
        roles=sorted({f.role for f in view.active}, key=ROLES.index),
        reaches=sorted({f.reach for f in view.active}, key=REACHES.index),
        levels=LEVELS,
        location=location,
        highlight=highlight_snippet,
        severity_rank=severity_rank,
        migration_rank=MIGRATIONS.index,
        confidence_rank=LEVELS.index,
        risk_weight=_risk_weight,
        css=_asset("report.css"),
        script=_asset("report.js"),
        highlight_css=Markup(HtmlFormatter(style="default").get_style_defs(f".{HIGHLIGHT_CLASS}")),
        **html_helpers(languages),
    )


def highlight_snippet(finding: Finding) -> Markup:
    """The finding's source line, highlighted by Pygments (which escapes it)."""
    return Markup(highlight(finding.snippet, _lexer(finding.path), _SNIPPET_FORMATTER).rstrip("\n"))


@functools.lru_cache(maxsize=64)
def _lexer(path: str):
    pure = PurePosixPath(path)
    name = _LEXER_BY_NAME.get(pure.name) or _LEXER_BY_SUFFIX.get(pure.suffix)
    try:
        return get_lexer_by_name(name) if name else get_lexer_for_filename(pure.name)
    except ClassNotFound:
        return get_lexer_by_name("text")


def _risk_weight(likelihood: str, impact: str) -> int:
    return (2 - LEVELS.index(likelihood)) + (2 - LEVELS.index(impact))


@functools.cache
def _asset(name: str) -> Markup:
    return Markup((TEMPLATES_DIR / name).read_text(encoding="utf-8"))
