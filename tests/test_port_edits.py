"""analyzer/port/edits.py on parsed snippets, without an analysis: each edit kind's rewrite and each reason a site is
left for a human, as the module's docstrings and knowledge/models.py's `Edit` state them. A finding is built from the
matched text's position (the analyzer's 1-based line and character column)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.port import edits
from ascend_feasibility.analyzer.port.edits import (
    Change,
    SiteOutcome,
    Style,
    byte_offset,
    cuda_literals,
    line_starts_of,
    plan_literal,
    plan_note,
    plan_site,
    shorten,
)
from ascend_feasibility.analyzer.reading.parsing import parse
from ascend_feasibility.knowledge.models import Edit

AGNOSTIC = Style("agnostic", "_device")
NPU = Style("npu", "_device")
PLACEMENT = dict(kind="string", values=["cuda"], agnostic="{dev}.DEVICE_TYPE", npu='"npu"',
                 agnostic_indexed='f"{{{dev}.DEVICE_TYPE}}:{index}"', npu_indexed='"npu:{index}"',
                 formatted="{{{dev}.DEVICE_TYPE}}", npu_formatted="npu", keep_in=["custom_op", "register_kernel"],
                 hold_keywords=["accelerator"], only_in=["choice", "support"], uses=["DEVICE_TYPE"])


def _finding(source: str, match: str, occurrence: int = 0, rule: str = "DEV001", path: str = "train.py",
             symbol: str | None = None, plan: str = "use the device module"):
    """A finding spanning the occurrence-th `match` in source."""
    at = -1
    for _ in range(occurrence + 1):
        at = source.index(match, at + 1)
    before, span = source[:at], source[:at + len(match)]
    line, end_line = before.count("\n") + 1, span.count("\n") + 1
    column = at - (before.rfind("\n") + 1) + 1
    end_column = at + len(match) - (span.rfind("\n") + 1) + 1
    return SimpleNamespace(rule=rule, path=path, line=line, column=column, end_line=end_line, end_column=end_column,
                           symbol=match if symbol is None else symbol, replacement=SimpleNamespace(en=plan))


def _apply(data: bytes, changes: list[Change]) -> str:
    for change in sorted(changes, key=lambda c: (c.start, c.end), reverse=True):
        data = data[:change.start] + change.new.encode("utf-8") + data[change.end:]
    return data.decode("utf-8")


def _plan(source: str, match: str, edit: Edit, style: Style = AGNOSTIC, **finding) -> tuple[SiteOutcome, str]:
    reads_flagged = finding.pop("reads_flagged", False)
    data = source.encode("utf-8")
    outcome = plan_site(parse("python", data), data, line_starts_of(data), _finding(source, match, **finding), edit,
                        style, reads_flagged=reads_flagged)
    return outcome, _apply(data, outcome.changes)


# positions

def test_line_starts_are_the_offsets_after_each_newline():
    assert line_starts_of(b"") == [0]
    assert line_starts_of(b"a\nbc\n\nd") == [0, 2, 5, 6]
    assert line_starts_of(b"\n") == [0, 1]


def test_byte_offset_counts_characters_as_utf8_bytes_and_refuses_rows_outside():
    data = "x\né = 'cuda'\n".encode("utf-8")
    starts = line_starts_of(data)
    assert byte_offset(data, starts, 1, 1) == 0
    assert byte_offset(data, starts, 2, 1) == 2
    assert byte_offset(data, starts, 2, 5) == 2 + len("é = ".encode("utf-8"))  # é is two bytes, one column
    assert byte_offset(data, starts, 2, 0) == 2  # a column before the row's start is its start
    assert byte_offset(data, starts, 3, 1) == len(data)  # the empty last row
    assert byte_offset(data, starts, 4, 1) == -1
    assert byte_offset(data, starts, 0, 1) == -1
    last = b"ab\ncd"  # no final newline: the last row runs to the end
    assert byte_offset(last, line_starts_of(last), 2, 3) == 5


# plan_site's own checks

def test_a_position_outside_the_file_is_left_with_its_reason():
    edit = Edit(**PLACEMENT)
    data = b"x = 'cuda'\n"
    finding = _finding("x = 'cuda'\n", "'cuda'")
    finding.line = finding.end_line = 9
    outcome = plan_site(parse("python", data), data, line_starts_of(data), finding, edit, AGNOSTIC)
    assert outcome.reason == "the finding's position is outside the file" and not outcome.rewritten
    finding = _finding("x = 'cuda'\n", "'cuda'")
    finding.end_column = 1  # ends before it begins
    outcome = plan_site(parse("python", data), data, line_starts_of(data), finding, edit, AGNOSTIC)
    assert outcome.reason == "the finding's position is outside the file"


def test_an_empty_span_at_the_start_still_reaches_the_node():
    edit = Edit(kind="name", agnostic="torch.float32", npu="torch.float32", apis=["float64"])
    source = "x = torch.float64\n"
    data = source.encode()
    finding = _finding(source, "torch.float64")
    finding.end_column = finding.column  # begin == end is a position, not an error
    outcome = plan_site(parse("python", data), data, line_starts_of(data), finding, edit, AGNOSTIC)
    assert outcome.reason != "the finding's position is outside the file"


def test_a_style_without_a_rewrite_is_left():
    edit = Edit(kind="callee", agnostic="{dev}.flash_attn_func", npu="", apis=["flash_attn_func"])
    outcome, new = _plan("y = flash_attn_func(q, k, v)\n", "flash_attn_func", edit, NPU)
    assert outcome.reason == "no rewrite in the npu style" and new == "y = flash_attn_func(q, k, v)\n"


@pytest.mark.parametrize("path, held", [("tools/numerics/check.py", "numeric"), ("debug_run.py", "debug"),
                                        ("src/Numerics.py", "numeric")])
def test_a_file_in_a_held_folder_or_named_for_it_is_left(path, held):
    edit = Edit(kind="name", agnostic="torch.float32", npu="torch.float32", apis=["float64"],
                hold_paths=["numeric", "debug"])
    outcome, _ = _plan("x = torch.float64\n", "torch.float64", edit, path=path)
    assert outcome.reason == f"a {held} tool: the code is deliberate there" and not outcome.changes


def test_the_held_check_reads_parts_of_the_path_without_its_suffix():
    edit = Edit(kind="name", agnostic="torch.float32", npu="torch.float32", apis=["float64"], hold_paths=["py"])
    outcome, new = _plan("x = torch.float64\n", "torch.float64", edit, path="src/train.py")
    assert outcome.reason is None and new == "x = torch.float32\n"


def test_a_rewritten_site_carries_its_rule_comment_line_uses_and_statement():
    edit = Edit(kind="callee", agnostic="{dev}.{api}", npu="torch.npu.{api}", apis=["synchronize"],
                uses=["{api}", "DEVICE_TYPE"])
    source = "import torch\n\ndef f():\n    if ok:\n        torch.cuda.synchronize()\n"
    outcome, new = _plan(source, "torch.cuda.synchronize", edit, symbol="torch.cuda.synchronize", rule="DEV104")
    assert new == source.replace("torch.cuda.synchronize", "_device.synchronize")
    assert [(c.rule, c.comment_at) for c in outcome.changes] == [("DEV104", source.index("        torch.cuda"))]
    assert outcome.uses == {"synchronize", "DEVICE_TYPE"}
    assert outcome.statement is not None and outcome.statement.type == "expression_statement"
    assert outcome.needs_torch is False and outcome.rewritten
    npu, new = _plan(source, "torch.cuda.synchronize", edit, NPU, symbol="torch.cuda.synchronize")
    assert new == source.replace("torch.cuda.synchronize", "torch.npu.synchronize")
    assert npu.uses == set() and npu.needs_torch is True  # the npu style writes torch.npu itself


def test_a_statement_added_after_the_site_marks_the_site_ignored():
    edit = Edit(kind="after", agnostic="{dev}.mirror_tf32_matmul()", npu="torch.npu.matmul.allow_hf32 = {lhs}")
    source = "torch.backends.cuda.matmul.allow_tf32 = True\n"
    outcome, new = _plan(source, "torch.backends.cuda.matmul.allow_tf32", edit, rule="PRC010")
    assert new == "torch.backends.cuda.matmul.allow_tf32 = True\n_device.mirror_tf32_matmul()\n"
    assert [c.rule for c in outcome.changes] == ["ignore[PRC010]"]


def test_a_handler_refusal_clears_the_changes_it_made():
    """_string adds the first literal's change, then meets one held by a keyword: the whole site is left."""
    edit = Edit(**PLACEMENT)
    source = "f('cuda', accelerator='cuda')\n"
    outcome, new = _plan(source, "f('cuda', accelerator='cuda')", edit)
    assert outcome.reason.startswith("accelerator= names a framework's accelerator")
    assert outcome.changes == [] and new == source and not outcome.rewritten


