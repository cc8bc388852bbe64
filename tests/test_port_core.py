"""analyzer/port/core.py without an analysis: which findings port may rewrite, where the device module goes and how
each file imports it, and the checks that hold a site for a human (a CUDA check, a device test, the branch it
decides, a site inside another's change), on projects written in the test with findings built by hand as the
analyzer reports them (the matched text's 1-based line and character column; DEV101 spans `torch.cuda.synchronize`,
DEV001 the `"cuda"` literal, DEV104 `torch.cuda.is_available`, DEV007 the whole comparison, DEV004 `.cuda()`).
Each expectation is read from the module's docstrings and code."""

from __future__ import annotations

import itertools
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.port import core
from ascend_feasibility.analyzer.port.core import (
    MODULE_MARK,
    PortOptions,
    PortResult,
    _device_module_path,
    _entry_setup,
    _function_of,
    _inside,
    _is_package,
    _jumps,
    _kernel_functions,
    _kernel_launches,
    _load,
    _module_import,
    _opaque_call,
    _package_chain,
    _picked_by,
    _positive,
    eligible,
    offered_by,
    port,
    previous_module,
    render_device_module,
)
from ascend_feasibility.analyzer.port.edits import Change
from ascend_feasibility.analyzer.reading.parsing import parse, text
from ascend_feasibility.knowledge import KnowledgeError, load_device_module

_ids = itertools.count()


def _find(source: str, match: str, occurrence: int = 0) -> tuple[int, int, int, int]:
    at = -1
    for _ in range(occurrence + 1):
        at = source.index(match, at + 1)
    before, span = source[:at], source[:at + len(match)]
    return (before.count("\n") + 1, at - (before.rfind("\n") + 1) + 1, span.count("\n") + 1,
            at + len(match) - (span.rfind("\n") + 1) + 1)


def _site(source: str, match: str, rule: str, occurrence: int = 0, path: str = "run.py", **fields):
    """A finding of `rule` spanning the occurrence-th `match` in source (a product file, reach runs)."""
    line, column, end_line, end_column = _find(source, match, occurrence)
    values = dict(rule=rule, path=path, line=line, column=column, end_line=end_line, end_column=end_column,
                  symbol=match, severity="info", role="product", reach="runs", suppressed=False, cell=None,
                  fingerprint=f"fp{next(_ids)}", replacement=SimpleNamespace(en="use the NPU's own"))
    values.update(fields)
    return SimpleNamespace(**values)


def _report(findings=(), entries=(), name="proj", own_packages=(), npu_code=(), custom_ops=()):
    matrix = SimpleNamespace(entries=[SimpleNamespace(path=p, script=True, phases=["training"]) for p in entries])
    return SimpleNamespace(findings=list(findings), phase_matrix=matrix, custom_ops=list(custom_ops),
                           project=SimpleNamespace(name=name, own_packages=list(own_packages), npu_code=list(npu_code)))


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content, encoding="utf-8")
    return root


def _new(result: PortResult, path: str) -> str | None:
    return next((r.new for r in result.rewrites if r.path == path), None)


def _reasons(result: PortResult) -> dict[tuple[str, int], str | None]:
    return {(o.finding.rule, o.finding.line): o.reason for o in result.outcomes}


SYNC = "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n"


# eligible

def _eligible(rule="DEV101", options=None, **fields):
    finding = SimpleNamespace(**{**dict(rule=rule, path="run.py", severity="info", suppressed=False, cell=None,
                                        role="product", reach="runs"), **fields})
    return eligible(finding, options or PortOptions())


def test_eligible_sites_are_product_code_that_runs_with_a_safe_edit():
    assert _eligible() is None
    assert _eligible(reach="cosmetic") is None
    assert _eligible("DEV201", path="scripts/run.sh") is None  # a shell edit in a shell script
    assert _eligible("DEV201", path="run.bash") is None
    assert _eligible("DEV006", PortOptions(unsafe=True)) is None
    assert _eligible(options=PortOptions(only=frozenset({"DEV101", "DEV001"}))) is None


