"""Context of findings: file roles, reach (per-backend files, guards, propagation), own packages, project-scoped
rules, one finding per line and meaning, and what counts toward effort and the verdict."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import build_project_context
from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase
from ascend_feasibility.knowledge import load_context_conventions

from tests.helpers import scan, write_tree

ROLES = load_context_conventions().roles


def test_roles_from_paths_and_overrides():
    assert file_role("pkg/model.py", ROLES) == "product"
    assert file_role("tests/unit/test_model.py", ROLES) == "test"
    assert file_role("pkg/model_test.py", ROLES) == "test"
    assert file_role("src/pkg/utils/testing_utils.py", ROLES) == "test"
    assert file_role("conftest.py", ROLES) == "test"
    assert file_role("examples/train.py", ROLES) == "example"
    assert file_role("benchmarks/bench.py", ROLES) == "example"
    assert file_role("scripts/launch.sh", ROLES) == "product"  # launch scripts are what real ports change
    assert file_role("scripts/convert_checkpoint.py", ROLES) == "example"  # a developer tool
    assert file_role("utils/print_env.py", ROLES) == "example"
    assert file_role("src/pkg/utils/io.py", ROLES) == "product"  # a package's utils are product code
    assert file_role("docs/source/conf.py", ROLES) == "docs"
    assert file_role(".github/workflows/ci.yml", ROLES) == "ci"
    assert file_role("packaging/pkg_helpers.bash", ROLES) == "ci"  # builds the CUDA release packages
    assert file_role("packaging/conda/build_pkg.sh", ROLES) == "ci"
    assert file_role("conda.recipe/meta.yaml", ROLES) == "ci"
    assert file_role("pkg/packaging/wheel.py", ROLES) == "product"  # a package's own module of that name
    assert file_role("requirements-dev.txt", ROLES) == "build"
    assert file_role("docker/Dockerfile.cuda", ROLES) == "build"
    assert file_role("setup.py", ROLES) == "build"
    assert file_role("tools/convert.py", ROLES, {"example": ["tools/*"]}) == "example"


def test_per_backend_files_twins_and_dispatch_folders():
    paths = [
        "accelerator/cuda_accelerator.py", "accelerator/npu_accelerator.py", "accelerator/xpu_accelerator.py",
        "accelerator/real_accelerator.py", "op_builder/__init__.py", "op_builder/builder.py", "op_builder/fused_adam.py",
        "op_builder/transformer.py", "op_builder/npu/__init__.py", "op_builder/npu/fused_adam.py",
        "op_builder/xpu/fused_adam.py", "csrc/xpu/adam.cpp", "csrc/adam/adam.cu", "models/llama.py", "models/npu/ops.py",
    ]
    context = build_project_context(paths)
    reach = {p: context.of(p).reach for p in paths}
    assert reach["accelerator/cuda_accelerator.py"] == "other-backend"  # its NPU twin runs instead
    assert reach["accelerator/xpu_accelerator.py"] == "other-backend"
    assert reach["accelerator/npu_accelerator.py"] == "npu-path"
    assert reach["accelerator/real_accelerator.py"] == "runs"
    assert reach["op_builder/fused_adam.py"] == "other-backend"  # op_builder/npu/fused_adam.py
    assert reach["op_builder/transformer.py"] == "other-backend"  # beside op_builder/{npu,xpu}/: the CUDA variant
    assert reach["op_builder/__init__.py"] == "runs"
    assert reach["csrc/xpu/adam.cpp"] == "other-backend"
    assert reach["csrc/adam/adam.cu"] == "runs"  # until a builder names it (propagation)
    assert reach["models/llama.py"] == "runs"  # an npu/ subfolder alone does not make a dispatch folder
    assert context.npu_files == ("accelerator/npu_accelerator.py", "models/npu/ops.py", "op_builder/npu/__init__.py",
                                 "op_builder/npu/fused_adam.py")


def test_an_nvidia_only_engine_beside_one_with_an_ascend_build_is_the_choice_ascend_skips():
    paths = [
        "verl/workers/rollout/trtllm_rollout/trtllm_rollout.py", "verl/workers/rollout/vllm_rollout/vllm_rollout.py",
        "verl/workers/rollout/sglang_rollout/sglang_rollout.py", "serve/trtllm_server.py", "serve/vllm_server.py",
        "deploy/trtllm/engine.py", "tools/tensorrt_export.py",
    ]
    context = build_project_context(paths)
    reach = {p: context.of(p).reach for p in paths}
    assert reach["verl/workers/rollout/trtllm_rollout/trtllm_rollout.py"] == "other-backend"
    assert "verl/workers/rollout/vllm_rollout" in context.of("verl/workers/rollout/trtllm_rollout/trtllm_rollout.py").reason
    assert reach["serve/trtllm_server.py"] == "other-backend"  # serve/vllm_server.py beside it
    assert reach["verl/workers/rollout/vllm_rollout/vllm_rollout.py"] == "runs"
    assert reach["deploy/trtllm/engine.py"] == "runs"  # the only engine it has: porting it is the work
    assert reach["tools/tensorrt_export.py"] == "runs"


def test_own_packages_are_not_hidden_by_a_submodule_named_like_a_library():
    context = build_project_context(["deepspeed/__init__.py", "deepspeed/utils/__init__.py", "deepspeed/utils/torch.py",
                                     "setup.py", "examples/run/helper.py"])
    assert "deepspeed" in context.own_packages and "torch" not in context.own_packages
    assert "helper" in context.local_modules and "torch" not in context.local_modules
    assert context.is_own("deepspeed.initialize") and not context.is_own("torch.cuda.synchronize")


def reach_of(code: str, rule: str) -> list[tuple[str, str | None]]:
    return [(f.reach, f.reach_reason) for f in scan(code).findings if f.rule == rule]


def test_code_after_a_raise_or_return_of_its_block_never_runs():
    # InternImage sam/main_zero_shot_instance_seg.py: `else: raise NotImplementedError` before the distributed wrapper
    code = ("import torch\ndef main(distributed):\n    if not distributed:\n        torch.cuda.synchronize()\n"
            "    else:\n        raise NotImplementedError\n        d = torch.cuda.current_device()\n"
            "    torch.cuda.empty_cache()\n")
    assert reach_of(code, "DEV101")[0][0] == "runs"  # before the raise, in its own arm
    reach, reason = reach_of(code, "DEV100")[0]
    assert reach == "optional" and "line 6: raise NotImplementedError" in reason and "nothing after it runs" in reason
    assert reach_of(code, "DEV102")[0][0] == "runs"  # after the if statement: the other arm reaches it
    early = "import torch\ndef f(x):\n    return x\n    torch.cuda.synchronize()\n"
    assert reach_of(early, "DEV101")[0][0] == "optional"


def test_guards_decide_reach():
    npu_chain = "import torch\nif is_torch_npu_available():\n    d = 'npu'\nelif torch.cuda.is_available():\n    torch.cuda.synchronize()\n"
    assert reach_of(npu_chain, "DEV101")[0][0] == "npu-path"
    hip = "import torch\nif torch.version.hip:\n    torch.cuda.synchronize()\nelse:\n    torch.cuda.empty_cache()\n"
    assert reach_of(hip, "DEV101")[0][0] == "other-backend"
    assert reach_of(hip, "DEV102")[0][0] == "runs"  # the else branch runs on Ascend
    gate = "import torch\nif is_flash_attn_2_available():\n    from flash_attn import flash_attn_func\n    o = flash_attn_func(q, k, v)\n"
    assert {r for r, _ in reach_of(gate, "ATT001")} == {"optional"}
    optional_import = "try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n"
    assert reach_of(optional_import, "ATT032")[0] == ("optional", "line 3: except ImportError:")


def test_cuda_guard_covers_cuda_only_features_with_a_fallback_only():
    kernel = (
        "import torch, triton\nfrom flash_attn import flash_attn_func\n"
        "def f(q, k, v):\n    if q.is_cuda:\n        return flash_attn_func(q, k, v)\n    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
    )
    reach, _ = reach_of(kernel, "ATT001")[0]
    assert reach == "cuda-only-guarded"
    finding = next(f for f in scan(kernel).findings if f.rule == "ATT001")
    assert "transfer_to_npu" in finding.message.en and finding.severity in {"low", "info"}
    no_fallback = (
        "from flash_attn import flash_attn_func\n"
        "def f(q, k, v):\n    if q.is_cuda:\n        return flash_attn_func(q, k, v)\n    raise RuntimeError('CUDA only')\n"
    )
    assert reach_of(no_fallback, "ATT001")[0][0] == "runs"  # Ascend gets the raise: a real finding
    else_raises = (
        "from flash_attn import flash_attn_func\n"
        "def f(q, k, v):\n    if q.is_cuda:\n        return flash_attn_func(q, k, v)\n    else:\n"
        "        raise RuntimeError('CUDA only')\n"
    )
    assert reach_of(else_raises, "ATT001")[0][0] == "runs"  # the raise as the else arm: still no fallback
    placement = "import torch\nif torch.cuda.is_available():\n    model.cuda()\n"
    assert reach_of(placement, "DEV004")[0][0] == "runs"  # device placement behind a CUDA check still needs porting


def test_one_finding_per_line_and_meaning():
    rules = [f.rule for f in scan('import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n').findings]
    assert rules == ["DEV104"]
    rules = [f.rule for f in scan("import torch\nmajor = torch.cuda.get_device_properties(0).major\n").findings]
    assert rules == ["DEV126"]
    assert [f.rule for f in scan("x = a.double() + b.double()\n").findings] == ["PRC006"]


def test_nccl_default_feeding_the_files_own_comparison_is_not_auto():
    code = "class A:\n    def __init__(self, comm_backend_name='nccl'):\n        if comm_backend_name == 'nccl':\n            pass\n"
    string = next(f for f in scan(code).findings if f.rule == "DST002")
    assert string.migration != "auto"
    assert next(f for f in scan("backend = 'nccl'\n").findings if f.rule == "DST002").migration == "auto"


def test_project_context_in_a_report(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/engine.py": "import torch\nimport deepspeed\nengine = deepspeed.initialize(model=m)\ntorch.cuda.synchronize()\n",
        "pkg/other.py": "import deepspeed\nengine = deepspeed.initialize(model=m)\n",
        "tests/test_engine.py": "import torch\nimport deepspeed\ndeepspeed.initialize(model=m)\ntorch.cuda.synchronize()\n",
        "accelerator/cuda_accelerator.py": "import torch\ntorch.cuda.synchronize()\n",
        "accelerator/npu_accelerator.py": "import torch_npu\n",
        "op_builder/xpu/b.py": "", "op_builder/npu/b.py": "",
        "op_builder/kernels.py": "def sources():\n    return ['csrc/kernel.cu']\n",
        "csrc/kernel.cu": "__global__ void dropout_kernel(float* x) { x[0] = 0; }\n",
        "requirements.txt": "torch==2.6.0\ndeepspeed\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    by_rule = {}
    for f in report.findings:
        by_rule.setdefault(f.rule, []).append(f)
    engine = by_rule["DST014"]
    assert len(engine) == 1 and engine[0].path == "pkg/engine.py"  # project-scoped: one finding, its sites listed
    assert engine[0].sites == ["pkg/engine.py:3", "pkg/other.py:2", "tests/test_engine.py:3"]
    syncs = {(f.path, f.role, f.reach) for f in by_rule["DEV101"]}
    assert syncs == {("pkg/engine.py", "product", "runs"), ("tests/test_engine.py", "test", "runs"),
                     ("accelerator/cuda_accelerator.py", "product", "other-backend")}
    kernel = next(f for f in report.findings if f.path == "csrc/kernel.cu")
    assert kernel.reach == "other-backend" and "op_builder/kernels.py" in kernel.reach_reason
    counted = {f.path for f in report.findings if f.counted}
    assert "tests/test_engine.py" not in counted and "csrc/kernel.cu" not in counted
    assert all(f.severity in {"low", "info"} for f in report.findings if not f.counted)
    required = [i for i in report.effort.items if i.bucket == "required"]
    assert {item.rule for item in required} >= {"adoption:entry-points", "adoption:deepspeed"}  # DEV101 sites, DST014
    assert next(i for i in required if i.rule == "adoption:deepspeed").count == 1
    assert not any(item.rule.startswith("OPS") for item in required)


def test_kernel_modules_imported_only_behind_guards_are_optional(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/kernels.py": "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n"
                          "    x = tl.load(x_ptr + tl.arange(0, BLOCK))\n    tl.store(x_ptr, x)\n",
        "pkg/ops.py": "import torch\n\ndef fast(x):\n    from .kernels import k\n    k[(1,)](x, BLOCK=128)\n    return x\n\n"
                      "def op(x):\n    if x.is_cuda:\n        try:\n            return fast(x)\n        except RuntimeError:\n"
                      "            pass\n    return x.sort()[0]\n",
        "pkg/plain.py": "from pkg.kernels import k\n",  # an unguarded import elsewhere keeps the kernel counted
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    kernels = [f for f in report.findings if f.path == "pkg/kernels.py" and f.domain == "custom_ops"]
    assert kernels and all(f.reach == "runs" for f in kernels)
    (tmp_path / "pkg/plain.py").unlink()
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    kernels = [f for f in report.findings if f.path == "pkg/kernels.py" and f.domain == "custom_ops"]
    assert kernels and all(f.reach == "optional" and "pkg/ops.py" in f.reach_reason for f in kernels)
    assert not any(f.counted for f in kernels)


def test_a_cuda_check_that_guards_only_cuda_only_code_is_right_as_it_is():
    graph = "import torch\nif torch.cuda.is_available():\n    g = torch.cuda.CUDAGraph()\n"
    assert reach_of(graph, "DEV104")[0][0] == "cuda-only-guarded"
    placement = "import torch\nif torch.cuda.is_available():\n    g = torch.cuda.CUDAGraph()\n    x = x.cuda()\n"
    assert reach_of(placement, "DEV104")[0][0] == "runs"  # the body also places tensors: Ascend needs that path


def test_reraising_import_handlers_are_no_gate():
    code = "try:\n    from flash_attn import flash_attn_varlen_func\nexcept ImportError:\n    raise ImportError('needs flash-attn')\n"
    assert [f.rule for f in scan(code).findings if f.rule == "ATT032"] == []


def test_role_overrides_from_the_projects_settings(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.ascend-feasibility.roles]\nexample = ["tools/*"]\nbogus = ["x"]\n',
        "tools/convert.py": "import torch\ntorch.cuda.synchronize()\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert {f.role for f in report.findings if f.path == "tools/convert.py"} == {"example"}
    assert any("roles] bogus" in s.reason for s in report.skipped)


def test_a_cuda_check_that_only_raises_or_warns_is_a_feature_gate():
    code = "def f(q):\n    if q.device.type != 'cuda':\n        raise ValueError('this backend needs CUDA')\n    return q\n"
    assert reach_of(code, "DEV007")[0][0] == "cuda-only-guarded"
    placement = "def f(q, m):\n    if q.device.type == 'cuda':\n        m = m.half()\n    return m\n"
    assert reach_of(placement, "DEV007")[0][0] == "runs"
    hccl = "if backend == 'nccl':\n    b = NcclBackend()\nelif backend == 'hccl':\n    b = HcclBackend()\n"
    assert all(r == "npu-path" for r, _ in reach_of(hccl, "DST003"))


def test_a_query_that_only_decides_a_printed_hint_is_cosmetic():
    """qlora.py:332 (scout 14): `if torch.cuda.is_bf16_supported(): print(...)` only prints a hint at the default target
    (torch 2.12: the query answers False without CUDA); a query that picks the dtype runs."""
    hint = "import torch\nif torch.cuda.is_bf16_supported():\n    print('pass --bf16')\n"
    assert reach_of(hint, "DEV100")[0] == (
        "cosmetic", "line 2: if torch.cuda.is_bf16_supported(): (the condition only decides whether a message is shown)")
    picks = "import torch\nif torch.cuda.is_bf16_supported():\n    dtype = torch.bfloat16\n"
    assert reach_of(picks, "DEV100")[0][0] == "runs"


def test_root_level_training_scripts_beside_the_package_are_examples():
    assert file_role("train_copy.py", ROLES, beside_package=True) == "example"
    assert file_role("demo_app.py", ROLES, beside_package=True) == "example"
    assert file_role("train.py", ROLES, beside_package=True) == "product"  # nanoGPT-style entry point
    assert file_role("train_copy.py", ROLES) == "product"  # no package beside it: the scripts are the product
    assert file_role("pkg/train_loop.py", ROLES, beside_package=True) == "product"
    context = build_project_context(["x_transformers/__init__.py", "x_transformers/attend.py", "train_copy.py"])
    assert context.of("train_copy.py").role == "example"
    assert build_project_context(["train_copy.py", "model.py"]).of("train_copy.py").role == "product"


ASSIGNED_CHECK = ("import torch\ndef f():\n    cuda_available = torch.cuda.is_available()\n    if not cuda_available:\n"
                  "        raise ValueError('needs an NVIDIA GPU')\n    cap = torch.cuda.get_device_capability()\n")
CAPABILITY_PAIR = "import os, torch\nuse = os.getenv('K') and torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 7\n"
CAPABILITY_CHAIN = ("import torch\ndef load(device):\n    return (torch.float16 if 'cuda' in device\n"
                    "            and torch.cuda.get_device_properties(device).major >= 7\n"
                    "            and not torch.cuda.get_device_name().endswith('[ZLUDA]') else torch.float32)\n"
                    "load('cuda')\n")
# (code, rule, expected reach): CUDA checks in front of CUDA-only packages or functions, and what stays a finding
CUDA_ONLY_GATES = [
    ("import torch\nfor t in ts:\n    if torch.cuda.is_available() and compiled:\n        torch._inductor.cudagraph_mark_step_begin()\n",
     "DEV104", "cuda-only-guarded"),
    ("import torch\nif torch.cuda.is_available():\n    import pynvml\n    pynvml.nvmlInit()\n", "DEV104", "cuda-only-guarded"),
    # the cache is emptied on CUDA only: Ascend needs that too, which the release's own finding says (DEV102 runs);
    # the check guards nothing else, so it is not one more finding (round 5: sd-scripts gen_img.py:685)
    ("import torch\nif torch.cuda.is_available():\n    torch.cuda.empty_cache()\n", "DEV104", "cosmetic"),
    ("import torch\nif torch.cuda.is_available():\n    torch.cuda.empty_cache()\n", "DEV102", "runs"),
    (ASSIGNED_CHECK, "DEV104", "cuda-only-guarded"),
    (ASSIGNED_CHECK, "DEV120", "cuda-only-guarded"),  # after a check that already excludes NPU
    ("import torch\ndef f(x):\n    ok = torch.cuda.is_available()\n    if ok:\n        x = x.cuda()\n    return x\n", "DEV104", "runs"),
    (CAPABILITY_PAIR, "DEV104", "cuda-only-guarded"),
    (CAPABILITY_PAIR, "DEV120", "cuda-only-guarded"),
    ("import torch\nmajor, minor = torch.cuda.get_device_capability()\n", "DEV120", "runs"),
    # a later operand of the pair runs only once the check and the query hold: it shares their reach (round 20 A2
    # row 99); the chain's first operand, and an `and` without a capability query, keep their own
    (CAPABILITY_CHAIN, "DEV100", "cuda-only-guarded"),
    ("import torch\nuse = torch.cuda.get_device_name().startswith('A') and torch.cuda.get_device_capability()[0] >= 7\n",
     "DEV100", "runs"),
    ("import torch\nuse = torch.cuda.is_available() and not torch.cuda.get_device_name().endswith('[ZLUDA]')\n",
     "DEV100", "runs"),
]


def test_a_cuda_check_in_front_of_a_cuda_only_package_or_function():
    for code, rule, reach in CUDA_ONLY_GATES:
        assert reach_of(code, rule)[0][0] == reach, (rule, code)


FLEX = "import torch\nfrom torch.nn.attention.flex_attention import flex_attention\n"
FLEX_GUARD = FLEX + "if torch.cuda.is_available():\n    flex_attention = torch.compile(flex_attention)\n"


def test_a_cuda_check_that_only_turns_on_a_cuda_only_feature_is_right_as_written():
    # round 23 A1 C3 (rows 8, 11, 27, 49), A2 C4 (rows 53, 82): show-o2 compiles flex_attention behind the check; on
    # Ascend the eager function runs, and torch.npu.is_available() there would send the NPU into torch.compile's CUDA
    # inductor. Not a device choice: not counted, with the reason saying to keep the check CUDA-only.
    used = FLEX_GUARD + "def attend(q, k, v):\n    return flex_attention(q, k, v)\n"
    (reach, reason), = reach_of(used, "DEV104")
    assert reach == "cuda-only-guarded" and "CUDA-only feature (torch.compile)" in reason and "keep the check CUDA-only" in reason
    assert "dead store" not in reason  # attend() calls the compiled function
    (reach, reason), = reach_of(FLEX_GUARD, "DEV104")  # A2 82: nothing reads the compiled name afterwards
    assert reach == "cuda-only-guarded" and "nothing in this module reads flex_attention afterwards" in reason
    exported = FLEX_GUARD + "__all__ = ['flex_attention']\n"
    assert "dead store" not in reach_of(exported, "DEV104")[0][1]  # read by name through __all__
    # the body also moves the model (or picks a device, or has an else arm that runs on the NPU): the check decides more
    # than a feature, and stays a finding
    for code in (FLEX + "model = torch.nn.Linear(2, 2)\nif torch.cuda.is_available():\n    model = torch.compile(model.cuda())\n",
                 FLEX + "if torch.cuda.is_available():\n    f = torch.compile(flex_attention)\n    device = 'cuda'\n",
                 FLEX + "if torch.cuda.is_available():\n    f = torch.compile(flex_attention)\nelse:\n    f = flex_attention.to('cpu')\n"):
        assert reach_of(code, "DEV104")[0][0] == "runs", code


# (code, rule, expected reach, expected reason or None): a site after a statement that already excludes NPU
EXCLUDED_BEFORE = [
    ("import torch\ndef f():\n    try:\n        from flash_attn import flash_attn_varlen_func\n    except ImportError:\n"
     "        raise ImportError('install flash-attn')\n    major, minor = torch.cuda.get_device_capability()\n",
     "DEV120", "cuda-only-guarded", None),
    ("import torch\ndef _check_device_cuda(q):\n    if q.device.type != 'cuda':\n        raise ValueError('CUDA')\n"
     "def check(q):\n    _check_device_cuda(q)\n    if torch.cuda.get_device_capability(q.device) < (8, 0):\n"
     "        raise ValueError('sm80')\n",
     "DEV120", "cuda-only-guarded", "line 6: _check_device_cuda(q)"),
    ("import torch\ndef f():\n    if not torch.cuda.is_available():\n        raise ValueError('CUDA only')\n    else:\n"
     "        if torch.cuda.get_device_properties(0).major != 8:\n            raise ValueError('Ampere')\n",
     "DEV126", "cuda-only-guarded", None),
    ("import torch\ndef f():\n    if not xformers_ok():\n        raise ImportError('xformers')\n"
     "    elif not torch.cuda.is_available():\n        raise ValueError('GPU only')\n    else:\n"
     "        q = torch.randn((1, 2, 40), device='cuda')\n",
     "DEV001", "cuda-only-guarded", "line 5: elif not torch.cuda.is_available():"),
    # an assert that CUDA is available tests no input: the program's precondition (round 19 class V1). It stops the
    # program natively and passes under transfer_to_npu; what follows is the main path there
    ("import torch\ndef f():\n    assert torch.cuda.is_available(), 'needs a GPU'\n    torch.cuda.set_device(0)\n",
     "DEV103", "runs", None),
    ("import torch\ndef f(q):\n    assert q.is_cuda, 'CUDA tensors only'\n    torch.cuda.set_device(0)\n",
     "DEV103", "cuda-only-guarded", "line 3: assert q.is_cuda, 'CUDA tensors only'"),
    # the check does not raise: Ascend goes on to the query
    ("import torch\ndef f(x):\n    if not torch.cuda.is_available():\n        x = x.float()\n"
     "    major, minor = torch.cuda.get_device_capability()\n", "DEV120", "runs", None),
    # the raise is in another function
    ("import torch\ndef g():\n    if not torch.cuda.is_available():\n        raise ValueError('x')\n"
     "def f():\n    major, minor = torch.cuda.get_device_capability()\n", "DEV120", "runs", None),
]


def test_sites_after_an_earlier_check_that_excludes_npu():
    for code, rule, reach, reason in EXCLUDED_BEFORE:
        found = reach_of(code, rule)[0]
        assert found[0] == reach, code
        assert reason is None or found[1] == reason


def test_an_accelerator_abstraction_with_an_npu_accelerator_is_an_npu_path(tmp_path):
    code = ("from deepspeed.accelerator import get_accelerator\nimport torch\n"
            "def f():\n    if get_accelerator().device_name() == 'cuda':\n        torch.cuda.synchronize()\n"
            "    assert get_accelerator().device_name() == 'cuda', 'GDS only on CUDA'\n"
            "def g():\n    accelerator = get_accelerator()\n    assert accelerator.device_name() == 'cuda', 'CUDA only'\n")
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/engine.py": code})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert {f.reach for f in report.findings if f.rule in {"DEV007", "DEV101"}} == {"runs"}  # no NPU accelerator
    write_tree(tmp_path, {"accelerator/__init__.py": "", "accelerator/npu_accelerator.py": "import torch_npu\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    checks = [f for f in report.findings if f.rule in {"DEV007", "DEV101"}]
    assert len(checks) == 4 and {f.reach for f in checks} == {"npu-path"}


def test_branches_that_cannot_run_at_the_target_torch():
    gated = ("import torch\nfrom packaging import version\ntorch_version = version.parse(torch.__version__)\n"
             "if torch_version >= version.parse('2.3'):\n    m = torch.nn.attention.sdpa_kernel\n"
             "else:\n    m = torch.backends.cuda.sdp_kernel\n")
    assert reach_of(gated, "ATT021")[0] == (
        "dead-at-target", "line 4: torch_version >= version.parse('2.3') (true at the target torch 2.12.0, so this later arm never runs)")
    old = "import torch\nif version.parse(torch.__version__) < version.parse('2.0'):\n    torch.cuda.synchronize()\n"
    assert reach_of(old, "DEV101")[0][0] == "dead-at-target"
    older = "import torch\nif version.parse(torch.__version__) < version.parse('2.2'):\n    torch.cuda.synchronize()\n"
    assert reach_of(older, "DEV101")[0][0] == "dead-at-target"
    assert [f.reach for f in scan(older, torch_npu="2.1.0.post10").findings if f.rule == "DEV101"] == ["runs"]  # live at 2.1
    feature = "import torch\nd = torch.accelerator.current_accelerator().type if hasattr(torch, 'accelerator') else 'cuda'\n"
    assert reach_of(feature, "DEV001")[0][0] == "dead-at-target"
    helper = "import torch\nif is_torch_version('<', '2.1'):\n    torch.cuda.synchronize()\nelse:\n    torch.cuda.empty_cache()\n"
    assert reach_of(helper, "DEV101")[0][0] == "dead-at-target" and reach_of(helper, "DEV102")[0][0] == "runs"
    unknown = "import torch\nif torch_version_ok and torch.cuda.is_available():\n    torch.cuda.synchronize()\n"
    assert reach_of(unknown, "DEV101")[0][0] == "runs"
    newer = "import torch\nif version.parse(torch.__version__) >= version.parse('2.20'):\n    torch.cuda.synchronize()\n"
    assert reach_of(newer, "DEV101")[0][0] == "dead-at-target"
    report_counted = [f for f in scan(gated).findings if f.rule == "ATT021"]
    assert not report_counted[0].counted and report_counted[0].severity in {"low", "info"}


def test_branches_that_the_target_torchs_torchvision_cannot_take():
    # the torchvision built for torch 2.12 is 0.27 (knowledge/dependencies/packages.toml torch_pairs): an arm only an
    # older torchvision takes (BasicSR's DCNv2Pack falls back to its CUDA extension for torchvision < 0.9) is dead
    legacy = ("import torch, torchvision\nfrom distutils.version import LooseVersion\n"
              "if LooseVersion(torchvision.__version__) >= LooseVersion('0.9.0'):\n    y = 1\n"
              "else:\n    torch.cuda.synchronize()\n")
    assert reach_of(legacy, "DEV101")[0] == ("dead-at-target", "line 3: LooseVersion(torchvision.__version__) >= "
                                             "LooseVersion('0.9.0') (true at the target torch 2.12.0 (with torchvision "
                                             "0.27, the release line built for it), so this later arm never runs)")
    newer = "import torch, torchvision\nif torchvision.__version__ >= '0.27':\n    torch.cuda.synchronize()\n"
    assert reach_of(newer, "DEV101")[0][0] == "runs"
    # a bound inside the release line, a package with no release paired at the target: nothing is decided
    inside = "import torch, torchvision\nif torchvision.__version__ < '0.27.1':\n    torch.cuda.synchronize()\n"
    assert reach_of(inside, "DEV101")[0][0] == "runs"
    # torchaudio 2.11 is the release for torch 2.12 (its 2.11 docs: built on the stable ABI, it works with every later
    # torch; packages.toml torch_pairs): an arm only a torchaudio before 2.0 takes is dead, one for 2.11 on runs
    audio = "import torch, torchaudio\nif torchaudio.__version__ < '2.0':\n    torch.cuda.synchronize()\n"
    assert reach_of(audio, "DEV101")[0] == ("dead-at-target", "line 2: torchaudio.__version__ < '2.0' (false at the "
                                            "target torch 2.12.0 (with torchaudio 2.11.1, the release line built for it))")
    audio_now = "import torch, torchaudio\nif torchaudio.__version__ >= '2.11':\n    torch.cuda.synchronize()\n"
    assert reach_of(audio_now, "DEV101")[0][0] == "runs"


def test_dockerfiles_that_ci_workflows_build_are_ci(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "docker/pkg-pytorch-cuda/Dockerfile": "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install torch==2.1.0\n",
        "docker/pkg-serving/Dockerfile": "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install torch==2.1.0\n",
        ".github/workflows/tests.yml": "jobs:\n  gpu:\n    container:\n      image: org/pkg-pytorch-cuda\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    roles = {f.path: f.role for f in report.findings if f.path.startswith("docker/")}
    assert roles.get("docker/pkg-pytorch-cuda/Dockerfile") == "ci"
    assert roles.get("docker/pkg-serving/Dockerfile") == "build"  # no workflow names it: the product's image


def test_a_detection_cascade_after_an_npu_step_is_an_npu_path():
    code = ("import torch\ndef detect():\n    name = None\n    if name is None:\n        try:\n            import torch_npu\n"
            "            name = 'npu'\n        except ImportError:\n            pass\n    if name is None:\n"
            "        if torch.cuda.is_available():\n            name = 'cuda'\n    return name\n")
    assert reach_of(code, "DEV104")[0] == ("npu-path", "line 4: if name is None:")
    without = ("import torch\ndef detect():\n    name = None\n    if name is None:\n        name = 'cpu'\n"
               "    if name is None:\n        if torch.cuda.is_available():\n            name = 'cuda'\n    return name\n")
    assert reach_of(without, "DEV104")[0][0] == "runs"


HOST_ROPE = ("import torch\ndef precompute_freqs_cis(seq_len: int, n_elem: int, base: int = 10000):\n"
             "    freqs = 1.0 / (base ** (torch.arange(0, n_elem, 2)[: (n_elem // 2)].float() / n_elem))\n"
             "    t = torch.arange(seq_len, device=freqs.device)\n    freqs = torch.outer(t, freqs)\n"
             "    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)\n"
             "    cache = torch.stack([freqs_cis.real, freqs_cis.imag], dim=-1)\n    return cache.to(dtype=torch.bfloat16)\n")


def test_a_real_rope_table_built_from_host_tensors_is_not_counted():
    # round 23 A1 C7 row 21, A2 C8 row 90, verdicts V3 (LlamaGen gpt.py, fish-speech llama.py, modded_dac.py): torch.polar
    # on tensors made with no device, turned real at once: the complex op runs on the CPU; listed, not counted
    (host,) = [f for f in scan(HOST_ROPE).findings if f.rule == "PRC030"]
    assert host.severity == "info" and not host.counted and "CPU" in host.message.en
    # the complex op may run on the NPU: a device handed in, a move, a tensor parameter, a method (self may hold a
    # device tensor), a default device set in the file; each keeps its hours and counts
    for code in (HOST_ROPE.replace("base: int = 10000)", "base: int = 10000, device=None)").replace(
                     "torch.arange(0, n_elem, 2)", "torch.arange(0, n_elem, 2, device=device)"),
                 HOST_ROPE.replace("freqs = torch.outer(t, freqs)", "freqs = torch.outer(t, freqs).cuda()"),
                 HOST_ROPE.replace("freqs = torch.outer(t, freqs)", "freqs = torch.outer(t, freqs).to('cuda')"),
                 HOST_ROPE.replace("seq_len: int, ", "seq_len, ").replace("torch.arange(seq_len, ", "torch.arange(seq_len.shape[0], "),
                 HOST_ROPE.replace("(seq_len: int", "(self, seq_len: int"),
                 HOST_ROPE + "torch.set_default_device('cuda')\n"):
        (site,) = [f for f in scan(code).findings if f.rule == "PRC030"]
        assert site.counted, code


def test_private_helpers_every_call_of_which_is_guarded_take_the_guard():
    code = ("import torch, deepspeed\nclass Op:\n    def forward(self, config):\n"
            "        if deepspeed.HAS_TRITON and config.use_triton:\n            self._triton_autotune(8)\n        return 1\n"
            "    def _triton_autotune(self, n):\n        a = torch.randn((n, n), device='cuda')\n")
    assert reach_of(code, "DEV001")[0] == ("optional", "line 4: if deepspeed.HAS_TRITON and config.use_triton:")
    unguarded = code + "    def backward(self):\n        self._triton_autotune(4)\n"
    assert reach_of(unguarded, "DEV001")[0][0] == "runs"  # one plain call: it runs on Ascend
    public = code.replace("_triton_autotune", "triton_autotune")
    assert reach_of(public, "DEV001")[0][0] == "runs"  # other modules may call a public one


def test_messages_wrappers_and_cpu_blocks_are_no_uses():
    log = ("import os\ndef patch():\n    logger.info('NCCL_SOCKET_IFNAME = {}'.format(os.environ['NCCL_SOCKET_IFNAME']))\n"
           "    os.environ['NCCL_SOCKET_IFNAME'] = 'eth0'\n    raise ValueError('set NCCL_DEBUG=INFO')\n")
    assert [(f.rule, f.line) for f in scan(log).findings] == [("DST030", 4)]
    patch = ("import torch.nn.functional as F\nF.scaled_dot_product_attention = wrap(F.scaled_dot_product_attention, f)\n"
             "y = F.scaled_dot_product_attention(q, k, v)\n")
    assert [f.line for f in scan(patch).findings if f.rule == "ATT020"] == [3]
    cpu = ("import torch\ndef f(e, x):\n    with torch.device('cpu'):\n        t = torch.arange(e, device=x.device, dtype=torch.float64)\n"
           "    u = torch.arange(e, device=x.device, dtype=torch.float64)\n")
    assert [f.line for f in scan(cpu).findings if f.rule == "PRC001"] == [5]
    zero = "import torch\nt = torch.tensor(0, dtype=g.dtype).to(dev).double()\nu = g.to(dev).double().norm(2)\n"
    assert [f.line for f in scan(zero).findings if f.rule == "PRC006"] == [3]  # a zero placeholder loses nothing


def test_one_rewrite_counts_once():
    rope = ("import torch\nfreqs_cis = torch.polar(torch.ones_like(freqs), freqs)\n"
            "x_ = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))\n")
    assert [(f.line, f.symbol) for f in scan(rope).findings if f.rule == "PRC030"] == [(3, "torch.view_as_complex")]
    table_only = "import torch\nfreqs_cis = torch.polar(torch.ones_like(freqs), freqs)\n"
    assert [f.symbol for f in scan(table_only).findings if f.rule == "PRC030"] == ["torch.polar"]
    device = "import torch\nd = f'cuda:{torch.cuda.current_device()}'\nn = torch.cuda.current_device()\n"
    # DEV002's edit rewrites the formatted name only: the call inside it keeps its own DEV100 (round-13 port hunk 7)
    assert sorted((f.line, f.rule) for f in scan(device).findings if f.rule in {"DEV002", "DEV100"}) == [
        (2, "DEV002"), (2, "DEV100"), (3, "DEV100")]
    chain = ("import torch\nif torch.cuda.is_available():\n    s = torch.cuda.Stream()\nelif torch.xpu.is_available():\n"
             "    s = torch.xpu.Stream()\nelse:\n    raise ValueError('no stream')\n")
    assert [f.rule for f in scan(chain).findings if f.line == 2] == ["DEV220"]  # not also DEV104


def test_other_vendors_and_test_benchmarks_by_path():
    context = build_project_context(["op_builder/supa/builder.py", "csrc/aio/py_test/ds_aio_handle.py", "pkg/model.py"])
    assert context.of("op_builder/supa/builder.py").reach == "other-backend"
    assert context.of("csrc/aio/py_test/ds_aio_handle.py").role == "test"
    assert context.of("pkg/model.py").role == "product"


def test_library_folders_and_classes_with_an_npu_branch():
    context = build_project_context(["src/diffusers/__init__.py", "src/diffusers/quantizers/nunchaku/utils.py"])
    assert context.of("src/diffusers/quantizers/nunchaku/utils.py").reach == "optional"
    own = build_project_context(["flash_attn/__init__.py", "csrc/flash_attn/src/kernel.cu"])
    assert own.of("csrc/flash_attn/src/kernel.cu").reach == "runs"  # flash-attention's own kernels
    norm = ("import torch\nfrom torch import nn\nclass RMSNorm(nn.Module):\n    def forward(self, x):\n"
            "        if is_torch_npu_available():\n            return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]\n"
            "        v = x.to(torch.float32).pow(2).mean(-1, keepdim=True)\n        return self.weight * (x * torch.rsqrt(v + self.eps))\n")
    assert reach_of(norm, "PRC020")[0] == ("npu-path", "line 5: if is_torch_npu_available():")
    plain = norm.replace("        if is_torch_npu_available():\n            return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]\n", "")
    assert reach_of(plain, "PRC020")[0][0] == "runs"
    negated = ("import torch\nfrom flash_attn import flash_attn_func\ndef f(q, k, v):\n    if not q.is_cuda:\n"
               "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n    else:\n        return flash_attn_func(q, k, v)\n")
    assert reach_of(negated, "ATT001")[0][0] == "cuda-only-guarded"  # the else of a negated check is what it guards
    raising = negated.replace("        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n", "        raise ValueError('CUDA')\n")
    assert reach_of(raising, "ATT001")[0][0] == "runs"  # Ascend gets the raise: the feature is a real finding


def test_product_helpers_only_tests_import_are_test_code(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": "import os, torch\n\ndef enable_determinism():\n    os.environ['CUDA_LAUNCH_BLOCKING'] = '1'\n\n"
                        "def sync():\n    torch.cuda.synchronize()\n",
        "pkg/testing_utils.py": "from .utils import enable_determinism\n",
        "pkg/engine.py": "from .utils import sync\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    by_rule = {f.rule: f for f in report.findings if f.path == "pkg/utils.py"}
    assert by_rule["DEV202"].role == "test" and "testing_utils.py" in by_rule["DEV202"].reach_reason
    assert not by_rule["DEV202"].counted
    assert by_rule["DEV101"].role == "product" and by_rule["DEV101"].counted  # product code imports sync


def test_device_defaults_every_call_overrides_are_no_findings(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/pipe.py": "import torch\n\ndef mask(n, device='cuda'):\n    return torch.zeros(n, device=device)\n\n"
                       "class Pipe:\n    def get_mask(self, n, device='cuda'):\n        return torch.ones(n, device=device)\n\n"
                       "    def __call__(self, n, device):\n        return mask(n, device=device) + self.get_mask(n, device)\n",
        "pkg/other.py": "import torch\n\ndef fill(n, device='cuda'):\n    return torch.zeros(n, device=device)\n\n"
                        "def run(n):\n    return fill(n)\n",  # the default applies here
        "pkg/shared.py": "import torch\n\ndef grid(n, device='cuda'):\n    return torch.zeros(n, device=device)\n\n"
                         "def run(n, d):\n    return grid(n, device=d)\n",
        "pkg/user.py": "from pkg.shared import grid\nx = grid(3)\n",  # another file may call it without the device
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    defaults = {(f.path, f.line) for f in report.findings if f.rule == "DEV001"}
    assert ("pkg/pipe.py", 3) not in defaults and ("pkg/pipe.py", 7) not in defaults
    assert ("pkg/other.py", 3) in defaults and ("pkg/shared.py", 3) in defaults


def test_method_and_exported_device_defaults_every_project_call_passes_are_never_used(tmp_path):
    # round 40 A2 class 1: mmrotate's get_anchors overrides, called only as self.get_anchors(..., device=device), and
    # build_dp, exported through the package's __all__ and called with cfg.device by both of its callers
    write_tree(tmp_path, {
        "pkg/__init__.py": "from .heads import Head, build, spare\n__all__ = ['Head', 'build', 'spare']\n",
        "pkg/base.py": "import torch\n\nclass Base:\n    def anchors(self, n, device='cuda'):\n"
                       "        return torch.zeros(n, device=device)\n",
        "pkg/heads.py": "import torch\nfrom .base import Base\n\ndef build(model, device='cuda'):\n    return model.to(device)\n\n"
                        "def spare(device='cuda'):\n    return torch.zeros(1, device=device)\n\n"
                        "class Head(Base):\n    def loss(self, n, d):\n        return self.anchors(n, device=d)\n\n"
                        "    def grid(self, n, device='cuda'):\n        return torch.zeros(n, device=device)\n\n"
                        "    def forward(self, x, device='cuda'):\n        return x.to(device)\n\n"
                        "    def table(self, device='cuda'):\n        return torch.zeros(1, device=device)\n",
        "train.py": "from pkg import Head, build\n\ndef main(dev):\n    h = build(Head(), dev)\n    h.anchors(3, dev)\n"
                    "    h.grid(3)\n    h.forward(1, device=dev)\n    return h\n\nif __name__ == '__main__':\n    main('npu')\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reach = {(f.path, f.line): f.reach for f in report.findings if f.rule == "DEV001"}
    assert reach[("pkg/base.py", 4)] == "cosmetic"  # each call of .anchors() passes device, by keyword or position
    assert reach[("pkg/heads.py", 4)] == "cosmetic"  # in __all__, and its one call in the project passes it
    assert reach[("pkg/heads.py", 7)] != "cosmetic"  # in __all__ and called nowhere: a library's callers take it (uncalled: optional)
    assert reach[("pkg/heads.py", 14)] == "runs"  # h.grid(3) takes the default
    assert reach[("pkg/heads.py", 17)] == "runs"  # forward: model(x) calls it with what the call shows not
    assert reach[("pkg/heads.py", 20)] == "runs"  # no call of .table()


def test_a_default_that_calls_cuda_when_the_def_runs_stays_a_site_whatever_the_calls_pass(tmp_path):
    # Wan2.1's T5EncoderModel(device=torch.cuda.current_device()): evaluated at import, raises where no CUDA device is
    write_tree(tmp_path, {
        "pkg/__init__.py": "from .t5 import Encoder\n__all__ = ['Encoder']\n",
        "pkg/t5.py": "import torch\n\nclass Encoder:\n    def __init__(self, n, device=torch.cuda.current_device()):\n"
                     "        self.x = torch.zeros(n, device=device)\n\n"
                     "class Decoder:\n    def __init__(self, n, device='cuda'):\n        self.x = torch.zeros(n, device=device)\n",
        "run.py": "from pkg.t5 import Encoder, Decoder\n\ndef main(d):\n    return Encoder(3, device=d), Decoder(3, device=d)\n\n"
                  "if __name__ == '__main__':\n    main('npu')\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reach = {(f.line, f.rule): f.reach for f in report.findings if f.path == "pkg/t5.py" and f.line in (4, 8)}
    assert reach[(4, "DEV100")] == "runs"
    assert reach[(8, "DEV001")] == "cosmetic"


def test_test_functions_in_product_modules_are_test_code():
    code = ("import torch, os\ndef test_compare(a):\n    x = torch.zeros(3, device=f'cuda:{os.environ[\"LOCAL_RANK\"]}')\n"
            "def run(r):\n    y = torch.zeros(3, device=f'cuda:{r}')\n")
    found = {f.line: f for f in scan(code).findings if f.rule == "DEV002"}
    assert found[3].role == "test" and not found[3].counted and "test_compare" in found[3].reach_reason
    assert found[5].role == "product" and found[5].counted


def test_a_package_at_the_root_of_the_analysed_folder():
    context = build_project_context(["__init__.py", "matmul.py", "sub/__init__.py", "sub/x.py"])  # hung before
    assert "" not in context.own_packages and not context.is_own("torch.cuda")


def test_triton_1_kernels_cannot_run_at_a_torch_2_target():
    legacy = ("import torch, triton\nimport triton.language as tl\n@triton.jit\ndef _forward(X, LUT, **meta):\n"
              "    TN = meta['TN']\n    x = tl.load(X + tl.arange(0, TN))\n    tl.store(X, x)\n"
              "class _sparse_softmax(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
              "        _forward[(1,)](x, None, TN=128)\n        return x\n    @staticmethod\n    def backward(ctx, dx):\n        return dx\n")
    reaches = {f.rule: f.reach for f in scan(legacy).findings if f.domain == "custom_ops"}
    assert reaches and set(reaches.values()) == {"dead-at-target"}
    modern = legacy.replace("**meta", "TN: tl.constexpr").replace("    TN = meta['TN']\n", "")
    assert {f.reach for f in scan(modern).findings if f.domain == "custom_ops"} == {"runs"}


def test_a_constant_named_after_its_backend_is_no_choice():
    code = "NCCL_BACKEND = 'nccl'\nbackend = 'nccl'\n"
    assert [(f.line, f.rule) for f in scan(code).findings if f.rule == "DST002"] == [(2, "DST002")]


def test_complex_parameter_round_trips_are_not_rotary_embeddings():
    code = ("import torch\ndef step(params, m):\n    for i, p in enumerate(params):\n        if torch.is_complex(p):\n"
            "            m[i] = torch.view_as_real(m[i])\n        m[i].mul_(2)\n        if torch.is_complex(p):\n"
            "            m[i] = torch.view_as_complex(m[i])\n"
            "def rope(x, f):\n    x_ = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))\n    return x_ * f\n")
    assert [f.line for f in scan(code).findings if f.rule == "PRC030"] == [10]


def _tree(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return analyze(tmp_path, AnalyzeOptions(jobs=1))


GATED_TUNER = (
    "from .packages import {gate}\n\n\ndef run(args):\n    if {gate}():\n        from .mb import run_pt\n\n        run_pt(args)\n"
)
FLAGGED_TUNER = (  # LLaMA-Factory's train/tuner.py
    "from .packages import is_megatron_bridge_available\n\n\ndef run(args):\n    if args.use_megatron_bridge:\n"
    "        if not is_megatron_bridge_available():\n            raise ImportError('missing')\n"
    "        from .mb import run_pt\n\n        run_pt(args)\n"
)


def _megatron_reach(tmp_path, tuner: str, gate: str = "is_megatron_bridge_available") -> list[str]:
    report = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/packages.py": f"def {gate}():\n    return True\n",
        "pkg/tuner.py": tuner,
        "pkg/mb/__init__.py": "from .workflow import run_pt\n",
        "pkg/mb/workflow.py": "def run_pt(args):\n    from megatron.core import parallel_state\n    return parallel_state\n",
        "train.py": "from pkg.tuner import run\n\nif __name__ == '__main__':\n    run(None)\n",
    })
    return [(f.path, f.reach) for f in report.findings if f.rule == "DST015"]


def test_a_module_loaded_only_with_an_optional_feature_is_optional_in_every_domain(tmp_path):
    # Megatron adoption (a distributed-domain item) in a module only an opt-in, availability-checked branch loads
    assert _megatron_reach(tmp_path, FLAGGED_TUNER) == [("pkg/mb/workflow.py", "optional")]


@pytest.mark.parametrize("gate, reach", [("is_megatron_bridge_available", "optional"), ("is_torch_available", "runs")])
def test_torch_is_no_optional_package(tmp_path, gate, reach):
    # diffusers imports its own modules under `if is_torch_available():`, which is true wherever it runs on Ascend
    assert _megatron_reach(tmp_path, GATED_TUNER.format(gate=gate), gate) == [("pkg/mb/workflow.py", reach)]


# issue 28: classes found on repositories never used in development --------------------------------------------------
def found(code: str) -> dict[str, list]:
    result: dict[str, list] = {}
    for f in scan(code).findings:
        result.setdefault(f.rule, []).append(f)
    return result


def test_wrong_kind_findings_are_not_auto():
    grid = ("import math, torch\ndef grid(x):\n    sm = torch.cuda.get_device_properties(x.device).multi_processor_count\n"
            "    return math.ceil(x.shape[0] / sm)\n")
    sm = {f.rule: f for f in scan(grid, torch_npu="2.9.0").findings}
    assert "DEV121" not in sm and sm["DEV122"].migration != "auto"  # the field is None before 26.0.0, shim or not
    assert [f.migration for f in found(grid)["DEV122"]] == ["auto"]  # from 26.0.0 on: the vector-core count
    graph = found("import torch\ng = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    y = model(x)\nloss.backward()\n")
    assert {f.migration for f in graph["DEV111"]} == {"manual"}  # training capture must be removed, not redirected
    serving = found("import torch\ng = torch.cuda.CUDAGraph()\nwith torch.no_grad(), torch.cuda.graph(g):\n    y = model(x)\n")
    assert {f.migration for f in serving["DEV111"]} == {"auto"}  # torch.npu.graph captures inference
    op = found("import torch\n@torch.library.custom_op('lib::f', mutates_args=(), device_types='cuda')\n"
               "def f(x: torch.Tensor) -> torch.Tensor:\n    return x\n")
    assert op["DEV001"][0].migration != "auto"  # transfer_to_npu does not touch operator registrations
    assert found("import torch\nx = torch.ones(3, device='cuda')\n")["DEV001"][0].migration == "auto"


def test_legacy_tensor_types_in_type_checks():
    code = ("import torch\ndef f(t, x):\n    if isinstance(t, (torch.BoolTensor, torch.cuda.BoolTensor)):\n"
            "        from flash_attn import flash_attn_func\n        return flash_attn_func(x, x, x)\n    return x\n")
    findings = found(code)
    assert "isinstance" in findings["DEV107"][0].replacement.en  # not only "create tensors with dtype and device"
    assert {f.reach for f in findings["ATT001"]} == {"runs"}  # NPU tensors take that branch too: no CUDA check


def test_cosmetic_sites_are_not_counted():
    code = ('import torch\nprint("cuda:", torch.cuda.is_available(), torch.cuda.get_device_name(0))\n'
            'info = {"GPU available": torch.cuda.is_available()}\n'
            'seconds = 1800 if backend != "nccl" else 600\n'
            'ALLOWED = ["nccl", "gloo", "mpi"]\n'
            'x = torch.zeros(3).cuda() if torch.cuda.is_available() else None\n'
            'if backend == "nccl":\n    torch.cuda.synchronize()\n'
            'device = "cuda" if torch.cuda.is_available() else "cpu"\n')
    by_line = {(f.line, f.rule): f for f in scan(code).findings}
    for line, rule in ((2, "DEV104"), (3, "DEV104"), (4, "DST003"), (5, "DST002")):
        assert by_line[(line, rule)].reach == "cosmetic" and not by_line[(line, rule)].counted, (line, rule)
        assert by_line[(line, rule)].severity not in {"high", "blocker"}
    assert by_line[(2, "DEV100")].reach == "runs"  # get_device_name initialises CUDA: it raises there, printed or not
    assert by_line[(6, "DEV104")].reach == "runs" and by_line[(6, "DEV004")].reach == "runs"  # it picks a device
    assert by_line[(7, "DST003")].reach == "runs"
    assert by_line[(9, "DEV104")].reach == "runs"  # a choice between two strings: the device itself


def test_an_availability_test_that_only_builds_display_text_or_a_ui_flag_is_cosmetic():
    """Round 15 (PixArt-alpha app/app.py:26-30, app_controlnet.py:43-47): a CUDA test whose arm only adds a phrase to
    the page's description, and one whose value only reaches Gradio's `cache_examples=`, change what the page shows
    or pre-renders, nothing that runs; the test that picks the device, and a phrase test whose arm also loads, run."""
    code = ('import os\nimport torch\nimport gradio as gr\nDESCRIPTION = "# Demo"\n'
            'if not torch.cuda.is_available():\n    DESCRIPTION += "<p>Running on CPU: this demo does not work on CPU.</p>"\n'
            'CACHE_EXAMPLES = torch.cuda.is_available() and os.getenv("CACHE_EXAMPLES", "1") == "1"\n'
            'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
            'if torch.cuda.is_available():\n    DESCRIPTION += " (GPU)"\n    pipe = load(device)\n'
            'FAST = torch.cuda.is_available()\n'
            'gr.Markdown(DESCRIPTION)\n'
            'gr.Examples(examples=["a"], inputs=[], cache_examples=CACHE_EXAMPLES)\n'
            'gr.Examples(examples=["a"], inputs=[], fn=run if FAST else slow)\n')
    by_line = {(f.line, f.rule): f for f in scan(code).findings}
    for line in (5, 7):
        assert by_line[(line, "DEV104")].reach == "cosmetic" and not by_line[(line, "DEV104")].counted, line
    for line in (8, 9, 12):
        assert by_line[(line, "DEV104")].reach != "cosmetic", line


def test_an_availability_test_that_only_chooses_a_log_format_is_cosmetic():
    """Round 19 A1 row 26 (dino utils.py MetricLogger.log_every): both arms build the progress line's format, one with
    "max mem", and the format is only printed: the test chooses what a log says, nothing that runs. A format the
    code also hands on (a file name, a device string) and an arm that also moves a model are no such choice."""
    code = ('import torch\n'
            'def log_every(self, items, header):\n'
            '    space = ":" + str(len(items)) + "d"\n'
            '    if torch.cuda.is_available():\n'
            '        log_msg = self.delimiter.join([header, "[{0" + space + "}/{1}]", "eta: {eta}", "max mem: {memory:.0f}"])\n'
            '    else:\n'
            '        log_msg = self.delimiter.join([header, "[{0" + space + "}/{1}]", "eta: {eta}"])\n'
            '    for i, item in enumerate(items):\n'
            '        print(log_msg.format(i, len(items), eta=1))\n'
            '        yield item\n'
            'def save(model, path):\n'
            '    if torch.cuda.is_available():\n'
            '        name = "gpu_" + path\n'
            '    else:\n'
            '        name = "cpu_" + path\n'
            '    print("saving to " + name)\n'
            '    torch.save(model, name)\n'
            'def tag(model):\n'
            '    if torch.cuda.is_available():\n'
            '        label = "max mem: {m}"\n'
            '        model = model.cuda()\n'
            '    else:\n'
            '        label = "cpu"\n'
            '    print(label)\n'
            '    return model\n')
    by_line = {(f.line, f.rule): f for f in scan(code).findings}
    assert by_line[(4, "DEV104")].reach == "cosmetic" and not by_line[(4, "DEV104")].counted
    assert "chooses the text of a message" in by_line[(4, "DEV104")].reach_reason
    assert by_line[(12, "DEV104")].reach == "runs"  # the name also goes to torch.save: it is a path, not only a message
    assert by_line[(19, "DEV104")].reach == "runs"  # its arm also moves the model


def test_a_stream_handed_to_a_tensorrt_context_is_other_backend():
    """Round 19 A1 row 28 (CosyVoice flow_matching.py:150): the else arm of `isinstance(self.estimator,
    torch.nn.Module)` runs the TensorRT context that another file's load_trt built; its CUDA stream is TensorRT's
    (knowledge/context/conventions.toml runtime_calls). The torch arm's stream stays a port item."""
    code = ('import torch\n'
            'def forward_estimator(self, x):\n'
            '    if isinstance(self.estimator, torch.nn.Module):\n'
            '        torch.cuda.current_stream().synchronize()\n'
            '        return self.estimator(x)\n'
            '    else:\n'
            '        estimator, stream = self.estimator.acquire_estimator()\n'
            '        with stream:\n'
            '            assert estimator.execute_async_v3(torch.cuda.current_stream().cuda_stream) is True\n'
            '    return x\n')
    by_line = {(f.line, f.rule): f for f in scan(code).findings}
    assert by_line[(9, "DEV110")].reach == "other-backend" and not by_line[(9, "DEV110")].counted
    assert "(TensorRT)" in by_line[(9, "DEV110")].reach_reason
    assert by_line[(4, "DEV110")].reach == "runs"


