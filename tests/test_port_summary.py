"""analyzer/port/summary.py on plain data, without an analysis: the per-rule tally of sites rewritten safe / unsafe /
left, the summary lines port prints (shares, the effort left, the reasons grouped), each figure computed by hand from
the docstrings and the shipped rules' fixes (DEV001 and DEV101 safe, DEV006 unsafe, DEV211 and OPS001 display-only)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.core.models import DaysRange
from ascend_feasibility.analyzer.port import summary
from ascend_feasibility.analyzer.port.core import PortResult
from ascend_feasibility.analyzer.port.edits import SiteOutcome
from ascend_feasibility.analyzer.port.summary import (
    MAX_HELD_LISTED,
    RuleTally,
    left_by_reason,
    remaining_effort,
    rewritten_fingerprints,
    summarize,
    summary_lines,
)
from ascend_feasibility.knowledge import load_knowledge


def _f(rule: str, path: str = "a.py", line: int = 1, suppressed: bool = False, fingerprint: str | None = None):
    return SimpleNamespace(rule=rule, path=path, line=line, suppressed=suppressed,
                           fingerprint=fingerprint or f"{rule}:{path}:{line}")


def _done(finding, absorbed: bool = False):
    """A rewritten site (a change, or absorbed into another site's change)."""
    return SiteOutcome(finding, changes=[] if absorbed else ["x"], absorbed=absorbed)


def _left(finding, reason: str):
    return SiteOutcome(finding, reason=reason)


def _result(outcomes=(), paths=("a.py",), **fields) -> PortResult:
    return PortResult(rewrites=[SimpleNamespace(path=p) for p in paths], outcomes=list(outcomes), **fields)


def test_rule_fixes_the_tests_rely_on():
    rules = load_knowledge().rules
    assert [rules[c].fix for c in ("DEV001", "DEV101", "DEV006", "DEV211", "OPS001")] == \
        ["safe", "safe", "unsafe", "display-only", "display-only"]


def test_rewritten_fingerprints_are_rewritten_sites_in_patched_files():
    a1, a2, a3, b1 = _f("DEV001", "a.py", 1), _f("DEV001", "a.py", 2), _f("DEV001", "a.py", 3), _f("DEV001", "b.py", 1)
    result = _result([_done(a1), _done(a2, absorbed=True), _left(a3, "held"), _done(b1)], paths=("a.py",))
    assert rewritten_fingerprints(result) == {a1.fingerprint, a2.fingerprint}  # b.py was not patched
    assert rewritten_fingerprints(_result([SiteOutcome(a1)])) == set()  # no change, no reason: not rewritten


def test_summarize_counts_sites_per_rule_and_splits_rewritten_by_the_rules_fix():
    findings = [_f("DEV101", line=1), _f("DEV101", line=2), _f("DEV101", line=3), _f("DEV006", line=4),
                _f("DEV006", line=5), _f("DEV211", line=6), _f("DEV001", line=7, suppressed=True),
                _f("XYZ999", line=8)]
    result = _result([_done(findings[0]), _done(findings[1]), _done(findings[3]), _done(findings[6]),
                      _done(findings[7])])
    tallies = summarize(SimpleNamespace(findings=findings), result)
    rules = load_knowledge().rules
    assert tallies == [
        RuleTally("DEV006", rules["DEV006"].name, "unsafe", 2, 0, 1),
        RuleTally("DEV101", rules["DEV101"].name, "safe", 3, 2, 0),
        RuleTally("DEV211", rules["DEV211"].name, "display-only", 1, 0, 0),
    ]  # sorted by rule; the suppressed DEV001 and the unknown rule are not counted
    assert [t.left for t in tallies] == [1, 1, 1]


def test_left_is_sites_less_safe_and_unsafe():
    assert RuleTally("R", "n", "safe", 10, 3, 2).left == 5


def test_remaining_effort_recomputes_over_the_findings_not_rewritten(monkeypatch):
    seen = []
    monkeypatch.setattr(summary, "effort_left",
                        lambda report, findings: seen.append(findings) or DaysRange(low_days=1, high_days=2))
    a, b, c = _f("DEV101", line=1), _f("DEV101", line=2), _f("DEV101", line=3)
    report = SimpleNamespace(findings=[a, b, c])
    assert remaining_effort(report, _result([_done(a), _left(b, "held")])) == DaysRange(low_days=1, high_days=2)
    assert seen == [[b, c]]


def _tallies():
    return [RuleTally("DEV006", "unsafe-rule", "unsafe", 2, 0, 1), RuleTally("DEV101", "sync", "safe", 3, 2, 0),
            RuleTally("DEV211", "smi", "display-only", 1, 0, 0)]


def test_the_first_line_gives_the_shares_and_the_files():
    f = [_f("DEV101", line=i) for i in range(4)]
    outcomes = [_done(f[0]), _left(f[1], "display-only"), _left(f[2], "display-only: a comment with the plan"),
                _left(f[3], "overlaps another rewrite on the same code")]
    result = _result(outcomes, paths=("a.py", "b.py"), device_module="pkg/_device.py")
    lines = summary_lines(_tallies(), result)
    assert lines[0] == ("port: 3 of 6 sites rewritten (50%): 2 safe, 1 unsafe, 3 left for a human (2 had a fix and "
                        "ran in product code); 2 files changed, device module pkg/_device.py")
    result = _result([], paths=(), device_module="a/_device.py", device_modules=["a/_device.py", "b/kit/_device.py"])
    assert summary_lines([], result)[0].endswith("0 files changed, device modules a/_device.py, b/kit/_device.py")
    result = _result([], paths=())
    assert summary_lines([], result)[0] == ("port: 0 of 0 sites rewritten (0%): 0 safe, 0 unsafe, 0 left for a human "
                                           "(0 had a fix and ran in product code); 0 files changed")


def test_shares_round_to_whole_percents():
    lines = summary_lines([RuleTally("DEV101", "sync", "safe", 3, 2, 0)], _result([], paths=()))
    assert lines[0].startswith("port: 2 of 3 sites rewritten (67%): 2 safe, 0 unsafe, 1 left for a human")


def test_rule_rows_skip_display_only_rules_with_nothing_rewritten():
    tallies = _tallies() + [RuleTally("OPS001", "kernel", "display-only", 4, 1, 0)]
    lines = summary_lines(tallies, _result([], paths=()))
    assert lines[1:] == [
        "  DEV006 unsafe-rule                      unsafe       sites    2  safe    0  unsafe    1  left    1",
        "  DEV101 sync                             safe         sites    3  safe    2  unsafe    0  left    1",
        "  OPS001 kernel                           display-only sites    4  safe    1  unsafe    0  left    3",
    ]
    # a safe rule with nothing rewritten still has its row
    assert len(summary_lines([RuleTally("DEV101", "sync", "safe", 3, 0, 0)], _result([], paths=()))) == 2
    assert len(summary_lines([RuleTally("DEV006", "u", "unsafe", 3, 0, 2)], _result([], paths=()))) == 2
    assert len(summary_lines([RuleTally("OPS001", "k", "display-only", 3, 0, 0)], _result([], paths=()))) == 1


def _effort_report(findings, low, high, monkeypatch, after):
    monkeypatch.setattr(summary, "effort_left", lambda report, kept: after)
    return SimpleNamespace(findings=findings, effort=SimpleNamespace(total=DaysRange(low_days=low, high_days=high)))


def test_the_effort_line_compares_before_and_after(monkeypatch):
    report = _effort_report([], 4, 6, monkeypatch, DaysRange(low_days=1.5, high_days=2.5))
    lines = summary_lines([], _result([], paths=()), report)
    assert lines[1] == ("  required effort: 4-6 person-days before, 1.5-2.5 left after the patch (the patch removes "
                        "60% of the estimate)")
    report = _effort_report([], 0, 0, monkeypatch, DaysRange(low_days=0, high_days=0))
    assert summary_lines([], _result([], paths=()), report)[1] == (
        "  required effort: 0-0 person-days before, 0-0 left after the patch (the patch removes 0% of the estimate)")


def test_no_effort_line_without_a_report_an_estimate_or_an_effort_left(monkeypatch):
    assert len(summary_lines([], _result([], paths=()))) == 1
    report = _effort_report([], 4, 6, monkeypatch, None)
    assert len(summary_lines([], _result([], paths=()), report)) == 1
    monkeypatch.setattr(summary, "effort_left", lambda report, kept: pytest.fail("no estimate: not recomputed"))
    assert len(summary_lines([], _result([], paths=()), SimpleNamespace(findings=[], effort=None))) == 1


def test_unpatched_files_are_listed():
    result = _result([], paths=(), unpatched=[("x.py", "does not parse"), ("y.py", "not UTF-8")])
    assert summary_lines([], result)[1:] == ["  not patched: x.py: does not parse", "  not patched: y.py: not UTF-8"]


def test_sites_not_attempted_are_grouped_by_reason_most_first():
    skipped = [(_f(f"R{i:02}"), "test code") for i in range(8)] + [(_f("R01"), "test code")]
    skipped += [(_f("DEV001"), "reach guarded"), (_f("DEV101"), "reach guarded"), (_f("DEV101"), "reach guarded")]
    skipped += [(_f("DEV002"), "another"), (_f("DEV003"), "b reason"), (_f("DEV004", suppressed=True), "suppressed")]
    lines = summary_lines([], _result([], paths=(), skipped_sites=skipped))
    assert lines[1:] == [
        "  sites not attempted, by reason: 9 test code (R00, R01, R02, R03, R04, R05, ...); "
        "3 reach guarded (DEV001, DEV101); 1 another (DEV002); 1 b reason (DEV003)"]
    six = [(_f(f"R{i}"), "x") for i in range(6)]
    assert summary_lines([], _result([], paths=(), skipped_sites=six))[1] == \
        "  sites not attempted, by reason: 6 x (R0, R1, R2, R3, R4, R5)"
    only_suppressed = [(_f("DEV004", suppressed=True), "suppressed")]
    assert len(summary_lines([], _result([], paths=(), skipped_sites=only_suppressed))) == 1


def test_sites_left_are_counted_by_reason_then_listed():
    f = [_f("DEV101", "a.py", 3), _f("DEV001", "b.py", 7), _f("DEV101", "c.py", 9), _f("DEV002", "d.py", 1)]
    outcomes = [_left(f[0], "the branch it decides keeps DEV102 at line 4: on NPU it would run CUDA-only code"),
                _done(_f("DEV101", "a.py", 8)),
                _left(f[1], "the branch it decides keeps DEV101 at line 9: on NPU it would run CUDA-only code"),
                _left(f[2], "display-only"), _left(f[3], "file left unpatched: does not parse")]
    lines = summary_lines([], _result(outcomes))
    assert lines[1:] == [
        "  sites left for a human, by reason (4):",
        "       2  the branch it decides keeps a site the patch does not rewrite (DEV001, DEV101)",
        "       1  display-only (DEV101)",
        "       1  file left unpatched (DEV002)",
        "  left: a.py:3 DEV101: the branch it decides keeps DEV102 at line 4: on NPU it would run CUDA-only code",
        "  left: b.py:7 DEV001: the branch it decides keeps DEV101 at line 9: on NPU it would run CUDA-only code",
        "  left: c.py:9 DEV101: display-only",
        "  left: d.py:1 DEV002: file left unpatched: does not parse",
    ]


def test_at_most_fifty_sites_left_are_listed():
    assert MAX_HELD_LISTED == 50
    outcomes = [_left(_f("DEV101", line=i), "why") for i in range(1, 53)]
    lines = summary_lines([], _result(outcomes))
    assert lines[1:3] == ["  sites left for a human, by reason (52):", "      52  why (DEV101)"]
    assert lines[3] == "  left: a.py:1 DEV101: why" and lines[52] == "  left: a.py:50 DEV101: why"
    assert lines[53:] == ["  ... and 2 more sites left"]
    exactly = summary_lines([], _result(outcomes[:50]))
    assert exactly[-1] == "  left: a.py:50 DEV101: why" and len(exactly) == 1 + 2 + 50


@pytest.mark.parametrize(("reason", "kept"), [
    ("the branch it decides keeps DEV001 at line 3: on NPU it would run CUDA-only code",
     "the branch it decides keeps a site the patch does not rewrite"),
    ("the branch it decides calls foo, which may be CUDA-only: review it by hand",
     "the branch it decides calls a function that may be CUDA-only"),
    ("the device module offers no torch.cuda.nvtx equivalent", "the device module offers no equivalent"),
    ("file left unpatched: does not parse: at 3", "file left unpatched"),
    ("file left unpatched", "file left unpatched"),
    ("reach guarded: because", "reach guarded: because"),  # only unpatched files lose what follows ": "
    ("the branch it decides leaves the block early: the code after it is what it guards, review it",
     "the branch it decides leaves the block early: the code after it is what it guards, review it"),
    ("a: the branch it decides keeps", "a: the branch it decides keeps"),  # a prefix, not anywhere
])
def test_a_reason_class_drops_the_line_and_the_name_it_quotes(reason, kept):
    (row,) = left_by_reason([_left(_f("DEV101"), reason)])
    assert row == (kept, ["DEV101"], 1)


def test_reasons_sort_by_count_then_text_and_list_each_rule_once():
    held = [_left(_f("B"), "b"), _left(_f("A"), "a"), _left(_f("C"), "c"), _left(_f("C"), "c"), _left(_f("D"), "c"),
            _left(_f("C"), "c")]
    assert left_by_reason(held) == [("c", ["C", "D"], 4), ("a", ["A"], 1), ("b", ["B"], 1)]
    assert left_by_reason([]) == []


def test_a_suppressed_or_unknown_finding_does_not_end_the_count():
    findings = [_f("DEV001", line=1, suppressed=True), _f("XYZ999", line=2), _f("DEV101", line=3)]
    tallies = summarize(SimpleNamespace(findings=findings), _result([_done(findings[2])]))
    assert [(t.rule, t.sites, t.safe) for t in tallies] == [("DEV101", 1, 1)]


def test_remaining_effort_is_asked_of_the_report_itself(monkeypatch):
    asked = []
    monkeypatch.setattr(summary, "effort_left", lambda report, findings: asked.append(report))
    report = SimpleNamespace(findings=[])
    remaining_effort(report, _result([]))
    assert asked == [report]


def test_an_estimate_of_equal_bounds(monkeypatch):
    report = _effort_report([], 2, 2, monkeypatch, DaysRange(low_days=1, high_days=1))
    assert summary_lines([], _result([], paths=()), report)[1] == (
        "  required effort: 2-2 person-days before, 1-1 left after the patch (the patch removes 50% of the estimate)")


def test_seven_rules_of_one_reason_show_six_and_a_mark():
    seven = [(_f(f"R{i}"), "x") for i in range(7)]
    assert summary_lines([], _result([], paths=(), skipped_sites=seven))[1] == \
        "  sites not attempted, by reason: 7 x (R0, R1, R2, R3, R4, R5, ...)"


def test_reasons_of_equal_count_sort_by_their_text_not_their_rules():
    skipped = [(_f("ZZZ001"), "a reason"), (_f("AAA001"), "b reason")]
    assert summary_lines([], _result([], paths=(), skipped_sites=skipped))[1] == \
        "  sites not attempted, by reason: 1 a reason (ZZZ001); 1 b reason (AAA001)"