def test_each_reason_a_site_is_not_attempted():
    assert _eligible("XYZ999") == "unknown rule"
    assert _eligible("DEV211") == "display-only rule"
    assert _eligible("DEV211", PortOptions(plan_comments=True), severity="info") == "display-only rule"
    assert _eligible("DEV211", PortOptions(plan_comments=True), severity="low") is None
    assert _eligible(options=PortOptions(only=frozenset({"DEV001"}))) == "not in --only"
    assert _eligible("DEV006") == "unsafe fix (use --unsafe)"
    assert _eligible(suppressed=True) == "suppressed"
    assert _eligible(cell=3, path="nb.ipynb") == "not a Python module"
    assert _eligible(cell=0) == "not a Python module"  # a notebook's first cell is still a cell
    assert _eligible(path="run.pyi") == "not a Python module"
    assert _eligible(path="kernel.cu") == "not a Python module"
    assert _eligible("DEV101", path="run.sh") == "not a Python module"  # no shell edit for this rule
    assert _eligible(role="test") == "test code"
    assert _eligible(role="example") == "example code"
    assert _eligible(reach="guarded") == "reach guarded"
    assert _eligible(reach="npu-path") == "reach npu-path"


def test_the_first_reason_that_holds_is_given():
    assert _eligible("DEV211", PortOptions(only=frozenset({"DEV001"}))) == "display-only rule"
    assert _eligible("DEV006", PortOptions(only=frozenset({"DEV001"}))) == "not in --only"
    assert _eligible("DEV006", suppressed=True) == "unsafe fix (use --unsafe)"
    assert _eligible(suppressed=True, path="x.txt") == "suppressed"
    assert _eligible(path="x.txt", role="test") == "not a Python module"
    assert _eligible(role="test", reach="guarded") == "test code"


# loading, paths and packages

def test_load_refuses_what_a_patch_cannot_carry(tmp_path):
    root = _tree(tmp_path, {"ok.py": "x = 1\n", "odd name.py": "x = 1\n", "-dash.py": "x = 1\n",
                            "broken.py": "def (:\n", "run.sh": "echo hi\n"})
    (root / "latin.py").write_bytes(b"x = '\xe9'\n")
    (root / "crlf.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    data, tree = _load(root, "ok.py")
    assert data == b"x = 1\n" and text(tree) == "x = 1\n" and not tree.has_error
    assert _load(root, "odd name.py") == "its path needs quoting in a patch"
    assert _load(root, "-dash.py") == "its path needs quoting in a patch"
    assert _load(root, "latin.py") == "not UTF-8"
    assert _load(root, "crlf.py") == "carriage returns in line endings"
    assert _load(root, "broken.py") == "does not parse"
    assert isinstance(_load(root, "missing.py"), str)
    assert _load(root, "run.sh", "bash")[0] == b"echo hi\n"
    assert _load(root, "run.sh") == "does not parse"  # read as Python


def test_inside_and_packages(tmp_path):
    assert _inside("pkg/a.py", PurePosixPath("pkg"))
    assert _inside("pkg/sub/a.py", PurePosixPath("pkg/sub"))
    assert not _inside("pkgx/a.py", PurePosixPath("pkg"))
    assert not _inside("a.py", PurePosixPath("."))
    assert not _inside("other/pkg/a.py", PurePosixPath("pkg"))
    root = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "ns/inner/__init__.py": "",
                            "plain/a.py": "", "my-pkg/__init__.py": ""})
    assert _is_package(root, PurePosixPath("pkg")) and not _is_package(root, PurePosixPath("plain"))
    assert _package_chain(root, "top.py")
    assert _package_chain(root, "pkg/sub/a.py")
    assert _package_chain(root, "ns/inner/a.py")  # a namespace package above
    assert not _package_chain(root, "plain/a.py")
    assert not _package_chain(root, "my-pkg/a.py")  # not an identifier


def test_the_device_module_goes_into_the_package_with_most_files_to_rewrite(tmp_path):
    root = _tree(tmp_path, {"alpha/__init__.py": "", "beta/__init__.py": "", "src/gamma/__init__.py": "",
                            "mega/core/__init__.py": "", "loose/x.py": ""})

    def where(paths, own=("alpha", "beta", "gamma"), name="proj"):
        by_path = {p: [] for p in paths}
        return _device_module_path(root, _report(name=name, own_packages=own), by_path, dict.fromkeys(paths))

    assert where(["alpha/a.py", "beta/b.py", "beta/c.py"]) == "beta/_device.py"
    assert where(["alpha/a.py", "beta/b.py"]) == "alpha/_device.py"  # a tie: by name
    assert where(["src/gamma/a.py", "src/gamma/b.py", "alpha/a.py"]) == "src/gamma/_device.py"
    assert where(["mega/core/a.py", "mega/core/b.py"], own=()) == "mega/_device.py"  # a namespace package at the top
    assert where(["mega/a.py"], own=()) == "proj_device.py"  # a file directly in it: no package below
    assert where(["loose/sub/x.py"], own=()) == "proj_device.py"  # no __init__.py on the way
    assert where(["run.py"]) == "proj_device.py"
    assert where(["run.py"], name="My Project-2") == "my_project_2_device.py"
    assert where(["run.py"], name="3d") == "p3d_device.py"
    assert where(["run.py"], name="") == "project_device.py"
    assert where(["run.py"], name=None) == "project_device.py"
    assert where(["run.py"], name="!!") == "project_device.py"
    parsed_only = _device_module_path(root, _report(own_packages=("alpha", "beta")),
                                      {"alpha/a.py": [], "beta/b.py": [], "beta/c.py": []}, {"alpha/a.py": None})
    assert parsed_only == "alpha/_device.py"  # files that could not be read do not count


