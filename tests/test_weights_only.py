"""DEP051: torch.load left to torch 2.6's weights_only=True default (domains/dependencies/weights_only.py)."""

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.governing import admit_only_from
from ascend_feasibility.domains.dependencies.weights_only import needs_weights_only, reads_an_object

from tests.helpers import rules_found, worker, write_tree

LOADS = "import torch\nckpt = torch.load(path, map_location='cpu')\nargs = ckpt['args']\n"


def test_reported_only_where_the_target_torch_defaults_to_weights_only():
    assert "DEP051" in rules_found(LOADS)  # the default target, torch_npu 2.12.0 on torch 2.12
    assert "DEP051" in rules_found(LOADS, torch_npu="2.6.0")
    assert "DEP051" not in rules_found(LOADS, torch_npu="2.5.1")


@pytest.mark.parametrize(("files", "expected"), [
    # a torch requirement that admits a release before 2.6 (or none named): the port brings the new default
    ({"requirements.txt": "torch>=2.1\n"}, True),
    ({"requirements.txt": "torch\n"}, True),
    ({"requirements.txt": "numpy\n"}, True),
    ({"requirements.txt": "torch>=2.6\n", "setup.py": "from setuptools import setup\nsetup(install_requires=['torch>=2.1'])\n"}, True),
    # every line admits only 2.6 or later: the project already loads under weights_only=True
    ({"requirements.txt": "torch>=2.6\n"}, False),
    ({"requirements.txt": "torch==2.7.1\n"}, False),
    ({"pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch>=2.6.0,<3"]\n'}, False),
    # a bare `torch` beside them installs the newest release, past the flip too; a cap below it does not
    ({"pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch>=2.6.0"]\n', "requirements.txt": "torch\n"},
     False),
    ({"requirements.txt": "torch>=2.6\n", "setup.py": "from setuptools import setup\nsetup(install_requires=['torch<2.9'])\n"},
     True),
])
def test_a_project_whose_declared_torch_is_already_2_6_or_later_gets_no_finding(tmp_path, files, expected):
    write_tree(tmp_path, {**files, "load.py": LOADS + "lr = args.lr\n"})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP051"]
    assert bool(found) is expected


@pytest.mark.parametrize(("specifiers", "expected"), [
    (["==2.6.0"], True), ([">=2.6"], True), ([">=2.7,<2.9"], True), (["==2.7.1", ">=2.6"], True),
    ([">=2.5"], False), (["<3"], False), ([""], False), ([], False), (["==2.7.1", ">=2.1"], False),
])
def test_admit_only_from(specifiers, expected):
    lines = [Declaration("torch", s, "requirements.txt", n + 1, "requirements", text=f"torch{s}")
             for n, s in enumerate(specifiers)]
    assert admit_only_from(lines, "2.6") is expected


@pytest.mark.parametrize(("code", "expected"), [
    ("x = torch.load(p)", True),
    ("x = torch.load(p, weights_only=False)", False),
    ("x = torch.load(p, pickle_module=dill)", False),
    ("x = torch.load(p, **options)", False),
    ("m.load_state_dict(torch.load(p))", False),
    # a state dict read only by load_state_dict, in a function or at module level
    ("def f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(sd)", False),
    ("sd = torch.load(p)\nm.load_state_dict(sd, strict=False)\nn.load_state_dict(sd)", False),
    # a read that is not load_state_dict's argument: the object is more than a state dict
    ("sd = torch.load(p)\nm.load_state_dict(sd)\nepoch = sd['epoch']", True),
    ("sd = torch.load(p)\nm.load_state_dict(sd['model'])", True),
    ("m.load_state_dict(strict=False, state_dict=torch.load(p))", True),
])
def test_needs_weights_only(code, expected):
    tree = parsing.parse("python", code.encode())
    call = next(n for n in _walk(tree) if n.type == "call" and parsing.text(n.child_by_field_name("function")) == "torch.load")
    assert needs_weights_only(call) is expected


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


@pytest.mark.parametrize(("code", "expected"), [
    ("ckpt = torch.load(p)\nlr = ckpt.args.lr", True),
    ("ckpt = torch.load(p)\nlr = ckpt['args'].lr", True),
    ("ckpt = torch.load(p)\nconfig = ckpt['config']\nsize = config.hidden_size", True),
    ("model = torch.load(p)\ny = model(x)", True),
    ("torch.load(p).eval()", True),
    # mapping and tensor reads: tensors, containers and primitives, which weights_only=True loads
    ("ckpt = torch.load(p)\nstep = ckpt['step']\nloss = ckpt['loss'].item()\nfor k, v in ckpt.items():\n    pass", False),
    ("ckpt = torch.load(p)\nconfig = ckpt['config']\nsize = config['hidden_size']", False),
    ("x = torch.load(p).to(device)", False),
])
def test_reads_an_object(code, expected):
    tree = parsing.parse("python", code.encode())
    call = next(n for n in _walk(tree) if n.type == "call" and parsing.text(n.child_by_field_name("function")) == "torch.load")
    assert reads_an_object(call) is expected


def _scanner():
    from ascend_feasibility.domains.dependencies.weights_only import WeightsOnlyScanner

    return next(s for s in worker().scanners if isinstance(s, WeightsOnlyScanner))


def test_a_unit_that_never_spells_torch_builds_no_references_for_the_load_scan():
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit

    unit = Unit("m.py", "python", SourceText.from_text("import numpy as np\nx = np.load(path)\nmodel.load(x)\n"))
    assert _scanner().scan(unit) == []
    assert "references" not in unit.cache  # no `torch.load` can resolve here: the references are not built
    spelled = Unit("m.py", "python", SourceText.from_text("from torch import load as fetch\nckpt = fetch(path)\nckpt.args\n"))
    assert [hit.symbol for hit in _scanner().scan(spelled)] == ["torch.load"]


def test_a_notebook_cell_loading_through_an_earlier_cells_import_is_still_read(tmp_path):
    import json

    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in ("import torch as t\n", "ckpt = t.load(path)\nlr = ckpt['args'].lr\n")]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write_tree(tmp_path, {"demo.ipynb": json.dumps(notebook)})
    found = [f for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP051"]
    assert [f.path for f in found] == ["demo.ipynb"]
