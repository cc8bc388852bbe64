"""The target torch_npu release decides what transfer_to_npu handles ('auto')."""

import pytest

from knowledge import KnowledgeError, load_knowledge
from tests.helpers import scan

KB = load_knowledge()


def migration_of(code: str, snippet: str, torch_npu: str) -> list[str]:
    return [f.migration for f in scan(snippet, torch_npu=torch_npu).findings if f.rule == code]


@pytest.mark.parametrize(
    "requested, release",
    [("2.12.0", "2.12.0"), ("2.6.0.post3", "2.6.0.post3"), ("2.6.0.post4", "2.6.0.post3"), ("2.0.0", "2.1.0")],
)
def test_resolves_to_known_release(requested, release):
    assert KB.resolve_target(requested).release.torch_npu == release


def test_newer_than_the_table_assumes_the_newest_line_and_says_so():
    target = KB.resolve_target("2.14.0")
    assert target.release.torch_npu == "2.12.0"
    assert "newer" in target.note


def test_rejects_a_non_version():
    with pytest.raises(KnowledgeError):
        KB.resolve_target("latest")


def test_torch_amp_autocast_is_auto_only_from_the_7_2_line():
    snippet = 'import torch\nwith torch.amp.autocast("cuda"):\n    pass'
    assert migration_of("DEV302", snippet, "2.12.0") == ["auto"]
    assert migration_of("DEV302", snippet, "2.6.0") == ["rewrite"]  # v2.6.0-7.1.0
    assert migration_of("DEV302", snippet, "2.6.0.post3") == ["auto"]  # v2.6.0-7.2.0


def test_torch_autocast_was_covered_by_the_function_list_before_7_2():
    snippet = 'import torch\nwith torch.autocast("cuda"):\n    pass'
    assert migration_of("DEV301", snippet, "2.1.0") == ["rewrite"]  # v2.1.0-5.0.0 had no autocast entry
    assert migration_of("DEV301", snippet, "2.1.0.post10") == ["auto"]
    assert migration_of("DEV301", snippet, "2.12.0") == ["auto"]


def test_torch_cuda_names_follow_torch_npu_all_of_the_release():
    snippet = "import torch\ntorch.cuda.ipc_collect()"
    assert migration_of("DEV100", snippet, "2.12.0") == ["auto"]
    assert migration_of("DEV100", snippet, "2.1.0") == ["rewrite"]


def test_graph_alias_arrives_with_the_7_1_line():
    snippet = "import torch\ng = torch.cuda.CUDAGraph()"
    assert migration_of("DEV111", snippet, "2.5.1") == ["manual"]
    assert migration_of("DEV111", snippet, "2.6.0") == ["auto"]


def test_memory_submodule_is_never_redirected():
    snippet = "import torch\ntorch.cuda.memory.memory_allocated()"
    assert migration_of("DEV105", snippet, "2.12.0") == ["rewrite"]


def test_auto_findings_say_so_in_both_languages():
    finding = scan("import torch\ntorch.cuda.synchronize()").findings[0]
    assert finding.migration == "auto" and finding.severity == "info"
    assert "transfer_to_npu" in finding.message.en and "transfer_to_npu" in finding.message.zh


def test_device_literals_passed_to_torch_functions_follow_the_wrapped_list():
    assert migration_of("DEV001", 'import torch\ns = torch.load(p, map_location="cuda")', "2.12.0") == ["auto"]
    assert migration_of("DEV001", 'import torch\ns = torch.load(p, map_location="cuda")', "2.1.0") == ["rewrite"]
    assert migration_of("DEV001", 'import torch\ng = torch.Generator(device="cuda")', "2.1.0") == ["rewrite"]
    assert migration_of("DEV001", 'import torch\ng = torch.Generator(device="cuda")', "2.6.0") == ["auto"]
    assert migration_of("DEV001", 'import torch\nlayer = torch.nn.Linear(2, 2, device="cuda")', "2.1.0") == ["auto"]
