"""The verdict a manager reads: the main phase's total with the whole beside it, phases that hold only what their
entry points import, routes to Ascend named with their estimate, nothing called feasible that has nothing to assess,
and the inputs a user types (issue 26)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.outputs import render_to_string
from ascend_feasibility.knowledge import KnowledgeError, load_knowledge

from tests.helpers import write_tree

KERNEL = "import triton\nimport triton.language as tl\n@triton.jit\ndef {name}(x_ptr, n):\n    pid = tl.program_id(0)\n"


def _analyze(root):
    return analyze(root, AnalyzeOptions(jobs=1))


def test_the_total_is_the_main_phase_and_phases_hold_what_their_entries_import(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "from pkg.layers import Block\nfrom pkg import serving\n",
        "pkg/layers.py": "import torch\nclass Block(torch.nn.Module):\n    pass\n" + KERNEL.format(name="train_kernel"),
        "pkg/serving.py": KERNEL.format(name="serve_kernel"),
        "pkg/inference/__init__.py": "",
        "pkg/inference/engine.py": KERNEL.format(name="decode_kernel"),
        "pkg/unused.py": KERNEL.format(name="orphan_kernel"),
        "train.py": ("import torch\nfrom pkg import Block\nfrom pkg.inference import engine\n"
                     "if __name__ == '__main__':\n    loss.backward()\n    optimizer.step()\n"),
        "generate.py": "import torch\nfrom pkg import serving\nif __name__ == '__main__':\n    model.generate()\n",
        ".claude/tool.py": "import torch\nif __name__ == '__main__':\n    torch.cuda.synchronize()\n",
        "tests/fixtures/data.json": "[\n" + ",\n".join(["1"] * 500) + "\n]\n",
        "requirements.txt": "torch\ntriton\n",
    })
    report = _analyze(tmp_path)
    phases = {f.path: f.phases for f in report.findings if f.rule == "OPS030"}
    assert phases["pkg/layers.py"] == ["training"]
    # the package re-exports Block from pkg.layers: the training entry does not load pkg/serving.py through it
    assert phases["pkg/serving.py"] == ["inference"]
    # a module in a folder named for a phase serves that phase, whoever imports it
    assert phases["pkg/inference/engine.py"] == ["inference"]
    assert phases["pkg/unused.py"] == []  # no entry imports it
    effort = report.effort
    assert effort.main_phase == "training"
    assert effort.total == effort.by_phase["training"]
    assert effort.whole.high_days > effort.total.high_days
    other = {i.item for i in effort.items if i.bucket == "other-phases"}
    assert any("OPS030" in item for item in other)
    assert not any(e.path.startswith(".claude/") for e in report.phase_matrix.entries)
    assert report.project.lines_scanned < 500  # the JSON fixture is not code to port


def test_a_folder_without_pytorch_code_has_nothing_to_assess(tmp_path):
    write_tree(tmp_path, {"README.md": "# notes\n", "tool.py": "import numpy as np\nprint(np.zeros(2))\n",
                          "requirements.txt": "numpy\n"})
    report = _analyze(tmp_path)
    assert report.verdict.verdict == "not-applicable"
    assert "nothing to assess" in report.verdict.drivers[0].en
    assert render_to_string(report, "markdown", ("en",)).count("Feasible") == 0


def test_the_verdict_names_the_route_of_the_project_it_is_with_the_estimate_by_it(tmp_path):
    write_tree(tmp_path, {
        "megatron/core/__init__.py": "",
        "megatron/core/parallel_state.py": "import torch\ntorch.distributed.init_process_group('nccl')\n",
        "megatron/core/ssm/__init__.py": "",
        "megatron/core/ssm/scan.py": KERNEL.format(name="ssm_scan_kernel"),
        "pretrain_gpt.py": ("import torch\nfrom megatron.core import parallel_state\nfrom megatron.core.ssm import scan\n"
                            "from torchao.float8 import Float8LinearConfig\n"
                            "if __name__ == '__main__':\n    loss.backward()\n"),
        "requirements.txt": "torch\n",
    })
    report = _analyze(tmp_path)
    routes = {n.id: n for n in report.verdict.routes}
    mindspeed = routes["megatron-mindspeed"]
    assert mindspeed.relation == "is" and mindspeed.estimate is not None
    assert mindspeed.estimate.high_days < report.effort.total.high_days
    assert mindspeed.outside is not None and mindspeed.outside.high_days > 0  # megatron.core.ssm is not patched
    assert "MindSpeed" in report.verdict.drivers[0].en and "by that route" in report.verdict.drivers[0].en
    assert routes["torchao-float8"].relation == "builds-on" and routes["torchao-float8"].status == "none"


def test_a_route_drives_the_verdict_only_where_a_required_item_belongs_to_its_package(tmp_path):
    """Round 34 V1-6: IC-Light uses only transformers' CLIP text encoder (nothing to port there) and Swin-Transformer
    opts into a guarded apex: the Routes section lists both routes, the drivers name neither. apex's FusedAdam built
    on every run is a required item of apex: its route is named."""
    write_tree(tmp_path, {
        "train.py": ("import torch\nfrom transformers import CLIPTextModel\n"
                     "try:\n    from apex.optimizers import FusedLAMB\nexcept ImportError:\n    FusedLAMB = None\n"
                     "text = CLIPTextModel.from_pretrained('openai/clip-vit-large-patch14')\n"
                     "if __name__ == '__main__':\n    loss.backward()\n    optimizer.step()\n"),
        "requirements.txt": "torch\ntransformers\n",
    })
    report = _analyze(tmp_path)
    assert {n.id for n in report.verdict.routes} >= {"hf-native"}
    assert not any(d.en.startswith("builds on") for d in report.verdict.drivers)
    (tmp_path / "train.py").write_text((tmp_path / "train.py").read_text().replace(
        "if __name__", "from apex.optimizers import FusedAdam\nopt = FusedAdam(params)\nif __name__"))
    report = _analyze(tmp_path)
    builds_on = [d.en for d in report.verdict.drivers if d.en.startswith("builds on")]
    assert builds_on == ["builds on: apex (partial route) — see Routes"]


def test_a_project_that_runs_by_its_own_route_says_so_in_the_verdict(tmp_path):
    write_tree(tmp_path, {
        "deepspeed/__init__.py": "from deepspeed.runtime import engine\n",
        "deepspeed/runtime/__init__.py": "",
        "deepspeed/runtime/engine.py": "import torch\nclass Engine(torch.nn.Module):\n    pass\n",
        "deepspeed/inference/__init__.py": "",
        "deepspeed/inference/kernels.py": KERNEL.format(name="decode_kernel"),
        "train.py": ("import torch\nimport deepspeed\nif __name__ == '__main__':\n    loss.backward()\n"
                     "    optimizer.step()\n"),
        "generate.py": ("import torch\nfrom deepspeed.inference import kernels\nif __name__ == '__main__':\n"
                        "    model.generate()\n"),
        "requirements.txt": "torch\ntriton\n",
    })
    report = _analyze(tmp_path)
    assert report.effort.main_phase == "training" and report.verdict.verdict == "feasible"
    why = [d for d in report.verdict.drivers if d.en.startswith("why feasible")]
    assert len(why) == 1 and "DeepSpeed runs on Ascend by its own route" in why[0].en
    assert "training phase's, the main phase" in why[0].en and "only other phases need" in why[0].en
    assert why[0].zh.startswith("判定为可行的原因：DeepSpeed") and "训练" in why[0].zh
    assert "判定为可行的原因" in render_to_string(report, "markdown", ("zh",))


@pytest.mark.parametrize("manifest, text", [
    ("setup.py", "from setuptools import setup\nsetup(name='p', install_requires=['torch>=2.1.0'])\n"),
    ("environment.yml", "name: p\ndependencies:\n  - pytorch>=2.1\n  - pytorch-cuda=11.8\n"),
])
def test_the_target_reads_setup_py_and_conda_files_like_pyproject(tmp_path, manifest, text):
    write_tree(tmp_path, {manifest: text, "train.py": "import torch\nx = torch.ones(1).cuda()\n"})
    report = _analyze(tmp_path)
    assert report.target.chosen_by == "project"
    assert manifest in report.target.reason.en
    assert not any(f.rule == "DEP013" for f in report.findings)  # no "torch is not declared" beside it
    if manifest == "environment.yml":  # a CUDA runtime to delete is no feature to rebuild
        assert report.verdict.verdict == "feasible"
        assert {f.rule for f in report.findings if "pytorch-cuda" in f.symbol} == {"DEP014"}


def test_a_knowledge_text_inside_a_ui_string_is_escaped_once_in_markdown(tmp_path):
    write_tree(tmp_path, {"train.py": "import torch\nimport deepspeed\nengine = deepspeed.initialize(model=m)\n",
                          "requirements.txt": "torch\ndeepspeed\n"})
    text = render_to_string(_analyze(tmp_path), "markdown", ("en",))
    assert "DS\\_ACCELERATOR" in text and "DS\\\\\\_ACCELERATOR" not in text


def test_the_versions_a_user_types():
    kb = load_knowledge()
    newest_25 = kb.resolve_target("2.5")
    assert newest_25.release.torch.startswith("2.5.") and newest_25.release.torch_npu.startswith("2.5.1")
    line = kb.resolve_target("7.2.0")
    assert line.release.branch.endswith("-7.2.0") and "release line 7.2.0" in line.note
    with pytest.raises(KnowledgeError, match="release lines"):
        kb.resolve_target("9.9.9")


def test_explain_suggests_the_nearest_rule(capsys):
    from ascend_feasibility.analyzer.core.cli import main

    assert main(["explain", "torch-cuda-synchronise"]) != 0
    assert "did you mean torch-cuda-synchronize" in capsys.readouterr().err


def test_a_library_used_through_its_examples_is_judged_on_all_its_required_work(tmp_path):
    write_tree(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='lib', install_requires=['torch'])\n",
        "lib/__init__.py": "",
        "lib/ops.py": KERNEL.format(name="lib_kernel"),
        "examples/train.py": "import torch\nimport lib\nif __name__ == '__main__':\n    loss.backward()\n",
    })
    report = _analyze(tmp_path)
    assert report.effort.main_phase is None and report.effort.whole is None
    required = [i for i in report.effort.items if i.bucket == "required" and not i.step0]
    assert required and report.effort.total.high_days > 0


def test_every_reason_the_context_gives_reads_in_chinese():
    from ascend_feasibility.analyzer.reporting.localize import phrase

    reasons = [
        "pkg/npu_ops.py: NPU code by its name", "a/cuda_x.py: runs as a/npu_x.py on Ascend",
        "imported only behind guards with a fallback: a.py, b.py", "built only by other backends' builders: b.py and 2 more",
        "helper() is imported only by tests: tests/t.py", "selected by configuration: `backend == \"fancy\"` (pkg/c.py:4)",
        "loaded by name only, when a configuration lists it: 'pkg.o.f' is named at pkg/p.py:1; no product code imports it",
        "line 12: if torch.cuda.is_available():", "line 3: inside the test function test_x()",
        "imported only in optional, guarded, test or other backends' code: examples/x.py",
        "pyproject.toml:40: declared in the optional group 'dev'", "syntax error at line 9: analysed partially",
        "line 3: inside fp8_autocast, an NVIDIA-only feature", "line 4: the check only guards a message",
        "line 5: the check only tries a CUDA path and falls back when it fails",
        "line 6: off CUDA the function returns its input unchanged (the eager path)",
        "line 7: the self-test under `if __name__ == \"__main__\":` of a module the project imports (pkg/a.py)",
        "tools/x.py:141: imported inside a function, class or try block, where an optional feature loads it",
        "imported by nothing the launchers and entry points of the application package llava/ load: no product code "
        "loads it",
        "line 38: function get_local_rank is named nowhere else in the project (no call, reference, export or config "
        "entry): nothing reaches it",
        "no build of the project names it (setup.py or load() sources, CMakeLists, Makefile, shell): it is not compiled",
    ]
    for reason in reasons:
        zh = phrase("zh", reason)
        assert zh != reason, reason
        english = [w for w in zh.replace("`", " ").split() if w.isascii() and w.isalpha() and len(w) > 3
                   and w.lower() not in {"torch", "cuda", "backend", "fancy", "test", "dev", "eager", "nvidia"}]
        assert not english or "is_available" in zh or "test_x" in zh, (reason, zh)


def test_a_backward_pass_in_a_serving_project_does_not_make_it_a_training_project(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/grad.py": ("import torch\nclass GradMultiply(torch.autograd.Function):\n"
                        "    @staticmethod\n    def forward(ctx, x):\n        return x\n"
                        "    @staticmethod\n    def backward(ctx, g):\n        return g\n"),
        "pkg/model.py": "import torch\nfrom pkg.grad import GradMultiply\nx = torch.ones(1).cuda()\n",
        "infer.py": "import torch\nfrom pkg import model\nif __name__ == '__main__':\n    with torch.no_grad():\n        model.generate()\n",
        "requirements.txt": "torch\n",
    })
    report = _analyze(tmp_path)
    assert report.effort.main_phase == "inference"
    assert all("backward pass" not in " ".join(e.evidence) for e in report.phase_matrix.entries)


def test_a_partial_route_says_what_it_leaves_to_port(tmp_path):
    write_tree(tmp_path, {
        "liger_kernel/__init__.py": "",
        "liger_kernel/ops/__init__.py": "",
        "liger_kernel/ops/attention.py": "import torch\n" + KERNEL.format(name="attn_fwd_kernel"),
        "requirements.txt": "torch\ntriton\n",
    })
    report = _analyze(tmp_path)
    [note] = [n for n in report.verdict.routes if n.relation == "is"]
    assert note.id == "liger-ascend" and note.outside is not None and note.outside.high_days > 0
    assert "leaves" in report.verdict.drivers[0].en
