"""Capability checks that test a CUDA build, asserted by a caller (domains/device/build_checks.py), and a fatal
`assert torch.cuda.is_available()` that guards nothing (analyzer/context/cuda_gates.py): round 19's openvla classes
V2 and V1. A check returning `torch.version.cuda is not None and ...` inside `try: ... except Exception: return False`
is False on Ascend with or without transfer_to_npu (which patches neither torch.version.cuda nor torch.cuda.nccl):
where a caller asserts it, its first build read is required at the rule's severity, the caller named; where nothing
asserts it, the try/except's fallback still makes it optional."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.guards import import_statements
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.device import build_checks

from tests.helpers import write_tree

CHECK = (
    "import torch\n"
    "def check_bloat16_supported() -> bool:\n"
    "    try:\n"
    "        import packaging.version\n"
    "        import torch.cuda.nccl as nccl\n"
    "        import torch.distributed as dist\n"
    "        return (\n"
    "            (torch.version.cuda is not None)\n"
    "            and torch.cuda.is_bf16_supported()\n"
    "            and (packaging.version.parse(torch.version.cuda).release >= (11, 0))\n"
    "            and dist.is_nccl_available()\n"
    "            and (nccl.version() >= (2, 10))\n"
    "        )\n"
    "    except Exception:\n"
    "        return False\n"
)
BUILD = frozenset({"torch.version.cuda", "torch.cuda.nccl.version"})


def _strategy(test: str) -> str:
    return ("import torch\nfrom pkg.torch_utils import check_bloat16_supported\n"
            "class Strategy:\n    def __init__(self, mixed_precision: bool = True):\n"
            f"        if mixed_precision:\n{test}\n")


def _findings(tmp_path, strategy: str, train: str = "from pkg.strategy import Strategy\nStrategy()\n"):
    write_tree(tmp_path, {"requirements.txt": "torch==2.2.0\n", "pkg/__init__.py": "", "pkg/torch_utils.py": CHECK,
                          "pkg/strategy.py": strategy, "train.py": train})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return [f for f in report.findings if f.path == "pkg/torch_utils.py" and f.rule in {"DEV125", "DEV134"}]


@pytest.mark.parametrize("test", [
    "            assert check_bloat16_supported(), 'BFloat16 is not supported on this hardware'",
    "            assert torch.cuda.is_available() and check_bloat16_supported()",
    "            if not check_bloat16_supported():\n                raise ValueError('bf16 needs Ampere')",
])
def test_an_asserted_build_check_is_required_with_its_caller_named(tmp_path, test):
    found = sorted(_findings(tmp_path, _strategy(test)), key=lambda f: f.line)
    required = [f for f in found if f.reach == "runs"]
    assert [(f.rule, f.line) for f in required] == [("DEV125", 8)]  # the decisive first operand, one item per check
    assert required[0].severity == "medium" and required[0].counted
    assert "check_bloat16_supported()" in required[0].reach_reason and "pkg/strategy.py:6" in required[0].reach_reason
    assert all(f.reach == "optional" for f in found if f is not required[0])  # the same rewrite covers the rest


@pytest.mark.parametrize("test", [
    # the check chooses, nothing stops: bf16 or not is the caller's fallback
    "            dtype = torch.bfloat16 if check_bloat16_supported() else torch.float16",
    "            if check_bloat16_supported():\n                raise ValueError('unexpected')",  # raises when true
    "            assert not check_bloat16_supported()",
    "            if not check_bloat16_supported():\n                print('falling back to fp32')",  # warns only
])
def test_a_build_check_no_caller_asserts_stays_optional(tmp_path, test):
    found = _findings(tmp_path, _strategy(test))
    assert found and all(f.reach == "optional" for f in found)


def test_an_assert_in_a_test_file_is_no_caller(tmp_path):
    write_tree(tmp_path, {"tests/test_bf16.py": "from pkg.torch_utils import check_bloat16_supported\n"
                                                "def test_it():\n    assert check_bloat16_supported()\n"})
    found = _findings(tmp_path, _strategy("            pass"))
    assert found and all(f.reach == "optional" for f in found)


def _read(code: str):
    return build_checks.read(parsing.parse("python", code.encode()), code, BUILD)


def test_read_finds_the_return_statements_of_a_build_test_and_the_asserted_calls():
    checks, asserted = _read(CHECK + "assert check_bloat16_supported()\nif not (a() or b()):\n    raise X\n"
                             "if not ok() or not utils.fine():\n    raise X\nassert f() and self.g()\n")
    assert checks == [("check_bloat16_supported", 7, 13)]
    assert asserted == [("check_bloat16_supported", 16), ("f", 21), ("g", 21), ("ok", 19), ("fine", 19)]  # not (a or b): neither


@pytest.mark.parametrize("code", [
    "import torch\ndef f():\n    return torch.cuda.is_available()\n",  # no build read
    "import torch\ndef f():\n    x = torch.version.cuda\n    return True\n",  # read, not returned
    "import torch\nx = [torch.version.cuda for _ in range(2)]\n",  # no function
    "def f(nccl):\n    return nccl.version() > 2\n",  # a parameter, not torch.cuda.nccl
])
def test_read_leaves_functions_that_do_not_return_a_build_test(code):
    assert _read(code)[0] == []


def test_read_resolves_the_nccl_module_however_it_is_imported():
    for imported in ("from torch.cuda import nccl", "import torch.cuda.nccl as nccl"):
        assert _read(f"{imported}\ndef f():\n    return nccl.version() >= (2, 10)\n")[0] == [("f", 3, 3)]


def test_a_fatal_availability_assert_leaves_the_main_path_running(tmp_path):
    """openvla finetune.py: `assert torch.cuda.is_available()` before set_device, empty_cache and DDP. It stops the
    script natively and passes under transfer_to_npu; what follows is the only path, not CUDA-only code."""
    write_tree(tmp_path, {"requirements.txt": "torch==2.2.0\n", "finetune.py": (
        "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "def finetune(model, device_id):\n"
        "    assert torch.cuda.is_available(), 'Fine-tuning assumes at least one GPU is available!'\n"
        "    torch.cuda.set_device(device_id)\n"
        "    torch.cuda.empty_cache()\n"
        "    return DDP(model.to(device_id), device_ids=[device_id])\n"
        "def flash(q):\n"
        "    assert q.is_cuda, 'CUDA tensors only'\n"
        "    torch.cuda.set_device(q.device)\n"
        "finetune(None, 0)\nflash(None)\n")})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reach = {(f.rule, f.line): f.reach for f in report.findings if f.path == "finetune.py"}
    assert reach[("DEV103", 5)] == reach[("DEV102", 6)] == reach[("DST011", 7)] == "runs"
    assert reach[("DEV103", 10)] == "cuda-only-guarded"  # an input contract: a CUDA-only path its caller picks


def test_import_aliases_are_read_anywhere_and_the_first_binding_wins():
    code = (b"import torch.cuda.nccl as nccl\n"
            b"def f():\n    from torch.cuda import nccl as n2\n    import other.nccl as nccl\n"
            b"from torch import version as v\n")
    assert build_checks._aliases(import_statements(parsing.parse("python", code))) == {
        "nccl": "torch.cuda.nccl", "n2": "torch.cuda.nccl", "v": "torch.version"}


def test_a_units_import_statements_are_its_own_query_s_and_read_gives_the_same_checks():
    """The device facts hand read() the unit's import statements from its combined query (Unit.import_statements):
    the same statements, in the same order, as a query of their own, so the same aliases and checks."""
    code = ("from __future__ import annotations\nimport torch.cuda.nccl as nccl\nfrom . import local\n"
            "def f():\n    from torch.cuda import nccl as n2\n    import other.nccl as nccl\n"
            "try:\n    from torch import version as v\nexcept ImportError:\n    v = None\n"
            "def check():\n    return v.cuda is not None and n2.version() >= (2, 10)\nassert check()\n")
    unit = Unit("m.py", "python", SourceText.from_text(code))
    assert [s.start_byte for s in unit.import_statements()] == [s.start_byte for s in import_statements(unit.tree())]
    assert len(unit.import_statements()) == 5
    given = build_checks.read(unit.tree(), code, BUILD, unit.import_statements)
    assert given == build_checks.read(unit.tree(), code, BUILD) and given[0] == [("check", 12, 12)]
