"""DEP050: uses of torch APIs the target torch removed (knowledge/dependencies/removed_torch_apis.toml)."""

import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.dependencies.removed_torch_apis import copes, imported_modules, removed_apis
from ascend_feasibility.knowledge import load_removed_torch_apis

from tests.helpers import analyze_snippet_project


def test_a_row_applies_only_at_or_above_its_release():
    assert {"torch._six", "torch.solve"} <= set(removed_apis("2.12.0")) and "torch._six" in removed_apis("2.0.1")
    assert removed_apis("1.13.1") == {}


def test_every_row_names_a_release_a_replacement_and_a_source():
    for api in load_removed_torch_apis().api:
        assert api.removed_in and api.replacement and api.sources
        assert any("pytorch/pytorch" in source for source in api.sources), api.name


@pytest.mark.parametrize(("statement", "modules"), [
    ("import torch._six", ["torch._six"]),
    ("import torch._six as six, os", ["torch._six", "os"]),
    ("from torch._six import inf, string_classes as sc", ["torch._six", "torch._six.inf", "torch._six.string_classes"]),
    ("from torch import _six", ["torch", "torch._six"]),
    ("from . import _six", []),
])
def test_imported_modules(statement, modules):
    tree = parsing.parse("python", statement.encode())
    assert imported_modules(tree.named_children[0]) == modules


@pytest.mark.parametrize(("code", "expected"), [
    ("try:\n    from torch._six import inf\nexcept ImportError:\n    from math import inf", True),
    ("try:\n    from torch._six import inf\nexcept:\n    from math import inf", True),
    # a handler for something else lets the ImportError through
    ("try:\n    from torch._six import inf\nexcept KeyError:\n    inf = 1", False),
    # the import in the handler is not guarded by it
    ("try:\n    import foo\nexcept ImportError:\n    from torch._six import inf", False),
    ("if torch.__version__ < '2':\n    from torch._six import inf\nelse:\n    from math import inf", True),
    ("if use_six:\n    from torch._six import inf", False),
])
def test_code_that_copes(code, expected):
    tree = parsing.parse("python", code.encode())
    node = next(n for n in _walk(tree) if n.type == "import_from_statement" and b"_six" in n.text)
    assert copes(node) is expected


def test_one_site_per_file_for_a_module_and_each_call_of_a_function():
    code = ("import torch\nfrom torch._six import inf\nimport torch._six\nx = torch._six.container_abcs\n"
            "def f(a, b):\n    x = torch.solve(b, a).solution\n    return torch.solve(a, b)\n")
    report = analyze_snippet_project(code, "python")
    sites = sorted((f.line, f.symbol) for f in report.findings if f.rule == "DEP050")
    assert sites == [(2, "torch._six"), (6, "torch.solve"), (7, "torch.solve")]


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)
