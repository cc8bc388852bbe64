"""What the file list alone says about each file (analyzer/context/project.py), on plain path lists: roles, reach by
name, NPU twins, per-backend folders, engine alternatives, CUDA-only library folders, the project's own import names,
and CI-built Dockerfiles. Each expectation is read from the module's docstrings and the shipped conventions
([backends] npu, other, twin, cuda_engines, npu_engines; [guards] cuda_only_packages)."""

from __future__ import annotations

from collections import namedtuple

import pytest
from ascend_feasibility.analyzer.context import project as p
from ascend_feasibility.analyzer.context.project import FileContext, ProjectContext, build_project_context
from ascend_feasibility.knowledge import load_context_conventions

CONVENTIONS = load_context_conventions()
BACKENDS = CONVENTIONS.backends


def of(paths: list[str], path: str | None = None, overrides=None) -> tuple[str, str, str | None]:
    found = build_project_context(paths, overrides).of(path or paths[0])
    return found.role, found.reach, found.reason


# reach by name ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path, reach, reason", [
    ("ops/npu_ops.py", "npu-path", "ops/npu_ops.py: NPU code by its name"),
    ("ops/Ascend/kernel.cc", "npu-path", "ops/Ascend/kernel.cc: NPU code by its name"),
    ("csrc/cann-impl/a.cpp", "npu-path", "csrc/cann-impl/a.cpp: NPU code by its name"),
    ("dist/hccl.utils.py", "npu-path", "dist/hccl.utils.py: NPU code by its name"),
    ("ops/xpu/kernel.py", "other-backend", "ops/xpu/kernel.py: xpu code by its name"),
    ("ops/rocm-hip.py", "other-backend", "ops/rocm-hip.py: hip code by its name"),  # the first in order
    ("xpu/npu/x.py", "other-backend", "xpu/npu/x.py: xpu code by its name"),  # the first part decides
    ("npu/xpu/x.py", "npu-path", "npu/xpu/x.py: NPU code by its name"),
    ("ops/mps_and_npu.py", "npu-path", "ops/mps_and_npu.py: NPU code by its name"),  # NPU first within a part
    ("ops/model.npu", "runs", None),  # a suffix is no name
    ("ops/input.py", "runs", None),  # a token, not a substring
    ("ops/torch_npu_x.py", "npu-path", "ops/torch_npu_x.py: NPU code by its name"),
])
def test_a_path_part_naming_a_backend(path, reach, reason):
    assert of([path])[1:] == (reach, reason)


def test_npu_files_and_the_npu_accelerator():
    paths = ["accelerator/npu_accelerator.py", "ops/npu/a.py", "accelerator/cuda_accelerator.py", "b.py"]
    context = build_project_context(paths)
    assert context.npu_files == ("accelerator/npu_accelerator.py", "ops/npu/a.py")
    assert context.npu_accelerator == "accelerator/npu_accelerator.py"
    assert build_project_context(["ops/npu/a.py", "x/NPU_Accelerator.py"]).npu_accelerator == "x/NPU_Accelerator.py"
    assert build_project_context(["ops/npu/a.py"]).npu_accelerator is None
    assert ProjectContext().npu_accelerator is None


def test_only_files_that_are_not_plain_product_code_are_kept():
    context = build_project_context(["a.py", "tests/t.py", "ops/xpu.py"])
    assert context.files == {"tests/t.py": FileContext("test", "runs", None),
                             "ops/xpu.py": FileContext("product", "other-backend", "ops/xpu.py: xpu code by its name")}
    assert context.of("a.py") is p.PLAIN and context.of("missing.py") == FileContext()
    assert FileContext() == FileContext("product", "runs", None)


def test_role_overrides_and_the_package_beside_root_scripts():
    assert of(["gen/a.py"], overrides={"test": ["gen/*"]})[0] == "test"
    assert of(["train_x.py", "pkg/__init__.py"])[0] == "example"  # beside a package
    assert of(["train_x.py", "other.py"])[0] == "product"


