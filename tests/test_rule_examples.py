"""Every rule carries code that must be flagged and code that must not; this runs them all (Fixit style)."""

import pytest
from ascend_feasibility.knowledge import load_knowledge

from tests.helpers import analyze_snippet_project, scan

KB = load_knowledge()
CASES = [
    pytest.param(rule.code, examples.language, snippet, kind, id=f"{rule.code}-{kind}-{examples.language}-{i}")
    for rule in KB.rules.values()
    for examples in rule.examples
    for kind, snippets in (("invalid", examples.invalid), ("valid", examples.valid))
    for i, snippet in enumerate(snippets)
]


@pytest.mark.parametrize("code, language, snippet, kind", CASES)
def test_rule_example(code, language, snippet, kind):
    if KB.rules[code].domain == "dependencies":
        result = analyze_snippet_project(snippet, language)
    else:
        result = scan(snippet, language)
    found = [f.rule for f in result.findings]
    if kind == "invalid":
        assert code in found, f"{code} should flag:\n{snippet}\nfound {found}"
    else:
        assert code not in found, f"{code} should not flag:\n{snippet}"


def test_every_rule_has_both_kinds_of_example():
    for rule in KB.rules.values():
        assert any(e.invalid for e in rule.examples) and any(e.valid for e in rule.examples), rule.code


def test_every_rule_is_bilingual_and_cited():
    for rule in KB.rules.values():
        for text in (rule.message, rule.replacement):
            assert text.en.strip() and text.zh.strip(), rule.code
            assert any("\u4e00" <= ch <= "\u9fff" for ch in text.zh), f"{rule.code}: zh text has no Chinese"
        assert rule.references, rule.code


def test_every_detector_has_an_implementation():
    from pathlib import Path

    sources = "\n".join(p.read_text() for p in (Path(__file__).parent.parent / "domains").rglob("*.py"))
    for rule in KB.rules.values():
        if rule.match.detector:
            assert f'"{rule.match.detector}"' in sources, f"{rule.code}: no scanner uses detector {rule.match.detector}"


def test_detector_names_are_unique():
    detectors = [r.match.detector for r in KB.rules.values() if r.match.detector]
    assert len(detectors) == len(set(detectors))


def test_every_torch_cuda_rule_is_used_by_the_api_table():
    table_rules = {entry.rule for entry in KB.torch_cuda_api.values()}
    for rule in KB.rules.values():
        if rule.match.torch_cuda_api:
            assert rule.code in table_rules or rule.code == "DEV135", f"{rule.code} matches no torch.cuda name"