def test_a_cuda_query_inside_the_message_of_a_raise_is_cosmetic():
    # nanotron distributed.py:264: the raise is the else of the CUDA check (:255), the query only fills its message
    code = ('import torch\nif torch.cuda.is_available():\n    backend = "nccl"\nelse:\n'
            '    raise NotImplementedError(f"CUDA was not found: {torch.cuda.is_available()}")\n'
            'ok = check(torch.cuda.is_available())\n')
    by_line = {(f.line, f.rule): f for f in scan(code).findings}
    assert by_line[(5, "DEV104")].reach == "cosmetic" and not by_line[(5, "DEV104")].counted
    assert by_line[(2, "DEV104")].reach == "runs"  # the check that decides
    assert by_line[(6, "DEV104")].reach == "runs"  # handed to a function that is no raise nor message


def test_cuda_seed_beside_torch_manual_seed():
    seeded = found("import torch\ndef seed(s):\n    torch.manual_seed(s)\n    torch.cuda.manual_seed(s)\n")
    assert seeded["DEV106"][0].reach == "npu-path" and "line 3" in seeded["DEV106"][0].reach_reason
    alone = found("import torch\ndef seed(s):\n    torch.cuda.manual_seed(s)\n")
    assert alone["DEV106"][0].reach == "runs"
    random = found("import torch\ndef seed():\n    s = torch.seed()\n    torch.cuda.seed()\n    return s\n")
    assert random["DEV106"][0].reach == "npu-path"  # torch.seed() seeds every device with the same random seed
    mixed = found("import torch\ndef seed():\n    torch.seed()\n    torch.cuda.manual_seed(42)\n")
    assert mixed["DEV106"][0].reach == "runs"  # a fixed CUDA seed beside a random one: the NPU lacks the fixed seed


