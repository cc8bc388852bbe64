"""The jinja2 environments of the reports: StrictUndefined everywhere, autoescape for HTML, and for Markdown a
finalizer that escapes every printed value that is not already markup."""

from __future__ import annotations

import functools

import jinja2
from ascend_feasibility.analyzer.reporting.localize import phrase, term, titled
from ascend_feasibility.analyzer.reporting.markup import html_prose, markdown_code, markdown_prose, markdown_text, number
from ascend_feasibility.analyzer.reporting.ui_strings import ui_text
from ascend_feasibility.report_templates import TEMPLATES_DIR
from markupsafe import Markup, escape


def _markdown_finalize(value: object) -> object:
    return value if isinstance(value, Markup) else markdown_text(value)


def _environment(**options) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        **options,
    )


@functools.cache
def markdown_environment() -> jinja2.Environment:
    env = _environment(autoescape=False, finalize=_markdown_finalize, keep_trailing_newline=True)
    env.filters.update(code=markdown_code, prose=markdown_prose, num=number)
    return env


@functools.cache
def html_environment() -> jinja2.Environment:
    env = _environment(autoescape=True)
    env.filters.update(prose=html_prose, num=number)
    return env


def markdown_helpers(language: str) -> dict:
    """`t(key, **values)` and `tx(text)` for a one-language Markdown document."""

    def t(key: str, **values) -> str | Markup:
        if not any(isinstance(v, Markup) for v in values.values()):
            return ui_text(language, key, **values)
        # a value already escaped (a knowledge-base text through tx) is spliced in as it is: escaping the filled string
        # again printed `DS\\\_ACCELERATOR`
        marks = {name: f"\x00{index}\x00" for index, name in enumerate(values)}
        text = markdown_text(ui_text(language, key, **marks))
        for name, value in values.items():
            text = text.replace(marks[name], value if isinstance(value, Markup) else markdown_text(value))
        return Markup(text)

    def tx(text) -> Markup:
        return markdown_prose(getattr(text, language))

    def ttitle(text) -> Markup:
        return markdown_prose(titled(language, text))

    def tterm(value: str) -> str:
        return term(language, value)

    def tphrase(value: str) -> str:
        return phrase(language, value)

    return {"t": t, "tx": tx, "title": ttitle, "term": tterm, "phrase": tphrase, "lang": language}


def html_helpers(languages: tuple[str, ...]) -> dict:
    """`t(key, **values)` and `tx(text)` giving one <span lang=..> per language, or plain escaped text for one."""

    def spans(texts: dict[str, Markup]) -> Markup:
        if len(texts) == 1:
            return next(iter(texts.values()))
        return Markup("").join(Markup('<span lang="{}">{}</span>').format(lang, text) for lang, text in texts.items())

    def t(key: str, **values) -> Markup:
        return spans({lang: escape(ui_text(lang, key, **values)) for lang in languages})

    def tx(text) -> Markup:
        return spans({lang: html_prose(getattr(text, lang)) for lang in languages})

    def ttitle(text) -> Markup:
        return spans({lang: html_prose(titled(lang, text)) for lang in languages})

    def t_in(language: str, key: str, **values) -> str:
        return ui_text(language, key, **values)

    def tterm(value: str) -> Markup:
        return spans({lang: escape(term(lang, value)) for lang in languages})

    def tphrase(value: str) -> Markup:
        return spans({lang: escape(phrase(lang, value)) for lang in languages})

    def phrase_in(language: str, value: str) -> str:
        return phrase(language, value)

    return {"t": t, "tx": tx, "title": ttitle, "t_in": t_in, "term": tterm, "phrase": tphrase, "phrase_in": phrase_in}