@pytest.mark.parametrize(("path", "module", "relative", "entry", "alias", "on_path", "expected"), [
    ("run.py", "proj_device.py", False, None, "_device", False, "import proj_device as _device"),
    ("run.py", "_device.py", False, None, "_device", False, "import _device"),
    ("sub/run.py", "proj_device.py", False, None, "_device", False, None),
    ("sub/run.py", "proj_device.py", False, None, "_device", True, "import proj_device as _device"),
    ("pkg/a.py", "pkg/_device.py", False, None, "_device", True, "from pkg import _device"),
    ("pkg/a.py", "pkg/_device.py", False, None, "_port_device", True, "from pkg import _device as _port_device"),
    ("pkg/sub/a.py", "pkg/_device.py", True, None, "_device", True, "from .. import _device"),
    ("pkg/a.py", "pkg/_device.py", True, None, "_device", True, "from . import _device"),
    ("pkg/sub/a.py", "pkg/_device.py", True, "entry", "_device", True, "from pkg import _device"),
    ("src/pkg/sub/a.py", "src/pkg/_device.py", False, None, "_device", False, "from pkg import _device"),
    ("src/pkg/sub/a.py", "src/pkg/_device.py", True, None, "_device", False, "from .. import _device"),
    ("train.py", "pkg/_device.py", False, "entry", "_device", True, "from pkg import _device"),
    ("tools/train.py", "pkg/_device.py", False, None, "_device", True, "from pkg import _device"),
    ("tools/train.py", "pkg/_device.py", False, None, "_device", False, None),
    ("train.py", "src/pkg/_device.py", False, None, "_device", True, None),  # src/ is not on the path
    ("src/a.py", "src/_device.py", False, None, "_device", True, None),  # src/ itself is no package
])
def test_the_import_of_the_device_module_from_each_file(path, module, relative, entry, alias, on_path, expected):
    assert _module_import(path, module, relative, entry, alias, on_path) == expected


def test_kernel_launches_are_the_cuda_cupy_numba_kernels_and_their_callers():
    rows = [SimpleNamespace(kind="cuda", path="ops/k.cu", line=3, callers=["ops/use.py:12", "ops/use.py:x",
                                                                              "notes.md:4", "a:b/c.py:7"]),
            SimpleNamespace(kind="cupy", path="ops/cp.py", line=5, callers=[]),
            SimpleNamespace(kind="numba", path="ops/nb.py", line=9, callers=["ops/nb.py:20"]),
            SimpleNamespace(kind="triton", path="ops/tr.py", line=2, callers=["ops/use.py:30"])]
    assert _kernel_launches(SimpleNamespace(custom_ops=rows)) == {
        "ops/use.py": {12}, "a:b/c.py": {7}, "ops/cp.py": {5}, "ops/nb.py": {9, 20}}


def test_kernel_functions_are_the_spans_of_the_functions_holding_those_lines():
    source = b"x = 1\n\ndef launch(a):\n    k(a)\n    return a\n\n\nclass C:\n    def m(self):\n        k()\n"
    tree = parse("python", source)
    assert sorted(_kernel_functions(tree, {4, 1, 10})) == [(2, 4), (8, 9)]  # module level line 1: no function
    assert _kernel_functions(tree, set()) == []


def test_function_of_a_finding():
    source = "x = 'cuda'\n\ndef f():\n    def g():\n        y = 'cuda'\n    return 'cuda'\n"
    data = source.encode()
    tree = parse("python", data)
    starts = [0] + [i + 1 for i, c in enumerate(data) if c == ord("\n")]
    assert _function_of(tree, data, starts, _site(source, "'cuda'", "DEV001", 0)) == -1
    assert _function_of(tree, data, starts, _site(source, "'cuda'", "DEV001", 1)) == source.index("def g")
    assert _function_of(tree, data, starts, _site(source, "'cuda'", "DEV001", 2)) == source.index("def f")