def test_cuda_check_returning_the_eager_path():
    code = ("import torch\ndef wrap(fn, device_type):\n"
            "    if not (device_type == 'cuda' and torch.cuda.is_available()):\n"
            "        logger.warning('eager')\n        return fn\n"
            "    g = torch.cuda.CUDAGraph()\n    return g\n")
    findings = found(code)
    assert {f.reach for f in findings["DEV007"] + findings["DEV104"] + findings["DEV111"]} == {"cuda-only-guarded"}
    moves = found("import torch\ndef move(x):\n    if not torch.cuda.is_available():\n        return x\n    return x.cuda()\n")
    assert moves["DEV104"][0].reach == "runs" and moves["DEV004"][0].reach == "runs"  # NPU tensors stay on the CPU


def test_fsdp2_reminder_is_one_project_finding_and_none_when_the_mesh_follows_the_device(tmp_path):
    files = {"pkg/__init__.py": "",
             "pkg/mesh.py": "from torch.distributed.device_mesh import init_device_mesh\nmesh = init_device_mesh('cuda', (8,))\n",
             "pkg/a.py": "from torch.distributed.fsdp import fully_shard\nfully_shard(m, mesh=mesh)\n",
             "pkg/b.py": "from torch.distributed.fsdp import fully_shard\nfully_shard(m.a, mesh=mesh)\nfully_shard(m, mesh=mesh)\n"}
    report = analyze(write_tree(tmp_path / "cuda", files), AnalyzeOptions(jobs=1))
    fsdp2 = [f for f in report.findings if f.rule == "DST013"]
    assert len(fsdp2) == 1 and len(fsdp2[0].sites) == 3
    files["pkg/mesh.py"] = ("from torch.distributed.device_mesh import init_device_mesh\n"
                            "mesh = init_device_mesh(device_type, (8,))\n")
    report = analyze(write_tree(tmp_path / "follows", files), AnalyzeOptions(jobs=1))
    assert not [f for f in report.findings if f.rule == "DST013"]


def test_config_choice_of_a_cuda_only_backend_is_optional():
    code = ("import torch\ndef pg(config):\n    if config.process_group == 'gloo':\n        pg = 1\n"
            "    elif config.process_group == 'mccl':\n        comm = new_comm('mccl', device=torch.device('cuda'))\n"
            "    if comm_backend in ('deepep', 'hybridep'):\n        torch.cuda.synchronize()\n"
            "    if backend == 'standard':\n        torch.cuda.empty_cache()\n")
    findings = found(code)
    assert findings["DEV003"][0].reach == "optional" and findings["DEV101"][0].reach == "optional"
    assert findings["DEV102"][0].reach == "runs"  # a choice that names no CUDA-only library runs everywhere


