"""Escaping of everything that reaches a Markdown or HTML report, and the small markup helpers the templates use.

Knowledge-base texts mark code with backticks; project values (symbols, paths) are spliced into them, so the texts
are split on code spans and every part is escaped on its own.
"""

from __future__ import annotations

import html
import re

from markupsafe import Markup, escape

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]{}|~#!])")


def markdown_text(value: object) -> Markup:
    """Plain text for a Markdown document: HTML-escaped, Markdown punctuation backslashed, one line."""
    text = re.sub(r"\s+", " ", str(value))
    return Markup(_MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False)))


def markdown_code(value: object) -> Markup:
    """An inline code span that survives any content, table cells included (pipes are escaped for GFM tables)."""
    text = " ".join(str(value).split()).replace("|", "\\|")
    if not text:
        return Markup("")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return Markup(f"{fence}{pad}{text}{pad}{fence}")


def markdown_prose(value: object) -> Markup:
    """A knowledge-base text in Markdown: its `code` spans kept as code, the rest escaped."""
    return Markup("").join(
        markdown_code(part) if index % 2 else markdown_text(part)
        for index, part in enumerate(_CODE_SPAN.split(str(value)))
    )


def html_prose(value: object) -> Markup:
    """A knowledge-base text in HTML: its `code` spans become <code>, everything escaped."""
    return Markup("").join(
        Markup("<code>{}</code>").format(part) if index % 2 else escape(part)
        for index, part in enumerate(_CODE_SPAN.split(str(value)))
    )


def number(value: float) -> str:
    """Days and hours as people write them: 2, 2.5, 0.25."""
    return f"{value:.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:.0f}"
