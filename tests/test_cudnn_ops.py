"""cuDNN's own switches where the code loaded with them builds nothing cuDNN runs (analyzer/context/cudnn_ops.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.cudnn_ops import may_name
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TRAIN = ("import torch\nfrom src.model import Net\nfrom transformers import GPT2TokenizerFast\n"
         "torch.backends.cudnn.allow_tf32 = False\ntorch.backends.cudnn.deterministic = True\nmodel = Net()\n")
LINEAR = "import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n" \
         "        super().__init__()\n        self.fc = nn.Linear(4, 4)\n"


def _switches(root):
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.rule: f for f in report.findings if f.rule in {"PRC011", "DEV402"} and f.path == "v2/train.py"}


def test_a_cudnn_switch_beside_a_model_without_convolutions_is_info(tmp_path):
    # v2's trainer loads v2/src/model.py (linear layers only); v1's copy of src/model.py, beside another trainer,
    # builds a convolution: it is not what v2's `from src.model import Net` loads
    write_tree(tmp_path, {
        "v2/train.py": TRAIN, "v2/src/model.py": LINEAR,
        "v1/train.py": "from src.model import Net\n",
        "v1/src/model.py": LINEAR.replace("nn.Linear(4, 4)", "nn.Conv2d(3, 8, 3)"),
    })
    found = _switches(tmp_path)
    assert set(found) == {"PRC011", "DEV402"}
    for finding in found.values():
        assert finding.severity == "info" and finding.reach == "runs"
        assert "no cuDNN operator" in finding.message.en and "convolution" in finding.message.en
        # nothing to port: listed, not counted, and no rewrite to do (round 32 A1 row 34)
        assert finding.effort_hours.high == 0 and finding.migration == "auto" and not finding.counted
        assert "Nothing to port" in finding.replacement.en


def test_a_cudnn_switch_stays_where_its_model_has_a_convolution_or_comes_from_a_library(tmp_path):
    write_tree(tmp_path, {"v2/train.py": TRAIN, "v2/src/model.py": LINEAR.replace("nn.Linear(4, 4)", "nn.LSTM(4, 4)")})
    found = _switches(tmp_path)
    assert found["PRC011"].severity == "low" and found["DEV402"].severity == "low"
    assert found["DEV402"].migration == "rewrite" and found["DEV402"].effort_hours.high > 0 and found["DEV402"].counted
    # a conv in a library module the trainer imports through a package, and a functional conv
    write_tree(tmp_path, {"v2/src/model.py": "import torch.nn.functional as F\n\ndef f(x, w):\n    return F.conv1d(x, w)\n"})
    assert _switches(tmp_path)["PRC011"].severity == "low"
    # a model a library builds may hold convolutions the project's code does not show
    write_tree(tmp_path, {"v2/src/model.py": LINEAR.replace("import torch\n", "import torch\nfrom transformers import AutoModel\n")})
    assert _switches(tmp_path)["PRC011"].severity == "low"
    # a module that sets the switch for the trainer that imports it: the trainer's model counts
    write_tree(tmp_path, {
        "v2/train.py": "import setup\nfrom src.model import Net\n",
        "v2/setup.py": "import torch\ntorch.backends.cudnn.allow_tf32 = False\n",
        "v2/src/model.py": LINEAR.replace("nn.Linear(4, 4)", "nn.Conv1d(4, 4, 3)"),
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert [f.severity for f in report.findings if f.rule == "PRC011"] == ["low"]


def test_only_files_whose_bytes_can_name_an_operator_are_read():
    assert may_name(b"self.c = nn.Conv2d(3, 8, 3)") and may_name(b"torch.hub.load('a', 'b')")
    assert not may_name(b"self.fc = nn.Linear(4, 4)\nx = torch.matmul(a, b)\n")


def test_a_cudnn_switch_stays_where_the_model_is_built_by_name(tmp_path):
    # sam2's trainer: `from hydra.utils import instantiate`, the model named in a YAML config
    write_tree(tmp_path, {"v2/train.py": TRAIN.replace("from src.model import Net\n", "from hydra.utils import instantiate\n")
                          .replace("model = Net()", "model = instantiate(cfg.model)")})
    assert _switches(tmp_path)["PRC011"].severity == "low"


def test_a_module_probe_is_no_load_by_name(tmp_path):
    probe = LINEAR.replace("import torch\n", "import torch\nimport importlib\nif importlib.util.find_spec('deepspeed'):\n    pass\n")
    write_tree(tmp_path, {"v2/train.py": TRAIN, "v2/src/model.py": probe})
    assert _switches(tmp_path)["PRC011"].severity == "info"  # RWKV's deepspeed probe loads nothing
    write_tree(tmp_path, {"v2/src/model.py": probe + "net = importlib.import_module(name)\n"})
    assert _switches(tmp_path)["PRC011"].severity == "low"
