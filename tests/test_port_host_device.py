"""A script whose devices are all the host gets no Step 0 and keeps its device pick (analyzer/port/host_device.py).

Round 38 port hunks 10 and 12 (YOLOP): export_onnx.py picks `'cuda' if torch.cuda.is_available() else 'cpu'` only for
the `map_location=` of a checkpoint loaded into a CPU model it exports; toolkits/deploy/gen_wts.py fixes
`torch.device('cpu')` and dumps the weights."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.port.core import PortOptions, port
from ascend_feasibility.analyzer.port.host_device import HOST_PICK_REASON, host_device_picks
from ascend_feasibility.analyzer.reading.parsing import parse, text

from tests.test_port_core import _new, _reasons, _report, _site, _tree

EXPORT = ("import torch\n\n\nif __name__ == '__main__':\n"
          "    device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
          "    model = Net()\n"
          "    checkpoint = torch.load('w.pth', map_location=device)\n"
          "    model.load_state_dict(checkpoint['state_dict'])\n"
          "    inputs = torch.randn(1, 3, 64, 64)\n"
          "    torch.onnx.export(model, inputs, 'm.onnx')\n")
DUMP = ("import torch\n\ndevice = torch.device('cpu')\nmodel = get_net()\n"
        "model.load_state_dict(torch.load('w.pth', map_location=device)['state_dict'])\n"
        "model.to(device).eval()\nfor k, v in model.state_dict().items():\n    print(k, v.reshape(-1).cpu().numpy())\n")
STEP0 = "import importlib.util  # ascend: port (Step 0"


def _picks(source: str):
    found = host_device_picks(parse("python", source.encode()))
    return None if found is None else [text(statement) for statement in found]


@pytest.mark.parametrize("source, picks", [
    (DUMP, []),  # every device the file names is the host
    (EXPORT, ["device = 'cuda' if torch.cuda.is_available() else 'cpu'"]),  # read only as map_location, exported
    ("import torch\nm = torch.load('w.pth', map_location=lambda storage, loc: storage)\ntorch.jit.save(m, 'm.pt')\n", []),
    ("import torch\nx = torch.zeros(2, device='cpu')\n", []),
])
def test_host_only_files(source, picks):
    assert _picks(source) == picks


@pytest.mark.parametrize("source", [
    EXPORT.replace("    inputs = torch.randn(1, 3, 64, 64)\n", "    inputs = torch.randn(1, 3, 64, 64).to(device)\n"),
    EXPORT.replace("    torch.onnx.export(model, inputs, 'm.onnx')\n", "    model(inputs)\n"),  # no export
    DUMP.replace("model.to(device).eval()", "model.cuda().eval()"),  # an accelerator move
    DUMP.replace("device = torch.device('cpu')", "device = torch.device(args.device)"),  # a value out of sight
    "import torch\n\n\ndef f(device):\n    return torch.load('w.pth', map_location=device)\n",  # a parameter
    "import torch\nx = torch.ones(3)\n",  # names no device
])
def test_files_that_may_use_an_accelerator(source):
    assert _picks(source) is None


def _port(tmp_path, files, sites, entries):
    root = _tree(tmp_path / "proj", files)
    return port(root, _report(sites, entries=entries), PortOptions())


def test_the_map_location_pick_of_a_cpu_export_is_left_and_gets_no_step_0(tmp_path):
    site = _site(EXPORT, "torch.cuda.is_available", "DEV104", path="export_onnx.py")
    result = _port(tmp_path, {"export_onnx.py": EXPORT}, [site], ["export_onnx.py"])
    assert _new(result, "export_onnx.py") is None and not result.new_files and result.entries == []
    assert _reasons(result) == {("DEV104", 5): HOST_PICK_REASON}


def test_a_cpu_weight_dumper_gets_no_step_0(tmp_path):
    result = _port(tmp_path, {"gen_wts.py": DUMP, "train.py": "import torch\nmodel.cuda()\n"}, [],
                   ["gen_wts.py", "train.py"])
    assert result.entries == ["train.py"] and _new(result, "gen_wts.py") is None
    assert STEP0 in _new(result, "train.py")


def test_an_export_that_moves_its_inputs_keeps_the_rewrite_and_step_0(tmp_path):
    moved = EXPORT.replace("    inputs = torch.randn(1, 3, 64, 64)\n", "    inputs = torch.randn(1, 3, 64, 64).to(device)\n")
    site = _site(moved, "torch.cuda.is_available", "DEV104", path="export_onnx.py")
    result = _port(tmp_path, {"export_onnx.py": moved}, [site], ["export_onnx.py"])
    new = _new(result, "export_onnx.py")
    assert result.entries == ["export_onnx.py"] and STEP0 in new and "_device.is_available()" in new
    assert _reasons(result) == {("DEV104", 5): None}


def test_a_host_script_with_another_cuda_site_keeps_step_0(tmp_path):
    source = DUMP + "torch.cuda.synchronize()\n"
    site = _site(source, "torch.cuda.synchronize", "DEV101", path="gen_wts.py")
    result = _port(tmp_path, {"gen_wts.py": source}, [site], ["gen_wts.py"])
    assert result.entries == ["gen_wts.py"] and STEP0 in _new(result, "gen_wts.py")


def test_with_transfer_to_npu_a_cpu_script_keeps_step_0(tmp_path):
    """Step 0 then also maps the CUDA code the script reaches through its imports, which host_device does not read."""
    root = _tree(tmp_path / "proj", {"gen_wts.py": DUMP})
    result = port(root, _report([], entries=["gen_wts.py"]), PortOptions(transfer_to_npu=True))
    assert result.entries == ["gen_wts.py"] and "transfer_to_npu" in _new(result, "gen_wts.py")
