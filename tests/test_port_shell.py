"""analyzer/port/shell.py on bash snippets, without an analysis: which writes of a variable are completed, how (a
statement after an assignment, a prefix before `VAR=value command`), the comment each gets, and each reason a site is
left, as the module's docstring states them. The edit is the shipped DEV201 one (knowledge/device/rules_runtime.toml);
a finding spans the matched text (the analyzer's 1-based line and character column)."""

from __future__ import annotations

from types import SimpleNamespace

from ascend_feasibility.analyzer.port.shell import SHELL_SUFFIXES, plan_shell
from ascend_feasibility.analyzer.reading.parsing import parse
from ascend_feasibility.knowledge import load_knowledge

VAR = "CUDA_VISIBLE_DEVICES"
COMMENT = "# ascend: ignore[DEV201] (port: completed for Ascend)\n"
AFTER = "  # ascend: ignore[DEV201] (port)"
TWIN = 'ASCEND_RT_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES}"'


def _edit(**update):
    return load_knowledge().rules["DEV201"].edit.model_copy(update=update)


def _finding(source: str, match: str = VAR, occurrence: int = 0, symbol: str = VAR, rule: str = "DEV201"):
    at = -1
    for _ in range(occurrence + 1):
        at = source.index(match, at + 1)
    before, span = source[:at], source[:at + len(match)]
    return SimpleNamespace(rule=rule, symbol=symbol, line=before.count("\n") + 1,
                           column=at - (before.rfind("\n") + 1) + 1, end_line=span.count("\n") + 1,
                           end_column=at + len(match) - (span.rfind("\n") + 1) + 1)


def _plan(source: str, *sites, edit=None):
    """plan_shell over the sites ((match, occurrence) pairs, or one finding per occurrence of VAR by default)."""
    edit = edit or _edit()
    findings = [(_finding(source, m, o) if isinstance(m, str) else m, edit) for m, o in (sites or [(VAR, 0)])]
    data = source.encode("utf-8")
    return plan_shell(data, parse("bash", data), findings)


def test_suffixes():
    assert SHELL_SUFFIXES == (".sh", ".bash")


def test_an_export_gets_its_twin_exported_after_it_and_a_comment_before_it():
    new, (outcome,) = _plan("set -e\nexport CUDA_VISIBLE_DEVICES=0,1\npython train.py\n")
    assert new == (f"set -e\n{COMMENT}export CUDA_VISIBLE_DEVICES=0,1\nexport {TWIN}{AFTER}\npython train.py\n")
    assert outcome.reason is None and outcome.changes == ["shell"] and outcome.rewritten


def test_a_plain_assignment_gets_a_plain_twin():
    new, (outcome,) = _plan("CUDA_VISIBLE_DEVICES=3\n")
    assert new == f"{COMMENT}CUDA_VISIBLE_DEVICES=3\n{TWIN}{AFTER}\n"


def test_an_assignment_exported_on_a_later_line_gets_an_exported_twin():
    """`VAR=$(seq ...)` then `export VAR`: the analyzer reports the assignment only, so its twin must be exported too
    or the launcher after it never sees ASCEND_RT_VISIBLE_DEVICES."""
    source = "CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((N-1)))\nexport CUDA_VISIBLE_DEVICES\naccelerate launch x.py\n"
    new, (outcome,) = _plan(source)
    assert outcome.reason is None
    assert new == (f"{COMMENT}CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((N-1)))\nexport {TWIN}{AFTER}\n"
                   "export CUDA_VISIBLE_DEVICES\naccelerate launch x.py\n")


def test_an_export_before_the_assignment_does_not_export_the_twin():
    new, _ = _plan("export CUDA_VISIBLE_DEVICES\nCUDA_VISIBLE_DEVICES=3\n", (VAR, 1))
    assert new == f"export CUDA_VISIBLE_DEVICES\n{COMMENT}CUDA_VISIBLE_DEVICES=3\n{TWIN}{AFTER}\n"


def test_declarations_other_than_export_are_not_exported():
    for keyword in ("readonly", "declare -x", "local"):
        source = f"f() {{\n  {keyword} CUDA_VISIBLE_DEVICES=1\n}}\n"
        new, (outcome,) = _plan(source)
        assert outcome.reason is None, keyword
        assert new == f"f() {{\n  {COMMENT}  {keyword} CUDA_VISIBLE_DEVICES=1\n  {TWIN}{AFTER}\n}}\n", keyword