# NPU twins ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("paths, reason", [
    (["accelerator/cuda_accelerator.py", "accelerator/npu_accelerator.py"],
     "accelerator/cuda_accelerator.py: runs as accelerator/npu_accelerator.py on Ascend"),
    (["op_builder/fused_adam.py", "op_builder/npu/fused_adam.py"],
     "op_builder/fused_adam.py: runs as op_builder/npu/fused_adam.py on Ascend"),
    (["op_builder/fused_adam.py", "op_builder/ascend/fused_adam.py"],
     "op_builder/fused_adam.py: runs as op_builder/ascend/fused_adam.py on Ascend"),
    (["kernels/cuda/a.py", "kernels/npu/b.py"], "kernels/cuda/a.py: runs as kernels/npu on Ascend"),
    (["kernels/cuda/a.py", "kernels/npu/a.py"], "kernels/cuda/a.py: runs as kernels/npu/a.py on Ascend"),
    (["x/GPU-utils.py", "x/npu_utils.py"], "x/GPU-utils.py: runs as x/npu_utils.py on Ascend"),
    (["x/utils_nvidia.cu", "x/utils_npu.cu"], "x/utils_nvidia.cu: runs as x/utils_npu.cu on Ascend"),
    (["x/cpu_adam.py", "x/npu_adam.py"], "x/cpu_adam.py: runs as x/npu_adam.py on Ascend"),
    (["cuda_ops.py", "npu_ops.py"], "cuda_ops.py: runs as npu_ops.py on Ascend"),
    (["fused_adam.py", "npu/fused_adam.py"], "fused_adam.py: runs as npu/fused_adam.py on Ascend"),
    (["a/cuda_x/b/c.py", "a/npu_x/q.py"], "a/cuda_x/b/c.py: runs as a/npu_x on Ascend"),
    (["a/cuda_x/b/c.py", "a/npu_x/b/c.py"], "a/cuda_x/b/c.py: runs as a/npu_x/b/c.py on Ascend"),
])
def test_an_npu_twin_makes_the_file_other_backend(paths, reason):
    assert of(paths)[1:] == ("other-backend", reason)


@pytest.mark.parametrize("paths", [
    ["op_builder/__init__.py", "op_builder/npu/__init__.py"],  # a package's __init__.py loads on every backend
    ["accelerator/cuda_accelerator.py"],
    ["x/cuda_ops.py", "y/npu_ops.py"],
    ["x/ops.py", "x/npu_ops.py"],  # no backend token to replace
    ["x/cuda_ops.py", "x/npu_ops.cu"],  # another suffix
])
def test_what_is_no_npu_twin(paths):
    assert of(paths)[1] == "runs"


def test_npu_twin_directly():
    existing = {"a/npu", "a/npu/m.py", "a/m.py"}
    view = p.path_view("a/m.py")
    assert p._npu_twin("a/m.py", view, BACKENDS, existing) == "a/npu/m.py"
    view = p.path_view("m.py")
    assert p._npu_twin("m.py", view, BACKENDS, {"npu", "npu/m.py", "m.py"}) == "npu/m.py"
    assert p._npu_twin("m.py", view, BACKENDS, {"m.py", "x/npu", "x/npu/m.py"}) is None


# per-backend folders and engines --------------------------------------------------------------------------------
def test_the_default_variant_beside_per_backend_folders():
    paths = ["op_builder/builder.py", "op_builder/npu/fused.py", "op_builder/xpu/fused.py", "op_builder/__init__.py"]
    assert of(paths)[1:] == ("other-backend",
                             "op_builder/builder.py: the default (CUDA) variant beside op_builder/npu/, which Ascend uses")
    assert of(paths, "op_builder/__init__.py")[1] == "runs"
    twin = ["op_builder/builder.py", "op_builder/npu/fused.py", "op_builder/cpu/fused.py"]
    assert of(twin)[1] == "other-backend"
    assert of(["op_builder/builder.py", "op_builder/npu/fused.py"])[1] == "runs"  # no other backend's folder
    assert of(["op_builder/builder.py", "op_builder/xpu/fused.py"])[1] == "runs"
    assert of(["op_builder/build.cc", "op_builder/npu/f.py", "op_builder/xpu/f.py"])[1] == "runs"  # Python only
    assert of(["builder.py", "npu/f.py", "xpu/f.py"])[1:] == (
        "other-backend", "builder.py: the default (CUDA) variant beside npu/, which Ascend uses")


