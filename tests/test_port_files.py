"""analyzer/port/files.py without an analysis: where imports go, which imports a file has, how the changes and the
`# ascend:` comment lines are put together, and the parse-and-compile check, as its docstrings state them."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.port.edits import Change
from ascend_feasibility.analyzer.port.files import (
    after_torch_import,
    binds_torch,
    check,
    compose,
    has_relative_import,
    identifiers,
    import_point,
    imports_torch_npu,
    past_path_edits,
)
from ascend_feasibility.analyzer.reading.parsing import parse


def _root(source: str):
    return parse("python", source.encode("utf-8"))


def test_identifiers_are_every_name_in_the_file_up_to_the_limit():
    root = _root("import os\ndef f(a):\n    return a.b + c\n")
    assert identifiers(root) == {"os", "f", "a", "b", "c"}
    assert identifiers(root, limit=0) == set()
    assert identifiers(root, limit=1) == set()  # the module node itself is no identifier


@pytest.mark.parametrize("source, expected", [
    ("import torch\n", True),
    ("import torch.nn\n", True),
    ("import os, torch\n", True),
    ("import numpy as torch\n", True),
    ("x = 1\nimport torch\n", True),
    ("import torch as th\n", False),
    ("import torchvision\n", False),
    ("from torch import nn\n", False),
    ("def f():\n    import torch\n", False),
    ("x = 1\n", False),
])
def test_binds_torch_reads_module_level_imports_only(source, expected):
    assert binds_torch(_root(source)) is expected


@pytest.mark.parametrize("source, expected", [
    ("import torch_npu\n", True),
    ("import torch_npu.contrib\n", True),
    ("import torch_npu as tn\n", True),
    ("import torch_npu\tas tn\n", True),
    ("import torch_npu\nimport os\n", True),
    ("from torch_npu.contrib import transfer_to_npu\n", True),
    ("def f():\n    if x:\n        import torch_npu\n", True),
    ("from x import torch_npu\n", True),
    ("import torch\n", False),
    ("import torch_npux\n", False),
    ("from torch import npu\n", False),
    ("x = 'import torch_npu'\n", False),
])
def test_imports_torch_npu_anywhere(source, expected):
    assert imports_torch_npu(_root(source)) is expected


def test_imports_torch_npu_stops_at_its_limit():
    root = _root("import torch_npu\n" + "x = 1\n" * 50)  # walked from the last statement
    assert imports_torch_npu(root, limit=10) is False
    assert imports_torch_npu(root) is True


@pytest.mark.parametrize("source, expected", [
    ("from . import a\n", True),
    ("from .x import a\n", True),
    ("from x import a\n", False),
    ("import x\n", False),
    ("def f():\n    from . import a\n", False),
])
def test_has_relative_import_at_module_level(source, expected):
    assert has_relative_import(_root(source)) is expected


@pytest.mark.parametrize("source, before", [
    ("import os\nx = 1\n", "x = 1"),
    ("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n", "x = 1"),
    ('"""Doc."""\nfrom __future__ import annotations\nimport os\nfrom a import b\n\nx = 1\n', "\nx = 1"),
    ("x = 1\nimport os\n", "x = 1"),
    ('x = 1\n"""not a docstring"""\n', "x = 1"),
    ("import os\n# a comment\nimport sys\nx = 1\n", "x = 1"),
    ("import os\n# a comment\nx = 1\n", "# a comment"),
    ('import os\n"""not a docstring"""\n', '"""not'),
    ("import os", None),
    ("", None),
])
def test_import_point_is_after_the_leading_imports(source, before):
    data = source.encode()
    point = import_point(_root(source), data)
    if before is None:
        assert point == len(data)
    else:
        assert point == data.index(before.encode())


def test_import_point_after_a_comment_that_follows_code_is_not_moved():
    source = "x = 1\n# later\n"
    assert import_point(_root(source), source.encode()) == 0


