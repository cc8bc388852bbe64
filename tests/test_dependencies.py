"""Manifests read statically, and the project-level judgement of dependencies."""

from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import manifests, parsing

from tests.helpers import write_tree as write


def names(declarations):
    return [(d.name, d.specifier) for d in declarations]


def test_requirements_with_includes_options_urls_editables_and_bad_lines(tmp_path):
    (tmp_path / "requirements.txt").write_text(
        "# pinned for CUDA 12.1\n"
        "torch==2.1.0+cu121 ; python_version > '3.8'\n"
        "--extra-index-url https://download.pytorch.org/whl/cu121\n"
        "flash-attn>=2.5 \\\n    --no-build-isolation\n"
        "-r requirements/dev.txt\n"
        "-e git+https://github.com/org/repo.git#egg=mylib\n"
        "https://example.org/wheels/flash_attn-2.5.8+cu122torch2.3-cp310-cp310-linux_x86_64.whl\n"
        "xformers[extra] == 0.0.23\n"
        "not a requirement !!\n",
        encoding="utf-8",
    )
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "dev.txt").write_text("pytest\n-r ../requirements.txt\n", encoding="utf-8")
    declarations, problems = manifests.parse_requirements(tmp_path, "requirements.txt", (tmp_path / "requirements.txt").read_text())
    assert names(declarations) == [
        ("torch", "==2.1.0+cu121"), ("flash-attn", ">=2.5"), ("pytest", ""), ("mylib", ""), ("flash-attn", ""),
        ("xformers", "==0.0.23"),
    ]
    assert declarations[0].local_version == "+cu121" and declarations[0].line == 2
    assert declarations[2].path == "requirements/dev.txt"
    reasons = [p.reason for p in problems]
    assert any("not a requirement" in r for r in reasons) and any("include cycle" in r for r in reasons)


def test_pyproject_pep621_groups_poetry_and_pdm():
    text = (
        '[project]\ndependencies = ["torch>=2.1", "transformers==4.30.0"]\n'
        '[project.optional-dependencies]\nfa = ["flash-attn"]\n'
        '[dependency-groups]\ndev = ["pytest"]\n'
        '[tool.poetry.dependencies]\npython = "^3.10"\naccelerate = "^0.21.0"\n'
        '[tool.pdm.dev-dependencies]\nlint = ["ruff"]\n'
    )
    declarations, problems = manifests.parse_pyproject("pyproject.toml", text)
    assert names(declarations) == [
        ("torch", ">=2.1"), ("transformers", "==4.30.0"), ("flash-attn", ""), ("pytest", ""),
        ("accelerate", ">=0.21.0,<0.22"), ("ruff", ""),
    ]
    assert [d.group for d in declarations][:4] == ["main", "main", "fa", "dev"]
    assert problems == []
    assert manifests.parse_pyproject("pyproject.toml", "[project\n")[1][0].reason.startswith("pyproject.toml not parsed")


def test_setup_py_is_read_from_its_syntax_tree_never_run():
    tree = parsing.parse(
        "python",
        b'import os\nos.system("rm -rf /")\nREQ = ["deepspeed>=0.12", "apex"]\n'
        b'setup(name="x", install_requires=REQ, extras_require={"gpu": ["cupy-cuda12x"]})\n',
    )
    declarations, _ = manifests.parse_setup_py("setup.py", tree)
    assert names(declarations) == [("deepspeed", ">=0.12"), ("apex", ""), ("cupy-cuda12x", "")]
    assert declarations[2].group == "gpu"


def test_setup_cfg_conda_environment_and_install_commands():
    cfg, _ = manifests.parse_setup_cfg(
        "setup.cfg", "[options]\ninstall_requires =\n    numpy\n    bitsandbytes>=0.41\n[options.extras_require]\ngpu = cupy\n"
    )
    assert names(cfg) == [("numpy", ""), ("bitsandbytes", ">=0.41"), ("cupy", "")]
    conda, _ = manifests.parse_conda_environment(
        "environment.yml",
        "dependencies:\n  - python >= 3.8\n  - pytorch::pytorch=2.1.0\n  - pytorch >= 1.13\n  - pytorch-cuda=12.1\n"
        "  - pip:\n    - flash-attn==2.5.8\n",
    )
    assert names(conda) == [
        ("python", ">=3.8"), ("torch", "==2.1.0"), ("torch", ">=1.13"), ("pytorch-cuda", "==12.1.*"), ("flash-attn", "==2.5.8"),
    ]
    tree = parsing.parse(
        "bash",
        b"pip install --no-cache-dir torch==2.1.0 flash-attn -r req.txt\npython -m pip install xformers\n"
        b"conda install -c pytorch pytorch=2.1 cudatoolkit=11.8\n",
    )
    installs, _ = manifests.parse_install_commands("Dockerfile", tree)
    assert names(installs) == [
        ("torch", "==2.1.0"), ("flash-attn", ""), ("xformers", ""), ("torch", "==2.1.*"), ("cudatoolkit", "==11.8.*"),
    ]
    # a conda create installs what it names (round 30 V6/B4: `conda create -n SUPIR python=3.8`, the environment's
    # Python); the environment's name after -n/--name and a prefix after -p are no packages
    tree = parsing.parse("bash", b"conda create -n pytorch python=3.8 -y\nmamba create --name numpy -c conda-forge "
                                 b"python=3.7.0 numpy=1.21\nconda create -p ./torch python=3.9\nconda install -n env scipy\n")
    created, _ = manifests.parse_install_commands("README.md", tree, "doc-install")
    assert names(created) == [("python", "==3.8.*"), ("python", "==3.7.0"), ("numpy", "==1.21.*"), ("python", "==3.9.*"),
                              ("scipy", "")]




def test_project_matrix_undeclared_imports_and_torch_fit(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch==2.6.0", "flash-attn", "transformers>=4.40"]\n',
        "demo/__init__.py": "",
        "demo/model.py": "import torch\nimport cv2\nimport demo.utils\nfrom . import utils\n\ndef f():\n    import wandb\n",
        "demo/utils.py": "import os\nimport einops\nimport nvidia_dali\n",
        "demo/torch.py": "",  # a module of the project named like a package does not hide the real one
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    matrix = {row.package: row for row in report.dependency_matrix}
    assert matrix["flash-attn"].classification == "needs_replacement" and matrix["flash-attn"].replacement is not None
    assert matrix["torch"].declared == "==2.6.0" and matrix["opencv-python"].imported
    assert matrix["opencv-python"].classification == "not_involved" and matrix["wandb"].sources == []
    undeclared = sorted(f.symbol for f in report.findings if f.rule == "DEP003")
    # Only an undeclared package that may ship CUDA-only builds is an Ascend concern: einops and opencv are not,
    # wandb is imported lazily inside a function.
    assert undeclared == ["nvidia-dali"]
    assert "torch" in {row.package for row in report.dependency_matrix}
    assert report.torch_fit.releases == ["2.6.0.post5", "2.6.0.post3", "2.6.0"]
    assert report.torch_fit.recommended == "torch_npu 2.6.0.post5 (torch 2.6.0, CANN 8.5.0)"
    assert {f.rule for f in report.findings if f.domain == "dependencies"} >= {"DEP015", "DEP003", "DEP010"}
    # flash-attn is declared and imported nowhere: a line to drop (DEP015), not a package to replace (DEP001)
    assert [(f.rule, f.severity) for f in report.findings if f.symbol == "flash-attn"] == [("DEP015", "low")]


def test_a_declared_package_needing_replacement_is_a_rewrite_only_where_the_project_imports_it(tmp_path):
    # Open-Sora-Plan's pyproject pins xformers, which its code names only in comments
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch==2.6.0", "xformers", "flash-attn", "cupy-cuda12x"]\n',
        "mylib/__init__.py": "",
        "mylib/model.py": "import torch\n# import xformers.ops\nfrom flash_attn import flash_attn_func\n",
        "train.py": "from mylib.model import flash_attn_func\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    declared = {(f.symbol, f.rule, f.severity, f.path) for f in report.findings if f.path == "pyproject.toml" and f.rule.startswith("DEP0")
                and f.symbol in {"xformers", "flash-attn", "cupy-cuda12x"}}
    assert declared == {("xformers", "DEP015", "low", "pyproject.toml"), ("cupy-cuda12x", "DEP015", "low", "pyproject.toml"),
                        ("flash-attn", "DEP001", "high", "pyproject.toml")}
    matrix = {row.package: row for row in report.dependency_matrix}
    assert not matrix["xformers"].imported and matrix["flash-attn"].imported


def test_the_projects_own_namespace_package_is_not_the_library_sharing_its_import_name(tmp_path):
    # llm-awq publishes itself as `awq` from a folder without __init__.py; AutoAWQ's modules are also `awq`
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "awq"\ndependencies = ["torch==2.6.0"]\n',
        "awq/quantize/quantizer.py": "import torch\ndef real_quantize_model_weight(model):\n    return model\n",
        "awq/entry.py": "from awq.quantize.quantizer import real_quantize_model_weight\nreal_quantize_model_weight(None)\n",
        "demo/run.py": "import awq\nfrom awq.quantize.quantizer import real_quantize_model_weight\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert not [f for f in report.findings if f.rule in {"DEP001", "DEP030"}]
    assert "autoawq" not in {row.package for row in report.dependency_matrix}
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["torch==2.6.0"]\n')
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))  # published as another name: AutoAWQ's `awq` wins on import
    assert {f.rule for f in report.findings if f.symbol and "awq" in f.symbol} >= {"DEP001", "DEP030"}