def test_dispatch_folder_directly():
    view = p.path_view("a/b.py")
    assert p._dispatch_folder(view, BACKENDS, {"a/ascend", "a/hpu"}) == "a/ascend"
    assert p._dispatch_folder(view, BACKENDS, {"a/ascend", "a/gpu"}) == "a/ascend"
    assert p._dispatch_folder(view, BACKENDS, {"a/ascend"}) is None
    assert p._dispatch_folder(p.path_view("a/__init__.py"), BACKENDS, {"a/ascend", "a/hpu"}) is None


@pytest.mark.parametrize("paths, reason", [
    (["workers/rollout/trtllm_rollout/a.py", "workers/rollout/vllm_rollout/b.py"],
     "workers/rollout/trtllm_rollout/a.py: an NVIDIA-only engine beside workers/rollout/vllm_rollout, the engine to "
     "choose on Ascend"),
    (["x/trtllm_engine.py", "x/sglang_engine.py"],
     "x/trtllm_engine.py: an NVIDIA-only engine beside x/sglang_engine, the engine to choose on Ascend"),
    (["x/TensorRT-backend/a.py", "x/vllm_backend/b.py"],
     "x/TensorRT-backend/a.py: an NVIDIA-only engine beside x/vllm_backend, the engine to choose on Ascend"),
    (["x/tensorrtbackend/a.py", "x/vllmbackend/b.py"], None),  # not a token of its own
    (["x/trtllm_engine.py", "y/vllm_engine.py"], None),
    (["x/trtllm.py", "x/trtllm_vllm.py"], None),
])
def test_an_nvidia_only_engine_beside_one_with_an_ascend_build(paths, reason):
    assert of(paths)[1:] == (("other-backend", reason) if reason else ("runs", None))


def test_engine_alternative_by_plain_replacement():
    parts = ["x", "mytrtllmrollout"]
    assert p._engine_alternative(parts, BACKENDS, {"x/myvllmrollout"}) is None  # no token: never looked at
    parts = ["x", "trtllm_rollout-tensorrt"]
    existing = {"x/vllm_rollout-tensorrt"}
    assert p._engine_alternative(parts, BACKENDS, existing) == "x/vllm_rollout-tensorrt"
    existing = {"x/vllm_rollout_tensorrt"}
    assert p._engine_alternative(parts, BACKENDS, existing) == "x/vllm_rollout_tensorrt"


# CUDA-only library folders -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("path, reach", [
    ("diffusers/quantizers/nunchaku/x.py", "optional"),
    ("diffusers/quantizers/NUNCHAKU/x.py", "optional"),
    ("src/diffusers/xformers/a.py", "optional"),
    ("nunchaku/x.py", "runs"),  # the top folder is the project's own
    ("src/nunchaku/x.py", "runs"),
    ("a/nunchaku.py", "runs"),  # a file, not a folder
])
def test_a_folder_named_after_a_cuda_only_library(path, reach):
    found = of([path])
    assert found[1] == reach
    if reach == "optional":
        folder = path.split("/")[-2]
        assert found[2] == f"{path}: integration of the CUDA-only {folder} library, used only when it is chosen"


def test_a_library_that_is_the_projects_own_package_is_never_one():
    paths = ["xformers/__init__.py", "csrc/xformers/a.py"]
    assert of(paths, "csrc/xformers/a.py")[1] == "runs"
    assert of(["csrc/xformers/a.py"])[1] == "optional"