@pytest.mark.parametrize("source, before", [
    # round 29 port W: the file adds the root to sys.path and imports its project after it; the device module's
    # import goes after that run, where the root is on sys.path
    ("import os\nimport sys\nsys.path.append('./')\nimport torch\nfrom utils.x import y\n\nx = 1\n", "\nx = 1"),
    ("import sys\nsys.path.insert(0, '..')\nfrom pkg import a\nROOT = 1\n", "ROOT = 1"),
    ("import site\nsite.addsitedir('lib')\nimport m\nx = 1\n", "x = 1"),
    ("import sys, os\nROOT = os.path.dirname(__file__)\nif ROOT not in sys.path:\n    sys.path.append(ROOT)\n"
     "from pkg import a\nx = 1\n", "x = 1"),
    # a rewritten function body defined before the edit runs later, when the import is made
    ("import sys\ndef f():\n    return 1\nsys.path.append('./')\nimport m\nx = 1\n", "x = 1"),
])
def test_port_imports_go_after_the_files_sys_path_edits(source, before):
    data = source.encode()
    changes = [data.index(b"return")] if "return" in source else []
    assert past_path_edits(_root(source), data, import_point(_root(source), data), changes) == data.index(before.encode())


@pytest.mark.parametrize("source, before", [
    ("import sys\nimport torch\nx = 1\n", "x = 1"),  # no edit
    ("import sys\nsys.path.append('./')\nx = 1\n", "sys.path"),  # no import after the edit
    ("import sys\nprint(sys.path)\nimport m\n", "print"),  # not an edit
    ("import sys\nxs = []\nxs.append(1)\nimport m\n", "xs = []"),  # another list's append
    ("import sys\nif ok:\n    sys.path.append('a')\nelse:\n    run()\nimport m\n", "if ok"),  # an if doing more
    # a statement rewritten at load before the edit would use the import before it is made: the point stays
    ("import torch\ndevice = torch.device('cuda')\nimport sys\nsys.path.append('./')\nimport m\n", "device ="),
])
def test_port_imports_stay_at_the_leading_run_without_a_path_edit_before_imports(source, before):
    data = source.encode()
    changes = [data.index(b"torch.device('cuda')")] if "torch.device" in source else []
    assert past_path_edits(_root(source), data, import_point(_root(source), data), changes) == data.index(before.encode())


def test_import_point_with_a_shebang_and_no_newline():
    source = "#!/usr/bin/env python"
    assert import_point(_root(source), source.encode()) == len(source)


@pytest.mark.parametrize("source, before", [
    ("import os\nimport torch\nx = 1\n", "x = 1"),
    ("import torch, os\nimport torch\n", "import torch\n"),
    ("import torch.nn\nimport torch\ny = 2\n", "y = 2"),
    ("import torch as th\n", None),
    ("import torch.nn\n", None),
    ("def f():\n    import torch\n", None),
])
def test_after_torch_import_is_the_line_after_the_first_plain_import_torch(source, before):
    data = source.encode()
    point = after_torch_import(_root(source), data)
    if before is None:
        assert point is None
    else:
        assert point == data.index(before.encode(), 1 if source.startswith("import torch, os") else 0)


def test_after_torch_import_at_the_end_of_a_file_without_a_newline():
    assert after_torch_import(_root("import torch"), b"import torch") == len("import torch")


def test_compose_applies_changes_and_puts_one_comment_per_line_with_its_indent():
    data = b"def f():\n    x = a + b\n"
    at = data.index(b"    x")
    a, b = data.index(b"a +"), data.index(b"b\n")
    new, dropped = compose(data, [Change(b, b + 1, "B", "DEV002", at), Change(a, a + 1, "A", "DEV001", at)], [])
    assert new == "def f():\n    # ascend: DEV001, DEV002\n    x = A + B\n" and dropped == []


def test_compose_marks_a_site_completed_by_an_added_statement():
    data = b"x = 1\n"
    new, _ = compose(data, [Change(5, 5, "\ny = x", "ignore[PRC010]", 0), Change(4, 5, "2", "DEV001", 0)], [])
    assert new == "# ascend: ignore[PRC010] (port: completed by the statement after it)\n# ascend: DEV001\nx = 2\ny = x\n"


