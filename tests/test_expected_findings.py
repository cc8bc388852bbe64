"""Each sample project's findings against expectations written by hand (tests/data/expected/<sample>.toml).

The expectations were written by reading each sample's code and the knowledge base (rule records, release
profiles, operator tables, context conventions), never from the analyzer's output, so a changed answer and a wrong
answer both fail here; the goldens (tests/golden/) only snapshot the output formats.

Scope: for every finding in the report, counted and uncounted, suppressed ones included, these fields are pinned:
path, notebook cell, line, rule, severity, migration kind, reach, role, whether it is suppressed, and one word its
replacement (text or code) must contain. Also pinned: the target release the report assumes. Not pinned: columns,
symbols, messages, confidence, effort hours, phases, reach reasons, project-level `sites`, and everything outside
the findings list (dependency matrix, custom-ops table, effort, verdict, bottlenecks).

An entry marked `known_wrong = "why"` states the right answer where the analyzer gives another (each is argued in
docs/validation-expect.md). It is left out of the main comparison and checked apart: it is reported as an expected
failure while the analyzer still disagrees, and fails once the analyzer agrees, so that the fix is noticed and the
mark removed. An entry with `absent = true` states that no finding of that rule belongs on that line.
"""

from __future__ import annotations

import functools
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.golden_format import sample_names, sample_report

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EXPECTED = Path(__file__).resolve().parent / "data" / "expected"
COMPARED = ("severity", "migration", "reach", "role", "suppressed")
KEYS = {"path", "cell", "line", "rule", "replacement", "known_wrong", "absent", *COMPARED}
REQUIRED = {"path", "line", "rule"}
DEFAULTS = {"role": "product", "suppressed": False, "cell": None}

Key = tuple  # (path, cell, line, rule)


@dataclass(frozen=True)
class Expectations:
    target: str
    entries: list[dict]


def expectations(name: str) -> Expectations:
    with (EXPECTED / f"{name}.toml").open("rb") as handle:
        data = tomllib.load(handle)
    entries = [{**DEFAULTS, **entry} for entry in data.get("finding", [])]
    return Expectations(target=data["target"], entries=entries)


@functools.lru_cache(maxsize=None)
def report(name: str):
    return sample_report(name)


def key_of(entry) -> Key:
    if isinstance(entry, dict):
        return (entry["path"], entry["cell"], entry["line"], entry["rule"])
    return (entry.path, entry.cell, entry.line, entry.rule)


def where(key: Key) -> str:
    path, cell, line, rule = key
    return f"{path}{f' cell {cell}' if cell is not None else ''}:{line} {rule}"


def describe(finding) -> str:
    role = f" role={finding.role}" if finding.role != "product" else ""
    suppressed = " suppressed" if finding.suppressed else ""
    return f"{finding.severity}/{finding.migration}/{finding.reach}{role}{suppressed}"


def mismatches(entry: dict, finding) -> list[str]:
    """What a finding at the expected place gets wrong."""
    problems = [
        f"{field} expected {entry[field]!r}, got {getattr(finding, field)!r}"
        for field in COMPARED
        if field in entry and getattr(finding, field) != entry[field]
    ]
    word = entry.get("replacement")
    if word is not None:
        text = f"{finding.replacement.en} {finding.replacement.code or ''}"
        if word not in text:
            problems.append(f"replacement lacks {word!r}: {text.strip()[:160]!r}")
    return problems


def differences(entries: list[dict], findings: list) -> list[str]:
    """Every difference between the expected entries and the findings: missing, unexpected, and field mismatches,
    each named by path:line rule. Entries and findings at one place are paired in order (findings by column)."""
    expected: dict[Key, list[dict]] = defaultdict(list)
    actual: dict[Key, list] = defaultdict(list)
    for entry in entries:
        expected[key_of(entry)].append(entry)
    for finding in sorted(findings, key=lambda f: f.column):
        actual[key_of(finding)].append(finding)
    found = []
    for key in sorted(set(expected) | set(actual), key=lambda k: (k[0], k[1] or 0, k[2], k[3])):
        wanted = [entry for entry in expected.get(key, []) if not entry.get("absent")]
        got = actual.get(key, [])
        for entry, finding in zip(wanted, got):
            problems = mismatches(entry, finding)
            if problems:
                found.append(f"mismatch {where(key)}: " + "; ".join(problems))
        for entry in wanted[len(got):]:
            found.append(
                f"missing {where(key)}: expected {entry.get('severity')}/{entry.get('migration')}/{entry.get('reach')}"
            )
        for finding in got[len(wanted):]:
            found.append(f"unexpected {where(key)}: {describe(finding)} ({finding.symbol})")
    return found