def test_a_site_outside_any_statement_is_left():
    """A decorator is not a statement in a block: the site has no statement to carry its comment."""
    edit = Edit(**PLACEMENT)
    source = "@register('cuda')\ndef f():\n    pass\n"
    outcome, _ = _plan(source, "'cuda'", edit)
    assert outcome.reason is None  # a decorated definition is itself the statement
    assert outcome.statement.type == "decorated_definition"


def test_a_parameter_default_is_marked_beside_its_parameter():
    """A default in a signature over several lines gets its `# ascend:` comment above its own parameter, inside the
    parentheses (round 22 port hunk 4: a comment above the `def` read as a change of its own); a one-line signature
    keeps it above the `def` (between the decorators and the `def`)."""
    edit = Edit(**PLACEMENT)
    source = "class R:\n    def __init__(\n        self,\n        device='cuda',\n    ):\n        pass\n"
    outcome, _ = _plan(source, "'cuda'", edit)
    assert {c.comment_at for c in outcome.changes} == {source.index("        device=")}
    source = "@torch.no_grad()\ndef one(n, device='cuda'):\n    pass\n"
    outcome, _ = _plan(source, "'cuda'", edit)
    assert {c.comment_at for c in outcome.changes} == {source.index("def one")}


def test_rewritten_needs_a_change_or_an_absorbed_site():
    outcome = SiteOutcome(finding=None)
    assert not outcome.rewritten
    outcome.absorbed = True
    assert outcome.rewritten
    outcome.reason = "left"
    assert not outcome.rewritten


# callee and name

def test_callee_replaces_only_the_called_name_of_apis_the_device_module_offers():
    edit = Edit(kind="callee", agnostic="{dev}.{api}", npu="torch.npu.{api}", apis=["synchronize"])
    outcome, new = _plan("torch.cuda.synchronize(0)\n", "torch.cuda.synchronize(0)", edit,
                         symbol="torch.cuda.synchronize")
    assert new == "_device.synchronize(0)\n"
    outcome, _ = _plan("torch.cuda.ipc_collect()\n", "torch.cuda.ipc_collect", edit, symbol="torch.cuda.ipc_collect")
    assert outcome.reason == "the device module offers no ipc_collect"
    outcome, _ = _plan("f = torch.cuda.synchronize\n", "torch.cuda.synchronize", edit, symbol="torch.cuda.synchronize")
    assert outcome.reason == "not a call"
    outcome, _ = _plan("g(torch.cuda.synchronize)\n", "torch.cuda.synchronize", edit, symbol="torch.cuda.synchronize")
    assert outcome.reason == "not a call"  # an argument of a call is not its callee


def test_name_replaces_listed_names_only():
    edit = Edit(kind="name", agnostic="torch.float32", npu="torch.float32", apis=["float64", "double"])
    _, new = _plan("x = torch.double\n", "torch.double", edit, symbol="torch.double")
    assert new == "x = torch.float32\n"
    _, new = _plan("x = double\n", "double", edit, symbol="double")
    assert new == "x = torch.float32\n"
    outcome, _ = _plan("x = torch.half\n", "torch.half", edit, symbol="torch.half")
    assert outcome.reason == "torch.half is not one of ['float64', 'double']"
    outcome, _ = _plan("x = f(torch.double)\n", "f(torch.double)", edit, symbol="torch.double")
    assert outcome.reason == "not a name"


# string

@pytest.mark.parametrize("source, expected", [
    ("x = 'cuda'\n", "x = _device.DEVICE_TYPE\n"),
    ("x = \"cuda:1\"\n", "x = f\"{_device.DEVICE_TYPE}:1\"\n"),
    ("x = 'cuda:12'\n", "x = f\"{_device.DEVICE_TYPE}:12\"\n"),
])
def test_string_replaces_plain_device_literals(source, expected):
    outcome, new = _plan(source, source[4:-1], Edit(**PLACEMENT))
    assert new == expected and outcome.uses == {"DEVICE_TYPE"}


@pytest.mark.parametrize("literal", ["'cudax'", "b'cuda'", "'cu\\x64a'", "'CUDA'", "u'cuda'", "'cuda' 'x'"])
def test_string_leaves_literals_that_are_not_a_plain_device_name(literal):
    source = f"x = {literal}\n"
    outcome, new = _plan(source, literal, Edit(**PLACEMENT))
    assert new == source and outcome.reason == "no plain string literal to replace"


