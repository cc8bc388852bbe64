"""The report's escaping helpers, each output written out from the rules in analyzer/reporting/markup.py."""

from ascend_feasibility.analyzer.reporting.markup import html_prose, markdown_code, markdown_prose, markdown_text, number


def test_markdown_text_is_one_line_html_escaped_and_markdown_backslashed():
    assert markdown_text("a\n\t b") == "a b"
    assert markdown_text('x*y_z <b> "q" & [l](u) |t| #h ~s! {c} \\') == (
        'x\\*y\\_z &lt;b&gt; "q" &amp; \\[l\\](u) \\|t\\| \\#h \\~s\\! \\{c\\} \\\\')


def test_markdown_code_spans_survive_backticks_pipes_and_whitespace():
    assert markdown_code("torch.cuda") == "`torch.cuda`"
    assert markdown_code("a|b") == "`a\\|b`"  # a GFM table cell would split at a bare pipe
    assert markdown_code("a\n  b") == "`a b`"
    assert markdown_code("") == ""
    assert markdown_code(" \n ") == ""
    # a fence one longer than the longest backtick run inside; a space pads a span that starts or ends with one
    assert markdown_code("a``b") == "```a``b```"
    assert markdown_code("`x") == "`` `x ``"
    assert markdown_code("x`") == "`` x` ``"
    assert markdown_code("`x`") == "`` `x` ``"


def test_prose_keeps_code_spans_and_escapes_the_rest():
    text = "use `torch.npu.<x>` for *a* <b>"
    assert markdown_prose(text) == "use `torch.npu.<x>` for \\*a\\* &lt;b&gt;"
    assert html_prose(text) == "use <code>torch.npu.&lt;x&gt;</code> for *a* &lt;b&gt;"
    assert html_prose("`a` and `b`") == "<code>a</code> and <code>b</code>"
    assert html_prose("plain & simple") == "plain &amp; simple"


def test_number_writes_days_as_people_do():
    assert [number(v) for v in (2, 2.0, 0, 2.5, 0.25, 1.1, 12.125)] == ["2", "2", "0", "2.5", "0.25", "1.1", "12.12"]
    assert number(2.001) == "2"  # rounds to a whole number: no trailing point