def split(name: str) -> tuple[list[dict], dict[Key, list[dict]]]:
    """The entries the main comparison judges, and the places with a known-wrong entry (judged apart)."""
    entries = expectations(name).entries
    wrong_keys = {key_of(entry) for entry in entries if entry.get("known_wrong")}
    known: dict[Key, list[dict]] = defaultdict(list)
    for entry in entries:
        if key_of(entry) in wrong_keys:
            known[key_of(entry)].append(entry)
    return [entry for entry in entries if key_of(entry) not in wrong_keys], known


def known_wrong_cases() -> list:
    cases = []
    for name in sample_names():
        if not (EXPECTED / f"{name}.toml").exists():
            continue
        for key in split(name)[1]:
            cases.append(pytest.param(name, key, id=f"{name}:{where(key)}"))
    return cases


@pytest.mark.parametrize("name", sample_names())
def test_expectation_file_is_well_formed(name):
    path = EXPECTED / f"{name}.toml"
    assert path.exists(), f"no hand-written expectations for sample {name}: write {path.relative_to(EXPECTED.parent.parent.parent)}"
    entries = expectations(name).entries
    problems = []
    for entry in entries:
        unknown = set(entry) - KEYS
        lacking = REQUIRED - set(entry)
        if unknown or lacking:
            problems.append(f"{entry}: unknown keys {sorted(unknown)}, missing keys {sorted(lacking)}")
        elif not entry.get("absent") and not {"severity", "migration", "reach", "replacement"} <= set(entry):
            problems.append(f"{where(key_of(entry))}: states no severity, migration, reach or replacement word")
    places = [(e["path"], e["cell"] or 0, e["line"], e["rule"]) for e in entries if REQUIRED <= set(e)]
    if places != sorted(places):
        problems.append("entries are not sorted by path, cell, line and rule")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", sample_names())
def test_sample_findings_match_hand_written_expectations(name):
    expected = expectations(name)
    result = report(name)
    assert result.target.release == expected.target, (
        f"{name}: the report assumes torch_npu {result.target.release}, the expectations were written for {expected.target}"
    )
    judged, known = split(name)
    findings = [f for f in result.findings if key_of(f) not in known]
    found = differences(judged, findings)
    assert not found, f"{name}: {len(found)} difference(s) from tests/data/expected/{name}.toml:\n" + "\n".join(found)


@pytest.mark.parametrize(("name", "key"), known_wrong_cases())
def test_known_wrong_expectation_still_differs(name, key):
    entries = split(name)[1][key]
    findings = [f for f in report(name).findings if key_of(f) == key]
    found = differences(entries, findings)
    if found:
        why = "; ".join(entry["known_wrong"] for entry in entries if entry.get("known_wrong"))
        pytest.xfail(f"{why} — analyzer: " + "; ".join(found))
    pytest.fail(
        f"{name}: {where(key)} now matches its expectation: the analyzer was fixed; remove known_wrong from the entry "
        "and its paragraph from docs/validation-expect.md"
    )


def test_differences_name_missing_unexpected_and_mismatched_findings():
    """The comparison itself: each kind of difference is reported with its place and rule."""
    from types import SimpleNamespace

    def finding(line, rule, severity="info", replacement="Use torch.npu.synchronize"):
        return SimpleNamespace(
            path="a.py", cell=None, line=line, rule=rule, column=1, severity=severity, migration="auto", reach="runs",
            role="product", suppressed=False, symbol="x", replacement=SimpleNamespace(en=replacement, code=None),
        )

    entries = [
        {**DEFAULTS, "path": "a.py", "line": 1, "rule": "DEV101", "severity": "info", "migration": "auto",
         "reach": "runs", "replacement": "synchronize"},
        {**DEFAULTS, "path": "a.py", "line": 2, "rule": "DEV101", "severity": "info", "migration": "auto",
         "reach": "runs", "replacement": "synchronize"},
        {**DEFAULTS, "path": "a.py", "line": 3, "rule": "DEV105", "severity": "info", "migration": "auto",
         "reach": "runs", "replacement": "memory"},
        {**DEFAULTS, "path": "a.py", "line": 5, "rule": "DEV405", "absent": True},
    ]
    findings = [finding(1, "DEV101"), finding(3, "DEV105", severity="low"), finding(4, "DEV001"), finding(5, "DEV405")]
    found = differences(entries, findings)
    assert found == [
        "missing a.py:2 DEV101: expected info/auto/runs",
        "mismatch a.py:3 DEV105: severity expected 'info', got 'low'; replacement lacks 'memory': "
        "'Use torch.npu.synchronize'",
        "unexpected a.py:4 DEV001: info/auto/runs (x)",
        "unexpected a.py:5 DEV405: info/auto/runs (x)",
    ]
    assert differences(entries[:1], findings[:1]) == []