def test_a_package_import_is_shown_where_it_is_plain_not_where_it_is_caught(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch==2.6.0"]\n',
        "mypkg/__init__.py": "",
        "mypkg/a_model.py": "try:\n    import cupy\n    HAS = True\nexcept:\n    HAS = False\n",
        "mypkg/b_model.py": "import torch\nimport cupy\n",
        "train.py": "from mypkg import a_model, b_model\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    sites = [(f.path, f.reach) for f in report.findings if f.rule.startswith("DEP") and f.symbol and "cupy" in f.symbol]
    assert sites == [("mypkg/b_model.py", "runs")]


def test_xformers_helpers_that_are_not_attention_get_their_own_replacement(tmp_path):
    # round 12 (audiocraft, open_lm): xops.unbind and xops.SwiGLU were told to become attention calls
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch==2.6.0", "xformers"]\n',
        "model.py": ("import torch\nimport xformers.ops as xops\n\n\ndef f(qkv):\n    q, k, v = xops.unbind(qkv, dim=2)\n"
                     "    return xops.SwiGLU(8, 16)\n"),
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    advice = {f.symbol: f.replacement.en for f in report.findings if f.rule == "DEP030"}
    assert advice.keys() == {"xformers.ops.unbind", "xformers.ops.SwiGLU"}
    assert advice["xformers.ops.unbind"].startswith("torch.unbind(x, dim)")
    assert "npu_swiglu" in advice["xformers.ops.SwiGLU"] and "w3(F.silu(x1) * x2)" in advice["xformers.ops.SwiGLU"]
    assert not any("scaled_dot_product_attention" in text for text in advice.values())


def test_a_declared_package_another_library_loads_for_the_project_is_in_use(tmp_path):
    # llama-recipes declares bitsandbytes and never imports it: transformers' BitsAndBytesConfig loads it
    files = {
        "requirements.txt": "torch==2.6.0\nbitsandbytes\n", "mylib/__init__.py": "",
        "mylib/quant.py": "from transformers import BitsAndBytesConfig\n\nconfig = BitsAndBytesConfig(load_in_8bit=True)\n",
        "train.py": "from mylib.quant import config\n",
    }
    write(tmp_path / "a", files)
    assert [f.rule for f in analyze(tmp_path / "a", AnalyzeOptions(jobs=1)).findings if f.symbol == "bitsandbytes"] == ["DEP001"]
    files["mylib/quant.py"] = "# BitsAndBytesConfig(load_in_8bit=True) once ran here\nconfig = None\n"
    write(tmp_path / "b", files)
    assert [f.rule for f in analyze(tmp_path / "b", AnalyzeOptions(jobs=1)).findings if f.symbol == "bitsandbytes"] == ["DEP015"]
    # InternVL's requirements/segmentation.txt declares mmcv-full, the catalog's mmcv by an alias, which its code imports
    # (its ops, through mmseg: a project using only mmcv's pure-Python parts has nothing to replace)
    write(tmp_path / "c", {"requirements.txt": "torch==2.6.0\nmmcv-full==1.6.2\n", "mylib/__init__.py": "",
                           "mylib/data.py": "import mmcv\nimport mmseg\n", "train.py": "import mylib.data\n"})
    assert [f.rule for f in analyze(tmp_path / "c", AnalyzeOptions(jobs=1)).findings if f.symbol == "mmcv-full"] == ["DEP001"]
    # a declaration by one of a record's alias names (cupy-cuda12x is the cupy record's), imported as the record's module
    write(tmp_path / "d", {"requirements.txt": "cupy-cuda12x\n", "mylib/__init__.py": "", "mylib/data.py": "import cupy\n",
                           "train.py": "import mylib.data\n"})
    assert [f.rule for f in analyze(tmp_path / "d", AnalyzeOptions(jobs=1)).findings if f.symbol == "cupy-cuda12x"] == ["DEP002"]


MIXIN = (  # a copy of diffusers' ModelMixin methods: the project's own, which load no xformers by themselves
    "import torch\n"
    "class ModelMixin(torch.nn.Module):\n"
    "    def set_use_memory_efficient_attention_xformers(self, valid, attention_op=None):\n"
    "        for module in self.children():\n"
    "            if hasattr(module, 'set_use_memory_efficient_attention_xformers'):\n"
    "                module.set_use_memory_efficient_attention_xformers(valid, attention_op)\n"
    "    def enable_xformers_memory_efficient_attention(self, attention_op=None):\n"
    "        self.set_use_memory_efficient_attention_xformers(True, attention_op)\n"
)


def test_an_unimported_declared_package_is_a_line_to_delete_whatever_its_class(tmp_path):
    """Round 23 Show-o (verdicts V5, B1 row 23): a pip freeze pins pynvml and xformers, which nothing imports. pynvml
    (12: pynvml_utils; its `pynvml` module comes from nvidia-ml-py) is unimported when no module of nvidia-ml-py is,
    and a file that defines diffusers' xformers switches itself (a copied ModelMixin) is no use through diffusers:
    both are DEP015 (delete the line), not DEP001 (a 1-8 h replacement)."""
    files = {"requirements.txt": "torch==2.2.0\npynvml==11.5.0\nxformers==0.0.23\n", "mylib/__init__.py": "",
             "mylib/modeling_utils.py": MIXIN, "train.py": "import mylib.modeling_utils\n"}
    write(tmp_path / "a", files)
    rules = {f.symbol: f.rule for f in analyze(tmp_path / "a", AnalyzeOptions(jobs=1)).findings
             if f.path == "requirements.txt" and f.symbol in {"pynvml", "xformers"}}
    assert rules == {"pynvml": "DEP015", "xformers": "DEP015"}
    # imported (`import pynvml` is nvidia-ml-py's module), or switched on through diffusers' pipeline: still DEP001
    files["train.py"] = ("import pynvml\nfrom diffusers import DiffusionPipeline\npynvml.nvmlInit()\n"
                         "pipe = DiffusionPipeline.from_pretrained('x')\npipe.enable_xformers_memory_efficient_attention()\n")
    write(tmp_path / "b", files)
    rules = {f.symbol: f.rule for f in analyze(tmp_path / "b", AnalyzeOptions(jobs=1)).findings
             if f.path == "requirements.txt" and f.symbol in {"pynvml", "xformers"}}
    assert rules == {"pynvml": "DEP001", "xformers": "DEP001"}


def test_a_gpu_runtime_package_nothing_imports_is_a_line_to_delete(tmp_path):
    """Round 31 A1 class 9: onnxruntime-gpu (whose wheel ships the `onnxruntime` module) pinned in requirements.txt
    and imported by no file is DEP015 (drop or swap the line, low), not DEP001's high replacement; a file importing
    onnxruntime, or insightface (which imports onnxruntime itself), keeps DEP001."""
    files = {"requirements.txt": "torch==2.2.0\nonnxruntime-gpu==1.13.1\n", "infer.py": "import torch\nx = torch.zeros(1)\n"}
    write(tmp_path / "a", files)
    found = [(f.rule, f.severity) for f in analyze(tmp_path / "a", AnalyzeOptions(jobs=1)).findings
             if f.path == "requirements.txt" and f.symbol == "onnxruntime-gpu"]
    assert found == [("DEP015", "low")]
    # imported, or loaded for the project by a library it imports (insightface imports onnxruntime itself): in use
    uses = {"b": "import onnxruntime as ort\nsession = ort.InferenceSession('m.onnx', providers=['CUDAExecutionProvider'])\n",
            "c": "from insightface.app import FaceAnalysis\napp = FaceAnalysis(providers=['CUDAExecutionProvider'])\n"}
    for name, code in uses.items():
        write(tmp_path / name, {**files, "infer.py": code})
        found = [(f.rule, f.severity) for f in analyze(tmp_path / name, AnalyzeOptions(jobs=1)).findings
                 if f.path == "requirements.txt" and f.symbol == "onnxruntime-gpu"]
        assert found == [("DEP001", "high")], name

ORT_USE = "import onnxruntime as ort\nsession = ort.InferenceSession('m.onnx')\n"


def test_a_marker_keeping_a_cuda_package_off_aarch64_beside_an_aarch64_line_is_low(tmp_path):
    """GPT-SoVITS (round 25 B1 C5): onnxruntime-gpu on x86_64 only, onnxruntime on aarch64 (the usual Ascend server),
    and code importing onnxruntime. Moved from DEP001's rule examples: a one-file requirements project imports nothing,
    and onnxruntime-gpu unimported is DEP015's case now (test_a_gpu_runtime_package_nothing_imports_is_a_line_to_delete)."""
    cases = {
        "arm": ("onnxruntime; platform_machine == \"aarch64\"\nonnxruntime-gpu; platform_machine == \"x86_64\" or "
                "sys_platform == \"win32\"\n", [("DEP001", "low", 2)]),
        # a marker that does not pick the machine (a Python version) keeps the package's own finding
        "python": ("onnxruntime-gpu; python_version >= \"3.8\"\n", [("DEP001", "high", 1)]),
        # x86_64 only, and no line for aarch64: the port still has to choose what the Ascend host installs
        "x86": ("onnxruntime-gpu; platform_machine == \"x86_64\"\n", [("DEP001", "high", 1)]),
    }
    for name, (requirements, expected) in cases.items():
        write(tmp_path / name, {"requirements.txt": requirements, "infer.py": ORT_USE})
        report = analyze(tmp_path / name, AnalyzeOptions(jobs=1))
        found = [(f.rule, f.severity, f.line) for f in report.findings
                 if f.path == "requirements.txt" and f.symbol == "onnxruntime-gpu"]
        assert found == expected, name
        if name == "arm":
            [site] = [f for f in report.findings if f.symbol == "onnxruntime-gpu"]
            assert "Nothing to change on an aarch64 Ascend host" in site.replacement.en
            # the aarch64 line itself: the CPU package, nothing to replace
            assert not [f for f in report.findings if f.path == "requirements.txt" and f.line == 1
                        and f.rule in {"DEP001", "DEP015"}]

def test_torch_pins_are_fitted_per_file_and_the_main_manifest_answers(tmp_path):
    write(tmp_path, {
        "requirements.txt": "torch>=2.4\n",
        "docker/Dockerfile": "FROM python:3.11\nRUN pip install torch==2.2.1\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    verdicts = {(f.path, f.rule) for f in report.findings if f.rule in {"DEP010", "DEP012"}}
    assert verdicts == {("requirements.txt", "DEP010"), ("docker/Dockerfile", "DEP012")}
    assert report.torch_fit.declared == ">=2.4" and report.torch_fit.recommended.startswith("torch_npu 2.12.0")


UV_EXPORT = (
    "# This file was autogenerated by uv via the following command:\n"
    "#    uv export --format requirements-txt --no-hashes --group cuda12 --output-file requirements.txt\n"
    "bitsandbytes==0.49.1 ; platform_machine == 'x86_64'\n"
    "    # via open-instruct\n"
    "torch==2.10.0 ; sys_platform == 'darwin'\n"
    "torch==2.10.0+cu128 ; platform_machine == 'x86_64' and sys_platform == 'linux'\n"
    "torch==2.10.0+cu130 ; platform_machine == 'aarch64' and sys_platform == 'linux'\n"
    "    # via open-instruct\n"
    "torchvision==0.25.0+cu128 ; platform_machine == 'x86_64' and sys_platform == 'linux'\n"
    "torchvision==0.25.0+cu130 ; platform_machine == 'aarch64' and sys_platform == 'linux'\n"
)
PYPROJECT = '[project]\nname = "p"\ndependencies = ["torch>=2.10.0", "bitsandbytes>=0.41", "torchvision>=0.25.0"]\n'


def test_a_resolver_export_is_known_by_its_header_or_its_via_comments():
    assert manifests.exported_by(UV_EXPORT)
    assert manifests.exported_by("torch==2.1.0\n    # via -r requirements.in\n")  # pip-compile without a header
    assert not manifests.exported_by("# needs CUDA\ntorch==2.1.0  # via pip\nnumpy\n")


def test_a_package_declared_on_several_lines_of_one_manifest_is_one_finding_with_those_lines_as_sites(tmp_path):
    # TinyLlama's requirements.txt: `lightning==2.1.2` and `lightning[app]` are one dependency to change, not two;
    # another manifest naming it again is its own finding
    write(tmp_path, {
        "requirements.txt": "torch>=2.1.0\nlightning==2.1.2\nlightning[app]\naccelerate==0.20.0\naccelerate[testing]==0.20.0\n",
        "chat/requirements.txt": "lightning\n",
        # a Fabric whose accelerator the project passes on (a package that only lends its LightningModule is info)
        "train.py": "import torch\nimport lightning as L\nimport accelerate\nfabric = L.Fabric(accelerator=acc)\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = sorted((f.rule, f.path, f.line, tuple(f.sites or ())) for f in report.findings
                   if f.symbol and f.symbol.startswith(("lightning", "accelerate")) and f.rule in {"DEP001", "DEP004"})
    # each Lightning item also names the import of the file that builds the Fabric (train.py:2): its work is there,
    # and it belongs to that file's phases (tests/test_lightning_phases.py)
    assert found == [("DEP001", "chat/requirements.txt", 1, ("train.py:2",)),
                     ("DEP001", "requirements.txt", 2, ("requirements.txt:2", "requirements.txt:3", "train.py:2")),
                     ("DEP004", "requirements.txt", 4, ("requirements.txt:4", "requirements.txt:5"))]
    lightning = next(f for f in report.findings if f.rule == "DEP001" and f.path == "requirements.txt")
    assert "or the whole package" in lightning.message.en
    row = {r.package: r for r in report.dependency_matrix}["lightning"]
    assert "Keep Lightning" in row.replacement.en and "get_device_capability" in row.replacement.en


def test_an_exported_lock_adds_no_package_finding_of_its_own_and_one_cuda_build_per_package(tmp_path):
    write(tmp_path, {"pyproject.toml": PYPROJECT, "requirements.txt": UV_EXPORT,
                     "train.py": "import torch\nimport bitsandbytes\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    replacement = [(f.path, f.line) for f in report.findings if f.rule == "DEP001" and f.symbol == "bitsandbytes"]
    assert replacement == [("pyproject.toml", 3)]  # declared there; the export's line 3 is the same package
    builds = sorted((f.symbol.split("=")[0], f.line, tuple(f.sites)) for f in report.findings if f.rule == "DEP005")
    assert builds == [("torch", 6, ("requirements.txt:6", "requirements.txt:7")),
                      ("torchvision", 9, ("requirements.txt:9", "requirements.txt:10"))]


def test_the_target_follows_the_torch_the_lock_pins_inside_the_manifest_range(tmp_path):
    """torch>=2.10.0 alone would pick 2.12.0; the lock runs torch 2.10.0, whose newest torch_npu is 2.10.0.post4
    (knowledge/torch_npu/releases.toml: 2.10.0.post4 on v2.10.0-26.1.0, 2.10.0.post2 on v2.10.0-26.0.0)."""
    write(tmp_path, {"pyproject.toml": PYPROJECT, "requirements.txt": UV_EXPORT, "train.py": "import torch\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch_npu == "2.10.0.post4"
    assert "torch==2.10.0 (requirements.txt)" in report.target.reason.en and "torch>=2.10.0" in report.target.reason.en


def test_a_pin_outside_the_range_a_ranged_lock_or_a_nested_file_leaves_the_newest_release(tmp_path):
    for extra in ({"requirements.txt": "torch==2.1.0\n    # via p\n"},  # outside >=2.10.0
                  {"requirements.txt": "torch>=2.10.0,<2.12\n"},  # not one version
                  {"examples/demo/requirements.txt": "torch==2.10.0\n"}):  # an example's own pin
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        write(root, {"pyproject.toml": PYPROJECT, "train.py": "import torch\n", **extra})
        assert analyze(root, AnalyzeOptions(jobs=1)).target.torch_npu == "2.12.0", extra


def test_an_exact_pin_in_the_top_level_requirements_decides_the_target(tmp_path):
    write(tmp_path, {"pyproject.toml": PYPROJECT, "requirements.txt": "torch==2.10.0\n", "train.py": "import torch\n"})
    assert analyze(tmp_path, AnalyzeOptions(jobs=1)).target.torch_npu == "2.10.0.post4"


def test_the_range_the_lock_pins_inside_recommends_the_pinned_release(tmp_path):
    """The report does not tell the manifest's range to install 2.12.0 while the target is the lock's 2.10.0.post4."""
    write(tmp_path, {"pyproject.toml": PYPROJECT, "requirements.txt": UV_EXPORT, "train.py": "import torch\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    fits = {f.path: f.replacement.en for f in report.findings if f.rule == "DEP010"}
    assert fits["pyproject.toml"].startswith("Install torch_npu 2.10.0.post4 (torch 2.10.0")
    assert "[requirements.txt: torch==2.10.0]" in fits["pyproject.toml"]
    assert fits["requirements.txt"].startswith("Install torch_npu 2.10.0.post4")
    assert report.torch_fit.recommended.startswith("torch_npu 2.10.0.post4")


def test_a_calibration_script_is_told_where_to_calibrate_and_a_loader_how_to_serve(tmp_path):
    # Qwen's run_gptq.py (round 11, B rows 9 and 41): from_pretrained with a quantize config, quantize, save_quantized
    # produce a GPTQ checkpoint; only from_quantized serves one (AutoGPTQ auto_gptq/modeling/auto.py says so)
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch==2.6.0", "auto-gptq", "autoawq"]\n',
        "run_gptq.py": ("from auto_gptq import AutoGPTQForCausalLM, BaseQuantizeConfig\n"
                        "quantize_config = BaseQuantizeConfig(bits=4, group_size=128)\n"
                        "model = AutoGPTQForCausalLM.from_pretrained('m', quantize_config, device_map='auto')\n"
                        "model.quantize(data)\nmodel.save_quantized('out')\n"),
        "serve.py": "from auto_gptq import AutoGPTQForCausalLM\nmodel = AutoGPTQForCausalLM.from_quantized('out')\n",
        "run_awq.py": "from awq import AutoAWQForCausalLM\nmodel = AutoAWQForCausalLM.from_pretrained('m')\nmodel.quantize(tok)\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    calls = {(f.path, f.line): f.replacement for f in report.findings if f.rule == "DEP030"}
    for site in (("run_gptq.py", 3), ("run_awq.py", 2)):
        text = calls[site]
        assert "calibration on a CUDA or CPU host" in text.en and "msModelSlim" in text.en and "msModelSlim" in text.zh
        assert "serves none" in text.en
    assert "quantised inference path with NPU kernels" in calls[("serve.py", 2)].en
    assert "calibration" not in calls[("serve.py", 2)].en
    row = next(r for r in report.dependency_matrix if r.package == "auto-gptq")
    assert "from_quantized" in row.replacement.en and "msModelSlim" in row.replacement.en


INSTALL_README = (
    "# Demo\n\n## Installation\n\n```bash\n$ pip install torch==2.1.0+cu121 accelerate==0.18.0\n"
    "mim install mmcv-full==1.5.0\n```\n\n```python\nimport os  # pip install peft==0.1.0\n```\n\n"
    "Then run `pip install peft==0.3.0` from a shell.\n\npip install peft==0.3.0\n"
)


def test_install_lines_of_a_readme_choose_the_target_where_no_manifest_declares_torch(tmp_path):
    """InternImage's subproject READMEs pin `pip install torch==1.11.0+cu113` and `mim install mmcv-full==1.5.0` (scout
    14); fenced shell blocks, lines that start with an install and an install written as inline code in prose (round 28
    V1 V6: "Then run `pip install peft==0.3.0`") are read, never Python blocks or other prose."""
    write(tmp_path, {"README.md": INSTALL_README, "train.py": "import torch\nimport accelerate\nimport peft\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch_npu.startswith("2.1.0")
    assert "an install line of README.md" in report.target.reason.en
    rows = {row.package: (row.declared, row.sources) for row in report.dependency_matrix}
    assert rows["peft"] == ("==0.3.0", ["README.md:14", "README.md:16"]) and "mmcv-full" not in rows  # never imported: no row
    below = {f.symbol: f.severity for f in report.findings if f.rule == "DEP004"}
    assert below == {"accelerate==0.18.0": "medium", "peft==0.3.0": "info"}  # peft's older releases run (packages.toml)
    assert not [f for f in report.findings if f.path == "README.md" and f.rule not in {"DEP004", "DEP013"}]  # versions
    assert report.project.files_scanned == 1 and report.project.lines_scanned == 3  # a document is no code


def test_torch_pinned_only_in_an_install_document_is_declared_there(tmp_path):
    """HunyuanVideo's README installs torch==2.4.0 and its requirements.txt names no torch (round 16): the target
    follows the README's pin, so DEP013 says where torch is pinned (info), not that the project declares none."""
    write(tmp_path, {"README.md": "```bash\npip install torch==2.4.0 torchvision==0.19.0\n```\n",
                     "requirements.txt": "einops\n", "infer.py": "import torch\nimport einops\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch == "2.4.0"
    (finding,) = [f for f in report.findings if f.rule == "DEP013"]
    assert (finding.path, finding.line, finding.severity) == ("README.md", 2, "info")
    assert "pinned only in an install document, torch==2.4.0 (README.md:2)" in finding.message.en
    assert "declares no torch" not in finding.message.en
    # a README pin that no torch_npu release is built for: the target is not it, and the finding says so
    write(tmp_path, {"README.md": "```bash\npip install torch==1.10.0\n```\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP013"]
    # the same fact as DEP012 on a manifest's pin (round 30 B2 row 48): the same severity and hours
    assert (finding.path, finding.severity, finding.effort_hours.low, finding.effort_hours.high) == \
        ("README.md", "high", 2.0, 16.0)
    assert "holds no torch_npu release for that torch" in finding.message.en
    # no pin the target reads (open-r1's slurm/README.md sets up serving nodes, no code of the project): the project
    # declares no torch
    write(tmp_path, {"README.md": "# demo\n", "slurm/README.md": "```bash\npip install torch==2.5.1\n```\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP013"]
    assert finding.path == "infer.py" and "declares no torch requirement" in finding.message.en


def test_a_transformers_pin_below_its_npu_aware_release_matters_only_where_the_code_uses_what_it_adds(tmp_path):
    """transformers 4.32.0 adds the NPU arm of TrainingArguments' device choice and of set_seed (v4.32.0
    training_args.py:1832, trainer_utils.py:98). BLIP pins 4.15.0 and uses BERT classes and a tokenizer (round 16 B
    rows 24, 50): the pin runs as it is. A project that trains with Trainer needs the move."""
    write(tmp_path, {"requirements.txt": "transformers==4.15.0\n",
                     "models/med.py": "import torch\nfrom transformers import BertTokenizer\n"
                                      "from transformers.modeling_utils import PreTrainedModel\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP004"]
    assert finding.severity == "info" and "runs on Ascend as it is" in finding.message.en
    for code in ("from transformers import Trainer, TrainingArguments\nimport torch\n",
                 "import transformers\nimport torch\ntransformers.set_seed(0)\n",
                 "from transformers.trainer_utils import set_seed\nimport torch\n"):
        write(tmp_path, {"train.py": code})
        report = analyze(tmp_path, AnalyzeOptions(jobs=1))
        (finding,) = [f for f in report.findings if f.rule == "DEP004"]
        assert finding.severity == "medium" and "Move to 4.32.0 or later" in finding.replacement.en, code


def test_a_kept_package_whose_call_sites_carry_its_work_is_not_counted_again(tmp_path):
    """stable-audio-tools (round 16 B rows 2, 7): pytorch_lightning==2.1.0 and `pl.Trainer(accelerator="gpu")`. The
    accelerator is the package's one CUDA-only part and DEV701 carries it at the call; DEP001 at the import and the
    manifest line stays, at info and no hours, naming that site. With the accelerator from a variable (no call-site
    finding) DEP001 keeps its severity: it is the one pointer to the work."""
    write(tmp_path, {"setup.py": "from setuptools import setup\nsetup(name='x', install_requires=['pytorch_lightning==2.1.0'])\n",
                     "train.py": "import torch\nimport pytorch_lightning as pl\n"
                                 "trainer = pl.Trainer(accelerator='gpu', devices=1)\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    package = [f for f in report.findings if f.rule == "DEP001"]
    assert package and all(f.severity == "info" and f.effort_hours.high == 0 for f in package)
    assert all("DEV701 at train.py:3" in f.message.en and "not replaced" in f.message.en for f in package)
    assert not [i for i in report.effort.items if i.rule == "DEP001"]
    write(tmp_path, {"train.py": "import torch\nimport pytorch_lightning as pl\n"
                                 "def main(args):\n    return pl.Trainer(accelerator=args.accelerator)\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    package = [f for f in report.findings if f.rule == "DEP001"]
    assert package and all(f.severity == "high" for f in package)


def test_a_manifest_outranks_the_install_lines_of_a_readme(tmp_path):
    write(tmp_path, {"README.md": INSTALL_README, "requirements.txt": "torch>=2.10.0\naccelerate>=0.30\n",
                     "train.py": "import torch\nimport accelerate\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch_npu == "2.12.0" and "README" not in report.target.reason.en
    assert not [f for f in report.findings if f.rule == "DEP004" and f.symbol.startswith("accelerate")]


def test_accelerate_is_npu_aware_from_0_21_0(tmp_path):
    """accelerate v0.21.0 adds is_npu_available and MULTI_NPU (utils/imports.py, state.py), v0.20.3 has neither; DST051
    cites the same release (round 29 A2 row 84: `accelerate==0.21.0` was reported as older than Ascend support)."""
    write(tmp_path, {"requirements.txt": "torch>=2.10.0\naccelerate==0.21.0\n", "train.py": "import torch\nimport accelerate\n",
                     "old/requirements.txt": "torch>=2.10.0\naccelerate==0.20.3\n", "old/run.py": "import accelerate\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    below = {f.symbol for f in report.findings if f.rule == "DEP004" and f.symbol.startswith("accelerate")}
    assert below == {"accelerate==0.20.3"}


def test_the_install_guide_the_readme_links_chooses_the_target(tmp_path):
    """Round 29 V3: the root README hands its install steps to docs/prepare_env/install_guide.md (a folder without
    Python), which pins torch; a bundled project's docs (its own install.md, linked from nowhere) choose nothing."""
    guide = "# Install\n\n```bash\nconda install pytorch==2.1.0 torchvision -c pytorch -c nvidia\n```\n"
    bundled = "```bash\npip install torch==1.9.0+cu111\n```\n"
    files = {"docs/prepare_env/install_guide.md": guide, "run.py": "import torch\n",
             "models/arc/docs/install.md": bundled, "models/arc/net.py": "import torch\n"}
    write(tmp_path, {**files, "README.md": "# Demo\n\nPlease refer to [Installation Guide](docs/prepare_env/install_guide.md).\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch_npu.startswith("2.1.0")
    assert "an install line of docs/prepare_env/install_guide.md" in report.target.reason.en
    row = next(r for r in report.dependency_matrix if r.package == "torch")  # the bundled docs' pin is not its say
    assert (row.declared, row.sources) == ("==2.1.0", ["docs/prepare_env/install_guide.md:4"])
    guide_items = [f for f in report.findings if f.path == "docs/prepare_env/install_guide.md"]
    assert guide_items and all(f.role == "product" for f in guide_items)  # the project's setup, like the README
    # not linked (only named in prose): a docs folder without Python sets up nothing the target follows
    unlinked = tmp_path / "unlinked"
    write(unlinked, {**files, "README.md": "# Demo\n\nSee docs/prepare_env/install_guide.md, or [the web](https://x.org/install.md).\n"})
    report = analyze(unlinked, AnalyzeOptions(jobs=1))
    assert report.target.chosen_by == "default" and "declares no torch requirement" in report.target.reason.en


def test_pytorch3d_rasteriser_is_priced_and_its_transforms_are_not(tmp_path):
    """Round 29 V4: pytorch3d was "not in the catalog" though a renderer on the default path rasterises through it;
    its C++ ops have CUDA and CPU arms only (packages.toml), transforms and structures are plain PyTorch."""
    write(tmp_path / "render", {"requirements.txt": "torch>=2.10.0\npytorch3d\n", "render.py": (
        "import torch\nfrom pytorch3d.renderer import MeshRasterizer, RasterizationSettings\n\n\n"
        "def make(cameras):\n    return MeshRasterizer(cameras=cameras, raster_settings=RasterizationSettings(image_size=256))\n")})
    write(tmp_path / "pose", {"requirements.txt": "torch>=2.10.0\npytorch3d\n", "pose.py": (
        "import torch\nfrom pytorch3d.transforms import matrix_to_euler_angles\n\n\n"
        "def angles(m):\n    return matrix_to_euler_angles(m, 'XYZ')\n")})
    report = analyze(tmp_path / "render", AnalyzeOptions(jobs=1))
    render = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "pytorch3d"]
    row = next(r for r in report.dependency_matrix if r.package == "pytorch3d")
    assert render and render[0].severity != "info"
    assert row.classification == "needs_replacement" and ".cpu()" in row.replacement.en
    assert not [f for f in report.findings if f.rule == "DEP030"]  # settings and cameras are plain PyTorch: one item
    pose = [f for f in analyze(tmp_path / "pose", AnalyzeOptions(jobs=1)).findings
            if f.rule in {"DEP001", "DEP030"} and (f.symbol or "").startswith("pytorch3d")]
    assert pose and all(f.severity == "info" and f.rule == "DEP001" for f in pose)


def test_an_install_document_of_a_folder_without_python_does_not_choose_the_target(tmp_path):
    """open-r1's slurm/README.md pins torch==2.5.1 for its vLLM serving nodes; the code's torch is another matter."""
    write(tmp_path, {"slurm/README.md": "```bash\npip install torch==2.5.1\n```\n", "slurm/serve.slurm": "vllm serve\n",
                     "train/README.md": "```bash\npip install torch==2.1.0\n```\n", "train/run.py": "import torch\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch_npu.startswith("2.1.0") and "train/README.md" in report.target.reason.en
    write(tmp_path, {"train/README.md": "# no pins\n", "README_npu.md": "pip install torch_npu==2.1.0\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch_npu == "2.12.0" and report.project.npu_code == []  # an NPU guide is no NPU code


def test_an_install_document_keeps_only_its_install_commands_on_their_lines():
    """InternImage classification/README.md: a prose line inside a bash block (`unit test (should see all checking is
    True)`) broke the shell parse of every later command, so `pip install accelerate==0.18.0` (line 395) went unread."""
    from ascend_feasibility.analyzer.reading.install_docs import shell_view

    text = ("```bash\ncd ops\nunit test (should see it's True)\n```\n\n```bash\n$ pip install accelerate==0.18.0 \\\n"
            "    deepspeed==0.8.3\n```\n```python\npip install peft==0.1.0\n```\nconda create -n x && pip install timm==0.6.11\n")
    view = shell_view(text)
    assert view.splitlines()[6:8] == ["pip install accelerate==0.18.0 \\", "deepspeed==0.8.3"]
    declared, _ = manifests.parse_install_commands("README.md", parsing.parse("bash", view.encode()), "doc-install")
    assert [(d.name, d.specifier, d.line) for d in declared] == [
        ("accelerate", "==0.18.0", 7), ("deepspeed", "==0.8.3", 7), ("timm", "==0.6.11", 13)]


def test_the_root_readme_is_read_once_for_the_settings_and_the_scan(tmp_path, monkeypatch):
    """config reads the root README (its text picks a model generation); the scan reads its install lines from the
    same bytes rather than opening the file again."""
    from ascend_feasibility.analyzer.core import filework
    from ascend_feasibility.analyzer.reading import config

    write(tmp_path, {"README.md": INSTALL_README, "train.py": "import torch\nimport accelerate\nimport peft\n"})
    opened: list[str] = []
    read_bytes, read_contained = filework.read_bytes, config.read_contained

    def scan_read(path, *args):
        opened.append(Path(path).name)
        return read_bytes(path, *args)

    def settings_read(root, relative, *args):
        opened.append(relative)
        return read_contained(root, relative, *args)

    monkeypatch.setattr(filework, "read_bytes", scan_read)
    monkeypatch.setattr(config, "read_contained", settings_read)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert opened.count("README.md") == 1 and opened.count("train.py") == 1
    assert "an install line of README.md" in report.target.reason.en  # the scan still read its install lines


def _findings(root, rule):
    return [f for f in analyze(root, AnalyzeOptions(jobs=1)).findings if f.rule == rule]


def test_mmcv_1x_is_the_lite_package_and_only_its_ops_need_an_npu_build(tmp_path):
    """In mmcv 1.x `mmcv` is pure Python and `mmcv-full` carries the ops; from 2.0 `mmcv` carries them (mmcv v1.7.0 and
    v2.0.0 README and setup.py). PixArt-alpha pins mmcv==1.7.0 and imports Config and Registry only."""
    write(tmp_path / "lite", {"requirements.txt": "mmcv==1.7.0\n", "model.py": "from mmcv import Config\n"})
    write(tmp_path / "plain", {"requirements.txt": "mmcv>=2.0.0\n", "model.py": "from mmcv import Config, Registry\n"})
    write(tmp_path / "ops", {"requirements.txt": "mmcv>=2.0.0\n", "model.py": "from mmcv.ops import DeformConv2d\n"})
    write(tmp_path / "full", {"requirements.txt": "mmcv-full==1.7.0\n", "model.py": "from mmcv import ops\n"})
    write(tmp_path / "seg", {"requirements.txt": "mmcv==2.1.0\n", "model.py": "from mmcv import Config\nimport mmseg\n"})
    for lite in ("lite", "plain"):
        report = analyze(tmp_path / lite, AnalyzeOptions(jobs=1))
        assert not [f for f in report.findings if f.rule == "DEP001"], lite
        row = next(r for r in report.dependency_matrix if r.package == "mmcv")
        assert row.classification == "compatible" and "pure" in row.notes.en.lower()
    assert [(f.path, f.symbol) for f in _findings(tmp_path / "ops", "DEP001")] == [("requirements.txt", "mmcv")]
    assert ("requirements.txt", "mmcv-full") in [(f.path, f.symbol) for f in _findings(tmp_path / "full", "DEP001")]
    assert ("requirements.txt", "mmcv") in [(f.path, f.symbol) for f in _findings(tmp_path / "seg", "DEP001")]


def test_an_install_scripts_npu_branch_is_the_projects_torch(tmp_path):
    """torchchat install/install_torch.sh: pins in a bash array `pip install`-ed through `$PIP_EXECUTABLE`, with a
    branch under `command -v npu-smi`; the target follows that branch, and its nightly maps to its line's release."""
    script = (
        'PIP_EXECUTABLE=pip3\nV=dev20250418\n'
        'if [[ -x "$(command -v nvidia-smi)" ]]; then\n  REQS=(\n    torch=="2.8.0.${V}"\n  )\n'
        'elif [[ -x "$(command -v npu-smi)" ]]; then\n  REQS=(\n    torch=="2.7.0.dev20250310+cpu"\n'
        '    torchvision=="0.22.0.dev20250310"\n  )\nelse\n  REQS=( torch=="2.8.0.${V}" )\nfi\n'
        '$PIP_EXECUTABLE install --extra-index-url "${URL}" "${REQS[@]}"\n')
    declared, _ = manifests.parse_install_commands("install/install_torch.sh", parsing.parse("bash", script.encode()),
                                                   npu_probes=("npu-smi",))
    assert [(d.name, d.specifier, d.line, d.arm) for d in declared] == [
        ("torch", "==2.8.0.dev20250418", 5, "other"), ("torch", "==2.7.0.dev20250310+cpu", 9, "npu"),
        ("torchvision", "==0.22.0.dev20250310", 10, "npu"), ("torch", "==2.8.0.dev20250418", 13, "other")]
    write(tmp_path, {"install/install_torch.sh": script, "run.py": "import torch\n", "requirements.txt": "numpy\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch == "2.7.1" and report.target.chosen_by == "project"
    assert "nightly" in report.target.reason.en and "NPU install branch" in report.target.reason.en
    assert not [f for f in report.findings if f.rule == "DEP013"]
    pins = [f for f in report.findings if f.path == "install/install_torch.sh" and f.rule.startswith("DEP01")]
    assert [f.line for f in pins] == [9]
    assert "nightly" in pins[0].message.en and "torch_npu 2.7.1" in pins[0].message.en


def test_a_package_in_two_manifests_of_one_environment_is_one_finding(tmp_path):
    """PixArt-alpha's requirements.txt and environment.yml both set up the project's environment: xformers in both
    is one dependency to replace. A Dockerfile in another folder installs its own environment and keeps its finding."""
    write(tmp_path, {
        "requirements.txt": "torch==2.1.0\nxformers==0.0.22\n",
        "environment.yml": "name: env\ndependencies:\n  - python=3.9\n  - pip:\n    - xformers==0.0.22\n",
        "docker/requirements.txt": "xformers\n",
        "model.py": "import xformers.ops\n",
    })
    found = _findings(tmp_path, "DEP001")
    assert [(f.path, f.line) for f in found] == [("docker/requirements.txt", 1), ("requirements.txt", 2)]
    assert found[1].sites == ["environment.yml:5", "requirements.txt:2"]


JANUS_PYPROJECT = '[project]\nname = "janus"\nversion = "1.0"\ndependencies = ["torch>=2.0.1", "transformers>=4.38"]\n'


def test_a_torch_pin_in_a_requirements_file_nothing_installs_is_a_stale_line(tmp_path):
    """Round 19 Janus: README installs with `pip install -e .` (pyproject.toml torch>=2.0.1, which the target fits);
    requirements.txt pins torch==2.0.1 and no install command, Dockerfile or setup reads it: DEP012 low at 0.1-0.5 h,
    naming the governing requirement. Where the README installs that file (`pip install -r requirements.txt`), or
    shows no install of the project, the pin stays the high item."""
    tree = {"pyproject.toml": JANUS_PYPROJECT, "requirements.txt": "torch==2.0.1\ntransformers>=4.38\n",
            "janus/__init__.py": "", "janus/model.py": "import torch\n"}
    write(tmp_path / "unread", {**tree, "README.md": "```bash\npip install -e .\n```\n"})
    [stale] = _findings(tmp_path / "unread", "DEP012")
    assert (stale.path, stale.severity, (stale.effort_hours.low, stale.effort_hours.high)) == ("requirements.txt", "low", (0.1, 0.5))
    assert "pyproject.toml's torch>=2.0.1" in stale.message.en and "stale line" in stale.message.en
    write(tmp_path / "read", {**tree, "README.md": "```bash\npip install -e .\npip install -r requirements.txt\n```\n"})
    write(tmp_path / "no-install", tree)
    write(tmp_path / "setup-reads", {**tree, "README.md": "```bash\npip install -e .\n```\n",
                                     "setup.py": "from setuptools import setup\n"
                                                 "setup(install_requires=open('requirements.txt').read().split())\n"})
    for case in ("read", "no-install", "setup-reads"):
        [pin] = _findings(tmp_path / case, "DEP012")
        assert (pin.severity, (pin.effort_hours.low, pin.effort_hours.high)) == ("high", (2.0, 16.0)), case


MOSHI_PYPROJECT = '[project]\nname = "moshi"\nversion = "0.1"\ndependencies = ["torch >= 2.2.0, < 2.10", "sphn >= 0.2.0"]\n'


def test_a_requirements_file_no_install_reads_does_not_choose_the_target(tmp_path):
    """Round 21 moshi (A1 C7 row 26): pyproject.toml admits torch >= 2.2.0, < 2.10 and the README installs the package
    (`pip install -e git+…`); requirements.txt pins torch==2.2.0 and nothing names it. The target is the newest
    release inside pyproject's range, and the reason names the file left out. Where the README installs that file
    (`pip install -r requirements.txt`) its pin is the torch the project runs and chooses torch_npu 2.2.0.post2; a
    root requirements.txt beside a setup.py that declares no torch still chooses, though nothing names it, and so does
    a pin where the project shows no install of its own (test_an_exact_pin_in_the_top_level_requirements_...)."""
    tree = {"pyproject.toml": MOSHI_PYPROJECT, "requirements.txt": "torch==2.2.0\nsphn==0.1.4\n",
            "moshi/__init__.py": "", "moshi/model.py": "import torch\n"}
    readme = "```bash\npip install -U moshi\npip install -e 'git+https://github.com/k/moshi.git#egg=moshi'\n```\n"
    write(tmp_path / "unread", {**tree, "README.md": readme})
    target = analyze(tmp_path / "unread", AnalyzeOptions(jobs=1)).target
    assert (target.release, target.chosen_by) == ("2.9.0.post6", "project")
    assert "not from requirements.txt (torch==2.2.0)" in target.reason.en and "(pyproject.toml)" in target.reason.en
    # moshi's layout: the package in moshi/, installed by the root README; moshi/ is no nested project of its own
    # torch line (core/subprojects.py), since its choice too reads how the project installs
    write(tmp_path / "nested", {**{f"moshi/{path}": text for path, text in tree.items()}, "README.md": readme,
                                "moshi/README.md": "```bash\npip install moshi\n```\n"})
    target = analyze(tmp_path / "nested", AnalyzeOptions(jobs=1)).target
    assert (target.release, target.subprojects) == ("2.9.0.post6", [])
    write(tmp_path / "read", {**tree, "README.md": "```bash\npip install -r requirements.txt\n```\n"})
    target = analyze(tmp_path / "read", AnalyzeOptions(jobs=1)).target
    assert target.release == "2.2.0.post2" and "not from" not in target.reason.en
    write(tmp_path / "setup", {"setup.py": "from setuptools import setup\nsetup(name='m', install_requires=['sphn'])\n",
                               "requirements.txt": "torch==2.2.0\n", "m.py": "import torch\n", "README.md": readme})
    assert analyze(tmp_path / "setup", AnalyzeOptions(jobs=1)).target.release == "2.2.0.post2"


def test_a_vendored_tools_requirements_file_is_neither_the_target_nor_a_port_item(tmp_path):
    """Round 21 seamless_communication (A1 row 20, B1 C6 row 15, B2 class 3 row 43): setup.py, which the README's
    `pip install .` reads, declares no torch; a vendored engine's tool list pins torch==2.0.1 and accelerate==0.19.0,
    which nothing imports, and only the engine's own CI script installs it through a variable path. The target is the
    default, saying why; DEP012 and DEP004 there are low stale lines. Where the README installs the file, its pin is
    the project's (DEP012 high, the default target because 2.0.1 fits no release, DEP004 medium)."""
    tree = {"setup.py": "from setuptools import setup\nsetup(name='sc', install_requires=['fairseq2', 'numpy'])\n",
            "sc/__init__.py": "", "sc/model.py": "import torch\nimport numpy\n",
            "tools/ggml/requirements.txt": "accelerate==0.19.0\nnumpy\ntorch==2.0.1\n",
            "tools/ggml/convert.py": "import torch\nimport numpy\n",
            "tools/ggml/ci/run.sh": "python3 -m pip install -r ${SRC}/requirements.txt\n"}
    write(tmp_path / "tool", {**tree, "README.md": "```bash\npip install .\n```\n"})
    report = analyze(tmp_path / "tool", AnalyzeOptions(jobs=1))
    assert report.target.chosen_by == "default"
    assert "not from tools/ggml/requirements.txt (torch==2.0.1)" in report.target.reason.en
    found = {f.rule: f for f in report.findings if f.rule in {"DEP004", "DEP012"}}
    assert {rule: (f.severity, f.effort_hours.high) for rule, f in found.items()} == {"DEP004": ("low", 0.5),
                                                                                      "DEP012": ("low", 0.5)}
    assert "declares no torch requirement" in found["DEP012"].message.en
    write(tmp_path / "installed", {**tree, "README.md": "```bash\npip install .\npip install -r tools/ggml/requirements.txt\n```\n"})
    report = analyze(tmp_path / "installed", AnalyzeOptions(jobs=1))
    assert "not from" not in report.target.reason.en and "tools/ggml/requirements.txt" in report.target.reason.en
    found = {f.rule: f.severity for f in report.findings if f.rule in {"DEP004", "DEP012"}}
    assert found == {"DEP004": "medium", "DEP012": "high"}


def test_which_requirements_files_choose_nothing():
    from ascend_feasibility.domains.dependencies import installed
    files, own = {"requirements.txt", "tools/requirements.txt", "requirements-dev.txt"}, frozenset({"project:README.md"})
    assert installed.unchosen(files, {"setup.py"}, own, False) == {"tools/requirements.txt", "requirements-dev.txt"}
    assert installed.unchosen(files, {"setup.py"}, own, True) == files
    assert installed.unchosen(files, {"setup.py"}, own | {"reads:requirements-dev.txt"}, True) == {
        "requirements.txt", "tools/requirements.txt"}
    assert installed.unchosen(files, {"pkg/pyproject.toml"}, own, True) == set()  # no manifest above them
    assert installed.unchosen(files, set(), own, True) == set()
    assert installed.unchosen(files, {"setup.py"}, frozenset(), True) == set()  # no install of the project shown
    shell = parsing.parse("bash", b"pip install -e 'git+https://github.com/k/moshi.git#egg=moshi'\npip install -e x\n")
    assert installed.install_reads("README.md", shell) == ["project:README.md"]


def test_remote_code_of_a_model_type_the_project_registers_itself_is_its_own(tmp_path):
    """Round 19 Janus: janus/models/__init__.py imports modeling_vlm, which registers MultiModalityCausalLM with
    AutoModelForCausalLM at import; generation_inference.py imports janus.models, then loads with
    trust_remote_code=True: the code that loads is the project's (DEP040 info, naming the registration). A loader
    that imports nothing registering keeps the low reminder, and so does the whole finding while one site does."""
    vlm = ("from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig, PreTrainedModel\n"
           "class MultiModalityConfig(PretrainedConfig):\n    model_type = 'multi_modality'\n"
           "class MultiModalityCausalLM(PreTrainedModel):\n    config_class = MultiModalityConfig\n"
           "AutoConfig.register('multi_modality', MultiModalityConfig)\n"
           "AutoModelForCausalLM.register(MultiModalityConfig, MultiModalityCausalLM)\n")
    load = ("import torch\nfrom transformers import AutoModelForCausalLM\nfrom janus.models import MultiModalityCausalLM\n"
            "model = AutoModelForCausalLM.from_pretrained('deepseek-ai/Janus-1.3B', trust_remote_code=True)\n")
    tree = {"janus/__init__.py": "", "janus/models/__init__.py": "from .modeling_vlm import MultiModalityCausalLM\n",
            "janus/models/modeling_vlm.py": vlm, "generation_inference.py": load}
    write(tmp_path / "own", tree)
    [own] = _findings(tmp_path / "own", "DEP040")
    assert own.severity == "info" and "janus/models/modeling_vlm.py:7" in own.message.en
    other = load.replace("from janus.models import MultiModalityCausalLM\n", "")
    write(tmp_path / "hub", {**tree, "generation_inference.py": other})
    write(tmp_path / "mixed", {**tree, "chat.py": other})
    # LLaVA's builder (round 19 regression, HunyuanDiT): the package registers its classes, but this branch loads a
    # plain language model and names none of them: the checkpoint's own code runs
    branch = ("from transformers import AutoModelForCausalLM\nfrom janus.models import MultiModalityCausalLM\n"
              "def load(path, name):\n    if 'janus' in name:\n        return MultiModalityCausalLM.from_pretrained(path)\n"
              "    else:\n        return AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True)\n")
    write(tmp_path / "branch", {**tree, "generation_inference.py": branch})
    for case in ("hub", "mixed", "branch"):
        [remote] = _findings(tmp_path / case, "DEP040")
        assert remote.severity == "low", case


def test_what_install_commands_and_package_manifests_read():
    from ascend_feasibility.domains.dependencies import installed
    shell = parsing.parse("bash", b"cd x && pip install -r ./requirements/base.txt\npython -m pip install -e '.[dev]'\n"
                          b"uv pip install --requirement=extra.txt\npip install -U torch\n")
    assert installed.install_reads("scripts/setup.sh", shell) == [
        "reads:requirements/base.txt", "reads:scripts/requirements/base.txt", "project:scripts/setup.sh",
        "reads:extra.txt", "reads:scripts/extra.txt"]
    dynamic = '[tool.setuptools.dynamic]\ndependencies = {file = ["requirements.txt"]}\n'
    assert installed.manifest_reads("pyproject.toml", pyproject=dynamic) == ["reads:requirements.txt"]
    reads = frozenset({"project:README.md", "reads:requirements.txt"})
    assert not installed.unread("requirements.txt", reads) and installed.unread("requirements-dev.txt", reads)
    assert not installed.unread("requirements-dev.txt", frozenset({"reads:requirements.txt"}))  # no project install


def test_a_quantisation_keyword_passed_to_another_library_is_no_use_of_bitsandbytes(tmp_path):
    """Round 20 GLM-4 (B2 row 43): `load_in_8bit` is an argument of optimum-intel's OVModelForCausalLM and of ITREX's
    AutoModelForCausalLM, which quantise with OpenVINO/Intel kernels, not bitsandbytes. The declared bitsandbytes that
    nothing imports is DEP015 (a line to drop), not DEP001. The same keyword passed to transformers' from_pretrained,
    to BitsAndBytesConfig inside another library's call, to a callee the file's imports do not resolve, or to the
    project's own function keeps the package in use (DEP001)."""
    requirements = "torch==2.6.0\nbitsandbytes>=0.44.1\n"
    intel = ("from optimum.intel.openvino import OVModelForCausalLM\n"
             "model = OVModelForCausalLM.from_pretrained(path, export=True, load_in_8bit=True)\n"
             "from intel_extension_for_transformers.transformers import AutoModelForCausalLM\n"
             "itrex = AutoModelForCausalLM.from_pretrained(path, load_in_4bit=True)\n")
    write(tmp_path / "intel", {"requirements.txt": requirements, "demo.py": intel})
    assert _findings(tmp_path / "intel", "DEP001") == []
    [unused] = _findings(tmp_path / "intel", "DEP015")
    assert unused.path == "requirements.txt"
    uses = {
        "hf": "from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained(path, load_in_8bit=True)\n",
        "config-inside": ("from transformers import BitsAndBytesConfig\nfrom optimum.intel import OVModelForCausalLM\n"
                          "m = OVModelForCausalLM.from_pretrained(path, quantization_config=BitsAndBytesConfig(load_in_4bit=True))\n"),
        "unresolved": "def load(cls, path):\n    return cls.from_pretrained(path, load_in_8bit=True)\n",
        "own": "from mypkg.loading import load\nm = load(path, load_in_4bit=True)\n",
    }
    for case, code in uses.items():
        write(tmp_path / case, {"requirements.txt": requirements, "demo.py": code, "mypkg/__init__.py": "",
                                "mypkg/loading.py": "def load(path, **kw):\n    return path\n"})
        assert [f.path for f in _findings(tmp_path / case, "DEP001")] == ["requirements.txt"], case


def test_a_triton_pin_is_judged_by_whether_the_project_imports_triton_and_by_the_target(tmp_path):
    """Round 20 B1 C4 (LLaVA-NeXT's pip freeze pins triton==2.1.0 beside torch==2.1.2, and nothing imports triton):
    the pin is the one a CUDA torch pulls in, DEP021 low "delete the line". A project that imports triton keeps the
    high item advising triton-ascend, which has no release for a torch older than 2.6: at a torch 2.6 target it names
    triton-ascend for the NPU platform; at a torch 2.1 target it says the target is older than that."""
    kernel = "import triton\nimport triton.language as tl\n@triton.jit\ndef add(x_ptr, n):\n    pass\n"
    write(tmp_path / "unused", {"requirements.txt": "torch==2.1.2\ntriton==2.1.0\n", "train.py": "import torch\n"})
    [pin] = _findings(tmp_path / "unused", "DEP021")
    assert (pin.severity, (pin.effort_hours.low, pin.effort_hours.high)) == ("low", (0.1, 0.5))
    assert "Delete the line" in pin.replacement.en
    write(tmp_path / "on-line", {"requirements.txt": "torch==2.6.0\ntriton==3.2.0\n", "kernels.py": kernel})
    [pin] = _findings(tmp_path / "on-line", "DEP021")
    assert pin.severity == "high" and "triton-ascend==3.2.1" in pin.replacement.en
    write(tmp_path / "off-line", {"requirements.txt": "torch==2.1.0\ntriton==2.1.0\n", "kernels.py": kernel})
    [pin] = _findings(tmp_path / "off-line", "DEP021")
    assert pin.severity == "high" and "target torch_npu is older" in pin.message.en and "torch_npu 2.7.1" in pin.replacement.en


def test_unused_cuda_lines_of_a_requirements_file_nothing_installs_are_stale(tmp_path):
    """Round 20 A1 row 8, B1 C4 (LLaVA-NeXT): requirements.txt is a `pip freeze` record (torch, nvidia-* runtimes,
    triton, an unused flash-attn) that no install reads, while the README installs the project from pyproject.toml.
    DEP014, DEP021 and DEP015 there say it is a stale record (low, 0.1-0.5 h). Where the README installs that file,
    they keep their own texts."""
    freeze = "torch==2.1.2\nnvidia-cudnn-cu12==8.9.2.26\ntriton==2.1.0\nflash-attn==2.5.0\n"
    tree = {"pyproject.toml": JANUS_PYPROJECT, "requirements.txt": freeze, "janus/__init__.py": "",
            "janus/model.py": "import torch\n"}
    write(tmp_path / "record", {**tree, "README.md": "```bash\npip install -e \".[train]\"\n```\n"})
    write(tmp_path / "read", {**tree, "README.md": "```bash\npip install -e .\npip install -r requirements.txt\n```\n"})
    for code in ("DEP014", "DEP021", "DEP015"):
        [stale] = _findings(tmp_path / "record", code)
        assert (stale.severity, (stale.effort_hours.low, stale.effort_hours.high)) == ("low", (0.1, 0.5)), code
        assert "no install command or package manifest" in stale.message.en, code
        [kept] = _findings(tmp_path / "read", code)
        assert "no install command or package manifest" not in kept.message.en, code


def _declared(report, symbol):
    return [(f.rule, f.severity) for f in report.findings if f.path == "requirements.txt" and f.symbol.startswith(symbol)
            and f.rule in {"DEP001", "DEP004"}]


def test_a_lightning_pin_older_than_the_accelerator_api_is_an_upgrade_where_a_trainer_is_built(tmp_path):
    # round 22 A1 23, B1 6 (taming-transformers: pytorch-lightning==1.0.8, Trainer.from_argparse_args, gpus); the route's
    # Accelerator.setup_device and Fabric are Lightning 2.0's (packages.toml replacement_since)
    trainer = "import pytorch_lightning as pl\ntrainer = pl.Trainer.from_argparse_args(opt)\nauto = pl.Trainer()\n"
    write(tmp_path / "old", {"requirements.txt": "torch==2.6.0\npytorch-lightning==1.0.8\n", "main.py": trainer})
    report = analyze(tmp_path / "old", AnalyzeOptions(jobs=1))
    assert _declared(report, "pytorch-lightning") == [("DEP001", "high")]  # DEV704 at :3 does not fold the upgrade
    upgrade = next(f for f in report.findings if f.path == "requirements.txt" and f.rule == "DEP001")
    assert "2.0.0" in upgrade.message.en and "resume_from_checkpoint" in upgrade.replacement.en
    assert upgrade.effort_hours.low >= 8.0
    # at 2.x the same Trainer is the accelerator choice DEV704 carries: the package's own finding is info
    write(tmp_path / "new", {"requirements.txt": "torch==2.6.0\npytorch-lightning==2.2.0\n", "main.py": trainer})
    assert _declared(analyze(tmp_path / "new", AnalyzeOptions(jobs=1)), "pytorch-lightning") == [("DEP001", "info")]


def test_lightning_used_only_for_its_module_base_class_and_seeding_has_nothing_to_port(tmp_path):
    # round 22 B1 2, B2 50 (VideoCrafter: LightningModule subclasses, seed_everything, no Trainer): the accelerator, the
    # package's one CUDA-only part, is never reached (packages.toml cuda_part_in), whatever the pinned release
    code = "import pytorch_lightning as pl\nfrom pytorch_lightning import seed_everything\n\n" \
           "class Net(pl.LightningModule):\n    pass\n\nseed_everything(0)\n"
    write(tmp_path / "a", {"requirements.txt": "torch==2.6.0\npytorch-lightning==1.8.3\n", "model.py": code})
    report = analyze(tmp_path / "a", AnalyzeOptions(jobs=1))
    assert _declared(report, "pytorch-lightning") == [("DEP001", "info")]
    # the import of `pytorch_lightning` is the declared distribution's: one dependency, no second DEP001 at model.py
    assert [f.severity for f in report.findings if f.rule == "DEP001" and f.path == "model.py"] == []
    # a Trainer imported from its module, with the accelerator from a variable (no DEV701): the package's finding stays
    write(tmp_path / "b", {"requirements.txt": "torch==2.6.0\npytorch-lightning==2.2.0\n",
                           "main.py": "from pytorch_lightning.trainer import Trainer\nt = Trainer(accelerator=acc)\n"})
    assert _declared(analyze(tmp_path / "b", AnalyzeOptions(jobs=1)), "pytorch-lightning") == [("DEP001", "high")]


def test_a_pin_below_the_first_release_of_the_packages_route_is_an_upgrade(tmp_path):
    # round 22 verdicts V2 (tortoise-tts: deepspeed==0.8.3 called NPU-accelerated); routes.toml first_releases
    code = "import deepspeed\nengine = deepspeed.init_inference(model)\n"
    write(tmp_path / "old", {"requirements.txt": "torch==2.6.0\ndeepspeed==0.8.3\n", "infer.py": code})
    report = analyze(tmp_path / "old", AnalyzeOptions(jobs=1))
    assert _declared(report, "deepspeed") == [("DEP004", "medium")]
    assert "0.10.0" in next(f for f in report.findings if f.rule == "DEP004").message.en
    write(tmp_path / "new", {"requirements.txt": "torch==2.6.0\ndeepspeed==0.14.0\n", "infer.py": code})
    assert _declared(analyze(tmp_path / "new", AnalyzeOptions(jobs=1)), "deepspeed") == []


def test_a_development_extras_torch_pin_chooses_no_target_and_an_extras_old_pin_is_optional(tmp_path):
    # round 22 verdicts V1, A2 63 (nerfstudio: runtime torch>=1.13.1, the dev extra's torch==2.7.1, the gen extra's
    # accelerate==0.19.0)
    pyproject = '[project]\nname = "demo"\ndependencies = ["torch>=1.13.1"]\n[project.optional-dependencies]\n' \
                'gen = ["accelerate==0.19.0"]\n{group} = ["torch==2.7.1", "pytest"]\n'
    code = {"mylib/__init__.py": "", "mylib/gen.py": "import accelerate\nstate = accelerate.Accelerator()\n"}
    write(tmp_path / "dev", {"pyproject.toml": pyproject.format(group="dev"), **code})
    report = analyze(tmp_path / "dev", AnalyzeOptions(jobs=1))
    assert report.target.torch_npu == "2.12.0" and "2.7.1" not in report.target.reason.en
    old = [f for f in report.findings if f.rule == "DEP004" and f.symbol.startswith("accelerate")]
    assert [(f.reach, f.counted) for f in old] == [("optional", False)]
    # a user-facing extra that pins torch still narrows what its users install
    write(tmp_path / "cuda", {"pyproject.toml": pyproject.format(group="cuda"), **code})
    assert analyze(tmp_path / "cuda", AnalyzeOptions(jobs=1)).target.torch == "2.7.1"


def test_a_feature_of_a_library_the_project_declares_only_in_an_extra_is_optional(tmp_path):
    # round 22 verdicts V1 (nerfstudio: DeepFloyd's load_in_8bit=True, transformers and diffusers only in the `gen`
    # extra; generfacto is that extra's method)
    code = {"mylib/__init__.py": "", "mylib/gen.py": "import transformers\n"
            "enc = transformers.T5EncoderModel.from_pretrained('t5', load_in_8bit=True)\n"}
    extra = '[project]\nname = "demo"\ndependencies = ["torch>=2.1"]\n[project.optional-dependencies]\n' \
            'gen = ["transformers==4.29.2"]\n'
    write(tmp_path / "extra", {"pyproject.toml": extra, **code})
    gap = [f for f in analyze(tmp_path / "extra", AnalyzeOptions(jobs=1)).findings if f.rule == "DEP032"]
    assert [(f.reach, f.counted) for f in gap] == [("optional", False)]
    assert "'gen'" in gap[0].reach_reason
    main = '[project]\nname = "demo"\ndependencies = ["torch>=2.1", "transformers==4.29.2"]\n'
    write(tmp_path / "main", {"pyproject.toml": main, **code})
    gap = [f for f in analyze(tmp_path / "main", AnalyzeOptions(jobs=1)).findings if f.rule == "DEP032"]
    assert [(f.reach, f.counted) for f in gap] == [("runs", True)]
    # unsloth's shape: torch itself only in extras (install variants, the main list a CLI's packages): no opt-in
    variants = '[project]\nname = "demo"\ndependencies = ["rich"]\n[project.optional-dependencies]\n' \
               'hf = ["transformers==4.29.2"]\ncu121 = ["torch==2.1.0"]\n'
    write(tmp_path / "variants", {"pyproject.toml": variants, **code})
    gap = [f for f in analyze(tmp_path / "variants", AnalyzeOptions(jobs=1)).findings if f.rule == "DEP032"]
    assert [(f.reach, f.counted) for f in gap] == [("runs", True)]


def test_a_replaced_packages_plain_pytorch_function_is_no_call_to_rewrite(tmp_path):
    # round 23 integration (nerfstudio's renderers): nerfacc.accumulate_along_rays is an index_add_ in nerfacc's
    # volrend.py, while its occupancy grid runs the package's CUDA kernels
    write(tmp_path, {"requirements.txt": "torch\nnerfacc==0.5.2\n", "render.py": (
        "import nerfacc\n\n\ndef render(w, rgb, idx, n):\n"
        "    grid = nerfacc.OccGridEstimator(roi_aabb=[0] * 6)\n"
        "    return grid, nerfacc.accumulate_along_rays(w, values=rgb, ray_indices=idx, n_rays=n)\n\n\nrender(1, 2, 3, 4)\n")})
    calls = {f.symbol for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings if f.rule == "DEP030"}
    assert calls == {"nerfacc.OccGridEstimator"}


def _torch_findings(report):
    return [(f.rule, f.severity, f.symbol) for f in report.findings if f.rule in {"DEP010", "DEP012", "DEP016"}]


def test_companion_cap_below_every_release_is_a_torch_conflict(tmp_path):
    # round 25 A2 77 / verdicts V6 (demucs): torch>=1.8.1 fits, but torchaudio<2.1 holds torch at 2.0.x, below the
    # first torch_npu release (torch 2.1.0): not "fits", a conflict naming the cap and the release to lift it to
    write(tmp_path, {"requirements.txt": "torch>=1.8.1\ntorchaudio>=0.8,<2.1\n", "a.py": "import torch\nimport torchaudio\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert _torch_findings(report) == [("DEP012", "medium", "torch>=1.8.1")]
    finding = next(f for f in report.findings if f.rule == "DEP012")
    assert "torchaudio<2.1,>=0.8 (requirements.txt:2) holds torch at 2.0.1 or older, below torch_npu's first release" \
        in finding.message.en and "torch 2.12.0" in finding.message.en
    assert report.torch_fit.conflicts == ["requirements.txt: torchaudio<2.1,>=0.8 holds torch at 2.0.1 or older"]


def test_companion_cap_past_the_pairing_table_and_below_the_target_only(tmp_path):
    # torchaudio's table stops at torch 2.6: a cap ruling out torchaudio 2.5.0 rules out every newer torch's release too
    write(tmp_path, {"requirements.txt": "torch>=2.1\ntorchaudio<2.5\n", "a.py": "import torch\nimport torchaudio\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    finding = next(f for f in report.findings if f.rule == "DEP012")
    assert "holds torch at 2.4.1 or older, below the report's target (torch 2.12.0)" in finding.message.en
    assert report.torch_fit.conflicts == ["requirements.txt: torchaudio<2.5 holds torch at 2.4.1 or older"]


def test_companion_pins_that_admit_the_target_are_no_cap(tmp_path):
    # a floor only, a cap above the target's release, a cap in another file than torch's, and an exact pair at the target
    write(tmp_path, {"requirements.txt": "torch>=1.8.1\ntorchaudio>=0.8\ntorchvision>=0.16,<0.40\n",
                     "docs/requirements.txt": "torchvision<0.16\n",
                     "a.py": "import torch\nimport torchaudio\nimport torchvision\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert _torch_findings(report) == [("DEP010", "info", "torch>=1.8.1")]
    assert report.torch_fit.conflicts == []


def test_dev402_advice_is_npu_only_and_warn_only(tmp_path):
    # round 25 B1 C6 row 21 (FunASR): the cuDNN flag limits cuDNN's choice only; a global, raising
    # use_deterministic_algorithms(True) is stronger (CTCLoss backward, CUBLAS_WORKSPACE_CONFIG on CUDA)
    # a convolution is built, so the flag matters (with none, DEV402 says the switch changes nothing: round 32 A1 34)
    write(tmp_path, {"train.py": "import torch\ndef main(**kwargs):\n    torch.manual_seed(0)\n"
                                 "    torch.backends.cudnn.deterministic = kwargs.get('cudnn_deterministic', True)\n"
                                 "    return torch.nn.Conv2d(1, 1, 3)\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    finding = next(f for f in report.findings if f.rule == "DEV402")
    assert "warn_only=True" in finding.replacement.code and "NPU path only" in finding.replacement.code
    assert "Keep the line for CUDA" in finding.replacement.en
    assert finding.replacement.code.startswith("torch.use_deterministic_algorithms(kwargs.get('cudnn_deterministic', True), warn_only=True)")


def test_a_pin_off_the_target_with_its_own_companions_is_no_cap(tmp_path):
    # diffusers' Dockerfiles: torch==2.10.0 with torchvision==0.25.0, the release built for it; the pin is off the
    # target (DEP016) and its companion moves with it, which is no cap below what the file's torch admits
    write(tmp_path, {"requirements.txt": "torch>=2.1\n", "a.py": "import torch\nimport torchvision\n",
                     "Dockerfile": "FROM ubuntu:22.04\nRUN pip install torch==2.10.0 torchvision==0.25.0\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert sorted(_torch_findings(report)) == [("DEP010", "info", "torch>=2.1"), ("DEP016", "low", "torch==2.10.0")]
    assert report.torch_fit.conflicts == []


def test_a_lightning_distribution_and_its_import_are_one_dependency_carried_by_the_trainer(tmp_path):
    # round 25 B2 45, 48 (InstantMesh, GPT-SoVITS): `pytorch-lightning` in requirements.txt and `from pytorch_lightning
    # import LightningDataModule` were two DEP001 (two matrix rows, `lightning` and `pytorch-lightning`), the import's
    # anchored at a device-neutral name; the work is the Trainer's accelerator, which DEV701 carries at its call
    data = "from pytorch_lightning import LightningDataModule\n\nclass Data(LightningDataModule):\n    pass\n"
    train = "import torch\nfrom pytorch_lightning import Trainer\n" \
            "trainer = Trainer(accelerator=\"gpu\" if torch.cuda.is_available() else \"cpu\", devices=-1)\n"
    write(tmp_path / "a", {"requirements.txt": "torch==2.6.0\npytorch-lightning>=2.4\n", "data.py": data,
                           "train.py": train})
    report = analyze(tmp_path / "a", AnalyzeOptions(jobs=1))
    assert [(f.path, f.severity) for f in report.findings if f.rule == "DEP001"] == [("requirements.txt", "info")]
    assert [(f.path, f.line, f.severity) for f in report.findings if f.rule == "DEV701"] == [("train.py", 3, "high")]
    assert [(r.package, r.imported) for r in report.dependency_matrix if "lightning" in r.package] == \
        [("pytorch-lightning", True)]
    # not declared: an import is the one pointer to the dependency and keeps its own DEP001, at the file that reaches
    # the accelerator (train.py's Trainer), not at data.py's device-neutral import, which comes first in file order
    write(tmp_path / "b", {"requirements.txt": "torch==2.6.0\n", "data.py": data, "train.py": train})
    report = analyze(tmp_path / "b", AnalyzeOptions(jobs=1))
    assert [f.path for f in report.findings if f.rule == "DEP001"] == ["train.py"]
    assert [r.package for r in report.dependency_matrix if "lightning" in r.package] == ["lightning"]



def test_one_torch_requirement_in_a_folders_main_manifests_is_one_item(tmp_path):
    # round 25 A1 14 (ChatTTS): `torch>=2.1.0` in setup.py and in requirements.txt, two ways to set up one environment,
    # were two counted DEP010; one item lists both lines
    setup = "from setuptools import setup\nsetup(name='x', install_requires=['torch>=2.1.0', 'numpy'])\n"
    write(tmp_path / "a", {"setup.py": setup, "requirements.txt": "numpy\ntorch>=2.1.0\n", "main.py": "import torch\n"})
    fits = [f for f in analyze(tmp_path / "a", AnalyzeOptions(jobs=1)).findings if f.rule == "DEP010"]
    assert [(f.path, sorted(f.sites or [])) for f in fits] == [("setup.py", ["requirements.txt:2", "setup.py:2"])]
    # the two lines disagree (requirements.txt pins a torch no torch_npu fits): two verdicts, two items
    write(tmp_path / "b", {"setup.py": setup, "requirements.txt": "numpy\ntorch==1.13.1\n", "main.py": "import torch\n"})
    rules = sorted((f.rule, f.path) for f in analyze(tmp_path / "b", AnalyzeOptions(jobs=1)).findings
                   if f.symbol.startswith("torch") and f.rule.startswith("DEP01"))
    assert len(rules) == 2 and {path for _, path in rules} == {"requirements.txt", "setup.py"}, rules


def test_unsupported_packages_one_module_imports_are_one_item_with_each_import_a_site(tmp_path):
    # StreamDiffusion's acceleration/tensorrt/utilities.py: `import tensorrt as trt` and `from cuda import cudart`, one
    # backend to drop, priced once (round 27 verdicts V6); unsupported packages of different modules stay one item each
    engine = "import tensorrt as trt\nfrom cuda import cudart\n\ndef build(x):\n    return trt.Builder(x), cudart.cudaFree\n"
    write(tmp_path / "a", {"pkg/__init__.py": "", "pkg/engine.py": engine, "main.py": "import pkg.engine\n"})
    items = [f for f in analyze(tmp_path / "a", AnalyzeOptions(jobs=1)).findings if f.rule == "DEP002"]
    assert [(f.symbol, f.path, f.line, f.sites) for f in items] == [
        ("tensorrt", "pkg/engine.py", 1, ["pkg/engine.py:1", "pkg/engine.py:2"])]
    write(tmp_path / "b", {"pkg/__init__.py": "", "pkg/engine.py": engine.replace("from cuda import cudart\n", ""),
                           "pkg/graphs.py": "from cuda import cudart\n\ndef free():\n    return cudart.cudaFree\n",
                           "main.py": "import pkg.engine\nimport pkg.graphs\n"})
    items = [f for f in analyze(tmp_path / "b", AnalyzeOptions(jobs=1)).findings if f.rule == "DEP002"]
    assert sorted((f.symbol, f.path, f.sites) for f in items) == [("cuda-python", "pkg/graphs.py", []),
                                                                 ("tensorrt", "pkg/engine.py", [])]


def test_a_torch_line_of_a_manifest_the_target_choice_never_reads_sets_no_torch_row(tmp_path):
    """OOTDiffusion (round 30 V7): the host pins torch only in its README's install line, and a bundled project copied
    under a subfolder ships its own CI image with `pip install torch==1.5+cu101`. The target choice reads only the
    host's manifests and install documents (a CI image is none), so the torch row, torch_fit and DEP013 follow the
    README, not that Dockerfile (whose own line stays a finding of that file)."""
    dockerfile = "FROM nvidia/cuda:10.1-cudnn7-devel\nRUN pip install torch==1.5+cu101 torchvision==0.6+cu101\n"
    write(tmp_path, {"README.md": "```bash\npip install torch==2.0.1 torchvision==0.15.2\n```\n",
                     "requirements.txt": "einops\n", "run.py": "import torch\nimport einops\n",
                     "third/parser/setup.py": "from setuptools import setup\nsetup(name='parser')\n",
                     "third/parser/parser/__init__.py": "import torch\n",
                     "third/parser/.ci/Dockerfile": dockerfile})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert "an install line of README.md" in report.target.reason.en
    rows = {row.package: (row.declared, row.sources) for row in report.dependency_matrix}
    assert rows["torch"] == ("==2.0.1", ["README.md:2"])
    assert report.torch_fit.declared == "==2.0.1"
    (finding,) = [f for f in report.findings if f.rule == "DEP013"]
    assert (finding.path, finding.line) == ("README.md", 2) and "holds no torch_npu release" in finding.message.en
    assert [f.path for f in report.findings if f.rule == "DEP012"] == ["third/parser/.ci/Dockerfile"]
    # a manifest the choice reads (the host's requirements.txt) declares torch: it keeps the row and the fit
    write(tmp_path, {"requirements.txt": "einops\ntorch==2.1.0\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    rows = {row.package: (row.declared, row.sources) for row in report.dependency_matrix}
    assert rows["torch"] == ("==2.1.0", ["requirements.txt:2"]) and report.torch_fit.declared == "==2.1.0"
    assert not [f for f in report.findings if f.rule == "DEP013"]


GUARDED_XFORMERS = "try:\n    import xformers.ops\nexcept ImportError:\n    xformers = None\nimport torch\n"


def test_an_exact_pin_of_a_package_built_for_one_torch_is_a_required_line_to_delete(tmp_path):
    """V-Express (round 30 B8): requirements.txt pins torch==2.0.1 and xformers==0.0.22, and every import of xformers
    is guarded. Each xformers release requires one exact torch (0.0.22: torch==2.0.1, packages.toml pins_torch), so
    installing the manifest pulls that torch back over torch_npu's: the line is required work, a small one."""
    write(tmp_path, {"requirements.txt": "torch==2.0.1\nxformers==0.0.22\n", "infer.py": GUARDED_XFORMERS})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "xformers"]
    assert (finding.path, finding.line, finding.reach, finding.severity) == ("requirements.txt", 2, "runs", "medium")
    assert "requires torch==2.0.1" in finding.message.en and finding.effort_hours.high <= 0.5
    # a release the catalog does not map is still one exact torch's build
    write(tmp_path, {"requirements.txt": "torch==2.0.1\nxformers==0.0.21\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "xformers"]
    assert finding.reach == "runs" and "requires one exact torch version" in finding.message.en
    # a range lets pip pick a release for the installed torch: the guarded package stays optional
    write(tmp_path, {"requirements.txt": "torch==2.0.1\nxformers>=0.0.20\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "xformers"]
    assert finding.reach == "optional" and "requires" not in finding.message.en


def test_an_exact_pin_of_a_package_that_follows_any_torch_keeps_its_guarded_reach(tmp_path):
    """bitsandbytes wheels do not pin torch (no pins_torch in the catalog): an exact pin of it beside guarded imports
    is the optional feature's, as before."""
    write(tmp_path, {"requirements.txt": "torch==2.0.1\nbitsandbytes==0.41.1\n",
                     "train.py": "try:\n    import bitsandbytes as bnb\nexcept ImportError:\n    bnb = None\n"
                                 "import torch\nopt = bnb.optim.AdamW8bit if bnb else torch.optim.AdamW\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "bitsandbytes"]
    assert finding.path == "requirements.txt" and finding.reach == "optional"


EIGHT_BIT = """import torch
from omegaconf import OmegaConf


def main(cfg):
    if cfg.solver.use_8bit_adam:
        try:
            import bitsandbytes as bnb
        except ImportError:
            raise ImportError("Please install bitsandbytes to use 8-bit Adam")
        optimizer_cls = bnb.optim.AdamW8bit
    else:
        optimizer_cls = torch.optim.AdamW
    return optimizer_cls


if __name__ == "__main__":
    main(OmegaConf.load("configs/stage_1.yaml"))
"""


def test_a_guarded_import_runs_where_a_shipped_config_turns_its_switch_on(tmp_path):
    """V-Express (round 30 B5, round 29 V5): every stage config sets `use_8bit_adam: True`, and train.py imports
    bitsandbytes under `if cfg.solver.use_8bit_adam:`, raising without it. The import runs in that training, so
    bitsandbytes is required there, as the phase matrix already says, not "optional"."""
    write(tmp_path, {"train.py": EIGHT_BIT, "requirements.txt": "torch\nomegaconf\n",
                     "configs/stage_1.yaml": "solver:\n  use_8bit_adam: True\n  learning_rate: 1e-5\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "bitsandbytes"]
    assert (finding.path, finding.line, finding.reach) == ("train.py", 8, "runs")
    # the config leaves the switch off: the import is the opt-in's
    write(tmp_path, {"configs/stage_1.yaml": "solver:\n  use_8bit_adam: False\n  learning_rate: 1e-5\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "bitsandbytes"]
    assert finding.reach == "optional"
    # switched on, but the import falls back when the package is missing: still optional
    write(tmp_path, {"configs/stage_1.yaml": "solver:\n  use_8bit_adam: True\n",
                     "train.py": EIGHT_BIT.replace('raise ImportError("Please install bitsandbytes to use 8-bit Adam")',
                                                   "bnb = None")})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (finding,) = [f for f in report.findings if f.rule == "DEP001" and f.symbol == "bitsandbytes"]
    assert finding.reach == "optional"
def test_torchaudio_load_runs_on_torchcodec_only_where_the_target_moves_torchaudio_past_2_9(tmp_path):
    """Round 30 B3 (dreamtalk, V-Express): torchaudio 2.9 routes load/save through TorchCodec (torchcodec and FFmpeg's
    libraries on the host), and torch 2.12 pairs with torchaudio 2.11. A target on torch 2.6 keeps torchaudio 2.6's own
    backends: nothing to add."""
    code = "import torchaudio\nwav, sr = torchaudio.load('a.wav')\ntorchaudio.save('b.wav', wav, sr)\n"
    write(tmp_path, {"requirements.txt": "torch>=2.1\ntorchaudio\n", "infer.py": code})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch == "2.12.0"
    found = [f for f in report.findings if f.rule == "DEP053"]
    assert [(f.line, f.symbol) for f in found] == [(2, "torchaudio.load"), (3, "torchaudio.save")]
    assert "torchcodec" in found[0].replacement.en and "aarch64" in found[0].replacement.en
    (environment,) = [i for i in report.effort.items if i.rule == "adoption:environment" and i.bucket == "required"]
    assert "TorchCodec and FFmpeg" in environment.arithmetic.en  # priced once, inside the environment item
    assert not [i for i in report.effort.items if i.rule == "DEP053"]
    write(tmp_path, {"requirements.txt": "torch==2.6.0\ntorchaudio==2.6.0\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch == "2.6.0" and not [f for f in report.findings if f.rule == "DEP053"]


def test_the_install_advice_names_the_pythons_of_the_target_release(tmp_path):
    """Round 30 A2 row 64 (SUPIR: `torch>=2.1.0` admits 2.12.0, but its README's environment is Python 3.8): DEP010's
    "Install torch_npu 2.12.0" names the Pythons that release's torch supports (releases.toml `python`, from the
    Ascend/pytorch README's version table at v2.12.0-26.1.0), so the advice does not fail in an older environment."""
    write(tmp_path, {"requirements.txt": "torch>=2.1\n", "train.py": "import torch\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (fit,) = [f for f in report.findings if f.rule == "DEP010"]
    assert "torch_npu 2.12.0 (torch 2.12.0, CANN 9.1.0, Python 3.10–3.12)" in fit.replacement.en
    assert not [f for f in report.findings if f.rule == "DEP017"]  # no Python declared: nothing to move
    write(tmp_path, {"environment.yml": "name: x\ndependencies:\n  - python=3.9\n  - pip\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    (move,) = [f for f in report.findings if f.rule == "DEP017"]
    assert (move.path, move.line, move.severity) == ("environment.yml", 3, "high")
    assert "Python 3.9 → 3.10–3.12" in move.message.en


RUNS_TORCH = ("import torch\nimport numpy\n\nif __name__ == \"__main__\":\n"
              "    print(torch.ones(2).cuda() + numpy.ones(2).sum())\n")
CUDA_IMAGE = "FROM nvidia/cuda:10.2-runtime-ubuntu18.04\nRUN pip install numpy torch==1.8.1 torchvision\n"


def _environment(report):
    return next(i for i in report.effort.items if i.rule == "adoption:environment" and i.bucket == "required")


def test_a_cuda_image_holding_the_project_only_torch_pin_prices_the_torch_re_pin_once(tmp_path):
    """Round 32 V5: the project's only torch pin is in its CUDA image (`FROM nvidia/cuda...`, `pip install
    torch==1.8.1`), no release of which torch_npu is built for. The image is swapped for a CANN one (DEV212), yet the
    code written for torch 1.8 still moves to the target's torch: that line stays counted and the environment item
    prices the torch re-pin once, at it. A second CUDA image's line of the same move folds into its image."""
    code = {"requirements.txt": "numpy\n", "run.py": RUNS_TORCH}
    write(tmp_path / "only", {**code, "docker/Dockerfile": CUDA_IMAGE,
                              "docker/cu111/Dockerfile": CUDA_IMAGE.replace("1.8.1", "1.8.2")})
    report = analyze(tmp_path / "only", AnalyzeOptions(jobs=1))
    pins = {(f.path, f.reach, f.severity) for f in report.findings if f.rule == "DEP012"}
    counted = [f for f in report.findings if f.rule == "DEP012" and f.counted]
    assert [(f.path, f.line) for f in counted] == [("docker/Dockerfile", 2)], pins
    assert ("docker/cu111/Dockerfile", "other-backend", "low") in pins
    environment = _environment(report)
    assert "torch re-pin" in environment.scaling and "docker/Dockerfile:2" in environment.sites


def test_a_cuda_image_torch_pin_stays_folded_where_the_project_pins_torch_elsewhere_or_the_image_is_another_backend(
        tmp_path):
    """Not flagged: a manifest's torch that fits the target is the project's torch (the image's old pin is the
    image's, replaced with it); a ROCm image is no CUDA image and its torch line no move of the CUDA project."""
    code = {"run.py": RUNS_TORCH}
    write(tmp_path / "manifest", {**code, "requirements.txt": "numpy\ntorch>=2.1\n", "docker/Dockerfile": CUDA_IMAGE})
    write(tmp_path / "rocm", {**code, "requirements.txt": "numpy\n",
                              "docker/Dockerfile": CUDA_IMAGE.replace("nvidia/cuda:10.2-runtime-ubuntu18.04",
                                                                      "rocm/pytorch:rocm5.2_ubuntu20.04")})
    for name in ("manifest", "rocm"):
        report = analyze(tmp_path / name, AnalyzeOptions(jobs=1))
        assert not [f for f in report.findings if f.rule == "DEP012" and f.counted], name
        assert "torch re-pin" not in _environment(report).scaling, name


def test_source_built_frameworks_are_catalogued_not_unknown(tmp_path):
    """detectron2 (OneFormer's INSTALL.md builds it from a clone) and tutel (Swin-MoE main_moe.py:8, installed from
    git+https) were "unknown" and unpriced (round 34 V2 class 8, V1-7): their rows say what the port does."""
    files = {"requirements.txt": "torch\n",
             "train.py": ("from detectron2.engine import DefaultTrainer\nfrom tutel import system\n\n"
                          "if __name__ == '__main__':\n    DefaultTrainer(None)\n    system.init_data_model_parallel()\n")}
    report = analyze(write(tmp_path, files), AnalyzeOptions(jobs=1))
    matrix = {row.package: row for row in report.dependency_matrix}
    assert matrix["detectron2"].classification == "needs_replacement"
    assert "MODEL.DEVICE" in matrix["detectron2"].replacement.en
    assert matrix["tutel"].classification == "needs_replacement"
    assert {f.symbol for f in report.findings if f.rule == "DEP001"} >= {"detectron2", "tutel"}


def test_an_extras_line_is_required_where_product_code_imports_the_package_plainly(tmp_path):
    """Round 38 verdicts V-4, mmocr: requirements/mminstall.txt (setup.py's `mim` extra) lists mmcv, which product
    modules import plainly (`from mmcv.ops import ...`): the project does not run without it, so the line is required,
    whatever file declares it. The extras line a package manifest reads is the one raised; a docs build's copy of the
    line (readthedocs.txt) stays optional. Where the code imports the package only in a try block, or a main manifest
    already declares it, the extras line stays optional."""
    setup = ("from setuptools import setup\nsetup(install_requires=open('requirements/runtime.txt').read().split(),\n"
             "      extras_require={'mim': open('requirements/mminstall.txt').read().split()})\n")
    files = {"setup.py": setup, "requirements/runtime.txt": "numpy\n", "requirements/mminstall.txt": "mmcv>=2.0.0,<2.2.0\n",
             "requirements/readthedocs.txt": "mmcv>=2.0.0\n", "mypkg/__init__.py": "",
             "mypkg/heads.py": "from mmcv.ops import RoIAlignRotated\n", "train.py": "import mypkg.heads\n"}
    write(tmp_path / "plain", files)
    found = {f.path: f.reach for f in _findings(tmp_path / "plain", "DEP001") if f.symbol == "mmcv"}
    assert found == {"requirements/mminstall.txt": "runs", "requirements/readthedocs.txt": "optional"}
    guarded = {**files, "mypkg/heads.py": "try:\n    from mmcv.ops import RoIAlignRotated\nexcept ImportError:\n"
               "    RoIAlignRotated = None\n"}
    write(tmp_path / "guarded", guarded)
    assert {f.reach for f in _findings(tmp_path / "guarded", "DEP001") if f.symbol == "mmcv"} == {"optional"}
    # round 40 V-1: mminstall.txt is a main requirements file beside runtime.txt, one environment: one item
    main = {**files, "requirements/runtime.txt": "numpy\nmmcv>=2.0.0,<2.2.0\n"}
    write(tmp_path / "main", main)
    found = {f.path: (f.reach, f.sites) for f in _findings(tmp_path / "main", "DEP001") if f.symbol == "mmcv"}
    assert found["requirements/mminstall.txt"] == ("runs", ["requirements/mminstall.txt:1", "requirements/runtime.txt:2"])
    assert "requirements/runtime.txt" not in found
    # round 40 B1 class 1 (mmrotate): the product declares mmcv-full; `mmcv` itself is listed only by the docs
    # build's file, which .readthedocs.yml installs: a development group's line is never the raised one
    rtd = {**files, "requirements/runtime.txt": "numpy\nmmcv-full\n", "requirements/mminstall.txt": "mmcv-full>=1.5\n",
           ".readthedocs.yml": "version: 2\npython:\n  install:\n    - requirements: requirements/readthedocs.txt\n"}
    write(tmp_path / "rtd", rtd)
    found = {f.path: f.reach for f in _findings(tmp_path / "rtd", "DEP001") if f.symbol == "mmcv"}
    assert found == {"requirements/readthedocs.txt": "optional"}


def test_mminstall_is_the_required_mmcv_line_and_a_docs_build_carries_none(tmp_path):
    """Round 40 verdicts V-1 (ViTPose, mmtracking, Video-Swin): requirements/mminstall.txt is what `mim install` and
    the README install, and its package's __init__ asserts the mmcv range: the required mmcv line, even where no code
    imports mmcv-full by that name (mmcv-full installs the `mmcv` module). readthedocs.txt is the docs build's: its
    line is optional, never counted."""
    files = {"requirements/runtime.txt": "numpy\n", "requirements/mminstall.txt": "mmcv-full>=1.6.1,<1.7.0\n",
             "requirements/readthedocs.txt": "mmcv\ntorch\n", "mypkg/__init__.py": "import mmcv\n",
             "train.py": "import mypkg\nfrom mmcv.ops import RoIPool\n"}
    write(tmp_path / "mmtrack", files)
    found = {(f.path, f.symbol): f.reach for f in _findings(tmp_path / "mmtrack", "DEP001")}
    assert found == {("requirements/mminstall.txt", "mmcv-full"): "runs", ("requirements/readthedocs.txt", "mmcv"): "optional"}
    # ViTPose: the docs build lists mmcv-full too; `import mmcv` is that requirement's use, no undeclared import
    vitpose = {**files, "requirements/mminstall.txt": "mmcv-full>=1.3.8\n", "requirements/readthedocs.txt": "mmcv-full\n"}
    write(tmp_path / "vitpose", vitpose)
    found = {(f.path, f.symbol): f.reach for f in _findings(tmp_path / "vitpose", "DEP001")}
    assert found == {("requirements/mminstall.txt", "mmcv-full"): "runs",
                     ("requirements/readthedocs.txt", "mmcv-full"): "optional"}
    # a project that imports only mmdet 2.x still uses its mmcv-full line (mmdet imports mmcv and its ops)
    library = {"requirements.txt": "mmcv-full==1.6.0\nmmdet==2.25.1\n", "train.py": "import mmdet\n"}
    write(tmp_path / "library", library)
    assert not _findings(tmp_path / "library", "DEP015")
    # another extra (requirements/optional.txt) stays optional
    other = {**files, "requirements/mminstall.txt": "numpy\n", "requirements/optional.txt": "mmcv-full>=1.6.1\n"}
    write(tmp_path / "other", other)
    assert {f.path: f.reach for f in _findings(tmp_path / "other", "DEP001") if f.symbol == "mmcv-full"} == \
        {"requirements/optional.txt": "optional"}


def test_mmcv_ops_are_items_one_by_one_on_the_line_the_package_caps(tmp_path):
    """Round 40 verdicts V-5 (mmrotate): each name imported from mmcv.ops is an item, judged on the mmcv line the
    package's __init__ caps (mmcv_maximum_version = '1.8.0': 1.x) against that line's Ascend column
    (knowledge/dependencies/mmcv_ops.toml): NMSRotated is ticked (a validation, low), ConvexIoU is not (medium),
    RoIAlignRotated only on 2.x. A 1.x project whose ops run needs the old-branch FORCE_NPU build once (DEP061, at
    the cap). Behind try/except ImportError the ops are optional and no build is needed."""
    init = ("import mmcv\nmmcv_maximum_version = '1.8.0'\n"
            "assert mmcv.__version__ <= mmcv_maximum_version\n")
    files = {"requirements/runtime.txt": "numpy\n", "requirements/mminstall.txt": "mmcv-full>=1.5.0\n",
             "mypkg/__init__.py": init,
             "mypkg/heads.py": "from mmcv.ops import nms_rotated, convex_iou, RoIAlignRotated, point_sample\n",
             "train.py": "import mypkg\nimport mypkg.heads\n"}
    write(tmp_path / "old", files)
    ops = {f.symbol: (f.line, f.severity, f.reach) for f in _findings(tmp_path / "old", "DEP060")}
    assert ops == {"mmcv.ops.nms_rotated": (1, "low", "runs"), "mmcv.ops.convex_iou": (1, "medium", "runs"),
                   "mmcv.ops.RoIAlignRotated": (1, "medium", "runs")}
    assert [(f.path, f.line, f.reach) for f in _findings(tmp_path / "old", "DEP061")] == [("mypkg/__init__.py", 2, "runs")]
    current = {**files, "mypkg/__init__.py": init.replace("1.8.0", "2.2.0"),
               "requirements/mminstall.txt": "mmcv>=2.0.0\n"}
    write(tmp_path / "current", current)
    ops = {f.symbol: f.severity for f in _findings(tmp_path / "current", "DEP060")}
    assert ops == {"mmcv.ops.nms_rotated": "low", "mmcv.ops.convex_iou": "medium", "mmcv.ops.RoIAlignRotated": "low"}
    assert not _findings(tmp_path / "current", "DEP061")
    guarded = {**files, "mypkg/heads.py": "try:\n    from mmcv.ops import convex_iou\nexcept ImportError:\n"
               "    convex_iou = None\n"}
    write(tmp_path / "guarded", guarded)
    assert {f.reach for f in _findings(tmp_path / "guarded", "DEP060")} == {"optional"}
    assert not _findings(tmp_path / "guarded", "DEP061")


def test_an_import_of_an_extension_the_project_builds_is_no_undeclared_package(tmp_path):
    # Pointcept's libs/pointgroup_ops: setup.py builds CUDAExtension("pointgroup_ops_cuda"), functions.py imports it.
    # The import is the project's own build (OPS013 speaks for it), never a package to declare (DEP003); an import of
    # a CUDA-named module no setup.py builds still is (round 39 B2 class 1).
    write(tmp_path, {
        "requirements.txt": "torch==2.6.0\n",
        "libs/pointgroup_ops/setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
            "setup(name='pointgroup_ops', ext_modules=[CUDAExtension(name='pointgroup_ops_cuda', "
            "sources=['src/bfs_cluster.cpp', 'src/bfs_cluster_kernel.cu'])], cmdclass={'build_ext': BuildExtension})\n"),
        "libs/pointgroup_ops/functions/functions.py": "import torch\nimport pointgroup_ops_cuda\nimport nvidia_dali\n",
        "train.py": "import torch\nfrom libs.pointgroup_ops.functions import functions\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert sorted(f.symbol for f in report.findings if f.rule == "DEP003") == ["nvidia-dali"]
    assert [f.line for f in report.findings if f.rule == "OPS013"] == [2]


def _spconv_tree(tmp_path, handler: str):
    # round 41 V-3, CenterPoint det3d/models/backbones/scn.py: the backbone every shipped VoxelNet config builds
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "demo"\ndependencies = ["torch==2.6.0", "spconv-cu113"]\n',
        "det3d/__init__.py": "",
        "det3d/scn.py": ("import torch\ntry:\n    import spconv.pytorch as spconv\nexcept ImportError:\n"
                         f"    {handler}\n\n\nclass SpMiddle(torch.nn.Module):\n    def __init__(self):\n"
                         "        super().__init__()\n        self.conv = spconv.SubMConv3d(16, 16, 3)\n"),
        "train.py": "from det3d.scn import SpMiddle\n\nif __name__ == '__main__':\n    SpMiddle()\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return sorted((f.rule, f.path, f.reach) for f in report.findings if f.symbol and "spconv" in f.symbol)


def test_an_import_whose_handler_offers_nothing_in_its_place_is_required(tmp_path):
    # `except: import spconv` loads the same package: the import fails there too (the import line is reported)
    assert _spconv_tree(tmp_path / "a", "import spconv") == [
        ("DEP001", "pyproject.toml", "runs"), ("DEP020", "det3d/scn.py", "runs")]
    # `except: print(...)` leaves the module using spconv's names: required, the import itself is caught
    assert _spconv_tree(tmp_path / "b", 'print("No spconv, sparse convolution disabled!")') == [
        ("DEP001", "pyproject.toml", "runs")]


def test_an_import_whose_handler_binds_another_implementation_stays_optional(tmp_path):
    assert _spconv_tree(tmp_path, "import torchsparse as spconv") == [("DEP001", "pyproject.toml", "optional")]