def test_library_folder_directly():
    assert p._library_folder("a/flash_attn/b.py", ["flash_attn"]) == (
        "optional", "a/flash_attn/b.py: integration of the CUDA-only flash_attn library, used only when it is chosen")
    assert p._library_folder("a/b/flash_attn/c/d.py", ["flash_attn"])[0] == "optional"
    assert p._library_folder("src/flash_attn/c/d.py", ["flash_attn"]) == ("runs", None)
    assert p._library_folder("src/x/flash_attn/d.py", ["flash_attn"])[0] == "optional"
    assert p._library_folder("x/src/flash_attn/d.py", ["flash_attn"])[0] == "optional"


def test_reach_by_name_comes_before_the_library_folder():
    assert of(["a/nunchaku/npu_x.py"])[1] == "npu-path"


# the project's own import names ------------------------------------------------------------------------------------
def test_import_names():
    paths = ["train.py", "src/tool.py", "scripts/run.py", "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/m.py",
             "deepspeed/utils/torch.py", "src/lib/__init__.py", "src/lib/x.py", "nb.ipynb", "README.md",
             "other/pkg2/__init__.py", "other/pkg2/y.py", "data/x.txt"]
    own, local = p._import_names(paths)
    assert own == {"train", "tool", "pkg", "lib", "nb", "pkg2"}
    assert local == {"train", "tool", "run", "pkg", "torch", "lib", "nb", "pkg2"}


def test_namespace_folders_holding_modules_in_folders_are_own_packages():
    paths = ["awq/entry.py", "awq/quantize/quantizer.py", "tinychat/models/llama.py", "scripts/run.py",
             "src/ns/sub/m.py", "pkg/__init__.py", "pkg/sub/m.py", "3rd/x/y.py"]
    context = build_project_context(paths, distribution="awq")
    assert {"awq", "tinychat", "ns", "pkg"} <= context.own_packages
    assert not {"scripts", "3rd", "src"} & context.own_packages  # scripts/run.py: a folder of scripts, no subfolder
    assert context.is_own("awq.quantize.quantizer.real_quantize_model_weight") and "awq" in context.local_modules


def test_a_namespace_folder_named_like_a_library_is_own_only_when_the_project_publishes_it():
    paths = ["awq/quantize/quantizer.py", "transformers/models/llama/modeling_llama.py", "megatron/core/m.py"]
    assert not {"awq", "transformers", "megatron"} & build_project_context(paths).own_packages
    assert build_project_context(paths, distribution="AWQ").own_packages == {"awq"}
    assert build_project_context(paths, distribution="megatron-core").own_packages == {"megatron"}  # the library's name


def test_a_package_at_the_analysed_root_names_nothing():
    own, local = p._import_names(["__init__.py", "a.py", "sub/__init__.py", "sub/b.py"])
    assert own == set() and local == set()


def test_is_own():
    context = build_project_context(["pkg/__init__.py", "pkg/m.py", "train.py"])
    assert context.own_packages == {"pkg", "train"} and context.local_modules == {"pkg", "train"}
    assert context.is_own("pkg.m.fn") and context.is_own("pkg") and context.is_own("train.main")
    assert not context.is_own("torch.cuda") and not context.is_own("pkg.m-x") and not context.is_own("pkgx.m")
    assert not context.is_own("pkg..m") and not context.is_own("pkg.1m")


# small helpers -----------------------------------------------------------------------------------------------------
def test_folders_joined_and_tokens():
    assert p._folders("a/b/c") == {"a/b/c", "a/b", "a"}
    assert p._folders(".") == frozenset()
    assert p._joined("a/b", "c") == "a/b/c" and p._joined(".", "c") == "c"
    assert p._tokens("My-Fused.CUDA_ops__x") == ["my", "fused", "cuda", "ops", "x"]
    assert p._named_backend("xpu-hpu", frozenset({"npu"}), frozenset({"xpu", "hpu"})) == "hpu"
    assert p._named_backend("a_npu_xpu", frozenset({"npu"}), frozenset({"xpu"})) == "npu"
    assert p._named_backend("plain", frozenset({"npu"}), frozenset({"xpu"})) is None
    assert p._backend_sets(BACKENDS) == (frozenset(BACKENDS.npu), frozenset(BACKENDS.other))


