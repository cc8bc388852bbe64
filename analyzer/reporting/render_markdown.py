"""The Markdown report: one document per language, or both languages one after the other."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.models import SEVERITIES, Report
from ascend_feasibility.analyzer.reporting.report_view import ReportView, build_view, location
from ascend_feasibility.analyzer.reporting.templating import markdown_environment, markdown_helpers
from ascend_feasibility.analyzer.reporting.ui_strings import LANGUAGES

ROW_LIMIT = 200
LEVELS = ("high", "medium", "low")
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


def render_markdown(report: Report, languages: tuple[str, ...] = LANGUAGES) -> str:
    view = build_view(report, languages, ROW_LIMIT)
    documents = [_render(view, language) for language in languages]
    if len(documents) == 1:
        return documents[0]
    links = " · ".join(f"[{LANGUAGE_NAMES[lang]}](#report-{lang})" for lang in languages)
    parts = [links + "\n"]
    for language, document in zip(languages, documents):
        parts.append(f'\n<a id="report-{language}"></a>\n\n{document}')
    return "".join(parts)


def _render(view: ReportView, language: str) -> str:
    template = markdown_environment().get_template("report.md.j2")
    return template.render(
        view=view, severities=SEVERITIES, levels=LEVELS, location=location, **markdown_helpers(language)
    )