def test_the_twin_keeps_the_indent_and_a_trailing_comment_stays_on_its_line():
    source = "if true; then\n    export CUDA_VISIBLE_DEVICES=0  # first card\nfi\n"
    new, (outcome,) = _plan(source)
    assert outcome.reason is None
    assert new == (f"if true; then\n    {COMMENT}    export CUDA_VISIBLE_DEVICES=0  # first card\n"
                   f"    export {TWIN}{AFTER}\nfi\n")


def test_a_last_line_without_newline():
    new, _ = _plan("export CUDA_VISIBLE_DEVICES=0")
    assert new == f"{COMMENT}export CUDA_VISIBLE_DEVICES=0\nexport {TWIN}{AFTER}"


def test_a_prefix_assignment_gets_the_npu_variable_beside_it():
    new, (outcome,) = _plan("CUDA_VISIBLE_DEVICES=2 torchrun \\\n  train.py\n")
    assert new == f"{COMMENT}ASCEND_RT_VISIBLE_DEVICES=2 CUDA_VISIBLE_DEVICES=2 torchrun \\\n  train.py\n"
    assert outcome.reason is None and outcome.changes == ["shell"]


def test_a_prefix_keeps_a_quoted_or_empty_value_and_the_indent():
    new, _ = _plan('  CUDA_VISIBLE_DEVICES="0,1" python x.py\n')
    assert new == f'  {COMMENT}  ASCEND_RT_VISIBLE_DEVICES="0,1" CUDA_VISIBLE_DEVICES="0,1" python x.py\n'
    new, _ = _plan("CUDA_VISIBLE_DEVICES= python x.py\n")
    assert new == f"{COMMENT}ASCEND_RT_VISIBLE_DEVICES= CUDA_VISIBLE_DEVICES= python x.py\n"


def test_a_prefix_after_another_prefix():
    new, (outcome,) = _plan("OMP_NUM_THREADS=4 CUDA_VISIBLE_DEVICES=1 python x.py\n")
    assert outcome.reason is None
    assert new == f"{COMMENT}OMP_NUM_THREADS=4 ASCEND_RT_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1 python x.py\n"


def test_without_a_prefix_template_a_command_prefix_is_left():
    source = "CUDA_VISIBLE_DEVICES=2 python x.py\n"
    new, (outcome,) = _plan(source, edit=_edit(shell_prefix=None))  # a statement after it would not be its twin
    assert new is None and outcome.reason == "the assignment shares its line" and outcome.changes == []
    new, (outcome,) = _plan(source, edit=_edit(shell_prefix=None, shell=None))
    assert new is None and outcome.reason == "no shell rewrite for this form" and outcome.changes == []


def test_without_a_shell_template_an_assignment_is_left_but_a_prefix_is_done():
    new, (outcome,) = _plan("export CUDA_VISIBLE_DEVICES=0\n", edit=_edit(shell=None))
    assert new is None and outcome.reason == "no shell rewrite for this form"
    new, (outcome,) = _plan("CUDA_VISIBLE_DEVICES=0 python x.py\n", edit=_edit(shell=None))
    assert outcome.reason is None and new.startswith(COMMENT + "ASCEND_RT_VISIBLE_DEVICES=0 ")


def test_reads_and_other_variables_are_not_completed():
    new, (outcome,) = _plan("echo $CUDA_VISIBLE_DEVICES\n")
    assert new is None and outcome.reason == "not an assignment of the variable (only writes are completed)"
    # an assignment of another variable whose value names it
    source = "X=$CUDA_VISIBLE_DEVICES\n"
    new, (outcome,) = _plan(source)
    assert new is None and outcome.reason == "not an assignment of the variable (only writes are completed)"
    # the symbol decides, not the span: the same assignment reported for another variable
    source = "export CUDA_VISIBLE_DEVICES=0\n"
    finding = _finding(source, symbol="HIP_VISIBLE_DEVICES")
    new, (outcome,) = _plan(source, (finding, 0))
    assert new is None and outcome.reason == "not an assignment of the variable (only writes are completed)"