def test_a_part_of_an_implicit_concatenation_is_not_replaced_by_an_expression():
    """`"cuda" ":0"` is one string: putting `_device.DEVICE_TYPE` in place of its first part would not parse (and
    the whole file would be left unpatched); a part that starts a formatted name becomes an f-string, which may."""
    for source in ("x = 'cuda' ':0'\n", "x = ('cuda'\n     'x')\n"):
        outcome, new = _plan(source, source[4:-1], Edit(**PLACEMENT))
        assert new == source and outcome.reason == "no plain string literal to replace"
    _, new = _plan("x = 'cuda:' '0'\n", "'cuda:' '0'", Edit(**PLACEMENT))
    assert new == "x = f'{_device.DEVICE_TYPE}:' '0'\n"
    assert cuda_literals(parse("python", b"x = 'cuda' ':0'\n")) == []
    _, new = _plan("x = 'cuda' + r\n", "'cuda' + r", Edit(**PLACEMENT))
    assert new == "x = _device.DEVICE_TYPE + r\n"  # a real expression may stand beside another


@pytest.mark.parametrize("literal", ["'cuda:x'", "'cuda:1:2'", "'cuda:'"])
def test_other_literals_starting_with_a_device_prefix_are_formatted_names(literal):
    """Not a plain "cuda:N": read as the start of a device name built at run time (`_formatted_change`)."""
    _, new = _plan(f"x = {literal}\n", literal, Edit(**PLACEMENT))
    assert new == f"x = f'{{_device.DEVICE_TYPE}}{literal[5:-1]}'\n"


def test_string_in_the_npu_style_and_without_an_indexed_template():
    plain = {**PLACEMENT, "agnostic_indexed": None}
    outcome, new = _plan("x = 'cuda:3'\n", "'cuda:3'", Edit(**plain))
    assert new == "x = 'cuda:3'\n" and outcome.reason == "no plain string literal to replace"
    outcome, new = _plan("x = 'cuda:3'\n", "'cuda:3'", Edit(**PLACEMENT), NPU)
    assert new == 'x = "npu:3"\n'


def test_string_values_other_than_cuda():
    edit = Edit(kind="string", values=["nccl"], agnostic="{dev}.DIST_BACKEND", npu='"hccl"')
    _, new = _plan("init(backend='nccl')\n", "'nccl'", edit)
    assert new == "init(backend=_device.DIST_BACKEND)\n"
    _, new = _plan("init(backend='nccl')\n", "'nccl'", edit, NPU)
    assert new == 'init(backend="hccl")\n'
    outcome, _ = _plan("init(backend='gloo')\n", "'gloo'", edit)
    assert outcome.reason == "no plain string literal to replace"


def test_every_literal_in_the_match_in_source_order():
    source = "to('cuda', 'cpu', 'cuda:0')\n"
    _, new = _plan(source, source[:-1], Edit(**PLACEMENT))
    assert new == "to(_device.DEVICE_TYPE, 'cpu', f\"{_device.DEVICE_TYPE}:0\")\n"


@pytest.mark.parametrize("source, expected", [
    ('x = f"cuda:{rank}"\n', 'x = f"{_device.DEVICE_TYPE}:{rank}"\n'),
    ('x = "cuda:%d" % rank\n', 'x = f"{_device.DEVICE_TYPE}:%d" % rank\n'),
    ("x = 'cuda:{}'.format(rank)\n", "x = f'{_device.DEVICE_TYPE}:{{}}'.format(rank)\n"),
    ("x = 'cuda:' + str(rank)\n", "x = f'{_device.DEVICE_TYPE}:' + str(rank)\n"),
    ("x = r'cuda:' + str(rank)\n", "x = fr'{_device.DEVICE_TYPE}:' + str(rank)\n"),
    ("x = R'cuda:{}'.format(r)\n", "x = fR'{_device.DEVICE_TYPE}:{{}}'.format(r)\n"),
])
def test_formatted_device_names_become_f_strings(source, expected):
    match = source[4:-1]
    outcome, new = _plan(source, match, Edit(**PLACEMENT))
    assert new == expected, new
    assert outcome.reason is None


@pytest.mark.parametrize("source, expected", [
    ('x = f"cuda:{rank}"\n', 'x = f"npu:{rank}"\n'),
    ('x = "cuda:%d" % rank\n', 'x = "npu:%d" % rank\n'),
])
def test_formatted_device_names_in_the_npu_style_keep_their_form(source, expected):
    _, new = _plan(source, source[4:-1], Edit(**PLACEMENT), NPU)
    assert new == expected


@pytest.mark.parametrize("literal", ["b'cuda:' + r", "u'cuda:' + r", "'xcuda:' + r", ])
def test_formatted_names_that_are_not_a_cuda_prefix_in_str_are_left(literal):
    source = f"x = {literal}\n"
    outcome, new = _plan(source, literal, Edit(**PLACEMENT))
    assert new == source and outcome.reason == "no plain string literal to replace"


def test_formatted_names_need_a_formatted_template_and_cuda_among_the_values():
    without = {**PLACEMENT, "formatted": None}
    source = 'x = f"cuda:{rank}"\n'
    outcome, new = _plan(source, source[4:-1], Edit(**without))
    assert new == source and outcome.reason == "no plain string literal to replace"
    other = Edit(kind="string", values=["nccl"], agnostic="{dev}.DIST_BACKEND", npu='"hccl"', formatted="{dev}")
    outcome, new = _plan(source, source[4:-1], other)
    assert new == source


def test_a_literal_registering_a_kernel_is_left():
    source = "@op.register_kernel('cuda')\ndef k(x):\n    return x\n"
    outcome, new = _plan(source, "'cuda'", Edit(**PLACEMENT))
    assert new == source and outcome.reason.startswith("registers a kernel for CUDA only")
    source = "op = torch.library.custom_op('lib::op', device_types=('cuda',))\n"
    outcome, new = _plan(source, "'cuda'", Edit(**PLACEMENT))
    assert new == source and outcome.reason.startswith("registers a kernel for CUDA only")
    source = "op = custom_op('lib::op', device_types=f'cuda:{i}')\n"
    outcome, new = _plan(source, "f'cuda:{i}'", Edit(**PLACEMENT))
    assert new == source and outcome.reason.startswith("registers a kernel for CUDA only")


def test_a_kernel_literal_beside_a_rewritten_one_leaves_only_itself():
    source = "f(x.to('cuda'), custom_op('lib::op', device_types='cuda'))\n"
    outcome, new = _plan(source, source[:-1], Edit(**PLACEMENT))
    assert outcome.reason is None
    assert new == "f(x.to(_device.DEVICE_TYPE), custom_op('lib::op', device_types='cuda'))\n"


