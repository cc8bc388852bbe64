"""DEP051: torch.load left to torch 2.6's weights_only=True default (domains/dependencies/weights_only.py)."""

import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.dependencies.weights_only import needs_weights_only, reads_an_object

from tests.helpers import rules_found

LOADS = "import torch\nckpt = torch.load(path, map_location='cpu')\nargs = ckpt['args']\n"


def test_reported_only_where_the_target_torch_defaults_to_weights_only():
    assert "DEP051" in rules_found(LOADS)  # the default target, torch_npu 2.12.0 on torch 2.12
    assert "DEP051" in rules_found(LOADS, torch_npu="2.6.0")
    assert "DEP051" not in rules_found(LOADS, torch_npu="2.5.1")


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
