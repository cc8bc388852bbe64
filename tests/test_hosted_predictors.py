"""A hosted platform's predictor (analyzer/context/hosted_predictors.py): the file a Replicate Cog manifest names
(cog.yaml `predict: "predict.py:Predictor"`) that no product code imports is a separate deployment: optional, listed,
left alone by the port (round 20 A2 row 51, LLaVA-NeXT's predict.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.hosted_predictors import hosted_predictors
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port
from ascend_feasibility.analyzer.reading.discovery import ProjectFile
from ascend_feasibility.knowledge import load_context_conventions

REASON = "a Replicate Cog predictor (cog.yaml); deploy it on Ascend separately"

PROJECT = {
    "requirements.txt": "torch==2.3.1\n",
    "llava/__init__.py": "",
    "llava/model.py": (
        "import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
        "def load():\n    return Model().cuda()\n"),
    "cli.py": (
        "import torch\nfrom llava.model import load\n\n\ndef main():\n    model = load()\n    model.eval()\n"
        "    with torch.inference_mode():\n        return model(torch.ones(2).cuda())\n\n\n"
        "if __name__ == '__main__':\n    main()\n"),
    "cog.yaml": (
        "build:\n  gpu: true\n  python_version: '3.10'\n  python_packages:\n    - torch==2.0.1\n"
        'predict: "predict.py:Predictor"\n'),
    "cog_weights.py": "import torch\n\n\ndef fetch(path):\n    return torch.load(path, map_location='cuda')\n",
    "predict.py": (
        "import torch\nfrom cog import BasePredictor, Input\nfrom cog_weights import fetch\nfrom llava.model import Model\n\n\n"
        "class Predictor(BasePredictor):\n    def setup(self):\n        self.model = Model().half().cuda()\n"
        "        fetch('w.pt')\n\n    def predict(self, prompt: str = Input(description='p')) -> str:\n"
        "        torch.cuda.synchronize()\n        return prompt\n"),
}


def _tree(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return analyze(tmp_path, AnalyzeOptions(jobs=1))


def _at(report, path):
    return [f for f in report.findings if f.path == path]


def test_a_cog_predictor_nothing_imports_is_a_separate_deployment(tmp_path):
    root = tmp_path / "proj"
    report = _tree(root, PROJECT)
    found = _at(report, "predict.py")
    assert found and all(f.reach == "optional" and f.reach_reason == REASON and not f.counted for f in found)
    # what only the predictor imports goes with it; the product's package it shares stays the product's
    helper = _at(report, "cog_weights.py")
    assert helper and all(f.reach == "optional" and "separate deployment: predict.py" in f.reach_reason for f in helper)
    assert [f.reach for f in _at(report, "llava/model.py")] == ["runs"]
    assert report.project.deployments == ["predict.py"]
    result = port(root, report, PortOptions(unsafe=True))
    assert "predict.py" not in [r.path for r in result.rewrites] and "predict.py" not in result.entries
    assert "llava/model.py" in [r.path for r in result.rewrites]


def test_a_predictor_the_product_imports_is_the_products_code(tmp_path):
    files = {**PROJECT, "cli.py": "from predict import Predictor\n\n\nif __name__ == '__main__':\n    Predictor().setup()\n"}
    report = _tree(tmp_path / "proj", files)
    assert [f.reach for f in _at(report, "predict.py") if f.rule.startswith("DEV")] and \
        all(f.reach == "runs" for f in _at(report, "predict.py"))
    assert report.project.deployments == []


def test_the_manifest_decides_which_file_is_the_predictor_not_its_name(tmp_path):
    # no manifest: predict.py is no deployment (whatever else decides its reach: here its class is named nowhere)
    without = {name: text for name, text in PROJECT.items() if name != "cog.yaml"}
    report = _tree(tmp_path / "without", without)
    assert _at(report, "predict.py") and all(f.reach_reason != REASON for f in _at(report, "predict.py"))
    assert report.project.deployments == []
    # the manifest names another file, relative to its own folder: that one is the predictor, predict.py is not
    moved = {**without, "serve/cog.yaml": 'predict: "handler.py:Predictor"\n', "serve/handler.py": PROJECT["predict.py"]}
    report = _tree(tmp_path / "moved", moved)
    assert all(f.reach == "optional" and f.reach_reason == REASON for f in _at(report, "serve/handler.py"))
    assert _at(report, "predict.py") and all(f.reach_reason != REASON for f in _at(report, "predict.py"))
    assert report.project.deployments == ["serve/handler.py"]


def test_only_a_predict_key_naming_a_python_file_of_the_tree_is_read(tmp_path):
    backends = load_context_conventions().backends
    manifests = {"a/cog.yaml": 'predict: "missing.py:Predictor"\n', "b/cog.yaml": "predict: [1, 2]\n",
                 "c/cog.yaml": 'image: "r8.im/x"\n', "d/cog.yaml": 'predict: "../e/p.py:P"\n',
                 "e/cog.yaml": 'predict: "./p.py:P"\n', "e/p.py": ""}
    files = []
    for name, text in manifests.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        files.append(ProjectFile(name, str(tmp_path / name), "yaml" if name.endswith(".yaml") else "python",
                                 len(text.encode())))
    assert hosted_predictors(files, backends) == {"e/p.py": REASON}