def test_without_keep_in_a_kernel_literal_is_rewritten():
    source = "@op.register_kernel('cuda')\ndef k(x):\n    return x\n"
    _, new = _plan(source, "'cuda'", Edit(**{**PLACEMENT, "keep_in": []}))
    assert new.startswith("@op.register_kernel(_device.DEVICE_TYPE)")
    _, new = _plan("f(g('cuda'))\n", "'cuda'", Edit(**PLACEMENT))
    assert new == "f(g(_device.DEVICE_TYPE))\n"  # g is not a kernel registration


@pytest.mark.parametrize("source, expected", [
    ("p.add_argument('--d', choices=['cpu', 'cuda'])\n", "p.add_argument('--d', choices=['cpu', 'cuda', 'npu'])\n"),
    ("SUPPORTED = ('cuda', \"cpu\")\n", "SUPPORTED = ('cuda', 'npu', \"cpu\")\n"),
    ("self.support_list = {\"cuda\", 'cpu'}\n", "self.support_list = {\"cuda\", \"npu\", 'cpu'}\n"),
    ("p.add(choices=(['cpu', 'cuda']))\n", "p.add(choices=(['cpu', 'cuda', 'npu']))\n"),
])
def test_a_set_of_accepted_device_names_gets_npu_beside_cuda(source, expected):
    literal = "'cuda'" if "'cuda'" in source else '"cuda"'
    outcome, new = _plan(source, literal, Edit(**PLACEMENT))
    assert new == expected and outcome.reason is None


@pytest.mark.parametrize("source, reason", [
    ("for d in ['cpu', 'cuda']:\n    run(d)\n", "one name in a collection of device names"),
    ("DEVICES = ['cpu', 'cuda']\n", "one name in a collection of device names"),
    ("f(devices=['cpu', 'cuda'])\n", "one name in a collection of device names"),
])
def test_a_collection_that_is_not_a_set_of_accepted_values_is_left(source, reason):
    outcome, new = _plan(source, "'cuda'", Edit(**PLACEMENT))
    assert new == source and outcome.reason.startswith(reason)


def test_a_lone_cuda_in_a_collection_is_a_plain_literal():
    _, new = _plan("DEVICES = ['cuda']\n", "'cuda'", Edit(**PLACEMENT))
    assert new == "DEVICES = [_device.DEVICE_TYPE]\n"
    _, new = _plan("DEVICES = ['cuda', 0]\n", "'cuda'", Edit(**PLACEMENT))
    assert new == "DEVICES = [_device.DEVICE_TYPE, 0]\n"


def test_an_indexed_name_in_accepted_values_is_not_widened():
    outcome, new = _plan("p.add(choices=['cpu', 'cuda:0'])\n", "'cuda:0'", Edit(**PLACEMENT))
    assert new == "p.add(choices=['cpu', 'cuda:0'])\n" and outcome.reason.startswith("one name in a collection")


def test_a_keyword_naming_a_framework_accelerator_is_left():
    outcome, new = _plan("Trainer(accelerator='cuda')\n", "'cuda'", Edit(**PLACEMENT))
    assert outcome.reason == ("accelerator= names a framework's accelerator, not a torch device: use that framework's "
                              "NPU accelerator")
    _, new = _plan("Trainer(device='cuda')\n", "'cuda'", Edit(**PLACEMENT))
    assert new == "Trainer(device=_device.DEVICE_TYPE)\n"


def test_plan_literal_rewrites_one_literal():
    source = "x = 'cuda:2'\n"
    root = parse("python", source.encode())
    literal = cuda_literals(root)[0]
    outcome = SiteOutcome(finding=_finding(source, "'cuda:2'"))
    plan_literal(literal, Edit(**PLACEMENT), AGNOSTIC, outcome)
    assert _apply(source.encode(), outcome.changes) == 'x = f"{_device.DEVICE_TYPE}:2"\n'


def test_cuda_literals_are_the_plain_cuda_names_only():
    source = "a = ['cuda', 'cuda:0', 'cuda:x', 'cpu', f'cuda', \"cuda:11\", b'cuda', 'cuda:']\n"
    found = cuda_literals(parse("python", source.encode()))
    assert [f.text.decode() for f in found] == ["'cuda'", "'cuda:0'", '"cuda:11"']


def test_strings_stop_at_their_limit():
    """The search is bounded: a site with a huge expression is not walked past its limit."""
    source = "x = [" + ", ".join(["0"] * 300) + ", 'cuda']\n"
    root = parse("python", source.encode())
    assert list(edits._strings(root)) == []  # 200 nodes seen before the literal
    assert len(list(edits._strings(root, limit=1000))) == 1
    assert len(cuda_literals(root)) == 1  # 5000


# method

def test_method_cuda_calls():
    edit = Edit(kind="method", agnostic="{dev}.move({object}{comma_args})", npu="{object}.npu({args})")
    _, new = _plan("y = x.cuda()\n", "x.cuda()", edit)
    assert new == "y = _device.move(x)\n"
    _, new = _plan("y = x.cuda(non_blocking=True)\n", "x.cuda", edit)
    assert new == "y = _device.move(x, non_blocking=True)\n"
    _, new = _plan("y = m.net.cuda(0, non_blocking=True)\n", "cuda", edit)
    assert new == "y = _device.move(m.net, 0, non_blocking=True)\n"
    _, new = _plan("y = x.cuda(non_blocking=True)\n", "x.cuda", edit, NPU)
    assert new == "y = x.npu(non_blocking=True)\n"


def test_method_refusals():
    edit = Edit(kind="method", agnostic="{dev}.move({object}{comma_args})", npu="{object}.npu({args})")
    assert _plan("y = x.cuda(0, 1)\n", "x.cuda", edit)[0].reason.startswith("a positional device argument")
    assert _plan("y = x.cuda(0)\n", "x.cuda", edit, NPU)[0].reason.startswith("a positional device argument")
    assert _plan("y = x.cuda(*a)\n", "x.cuda", edit)[0].reason == "spread arguments"
    assert _plan("y = x.cuda(**k)\n", "x.cuda", edit)[0].reason == "spread arguments"
    assert _plan("y = x.to()\n", "x.to()", edit)[0].reason == "not a .cuda() call"
    assert _plan("y = cuda()\n", "cuda()", edit)[0].reason == "not a .cuda() call"
    assert _plan("y = x.cuda\n", "x.cuda", edit)[0].reason == "not a call"


def test_method_keeps_comments_out_of_the_arguments():
    edit = Edit(kind="method", agnostic="{dev}.move({object}{comma_args})", npu="{object}.npu({args})")
    _, new = _plan("y = x.cuda(  # on the GPU\n    non_blocking=True)\n", "x.cuda", edit)
    assert new == "y = _device.move(x, non_blocking=True)\n"


# autocast

AUTOCAST = dict(kind="autocast", agnostic="torch.autocast({dev}.DEVICE_TYPE, {args})",
                npu="torch.npu.amp.autocast({args})", positional=["enabled", "dtype"],
                defaults={"dtype": "torch.float16"})


