"""A collective that runs only under `dist.is_initialized()` (written out or through a one-return helper) in a project
that never starts a process group is `optional` (analyzer/context/process_groups.py). Round 21 B2 class 7 row 34 /
A2 C4 row 84: an inference-only codec's k-means init gathers under `if _is_distributed():` with
`def _is_distributed(): return distributed.is_initialized() and distributed.get_world_size() > 1`, and no file calls
init_process_group. Where any file starts a group (init_process_group, deepspeed's init_distributed) or imports a
framework that does (accelerate), the collective runs."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

CODEBOOK = ("import torch\nfrom torch import distributed, nn\n\n\n"
            "def _is_distributed() -> bool:\n"
            "    return distributed.is_initialized() and distributed.get_world_size() > 1\n\n\n"
            "def _gather(data):\n"
            "    if _is_distributed():\n"
            "        other = [torch.zeros_like(data) for _ in range(distributed.get_world_size())]\n"
            "        distributed.gather(data, other)\n"  # line 12
            "        return torch.cat(other)\n"
            "    return data\n\n\n"
            "def _scatter(data, out):\n"
            "    if distributed.is_initialized() and data.numel() > 0:\n"
            "        distributed.scatter(out, [data])\n"  # line 19
            "    return out\n\n\n"
            "class Codebook(nn.Module):\n"
            "    def forward(self, x):\n"
            "        if self.training:\n"
            "            x = _scatter(_gather(x), x)\n"
            "        return x\n")
LOADER = "from .core_vq import Codebook\n\n\ndef load():\n    model = Codebook()\n    model.eval()\n    return model\n"
EXCHANGE = ("from torch import distributed\n\n\n"
            "def exchange(data, out):\n"
            "    if {test}:\n"
            "        distributed.all_to_all([out], [data])\n"  # line 6
            "    return out\n")
USER = "from .exchange import exchange\n\n\ndef run(x):\n    return exchange(x, x)\n"


def _collectives(root) -> list[tuple[str, int, str, str | None, int]]:
    """DST022 is project-scoped: one finding for every site, the first counted site its line."""
    report = analyze(root, AnalyzeOptions(jobs=1))
    return [(f.path, f.line, f.reach, f.reach_reason, len(f.sites)) for f in report.findings if f.rule == "DST022"]


def _tree(tmp_path, **more):
    write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/core_vq.py": CODEBOOK,
                          "pkg/loaders.py": LOADER, **more})


def test_a_collective_behind_is_initialized_in_a_project_that_never_starts_a_group_is_optional(tmp_path):
    _tree(tmp_path)
    assert _collectives(tmp_path) == [("pkg/core_vq.py", 12, "optional", "no process group is ever initialised in the "
                                       "project: `_is_distributed()` never holds", 2)]


def test_a_collective_a_test_does_not_gate_runs(tmp_path):
    for test in ("distributed.is_initialized() or data.numel() > 0", "not distributed.is_initialized()",
                 "torch.cuda.is_initialized()", "data.numel() > 0"):
        _tree(tmp_path, **{"pkg/exchange.py": "import torch\n" + EXCHANGE.format(test=test), "pkg/user.py": USER})
        assert _collectives(tmp_path) == [("pkg/exchange.py", 7, "runs", None, 3)], test


def test_a_collective_behind_is_initialized_runs_where_the_project_starts_a_group(tmp_path):
    _tree(tmp_path, **{"train.py": "import torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group('nccl')\n"})
    assert [(line, reach) for _, line, reach, _, _ in _collectives(tmp_path)] == [(12, "runs")]
    _tree(tmp_path, **{"train.py": "import deepspeed\n\n\ndef main():\n    deepspeed.init_distributed()\n"})
    assert [(line, reach) for _, line, reach, _, _ in _collectives(tmp_path)] == [(12, "runs")]


def test_a_framework_that_starts_the_group_keeps_the_collective(tmp_path):
    _tree(tmp_path, **{"train.py": "from accelerate import Accelerator\n\n\ndef main():\n    return Accelerator()\n"})
    assert [(line, reach) for _, line, reach, _, _ in _collectives(tmp_path)] == [(12, "runs")]