def test_an_optional_features_import_is_reported_uncounted(tmp_path):
    files = {"pkg/__init__.py": "", "requirements.txt": "torch\nflash-attn\n",
             "pkg/attend.py": "class Attend:\n    def __init__(self, flash_pack_seq=False):\n        if flash_pack_seq:\n"
                              "            from flash_attn import flash_attn_varlen_func\n            self.f = flash_attn_varlen_func\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    imports = [f for f in report.findings if f.rule == "DEP020" and f.path == "pkg/attend.py"]
    assert len(imports) == 1 and imports[0].line == 4 and imports[0].reach == "optional" and not imports[0].counted


def test_a_guarded_import_resolves_to_the_importers_own_copy_of_a_package(tmp_path):
    # another backend keeps a copy of the server package under the same package name; the server's own import of its
    # modelling file (behind `try: ... except ImportError: AVAILABLE = False` one level up) is the server's, not the copy's
    guarded = ("AVAILABLE = True\ntry:\n    from app.models.mamba import Mamba\nexcept ImportError:\n"
               "    AVAILABLE = False\n")
    tree = {"__init__.py": "", "models/__init__.py": guarded,
            "models/mamba.py": "from app.models.modeling import Model\nclass Mamba:\n    model = Model\n",
            "models/modeling.py": "import torch\nfrom mamba_ssm import selective_scan_fn\nclass Model:\n    pass\n"}
    files = {"requirements.txt": "torch\nmamba-ssm\n", "server/main.py": "from app.models import AVAILABLE\n"}
    for root in ("backends/gaudi/server/app", "server/app"):
        files.update({f"{root}/{name}": text for name, text in tree.items()})
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    imports = [f for f in report.findings if f.rule == "DEP020" and f.path == "server/app/models/modeling.py"]
    assert len(imports) == 1 and imports[0].reach == "optional" and not imports[0].counted
    assert "server/app/models/mamba.py" in imports[0].reach_reason


def test_cuda_runtime_in_host_code_per_line_and_cann_branches():
    code = ("#include <cuda_runtime.h>\nclass Adam {\n#if defined(__ENABLE_CANN__)\n"
            "    void Sync() { aclrtSynchronizeStream(_stream); }\n#else\n    void Sync() { cudaStreamSynchronize(_stream); }\n"
            "#endif\n};\nvoid copy(float* d, const float* h, size_t n, cudaStream_t s) {\n"
            "    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s);\n}\n")
    findings = {f.line: f for f in scan(code, "cpp").findings if f.rule == "OPS067"}
    assert sorted(findings) == [1, 6, 10]  # the cudaStream_t parameter changes with the calls that use it
    assert findings[6].reach == "npu-path" and "__ENABLE_CANN__" in findings[6].reach_reason
    assert "aclrtMemcpyAsync" in findings[10].replacement.en and "destMax" in findings[10].replacement.en
    assert findings[1].reach == "runs" and "acl/acl.h" in findings[1].replacement.en
    header = "#include <cuda.h>\nvoid launch_gelu(const float* in, float* out, int n, cudaStream_t stream);\n"
    assert not [f for f in scan(header, "cpp").findings if f.rule == "OPS067"]  # a kernel library's declarations
    fields = "class T {\n  cudaEvent_t start;\n  void Record() { cudaEventRecord(start); }\n};\n"
    assert sorted(f.line for f in scan(fields, "cpp").findings if f.rule == "OPS067") == [2, 3]


def test_cuda_runtime_the_build_without_cuda_never_compiles():
    # pytorch3d pulsar renderer.cpp:105: `#ifdef WITH_CUDA` ... cudaSetDevice ... `#else` throw; the #else of a test for
    # no __CUDACC__; a plain `#if` on another macro still compiles on Ascend
    code = ("void f() {\n#ifdef WITH_CUDA\n  cudaSetDevice(0);\n#else\n  throw 1;\n#endif\n"
            "#if !defined(__CUDACC__)\n  cudaDeviceSynchronize();\n#else\n  cudaGetLastError();\n#endif\n"
            "#if defined(WITH_CUDA) && HAVE_X\n  cudaFree(0);\n#endif\n#ifdef HAVE_X\n  cudaMalloc(0, 1);\n#endif\n"
            "#if defined(__CUDACC__) || defined(__NVCC__)\n  cudaFree(0);\n#endif\n"
            "#if defined(__CUDACC__) || defined(HAVE_X)\n  cudaFree(0);\n#endif\n}\n")
    findings = {f.line: f for f in scan(code, "cpp").findings if f.rule == "OPS067"}
    assert sorted(findings) == [3, 8, 10, 13, 16, 19, 22]
    assert {line for line, f in findings.items() if f.reach == "cuda-only-guarded"} == {3, 10, 13, 19}
    assert "line 2: #ifdef WITH_CUDA" in findings[3].reach_reason and not findings[3].counted
    assert findings[8].reach == "runs" and findings[16].reach == "runs"  # the #if arm of `!defined(__CUDACC__)`; HAVE_X


def test_cuda_names_the_project_declares_and_headers_only_nvcc_includes(tmp_path):
    # pytorch3d pulsar: global.h declares `typedef void* cudaStream_t;` without WITH_CUDA; include/commands.h includes
    # gpu/commands.h only under `#ifdef __CUDACC__`
    files = {
        "csrc/global.h": "#ifdef WITH_CUDA\n#include <cuda_runtime.h>\n#else\ntypedef void* cudaStream_t;\n#endif\n",
        "csrc/include/commands.h": "#ifdef __CUDACC__\n#include \"../gpu/commands.h\"\n#else\n#include \"../host/commands.h\"\n#endif\n",
        "csrc/gpu/commands.h": "#include <cuda_runtime.h>\ninline void check() { cudaDeviceSynchronize(); }\n",
        "csrc/host/commands.h": "inline void check() {}\n",
        "csrc/renderer.cpp": ("#include \"global.h\"\n#include \"include/commands.h\"\nvoid f(bool gpu) {\n"
                              "  auto s = gpu ? (cudaStream_t) nullptr : (cudaStream_t) nullptr;\n  cudaStreamSynchronize(s);\n"
                              "  cudaStream_t t = s; cudaStreamQuery(t);\n}\n"),
        # a host file including the header outside any CUDA arm keeps its sites counted
        "lib/x/gpu_sync.h": "#include <cuda_runtime.h>\ninline void sync() { cudaDeviceSynchronize(); }\n",
        "lib/x/host.cpp": "#include <torch/extension.h>\n#include \"gpu_sync.h\"\nvoid g() { sync(); } // cuda\n",
        "lib/x/kernel.cu": "#include \"gpu_sync.h\"\n",
    }
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    sites = {(f.path, f.line): f for f in report.findings if f.rule == "OPS067"}
    assert ("csrc/renderer.cpp", 4) not in sites  # the project's own cudaStream_t
    assert sites[("csrc/renderer.cpp", 5)].reach == "runs"  # a call into the CUDA runtime all the same
    assert sites[("csrc/renderer.cpp", 6)].symbol == "cudaStreamQuery()"  # the line's call, not its own type
    gpu = [f for (path, _), f in sites.items() if path == "csrc/gpu/commands.h"]
    assert gpu and all(f.reach == "cuda-only-guarded" and "csrc/include/commands.h:2" in f.reach_reason for f in gpu)
    assert all(f.reach == "runs" for (path, _), f in sites.items() if path == "lib/x/gpu_sync.h")


def test_a_macro_the_build_defines_only_beside_cuda_extension(tmp_path):
    # pytorch3d/mmcv setup.py: `define_macros += [("WITH_CUDA", None)]` in the arm that picks CUDAExtension; a macro
    # of the project's own name is learnt from there, one the build never sets stays compiled
    files = {
        "setup.py": ("import torch\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension, CUDA_HOME\n"
                     "define_macros = []\nextension = CppExtension\nif torch.cuda.is_available() and CUDA_HOME is not None:\n"
                     "    extension = CUDAExtension\n    define_macros += [(\"MYPKG_WITH_GPU\", None)]\n"
                     "ext = extension(\"mypkg._C\", [\"csrc/a.cpp\"], define_macros=define_macros)\n"),
        "csrc/a.cpp": ("#include <torch/extension.h>\nvoid f() {\n#ifdef MYPKG_WITH_GPU\n  cudaDeviceSynchronize();\n#endif\n"
                       "#ifdef HAVE_OTHER\n  cudaDeviceSynchronize();\n#endif\n}\n"),
    }
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    sites = {f.line: f for f in report.findings if f.rule == "OPS067"}
    assert sites[4].reach == "cuda-only-guarded" and "setup.py:7" in sites[4].reach_reason
    assert sites[7].reach == "runs"


def test_per_backend_table_needs_an_npu_row_not_a_new_cuda_row():
    code = ('import torch\nSYNC = {\n    "cuda": torch.cuda.synchronize,\n    "xpu": torch.xpu.synchronize,\n}\n'
            'BACKEND = {"cuda": "nccl", "cpu": "gloo"}\n')
    findings = found(code)
    assert [f.line for f in findings["DEV009"]] == [2, 6]  # one finding per table: add the "npu" row
    assert findings["DEV101"][0].reach == "other-backend" and findings["DST002"][0].reach == "other-backend"


def test_cuda_check_that_only_tries_a_cuda_path_with_a_fallback():
    code = ("import warnings\nimport torch\ndef dtw(x):\n    if x.is_cuda:\n        try:\n            return dtw_cuda(x)\n"
            "        except RuntimeError:\n            warnings.warn('falling back')\n    return dtw_cpu(x.cpu().numpy())\n")
    assert found(code)["DEV006"][0].reach == "cuda-only-guarded"
    reraises = code.replace("warnings.warn('falling back')", "raise")
    assert found(reraises)["DEV006"][0].reach == "runs"


def test_environment_report_values_are_cosmetic():
    code = ("import torch\ndef env():\n    pt_cuda_available = torch.cuda.is_available()\n"
            "    info = {'PyTorch version (GPU?)': f'{torch.__version__} ({pt_cuda_available})', 'Platform': 'x'}\n"
            "    print(info)\n"
            "def pick():\n    use_cuda = torch.cuda.is_available()\n    print(use_cuda)\n"
            "    return torch.device('cuda' if use_cuda else 'cpu')\n")
    by_line = {f.line: f for f in found(code)["DEV104"]}
    assert by_line[3].reach == "cosmetic" and by_line[7].reach == "runs"  # the second one also picks the device


def test_wrapper_classes_in_type_tests_are_not_uses():
    code = ("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
            "options = (DDP, torch.nn.DataParallel)\nif isinstance(model, options) or isinstance(model, DDP):\n    pass\n"
            "model = DDP(model)\n")
    findings = found(code)
    assert [f.line for f in findings["DST011"]] == [6] and "DST010" not in findings


def test_exact_class_comparisons_are_type_tests_not_uses():
    # YOLOP lib/utils/utils.py:142 `is_parallel`: `type(model) in (DataParallel, DistributedDataParallel)`
    code = ("import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
            "def is_parallel(model):\n    return type(model) in (nn.parallel.DataParallel, nn.parallel.DistributedDataParallel)\n"
            "def unwrap(model):\n    if type(model) is DDP or type(model) == nn.DataParallel:\n        return model.module\n"
            "WRAPPERS = {DDP, nn.DataParallel}\ndef wrapped(model):\n    return type(model) in WRAPPERS\n")
    findings = found(code)
    assert "DST010" not in findings and "DST011" not in findings
    # a class compared with something other than `type(x)`, or a kept set that is indexed, is still a use
    assert [f.line for f in found("from torch import nn\nok = kind in (nn.DataParallel, nn.Identity)\n")["DST010"]] == [2]
    picked = "from torch import nn\nWRAPPERS = [nn.DataParallel]\nmodel = WRAPPERS[0](model)\n"
    assert [f.line for f in found(picked)["DST010"]] == [2]


def test_checks_that_keep_an_nvidia_only_feature_off_or_only_guard_a_message():
    code = ("import torch\nclass ActionCudaGraphManager:\n    def can_use(self, x):\n        if x.device.type != 'cuda':\n"
            "            return False\n        return True\n"
            "def main(fabric, devices):\n    if torch.cuda.is_available() and devices > 1:\n        check_nvlink_connectivity(fabric)\n"
            "    if fabric.device.type == 'cuda':\n        fabric.print(f'{torch.cuda.max_memory_allocated() / 1e9:.02f} GB')\n"
            "    print(f'Memory used: {torch.cuda.max_memory_allocated() / 1e9:.02f} GB')\n"
            "    if device_type == 'cuda':\n        assert torch.cuda.is_available(), 'no cuda'\n"
            "    if device_type == 'npu':\n        assert torch.npu.is_available(), 'no npu'\n"
            "    if device.type == 'cuda':\n        torch.cuda.synchronize()\n")
    by_line = {(f.line, f.rule): f.reach for f in scan(code).findings}
    assert by_line[(4, "DEV007")] == "cuda-only-guarded"  # inside a CUDA-graph manager
    assert by_line[(8, "DEV104")] == "cuda-only-guarded"  # only calls an NVLink probe
    assert by_line[(10, "DEV007")] == "cuda-only-guarded" and by_line[(11, "DEV105")] == "cosmetic"
    assert by_line[(12, "DEV105")] == "cosmetic"  # memory statistics read 0 without CUDA: only the printout changes
    assert by_line[(13, "DEV007")] == "npu-path" and by_line[(14, "DEV104")] == "npu-path"  # its NPU twin follows
    assert by_line[(17, "DEV007")] == "runs"  # a check with no twin for its own subject


def test_backend_tables_and_splatted_backends(tmp_path):
    enum = 'class DeviceType:\n    CUDA = ("cuda", "GPU", "nccl")\n    NPU = ("npu", "NPU", "hccl")\n'
    assert "DST002" not in found(enum)
    assert "DST007" not in found("import torch.distributed as dist\ndist.init_process_group(**kwargs)\n")
    assert "DST007" in found("import torch.distributed as dist\ndist.init_process_group()\n")


def test_manifest_line_is_the_declaration_not_a_keyword(tmp_path):
    files = {"pyproject.toml": '[project]\nname = "x"\nkeywords = ["pytorch", "vision"]\ndependencies = [\n  "torch",\n]\n',
             "pkg/__init__.py": "import torch\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    assert [f.line for f in report.findings if f.rule == "DEP010"] == [5]
    assert file_role(".lightning/workflows/tests.yaml", ROLES) == "ci"


def test_classes_from_the_second_round_4_measurement():
    kernel = "template <typename T>\n__global__ void modulated_deformable_col2im_gpu_kernel(const int n, const T* col) {}\n"
    rules = {f.rule: f for f in scan(kernel, "cuda").findings}
    assert "OPS002" not in rules and "npu_deformable_conv2d" in rules["OPS001"].replacement.en
    nms = "__global__ void nms_rotated_cuda_kernel(const int n, const float* boxes) {}\n"
    assert "npu_nms_rotated" in {f.rule: f for f in scan(nms, "cuda").findings}["OPS001"].replacement.en
    assert "DST002" not in found('env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend="nccl"))\n')
    assert "DST002" in found('backend = "nccl"\n')
    assert "DEV210" not in found("import ray\n@ray.remote(num_gpus=0)\ndef f():\n    pass\n")
    assert file_role("xtuner/_testing/testcase.py", ROLES) == "test"
    assert file_role(".dev_scripts/ci_container_test.sh", ROLES) == "ci"


def test_a_legacy_dist_params_key_beside_mmengine_keys_is_read_by_nothing():
    """Round 28 V2 W5: mmengine's Runner.setup_env reads only `env_cfg.dist_cfg`; mmcv 1.x's `dist_params` beside
    mmengine's own keys (env_cfg, default_scope) is a leftover no code reads, so no HCCL work comes from it. In an
    mmcv-1.x config (no mmengine key) a 1.x train.py passes it to init_process_group: flagged as before."""
    mmengine = "default_scope = 'pkg'\ndist_params = dict(backend='nccl')\n"
    assert "DST002" not in found(mmengine)
    assert "DST002" not in found("dist_params = dict(backend='nccl')\nenv_cfg = dict(cudnn_benchmark=False)\n")
    assert "DST002" in found("dist_params = dict(backend='nccl')\nlog_level = 'INFO'\n")
    assert "DST002" in found("def f():\n    default_scope = 1\n    dist_params = dict(backend='nccl')\n    return dist_params\n")
    assert "DST002" in found("default_scope = 'pkg'\nbackend_params = dict(backend='nccl')\n")


def test_host_runtime_in_a_project_that_builds_its_native_ops_for_npu(tmp_path):
    files = {"op_builder/__init__.py": "", "op_builder/npu/__init__.py": "", "op_builder/npu/builder.py": "x = 1\n",
             "op_builder/builder.py": "x = 1\n",
             "csrc/includes/Timer.h": "#include <cuda_runtime.h>\nclass T {\n  cudaEvent_t s;\n  void R() { cudaEventRecord(s); }\n};\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    sites = [f for f in report.findings if f.rule == "OPS067"]
    assert sites and all(f.reach == "npu-path" and "op_builder/npu" in f.reach_reason for f in sites)


def test_a_name_an_import_error_handler_binds_to_none_is_an_availability_gate():
    guarded = (
        "try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n\n"
        "def attention(q, k, v, backend):\n    if backend == 'xformers' and xops is not None:\n"
        "        return xops.memory_efficient_attention(q, k, v)\n    return q\n"
    )
    assert reach_of(guarded, "ATT010")[0][0] == "optional"
    # near miss: the same test of a name no ImportError handler sets to None (a parameter) gates nothing
    parameter = (
        "import xformers.ops\n\n"
        "def attention(q, k, v, xops):\n    if xops is not None:\n"
        "        return xformers.ops.memory_efficient_attention(q, k, v)\n    return q\n"
    )
    assert reach_of(parameter, "ATT010")[0][0] == "runs"
    # near miss: the handler re-raises, so nothing falls back
    raising = guarded.replace("    xops = None\n", "    xops = None\n    raise\n")
    assert reach_of(raising, "ATT010")[0][0] == "runs"



def _project_findings(tmp_path, files):
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return analyze(tmp_path, AnalyzeOptions(jobs=1)).findings


SELF_TEST = ("import torch\n\ndef block(x):\n    return x * 2\n\n\n"
             "if __name__ == '__main__':\n    x = torch.randn(2).cuda()\n    print(block(x))\n")


def test_the_main_block_of_a_library_module_the_project_imports_is_its_self_test(tmp_path):
    found = _project_findings(tmp_path, {
        "lib/__init__.py": "", "lib/unet.py": SELF_TEST,
        "train.py": "from lib.unet import block\n\nif __name__ == '__main__':\n    print(block(1))\n",
    })
    site = next(f for f in found if f.path == "lib/unet.py" and f.rule == "DEV004")
    assert site.role == "test" and "self-test" in site.reach_reason


def test_a_script_nothing_imports_or_outside_a_package_keeps_its_main_block(tmp_path):
    found = _project_findings(tmp_path / "a", {"lib/__init__.py": "", "lib/unet.py": SELF_TEST})  # nothing imports it
    assert next(f for f in found if f.rule == "DEV004").role == "product"
    found = _project_findings(tmp_path / "b", {  # imported, but a top-level script, not a package's module
        "unet.py": SELF_TEST, "train.py": "from unet import block\n",
    })
    assert next(f for f in found if f.path == "unet.py" and f.rule == "DEV004").role == "product"
    found = _project_findings(tmp_path / "c", {  # a package's module that a launch script runs
        "lib/__init__.py": "", "lib/unet.py": SELF_TEST, "train.py": "from lib.unet import block\n",
        "run.sh": "python lib/unet.py\n",
    })
    assert next(f for f in found if f.path == "lib/unet.py" and f.rule == "DEV004").role == "product"


@pytest.mark.parametrize("readme", [
    "Train:\n\n```bash\npython lib/unet.py -opt options/train.yml\n```\n",  # by path
    "Train:\n\n```bash\nCUDA_VISIBLE_DEVICES=0 python -m lib.unet --launcher none\n```\n",  # as a module
])
def test_a_package_module_the_readme_launches_keeps_its_main_block(tmp_path, readme):
    # round 24 verdicts V4: basicsr/train.py, imported by basicsr/__init__.py (`from .train import *`) and launched by
    # the docs' training command, is the training entry, not a library's self-test
    found = _project_findings(tmp_path, {
        "lib/__init__.py": "from .unet import *\n", "lib/unet.py": SELF_TEST, "README.md": readme,
        "infer.py": "from lib.unet import block\nprint(block(1))\n",
    })
    site = next(f for f in found if f.path == "lib/unet.py" and f.rule == "DEV004")
    assert site.role == "product" and "self-test" not in (site.reach_reason or "")


def test_a_readme_launching_another_file_leaves_the_self_test(tmp_path):
    found = _project_findings(tmp_path, {
        "lib/__init__.py": "from .unet import *\n", "lib/unet.py": SELF_TEST,
        "README.md": "```bash\npython infer.py --input x.png\npython -m lib.other\n```\n",
        "infer.py": "from lib.unet import block\nprint(block(1))\n",
    })
    site = next(f for f in found if f.path == "lib/unet.py" and f.rule == "DEV004")
    assert site.role == "test" and "self-test" in site.reach_reason


def test_the_main_block_of_a_plain_folder_module_a_script_above_imports_is_its_self_test(tmp_path):
    """Round 18 A27: video_caption/utils/video_evaluator.py (no __init__.py) imported by video_caption/caption.py."""
    found = _project_findings(tmp_path / "a", {
        "caption/utils/evaluator.py": SELF_TEST, "caption/run.py": "from utils.evaluator import block\nprint(block(1))\n",
    })
    site = next(f for f in found if f.path == "caption/utils/evaluator.py" and f.rule == "DEV004")
    assert site.role == "test" and "(caption/run.py)" in site.reach_reason
    found = _project_findings(tmp_path / "b", {  # near miss: a peer script beside its importer may be run itself
        "caption/evaluator.py": SELF_TEST, "caption/run.py": "from evaluator import block\nprint(block(1))\n",
    })
    assert next(f for f in found if f.path == "caption/evaluator.py" and f.rule == "DEV004").role == "product"
    found = _project_findings(tmp_path / "c", {  # near miss: nothing imports it
        "caption/utils/evaluator.py": SELF_TEST, "caption/run.py": "print(1)\n",
    })
    assert next(f for f in found if f.path == "caption/utils/evaluator.py" and f.rule == "DEV004").role == "product"


KERNEL_CHECK = ("import torch\nfrom torch.autograd import gradcheck\nfrom ops.func import DCNFunction\n\n"
                "def check_backward():\n    x = torch.randn(2, device='cuda', requires_grad=True)\n"
                "    print(gradcheck(DCNFunction.apply, (x,)))\n\n\nif __name__ == '__main__':\n    check_backward()\n")


def test_a_test_script_is_known_by_its_name_and_its_testing_import(tmp_path):
    # mmpretrain projects/internimage_classification/ops_dcnv3/test.py: gradcheck of the kernel against PyTorch
    found = _project_findings(tmp_path / "a", {"ops/__init__.py": "", "ops/func.py": "", "ops/test.py": KERNEL_CHECK})
    site = next(f for f in found if f.path == "ops/test.py" and f.rule == "DEV001")
    assert site.role == "test" and "test script" in site.reach_reason and "gradcheck" in site.reach_reason
    # the evaluation entry of a model zoo (mm*'s tools/test.py) imports no testing module: it stays product code
    evaluation = KERNEL_CHECK.replace("from torch.autograd import gradcheck\n", "").replace("gradcheck(", "run(")
    found = _project_findings(tmp_path / "b", {"ops/__init__.py": "", "ops/func.py": "", "ops/test.py": evaluation})
    assert next(f for f in found if f.path == "ops/test.py" and f.rule == "DEV001").role == "product"
    # the same import in a module of another name is no test script by this rule
    found = _project_findings(tmp_path / "c", {"ops/__init__.py": "", "ops/func.py": "", "ops/check.py": KERNEL_CHECK})
    assert next(f for f in found if f.path == "ops/check.py" and f.rule == "DEV001").role == "product"


ALLCLOSE_CHECK = ("import torch\nfrom functions.dcnv3_func import DCNv3Function, dcnv3_core_pytorch\n\n"
                  "@torch.no_grad()\ndef check_forward_equal_with_pytorch_double():\n"
                  "    x = torch.rand(2, 4).cuda().double()\n"
                  "    return torch.allclose(DCNv3Function.apply(x), dcnv3_core_pytorch(x))\n\n\n"
                  "if __name__ == '__main__':\n    check_forward_equal_with_pytorch_double()\n")


def test_an_op_check_script_is_a_test_by_its_shape_without_a_testing_import(tmp_path):
    # InternImage's occupancy ops_dcnv3/test.py: its check_* functions compare the CUDA op with the PyTorch reference
    # by torch.allclose under __main__, and it imports no testing module (its classification copy imports gradcheck)
    files = {"ops/functions/__init__.py": "", "ops/functions/dcnv3_func.py": "", "ops/test.py": ALLCLOSE_CHECK}
    site = next(f for f in _project_findings(tmp_path / "a", files) if f.path == "ops/test.py" and f.rule == "PRC006")
    assert site.role == "test" and "check_forward_equal_with_pytorch_double()" in site.reach_reason
    # an evaluation script that compares once in its own main code is no check script
    evaluation = ALLCLOSE_CHECK.replace("def check_forward_equal_with_pytorch_double", "def evaluate").replace(
        "    check_forward_equal_with_pytorch_double()", "    evaluate()")
    found = _project_findings(tmp_path / "b", {**files, "ops/test.py": evaluation})
    assert next(f for f in found if f.path == "ops/test.py" and f.rule == "PRC006").role == "product"
    # a check function the main block never calls, or a module the project imports, is no check script either
    uncalled = ALLCLOSE_CHECK.replace("    check_forward_equal_with_pytorch_double()\n", "    print(1)\n")
    found = _project_findings(tmp_path / "c", {**files, "ops/test.py": uncalled})
    assert next(f for f in found if f.path == "ops/test.py" and f.rule == "PRC006").role == "product"
    found = _project_findings(tmp_path / "d", {**files, "ops/__init__.py": "", "ops/test.py": ALLCLOSE_CHECK,
                                               "train.py": "from ops.test import check_forward_equal_with_pytorch_double\n"})
    assert next(f for f in found if f.path == "ops/test.py" and f.rule == "PRC006").role == "product"


def test_an_attention_mode_naming_a_cuda_only_library_is_an_opt_in_choice():
    code = ("from flash_attn import flash_attn_func\nimport torch.nn.functional as F\n"
            "def attention(q, k, v, attn_mode='torch'):\n    if attn_mode == 'flash':\n"
            "        return flash_attn_func(q, k, v)\n    return F.scaled_dot_product_attention(q, k, v)\n")
    assert reach_of(code, "ATT001")[0][0] != "runs"  # the user picks flash-attn; the default path runs on Ascend
    chosen_always = code.replace("    if attn_mode == 'flash':\n        return flash_attn_func(q, k, v)\n",
                                 "    return flash_attn_func(q, k, v)\n")
    assert reach_of(chosen_always, "ATT001")[0][0] == "runs"


def test_a_use_of_an_import_that_falls_back_to_a_local_definition_is_optional():
    code = ("import torch\ntry:\n    from apex.normalization import FusedRMSNorm as RMSNorm\nexcept ImportError:\n"
            "    class RMSNorm(torch.nn.Module):\n        pass\n\n\ndef block(dim):\n    return RMSNorm(dim)\n")
    assert {r for r, _ in reach_of(code, "OPS066")} == {"optional"}
    no_fallback = code.replace("    class RMSNorm(torch.nn.Module):\n        pass\n", "    RMSNorm = None\n")
    assert "runs" in {r for r, _ in reach_of(no_fallback, "OPS066")}  # None is no implementation: the call fails


def test_environment_reports_are_tools_at_any_depth():
    # pytorch-lightning requirements/collect_env_details.py (round 5, A15/A59)
    assert file_role("requirements/collect_env_details.py", ROLES) == "example"
    assert file_role("src/pkg/collect_env.py", ROLES) == "example"
    assert file_role("src/pkg/environment.py", ROLES) == "product"


TIMERS = '''import os
from enum import Enum
import torch


class TimerType(Enum):
    CPU = "cpu"
    CUDA = "cuda"


class Timers:
    def __call__(self, name, timer_type=TimerType.CUDA, cuda_sync=False):
        if isinstance(timer_type, str):
            timer_type = TimerType(timer_type)
        return (name, timer_type)


nanotron_timer = Timers()
'''
TRAINER = '''import torch
from pkg.timers import nanotron_timer


def step(model, x):
    nanotron_timer("sync_gradients", "cuda").start()
    return model(x).to("cuda")
'''


def test_a_cuda_string_a_project_enum_takes_is_no_device_string(tmp_path):
    # nanotron: `nanotron_timer(name, "cuda")` reaches TimerType(timer_type) in another file; "npu" would raise there
    write_tree(tmp_path / "a", {"pkg/__init__.py": "", "pkg/timers.py": TIMERS, "pkg/trainer.py": TRAINER})
    found = [(f.path, f.line) for f in analyze(tmp_path / "a", AnalyzeOptions(jobs=1)).findings if f.rule == "DEV001"]
    assert ("pkg/trainer.py", 6) not in found
    assert ("pkg/trainer.py", 7) in found  # a device string on the next line stays
    # the Enum's value handed to torch as a device: the strings are devices after all
    devices = TIMERS.replace("        return (name, timer_type)", "        return torch.device(timer_type.value)")
    write_tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/timers.py": devices, "pkg/trainer.py": TRAINER})
    found = [(f.path, f.line) for f in analyze(tmp_path / "b", AnalyzeOptions(jobs=1)).findings if f.rule == "DEV001"]
    assert ("pkg/trainer.py", 6) in found


EVAL_SCRIPT = 'import torch\n\nDEVICE = "cuda:0"\n\n\ndef main(model):\n    return model.eval()\n'


def test_a_device_constant_nothing_reads_is_no_device_string(tmp_path):
    # Qwen's eval scripts: `DEVICE = "cuda:0"` is never read; the model loads with device_map="auto"
    def dev001(files):
        root = write_tree(tmp_path / str(len(list(tmp_path.iterdir()))), files)
        return [(f.path, f.line) for f in analyze(root, AnalyzeOptions(jobs=1)).findings if f.rule == "DEV001"]

    assert dev001({"eval/run.py": EVAL_SCRIPT}) == []
    read_here = EVAL_SCRIPT.replace("return model.eval()", "return model.to(DEVICE)")
    assert dev001({"eval/run.py": read_here}) == [("eval/run.py", 3)]
    globals_name = EVAL_SCRIPT.replace("return model.eval()", 'return model.to(globals()["DEVICE"])')
    assert dev001({"eval/run.py": globals_name}) == [("eval/run.py", 3)]
    twice = EVAL_SCRIPT.replace('DEVICE = "cuda:0"\n', 'DEVICE = "cuda:0"\nDEVICE = "cuda:1"\n')
    assert ("eval/run.py", 3) in dev001({"eval/run.py": twice})  # rebound: not judged
    pkg = {"pkg/__init__.py": "", "pkg/consts.py": EVAL_SCRIPT}
    assert dev001(pkg) == []
    imported = {**pkg, "pkg/use.py": "from pkg.consts import DEVICE\nx = DEVICE\n"}
    assert ("pkg/consts.py", 3) in dev001(imported)
    starred = {**pkg, "pkg/use.py": "from pkg.consts import *\nx = 1\n"}
    assert ("pkg/consts.py", 3) in dev001(starred)
    through_module = {**pkg, "pkg/use.py": "import pkg.consts\nx = pkg.consts.DEVICE\n"}
    assert ("pkg/consts.py", 3) in dev001(through_module)
    other_module = {**pkg, "pkg/use.py": "import pkg.other\nDEVICE = 1\nx = DEVICE\n"}
    assert dev001(other_module) == []  # its own DEVICE, not the constants module's


# issue 28, round-7 scouting classes ------------------------------------------------------------------------------------
COMMS = ("import torch.distributed as dist\n\n\ndef exchange(outs, ins, group):\n    dist.all_to_all(outs, ins, group=group)\n"
         "    dist.all_to_all_single(outs[0], ins[0], group=group)\n    return outs\n")
NPU_SPLIT = (  # Open-Sora-Plan's train scripts and models
    "try:\n    import torch_npu\n    from pkg.acceleration.comms import exchange\nexcept {caught}:\n    torch_npu = None\n"
    "    from pkg.utils.comms import exchange\n    dist_backend = 'nccl'\n    import torch\n    torch.cuda.set_device(0)\n"
    "\n\ndef step(outs, ins):\n    return exchange(outs, ins, None)\n\n\nstep([], [])\n"  # an import alone calls nothing
)


@pytest.mark.parametrize("caught", ["ImportError", ""])
def test_the_except_arm_of_a_torch_npu_import_is_the_other_backends_code(tmp_path, caught):
    found = _project_findings(tmp_path, {
        "pkg/__init__.py": "", "pkg/acceleration/__init__.py": "", "pkg/acceleration/comms.py": COMMS,
        "pkg/utils/__init__.py": "", "pkg/utils/comms.py": COMMS,
        "train.py": NPU_SPLIT.format(caught=f"except {caught}".split(" ", 1)[1] if caught else "").replace("except :", "except:"),
    })
    non_npu = [f for f in found if f.path == "pkg/utils/comms.py"]
    assert non_npu and all(f.reach == "other-backend" and "never on Ascend" in f.reach_reason and "train.py" in f.reach_reason
                           for f in non_npu)
    in_arm = next(f for f in found if f.path == "train.py" and f.rule == "DEV103")  # torch.cuda.set_device in the arm
    assert in_arm.reach == "other-backend" and "torch_npu does not import" in in_arm.reach_reason
    # the NPU arm's module runs on Ascend (its import is not an optional one), and the project-wide finding that
    # merges both arms is anchored there
    merged = next(f for f in found if f.rule == "DST022")
    assert (merged.path, merged.reach) == ("pkg/acceleration/comms.py", "runs")
    assert "pkg/utils/comms.py:5" in merged.sites
    assert next(f for f in found if f.path == "pkg/acceleration/comms.py" and f.rule == "DST021").reach == "runs"


def test_an_except_arm_of_another_import_still_runs(tmp_path):
    found = _project_findings(tmp_path, {
        "pkg/__init__.py": "", "pkg/utils/__init__.py": "", "pkg/utils/comms.py": COMMS,
        "train.py": "try:\n    import apex\nexcept ImportError:\n    from pkg.utils.comms import exchange\nexchange([], [], None)\n",
    })
    assert {f.reach for f in found if f.path == "pkg/utils/comms.py"} == {"runs"}


FLASH_PATCH = (  # InternVL's internvl/patch/llama2_flash_attn_monkey_patch.py
    "import torch\nimport transformers\n\n\ndef forward(self, hidden_states):\n"
    "    return flash_attn_varlen_qkvpacked_func(hidden_states.cuda(), 0.0)\n\n\n"
    "def replace_llama_attn_with_flash_attn():\n    major, _ = torch.cuda.get_device_capability()\n"
    "    transformers.models.llama.modeling_llama.LlamaAttention.forward = forward\n\n\n"
    "def test():\n    print(forward(None, torch.zeros(1)))\n\n\nif __name__ == '__main__':\n    test()\n"
)


@pytest.mark.parametrize("caller, reached", [
    ("# from pkg.patch import replace_llama_attn_with_flash_attn\n# replace_llama_attn_with_flash_attn()\n", False),
    ("from pkg.patch import replace_llama_attn_with_flash_attn\n\nreplace_llama_attn_with_flash_attn()\n", True),
    ("from pkg.patch.llama_patch import replace_llama_attn_with_flash_attn\n\nreplace_llama_attn_with_flash_attn()\n", True),
])
def test_a_monkey_patch_installer_nobody_calls_installs_nothing(tmp_path, caller, reached):
    found = _project_findings(tmp_path, {
        "pkg/__init__.py": "", "pkg/patch/__init__.py": "from .llama_patch import replace_llama_attn_with_flash_attn\n",
        "pkg/patch/llama_patch.py": FLASH_PATCH, "train.py": "import pkg.patch\n" + caller,
    })
    patched = [f for f in found if f.path == "pkg/patch/llama_patch.py" and f.line in (6, 10)]  # forward, installer
    assert {f.line for f in patched} == {6, 10}
    if reached:
        assert all(f.reach == "runs" for f in patched)
    else:
        assert all(f.reach == "optional" and "nothing in the project calls" in f.reach_reason for f in patched)
        assert "installed only by replace_llama_attn_with_flash_attn()" in next(f for f in patched if f.line == 6).reach_reason


def test_a_class_built_only_behind_a_try_import_flag_is_optional():
    """InternVL's modeling_intern_vit.py: `has_flash_attn` is True after `from flash_attn import ...` and False in
    the handler; the FlashAttention class is built only `if self.use_flash_attn:`, where that attribute is
    `config.use_flash_attn and has_flash_attn`: on Ascend the class never exists, so its assert is no task."""
    code = ("import torch\ntry:\n    from flash_attn import flash_attn_func\n    has_flash_attn = True\nexcept:\n"
            "    has_flash_attn = False\n\nclass FlashAttention(torch.nn.Module):\n    def forward(self, qkv):\n"
            "        assert qkv.is_cuda\n        return flash_attn_func(qkv)\n\nclass Attention(torch.nn.Module):\n"
            "    def __init__(self, config):\n        self.use_flash_attn = config.use_flash_attn and has_flash_attn\n"
            "        if self.use_flash_attn:\n            self.inner_attn = FlashAttention()\n")
    reach, reason = reach_of(code, "DEV006")[0]
    assert reach == "optional" and "line 16: if self.use_flash_attn:" in reason and "import flag has_flash_attn" in reason
    # the same flag set elsewhere without the import flag: a user's switch, not the import's availability
    unflagged = code.replace("config.use_flash_attn and has_flash_attn", "config.use_flash_attn")
    assert reach_of(unflagged, "DEV006")[0][0] == "runs"
    # built once outside the check as well: it runs on Ascend
    built_always = code + "        self.other = FlashAttention()\n"
    assert reach_of(built_always, "DEV006")[0][0] == "runs"


def test_a_pip_freezes_cuda_runtime_lines_are_one_deletion_per_file(tmp_path):
    """InternVL's internvl_chat_gpt_oss/requirements.txt, a pip freeze, lists 15 nvidia-* packages: deleting them is
    one edit of that file, one DEP014 with its lines as sites; another file's lines are another edit."""
    write_tree(tmp_path, {
        "train.py": "import torch\n",
        "requirements.txt": "torch==2.7.0\nnvidia-cublas-cu12==12.6.4.1\nnumpy==1.26.4\nnvidia-cudnn-cu12==9.5.1.17\n"
                            "nvidia-nccl-cu12==2.21.5\n",
        "serve/requirements.txt": "nvidia-nccl-cu12==2.21.5\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = sorted((f.path, f.line, f.sites) for f in report.findings if f.rule == "DEP014")
    assert found == [("requirements.txt", 2, ["requirements.txt:2", "requirements.txt:4", "requirements.txt:5"]),
                     ("serve/requirements.txt", 1, [])]


def test_a_script_that_only_counts_a_models_flops_is_a_diagnostic_tool(tmp_path):
    """InternVL's classification/gflops.py builds a model, counts it with mmcv's get_model_complexity_info and times a
    few forwards: a developer's diagnostic (the count does not depend on the device), not product code. A training
    script that also logs FLOPs stays product."""
    counter = ("import torch\nfrom mmcv.cnn import get_model_complexity_info\nfrom models.net import Net\n"
               "model = Net().cuda()\nflops, params = get_model_complexity_info(model, (3, 224, 224))\n"
               "torch.cuda.synchronize()\nprint(flops, params)\n")
    write_tree(tmp_path, {"models/__init__.py": "", "models/net.py": "import torch\nclass Net(torch.nn.Module):\n    pass\n",
                          "classification/gflops.py": counter,
                          "train.py": counter + "opt = torch.optim.AdamW(model.parameters())\nloss = model(x).sum()\n"
                                      "loss.backward()\nopt.step()\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    roles = {(f.path, f.role) for f in report.findings if f.rule == "DEV101"}
    assert roles == {("classification/gflops.py", "example"), ("train.py", "product")}
    reason = next(f.reach_reason for f in report.findings if f.rule == "DEV101" and f.path == "classification/gflops.py")
    assert "mmcv.cnn.get_model_complexity_info" in reason


def test_one_nccl_setting_in_many_launch_scripts_is_one_finding_counted_once(tmp_path):
    """The same variable with the same value exported in several launch scripts is one decision: one finding with
    the other scripts as sites, and the estimate counts it once; another value of the variable stays its own."""
    script = "#!/bin/bash\nexport NCCL_IB_HCA=mlx5_0\nexport NCCL_PROTO=Simple\ntorchrun --nproc_per_node 8 train.py\n"
    files = {f"scripts/run{i}.sh": script for i in range(3)}
    files["scripts/other.sh"] = "#!/bin/bash\nexport NCCL_IB_HCA=mlx5_1\ntorchrun train.py\n"
    files["train.py"] = "import torch\nprint(torch.ones(1))\n"
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    hca = sorted((f.path, f.sites) for f in report.findings if f.rule == "DST039" and f.symbol == "NCCL_IB_HCA")
    assert hca == [("scripts/other.sh", []), ("scripts/run0.sh", ["scripts/run0.sh:2", "scripts/run1.sh:2",
                                                                   "scripts/run2.sh:2"])]
    assert [f.path for f in report.findings if f.symbol == "NCCL_PROTO"] == ["scripts/run0.sh"]
    item = next(i for i in report.effort.items if i.rule == "DST039")
    assert item.count == 3  # NCCL_IB_HCA twice (two values), NCCL_PROTO once


def test_a_rocm_dockerfile_is_another_backends_image(tmp_path):
    """A Dockerfile whose base image, package index or build label is ROCm's builds AMD's image: other-backend, and
    its torch pin chooses no target. A CUDA image stays the build the port replaces (counted)."""
    write_tree(tmp_path, {
        "pyproject.toml": "[project]\nname = \"pkg\"\ndependencies = [\"torch>=2.1\"]\n",
        "pkg/__init__.py": "",
        "docker/Dockerfile.lumi": "FROM ubuntu:jammy\nRUN pip install torch==2.3.1 --index-url https://download.pytorch.org/whl/rocm6.0\n",
        "docker/Dockerfile.amd": "FROM rocm/pytorch:latest\nENV CUDA_HOME=/opt/rocm\n",
        "docker/Dockerfile.gpu": "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu121\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert report.target.torch_npu == "2.12.0"
    by_path = {}
    for f in report.findings:
        by_path.setdefault(f.path, set()).add((f.rule, f.reach))
    assert by_path["docker/Dockerfile.lumi"] == {("DEP016", "other-backend")}
    assert by_path["docker/Dockerfile.amd"] and {r for _, r in by_path["docker/Dockerfile.amd"]} == {"other-backend"}
    # the CUDA image: one counted item at its FROM; its torch line is that image's (dependencies/images.py)
    assert by_path["docker/Dockerfile.gpu"] == {("DEV212", "runs"), ("DEP016", "other-backend")}


def test_a_cloud_vendors_gpu_training_image_is_that_clouds_container(tmp_path):
    """open_lm's sagemaker_train/Dockerfile is FROM an AWS Deep Learning Container (`pytorch-training:...-gpu-...-cu121`):
    the container for SageMaker's GPU instances, which no Ascend host runs. The whole file is other-backend (one DEV212
    at its FROM, shown uncounted with the vendor); its flash-attn line is that image's. The project's own image in the
    same registry, or an AWS CPU image, is no vendor GPU image: its flash-attn line stays counted."""
    ecr = "763104351884.dkr.ecr.${AWS_REGION}.amazonaws.com"
    write_tree(tmp_path, {
        "pyproject.toml": "[project]\nname = \"pkg\"\ndependencies = [\"torch>=2.1\"]\n",
        "pkg/__init__.py": "",
        "sagemaker/Dockerfile": f"ARG AWS_REGION\nFROM {ecr}/pytorch-training:2.1.0-gpu-py310-cu121-ubuntu20.04-sagemaker\n"
                                "RUN pip install flash-attn>=2.2\n",
        "own/Dockerfile": "FROM 123456789012.dkr.ecr.us-east-1.amazonaws.com/pkg-gpu-base:latest\n"
                          "RUN pip install flash-attn>=2.2\n",
        "cpu/Dockerfile": f"FROM {ecr}/pytorch-training:2.1.0-cpu-py310-ubuntu20.04-sagemaker\n"
                          "RUN pip install flash-attn>=2.2\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    by_path = {}
    for f in report.findings:
        by_path.setdefault(f.path, {})[f.rule] = f
    vendor = by_path["sagemaker/Dockerfile"]
    assert {rule: f.reach for rule, f in vendor.items()} == {"DEV212": "other-backend", "DEP015": "other-backend"}
    assert "AWS" in vendor["DEV212"].reach_reason and "CANN image" in vendor["DEV212"].reach_reason
    assert by_path["own/Dockerfile"]["DEP015"].counted and "DEV212" not in by_path["own/Dockerfile"]
    assert by_path["cpu/Dockerfile"]["DEP015"].counted and "DEV212" not in by_path["cpu/Dockerfile"]


def test_cloud_gpu_vendor_reads_registry_repository_and_a_gpu_token():
    from ascend_feasibility.analyzer.context.backend_images import cloud_gpu_vendor
    from ascend_feasibility.knowledge import load_context_conventions

    images = load_context_conventions().backends.cloud_gpu_images
    assert cloud_gpu_vendor("us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-1.py310:latest", images).startswith("Google")
    assert cloud_gpu_vendor("gcr.io/deeplearning-platform-release/pytorch-cu121.2-2.py310", images).startswith("Google")
    assert cloud_gpu_vendor("mcr.microsoft.com/azureml/openmpi4.1.0-cuda11.8-cudnn8-ubuntu22.04", images) == "Azure Machine Learning"
    assert cloud_gpu_vendor("gcr.io/deeplearning-platform-release/pytorch-cpu.2-1", images) is None
    assert cloud_gpu_vendor("mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu22.04", images) is None
    assert cloud_gpu_vendor("pytorch/pytorch:2.1.0-cuda12.1-cudnn8-devel", images) is None  # Docker Hub: DEV212 as ever


# platform gates of known frameworks (issue 28, round 12: a copied HF Trainer's SageMaker and TPU arms) -----------
def test_a_known_frameworks_platform_gate_makes_its_branch_other_backend():
    sagemaker = ("import torch\nif self.sharded_ddp is not None:\n    pass\nelif is_sagemaker_dp_enabled():\n"
                 "    torch.cuda.synchronize()\nelse:\n    torch.cuda.empty_cache()\n")
    assert reach_of(sagemaker, "DEV101")[0][0] == "other-backend"
    assert reach_of(sagemaker, "DEV102")[0][0] == "runs"  # the else arm runs on Ascend
    neuron = "import torch\nif is_torch_neuroncore_available():\n    torch.cuda.synchronize()\n"
    assert reach_of(neuron, "DEV101")[0][0] == "other-backend"
    mine = "import torch\nif is_sagemaker_dp_ready():\n    torch.cuda.synchronize()\n"  # no known gate: decides nothing
    assert reach_of(mine, "DEV101")[0][0] == "runs"


def test_a_platform_or_library_the_condition_rules_out_is_no_guard():
    # transformers 4.27 Trainer.__init__: the GPU path of mixed precision, which names TPU and SageMaker only to skip them
    ruled_out = ("import torch\nif (fp16 or bf16) and not (deepspeed or is_sagemaker_mp_enabled() or "
                 "is_torch_tpu_available()):\n    torch.cuda.synchronize()\n")
    assert reach_of(ruled_out, "DEV101")[0][0] == "runs"
    unequal = "import torch\nif ready and device.type != 'mps':\n    torch.cuda.synchronize()\n"
    assert reach_of(unequal, "DEV101")[0][0] == "runs"
    asked = "import torch\nif ready and is_torch_tpu_available():\n    torch.cuda.synchronize()\n"
    assert reach_of(asked, "DEV101")[0][0] == "other-backend"


# options of a copied framework file that no launcher selects (issue 28, round 12: ChatGLM-6B ptuning/trainer.py) --
VENDORED_TRAINER = '''
from transformers import TrainingArguments
from transformers.training_args import OptimizerNames
from transformers.utils import is_apex_available

if is_apex_available():
    from apex import amp


class Trainer:
    def __init__(self, args: TrainingArguments):
        self.args = args
        self.use_apex = False
        if args.half_precision_backend == "cuda_amp":
            self.use_cuda_amp = True
        elif args.half_precision_backend == "cpu_amp":
            self.use_cpu_amp = True
        else:
            self.use_apex = True

    @staticmethod
    def get_optimizer_cls(args):
        if args.optim == OptimizerNames.ADAMW_TORCH:
            from torch.optim import AdamW
            return AdamW
        elif args.optim == OptimizerNames.ADAMW_BNB:
            from bitsandbytes.optim import Adam8bit
            return Adam8bit

    def create_optimizer(self, params):
        optimizer_cls = Trainer.get_optimizer_cls(self.args)
        self.optimizer = optimizer_cls(params)
        if optimizer_cls.__name__ == "Adam8bit":
            import bitsandbytes
            manager = bitsandbytes.optim.GlobalOptimManager.get_instance()

    def training_step(self, loss):
        if self.use_apex:
            with amp.scale_loss(loss, self.optimizer) as scaled_loss:
                scaled_loss.backward()
        else:
            loss.backward()
'''


def _dependency_reach(tmp_path, files):
    files = {"ptuning/main.py": "from trainer import Trainer\nTrainer(args).training_step(loss)\n", **files}
    write_tree(tmp_path, files)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    calls = {f.symbol: (f.reach, f.reach_reason) for f in report.findings if f.rule == "DEP030"}
    matrix = {row.item for row in report.phase_matrix.rows}
    return calls, matrix, report


def test_the_apex_and_bitsandbytes_arms_of_a_copied_hf_trainer_are_optional_unless_a_launcher_selects_them(tmp_path):
    calls, matrix, report = _dependency_reach(tmp_path / "quiet", {
        "ptuning/trainer.py": VENDORED_TRAINER, "ptuning/train.sh": "python main.py --fp16 --optim adamw_torch\n",
        "requirements.txt": "transformers==4.27.1\n"})
    assert calls["apex.amp.scale_loss"][0] == "optional"
    assert '"apex"' in calls["apex.amp.scale_loss"][1] and "self.use_apex" in calls["apex.amp.scale_loss"][1]
    assert calls["bitsandbytes.optim.GlobalOptimManager.get_instance"][0] == "optional"
    assert "OptimizerNames.ADAMW_BNB" in calls["bitsandbytes.optim.GlobalOptimManager.get_instance"][1]
    assert not {"package apex", "package bitsandbytes"} & matrix  # no use of them counts: no row of work
    assert "apex" not in " ".join(d.en for d in report.verdict.drivers)

    calls, matrix, _ = _dependency_reach(tmp_path / "apex", {
        "ptuning/trainer.py": VENDORED_TRAINER, "ptuning/train.sh": "python main.py --half_precision_backend apex\n"})
    assert calls["apex.amp.scale_loss"][0] == "runs"  # the project's launcher selects it
    assert "package apex" in matrix
    calls, _, _ = _dependency_reach(tmp_path / "config", {
        "ptuning/trainer.py": VENDORED_TRAINER, "ptuning/args.json": '{"optim": "adamw_bnb_8bit"}\n'})
    assert calls["bitsandbytes.optim.GlobalOptimManager.get_instance"][0] == "runs"  # a config selects it
    calls, _, _ = _dependency_reach(tmp_path / "bnb", {
        "ptuning/trainer.py": VENDORED_TRAINER, "ptuning/train.sh": "python main.py --optim adamw_bnb_8bit\n"})
    assert calls["bitsandbytes.optim.GlobalOptimManager.get_instance"][0] == "runs"  # any value but the default


def test_an_option_whose_default_cannot_be_read_leaves_its_arms_required(tmp_path):
    own_args = VENDORED_TRAINER.replace("from transformers import TrainingArguments\n", "from .args import TrainingArguments\n")
    calls, matrix, _ = _dependency_reach(tmp_path, {"ptuning/trainer.py": own_args, "ptuning/args.py": "class TrainingArguments:\n    pass\n"})
    assert calls["apex.amp.scale_loss"][0] == "runs"
    assert calls["bitsandbytes.optim.GlobalOptimManager.get_instance"][0] == "runs"
    set_anywhere = VENDORED_TRAINER.replace("        self.use_apex = False\n", "        self.use_apex = True\n")
    calls, _, _ = _dependency_reach(tmp_path / "on", {"ptuning/trainer.py": set_anywhere})
    assert calls["apex.amp.scale_loss"][0] == "runs"  # set True outside the option's arm too


def test_a_dockerfile_named_for_another_accelerator_is_that_backends_image(tmp_path):
    """text-generation-inference's Dockerfile.neuron builds the AWS Neuron image from ubuntu with a CPU torch==2.7.0:
    its suffix names the backend (a stem drops it), so the file is other-backend and its pin chooses no target. A
    plain Dockerfile beside it stays the project's image."""
    write_tree(tmp_path, {
        "pyproject.toml": "[project]\nname = \"pkg\"\ndependencies = [\"torch>=2.1\"]\n",
        "pkg/__init__.py": "",
        "Dockerfile.neuron": "FROM ubuntu:22.04\nRUN pip install torch==2.7.0\n",
        "Dockerfile": "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN pip install torch==2.5.1\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    neuron = [f for f in report.findings if f.path == "Dockerfile.neuron"]
    assert neuron and {f.reach for f in neuron} == {"other-backend"}
    assert any(f.path == "Dockerfile" and f.rule == "DEV212" and f.reach == "runs" for f in report.findings)
    assert "Dockerfile.neuron" not in report.target.reason.en


def test_a_module_imported_only_by_another_backends_module_is_other_backend(tmp_path):
    """text-generation-inference's flash_attn_triton.py is imported only by the ROCm attention backend (rocm.py,
    other-backend by its name): only ROCm loads it, so its Triton kernels are other-backend. A kernel module that a
    module running on Ascend imports as well stays counted."""
    kernel = "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef _fwd(x_ptr, n):\n    tl.store(x_ptr, tl.load(x_ptr))\n"
    write_tree(tmp_path, {
        "pyproject.toml": "[project]\nname = \"pkg\"\n",
        "pkg/__init__.py": "from pkg.attention import cuda\n",
        "pkg/attention/__init__.py": "",
        "pkg/attention/rocm.py": "def attention(q):\n    from .flash_attn_triton import _fwd\n    return _fwd\n",
        "pkg/attention/flash_attn_triton.py": kernel,
        "pkg/attention/cuda.py": "from .shared_triton import _fwd\n",
        "pkg/attention/shared_triton.py": kernel,
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reaches = {(f.path, f.reach) for f in report.findings if f.domain == "custom_ops"}
    assert ("pkg/attention/flash_attn_triton.py", "other-backend") in reaches
    assert ("pkg/attention/flash_attn_triton.py", "runs") not in reaches
    assert ("pkg/attention/shared_triton.py", "runs") in reaches


def test_a_backend_probes_presence_test_asks_for_that_backend():
    """`torch.version.hip is not None` asks for a ROCm build (text-generation-inference's import_utils.py): its arm is
    other-backend, as under `if torch.version.hip:`; `is None` rules ROCm out, so its arm runs on Ascend."""
    present = "import torch\nif torch.version.hip is not None:\n    torch.cuda.synchronize()\nelse:\n    torch.cuda.empty_cache()\n"
    assert reach_of(present, "DEV101")[0][0] == "other-backend"
    assert reach_of(present, "DEV102")[0][0] == "runs"
    absent = "import torch\nif torch.version.hip is None:\n    torch.cuda.synchronize()\n"
    assert reach_of(absent, "DEV101")[0][0] != "other-backend"


SELECTOR = """import torch
if torch.version.hip is not None:
    SYSTEM = "rocm"
elif torch.version.cuda is not None and torch.cuda.is_available():
    SYSTEM = "cuda"
elif hasattr(torch, "xpu") and torch.xpu.is_available():
    SYSTEM = "xpu"
else:
    SYSTEM = "cpu"
"""
SELECTOR_USE = """import torch
from pkg.import_utils import SYSTEM


def scale(weight, scale):
    if SYSTEM == "cuda":
        scale = scale.repeat(weight.shape[0])
    return weight * scale
"""


def test_a_backend_selectors_tests_are_decided_by_its_value_on_ascend(tmp_path):
    """text-generation-inference's SYSTEM is "rocm"/"cuda"/.../"cpu" by build probes torch_npu leaves None
    (transfer_to_npu too), so on Ascend it is "cpu": `SYSTEM == "cuda"` elsewhere is no setting transfer_to_npu keeps
    (DEV007 other-backend, naming the selector), and the selector's chain (DEV220) is high and lists those tests. A
    chain whose CUDA arm tests `torch.cuda.is_available()` alone (true under transfer_to_npu) decides nothing."""
    write_tree(tmp_path, {
        "pyproject.toml": "[project]\nname = \"pkg\"\n",
        "pkg/__init__.py": "",
        "pkg/import_utils.py": SELECTOR,
        "pkg/layer.py": SELECTOR_USE,
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    test = next(f for f in report.findings if f.rule == "DEV007" and f.path == "pkg/layer.py")
    assert test.reach == "other-backend" and '`SYSTEM` is "cpu" on Ascend' in test.reach_reason
    chain = next(f for f in report.findings if f.rule == "DEV220" and f.path == "pkg/import_utils.py")
    assert chain.severity == "high" and chain.sites == [f"pkg/layer.py:{test.line}"]

    unknown = SELECTOR.replace("torch.version.cuda is not None and torch.cuda.is_available()", "torch.cuda.is_available()")
    write_tree(tmp_path, {"pkg/import_utils.py": unknown})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    test = next(f for f in report.findings if f.rule == "DEV007" and f.path == "pkg/layer.py")
    assert test.reach == "runs"


SWITCHED_OFF_OUTSIDE_CUDA = '''import torch
import warnings

class MemorySnapshot:
    def __init__(self):
        self._enabled = True

    def init(self, state):
        if not self._enabled:
            return
        model_device = next(state.model.parameters()).device
        if model_device.type not in ('cuda', 'meta'):
            warnings.warn('only works on CUDA devices')
            self._enabled = False

        def oom_observer(device, alloc):
            snapshot = torch.cuda.memory._snapshot()

        if self._enabled:
            torch._C._cuda_attach_out_of_memory_observer(oom_observer)
            torch.cuda.memory._record_memory_history(True)

    def batch_start(self, state):
        if self._enabled and state.step == 0:
            self.start()

    def start(self):
        torch.cuda.memory._record_memory_history('all')

    def batch_end(self, state):
        if not self._enabled:
            return
        torch.cuda.memory._record_memory_history(False)
        self._enabled = False

class Telemetry:
    def setup(self, device):
        if device.type == 'cuda':
            self.handle = open_nvml(device)
        else:
            logger.warning('no NVML telemetry off CUDA')
            self.handle = None

    def read(self):
        if self.handle is None:
            return 0
        return torch.cuda.memory_allocated()
'''


def test_code_a_class_switches_off_outside_cuda_is_cuda_only_guarded_and_its_gate_stays():
    # composer's MemorySnapshot/OOMObserver: init sets self._enabled = False unless the model is on cuda or meta, and
    # every later use returns unless it is set; the gate itself (a device test with no NPU arm) is the finding
    found = {(f.line, f.rule): f for f in scan(SWITCHED_OFF_OUTSIDE_CUDA).findings}
    assert found[(12, "DEV007")].reach == "runs"
    guarded = {line: found[key].reach for key in found for line in [key[0]] if key[1] == "DEV105"}
    assert guarded == {17: "cuda-only-guarded", 21: "cuda-only-guarded", 28: "cuda-only-guarded",
                       33: "cuda-only-guarded", 47: "cuda-only-guarded"}
    assert found[(28, "DEV105")].reach_reason.startswith("`self._enabled` is False on any device but CUDA")
    assert "line 12: if model_device.type not in" in found[(28, "DEV105")].reach_reason


def test_a_flag_a_class_turns_back_on_or_sets_off_for_any_device_switches_nothing_off():
    turned_on = SWITCHED_OFF_OUTSIDE_CUDA.replace("        self._enabled = False\n\nclass", "        self._enabled = True\n\nclass")
    reaches = {f.line: f.reach for f in scan(turned_on).findings if f.rule == "DEV105"}
    assert set(reaches.values()) == {"runs", "cuda-only-guarded"} and reaches[28] == "runs" and reaches[47] == "cuda-only-guarded"
    any_device = SWITCHED_OFF_OUTSIDE_CUDA.replace("if model_device.type not in ('cuda', 'meta'):", "if state.disabled:")
    reaches = {f.line: f.reach for f in scan(any_device).findings if f.rule == "DEV105"}
    assert reaches[28] == "runs" and reaches[33] == "runs" and reaches[17] == "runs"
    npu_arm = SWITCHED_OFF_OUTSIDE_CUDA.replace("('cuda', 'meta')", "('cuda', 'npu', 'meta')")
    assert {f.line: f.reach for f in scan(npu_arm).findings if f.rule == "DEV105"}[28] == "runs"
    # a silent `self.handle = None` off CUDA is a fallback the port mirrors with an NPU arm, no declared CUDA-only feature
    silent = SWITCHED_OFF_OUTSIDE_CUDA.replace("            logger.warning('no NVML telemetry off CUDA')\n", "")
    assert {f.line: f.reach for f in scan(silent).findings if f.rule == "DEV105"}[46] == "runs"


def test_a_handle_set_only_after_a_setup_that_returns_off_cuda_is_switched_off_there():
    # the "returns" shape: __init__ leaves the handle None, setup warns and returns unless on CUDA before opening it
    code = ("import torch\nimport warnings\n\nclass Telemetry:\n    def __init__(self):\n        self.handle = None\n\n"
            "    def setup(self, device):\n        if device.type != 'cuda':\n            warnings.warn('telemetry is CUDA-only')\n"
            "            return\n        self.handle = open_nvml(device)\n\n    def read(self):\n        if self.handle is None:\n"
            "            return 0\n        return torch.cuda.memory_allocated()\n")
    assert [(f.line, f.reach) for f in scan(code).findings if f.rule == "DEV105"] == [(17, "cuda-only-guarded")]
    set_before = code.replace("        self.handle = open_nvml(device)\n", "").replace(
        "    def setup(self, device):\n", "    def setup(self, device):\n        self.handle = open_nvml(device)\n")
    assert [(f.line, f.reach) for f in scan(set_before).findings if f.rule == "DEV105"] == [(17, "runs")]


def test_a_cuda_test_before_a_function_and_a_pytorch_arm_works_as_is_on_npu():
    """BEVFormer's gate: the CUDA arm applies mmcv's CUDA-only Function, the else arm is the PyTorch implementation.
    NPU tensors take the PyTorch arm as it is: no `.is_npu` advice and no rewrite code; `model.apply(init)` in the CUDA
    arm is no Function, so that test keeps the rename advice."""
    gate = """import torch
def attend(value, shapes, locations, weights):
    if torch.cuda.is_available() and value.is_cuda:
        output = MultiScaleDeformableAttnFunction.apply(value, shapes, locations, weights)
    else:
        output = multi_scale_deformable_attn_pytorch(value, shapes, locations, weights)
    return output
"""
    findings = {f.rule: f for f in scan(gate, "python", path="attn.py").findings}
    for rule in ("DEV104", "DEV006"):
        assert findings[rule].replacement.code is None and "is_npu" not in findings[rule].replacement.en
        assert "mx_driving.multi_scale_deformable_attn" in findings[rule].replacement.en
        assert "works as it is" in findings[rule].message.en
    init = gate.replace("MultiScaleDeformableAttnFunction.apply(value, shapes, locations, weights)", "model.apply(init)")
    findings = {f.rule: f for f in scan(init, "python", path="attn.py").findings}
    assert findings["DEV006"].replacement.code == ".is_npu"


CONFIG_CHOSEN_OPTIMIZER = """import json
import sys
import torch


def main():
    config = json.load(open(sys.argv[1]))
    opt_config = config['optimizer']
    if opt_config['type'] == 'adamw':
        opt = torch.optim.AdamW(params, lr=opt_config['lr'])
    elif opt_config['type'] == 'adam8bit':
        import bitsandbytes as bnb
        opt = bnb.optim.Adam8bit(params, lr=opt_config['lr'])
    else:
        raise ValueError('Invalid optimizer type')
    return opt


main()
"""


def test_a_config_value_no_shipped_config_sets_makes_its_arm_optional(tmp_path):
    """Round 14 (k-diffusion train.py:161-167): `opt_config['type'] == 'adam8bit'` where every configs/*.json sets
    "type": "adamw". The arm is opt-in, named by its config key; a shipped config choosing it, or a defaults dict of the
    code writing it, keeps it required. Its advice is the torch optimizer, not a quantised matmul."""
    adamw = '{"optimizer": {"type": "adamw", "lr": 1e-4}}\n'
    calls, _, _ = _dependency_reach(tmp_path / "unset", {"train.py": CONFIG_CHOSEN_OPTIMIZER, "configs/a.json": adamw})
    reach, reason = calls["bitsandbytes.optim.Adam8bit"]
    assert reach == "optional" and "config key `type`" in reason and "configs/a.json" in reason
    calls, _, report = _dependency_reach(tmp_path / "set", {"train.py": CONFIG_CHOSEN_OPTIMIZER, "configs/a.json": adamw,
                                                           "configs/b.json": '{"optimizer": {"type": "adam8bit"}}\n'})
    assert calls["bitsandbytes.optim.Adam8bit"][0] == "runs"
    finding = next(f for f in report.findings if f.rule == "DEP030")
    assert "torch.optim.Adam" in finding.replacement.en and "quantis" not in finding.replacement.en
    defaulted = CONFIG_CHOSEN_OPTIMIZER.replace("    opt_config = config['optimizer']\n",
                                                "    opt_config = {'type': 'adam8bit', **config['optimizer']}\n")
    calls, _, _ = _dependency_reach(tmp_path / "default", {"train.py": defaulted, "configs/a.json": adamw})
    assert calls["bitsandbytes.optim.Adam8bit"][0] == "runs"
    calls, _, _ = _dependency_reach(tmp_path / "noconfig", {"train.py": CONFIG_CHOSEN_OPTIMIZER})
    assert calls["bitsandbytes.optim.Adam8bit"][0] == "runs"  # no config of the project chooses the key


CONFIG_TYPE_THROUGH_A_NAME = """import torch


def create_optimizer_from_config(optimizer_config, parameters):
    optimizer_type = optimizer_config["type"]
    if optimizer_type == "FusedAdam":
        from deepspeed.ops.adam import FusedAdam
        optimizer = FusedAdam(parameters, **optimizer_config["config"])
    else:
        optimizer_fn = getattr(torch.optim, optimizer_type)
        optimizer = optimizer_fn(parameters, **optimizer_config["config"])
    return optimizer
"""


def test_a_config_value_read_into_a_local_name_then_tested_is_the_same_choice(tmp_path):
    """Round 16 (stable-audio-tools training/utils.py:73-75): `optimizer_type = optimizer_config["type"]`, then
    `if optimizer_type == "FusedAdam":`, where every shipped model config sets "type": "AdamW". The FusedAdam arm is
    opt-in, as `optimizer_config["type"] == "FusedAdam"` is; a config choosing it, or a second binding of the name
    (which the test may then read), keeps it counted."""
    adamw = '{"optimizer": {"type": "AdamW", "config": {"lr": 1e-4}}}\n'

    def reach(folder, files):
        write_tree(tmp_path / folder, {"train.py": "from utils import create_optimizer_from_config\n"
                                                   "create_optimizer_from_config(cfg, params)\n", **files})
        report = analyze(tmp_path / folder, AnalyzeOptions(jobs=1))
        return next((f.reach, f.reach_reason) for f in report.findings if f.rule == "OPS064")

    found = reach("unset", {"utils.py": CONFIG_TYPE_THROUGH_A_NAME, "configs/vae.json": adamw})
    assert found[0] == "optional" and "config key `type`" in found[1] and "configs/vae.json" in found[1]
    found = reach("set", {"utils.py": CONFIG_TYPE_THROUGH_A_NAME, "configs/vae.json": adamw,
                          "configs/big.json": '{"optimizer": {"type": "FusedAdam"}}\n'})
    assert found[0] == "runs"
    rebound = CONFIG_TYPE_THROUGH_A_NAME.replace('    if optimizer_type ==',
                                                 '    optimizer_type = optimizer_type or "FusedAdam"\n    if optimizer_type ==')
    assert reach("rebound", {"utils.py": rebound, "configs/vae.json": adamw})[0] == "runs"


FP8_KERNELS = '''import torch
import triton
import triton.language as tl


@triton.jit
def act_quant_kernel(x_ptr, y_ptr, s_ptr, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs).to(tl.float32)
    s = tl.max(tl.abs(x)) / 448.
    tl.store(y_ptr + offs, (x / s).to(y_ptr.dtype.element_ty))
    tl.store(s_ptr, s)


def act_quant(x, block_size=128):
    y = torch.empty_like(x, dtype=torch.float8_e4m3fn)
    s = x.new_empty(x.size(-1) // block_size, dtype=torch.float32)
    act_quant_kernel[(x.numel() // block_size,)](x, y, s, BLOCK_SIZE=block_size)
    return y, s


@triton.jit
def weight_dequant_kernel(x_ptr, s_ptr, y_ptr, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float32) * tl.load(s_ptr))


def weight_dequant(x, s, block_size=128):
    y = torch.empty_like(x, dtype=torch.get_default_dtype())
    weight_dequant_kernel[(x.numel() // block_size,)](x, s, y, BLOCK_SIZE=block_size)
    return y
'''

FP8_MODEL = '''import torch.nn.functional as F
from kernel import act_quant, weight_dequant

gemm_impl = "bf16"


def linear(x, weight, scale):
    if weight.element_size() > 1:
        return F.linear(x, weight)
    elif gemm_impl == "bf16":
        return F.linear(x, weight_dequant(weight, scale))
    else:
        x, s = act_quant(x)
        return fp8_matmul(x, s, weight, scale)


print(linear(x, w, s))
'''


def test_kernels_only_an_arm_a_string_constant_rules_out_reaches_are_optional(tmp_path):
    """Round 14 (DeepSeek-V3 inference/model.py:16, 155-160): `gemm_impl = "bf16"`, never reassigned, so `act_quant`
    (and the Triton kernel only it launches) runs only when model.py is edited; `weight_dequant`, called in the arm the
    constant takes, runs. Another file naming the constant (`model.gemm_impl = "fp8"`) may set it: then both run."""
    write_tree(tmp_path / "const", {"kernel.py": FP8_KERNELS, "model.py": FP8_MODEL})
    report = analyze(tmp_path / "const", AnalyzeOptions(jobs=1))
    kernels = {f.line: (f.reach, f.reach_reason or "") for f in report.findings if f.rule == "OPS030"}
    assert kernels[7][0] == "optional" and 'gemm_impl = "bf16"' in kernels[7][1] and "model.py:13" in kernels[7][1]
    assert kernels[23][0] == "runs"
    device = FP8_MODEL.replace('gemm_impl = "bf16"', 'gemm_impl = "cuda"').replace('gemm_impl == "bf16"', 'gemm_impl == "cuda"')
    write_tree(tmp_path / "device", {"kernel.py": FP8_KERNELS, "model.py": device})
    report = analyze(tmp_path / "device", AnalyzeOptions(jobs=1))
    assert {f.line: f.reach for f in report.findings if f.rule == "OPS030"}[7] == "runs"  # a device name: a port edits it
    write_tree(tmp_path / "set", {"kernel.py": FP8_KERNELS, "model.py": FP8_MODEL,
                                  "run.py": "import model\nmodel.gemm_impl = 'fp8'\n"})
    report = analyze(tmp_path / "set", AnalyzeOptions(jobs=1))
    assert {f.line: f.reach for f in report.findings if f.rule == "OPS030"} == {7: "runs", 23: "runs"}


IMPORT_GATED_WINDOW = """\
import torch.nn.functional as F
try:
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None

def attend(q, k, v, window=None):
    flash_attn_available = flash_attn_func is not None
    if flash_attn_available:
        return flash_attn_func(q, k, v, window_size=window)
    else:
        return F.scaled_dot_product_attention(q, k, v)
"""


def test_import_gated_call_names_its_fallback_and_what_the_fallback_drops():
    # stable-audio-tools' apply_attn: the flash call runs only where the import worked (a presence test by another
    # name); on Ascend the SDPA arm runs, and it drops the sliding window the flash call was given
    (reach, reason), = reach_of(IMPORT_GATED_WINDOW, "ATT001")
    assert reach == "optional"
    assert "else arm (line 11)" in reason and "scaled_dot_product_attention" in reason and "window_size" in reason
    # without the window the reason names only the fallback
    (reach, reason), = reach_of(IMPORT_GATED_WINDOW.replace(", window_size=window", ""), "ATT001")
    assert reach == "optional" and "window_size" not in reason



IMPORT_MARKED_VERSION = """\
from transformers import AutoModelForCausalLM
try:
    from flash_attn import flash_attn_varlen_func
    FLASH_VER = 2
except ModuleNotFoundError:
    flash_attn_varlen_func = None
    FLASH_VER = None


def load(name):
    return AutoModelForCausalLM.from_pretrained(
        name, attn_implementation="flash_attention_2" if FLASH_VER == 2 else None)
"""


def test_an_import_marked_by_a_version_number_is_an_availability_gate():
    # round 17 (Wan2.1 wan/utils/prompt_extend.py:16-21, 418-420): `FLASH_VER = 2` after the import, None in its
    # handler; `FLASH_VER == 2` holds only where flash_attn imported, so the request is optional (on Ascend: None, SDPA)
    (reach, reason), = reach_of(IMPORT_MARKED_VERSION, "ATT030")
    assert reach == "optional" and "FLASH_VER == 2" in reason
    # a value the try body never sets says nothing of the import; nor does a mark the handler keeps
    assert reach_of(IMPORT_MARKED_VERSION.replace("FLASH_VER == 2", "FLASH_VER == 3"), "ATT030")[0][0] == "runs"
    kept = IMPORT_MARKED_VERSION.replace("    FLASH_VER = None\n", "    FLASH_VER = 2\n")
    assert reach_of(kept, "ATT030")[0][0] == "runs"


GATED_CONSTANT = """\
import torch.nn.functional as F

flash_attn_func = None
if HAS_FLASH_ATTENTION:
    from flash_attn import flash_attn_func

SDPA = "sdpa"
FLASH_DENSE = "flash_dense"


def select_attention_backend():
    if HAS_FLASH_ATTENTION:
        return FLASH_DENSE
    return SDPA


def run_attention(config, q, k, v):
    backend = config.backend
    if backend == FLASH_DENSE:
        return flash_attn_func(q, k, v)
    return F.scaled_dot_product_attention(q, k, v)
"""


def test_a_constant_handed_on_only_under_an_availability_gate_is_that_gate(tmp_path):
    # round 17 (unsloth utils/attention_dispatch.py:35-38, 231-241, 334, 448-452): FLASH_DENSE is returned only under
    # `if HAS_FLASH_ATTENTION:`, so `backend == FLASH_DENSE` is the import's test by another name; on Ascend SDPA runs
    (reach, reason), = reach_of(GATED_CONSTANT, "ATT001")
    assert reach == "optional" and "FLASH_DENSE (line 8) is given as a value only under an availability gate (line 12)" in reason
    # handed on ungated too (the default backend): the flash call runs
    ungated = GATED_CONSTANT.replace("        return FLASH_DENSE\n    return SDPA", "        return FLASH_DENSE\n    return FLASH_DENSE")
    assert reach_of(ungated, "ATT001")[0][0] == "runs"

    def project_reach(folder, files):
        write_tree(tmp_path / folder, {"pkg/__init__.py": "from .dispatch import FLASH_DENSE, run_attention\n"
                                                          "__all__ = ['FLASH_DENSE', 'run_attention']\n",
                                       "pkg/dispatch.py": GATED_CONSTANT, **files})
        report = analyze(tmp_path / folder, AnalyzeOptions(jobs=1))
        return next(f.reach for f in report.findings if f.rule == "ATT001")

    # a re-export and a test that forces the backend leave it optional; product code passing it makes it run
    test = "from pkg.dispatch import FLASH_DENSE, run_attention\ndef test_flash():\n    run_attention(Cfg(FLASH_DENSE), 1, 2, 3)\n"
    assert project_reach("tested", {"tests/test_dispatch.py": test}) == "optional"
    user = "from pkg.dispatch import FLASH_DENSE, run_attention\nrun_attention(Cfg(FLASH_DENSE), 1, 2, 3)\n"
    assert project_reach("used", {"pkg/train.py": user}) == "runs"


EIGHT_BIT_SWITCH = """\
from transformers import AutoModel, BitsAndBytesConfig
from .hooks import attach_hooks


class Loader:
    @staticmethod
    def from_pretrained(name, load_in_4bit=False, load_in_8bit=False):
        kwargs = {}
        if load_in_4bit or load_in_8bit:
            if load_in_4bit:
                cfg = BitsAndBytesConfig(load_in_4bit=True)
            else:
                cfg = BitsAndBytesConfig(load_in_8bit=True)
            kwargs["quantization_config"] = cfg
        model = AutoModel.from_pretrained(name, load_in_8bit=load_in_8bit, **kwargs)
        attach_hooks(model, load_in_8bit=load_in_8bit)
        _wrap(model, load_in_8bit=load_in_8bit)
        return model


def _wrap(model, load_in_8bit=False):
    return model
"""


def test_a_branch_either_of_two_off_switches_opens_and_forwards_of_a_switch():
    # round 17 (unsloth models/diffusion.py:218-235): the 8-bit config is built under `if load_in_4bit or
    # load_in_8bit:`, in the else arm of `if load_in_4bit:`; both default False, so it is optional, on load_in_8bit
    found = {f.line: (f.reach, f.reach_reason or "") for f in scan(EIGHT_BIT_SWITCH).findings if f.rule == "DEP032"}
    assert found[13][0] == "optional" and found[13][1].startswith("`load_in_8bit=False` by default (from_pretrained())")
    # the switch passed to a library's loader is its use (the `switched` variant); forwarded into the project's own
    # functions (one imported relatively, one defined here) it is none: the callee spends it
    assert found[15][0] == "runs" and 16 not in found and 17 not in found
    # a function of the file that takes only **kwargs hands the switch on to what it calls: the keyword is its use
    splat = EIGHT_BIT_SWITCH.replace("def _wrap(model, load_in_8bit=False):", "def _wrap(model, **kwargs):")
    assert 17 in {f.line for f in scan(splat).findings if f.rule == "DEP032"}
    # the 8-bit switch on by default opens the branch: the 8-bit config runs; the 4-bit one on by default takes the
    # other arm, so the 8-bit config still waits for load_in_8bit
    on = EIGHT_BIT_SWITCH.replace("load_in_4bit=False, load_in_8bit=False", "load_in_4bit=False, load_in_8bit=True")
    assert {f.line: f.reach for f in scan(on).findings if f.rule == "DEP032"}[13] == "runs"
    four = EIGHT_BIT_SWITCH.replace("load_in_4bit=False, load_in_8bit=False", "load_in_4bit=True, load_in_8bit=False")
    assert {f.line: f.reach for f in scan(four).findings if f.rule == "DEP032"}[13] == "optional"
    # each term must make the site optional alone: `--onnx` names no opt-in feature, so the `.cuda()` an ONNX export
    # needs runs (scouting 14, InternImage classification/export.py:117); two feature switches make it optional
    export = ("import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--onnx', action='store_true')\n"
              "parser.add_argument('--trt', action='store_true')\nargs = parser.parse_args()\n"
              "if args.onnx or args.trt:\n    model = model.cuda()\n")
    assert reach_of(export, "DEV004")[0][0] == "runs"
    (reach, reason), = reach_of(export.replace("onnx", "xformers"), "DEV004")
    assert reach == "optional" and "`--xformers` is off unless given (line 3) or `--trt` is off unless given (line 4)" in reason


GATED_PUBLIC_KERNEL = """\
import torch.nn.functional as F
try:
    import flash_attn
    HAS_FLASH = True
except ImportError:
    HAS_FLASH = False


def fused_attention(q, k, v):
    return flash_attn.flash_attn_func(q, k, v)


def attention(q, k, v):
    if HAS_FLASH:
        return fused_attention(q, k, v)
    return F.scaled_dot_product_attention(q, k, v)
"""


@pytest.mark.parametrize("caller, reach", [
    ("from .ops import fused_attention\n\n\ndef block(q, k, v):\n    return fused_attention(q, k, v)\n", "runs"),
    ("from .ops import attention\n\n\ndef block(q, k, v):\n    return attention(q, k, v)\n", "optional"),
    ("from .ops import fused_attention\n\n__all__ = ['fused_attention']\n", "optional"),  # a re-export is no call
])
def test_a_public_kernel_function_another_file_calls_bare_runs(tmp_path, caller, reach):
    # round 17 (Wan2.1): the file's own dispatcher checks the import's flag before the fused function, but the
    # model calls the fused function directly from another module: the SDPA fallback is never reached, so the
    # CUDA-only call is required wherever a caller elsewhere names it
    report = _tree(tmp_path, {"pkg/__init__.py": caller if "__all__" in caller else "",
                              "pkg/ops.py": GATED_PUBLIC_KERNEL,
                              "pkg/model.py": "" if "__all__" in caller else caller})
    (finding,) = [f for f in report.findings if f.path == "pkg/ops.py" and f.line == 10 and f.domain == "attention"]
    assert finding.reach == reach
    if reach == "optional":
        assert "fused_attention() is called only under it" in finding.reach_reason


XFORMERS_BOUND_METHOD = """import torch
from einops import rearrange
try:
    import xformers
    import xformers.ops
    XFORMERS_IS_AVAILBLE = True
except:
    XFORMERS_IS_AVAILBLE = False


class CrossAttention(torch.nn.Module):
    def __init__(self, heads, temporal_length=None):
        super().__init__()
        self.heads = heads
        if {condition}:
            self.forward = self.efficient_forward

    def forward(self, q, k, v):
        sim = torch.einsum("b i d, b j d -> b i j", q, k).softmax(dim=-1)
        return torch.einsum("b i j, b j d -> b i d", sim, v)

    def efficient_forward(self, q, k, v):
        return xformers.ops.memory_efficient_attention(q, k, v, attn_bias=None, op=None)
"""


@pytest.mark.parametrize("condition, reach", [
    ("XFORMERS_IS_AVAILBLE and temporal_length is None", "optional"),
    ("temporal_length is None", "runs"),  # bound under no test of the import: nothing shows the fallback runs
])
def test_a_method_bound_only_under_an_import_flag_is_optional(tmp_path, condition, reach):
    # round 22 A1 9, B2 30 (VideoCrafter lvdm/modules/attention.py): `try: import xformers ... except:
    # XFORMERS_IS_AVAILBLE = False`, and `__init__` binds `self.forward = self.efficient_forward` only under the flag;
    # xformers has no Ascend build, so the einsum forward runs there and the xformers arm is an optional fast path
    caller = "from .attention import CrossAttention\n\n\ndef build():\n    return CrossAttention(8).cuda()\n"
    report = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/attention.py": XFORMERS_BOUND_METHOD.format(condition=condition),
                              "pkg/model.py": caller})
    (finding,) = [f for f in report.findings if f.path == "pkg/attention.py" and f.rule == "ATT010"]
    assert finding.reach == reach
    if reach == "optional":
        assert "efficient_forward() is called only under it" in finding.reach_reason
    else:
        assert finding.reach_reason is None and finding.severity == "high"


# prec20b: other vendors' machinery is no missing NPU arm; NVIDIA-only kits ---------------------------------------------
OTHER_VENDOR_CODE = """\
import torch

def _torch_is_rocm(torch):
    return getattr(torch.version, "hip", None) is not None

def arch_by_physical_id():
    arch_by_id = {}
    if not _torch_is_rocm(torch):
        return arch_by_id
    if not (hasattr(torch, "cuda") and torch.cuda.is_available()):
        return arch_by_id
    for ordinal in range(torch.cuda.device_count()):
        arch_by_id[ordinal] = torch.cuda.get_device_properties(ordinal).gcnArchName
    return arch_by_id

def _ensure_rocm_torch(backend):
    if backend in ("cuda", "cpu", "xpu"):
        return
    print("reinstall")

_MLX_ADAMW_ALIASES = frozenset(("adamw_8bit", "adamw_bnb_8bit", "adamw_torch"))

def pick(device, backend):
    if not backend:
        return None
    torch.cuda.synchronize()
    if device == "cuda":
        return torch.cuda.device_count()
    return 0

arch_by_physical_id(); _ensure_rocm_torch("cuda"); pick("cuda", "x")
"""


def test_another_vendors_code_by_its_name_or_its_early_exit_is_no_missing_npu_arm():
    # unsloth studio (round 17 B10, B24, B34, B35; A1 8): a ROCm gfx-arch map behind `if not is_rocm: return`, a ROCm
    # installer's skip list, an MLX trainer's table of optimizer aliases
    findings = found(OTHER_VENDOR_CODE)
    assert "DEV220" not in findings  # two negated early exits are preconditions of ROCm code, not a dispatch chain
    by_line = {(f.rule, f.line): f for fs in findings.values() for f in fs}
    assert by_line[("DEV100", 12)].reach == "other-backend" and "line 8" in by_line[("DEV100", 12)].reach_reason
    assert by_line[("DEV007", 17)].reach == "other-backend" and "rocm code by its name" in by_line[("DEV007", 17)].reach_reason
    assert by_line[("DEP032", 21)].reach == "other-backend" and "mlx code by its name" in by_line[("DEP032", 21)].reach_reason
    # an early exit on something else, and a function named for no backend, decide nothing
    assert by_line[("DEV101", 26)].reach == "runs" and by_line[("DEV007", 27)].reach == "runs"
    # a name that also names CUDA (or a GPU) is not one other backend's
    mixed = OTHER_VENDOR_CODE.replace("_ensure_rocm_torch", "_ensure_rocm_or_cuda_torch")
    assert {f.line: f.reach for f in found(mixed)["DEV007"]}[17] == "runs"


def test_a_per_backend_dispatch_chain_keeps_its_missing_npu_arm():
    # unsloth device_type.py's shape: cuda / hip / xpu, else raise: the NPU arm is missing (DEV220 stays)
    code = ("import torch\ndef get_device_type():\n    if torch.cuda.is_available():\n        return 'cuda'\n"
            "    if torch.xpu.is_available():\n        return 'xpu'\n    raise NotImplementedError('no GPU')\n")
    assert [f.line for f in found(code)["DEV220"]] == [3]
    # early exits that admit CUDA and XPU (unsloth save.py's device_map targets), or an MPS arm before a CUDA
    # precondition (diffusion_memory.py's cache settle), still leave the NPU out
    exits = ("def reclaim(targets):\n    if not all(t.startswith(('cuda', 'xpu')) or t == 'cpu' for t in targets):\n"
             "        return None\n    if not any(t.startswith(('cuda', 'xpu')) for t in targets):\n        return None\n"
             "    return 1\n")
    assert [f.line for f in found(exits)["DEV220"]] == [2]
    settle = ("import torch\ndef settle(device):\n    if device == 'mps':\n        torch.mps.empty_cache()\n        return 1\n"
              "    if device != 'cuda':\n        return 2\n    torch.cuda.empty_cache()\n")
    assert [f.line for f in found(settle)["DEV220"]] == [3]


CARD_MODEL = """\
import torch
DEVICE_TYPE_TORCH = "cuda" if torch.cuda.is_available() else "cpu"

def load(fast_inference=True):
    if DEVICE_TYPE_TORCH == "cuda":
        for i in range(torch.cuda.device_count()):
            if "NVIDIA GB10" in str(torch.cuda.get_device_name(i)).upper():
                print("DGX Spark detected")
                fast_inference = False
                break
    return fast_inference

load()
"""


def test_a_cuda_check_that_only_looks_for_one_nvidia_card_model_is_right_as_it_is():
    # unsloth models/loader.py:1345 (round 17 B33, A1 4): vLLM's fast_inference turned off on a DGX Spark
    (check,) = [f for f in found(CARD_MODEL)["DEV007"] if f.line == 5]
    assert check.reach == "cuda-only-guarded" and '"NVIDIA GB10"' in check.reach_reason and not check.counted
    assert phrase("zh", check.reach_reason).startswith("第 5 行：该检查只查找一种 NVIDIA 显卡型号")
    # the same check around CUDA work besides the card test is the CUDA path: still counted
    more = CARD_MODEL.replace("                break\n", "                break\n        torch.cuda.synchronize()\n")
    assert [f.reach for f in found(more)["DEV007"] if f.line == 5] == ["runs"]


NVIDIA_KIT = {
    "caption_demo.py": "import torch\nfrom llava import model\nmodel.to('cuda')\n",
    "trtllm/build_engine.py": "import torch\nimport tensorrt as trt\nfrom tensorrt_llm.builder import Builder\n"
                              "torch.cuda.set_device(0)\nx = torch.ones(2).cuda()\n",
    "trtllm/run.py": "import torch\nimport tensorrt_llm\nfrom tensorrt_llm.runtime import ModelRunner\n"
                     "if __name__ == '__main__':\n    torch.cuda.set_device(0)\n",
    "trtllm/rename_key.py": "import torch\nstate = torch.load('x.pt', map_location='cuda')\n",
    "requirements.txt": "torch\n",
}


def test_an_nvidia_only_accelerator_kit_is_one_optional_finding(tmp_path):
    # HunyuanDiT mllm/trtllm/ (round 17 B3; A1 10, 29, 43; A2 52, 90): a TensorRT-LLM captioner beside the PyTorch one
    report = _tree(tmp_path / "kit", NVIDIA_KIT)
    kit = [f for f in report.findings if f.path.startswith("trtllm/")]
    assert len(kit) == 1 and kit[0].reach == "optional" and not kit[0].counted
    assert kit[0].symbol == "tensorrt" and "NVIDIA-only accelerator (trtllm/" in kit[0].message.en
    assert phrase("zh", kit[0].reach_reason).startswith("trtllm/ 是仅限 NVIDIA 的加速套件")
    assert "trtllm/rename_key.py:2" in kit[0].sites and "trtllm/build_engine.py:5" in kit[0].sites
    # tensorrt_llm has no Ascend build: never "declare a version that works on Ascend" (DEP003)
    assert not [f for f in report.findings if f.rule == "DEP003"]
    assert [f.reach for f in report.findings if f.path == "caption_demo.py" and f.rule == "DEV001"] == ["runs"]
    # imported by the product, the folder is part of it: its findings stay one by one
    used = {**NVIDIA_KIT, "caption_demo.py": NVIDIA_KIT["caption_demo.py"] + "from trtllm import run\n"}
    report = _tree(tmp_path / "used", used)
    assert len([f for f in report.findings if f.path.startswith("trtllm/")]) > 1
    # on its own, an import of tensorrt_llm is a package with no Ascend build (unsupported), not an undeclared one
    report = _tree(tmp_path / "one", {"serve.py": "import torch\nimport tensorrt_llm\n", "requirements.txt": "torch\n"})
    rules = {f.rule for f in report.findings if f.symbol == "tensorrt_llm" or "tensorrt-llm" in f.symbol}
    assert "DEP002" in rules and "DEP003" not in rules


CUDA_WHEEL_PICKER = """\
import torch
cuda = str(torch.version.cuda)
is_ampere = torch.cuda.get_device_capability()[0] >= 8
if cuda not in ("11.8", "12.1", "12.4"): raise RuntimeError(f"CUDA = {cuda} not supported!")
x = "cu{}-torch240".format(cuda.replace(".", ""))
print(f'pip install "unsloth[{x}]"')
"""


def test_a_cuda_wheel_installer_script_is_no_port_item():
    # unsloth/_auto_install.py (round 17 B19, A2 84): prints the pip line for a cuXXX wheel, raising on any other torch
    reaches = {f.rule: (f.reach, f.reach_reason or "") for f in scan(CUDA_WHEEL_PICKER).findings if f.rule.startswith("DEV")}
    assert reaches["DEV120"][0] == "other-backend" and "CUDA-wheel installer script" in reaches["DEV120"][1]
    assert reaches["DEV125"][0] == "other-backend"
    # a program that only requires a CUDA build (no wheel list, or one with functions to import) keeps its findings
    required = CUDA_WHEEL_PICKER.replace('if cuda not in ("11.8", "12.1", "12.4")', "if cuda == 'None'")
    assert {f.rule: f.reach for f in scan(required).findings}["DEV120"] == "runs"
    library = CUDA_WHEEL_PICKER + "def main():\n    return x\n"
    assert {f.rule: f.reach for f in scan(library).findings}["DEV120"] == "runs"


def test_a_release_only_a_device_comparison_guards_is_cuda_only_guarded():
    """`if self._execution_device == "cuda": torch.cuda.empty_cache()` (round 22 A1 row 47): an NPU device never takes
    the branch, and a "cuda" string kept under transfer_to_npu reaches the shim's release, so the release is no change;
    behind torch.cuda.is_available() (which the shim opens on the NPU) the release stays the fix."""
    compared = ("import torch\nclass Pipe:\n    def free(self):\n        if self._execution_device == 'cuda':\n"
                "            torch.cuda.empty_cache()\n")
    found = {f.rule: f for f in scan(compared).findings}
    assert found["DEV102"].reach == "cuda-only-guarded" and not found["DEV102"].counted
    assert phrase("zh", found["DEV102"].reach_reason).startswith("第 4 行：")
    available = compared.replace("self._execution_device == 'cuda'", "torch.cuda.is_available()")
    assert {f.rule: f for f in scan(available).findings}["DEV102"].reach == "runs"


def test_a_cuda_variable_in_a_cuda_image_stage_goes_with_the_image(tmp_path):
    """Round 22 A2 78: `export TORCH_CUDA_ARCH_LIST=...` in a RUN of a stage built FROM nvidia/cuda is a line of the
    image DEV212 replaces (no work of its own, not counted); set in a stage FROM ubuntu it is DEV209's own item. DEV209
    makes one finding per variable: NVIDIA_DRIVER_CAPABILITIES in a compose file is not one of its sites."""
    pkg = {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/main.py": "import torch\nx = torch.ones(2).cuda()\n"}
    builder = "FROM nvidia/cuda:11.8.0-devel-ubuntu22.04 AS builder\nRUN export TORCH_CUDA_ARCH_LIST=\"8.0\" && pip install gsplat\n"
    compose = {".devcontainer/docker-compose.yml":
               "services:\n  app:\n    environment:\n      - NVIDIA_DRIVER_CAPABILITIES=all\n"}
    found = [f for f in _project_findings(tmp_path / "a", {**pkg, **compose, "Dockerfile": builder}) if f.rule == "DEV209"]
    arch = next(f for f in found if f.symbol == "TORCH_CUDA_ARCH_LIST")
    assert not arch.counted and "nvidia/cuda:11.8.0-devel-ubuntu22.04` (line 1)" in arch.message.en
    assert "leave it out of the CANN image" in arch.replacement.en
    caps = next(f for f in found if f.symbol == "NVIDIA_DRIVER_CAPABILITIES")
    assert caps.path == ".devcontainer/docker-compose.yml" and not caps.sites
    assert all(".devcontainer" not in site for site in arch.sites)
    # not flagged: the runtime stage FROM ubuntu after the CUDA builder sets it for itself
    runtime = builder + "FROM ubuntu:22.04\nENV TORCH_CUDA_ARCH_LIST=\"8.0\"\n"
    arch = next(f for f in _project_findings(tmp_path / "b", {**pkg, "Dockerfile": runtime})
                if f.rule == "DEV209" and f.symbol == "TORCH_CUDA_ARCH_LIST")
    assert arch.counted and arch.line == 4 and "CANN/torch_npu setting" in arch.replacement.en


# round 26 A1 C1 (rows 2, 22, 24): a vendored modeling_llama.py the model imports LlamaDecoderLayer from, its own
# LlamaModel replaced by transformers' one; `def test()` run only by the model module's `if __name__ == "__main__":`
VALLE = ("import torch\nimport transformers\nfrom .modeling_llama import LlamaDecoderLayer\n\n\n"
         "class ValleModel(transformers.LlamaModel):\n    def __init__(self):\n        self.layer = LlamaDecoderLayer()\n\n\n"
         "def test():\n    x = torch.ones(1).cuda()\n    return ValleModel()(x)\n\n\n"
         "if __name__ == '__main__':\n    test()\n")
LLAMA = ("import torch\n\n\nclass LlamaDecoderLayer:\n    def forward(self, x):\n        return x\n\n\n"
         "class LlamaModel:\n    def forward(self, x):\n        return x.to(torch.ones(1).cuda().device)\n")
VALLE_TREE = {
    "models/__init__.py": "", "models/tts/__init__.py": "", "models/tts/valle.py": VALLE,
    "models/tts/modeling_llama.py": LLAMA,
    "train.py": "# test() the model first\nfrom models.tts.valle import ValleModel\n\n\ndef test():\n    pass\n\n\n"
                "if __name__ == '__main__':\n    ValleModel()\n",
    "README.md": "Run the test: `python train.py`; LlamaModel from transformers.\n",
}


def _dev004(found, path):
    return next(f for f in found if f.path == path and f.rule == "DEV004")


def test_definitions_files_name_only_without_loading_them_are_optional(tmp_path):
    found = _project_findings(tmp_path, VALLE_TREE)
    demo = _dev004(found, "models/tts/valle.py")  # test(): only the self-test block calls it
    assert demo.reach == "optional" and "a demo, not product code" in demo.reach_reason
    copy = _dev004(found, "models/tts/modeling_llama.py")  # LlamaModel: valle.py imports only LlamaDecoderLayer
    assert copy.reach == "optional" and "class LlamaModel is named nowhere else" in copy.reach_reason


@pytest.mark.parametrize("edit", [
    {"train.py": "from models.tts.valle import ValleModel, test\ntest()\n"},  # imported by name and called
    {"train.py": "from models.tts import valle\nvalle.test()\n"},  # its module imported
    {"configs/run.yaml": "entry: models.tts.valle.test\n"},  # a config naming the callable
])
def test_a_self_test_function_another_file_loads_runs(tmp_path, edit):
    found = _project_findings(tmp_path, {**VALLE_TREE, **edit})
    assert "a demo" not in (_dev004(found, "models/tts/valle.py").reach_reason or "")


@pytest.mark.parametrize("edit", [
    {"models/tts/valle.py": VALLE.replace("LlamaDecoderLayer\n", "LlamaDecoderLayer, LlamaModel\n", 1)
     .replace("transformers.LlamaModel", "LlamaModel")},  # the copy's class, imported by name
    {"infer.py": "from models.tts import modeling_llama\nmodeling_llama.LlamaModel()\n"},  # its module imported
    {"infer.py": "import importlib\nimportlib.import_module('models.tts.modeling_llama').LlamaModel()\n"},
    {"pyproject.toml": '[project]\nname = "models"\n'},  # a published library: its users' API
])
def test_a_vendored_class_a_file_may_load_runs(tmp_path, edit):
    found = _project_findings(tmp_path, {**VALLE_TREE, **edit})
    assert _dev004(found, "models/tts/modeling_llama.py").reach == "runs"


def test_a_recursive_call_is_no_use_of_the_function(tmp_path):
    # a name used only inside its own body reaches nothing: flatten_all calls itself and nothing else names it
    recursive = "\n\ndef flatten_all(x):\n    return flatten_all(x[0].cuda()) if x.dim() else x\n"
    found = _project_findings(tmp_path / "a", {**VALLE_TREE, "models/tts/modeling_llama.py": LLAMA + recursive})
    site = next(f for f in found if f.path == "models/tts/modeling_llama.py" and f.rule == "DEV004" and f.line == 15)
    assert site.reach == "optional" and "function flatten_all is named nowhere else" in site.reach_reason
    # near miss: valle.py imports it by name and calls it
    valle = VALLE.replace("LlamaDecoderLayer\n", "LlamaDecoderLayer, flatten_all\n", 1) + "flatten_all(torch.ones(1))\n"
    found = _project_findings(tmp_path / "b", {**VALLE_TREE, "models/tts/valle.py": valle,
                                               "models/tts/modeling_llama.py": LLAMA + recursive})
    site = next(f for f in found if f.path == "models/tts/modeling_llama.py" and f.rule == "DEV004" and f.line == 15)
    assert site.reach == "runs"


def test_another_files_own_class_of_the_same_name_is_no_use(tmp_path):
    # round 26 B2 row 43: the other LlamaAdaptiveRMSNorm uses are separate classes in other files
    own = {"models/vc/__init__.py": "", "models/vc/encoder.py": "class LlamaModel:\n    pass\n\n\nclass Encoder:\n"
           "    def __init__(self):\n        self.model = LlamaModel()\n",
           "infer.py": "from models.vc.encoder import Encoder\nEncoder()\n"}
    found = _project_findings(tmp_path / "a", {**VALLE_TREE, **own})
    assert _dev004(found, "models/tts/modeling_llama.py").reach == "optional"
    # near miss: encoder.py imports the copy's LlamaModel and builds it
    own["models/vc/encoder.py"] = "from models.tts.modeling_llama import LlamaModel\n\n\nLlamaModel()\n"
    found = _project_findings(tmp_path / "b", {**VALLE_TREE, **own})
    assert _dev004(found, "models/tts/modeling_llama.py").reach == "runs"


UNCALLED_CHAIN = ("import torch\nfrom helpers import to_gpu\n\n\ndef build():\n    return torch.ones(1).cuda()\n\n\n"
                  "def test():\n    build()\n    to_gpu()\n    return torch.zeros(1).cuda()\n\n\n"
                  "def main():\n    print(1)\n\n\nif __name__ == '__main__':\n    main()\n    # test()\n")
HELPERS = "import torch\n\n\ndef to_gpu():\n    return torch.ones(1).cuda()\n"


def _dev004_reach(found, path):
    return {f.line: (f.reach, f.reach_reason) for f in found if f.rule == "DEV004" and f.path == path}


def test_what_only_an_uncalled_script_function_calls_is_unreached_too(tmp_path):
    """A chain of uncalled functions: `test()`, which only a comment names (uncalled_functions.py), calls `build()`
    of its own file and `to_gpu()` of a script beside it; neither has another caller, so neither runs."""
    found = _project_findings(tmp_path, {"export.py": UNCALLED_CHAIN, "helpers.py": HELPERS})
    export = _dev004_reach(found, "export.py")
    assert export[12][0] == "optional"  # in test() itself
    assert export[6] == ("optional", "line 5: function build: only test calls it, and nothing calls test (a comment "
                                     "at most names it)")
    helper = _dev004_reach(found, "helpers.py")
    assert helper[5] == ("optional", "line 4: function to_gpu: only test (export.py) calls it, and nothing calls test "
                                     "(a comment at most names it)")


def test_the_same_chain_with_a_live_caller_at_the_top_runs(tmp_path):
    live = UNCALLED_CHAIN.replace("    main()\n    # test()\n", "    main()\n    test()\n")
    found = _project_findings(tmp_path, {"export.py": live, "helpers.py": HELPERS})
    assert set(_dev004_reach(found, "export.py").values()) == {("runs", None)}
    assert set(_dev004_reach(found, "helpers.py").values()) == {("runs", None)}


def test_a_published_librarys_public_function_keeps_the_private_one_it_calls(tmp_path):
    """Nothing in the project calls `lib.ops.to_device`, but a published library's public name is its users' API: the
    private helper only it calls runs with it."""
    found = _project_findings(tmp_path, {
        "pyproject.toml": '[project]\nname = "lib"\n', "lib/__init__.py": "from lib.ops import to_device\n",
        "lib/ops.py": "import torch\n\n\ndef to_device():\n    return _place()\n\n\ndef _place():\n"
                      "    return torch.ones(1).cuda()\n"})
    assert _dev004_reach(found, "lib/ops.py") == {9: ("runs", None)}


METHOD_BASE = "class BaseTrainer:\n    def train(self):\n        return self.step()\n"
METHOD_TRAINER = ("import torch\nfrom base import BaseTrainer\n\n\nclass Trainer(BaseTrainer):\n"
                  "    def step(self):\n        return 1\n\n"
                  "    @torch.amp.autocast('cuda', dtype=torch.bfloat16)\n    def _extract_feature(self):\n"
                  "        return torch.ones(1).cuda() + _load_codec()\n\n\n"
                  "def _load_codec():\n    return torch.zeros(1).cuda()\n\n\nTrainer().train()\n")


def test_a_private_method_nothing_names_is_unreached(tmp_path):
    """Round 26 A2 rows 67, 98: a trainer's private method, under autocast, that no file calls: `optional`; and so is
    the helper only that method calls."""
    found = _project_findings(tmp_path, {"base.py": METHOD_BASE, "trainer.py": METHOD_TRAINER})
    assert _dev004_reach(found, "trainer.py") == {
        11: ("optional", "line 9: method Trainer._extract_feature is named nowhere else in the project (no "
                         "`._extract_feature` call, getattr string or config entry), and Trainer derives from no class "
                         "outside the project that could call it: nothing calls it"),
        15: ("optional", "line 14: function _load_codec is used only in Trainer._extract_feature, which nothing calls "
                         "(private methods no file names)")}


@pytest.mark.parametrize("change", [
    {"run.py": "from trainer import Trainer\nTrainer()._extract_feature()\n"},  # another file calls it
    {"trainer.py": METHOD_TRAINER.replace("        return 1\n", "        return self._extract_feature()\n")},
    {"base.py": "import torch.nn as nn\n\n\nclass BaseTrainer(nn.Module):\n    def train(self):\n"
                "        return self.step()\n"},  # a framework's subclass: the method may be its hook
    {"base.py": METHOD_BASE.replace("self.step()", "getattr(self, '_' + self.kind)()")},  # a built name
    {"run.py": "kind = 'feature'\nprint(f'_extract_{kind}')\n"},  # a prefix a lookup may build it from
    {"trainer.py": METHOD_TRAINER.replace("    def step", "    # self._extract_feature() when needed\n    def step")},
])
def test_a_private_method_something_may_call_runs(tmp_path, change):
    found = _project_findings(tmp_path, {"base.py": METHOD_BASE, "trainer.py": METHOD_TRAINER, **change})
    assert set(_dev004_reach(found, "trainer.py").values()) == {("runs", None)}


PIPELINE = ("import torch\nfrom diffusers import DiffusionPipeline\n\n\nclass InpaintPipeline(DiffusionPipeline):\n"
            "    # Copied from diffusers.pipelines.StableDiffusionPipeline.enable_model_cpu_offload\n"
            "    def enable_model_cpu_offload(self, gpu_id=0):\n"
            "        \"\"\"Offloads the models; lower savings than `enable_sequential_cpu_offload`.\"\"\"\n"
            "        device = torch.device(f'cuda:{gpu_id}')\n"
            "        return torch.ones(1).cuda(device)\n\n"
            "    def __call__(self, prompt):\n        return prompt\n")
PIPELINE_APP = "from pipeline import InpaintPipeline\n\npipe = InpaintPipeline()\nprint(pipe('a cat'))\n"


def test_a_user_only_pipeline_switch_nothing_calls_is_unreached(tmp_path):
    """Round 28 A2 rows 55, 94: an app's copy of a diffusers pipeline keeps `enable_model_cpu_offload`, a switch the
    library's users call and its framework never does; no project file calls it (comments and the docstring mention
    it, and a second copy defines its own): `optional`, though the class derives from DiffusionPipeline."""
    other = PIPELINE.replace("InpaintPipeline", "ControlPipeline")
    found = _project_findings(tmp_path, {"pipeline.py": PIPELINE, "pipeline_control.py": other, "app.py": PIPELINE_APP})
    why = ("line 7: method InpaintPipeline.enable_model_cpu_offload is a switch a library offers its users and never "
           "calls itself, and no project file calls it (no `.enable_model_cpu_offload` call, getattr string or config "
           "entry): nothing runs it")
    assert _dev004_reach(found, "pipeline.py") == {10: ("optional", why)}


@pytest.mark.parametrize("change", [
    {"app.py": PIPELINE_APP.replace("print(", "pipe.enable_model_cpu_offload()\nprint(")},  # the app calls it
    {"app.py": PIPELINE_APP + "getattr(pipe, 'enable_model_cpu_offload')()\n"},  # a getattr string
    {"configs/low_memory.yaml": "switches: [enable_model_cpu_offload]\n"},  # a config names it
    {"pipeline.py": PIPELINE.replace("return prompt", "self.enable_model_cpu_offload()\n        return prompt")},
    {"pyproject.toml": '[project]\nname = "pipeline"\n', "pipeline/__init__.py": "",
     "pipeline/core.py": PIPELINE, "app.py": PIPELINE_APP.replace("from pipeline import", "from pipeline.core import"),
     "pipeline.py": None},  # a published library's public module: its users call it
    {"pipeline.py": PIPELINE.replace("enable_model_cpu_offload", "offload_models")},  # no user-only switch's name
])
def test_a_user_only_pipeline_switch_something_may_call_runs(tmp_path, change):
    files = {"pipeline.py": PIPELINE, "app.py": PIPELINE_APP, **change}
    files = {path: text for path, text in files.items() if text is not None}
    found = _project_findings(tmp_path, files)
    where = "pipeline/core.py" if "pipeline/core.py" in files else "pipeline.py"
    assert set(_dev004_reach(found, where).values()) == {("runs", None)}


GC_UTIL = ("import gc\nimport torch\n\n\ndef torch_gc():\n    gc.collect()\n"
           "    torch.cuda.empty_cache()\n    torch.zeros(1).cuda()\n\n\n"
           "def load_model():\n    return torch.nn.Linear(2, 2)\n")
GC_APP = "from model_util import load_model, torch_gc\n\nmodel = load_model()\nprint(model)\n"


def test_a_function_other_files_only_import_is_unreached(tmp_path):
    """Round 28 A1 row 27, A2 row 76: two apps import `torch_gc` by name beside a helper they call, and neither names
    it again: an import is no call, so nothing runs it."""
    found = _project_findings(tmp_path, {"model_util.py": GC_UTIL, "app.py": GC_APP,
                                         "app_multi.py": GC_APP.replace("print(model)", "model.eval()")})
    assert _dev004_reach(found, "model_util.py") == {8: (
        "optional", "line 5: function torch_gc is only imported (by app.py, app_multi.py) and never named again there: "
                    "an import is no call, nothing reaches it")}


@pytest.mark.parametrize("app", [
    GC_APP + "torch_gc()\n",  # called at the top level
    GC_APP + "\n\ndef clear():\n    torch_gc()\n\n\nclear()\n",  # called by a function something calls
    GC_APP + "hooks = [torch_gc]\n",  # handed on as a value
    GC_APP.replace("from model_util import load_model, torch_gc", "import model_util") + "model_util.torch_gc()\n",
])
def test_a_function_another_file_imports_and_names_again_runs(tmp_path, app):
    found = _project_findings(tmp_path, {"model_util.py": GC_UTIL, "app.py": app, "app_multi.py": GC_APP})
    assert set(_dev004_reach(found, "model_util.py").values()) == {("runs", None)}
