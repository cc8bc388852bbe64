"""Chinese for the plain-text strings the analysis composes in English (entry-point evidence, architecture family
and evidence, effort scaling notes, custom-op classes and features). The report model carries them as text, so
the reports translate them here: fixed terms through the `term.*` UI strings, composed phrases through the
patterns below, which mirror the wording in domains/phases/plan.py (a test checks every phrase the samples
produce is recognised). Anything unrecognised is shown as it is."""

from __future__ import annotations

import re

from ascend_feasibility.analyzer.reporting.ui_strings import load_strings, ui_text

_PHASE_COUNT = re.compile(r"\b(training|inference|evaluation|data|export)\b")
_PATTERNS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), key) for p, key in (
    (r"^name suggests (?P<phases>.+)$", "evidence.name_suggests"),
    (r"^signals in the entry: (?P<signals>.+)$", "evidence.entry_signals"),
    (r"^signals in the modules it imports: (?P<signals>.+)$", "evidence.import_signals"),
    (r"^(?P<count>\d+) class, layer or model names mention: (?P<names>.+)$", "evidence.class_names"),
    (r"^models loaded from libraries: (?P<names>.+)$", "evidence.library_models"),
    (r"^layers: (?P<layers>.+)$", "evidence.layers"),
    (r"^no entry point in product code: a library, not a model$", "evidence.library_no_model"),
    (r"^defines a backward pass \(torch\.autograd\.Function\): the library's training path$", "evidence.library_backward"),
    (r"^runs on (?P<devices>[a-z/]+) only$", "evidence.runs_only_on"),
    (r"^needs (?P<needed>\d+) devices, (?P<count>\d+) (?P<device>\w+) device\(s\) here$", "evidence.needs_devices"),
    (r"^(?P<name>\S+) is not available in this installation$", "evidence.not_available"),
    (r"^CPU fallback$", "evidence.cpu_fallback"),
    (r"^(?P<probe>[a-z0-9-]+): (?P<candidate>.+) (?P<verdict>good|slower|fallback|wrong|error|missing) on "
     r"(?P<device>cpu|cuda|npu) \((?P<dtypes>[^;]+); (?P<sizes>[^)]+)\)$", "evidence.measured"),
))


def term(language: str, value: str) -> str:
    """A fixed term (model family, kernel class, kernel feature) in `language`; unknown terms unchanged."""
    return load_strings(language).get(f"term.{value}", value)


def phrase(language: str, text: str) -> str:
    """A composed English phrase in `language`; unrecognised phrases unchanged."""
    if language == "en":
        return text
    for pattern, key in _PATTERNS:
        match = pattern.match(text)
        if match:
            values = {name: _phases_in(language, value) if name in ("phases", "signals") else value
                      for name, value in match.groupdict().items()}
            if "verdict" in values:
                values["verdict"] = ui_text(language, f"verdict.{values['verdict']}")
            return ui_text(language, key, **values)
    return text


def recognised(text: str) -> bool:
    return any(pattern.match(text) for pattern, _ in _PATTERNS)


def _phases_in(language: str, text: str) -> str:
    translated = _PHASE_COUNT.sub(lambda m: ui_text(language, f"phase.{m.group(1)}"), text)
    return translated.replace(", ", ui_text(language, "report.list_separator"))