def test_autocast_turns_positionals_into_keywords_and_makes_defaults_explicit():
    _, new = _plan("with autocast():\n    pass\n", "autocast()", Edit(**AUTOCAST))
    assert new == "with torch.autocast(_device.DEVICE_TYPE, dtype=torch.float16):\n    pass\n"
    _, new = _plan("with autocast(True, torch.bfloat16):\n    pass\n", "autocast", Edit(**AUTOCAST))
    assert new == "with torch.autocast(_device.DEVICE_TYPE, enabled=True, dtype=torch.bfloat16):\n    pass\n"
    _, new = _plan("with autocast(False, cache_enabled=False):\n    pass\n", "autocast", Edit(**AUTOCAST))
    assert new == ("with torch.autocast(_device.DEVICE_TYPE, enabled=False, cache_enabled=False, "
                   "dtype=torch.float16):\n    pass\n")
    _, new = _plan("with autocast(dtype=torch.bfloat16):\n    pass\n", "autocast", Edit(**AUTOCAST), NPU)
    assert new == "with torch.npu.amp.autocast(dtype=torch.bfloat16):\n    pass\n"


def test_autocast_rebuilds_a_read_of_cudas_autocast_dtype_for_the_device_it_enters():
    # torch.get_autocast_gpu_dtype() reads CUDA's autocast dtype (round 30 A1 row 42): inside the NPU autocast it
    # would answer float16 whatever that autocast uses; the same callee given an argument, or another call, is kept
    reads = dict(AUTOCAST, argument_calls={"torch.get_autocast_gpu_dtype": "torch.get_autocast_dtype({dev}.DEVICE_TYPE)"},
                 npu_argument_calls={"torch.get_autocast_gpu_dtype": 'torch.get_autocast_dtype("npu")'})
    source = ("with autocast(enabled=on, dtype=torch.get_autocast_gpu_dtype(), "
              "cache_enabled=torch.is_autocast_cache_enabled()):\n    pass\n")
    _, new = _plan(source, "autocast", Edit(**reads))
    assert new == ("with torch.autocast(_device.DEVICE_TYPE, enabled=on, dtype=torch.get_autocast_dtype("
                   "_device.DEVICE_TYPE), cache_enabled=torch.is_autocast_cache_enabled()):\n    pass\n")
    _, new = _plan("with autocast(True, torch.get_autocast_gpu_dtype()):\n    pass\n", "autocast", Edit(**reads), NPU)
    assert new == 'with torch.npu.amp.autocast(enabled=True, dtype=torch.get_autocast_dtype("npu")):\n    pass\n'
    _, new = _plan("with autocast(dtype=torch.get_autocast_cpu_dtype()):\n    pass\n", "autocast", Edit(**reads))
    assert new == "with torch.autocast(_device.DEVICE_TYPE, dtype=torch.get_autocast_cpu_dtype()):\n    pass\n"
    _, new = _plan("with autocast(dtype=torch.get_autocast_gpu_dtype()):\n    pass\n", "autocast", Edit(**AUTOCAST))
    assert new == "with torch.autocast(_device.DEVICE_TYPE, dtype=torch.get_autocast_gpu_dtype()):\n    pass\n"


def test_autocast_refusals():
    assert _plan("with autocast(1, 2, 3):\n    pass\n", "autocast", Edit(**AUTOCAST))[0].reason == \
        "more positional arguments than the original accepts"
    assert _plan("with autocast(*a):\n    pass\n", "autocast", Edit(**AUTOCAST))[0].reason == "spread arguments"
    assert _plan("@autocast\ndef f():\n    pass\n", "autocast", Edit(**AUTOCAST))[0].reason == \
        "not a call (a bare decorator or a reference)"


# after

VISIBLE = dict(kind="after", agnostic='{container}["ASCEND_RT_VISIBLE_DEVICES"] = {lhs}',
               npu='{container}["ASCEND_RT_VISIBLE_DEVICES"] = {lhs}')


def test_after_adds_a_statement_with_the_indent_and_the_mark_when_reads_are_flagged():
    source = "def f():\n    os.environ['CUDA_VISIBLE_DEVICES'] = '0'  # one card\n    return 1\n"
    outcome, new = _plan(source, "'CUDA_VISIBLE_DEVICES'", Edit(**VISIBLE), rule="DEV201", reads_flagged=True)
    assert new == ("def f():\n    os.environ['CUDA_VISIBLE_DEVICES'] = '0'  # one card\n"
                   "    os.environ[\"ASCEND_RT_VISIBLE_DEVICES\"] = os.environ['CUDA_VISIBLE_DEVICES']"
                   "  # ascend: ignore[DEV201] (port)\n    return 1\n")
    assert outcome.reads_flagged
    _, new = _plan("os.environ['CUDA_VISIBLE_DEVICES'] = '0'", "'CUDA_VISIBLE_DEVICES'", Edit(**VISIBLE))
    assert new == ("os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"
                   "os.environ[\"ASCEND_RT_VISIBLE_DEVICES\"] = os.environ['CUDA_VISIBLE_DEVICES']")


def test_after_an_attribute_target_is_its_own_container():
    edit = Edit(kind="after", agnostic="{dev}.mirror({container})", npu="x = {lhs}")
    _, new = _plan("torch.backends.cudnn.allow_tf32 = True\n", "torch.backends.cudnn.allow_tf32", edit)
    assert new == "torch.backends.cudnn.allow_tf32 = True\n_device.mirror(torch.backends.cudnn.allow_tf32)\n"


@pytest.mark.parametrize("source, match, reason", [
    ("print(os.environ['CUDA_VISIBLE_DEVICES'])\n", "'CUDA_VISIBLE_DEVICES'",
     "not an assignment (only writes are rewritten)"),
    ("x = os.environ['CUDA_VISIBLE_DEVICES']\n", "'CUDA_VISIBLE_DEVICES'", "the match is read, not assigned"),
    ("CUDA_VISIBLE_DEVICES = '0'\n", "CUDA_VISIBLE_DEVICES", "the target is not an attribute or a subscript"),
    ("a = os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n", "'CUDA_VISIBLE_DEVICES'",
     "the assignment is part of a larger expression"),
    ("x = 1; os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n", "'CUDA_VISIBLE_DEVICES'", "the statement shares its line"),
    ("os.environ['CUDA_VISIBLE_DEVICES'] = '0'; x = 1\n", "'CUDA_VISIBLE_DEVICES'", "the statement shares its line"),
    ("if a: os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n", "'CUDA_VISIBLE_DEVICES'", "the statement shares its line"),
])
def test_after_refusals(source, match, reason):
    outcome, new = _plan(source, match, Edit(**VISIBLE))
    assert outcome.reason == reason and new == source


