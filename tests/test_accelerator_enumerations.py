"""DEV221: an enumeration of accelerators that leaves the NPU out (domains/device/enumerations.py), read with the
platforms and shapes of knowledge/device/accelerators.toml. The flagged/not-flagged examples live in the rule's TOML;
these check what the examples cannot: where it is reported, what it says to add, test files, and the data."""

from ascend_feasibility.knowledge import load_accelerator_names

from tests.helpers import scan_bytes

CLUSTER = (
    "def get_cluster_input():\n"
    "    distributed_type = _ask_options(\n"
    "        \"Which type of machine are you using?\",\n"
    "        [\"No distributed training\", \"multi-CPU\", \"multi-XPU\", \"multi-GPU\", \"TPU\"],\n"
    "        _convert_distributed_mode,\n"
    "    )\n"
)
HELPERS = (
    "import importlib.util\n"
    "_xla = importlib.util.find_spec(\"torch_xla\") is not None\n"
    "\n"
    "def is_torch_available():\n"
    "    return True\n"
    "\n"
    "def is_torch_xla_available():\n"
    "    return _xla\n"
    "\n"
    "def is_scipy_available():\n"
    "    return False\n"
)
CONSTANTS = "NCCL_BACKEND = 'nccl'\nCCL_BACKEND = 'ccl'\nMPI_BACKEND = 'mpi'\nGLOO_BACKEND = 'gloo'\nSCCL_BACKEND = 'sccl'\n"


def _found(code: str, name: str = "pkg/module.py", rule: str = "DEV221"):
    return [f for f in scan_bytes(code.encode(), name=name).findings if f.rule == rule]


def test_choice_list_is_reported_once_with_the_npu_item_spelled_as_its_neighbours():
    (finding,) = _found(CLUSTER, "src/accelerate/commands/config/cluster.py")
    assert finding.line == 4 and finding.severity == "low" and finding.migration == "rewrite"
    assert '"multi-NPU"' in finding.replacement.en and '"multi-NPU"' in finding.replacement.zh
    (upper,) = _found('MODES = ["NO", "MULTI_CPU", "MULTI_XPU", "MULTI_GPU", "TPU"]\n')
    assert '"MULTI_NPU"' in upper.replacement.en
    (names,) = _found("MODES = [DistributedType.MULTI_CPU, DistributedType.MULTI_XPU, DistributedType.MULTI_GPU, "
                      "DistributedType.TPU]\n")
    assert "DistributedType.MULTI_NPU" in names.replacement.en


def test_availability_helpers_are_reported_at_the_first_helper_with_a_torch_npu_helper_to_add():
    (finding,) = _found(HELPERS, "src/diffusers/utils/import_utils.py")
    assert finding.line == 4  # def is_torch_available(): the enumeration's first line
    assert 'find_spec("torch_npu")' in finding.replacement.en and "is_torch_npu_available" in finding.replacement.zh


def test_backend_constants_get_the_hccl_backend():
    (finding,) = _found(CONSTANTS, "deepspeed/comm/constants.py")
    assert finding.line == 1 and 'HCCL_BACKEND = "hccl"' in finding.replacement.en


def test_test_files_are_left():
    for name in ("tests/test_cluster.py", "src/pkg/test_utils.py", "tests/utils/import_utils.py"):
        assert not _found(CLUSTER, name) and not _found(HELPERS, name), name


def test_a_device_type_list_is_the_device_list_rule_alone():
    code = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--device", choices=["cpu", "mps", "cuda", "xpu"])\n'
    assert not _found(code) and _found(code, rule="DEV009")


def test_platform_words_name_one_platform_each_and_none_of_cuda_or_the_npu():
    names = load_accelerator_names()
    seen: dict[str, str] = {}
    for platform in names.platform:
        for word in platform.words + platform.collectives:
            assert word == word.lower() and word not in seen, (word, platform.name, seen.get(word))
            seen[word] = platform.name
    assert not set(seen) & (set(names.cuda_words) | set(names.npu_words) | set(names.cuda_collectives))
    assert {k.kind for k in names.enumeration} == {"choices", "availability-helpers", "backend-constants",
                                                        "device-subclasses"}


def test_a_table_row_is_offered_for_the_npu_unless_its_default_serves_it_as_cuda():
    table = ('import torch\nBACKEND_SYNCHRONIZE = {"cuda": torch.cuda.synchronize, "xpu": torch.xpu.synchronize, '
             '"mps": None, "default": None}\n')
    (finding,) = _found(table)
    assert '"npu": ...' in finding.replacement.en
    assert not _found(table.replace('"default": None', '"default": torch.synchronize'))