def test_a_finding_outside_the_file_is_not_an_assignment():
    source = "export CUDA_VISIBLE_DEVICES=0\n"
    finding = SimpleNamespace(rule="DEV201", symbol=VAR, line=5, column=1, end_line=5, end_column=3)
    new, (outcome,) = _plan(source, (finding, 0))
    assert new is None and outcome.reason == "not an assignment of the variable (only writes are completed)"
    backwards = SimpleNamespace(rule="DEV201", symbol=VAR, line=1, column=10, end_line=1, end_column=8)
    new, (outcome,) = _plan(source, (backwards, 0))
    assert new is None and outcome.reason == "not an assignment of the variable (only writes are completed)"


def test_a_finding_on_the_value_still_finds_its_assignment():
    source = "export CUDA_VISIBLE_DEVICES=0,1\n"
    finding = _finding(source, "0,1", symbol=VAR)
    new, (outcome,) = _plan(source, (finding, 0))
    assert outcome.reason is None and new.endswith(f"export {TWIN}{AFTER}\n")


def test_an_assignment_sharing_its_line_is_left():
    for source in ("if true; then export CUDA_VISIBLE_DEVICES=3; fi\n",  # something before it
                   "export CUDA_VISIBLE_DEVICES=3; echo done\n",  # something after it
                   "export CUDA_VISIBLE_DEVICES=3 && echo done\n",
                   "CUDA_VISIBLE_DEVICES=\"0,\n1\"\n"):  # over two lines
        new, (outcome,) = _plan(source)
        assert new is None and outcome.reason == "the assignment shares its line", source
        assert outcome.changes == []


def test_an_export_split_over_lines_shares_its_line():
    new, (outcome,) = _plan("export \\\n  CUDA_VISIBLE_DEVICES=3\n")
    assert new is None and outcome.reason == "the assignment shares its line"


def test_a_prefixed_command_sharing_its_line_is_left():
    new, (outcome,) = _plan("echo start; CUDA_VISIBLE_DEVICES=0 python x.py\n")
    assert new is None and outcome.reason == "the statement shares its line" and outcome.changes == []
    # the other site of the script is still done, and the refused one adds nothing
    source = "echo start; CUDA_VISIBLE_DEVICES=0 python x.py\nCUDA_VISIBLE_DEVICES=1 python y.py\n"
    new, (left, done) = _plan(source, (VAR, 0), (VAR, 1))
    assert left.reason == "the statement shares its line" and done.reason is None
    assert new == ("echo start; CUDA_VISIBLE_DEVICES=0 python x.py\n"
                   f"{COMMENT}ASCEND_RT_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1 python y.py\n")


def test_several_sites_each_get_their_own_lines_in_order():
    source = "export CUDA_VISIBLE_DEVICES=0\necho $CUDA_VISIBLE_DEVICES\nCUDA_VISIBLE_DEVICES=1 python x.py\n"
    new, outcomes = _plan(source, (VAR, 0), (VAR, 1), (VAR, 2))
    assert [o.reason is None for o in outcomes] == [True, False, True]
    assert [o.finding.line for o in outcomes] == [1, 2, 3]
    assert new == (f"{COMMENT}export CUDA_VISIBLE_DEVICES=0\nexport {TWIN}{AFTER}\n"
                   "echo $CUDA_VISIBLE_DEVICES\n"
                   f"{COMMENT}ASCEND_RT_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1 python x.py\n")


def test_the_rule_is_named_in_both_comments():
    source = "export CUDA_VISIBLE_DEVICES=0\n"
    finding = _finding(source, rule="DEV299")
    new, _ = _plan(source, (finding, 0))
    assert new == ("# ascend: ignore[DEV299] (port: completed for Ascend)\nexport CUDA_VISIBLE_DEVICES=0\n"
                   f"export {TWIN}  # ascend: ignore[DEV299] (port)\n")


def test_non_ascii_text_before_the_site_keeps_byte_positions_right():
    source = "echo 'é中'\nexport CUDA_VISIBLE_DEVICES=0\n"
    new, (outcome,) = _plan(source)
    assert outcome.reason is None
    assert new == f"echo 'é中'\n{COMMENT}export CUDA_VISIBLE_DEVICES=0\nexport {TWIN}{AFTER}\n"