# the branch checks on parsed snippets

def _node(source: str, match: str, occurrence: int = 0, kind: str | None = None):
    """The smallest node spanning the match (or its nearest ancestor of `kind`)."""
    data = source.encode()
    at = -1
    for _ in range(occurrence + 1):
        at = data.index(match.encode(), at + 1)
    node = parse("python", data).descendant_for_byte_range(at, at + len(match.encode()))
    while kind is not None and node.type != kind:
        node = node.parent
    return node


def test_jumps_are_return_raise_break_continue_outside_nested_definitions():
    for body, jumps in [("return 1", True), ("raise X", True), ("break", True), ("continue", True),
                        ("if y:\n        return", True), ("x = 1", False), ("def g():\n        return 1", False),
                        ("class C:\n        def m(self):\n            return 1", False), ("f = lambda: 1", False),
                        ("pass", False)]:
        source = f"for i in r:\n  if x:\n    {body}\n"
        assert _jumps(_node(source, "if x", kind="if_statement")) is jumps, body


def test_positive_means_the_condition_or_a_conjunct_not_negated():
    def check(source, match):
        tree = parse("python", source.encode())
        condition = tree.children[0].child_by_field_name("condition")
        at = source.index(match)
        return _positive(condition, tree.descendant_for_byte_range(at, at + len(match)))

    assert check("if ok():\n    pass\n", "ok()")
    assert check("if a and ok():\n    pass\n", "ok()")
    assert check("if (a and (ok())):\n    pass\n", "ok()")
    assert not check("if not ok():\n    pass\n", "ok()")
    assert not check("if a or ok():\n    pass\n", "ok()")
    assert not check("if a and not ok():\n    pass\n", "ok()")
    assert not check("if a:\n    ok()\n", "ok()")  # in the body, not the condition


def test_picked_by_the_check_of_a_conditional_expression():
    source = 'd = "cuda" if torch.cuda.is_available() else "cpu"\n'
    check_at = source.index("torch.cuda.is_available")
    check = Change(check_at, check_at + len("torch.cuda.is_available"), "x", "DEV104", 0)
    assert _picked_by(_node(source, '"cuda"'), check)
    assert not _picked_by(_node(source, '"cpu"'), check)  # the other arm
    paren = 'd = ("cuda") if torch.cuda.is_available() else "cpu"\n'
    at = paren.index("torch.cuda.is_available")
    assert _picked_by(_node(paren, '"cuda"'), Change(at, at + len("torch.cuda.is_available"), "x", "DEV104", 0))
    other = Change(0, 1, "x", "DEV104", 0)
    assert not _picked_by(_node(source, '"cuda"'), other)  # a check elsewhere
    assert not _picked_by(_node('d = f("cuda")\n', '"cuda"'), check)
    wide = 'd = "cuda" if torch.cuda.is_available() and ok else "cpu"\n'
    assert _picked_by(_node(wide, '"cuda"'), check)
    assert not _picked_by(_node('d = x if "cuda" else "cpu"\n', '"cuda"'), Change(9, 15, "x", "DEV104", 0))


def _opaque(body: str, rewritten=()):
    source = f"if torch.cuda.is_available() and f0():\n{body}"
    branch = _node(source, "if ", kind="if_statement")
    return _opaque_call(branch, branch.child_by_field_name("condition"), list(rewritten))


@pytest.mark.parametrize(("body", "found"), [
    ("    x = y.to('cpu')\n", None),
    ("    print(len(x))\n", None),  # builtins
    ("    run(x)\n", "run"),
    ("    kernel[grid](x)\n", "kernel[grid]"),
    ("    torch.zeros(3)\n", None),
    ("    os.path.join(a, b)\n", None),
    ("    logger.info('x')\n", None),
    ("    collections.OrderedDict()\n", None),  # a standard-library module
    ("    model.forward_cuda(x)\n", "model.forward_cuda"),
    ("    model.half()\n", None),  # a known method
    ("    x.float().contiguous()\n", None),  # known methods, the inner call too
    ("    self.layer(x).contiguous()\n", "self.layer"),  # a known method on an unknown call's result
    ("    get_model().fused(x)\n", "get_model().fused"),
    ("    a[0].fused(x)\n", "a[0].fused"),
    ("    def g():\n        run(x)\n", None),  # a nested definition
    ("    class C:\n        run(x)\n", None),
    ("    h = lambda: run(x)\n", None),
    ("    y = [run(v) for v in x]\n", "run"),
    ("    _device.synchronize()\n", None),
    ("    torch.cuda.synchronize().fused()\n", None),  # rooted at torch
    ("    x = 1\n    x.move(y)\n", None),
])
def test_opaque_call_finds_the_first_call_that_may_be_cuda_only(body, found):
    assert _opaque(body) == found


