"""Every rule carries code that must be flagged and code that must not; this runs them all (Fixit style).

A pinned flagged example states the line of its finding, the severity, migration kind and reach, and a word the
replacement says (and, for a rule whose code carries the site's value, the code it emits), all written by reading the
rule and the snippet: the finding must have exactly those. A near miss is
a not-flagged example of the rule's own API (see api_words): behind an NPU check, with an npu arm, in a test, in another
backend's file or spelled for NPU already."""

import builtins
import keyword
import re

import pytest
from ascend_feasibility.knowledge import load_knowledge

from tests.helpers import analyze_snippet_project, scan

KB = load_knowledge()
FLAGGED = [
    pytest.param(rule.code, group.language, case, id=f"{rule.code}-invalid-{group.language}-{i}")
    for rule in KB.rules.values()
    for group in rule.examples
    for i, case in enumerate(group.invalid)
]
NOT_FLAGGED = [
    pytest.param(rule.code, group.language, case, id=f"{rule.code}-valid-{group.language}-{i}")
    for rule in KB.rules.values()
    for group in rule.examples
    for i, case in enumerate(group.valid)
]
# Examples whose pinned answer the tool does not give today, each with its reason in the TOML. This list may only
# shrink: a new known_wrong is a bug to fix, not to record.
KNOWN_WRONG: set[str] = set()
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words of a qualified name that say nothing about which API it is.
GENERIC = {"torch", "cuda", "nn", "functional", "utils", "_C", "ops"}
BUILTINS = set(dir(builtins))


# Rules a project pass emits (across files) besides the dependency matrix: their examples run as one-file projects.
PROJECT_PASS_DETECTORS = {"cuda-extension-import", "cuda-extension-pytorch-arm", "cuda-extension-gate-true-under-transfer",
                          "cuda-extension-behind-build-switch", "device-subclasses-without-npu",
                          "cuda-extension-op-pytorch-twin", "cuda-extension-import-gate-true-under-transfer",
                          "submodule-extension-import"}


def _rule_findings(code: str, language: str, snippet: str, path: str | None, files: dict[str, str] | None = None):
    if KB.rules[code].domain == "dependencies" or KB.rules[code].match.detector in PROJECT_PASS_DETECTORS:
        result = analyze_snippet_project(snippet, language, path, files)
    else:
        result = scan(snippet, language, path=path)
    return [f for f in result.findings if f.rule == code], sorted({f.rule for f in result.findings})


@pytest.mark.parametrize("code, language, case", FLAGGED)
def test_flagged_example(code, language, case):
    found, rules = _rule_findings(code, language, case.code, case.path, case.files)
    assert found, f"{code} should flag:\n{case.code}\nfound {rules}"
    if not case.pinned:
        return
    want = (case.line, case.severity, case.migration, case.reach, True, True)
    got = [(f.line, f.severity, f.migration, f.reach, case.says.lower() in f.replacement.en.lower(),
            case.emits is None or (f.replacement.code or "") == case.emits) for f in found]
    if case.known_wrong:
        assert want not in got, f"{code}: the known_wrong example now gives the pinned answer; drop its mark"
    else:
        assert want in got, f"{code} on\n{case.code}\nwant (line, severity, migration, reach, says {case.says!r}, emits {case.emits!r}) {want}, got {got}"


@pytest.mark.parametrize("code, language, case", NOT_FLAGGED)
def test_not_flagged_example(code, language, case):
    found, _ = _rule_findings(code, language, case.code, case.path, case.files)
    if case.reach is None and case.role is None:
        assert not found, f"{code} should not flag:\n{case.code}"
        return
    assert found, f"{code} should report (not count) the near miss:\n{case.code}"
    for finding in found:
        assert not finding.counted, f"{code} counts the near miss on line {finding.line}:\n{case.code}"
        assert case.reach is None or finding.reach == case.reach, (code, finding.line, finding.reach)
        assert case.role is None or finding.role == case.role, (code, finding.line, finding.role)


def test_every_rule_has_both_kinds_of_example():
    for rule in KB.rules.values():
        assert any(e.invalid for e in rule.examples) and any(e.valid for e in rule.examples), rule.code


def test_every_flagged_example_is_pinned():
    """The TOML still reads a plain string (an example being written); the knowledge base ships none."""
    unpinned = [f"{rule.code}: {c.code!r}" for rule in KB.rules.values() for e in rule.examples for c in e.invalid if not c.pinned]
    assert not unpinned


def test_known_wrong_examples_are_the_listed_ones():
    marked = {
        f"{rule.code}:{i}"
        for rule in KB.rules.values()
        for i, case in enumerate(c for e in rule.examples for c in e.invalid)
        if case.known_wrong
    }
    assert marked == KNOWN_WRONG


def api_words(rule) -> set[str]:
    """The words that name the rule's own API: the non-generic parts of its qualified names, its environment
    variables, the parts of the torch.cuda names its table entries give it; for a detector, the identifiers on the
    pinned lines of its flagged examples (there not builtins; GENERIC only where the lines name nothing else, as a
    `torch>=2.1` pin). Never keywords or one-letter names."""
    match = rule.match
    if match.qualified_names:
        names = match.qualified_names
    elif match.env_vars:
        names = match.env_vars
    elif match.torch_cuda_api and any(entry.rule == rule.code for entry in KB.torch_cuda_api.values()):
        names = [name for name, entry in KB.torch_cuda_api.items() if entry.rule == rule.code]
    else:  # a detector, or DEV135 (the torch.cuda names no entry names)
        names = [
            case.code.splitlines()[case.line - 1]
            for group in rule.examples
            for case in group.invalid
            if case.pinned and case.line <= len(case.code.splitlines())
        ]
    detected = not (match.qualified_names or match.env_vars)
    words = {
        word for name in names for word in IDENTIFIER.findall(name)
        if len(word) > 1 and not keyword.iskeyword(word) and not (detected and word in BUILTINS)
    }
    specific = words - GENERIC
    return specific if specific or not detected else words  # a torch pin's line names only torch: that is its API


def is_near_miss(rule, snippet: str) -> bool:
    """A not-flagged snippet is a near miss when it names a word of the rule's own API (api_words); a word ending in
    "_" is a prefix of environment variable names (DST039's NCCL_) and matches the names it begins."""
    words = api_words(rule)
    return any(
        name in words or any(w.endswith("_") and name.startswith(w) for w in words)
        for name in IDENTIFIER.findall(snippet)
    )


def test_every_rule_has_a_near_miss():
    lacking = [
        rule.code for rule in KB.rules.values()
        if not any(is_near_miss(rule, case.code) for group in rule.examples for case in group.valid)
    ]
    assert not lacking


def test_an_unrelated_valid_example_is_no_near_miss():
    """DEV131's old valid example, a torch.where call, names nothing of torch.cuda.jiterator."""
    rule = KB.rules["DEV131"]
    assert not is_near_miss(rule, "import torch\ny = torch.where(x > 0, x, 0.1 * x)")
    assert is_near_miss(rule, "import torch\nif x.device.type == 'cuda':\n    fn = torch.cuda.jiterator._create_jit_fn(code)")


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
