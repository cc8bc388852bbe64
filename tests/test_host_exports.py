"""TorchScript exported where no code loaded with it selects a device (analyzer/context/host_exports.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.host_exports import selects_device
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import write_tree

EXPORT = ("import torch\nfrom net.build import build\n\n"
          "torch.jit.save(torch.jit.script(build()), 'out/model.pt')\n")
BUILD = ("import torch\nfrom net.model import Net\n\ndef build(path='w.pt'):\n    m = Net()\n"
         "    m.load_state_dict(torch.load(path, map_location='cpu'))\n    return m\n")
MODEL = ("import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
         "        grid = torch.ones(3, device=x.device, dtype=torch.float32)\n"
         "        return self.fc(x.to(torch.float)) + grid.to(x.device)\n")


def _exports(root):
    report = analyze(root, AnalyzeOptions(jobs=1))
    return [f for f in report.findings if f.rule == "DEV503" and f.path == "export.py"]


def _selects(code: str) -> bool:
    data = code.encode()
    return selects_device(parsing.parse("python", data), data)


def test_an_export_whose_loaded_code_selects_no_device_is_info(tmp_path):
    write_tree(tmp_path, {"export.py": EXPORT, "net/__init__.py": "", "net/build.py": BUILD, "net/model.py": MODEL})
    found = _exports(tmp_path)
    assert len(found) == 1
    finding = found[0]
    assert finding.severity == "info" and not finding.counted and finding.effort_hours.high == 0
    assert "selects a device" in finding.message.en and "Nothing to port" in finding.replacement.en


def test_an_export_stays_where_its_code_or_what_it_loads_selects_a_device(tmp_path):
    write_tree(tmp_path, {"export.py": EXPORT, "net/__init__.py": "", "net/build.py": BUILD,
                          "net/model.py": MODEL.replace("grid.to(x.device)", "grid.cuda()")})
    assert [f.severity for f in _exports(tmp_path)] == ["low"]
    # the checkpoint mapped onto the GPU
    write_tree(tmp_path, {"net/model.py": MODEL, "net/build.py": BUILD.replace("'cpu'", "'cuda:0'")})
    assert [f.severity for f in _exports(tmp_path)] == ["low"]
    # the export script itself moves the model, or imports torch_npu
    write_tree(tmp_path, {"net/build.py": BUILD,
                          "export.py": EXPORT.replace("build()", "build().to(dev)")})
    assert [f.severity for f in _exports(tmp_path)] == ["low"]
    write_tree(tmp_path, {"export.py": "import torch_npu\n" + EXPORT})
    assert [f.severity for f in _exports(tmp_path)] == ["low"]


def test_what_selects_a_device():
    for code in ("x = torch.device('cuda', 0)\n", "m.cuda()\n", "m = m.npu()\n", "m.to(dev)\n", "m.to('cpu')\n",
                 "p.add_argument('--device')\n", "use_gpu = True\n", "x = torch.load(p, map_location=dev)\n",
                 "from torch_npu.contrib import transfer_to_npu\n"):
        assert _selects(code), code
    for code in ("x = x.to(torch.float16)\n", "x = x.to(dtype=y.dtype)\n", "y = x.to(z.device)\n",
                 "device = w.device\ng = torch.ones(2, device=device)\n", "input_points = 3\n",
                 "s = torch.load(p, map_location='cpu')\n", "s = torch.load(p, map_location=lambda s, l: s)\n",
                 "def f(x, device=None):\n    return x\n"):
        assert not _selects(code), code
