"""NVIDIA serving deployments and accelerator kits (analyzer/context/nvidia_kits.py): a folder that is NVIDIA's Triton
Inference Server + TensorRT-LLM serving kit is one item, not a port item per site (round 19: CosyVoice's
runtime/triton_trtllm/, A1 3-50, A2 51-100, B1 1-16, B2 20-33)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.nvidia_kits import launches
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port
from ascend_feasibility.knowledge import load_context_conventions

KIT = "runtime/triton_trtllm/"

SERVING_KIT = {
    "requirements.txt": "torch==2.3.1\n",
    "cosyvoice/__init__.py": "",
    "cosyvoice/cli/__init__.py": "",
    "cosyvoice/cli/model.py": (
        "import torch\n\n\nclass Model:\n    def __init__(self):\n"
        "        self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n\n"
        "    def load_trt(self, path):\n        import tensorrt as trt\n        return trt.Runtime(None)\n"),
    "example.py": "import torch\nfrom cosyvoice.cli.model import Model\nm = Model()\nx = torch.ones(2).cuda()\n",
    "runtime/python/server.py": (
        "import torch\nfrom cosyvoice.cli.model import Model\ndevice = torch.device('cuda')\nmodel = Model().to(device)\n"),
    KIT + "Dockerfile.server": (
        "FROM nvcr.io/nvidia/tritonserver:25.06-trtllm-python-py3\nCOPY requirements.txt /workspace/\n"
        "RUN pip install -r /workspace/requirements.txt\n"),
    KIT + "requirements.txt": "onnxruntime-gpu\nlightning\n",
    KIT + "run.sh": (
        "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0\n"
        "python3 scripts/convert_checkpoint.py --model_dir m --output_dir c\n"
        "trtllm-build --checkpoint_dir c --output_dir e\n"
        "CUDA_VISIBLE_DEVICES=0 tritonserver --model-repository model_repo\n"
        "CUDA_VISIBLE_DEVICES=0 mpirun -np 1 trtllm-serve serve e\n"
        "CUDA_VISIBLE_DEVICES=0 python3 offline_inference.py --backend trtllm\n"),
    KIT + "scripts/convert_checkpoint.py": "import torch\nimport tensorrt_llm\nfrom tensorrt_llm.models import QWenForCausalLM\n",
    KIT + "scripts/fill_template.py": "import sys\nprint(sys.argv)\n",
    KIT + "token2wav.py": (
        "import torch\n\n\nclass Token2Wav:\n    def __init__(self, device_id=0):\n"
        "        self.device = f'cuda:{device_id}'\n\n    def load_trt(self, path):\n"
        "        import tensorrt as trt\n        return trt.Runtime(None)\n\n    def forward(self):\n"
        "        torch.cuda.current_stream().synchronize()\n"),
    KIT + "offline_inference.py": (
        "import torch\nfrom token2wav import Token2Wav\n\n\ndef main(backend):\n"
        "    torch.cuda.set_device(0)\n    if backend == 'trtllm':\n        import tensorrt_llm\n"
        "        return tensorrt_llm\n    return Token2Wav()\n"),
    KIT + "client_grpc.py": "import numpy as np\nimport tritonclient.grpc as grpcclient\n",
    KIT + "model_repo/token2wav/config.pbtxt": 'name: "token2wav"\nbackend: "python"\n',
    KIT + "model_repo/token2wav/1/model.py": (
        "import torch\nimport triton_python_backend_utils as pb_utils\nfrom cosyvoice.cli.model import Model\n\n\n"
        "class TritonPythonModel:\n    def initialize(self, args):\n        self.device = torch.device('cuda')\n"),
    KIT + "model_repo/token2wav_dit/config.pbtxt": 'name: "token2wav_dit"\nbackend: "python"\n',
    KIT + "model_repo/token2wav_dit/1/model.py": (
        "import torch\nimport triton_python_backend_utils as pb_utils\nfrom token2wav_dit import Dit\n\n\n"
        "class TritonPythonModel:\n    def initialize(self, args):\n        self.model = Dit()\n"),
    KIT + "model_repo/token2wav_dit/1/token2wav_dit.py": (
        "import torch\n\n\nclass Dit:\n    def cache(self):\n        return torch.zeros(1, 1, 0, device='cuda')\n"),
}


def _tree(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return analyze(tmp_path, AnalyzeOptions(jobs=1))


def _in_kit(report):
    return [f for f in report.findings if f.path.startswith(KIT)]


def test_a_triton_tensorrt_llm_serving_kit_is_one_counted_package_item(tmp_path):
    report = _tree(tmp_path / "kit", SERVING_KIT)
    (item,) = _in_kit(report)
    # the one item a port needs: tensorrt-llm has no Ascend build (A2 82), with the Ascend serving route
    assert (item.rule, item.symbol, item.reach, item.counted) == ("DEP002", "tensorrt-llm", "runs", True)
    # a serving stack: the item belongs to inference, not to the phase of the conversion script it sits in
    assert item.path == KIT + "scripts/convert_checkpoint.py" and item.phases == ["inference"]
    assert f"{KIT[:-1]}/ is an NVIDIA serving deployment" in item.message.en
    assert "vllm-ascend" in item.message.en and "MindIE LLM" in item.message.zh
    # every other site is listed, not counted: the nested imports, the model repository, its helper module, the
    # Dockerfile, requirements and launch lines (A1 5, 14, 24; A2 52, 53; B1 1, 6, 7, 12; B2 32)
    for site in ("Dockerfile.server:1", "requirements.txt:1", "requirements.txt:2", "run.sh:2", "run.sh:5",
                 "run.sh:6", "model_repo/token2wav/1/model.py:8", "model_repo/token2wav_dit/1/token2wav_dit.py:6",
                 "token2wav.py:6", "token2wav.py:13", "offline_inference.py:6"):
        assert KIT + site in item.sites, site
    # the project's own serving folder beside it and the product package stay as they were
    assert [f.reach for f in report.findings if f.path == "runtime/python/server.py"] == ["runs"]
    assert [f.reach for f in report.findings if f.path == "cosyvoice/cli/model.py" and f.rule == "DEV104"] == ["runs"]


def test_the_port_leaves_a_serving_kit_as_it_is(tmp_path):
    # port round 19 hunk 5: `torch.cuda.current_stream()` → `_device.current_stream()` inside a Triton + TensorRT model
    # (and `_device.current_stream().cuda_stream` beside it): nothing of the kit runs on Ascend, so nothing is rewritten
    root = tmp_path / "kit"
    report = _tree(root, SERVING_KIT)
    result = port(root, report, PortOptions(unsafe=True))
    assert not [o for o in result.outcomes if o.finding.path.startswith(KIT)]
    assert not [path for path in result.new_files if path.startswith(KIT)]  # no device module for it
    assert not [r.path for r in result.rewrites if r.path.startswith(KIT) and r.new.count("_device") != r.old.count("_device")]
    assert "cosyvoice/cli/model.py" in [r.path for r in result.rewrites]  # the product beside it is ported


def test_a_product_package_with_one_optional_tensorrt_function_is_not_a_kit(tmp_path):
    # cosyvoice/cli/model.py imports tensorrt inside load_trt and the product imports it: each finding stays its own
    report = _tree(tmp_path / "kit", SERVING_KIT)
    own = [(f.rule, f.reach) for f in report.findings if f.path == "cosyvoice/cli/model.py"]
    assert ("DEV104", "runs") in own and ("DEP002", "optional") in own
    assert not any(f.sites or "deployment" in f.message.en for f in report.findings if f.path.startswith("cosyvoice/"))
    # a scripts folder nothing imports, two of whose three scripts import tensorrt inside a function, with no
    # deployment beside them (no model repository, Triton module or serving launch): its training script stays counted
    tools = {"requirements.txt": "torch\n", "app.py": "import torch\nx = torch.ones(1).cuda()\n",
             "tools/train.py": "import torch\ntorch.cuda.set_device(0)\n",
             "tools/export_trt.py": "import torch\n\n\ndef export():\n    import tensorrt\n    torch.cuda.synchronize()\n",
             "tools/bench_trt.py": "import torch\n\n\ndef bench():\n    import tensorrt\n    torch.cuda.synchronize()\n"}
    report = _tree(tmp_path / "tools", tools)
    assert [(f.rule, f.reach) for f in report.findings if f.path == "tools/train.py"] == [("DEV103", "runs")]
    assert len([f for f in report.findings if f.path.startswith("tools/")]) > 3


def test_a_serving_kit_the_product_imports_is_part_of_the_product(tmp_path):
    used = {**SERVING_KIT, "example.py": SERVING_KIT["example.py"] + "from runtime.triton_trtllm import token2wav\n"}
    assert len(_in_kit(_tree(tmp_path / "used", used))) > 1
    # a bare `import model` of a root script loads its own model.py, not a Triton model.py of the kit
    beside = {**SERVING_KIT, "model.py": "import torch\n", "train.py": "import torch\nfrom model import Net\n"}
    assert len(_in_kit(_tree(tmp_path / "beside", beside))) == 1


def test_without_its_model_configurations_and_launches_nested_imports_make_no_kit(tmp_path):
    # the same folder without config.pbtxt, Triton modules, Dockerfile and scripts: only convert_checkpoint.py
    # imports a runtime at its top level, so the folder is no kit and its sites stay one by one
    bare = {name: text for name, text in SERVING_KIT.items()
            if not name.endswith(("config.pbtxt", "Dockerfile.server", "run.sh", "client_grpc.py"))
            and "model_repo" not in name}
    assert len(_in_kit(_tree(tmp_path / "bare", bare))) > 1


def test_launches_reads_the_commands_not_the_words(tmp_path):
    backends = load_context_conventions().backends

    def read(name: str, text: str) -> tuple[bool, bool]:
        path = tmp_path / name
        path.write_text(text)
        return launches(str(path), path.stat().st_size, name.startswith("Dockerfile"), backends)

    assert read("a.sh", "CUDA_VISIBLE_DEVICES=0 tritonserver --model-repository r\n") == (True, False)
    assert read("b.sh", "mpirun -np 1 /usr/local/bin/trtllm-serve serve e\n") == (True, False)
    assert read("c.sh", "trtllm-build --checkpoint_dir c\n") == (False, True)  # an engine build: a kit, no deployment
    assert read("d.sh", 'echo "then start tritonserver"\n# tritonserver\n') == (False, False)
    assert read("Dockerfile.a", "FROM nvcr.io/nvidia/tritonserver:25.06-trtllm-python-py3\n") == (True, False)
    assert read("Dockerfile.b", "FROM nvcr.io/nvidia/pytorch:24.01-py3\nRUN echo tritonserver\n") == (False, False)


def test_a_device_mask_for_an_nvidia_only_program_is_other_backend(tmp_path):
    # round 19 B1 (c): `CUDA_VISIBLE_DEVICES=0 tritonserver ...` outside any kit selects GPUs for NVIDIA's server
    script = ("#!/bin/bash\nCUDA_VISIBLE_DEVICES=0 tritonserver --model-repository r\n"
              "CUDA_VISIBLE_DEVICES=1 mpirun -np 1 trtllm-serve serve e\n"
              "CUDA_VISIBLE_DEVICES=0 python train.py\n")
    report = _tree(tmp_path / "serve", {"train.py": "import torch\nx = torch.ones(1).cuda()\n", "serve.sh": script})
    found = {f.line: f for f in report.findings if f.path == "serve.sh" and f.rule == "DEV201"}
    assert found[2].reach == "other-backend" and not found[2].counted and "for tritonserver" in found[2].reach_reason
    assert found[3].reach == "other-backend" and "for trtllm-serve" in found[3].reach_reason
    # the same mask for the project's own PyTorch script is the port item it was
    assert found[4].reach == "runs" and found[4].counted


BESIDE_INFERENCE = {
    **SERVING_KIT,
    # the project's own PyTorch inference (F5-TTS's infer_cli.py beside runtime/triton_trtllm/): a CLI that generates
    "cosyvoice/cli/infer_cli.py": (
        "import torch\nfrom cosyvoice.cli.model import Model\n\n\ndef main():\n    model = Model()\n    model.eval()\n"
        "    with torch.inference_mode():\n        return model.generate(torch.ones(2))\n\n\n"
        "if __name__ == '__main__':\n    main()\n"),
    # a kit script run to export the vocoder for a TensorRT engine (port round 20 hunk 3)
    KIT + "scripts/export_vocoder_to_onnx.py": (
        "import torch\nimport tensorrt\n\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n"
        "    torch.onnx.export(model, torch.ones(2).cuda(), 'v.onnx')\n\n\nif __name__ == '__main__':\n    main()\n"),
}


def test_a_serving_kit_beside_the_projects_pytorch_inference_is_an_optional_inference_item(tmp_path):
    report = _tree(tmp_path / "kit", BESIDE_INFERENCE)
    (item,) = _in_kit(report)
    assert (item.rule, item.symbol, item.reach, item.counted) == ("DEP002", "tensorrt-llm", "optional", False)
    assert item.phases == ["inference"]  # an alternative serving deployment: inference only, whatever its file serves
    assert "alternative NVIDIA serving deployment" in item.reach_reason
    assert "the PyTorch path is what the port moves" in item.reach_reason
    assert KIT + "scripts/export_vocoder_to_onnx.py:6" in item.sites
    drivers = " ".join(d.en if hasattr(d, "en") else str(d) for d in report.verdict.drivers)
    assert "tensorrt" not in drivers.lower()



def test_the_port_gives_no_kit_script_step_0_and_the_product_script_beside_it_does(tmp_path):
    # port round 20 hunk 3: `import torch_npu` (Step 0) went into the kit's scripts with a `__main__` guard
    # (scripts/convert_checkpoint.py, scripts/export_vocoder_to_onnx.py, offline_inference.py): the report names the
    # kit a separate deployment, and the port changes no file of it
    root = tmp_path / "kit"
    report = _tree(root, BESIDE_INFERENCE)
    assert report.project.deployments == [KIT[:-1]]
    assert KIT + "scripts/export_vocoder_to_onnx.py" in [e.path for e in report.phase_matrix.entries]
    result = port(root, report, PortOptions(unsafe=True))
    assert not [path for path in result.entries if path.startswith(KIT)]
    assert not [r.path for r in result.rewrites if r.path.startswith(KIT)]
    assert not [path for path in result.new_files if path.startswith(KIT)]
    # the project's own inference script beside the kit is an entry and loads torch_npu
    assert "cosyvoice/cli/infer_cli.py" in result.entries
    (cli,) = [r for r in result.rewrites if r.path == "cosyvoice/cli/infer_cli.py"]
    assert "Step 0" in cli.new and "torch_npu" in cli.new
