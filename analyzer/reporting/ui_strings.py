"""The reports' UI strings: one TOML file per language under report_templates/strings, flattened to dotted keys."""

from __future__ import annotations

import functools
import string
import sys

from ascend_feasibility.report_templates import STRINGS_DIR

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

LANGUAGES: tuple[str, ...] = ("en", "zh")


@functools.cache
def load_strings(language: str) -> dict[str, str]:
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; expected one of {', '.join(LANGUAGES)}")
    with (STRINGS_DIR / f"{language}.toml").open("rb") as handle:
        return dict(_flatten(tomllib.load(handle)))


def _flatten(table: dict, prefix: str = ""):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def ui_text(language: str, key: str, **values) -> str:
    """The UI string `key` in `language`, with its placeholders filled. A missing key or value raises."""
    return load_strings(language)[key].format(**values)