def test_path_reach_builds_its_own_view():
    assert p._path_reach("ops/xpu.py", BACKENDS, set()) == ("other-backend", "ops/xpu.py: xpu code by its name")
    assert p._path_reach("ops/a.py", BACKENDS, set()) == ("runs", None)


# CI-built Dockerfiles ----------------------------------------------------------------------------------------------
File = namedtuple("File", "path absolute size")


def files(tmp_path, tree: dict[str, str]) -> list[File]:
    found = []
    for path, text in tree.items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        found.append(File(path, target, len(text.encode())))
    return found


def test_dockerfiles_a_workflow_names_are_ci_images(tmp_path):
    tree = {"docker/diffusers-pytorch-cuda/Dockerfile": "FROM x\n",
            "docker/unnamed-image/Dockerfile": "FROM x\n",
            "docker/short/Dockerfile": "FROM x\n",  # a folder name under 6 characters is too common to search
            "Dockerfile": "FROM x\n",  # not in a folder of its own
            "docker/Dockerfile.gpu": "FROM x\n",
            "tests/fixtures/Dockerfile": "FROM x\n",  # not a build file
            ".github/workflows/ci.yml": "image: Docker/Diffusers-PyTorch-CUDA\nshort\n",
            "workflows/ci.yml": "unnamed-image\n"}  # not a CI file
    assert p.ci_built_dockerfiles(files(tmp_path, tree)) == ["docker/diffusers-pytorch-cuda/Dockerfile"]


def test_a_yaml_suffix_and_role_overrides(tmp_path):
    tree = {"docker/unnamed-image/Dockerfile": "FROM x\n", "build/flows/ci.YAML": "uses unnamed-image\n"}
    found = files(tmp_path, tree)
    assert p.ci_built_dockerfiles(found) == []
    assert p.ci_built_dockerfiles(found, {"ci": ["build/flows/*"]}) == ["docker/unnamed-image/Dockerfile"]
    assert p.ci_built_dockerfiles(found, {"docs": ["docker/*"], "ci": ["build/flows/*"]}) == []


def test_no_dockerfile_reads_no_workflow(tmp_path, monkeypatch):
    from ascend_feasibility.analyzer.reading import source
    tree = {".github/workflows/ci.yml": "x\n", "a.py": ""}
    monkeypatch.setattr(source, "read_bytes", lambda *a, **k: pytest.fail("read"))
    assert p.ci_built_dockerfiles(files(tmp_path, tree)) == []


def test_unreadable_and_oversized_workflows_are_passed_over(tmp_path, monkeypatch):
    tree = {"docker/unnamed-image/Dockerfile": "FROM x\n", ".github/workflows/a.yml": "x\n",
            ".github/workflows/b.yml": "unnamed-image\n"}
    found = files(tmp_path, tree)
    big = File(".github/workflows/big.yml", tmp_path / "big.yml", p.MAX_WORKFLOW_BYTES + 1)
    (tmp_path / "big.yml").write_text("unnamed-image\n")
    missing = File(".github/workflows/gone.yml", tmp_path / "gone.yml", 10)
    assert p.ci_built_dockerfiles([found[0], big, missing, found[1]]) == []
    assert p.ci_built_dockerfiles([found[0], big, missing, found[2]]) == ["docker/unnamed-image/Dockerfile"]
    exact = File(".github/workflows/exact.yml", tmp_path / "exact.yml", p.MAX_WORKFLOW_BYTES)
    (tmp_path / "exact.yml").write_text("unnamed-image\n" + " " * (p.MAX_WORKFLOW_BYTES - 14))
    assert p.ci_built_dockerfiles([found[0], exact]) == ["docker/unnamed-image/Dockerfile"]