def test_a_rewrite_that_does_not_parse_leaves_the_script_and_says_why():
    # a template that breaks the script: every site that was to be rewritten is left, with the reason
    source = "export CUDA_VISIBLE_DEVICES=0\necho $CUDA_VISIBLE_DEVICES\n"
    new, (done, read) = _plan(source, (VAR, 0), (VAR, 1), edit=_edit(shell="{keyword}X=\"(unclosed"))
    assert new is None
    assert done.reason == "the rewritten script does not parse" and done.changes == [] and not done.rewritten
    assert read.reason == "not an assignment of the variable (only writes are completed)"


def test_no_sites_no_script():
    new, outcomes = plan_shell(b"echo hi\n", parse("bash", b"echo hi\n"), [])
    assert new is None and outcomes == []


def test_an_empty_span_at_the_variable_finds_its_assignment():
    source = "export CUDA_VISIBLE_DEVICES=0\n"
    finding = _finding(source)
    finding.end_column = finding.column  # begin == end
    new, (outcome,) = _plan(source, (finding, 0))
    assert outcome.reason is None and new == f"{COMMENT}export CUDA_VISIBLE_DEVICES=0\nexport {TWIN}{AFTER}\n"


def test_the_row_of_an_assignment_after_several_lines_and_after_a_leading_blank_line():
    new, (outcome,) = _plan("a=1\nb=2\nexport CUDA_VISIBLE_DEVICES=0\n")
    assert outcome.reason is None
    assert new == f"a=1\nb=2\n{COMMENT}export CUDA_VISIBLE_DEVICES=0\nexport {TWIN}{AFTER}\n"
    new, _ = _plan("\nexport CUDA_VISIBLE_DEVICES=0\n")
    assert new == f"\n{COMMENT}export CUDA_VISIBLE_DEVICES=0\nexport {TWIN}{AFTER}\n"
    new, _ = _plan("\nCUDA_VISIBLE_DEVICES=0 python x.py\n")
    assert new == f"\n{COMMENT}ASCEND_RT_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=0 python x.py\n"


def test_a_site_left_does_not_stop_the_sites_after_it():
    source = "export CUDA_VISIBLE_DEVICES=0; echo\nexport CUDA_VISIBLE_DEVICES=1\n"
    new, (left, done) = _plan(source, (VAR, 0), (VAR, 1))
    assert left.reason == "the assignment shares its line" and done.reason is None
    assert new == f"export CUDA_VISIBLE_DEVICES=0; echo\n{COMMENT}export CUDA_VISIBLE_DEVICES=1\nexport {TWIN}{AFTER}\n"
    source = "CUDA_VISIBLE_DEVICES=0 python x.py\nexport CUDA_VISIBLE_DEVICES=1\n"
    data = source.encode()
    bare = _edit(shell=None, shell_prefix=None)
    new, (left, done) = plan_shell(data, parse("bash", data),
                                   [(_finding(source, VAR, 0), bare), (_finding(source, VAR, 1), _edit())])
    assert left.reason == "no shell rewrite for this form" and done.reason is None
    assert new == f"CUDA_VISIBLE_DEVICES=0 python x.py\n{COMMENT}export CUDA_VISIBLE_DEVICES=1\nexport {TWIN}{AFTER}\n"


def test_a_finding_with_its_other_lines_as_sites_completes_every_line():
    """One finding per variable and script (project_scope.fold_script_lines) lists the script's other lines as its
    sites: each of them is completed as its own finding would be."""
    source = "".join(f"CUDA_VISIBLE_DEVICES={i} python sample.py --part {i} &\n" for i in range(3)) + "wait\n"
    first = _finding(source)
    first.path, first.sites, first.fingerprint = "run.sh", ["run.sh:1", "run.sh:2", "run.sh:3"], "f"
    first.model_copy = lambda update: SimpleNamespace(**{**vars(first), **update})
    new, outcomes = _plan(source, (first, 0))
    assert new == "".join(f"{COMMENT}ASCEND_RT_VISIBLE_DEVICES={i} CUDA_VISIBLE_DEVICES={i} python sample.py --part {i} &\n"
                          for i in range(3)) + "wait\n"
    assert [o.finding.line for o in outcomes] == [1, 2, 3] and all(o.rewritten for o in outcomes)