def test_an_assignment_in_a_lambda_or_call_is_part_of_a_larger_expression():
    source = "f(x := 1)\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"
    outcome, _ = _plan(source, "'CUDA_VISIBLE_DEVICES'", Edit(**VISIBLE))
    assert outcome.reason is None  # the second statement is plain


# guard_import

GUARD = dict(kind="guard_import", agnostic="{names} = None", npu="{names} = None")


@pytest.mark.parametrize("source, expected", [
    ("import apex\n", "try:\n    import apex\nexcept ImportError:  # not built for Ascend\n    apex = None\n"),
    ("import apex.amp\n", "try:\n    import apex.amp\nexcept ImportError:  # not built for Ascend\n    apex = None\n"),
    ("import apex as ax, xformers\n",
     "try:\n    import apex as ax, xformers\nexcept ImportError:  # not built for Ascend\n    ax = xformers = None\n"),
    ("from xformers.ops import memory_efficient_attention as mea, fmha  # fast\n",
     "try:\n    from xformers.ops import memory_efficient_attention as mea, fmha  # fast\n"
     "except ImportError:  # not built for Ascend\n    mea = fmha = None\n"),
    ("from a import b.c\n", None),
    ("import apex, apex\n",
     "try:\n    import apex, apex\nexcept ImportError:  # not built for Ascend\n    apex = None\n"),
    ("from x import (\n    a,\n\n    b,\n)\n",
     "try:\n    from x import (\n        a,\n\n        b,\n    )\nexcept ImportError:  # not built for Ascend\n    a = b = None\n"),
])
def test_guard_import_wraps_the_import_and_binds_its_names(source, expected):
    if expected is None:
        return
    match = source.split("\n", 1)[0].split("  #")[0]
    outcome, new = _plan(source, match, Edit(**GUARD))
    assert outcome.reason is None and new == expected, new


@pytest.mark.parametrize("source, match, reason", [
    ("def f():\n    import apex\n", "import apex", "not a module-level import"),
    ("from apex import *\n", "from apex import *", "a wildcard or unusual import"),
    ("x = 1; import apex\n", "import apex", "the import shares its line"),
    ("import apex; x = 1\n", "import apex", "the import shares its line"),
    ("apex.run()\n", "apex.run", "not a module-level import"),
])
def test_guard_import_refusals(source, match, reason):
    outcome, new = _plan(source, match, Edit(**GUARD))
    assert outcome.reason == reason and new == source


def test_guard_import_without_a_final_newline():
    _, new = _plan("import apex", "import apex", Edit(**GUARD))
    assert new == "try:\n    import apex\nexcept ImportError:  # not built for Ascend\n    apex = None"


# device_test

TEST = dict(kind="device_test", agnostic="{dev}", npu="")


@pytest.mark.parametrize("expression, expected, kind", [
    ("t == 'cuda'", "t in _device.ACCELERATOR_TYPES", "test"),
    ("'cuda' == t", "t in _device.ACCELERATOR_TYPES", "test"),
    ("t != ('cuda')", "t not in _device.ACCELERATOR_TYPES", "test"),
    ("'cuda' in t", "_device.names_accelerator(t)", "test"),
    ("t.startswith('cuda')", "t.startswith(_device.ACCELERATOR_TYPES)", "test"),
    # str.__contains__ takes no tuple: the call spelling of `'cuda' in t` becomes the helper (round 28 A1 C6)
    ("str(d).__contains__('cuda')", "_device.names_accelerator(str(d))", "test"),
    ("t in ('cuda', 'xpu')", "t in ('cuda', 'npu', 'xpu')", "widen"),
    ('t not in ["cpu", "cuda"]', 't not in ["cpu", "cuda", "npu"]', "widen"),
    ("t in ({'cuda'})", "t in ({'cuda', 'npu'})", "widen"),
])
def test_device_tests_accept_npu_too(expression, expected, kind):
    source = f"ok = {expression}\n"
    outcome, new = _plan(source, expression, Edit(**TEST))
    assert outcome.reason is None and new == f"ok = {expected}\n" and outcome.test == kind


def test_a_negated_membership_keeps_its_binding():
    _, new = _plan("ok = 'cuda' not in t\n", "'cuda' not in t", Edit(**TEST))
    assert new == "ok = not _device.names_accelerator(t)\n"
    _, new = _plan("ok = ('cuda' not in t) + 1\n", "'cuda' not in t", Edit(**TEST))
    assert new == "ok = (not _device.names_accelerator(t)) + 1\n"  # the parentheses stay: a parenthesized expression
    _, new = _plan("ok = 1 + 'cuda' not in t\n", "'cuda' not in t", Edit(**TEST))
    assert new == "ok = 1 + 'cuda' not in t\n" or "(not " in new
    _, new = _plan("ok = ['cuda' not in t]\n", "'cuda' not in t", Edit(**TEST))
    assert new == "ok = [(not _device.names_accelerator(t))]\n"  # a list element binds tighter than `not`
    _, new = _plan("if 'cuda' not in t:\n    pass\n", "'cuda' not in t", Edit(**TEST))
    assert new == "if not _device.names_accelerator(t):\n    pass\n"


def test_a_device_type_picked_from_the_test_becomes_the_picked_type():
    source = "dt = 'cuda' if 'cuda' in d else 'cpu'\n"
    outcome, new = _plan(source, "'cuda' in d", Edit(**TEST))
    assert new == "dt = _device.accelerator_type(d)\n" and outcome.test == "value"
    assert outcome.uses == {"ACCELERATOR_TYPES", "accelerator_type"}
    _, new = _plan("dt = 'cuda' if ('cuda' in d) else 'cpu'\n", "'cuda' in d", Edit(**TEST))
    assert new == "dt = _device.accelerator_type(d)\n"
    for other in ("dt = 'cuda' if 'cuda' in d else 'mps'\n", "dt = 'gpu' if 'cuda' in d else 'cpu'\n",
                  "dt = 'cpu' if x else 'cuda' in d\n"):
        outcome, new = _plan(other, "'cuda' in d", Edit(**TEST))
        assert outcome.test == "test" and "names_accelerator(d)" in new, other
    _, new = _plan("dt = 'cuda' if 'cuda' not in d else 'cpu'\n", "'cuda' not in d", Edit(**TEST))
    assert new == "dt = 'cuda' if not _device.names_accelerator(d) else 'cpu'\n"