def test_compose_drops_overlapping_changes_and_merges_identical_ones():
    data = b"x = 'cuda'\n"
    same = [Change(4, 10, "D", "DEV001", 0), Change(4, 10, "D", "DEV003", 0)]
    new, dropped = compose(data, same, [])
    assert new == "# ascend: DEV001, DEV003\nx = D\n" and dropped == []
    overlapping = [Change(4, 10, "D", "DEV001", 0), Change(5, 9, "E", "DEV003", 0), Change(0, 1, "y", "DEV009", 0)]
    new, dropped = compose(data, overlapping, [])
    assert new == "# ascend: DEV001, DEV009\ny = D\n" and dropped == [overlapping[1]]
    touching = [Change(4, 5, "(", "DEV001", 0), Change(5, 6, "C", "DEV003", 0)]
    new, dropped = compose(data, touching, [])
    assert new == "# ascend: DEV001, DEV003\nx = (Cuda'\n" and dropped == []
    insertions = [Change(10, 10, ", 'npu'", "DEV001", 0), Change(4, 10, "D", "DEV003", 0)]
    new, dropped = compose(data, insertions, [])
    assert dropped == [] and new == "# ascend: DEV001, DEV003\nx = D, 'npu'\n"


def test_compose_puts_headers_and_comments_before_a_replacement_at_the_same_offset():
    data = b"x = 1"
    new, _ = compose(data, [Change(0, 1, "y", "DEV001", 0)], [(0, "import a\n")])
    assert new == "import a\n# ascend: DEV001\ny = 1"
    new, _ = compose(b"\tx = 1\n", [], [(0, "import a\n"), (7, "z\n")])
    assert new == "import a\n\tx = 1\nz\n"


def test_compose_comment_on_a_last_line_without_newline_keeps_its_tabs():
    data = b"if a:\n\t x = 1"
    at = data.index(b"\t x")
    new, _ = compose(data, [Change(len(data) - 1, len(data), "2", "DEV001", at)], [])
    assert new == "if a:\n\t # ascend: DEV001\n\t x = 2"


@pytest.mark.parametrize("source, problem", [
    ("x = 1\n", None),
    ("x = (\n", "the rewrite does not parse"),
    ("def f():\n    return\n    yield from\n", "the rewrite does not parse"),
    ("return 1\n", "the rewrite does not compile: SyntaxError"),
    ("def f(a, a):\n    pass\n", "the rewrite does not compile: SyntaxError"),
])
def test_check_parses_then_compiles(source, problem):
    assert check("run.py", source) == problem


def test_the_walks_stop_at_their_budget_exactly():
    root = _root("a")  # module, expression_statement, identifier
    assert identifiers(root, limit=3) == {"a"}
    assert identifiers(root, limit=2) == set()
    root = _root("import torch_npu")  # module, import_statement
    assert imports_torch_npu(root, limit=2) is True
    assert imports_torch_npu(root, limit=1) is False


def test_compose_keeps_changes_after_a_merged_or_dropped_one():
    data = b"x = 'cuda'; y = 1\n"
    changes = [Change(4, 10, "D", "DEV001", 0), Change(4, 10, "D", "DEV003", 0), Change(16, 17, "2", "DEV009", 0)]
    new, _ = compose(data, changes, [])
    assert new == "# ascend: DEV001, DEV003, DEV009\nx = D; y = 2\n"
    changes = [Change(4, 10, "D", "DEV001", 0), Change(5, 9, "E", "DEV003", 0), Change(16, 17, "2", "DEV009", 0)]
    new, dropped = compose(data, changes, [])
    assert new == "# ascend: DEV001, DEV009\nx = D; y = 2\n" and dropped == [changes[1]]


def test_compose_lists_every_completed_rule_on_one_line():
    new, _ = compose(b"x = 1\n", [Change(5, 5, "\na", "ignore[PRC011]", 0), Change(5, 5, "\na", "ignore[PRC010]", 0)], [])
    assert new.startswith("# ascend: ignore[PRC010, PRC011] (port: completed by the statement after it)\n")


def test_check_compiles_without_this_modules_future_flags():
    """`x: (yield)` in a function is valid Python, but not under `from __future__ import annotations` (which
    files.py itself has): the rewrite is compiled as the file itself would be."""
    assert check("run.py", "def f():\n    x: (yield) = 1\n") is None