def test_the_condition_itself_is_not_looked_at():
    assert _opaque("    pass\n") is None  # f0() is in the condition


def test_a_call_the_patch_rewrites_is_not_opaque_but_its_arguments_are():
    source = "if torch.cuda.is_available() and f0():\n    torch.cuda.fused(run(x))\n"
    branch = _node(source, "if ", kind="if_statement")
    condition = branch.child_by_field_name("condition")
    assert _opaque_call(branch, condition, []) == "run"  # torch.cuda.fused is rooted at torch; run is not
    source = "if c:\n    thing.fused(x)\n"
    branch = _node(source, "if ", kind="if_statement")
    condition = branch.child_by_field_name("condition")
    at = source.index("thing.fused")
    assert _opaque_call(branch, condition, []) == "thing.fused"
    assert _opaque_call(branch, condition, [(at, at + len("thing.fused"))]) is None  # the callee is rewritten
    assert _opaque_call(branch, condition, [(at, source.index("\n", at))]) is None  # the whole call
    source = "if c:\n    thing.fused(run(x))\n"
    branch = _node(source, "if ", kind="if_statement")
    at = source.index("thing.fused")
    assert _opaque_call(branch, branch.child_by_field_name("condition"), [(at, at + len("thing.fused"))]) == "run"
    source = "if c:\n    thing(x).fused(y)\n"
    branch = _node(source, "if ", kind="if_statement")
    at = source.index("thing(x).fused")
    assert _opaque_call(branch, branch.child_by_field_name("condition"),
                        [(at, at + len("thing(x).fused"))]) == "thing"  # the object's own call is still looked at


# the device module and the entry setup

def test_render_device_module_is_the_header_and_the_pieces_used_in_template_order():
    template = load_device_module()
    header = template.header.strip("\n") + "\n"
    assert render_device_module(set()) == header
    pieces = {p.name: p.code.strip("\n") for p in template.function}
    assert render_device_module({"synchronize", "DIST_BACKEND", "unknown"}) == (
        header + "\n\n" + pieces["DIST_BACKEND"] + "\n" + "\n\n" + pieces["synchronize"] + "\n")


def test_offered_by_reads_the_pieces_a_module_holds():
    assert offered_by(render_device_module({"synchronize", "empty_cache"})) == {"synchronize", "empty_cache"}
    assert offered_by("") == set()


def test_previous_module(tmp_path):
    root = _tree(tmp_path, {"mine.py": "x = 1\n", "pkg/_device.py": "é = 1\n"})
    (root / "latin.py").write_bytes(b"\xe9\n")
    (root / "dir.py").mkdir()
    assert previous_module(root, "none.py") is None
    assert previous_module(root, "mine.py") == "x = 1\n"
    assert previous_module(root, "pkg/_device.py") == "é = 1\n"
    assert previous_module(root, "latin.py") == ""  # unreadable: there is a file, not ours
    assert previous_module(root, "dir.py") is None


def test_entry_setup_in_each_style():
    assert _entry_setup(PortOptions(style="npu")) == [
        "import torch_npu  # noqa: F401  # ascend: port (Step 0: registers the NPU device)"]
    npu = _entry_setup(PortOptions(style="npu", transfer_to_npu=True))
    assert npu[1:] == [f"# ascend: port --transfer-to-npu. {core.TRANSFER_NOTE}",
                       "from torch_npu.contrib import transfer_to_npu  # noqa: F401"]
    assert _entry_setup(PortOptions()) == [
        "import importlib.util  # ascend: port (Step 0: load torch_npu where it is installed)", "",
        "if importlib.util.find_spec(\"torch_npu\") is not None:", "    import torch_npu  # noqa: F401", ""]
    assert _entry_setup(PortOptions(transfer_to_npu=True))[4:] == [
        f"    # ascend: port --transfer-to-npu. {core.TRANSFER_NOTE}",
        "    from torch_npu.contrib import transfer_to_npu  # noqa: F401", ""]