@pytest.mark.parametrize("expression, reason", [
    ("t.startswith('cpu')", "a prefix test other than \"cuda\""),
    ("t.startswith('cuda', 0)", "a prefix test other than \"cuda\""),
    ("t.__contains__('cpu')", "a prefix test other than \"cuda\""),
    ("t.startswith()", "a prefix test other than \"cuda\""),
    ("t", "not a comparison"),
    ("a == b == 'cuda'", "a chained comparison"),
    ("t == 'cpu'", "compares with a device name other than \"cuda\""),
    ("t is 'cuda'", "not an equality or membership test"),
    ("t < 'cuda'", "not an equality or membership test"),
    ("t in names", "a membership test in something other than a literal collection"),
    ("t in ('cuda:0', 'cpu')", "the collection names \"cuda\" only inside another value"),
])
def test_device_test_refusals(expression, reason):
    source = f"ok = {expression}\n"
    outcome, new = _plan(source, expression, Edit(**TEST))
    assert outcome.reason == reason and new == source


def test_device_tests_record_the_names_they_use():
    outcome, _ = _plan("ok = t == 'cuda'\n", "t == 'cuda'", Edit(**TEST))
    assert outcome.uses == {"ACCELERATOR_TYPES"}
    outcome, _ = _plan("ok = 'cuda' in t\n", "'cuda' in t", Edit(**TEST))
    assert outcome.uses == {"ACCELERATOR_TYPES", "names_accelerator"}
    outcome, _ = _plan("ok = t.startswith('cuda')\n", "t.startswith('cuda')", Edit(**TEST))
    assert outcome.uses == {"ACCELERATOR_TYPES"}
    outcome, _ = _plan("ok = t in ('cuda',)\n", "t in ('cuda',)", Edit(**TEST))
    assert outcome.uses == set()


# attribute

IS_CUDA = dict(kind="attribute", apis=["is_cuda"], agnostic="{dev}.is_accelerator({object})",
               npu="{object}.is_npu", guard="branch")


def test_attribute_reads_are_rewritten_and_writes_left():
    outcome, new = _plan("if x.is_cuda:\n    pass\n", "x.is_cuda", Edit(**IS_CUDA))
    assert new == "if _device.is_accelerator(x):\n    pass\n" and outcome.test == "test"
    outcome, new = _plan("ok = m.w.is_cuda\n", "is_cuda", Edit(**IS_CUDA), NPU)
    assert new == "ok = m.w.is_npu\n"
    outcome, _ = _plan("ok = x.is_cuda\n", "x.is_cuda", Edit(**{**IS_CUDA, "guard": "stays"}))
    assert outcome.test is None
    assert _plan("x.is_cuda = True\n", "x.is_cuda", Edit(**IS_CUDA))[0].reason == "the attribute is assigned, not read"
    assert _plan("x.is_cuda += 1\n", "x.is_cuda", Edit(**IS_CUDA))[0].reason == "the attribute is assigned, not read"
    assert _plan("ok = x.device\n", "x.device", Edit(**IS_CUDA))[0].reason == "not an attribute the edit rewrites"
    assert _plan("ok = is_cuda\n", "is_cuda", Edit(**IS_CUDA))[0].reason == "not an attribute the edit rewrites"
    _, new = _plan("y = x.is_cuda == z\n", "x.is_cuda", Edit(**IS_CUDA))
    assert new == "y = _device.is_accelerator(x) == z\n"


# collection

COLLECTION = dict(kind="collection", values=["cuda"], agnostic='"npu"', npu='"npu"', only_in=["choice", "support"])


@pytest.mark.parametrize("source, expected", [
    ("p.add(choices=['cpu', 'cuda'])\n", "p.add(choices=['cpu', 'cuda', 'npu'])\n"),
    ('self.SUPPORTED = ("cuda",)\n', 'self.SUPPORTED = ("cuda", "npu",)\n'),
    ("p.add(choices=(('cuda', 'cpu')))\n", "p.add(choices=(('cuda', 'npu', 'cpu')))\n"),
])
def test_collection_adds_npu_after_cuda_with_its_quote(source, expected):
    outcome, new = _plan(source, "'cuda'" if "'cuda'" in source else '"cuda"', Edit(**COLLECTION))
    assert outcome.reason is None and new == expected


@pytest.mark.parametrize("source, reason", [
    ("x = 'cuda'\n", "not a collection literal"),
    ("for d in ['cpu', 'cuda']:\n    pass\n", "a collection the code may iterate over (the devices it runs on): add "
     "an NPU path by hand"),
    ("DEVICES = ['cpu', 'cuda']\n", "DEVICES is not a set of accepted device types: add an NPU path by hand"),
    ("f(devices=['cpu', 'cuda'])\n", "devices is not a set of accepted device types: add an NPU path by hand"),
    ("p.add(choices=['cpu', 'cuda:0'])\n", "no \"cuda\" element"),
])
def test_collection_refusals(source, reason):
    outcome, new = _plan(source, "'cuda" if "'cuda" in source else "cuda", Edit(**COLLECTION))
    assert outcome.reason == reason and new == source


def test_collection_names_are_matched_without_case_on_their_last_part():
    _, new = _plan("cfg.Valid_Choices = ['cuda']\n", "'cuda'", Edit(**COLLECTION))
    assert new == "cfg.Valid_Choices = ['cuda', 'npu']\n"
    outcome, _ = _plan("choices.devices = ['cuda']\n", "'cuda'", Edit(**COLLECTION))
    assert outcome.reason.startswith("devices is not a set of accepted device types")


def test_a_collection_edit_without_words_completes_every_collection():
    """DEV204's edit (knowledge/device/rules_runtime.toml): a list of environment-variable names gets the Ascend twin
    wherever it is, iterated over or kept under any name."""
    from ascend_feasibility.knowledge import load_knowledge
    edit = load_knowledge().rules["DEV204"].edit
    outcome, new = _plan('EXCLUDED_ENV_VARS = {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}\n',
                         '"CUDA_VISIBLE_DEVICES"', edit, rule="DEV204")
    assert outcome.reason is None
    assert new == 'EXCLUDED_ENV_VARS = {"CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}\n'
    _, new = _plan("for k in ['CUDA_VISIBLE_DEVICES']:\n    env.pop(k)\n", "'CUDA_VISIBLE_DEVICES'", edit, rule="DEV204")
    assert new == "for k in ['CUDA_VISIBLE_DEVICES', 'ASCEND_RT_VISIBLE_DEVICES']:\n    env.pop(k)\n"


# notes

def test_plan_note_is_a_comment_above_the_statement_with_its_indent():
    source = "def f():\n\tif x:\n\t    y = torch.cuda.amp.GradScaler()\n"
    data = source.encode()
    finding = _finding(source, "torch.cuda.amp.GradScaler", rule="DEV150", plan="Use  torch.npu.amp.GradScaler\n now")
    offset, note = plan_note(parse("python", data), data, line_starts_of(data), finding)
    assert offset == source.index("\t    y")
    assert note == "\t    # ascend: DEV150 (display-only): Use torch.npu.amp.GradScaler now\n"