def test_the_workflows_read_are_bounded(tmp_path, monkeypatch):
    tree = {"docker/unnamed-image/Dockerfile": "FROM x\n"}
    tree |= {f".github/workflows/w{i:03}.yml": "x\n" for i in range(p.MAX_WORKFLOWS - 1)}
    tree[".github/workflows/z_last.yml"] = "unnamed-image\n"
    found = files(tmp_path, tree)
    assert p.ci_built_dockerfiles(found) == ["docker/unnamed-image/Dockerfile"]  # the 200th is read
    extra = files(tmp_path, {".github/workflows/w999.yml": "x\n"})
    assert p.ci_built_dockerfiles(found[:-1] + extra + found[-1:]) == []  # the 201st is not


def test_only_the_engine_tokens_of_a_part_are_replaced():
    assert p._engine_alternative(["x", "trtllm_tensorrtx"], BACKENDS, {"x/trtllm_vllmx"}) is None
    assert p._engine_alternative(["x", "trtllm_tensorrtx"], BACKENDS, {"x/vllm_tensorrtx"}) == "x/vllm_tensorrtx"


def test_a_twin_folder_must_exist():
    assert of(["kernels/cuda/a.py"])[1] == "runs"
    assert of(["kernels/cuda/a.py", "kernels/npu_x/b.py"])[1] == "runs"


def test_a_stem_or_folder_called_init_is_no_import_name():
    assert p._import_names(["__init__.ipynb"]) == (frozenset(), frozenset())
    assert p._import_names(["__init__/__init__.py", "__init__/m.py"]) == (frozenset(), frozenset())


def test_a_folder_name_of_six_characters_is_searched(tmp_path):
    tree = {"docker/abcdef/Dockerfile": "FROM x\n", "docker/abcde/Dockerfile": "FROM x\n",
            ".github/workflows/ci.yml": "build abcdef and abcde\n"}
    assert p.ci_built_dockerfiles(files(tmp_path, tree)) == ["docker/abcdef/Dockerfile"]


def test_a_workflow_that_is_not_utf8_is_still_searched(tmp_path):
    found = files(tmp_path, {"docker/unnamed-image/Dockerfile": "FROM x\n"})
    target = tmp_path / ".github/workflows/ci.yml"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"\xff\xfe unnamed-image\n")
    workflow = File(".github/workflows/ci.yml", target, target.stat().st_size)
    assert p.ci_built_dockerfiles(found + [workflow]) == ["docker/unnamed-image/Dockerfile"]


@pytest.mark.parametrize("paths, general", [
    (["requirements.txt", "requirements_macOS.txt"], "requirements.txt"),  # LivePortrait (round 27 C10)
    (["env/requirements.txt", "env/requirements.osx.txt"], "env/requirements.txt"),
    (["requirements-win.txt", "requirements.txt", "train.py"], "requirements.txt"),
])
def test_a_manifest_for_another_os_beside_the_general_one_is_another_platforms(paths, general):
    context = build_project_context(paths)
    platform = next(path for path in paths if path != general and path.endswith(".txt"))
    assert context.of(platform).reach == "other-backend"
    assert context.of(platform).reason == f"{platform}: another platform's install beside {general}"
    assert context.of(general).reach == "runs"


@pytest.mark.parametrize("paths", [
    ["requirements_macOS.txt", "train.py"],  # the only manifest: the project's install
    ["requirements.txt", "requirements_cpu.txt"],  # Ascend installs torch's CPU wheel: no other platform
    ["requirements.txt", "requirements_dev.txt"],
    ["requirements.txt", "docs/requirements_macOS.txt"],  # not beside it
    ["requirements.txt", "mac_utils.py"],  # no manifest
])
def test_what_is_no_other_platforms_manifest(paths):
    context = build_project_context(paths)
    assert all(context.of(path).reach == "runs" for path in paths if not path.startswith("docs/"))