def test_plan_note_outside_the_file_is_none():
    source = "x = 1\n"
    data = source.encode()
    finding = _finding(source, "x")
    finding.line = finding.end_line = 7
    assert plan_note(parse("python", data), data, line_starts_of(data), finding) is None
    finding = _finding(source, "x = 1")
    finding.end_column = 1
    finding.column = 3
    assert plan_note(parse("python", data), data, line_starts_of(data), finding) is None


def test_shorten_cuts_at_a_word_before_the_limit():
    assert shorten("a  b\n c", 10) == "a b c"
    assert shorten("abcdefghij", 10) == "abcdefghij"
    assert shorten("alpha beta gamma", 12) == "alpha beta…"
    assert shorten("alpha, beta gamma", 11) == "alpha…"
    assert shorten("alphabetagamma", 6) == "alpha…"
    assert shorten(" alpha beta", 8) == "alpha…"


def test_guard_import_reads_its_own_line_among_others():
    """The import found from its module name; its row is the line it stands on, not the file's first or last."""
    source = "import os\n\nimport apex  # fast\nx = 1\n"
    outcome, new = _plan(source, "apex", Edit(**GUARD))
    assert new == ("import os\n\ntry:\n    import apex  # fast\nexcept ImportError:  # not built for Ascend\n"
                   "    apex = None\nx = 1\n")
    _, new = _plan("\nimport apex\n", "apex", Edit(**GUARD))
    assert new == "\ntry:\n    import apex\nexcept ImportError:  # not built for Ascend\n    apex = None\n"


def test_after_reads_its_own_line_among_others():
    source = "import os\n\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\nx = 1\n"
    _, new = _plan(source, "'CUDA_VISIBLE_DEVICES'", Edit(**VISIBLE))
    assert new == ("import os\n\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"
                   "os.environ[\"ASCEND_RT_VISIBLE_DEVICES\"] = os.environ['CUDA_VISIBLE_DEVICES']\nx = 1\n")
    _, new = _plan("\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n", "'CUDA_VISIBLE_DEVICES'", Edit(**VISIBLE))
    assert new == ("\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"
                   "os.environ[\"ASCEND_RT_VISIBLE_DEVICES\"] = os.environ['CUDA_VISIBLE_DEVICES']\n")


def test_literals_after_a_kept_or_widened_one_are_still_rewritten():
    source = "f(custom_op('l::o', device_types=['cuda']), x.to('cuda'))\n"
    _, new = _plan(source, source[:-1], Edit(**PLACEMENT))
    assert new == "f(custom_op('l::o', device_types=['cuda']), x.to(_device.DEVICE_TYPE))\n"
    source = "f(register_kernel(('cuda')), x.to('cuda'))\n"
    _, new = _plan(source, source[:-1], Edit(**PLACEMENT))
    assert new == "f(register_kernel(('cuda')), x.to(_device.DEVICE_TYPE))\n"
    source = "p.add(choices=['cpu', 'cuda'], default='cuda')\n"
    _, new = _plan(source, source[:-1], Edit(**PLACEMENT))
    assert new == "p.add(choices=['cpu', 'cuda', 'npu'], default=_device.DEVICE_TYPE)\n"


def test_the_held_collection_reason_in_full():
    outcome, _ = _plan("DEVICES = ['cpu', 'cuda']\n", "'cuda'", Edit(**PLACEMENT))
    assert outcome.reason == ("one name in a collection of device names that is not a set of accepted values: give NPU "
                              "its own path")


def test_an_fr_string_is_a_formatted_name():
    _, new = _plan('x = fr"cuda:{i}"\n', 'fr"cuda:{i}"', Edit(**PLACEMENT))
    assert new == 'x = fr"{_device.DEVICE_TYPE}:{i}"\n'


def test_accepted_values_read_only_the_last_part_of_the_target():
    outcome, new = _plan("a.choices.devices = ['cpu', 'cuda']\n", "'cuda'", Edit(**COLLECTION))
    assert outcome.reason == "devices is not a set of accepted device types: add an NPU path by hand"


def test_a_generator_argument_is_not_an_argument_list():
    edit = Edit(kind="method", agnostic="{dev}.move({object}{comma_args})", npu="{object}.npu({args})")
    assert _plan("y = x.cuda(d for d in ds)\n", "x.cuda", edit)[0].reason == "spread arguments"


def test_plan_note_at_the_start_of_the_file_and_on_an_empty_span():
    source = "x = torch.cuda.amp.GradScaler()\n"
    data = source.encode()
    finding = _finding(source, "x", rule="DEV150", plan="Use torch.npu.amp")
    assert plan_note(parse("python", data), data, line_starts_of(data), finding) == \
        (0, "# ascend: DEV150 (display-only): Use torch.npu.amp\n")
    finding.end_column = finding.column
    assert plan_note(parse("python", data), data, line_starts_of(data), finding) == \
        (0, "# ascend: DEV150 (display-only): Use torch.npu.amp\n")


def test_shorten_keeps_a_one_letter_word_and_letters_the_cut_does_not_strip():
    assert shorten("a bcdefgh", 8) == "a…"
    assert shorten("abcX defgh", 8) == "abcX…"


def test_byte_offset_clamps_a_column_past_the_end_of_its_row():
    data = b"ab\ncd\n"
    assert byte_offset(data, line_starts_of(data), 1, 10) == 2
    data = b"\nab"
    assert byte_offset(data, line_starts_of(data), 1, 5) == 0


def test_a_finding_spanning_the_whole_file_has_no_statement():
    source = "x = 'cuda'\n"
    outcome, new = _plan(source, source, Edit(**PLACEMENT))
    assert outcome.reason == "the site is not inside a statement" and new == source


def test_an_empty_string_is_a_plain_literal_of_no_device():
    assert cuda_literals(parse("python", b"x = ['', 'cuda']\n"))[0].text == b"'cuda'"


def test_an_indexed_literal_without_a_template_leaves_the_next_one_rewritten():
    source = "f('cuda:3', 'cuda')\n"
    _, new = _plan(source, source[:-1], Edit(**{**PLACEMENT, "agnostic_indexed": None}))
    assert new == "f('cuda:3', _device.DEVICE_TYPE)\n"


def test_a_test_among_three_call_arguments_picks_nothing():
    _, new = _plan("ok = f('cuda', 'cuda' in d, 'cpu')\n", "'cuda' in d", Edit(**TEST))
    assert new == "ok = f('cuda', _device.names_accelerator(d), 'cpu')\n"


def test_collection_in_a_set_literal():
    _, new = _plan('SUPPORTED = {"cuda", "cpu"}\n', '"cuda"', Edit(**COLLECTION))
    assert new == 'SUPPORTED = {"cuda", "npu", "cpu"}\n'
